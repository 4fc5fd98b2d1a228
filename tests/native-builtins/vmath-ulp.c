/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vmath-ulp.c: the builtins module's float vector math (adapters/native/
 * vmath.c, vmath-pow.c: __sx_vm_FN_fN_ISA) against double-precision libm,
 * each entry point of each ISA this CPU runs (issue 28):
 *  - pow and powr (pow's code, powr's special cases: OpenCL C's table):
 *    x swept densely over every binade (normal and subnormal), y over a
 *    range that takes the result from underflow to overflow, plus small
 *    integers and halves; and every special case of pow in C99 Annex F
 *    (F.9.4.4), which OpenCL C's pow follows, bit for bit (the sign of
 *    zero, NaN), each in every lane position among ordinary lanes;
 *  - pown and rootn (int n) over every binade of x, either sign, and
 *    their special cases (OpenCL C's tables) in each lane;
 *  - exp, exp2, log, log2, sin, cos over their useful ranges; asinh,
 *    acosh and atanh over every binade of their domains;
 *  - fmod, exact: bit for bit libm's fmodf; hypot over every binade of x
 *    and y; both with their special cases in each lane (test_f64).
 * Fails on a result past the OpenCL C full-profile bound (pow, powr, rootn 16 ulp, pown 4, exp,
 * exp2, log, log2 3, sin, cos, asinh and acosh 4, atanh 5); prints the largest error seen per
 * function and ISA (ulp of the correctly rounded float result, as OpenCL
 * C counts them; the double reference's own error is below 2^-28 of that).
 *
 *   vmath-ulp [MODULE.so]   (default: the build tree's sx-native-builtins) */
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef float f4 __attribute__((vector_size(16)));
typedef float f8 __attribute__((vector_size(32)));
typedef float f16 __attribute__((vector_size(64)));

/* Call one entry point on n (<= 16) lanes through a caller of its ISA. */
typedef void (*caller)(void *fn, int arity, const float *x, const float *y, float *r);
#define CALLER(name, vt, attr)                                                                                         \
    static attr void name(void *fn, int arity, const float *x, const float *y, float *r)                               \
    {                                                                                                                  \
        vt a, b, c;                                                                                                    \
        memcpy(&a, x, sizeof a);                                                                                       \
        memcpy(&b, y, sizeof b);                                                                                       \
        if (arity == 1)                                                                                                \
            c = ((vt(*)(vt))fn)(a);                                                                                    \
        else                                                                                                           \
            c = ((vt(*)(vt, vt))fn)(a, b);                                                                             \
        memcpy(r, &c, sizeof c);                                                                                       \
    }
CALLER(call_f4_sse2, f4, )
CALLER(call_f4_avx2, f4, __attribute__((target("avx2,fma"))))
CALLER(call_f8_avx2, f8, __attribute__((target("avx2,fma"))))
CALLER(call_f16_avx512, f16, __attribute__((target("avx2,fma,avx512f,avx512dq"))))

/* The same for (float, int) functions: pown, rootn */
typedef void (*calleri)(void *fn, const float *x, const int *n, float *r);
#define CALLERI(name, vt, it, attr)                                                                                    \
    static attr void name(void *fn, const float *x, const int *n, float *r)                                            \
    {                                                                                                                  \
        vt a, c;                                                                                                       \
        it b;                                                                                                          \
        memcpy(&a, x, sizeof a);                                                                                       \
        memcpy(&b, n, sizeof b);                                                                                       \
        c = ((vt(*)(vt, it))fn)(a, b);                                                                                 \
        memcpy(r, &c, sizeof c);                                                                                       \
    }
typedef int i4 __attribute__((vector_size(16)));
typedef int i8 __attribute__((vector_size(32)));
typedef int i16 __attribute__((vector_size(64)));
CALLERI(calli_f4_sse2, f4, i4, )
CALLERI(calli_f4_avx2, f4, i4, __attribute__((target("avx2,fma"))))
CALLERI(calli_f8_avx2, f8, i8, __attribute__((target("avx2,fma"))))
CALLERI(calli_f16_avx512, f16, i16, __attribute__((target("avx2,fma,avx512f,avx512dq"))))
static const calleri CALLI[] = {calli_f4_sse2, calli_f4_avx2, calli_f8_avx2, calli_f16_avx512};

static const struct isa {
    const char *suffix;
    int lanes;
    caller call;
} ISAS[] = {
    {"f4_sse2", 4, call_f4_sse2},
    {"f4_avx2", 4, call_f4_avx2},
    {"f8_avx2", 8, call_f8_avx2},
    {"f16_avx512", 16, call_f16_avx512},
};

static int isa_ok(const struct isa *i)
{
    if (strstr(i->suffix, "avx512"))
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
               __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (strstr(i->suffix, "avx2"))
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return 1;
}

/* The error of r in ulp of the float nearest want (OpenCL C: the ulp of
 * the exact result; below the normal range, 2^-149). */
static double ulp_err(float r, double want)
{
    if (isnan(want))
        return isnan(r) ? 0 : INFINITY;
    if (isnan(r))
        return INFINITY;
    /* past FLT_MAX a float's ulp stays 2^104 and inf counts as 2^128 */
    double rd = isinf(r) ? copysign(0x1p128, r) : r;
    if (isinf(want))
        return rd == want || (isinf(r) && (r > 0) == (want > 0)) ? 0 : INFINITY;
    if (fabs(want) >= 0x1p128)
        return fabs(rd - want) / 0x1p104 < 1 || (isinf(r) && (r > 0) == (want > 0)) ? 0 : fabs(rd - want) / 0x1p104;
    int e;
    frexp(want, &e); /* want = m 2^e, m in [0.5, 1): a float's ulp there is 2^(e-24) */
    if (e - 24 < -149)
        e = -149 + 24;
    return fabs(rd - want) / ldexp(1.0, e - 24);
}

/* OpenCL C's powr (its table: NaN for x < 0, 0^0, inf^0, 1^inf, NaN in) */
static double powr_ref(double x, double y)
{
    if (x < 0 || isnan(x) || isnan(y) || (x == 0 && y == 0) || (isinf(x) && y == 0) || (x == 1 && isinf(y)))
        return NAN;
    return pow(x, y);
}

struct fn {
    const char *name;
    int arity;
    double bound;
    double (*ref1)(double);
    double (*ref2)(double, double);
};
static const struct fn FNS[] = {
    {"pow", 2, 16, NULL, pow}, {"powr", 2, 16, NULL, powr_ref}, {"exp", 1, 3, exp, NULL}, {"exp2", 1, 3, exp2, NULL}, {"log", 1, 3, log, NULL},
    {"log2", 1, 3, log2, NULL}, {"sin", 1, 4, sin, NULL}, {"cos", 1, 4, cos, NULL},
    {"asinh", 1, 4, asinh, NULL}, {"acosh", 1, 4, acosh, NULL}, {"atanh", 1, 5, atanh, NULL},
};

static int failures;

/* Feed n inputs to one entry point, lanes at a time; the worst error. */
static double run(const struct fn *f, const struct isa *is, void *fn, const float *x, const float *y, size_t n,
                  const char *what)
{
    double worst = 0;
    int shown = 0;
    for (size_t i = 0; i < n; i += (size_t)is->lanes) {
        float a[16] = {0}, b[16] = {0}, r[16];
        for (int l = 0; l < is->lanes; l++) {
            a[l] = x[(i + (size_t)l) % n];
            b[l] = y ? y[(i + (size_t)l) % n] : 0;
        }
        is->call(fn, f->arity, a, b, r);
        for (int l = 0; l < is->lanes && i + (size_t)l < n; l++) {
            double want = f->arity == 1 ? f->ref1(a[l]) : f->ref2(a[l], b[l]);
            double e = ulp_err(r[l], want);
            if (e > worst)
                worst = e;
            if (e > f->bound && shown++ < 5) {
                printf("FAIL: __sx_vm_%s_%s(%a, %a) lane %d = %a, libm %a: %.2f ulp (%s; bound %g)\n", f->name,
                       is->suffix, a[l], b[l], l, r[l], want, e, what, f->bound);
                failures++;
            }
        }
    }
    return worst;
}

static uint32_t rng = 12345;
static uint32_t next(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}
static float bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* pow's inputs: every binade of x (subnormal too) with 2048 mantissas each,
 * y so that y log2 x runs over [-160, 160] (underflow to overflow), and y
 * small integers, halves and huge values; negative x with integer y. */
static size_t pow_inputs(float *x, float *y, size_t cap)
{
    size_t n = 0;
    for (int e = 0; e < 255 && n < cap; e++)
        for (int m = 0; m < 2048 && n < cap; m++) {
            uint32_t mant = (m < 8) ? (uint32_t)m : (m > 2039 ? 0x7fffffu - (uint32_t)(2047 - m) : next() & 0x7fffff);
            float xv = bits(((uint32_t)e << 23) | mant);
            if (xv == 0)
                continue;
            double l2 = log2((double)xv);
            float yv;
            switch (m % 8) {
            case 0: yv = (float)(m / 8 % 17) - 8; break;                /* small integers */
            case 1: yv = ((float)(m / 8 % 9) - 4) + 0.5f; break;       /* halves */
            case 2: yv = bits((next() << 8 | next()) % 0x7f800000u) * ((next() & 1) ? 1 : -1); break; /* any size */
            default: /* the result anywhere from 2^-160 to 2^160 */
                yv = l2 == 0 ? (float)(next() % 1000) : (float)(((double)(next() % 320000) / 1000 - 160) / l2);
            }
            x[n] = xv;
            y[n] = yv;
            n++;
            if (n < cap && (m & 15) == 3) { /* negative x, integer y */
                x[n] = -xv;
                y[n] = (float)((int)(next() % 41) - 20);
                n++;
            }
        }
    /* near 1, with y large (log2 x tiny, so its relative error matters) */
    for (int i = -2000; i <= 2000 && n < cap; i++) {
        x[n] = bits(0x3f800000u + (uint32_t)i);
        double l2 = log2((double)x[n]);
        y[n] = l2 == 0 ? 1e30f : (float)(((double)(next() % 300000) / 1000 - 150) / l2);
        n++;
    }
    return n;
}

/* C99 F.9.4.4 (OpenCL C 1.2 section 7.5.1 and 3.0's table say the same) */
struct special {
    float x, y, want;
};
static size_t pow_specials(struct special *s)
{
    const float inf = INFINITY, nan = NAN;
    size_t n = 0;
#define S(a, b, c) s[n++] = (struct special){a, b, c}
    for (int sg = 0; sg < 2; sg++) {
        float z = sg ? -0.0f : 0.0f;
        S(z, -3, sg ? -inf : inf);  /* y odd integer < 0: +-inf */
        S(z, -1, sg ? -inf : inf);
        S(z, -inf, inf);            /* -inf: +inf */
        S(z, -2, inf);              /* y < 0, not an odd integer: +inf */
        S(z, -0.5f, inf);
        S(z, -1e30f, inf);
        S(z, 3, z);                 /* y odd integer > 0: +-0 */
        S(z, 1, z);
        S(z, 2, 0.0f);              /* y > 0, not an odd integer: +0 */
        S(z, 0.5f, 0.0f);
        S(z, inf, 0.0f);
        S(z, 1e30f, 0.0f);
    }
    S(-1, inf, 1);
    S(-1, -inf, 1);
    float any[] = {0.0f, -0.0f, 1, -1, 2.5f, -2.5f, inf, -inf, nan, 1e-40f, 3e38f};
    for (size_t i = 0; i < sizeof any / sizeof any[0]; i++) {
        S(1, any[i], 1);          /* pow(+1, y) = 1, even for NaN */
        S(any[i], 0.0f, 1);       /* pow(x, +-0) = 1, even for NaN */
        S(any[i], -0.0f, 1);
    }
    S(-2, 0.5f, nan);             /* finite x < 0, finite non-integer y: NaN */
    S(-0.5f, -2.5f, nan);
    S(-3e38f, 1e-3f, nan);
    S(-1e-40f, 0.25f, nan);
    float small[] = {0.5f, -0.5f, 1e-40f, -0.999f, 0.99999994f};
    float big[] = {2, -2, 3e38f, 1.0000001f, -1.5f};
    for (int i = 0; i < 5; i++) {
        S(small[i], -inf, inf);   /* |x| < 1: pow(x, -inf) = +inf, pow(x, +inf) = +0 */
        S(small[i], inf, 0.0f);
        S(big[i], -inf, 0.0f);    /* |x| > 1: the other way round */
        S(big[i], inf, inf);
    }
    S(-inf, -3, -0.0f);           /* pow(-inf, y): y odd integer < 0: -0 */
    S(-inf, -2, 0.0f);            /* y < 0 otherwise: +0 */
    S(-inf, -0.5f, 0.0f);
    S(-inf, 3, -inf);             /* y odd integer > 0: -inf */
    S(-inf, 2, inf);              /* y > 0 otherwise: +inf */
    S(-inf, 0.5f, inf);
    S(inf, -2, 0.0f);             /* pow(+inf, y): +0 for y < 0, +inf for y > 0 */
    S(inf, -0.5f, 0.0f);
    S(inf, 0.5f, inf);
    S(inf, 3, inf);
    S(nan, 2, nan);               /* NaN otherwise */
    S(2, nan, nan);
    S(nan, nan, nan);
    S(-2, nan, nan);
    S(3e38f, 2, inf);             /* overflow and underflow of ordinary lanes */
    S(1e-30f, 2, 0.0f);
    S(-3e38f, 3, -inf);
    S(-1e-30f, 3, -0.0f);
    S(2, 128, inf);
    S(2, -150, 0.0f);
    S(2, -149, 0x1p-149f);
    S(2, -126, 0x1p-126f);
    S(0.5f, -127.5f, 0x1.6a09e6p127f);
    S(1e-40f, 0.5f, sqrtf(1e-40f));
    S(-8, 1.0f / 3, nan);
#undef S
    return n;
}

static int same(float a, float b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return memcmp(&a, &b, 4) == 0;
}

/* OpenCL C's pown and rootn (their tables: pown(x, 0) = 1 for any x;
 * rootn of x < 0 with n even, and of n = 0, is NaN; zeros as pow's) */
static double pown_ref(double x, int n) { return n == 0 ? 1.0 : pow(x, (double)n); }
static double rootn_ref(double x, int n)
{
    if (n == 0 || (x < 0 && !(n & 1)) || isnan(x))
        return NAN;
    if (x == 0)
        return n > 0 ? ((n & 1) ? x : 0.0) : ((n & 1) ? copysign(INFINITY, x) : INFINITY);
    long double r = powl(fabsl((long double)x), 1.0L / (long double)n);
    return (double)(x < 0 ? -r : r);
}

/* pown (bound 4 ulp) and rootn (16): x over every binade, either sign,
 * n small and large; then their special cases, each in every lane. */
static void test_intarg(void *h, int ii, const struct isa *is, const char *fname, float *x, int *n, size_t cap)
{
    int root = !strcmp(fname, "rootn");
    double bound = root ? 16 : 4;
    char name[64];
    snprintf(name, sizeof name, "__sx_vm_%s_%s", fname, is->suffix);
    void *fn = dlsym(h, name);
    if (!fn) {
        printf("FAIL: %s: not in the module\n", name);
        failures++;
        return;
    }
    size_t m = 0;
    for (int e = 0; e < 255 && m < cap; e++)
        for (int k = 0; k < 1024 && m < cap; k++) {
            float xv = bits(((uint32_t)e << 23) | (next() & 0x7fffff) | ((k & 1) ? 0x80000000u : 0));
            double l2 = log2(fabs((double)xv));
            int nv;
            if (k % 4 < 2)
                nv = (int)(next() % 81) - 40;
            else if (root)
                nv = (k % 4 == 2) ? (int)(next() % 2000000) - 1000000 : (int)(next() % 9) + 1;
            else /* the result anywhere from 2^-160 to 2^160 */
                nv = l2 == 0 ? 7 : (int)fmax(-16777215, fmin(16777215, ((double)(next() % 320) - 160) / l2));
            x[m] = xv;
            n[m] = nv;
            m++;
        }
    double worst = 0;
    int shown = 0;
    for (size_t i = 0; i < m; i += (size_t)is->lanes) {
        float r[16];
        CALLI[ii](fn, x + i, n + i, r);
        for (int l = 0; l < is->lanes && i + (size_t)l < m; l++) {
            double want = root ? rootn_ref(x[i + l], n[i + l]) : pown_ref(x[i + l], n[i + l]);
            double e = ulp_err(r[l], want);
            if (e > worst)
                worst = e;
            if (e > bound && shown++ < 5) {
                printf("FAIL: %s(%a, %d) lane %d = %a, reference %a: %.2f ulp (bound %g)\n", name, x[i + l], n[i + l],
                       l, r[l], want, e, bound);
                failures++;
            }
        }
    }
    /* special cases in each lane: zeros, infinities, NaN, n = 0, x < 0 with n even and odd, huge n */
    static const float xs[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -2.0f, -0.5f, 1e-40f, -1e-40f, 1.0f, -1.0f, 3e38f};
    static const int ns[] = {0, 1, -1, 2, -2, 3, -3, 16777216, -16777217, 2147483647, -2147483647 - 1};
    int bad = 0;
    for (size_t a = 0; a < sizeof xs / sizeof xs[0]; a++)
        for (size_t b = 0; b < sizeof ns / sizeof ns[0]; b++)
            for (int l = 0; l < is->lanes; l++) {
                float xx[16], r[16];
                int nn[16];
                for (int k = 0; k < 16; k++) {
                    xx[k] = 1.25f + (float)k;
                    nn[k] = 3;
                }
                xx[l] = xs[a];
                nn[l] = ns[b];
                CALLI[ii](fn, xx, nn, r);
                double want = root ? rootn_ref(xx[l], nn[l]) : pown_ref(xx[l], nn[l]);
                int fine = same(r[l], (float)want) || (isfinite(want) && want != 0 && ulp_err(r[l], want) <= bound);
                if (!fine && bad++ < 5) {
                    printf("FAIL: %s(%a, %d) lane %d = %a, OpenCL C says %a\n", name, xx[l], nn[l], l, r[l], want);
                    failures++;
                }
            }
    printf("%s %s: max %.3f ulp over %zu inputs; special cases in each lane%s\n", fname, is->suffix, worst, m,
           bad ? " WRONG" : " right");
}

/* Two-argument functions computed in double (vmath-f64.c): each result
 * judged by `err` (its error in ulp, 0 where it must be exact; INFINITY
 * where wrong), over n inputs lanes at a time, then the special values ev
 * in each lane among ordinary lanes (every lane judged). The worst error. */
typedef double (*judge2)(float r, float a, float b);
static double test_pairs(void *h, const struct isa *is, const char *fname, judge2 err, double bound, const float *x,
                         const float *y, size_t n, const float *ev, size_t nev)
{
    char name[64];
    snprintf(name, sizeof name, "__sx_vm_%s_%s", fname, is->suffix);
    void *fn = dlsym(h, name);
    if (!fn) {
        printf("FAIL: %s: not in the builtins module\n", name);
        failures++;
        return INFINITY;
    }
    double worst = 0;
    int bad = 0;
    for (size_t i = 0; i < n; i += (size_t)is->lanes) {
        float a[16] = {0}, b[16] = {0}, r[16];
        for (int l = 0; l < is->lanes; l++) {
            a[l] = x[(i + (size_t)l) % n];
            b[l] = y[(i + (size_t)l) % n];
        }
        is->call(fn, 2, a, b, r);
        for (int l = 0; l < is->lanes; l++) {
            double e = err(r[l], a[l], b[l]);
            worst = e > worst ? e : worst;
            if (e > bound && bad++ < 5) {
                printf("FAIL: %s(%a, %a) lane %d = %a: %.2f ulp\n", name, a[l], b[l], l, r[l], e);
                failures++;
            }
        }
    }
    for (size_t u = 0; u < nev; u++)
        for (size_t v = 0; v < nev; v++)
            for (int l = 0; l < is->lanes; l++) {
                float a[16], b[16], r[16];
                for (int k = 0; k < 16; k++) {
                    a[k] = 7.5f + (float)k;
                    b[k] = -2.25f;
                }
                a[l] = ev[u];
                b[l] = ev[v];
                is->call(fn, 2, a, b, r);
                for (int k = 0; k < is->lanes; k++)
                    if (err(r[k], a[k], b[k]) > bound && bad++ < 5) {
                        printf("FAIL: %s(%a, %a) lane %d (the special one in lane %d) = %a\n", name, a[k], b[k], k, l,
                               r[k]);
                        failures++;
                    }
            }
    printf("%s %s: max %.3f ulp over %zu inputs; special values in each lane%s\n", fname, is->suffix, worst, n,
           bad ? " WRONG" : " right");
    return worst;
}

/* fmod is exact: bit for bit libm's fmodf. */
static double fmod_err(float r, float a, float b)
{
    return same(r, fmodf(a, b)) ? 0 : INFINITY;
}

/* hypot: zeros, infinities and NaN exactly as libm's hypotf (C99:
 * hypot(inf, NaN) = inf), the rest in ulp of the double result. */
static double hypot_err(float r, float a, float b)
{
    float want = hypotf(a, b);
    if (want == 0 || isinf(want) || isnan(want))
        return same(r, want) ? 0 : INFINITY;
    return ulp_err(r, hypot(a, b));
}

/* fmod over x and y from every binade (subnormal too, either sign),
 * quotients from below 1 to 2^40 and near whole numbers (x = k y and one
 * ulp either side, k up to the double path's end); hypot over every binade
 * of x and y with ratios from 1 to 2^60, within OpenCL C's 4 ulp (it
 * claims under 1). */
static void test_f64(void *h, const struct isa *is, float *x, float *y, size_t cap)
{
    size_t n = 0;
    while (n + 3 <= cap) {
        uint32_t s = next();
        float a = bits(((next() << 8) ^ next()) % 0x7f800000u | (s & 1 ? 0x80000000u : 0));
        float b;
        switch (s % 4) {
        case 0: b = bits(((next() << 8) ^ next()) % 0x7f800000u); break;                       /* any */
        case 1: b = a / (float)(1 + next() % 1000) * (1 + (float)(next() % 7) / 8); break;     /* small quotient */
        case 2: b = (float)ldexp(1 + (double)(next() % 4096) / 4096, -(int)(next() % 40)) * a; break; /* to 2^40 */
        default: b = bits(((next() << 8) ^ next()) % 0x00800000u + 1); /* subnormal */
        }
        if (s & 2)
            b = -b;
        x[n] = a;
        y[n++] = b;
        if (s % 4 == 1 && isfinite(b) && b != 0) { /* a whole multiple of y and its neighbours */
            float k = (float)(1 + next() % (s & 4 ? 100000u : 1u << 29)) * b;
            x[n] = nextafterf(k, 0);
            y[n++] = b;
            x[n] = nextafterf(k, INFINITY);
            y[n++] = b;
        }
    }
    static const float ev[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-45f, -3e38f, 3.4e38f, 1.0f};
    size_t nev = sizeof ev / sizeof ev[0];
    test_pairs(h, is, "fmod", fmod_err, 0, x, y, n, ev, nev);
    for (size_t i = 0; i < n; i++)
        if (next() & 1)
            y[i] = (float)ldexp(1 + (double)(next() % 4096) / 4096, -(int)(next() % 60)) * x[i];
    test_pairs(h, is, "hypot", hypot_err, 4, x, y, n, ev, nev);
}

int main(int argc, char **argv)
{
    char path[4096];
    const char *bd = getenv("SX_TEST_BUILDDIR");
    if (argc > 1)
        snprintf(path, sizeof path, "%s", argv[1]);
    else
        snprintf(path, sizeof path, "%s/adapters/native/.libs/sx-native-builtins.so", bd ? bd : ".");
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("SKIP: cannot load the builtins module %s: %s\n", path, dlerror());
        return 77;
    }
    size_t cap = 1 << 20;
    float *x = malloc(cap * 4), *y = malloc(cap * 4);
    struct special *sp = malloc(256 * sizeof *sp);
    if (!x || !y || !sp)
        return 1;
    size_t n = pow_inputs(x, y, cap);
    size_t ns = pow_specials(sp);
    /* powr's special cases: the same inputs, OpenCL C's powr table as the
     * answer (powr_ref, exact: no rounding in these) */
    struct special *spr = malloc(256 * sizeof *spr);
    if (!spr)
        return 1;
    for (size_t i = 0; i < ns; i++)
        spr[i] = (struct special){sp[i].x, sp[i].y, (float)powr_ref(sp[i].x, sp[i].y)};
    for (size_t ii = 0; ii < sizeof ISAS / sizeof ISAS[0]; ii++) {
        const struct isa *is = &ISAS[ii];
        if (!isa_ok(is)) {
            printf("SKIP: %s: this CPU lacks the ISA\n", is->suffix);
            continue;
        }
        for (size_t fi = 0; fi < sizeof FNS / sizeof FNS[0]; fi++) {
            const struct fn *f = &FNS[fi];
            char name[64];
            snprintf(name, sizeof name, "__sx_vm_%s_%s", f->name, is->suffix);
            void *fn = dlsym(h, name);
            if (!fn) {
                printf("FAIL: %s: not in %s\n", name, path);
                failures++;
                continue;
            }
            double worst;
            if (f->arity == 2) {
                worst = run(f, is, fn, x, y, n, "sweep");
                /* each special case in each lane, the other lanes ordinary */
                int bad = 0;
                const struct special *tab = strcmp(f->name, "powr") ? sp : spr;
                for (size_t s = 0; s < ns; s++)
                    for (int l = 0; l < is->lanes; l++) {
                        float a[16], b[16], r[16];
                        for (int k = 0; k < 16; k++) {
                            a[k] = 1.5f + (float)k;
                            b[k] = 0.75f;
                        }
                        a[l] = tab[s].x;
                        b[l] = tab[s].y;
                        is->call(fn, 2, a, b, r);
                        /* a finite nonzero result: within the bound (the
                         * rows of ordinary numbers among the special ones) */
                        int fine = same(r[l], tab[s].want) ||
                                   (isfinite(tab[s].want) && tab[s].want != 0 &&
                                    ulp_err(r[l], f->ref2(tab[s].x, tab[s].y)) <= f->bound);
                        if (!fine && bad++ < 5) {
                            printf("FAIL: %s(%a, %a) lane %d = %a, C99 F.9.4.4 (powr: OpenCL C) says %a\n", name, tab[s].x, tab[s].y,
                                   l, r[l], tab[s].want);
                            failures++;
                        }
                        for (int k = 0; k < is->lanes; k++)
                            if (k != l && ulp_err(r[k], f->ref2(a[k], b[k])) > f->bound && bad++ < 5) {
                                printf("FAIL: %s: lane %d wrong beside a special lane %d\n", name, k, l);
                                failures++;
                            }
                    }
                printf("%s %s: max %.3f ulp over %zu inputs; %zu special cases in each lane%s\n", f->name,
                       is->suffix, worst, n, ns, bad ? " WRONG" : " right");
                continue;
            }
            /* unary: 2^18 inputs over the range that matters */
            size_t m = cap;
            for (size_t i = 0; i < m; i++) {
                double u = (double)i / (double)m;
                if (!strcmp(f->name, "exp"))
                    x[i] = (float)(-103.9 + u * (88.72 + 103.9));
                else if (!strcmp(f->name, "exp2"))
                    x[i] = (float)(-150 + u * 278);
                else if (!strncmp(f->name, "log", 3))
                    x[i] = bits((uint32_t)(u * 0x7f800000u) + 1);
                else if (!strcmp(f->name, "asinh")) /* every binade, both signs */
                    x[i] = bits((uint32_t)(u * 0x7f800000u) + 1 + ((i & 1) ? 0x80000000u : 0));
                else if (!strcmp(f->name, "acosh")) /* [1, FLT_MAX] */
                    x[i] = bits(0x3f800000u + (uint32_t)(u * (0x7f800000u - 0x3f800000u)));
                else if (!strcmp(f->name, "atanh")) /* (-1, 1) by binades, both signs */
                    x[i] = bits((uint32_t)(u * 0x3f800000u) + ((i & 1) ? 0x80000000u : 0));
                else
                    x[i] = (float)((u - 0.5) * ((i & 1) ? 200 : 2e5)); /* sin, cos */
            }
            worst = run(f, is, fn, x, NULL, m, "range");
            /* special and edge values in each lane: zeros (with their sign),
             * infinities and NaN exactly as the C library's float function
             * has them, the rest within the bound */
            static const float ev[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1.0f, -1.0f, 1e-40f, -1e-40f,
                                       0x1p-149f, 3e38f, -3e38f, 100.0f, -200.0f, 89.0f, -104.0f, 0x1p15f, 1e30f};
            int bad = 0;
            for (size_t v = 0; v < sizeof ev / sizeof ev[0]; v++)
                for (int l = 0; l < is->lanes; l++) {
                    float a[16], r[16];
                    for (int k = 0; k < 16; k++)
                        a[k] = 0.75f + (float)k / 8;
                    a[l] = ev[v];
                    is->call(fn, 1, a, a, r);
                    double want = f->ref1(ev[v]);
                    int fine = (want == 0 || isinf(want) || isnan(want)) ? same(r[l], (float)want)
                                                                         : ulp_err(r[l], want) <= f->bound;
                    if (!fine && bad++ < 5) {
                        printf("FAIL: %s(%a) lane %d = %a, libm %a\n", name, ev[v], l, r[l], want);
                        failures++;
                    }
                }
            printf("%s %s: max %.3f ulp over %zu inputs; edge values in each lane%s\n", f->name, is->suffix, worst, m,
                   bad ? " WRONG" : " right");
            n = pow_inputs(x, y, cap);
        }
    }
    int *ni = malloc(cap * sizeof *ni);
    if (!ni)
        return 1;
    for (size_t ii = 0; ii < sizeof ISAS / sizeof ISAS[0]; ii++)
        if (isa_ok(&ISAS[ii]))
            for (int k = 0; k < 2; k++)
                test_intarg(h, (int)ii, &ISAS[ii], k ? "rootn" : "pown", x, ni, cap);
    for (size_t ii = 0; ii < sizeof ISAS / sizeof ISAS[0]; ii++)
        if (isa_ok(&ISAS[ii]))
            test_f64(h, &ISAS[ii], x, y, cap);
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
