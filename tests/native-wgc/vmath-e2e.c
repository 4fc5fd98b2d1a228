/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vmath-e2e.c: the math builtins of vmath.cl on the native device, on the
 * table SX_NATIVE_WG_TABLE picks (issue 28: vector math in vectorised
 * work-item loops and on vectors), over edge cases (signed zeros,
 * subnormals, infinities, NaN, overflow and underflow thresholds, huge
 * arguments of sin/cos/tan) and pseudo-random inputs, each result against
 * long double libm and failing on any value outside the OpenCL C
 * specification's ulp bound for the function (7.4, full profile: exp 3 ulp,
 * sin 4, pow 16, ...) or on a wrong special value.
 * Usage: vmath-e2e FILE.sximg [FUNCTION]; prints the largest error seen per
 * function and shape. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

#define E2E_NAME "vmath-e2e"
#include "e2e.h"

enum { N = 4800 };

static long double rsqrt_l(long double x) { return 1.0L / sqrtl(x); }

/* OpenCL C's powr: pow for x >= 0, NaN where pow's special cases are not */
static long double powr_l(long double x, long double y)
{
    if (x < 0 || isnan(x) || isnan(y) || (x == 0 && y == 0) || (isinf(x) && y == 0) || (x == 1 && isinf(y)))
        return NAN;
    return powl(x, y);
}

/* pown and rootn of y's integer part (the kernels clamp y to +-1e9 as
 * OpenCL C's clamp does, NaN to -1e9, and convert it) */
static int sat_int(long double y)
{
    return (int)fminl(fmaxl((float)y, -1e9L), 1e9L);
}
static long double pown_l(long double x, long double y)
{
    int n = sat_int(y);
    return n == 0 ? 1.0L : powl(x, (long double)n);
}
static long double rootn_l(long double x, long double y)
{
    int n = sat_int(y);
    if (n == 0 || (x < 0 && !(n & 1)) || isnan(x))
        return NAN;
    if (x == 0)
        return n > 0 ? ((n & 1) ? x : 0.0L) : ((n & 1) ? copysignl(INFINITY, x) : INFINITY);
    long double r = powl(fabsl(x), 1.0L / (long double)n);
    return x < 0 ? -r : r;
}

typedef long double (*ref1)(long double);
typedef long double (*ref2)(long double, long double);
static const struct fn {
    const char *name;
    ref1 r1;
    ref2 r2;
    double bound;           /* ulp, float and double alike in the table */
    double lo, hi;          /* a range where the function is interesting */
    int float_only;         /* native_ and half_ functions */
} FNS[] = {
    {"exp", expl, NULL, 3, -110, 90},      {"exp2", exp2l, NULL, 3, -160, 130},  {"exp10", exp10l, NULL, 3, -46, 40},
    {"expm1", expm1l, NULL, 3, -20, 90},   {"log", logl, NULL, 3, 0, 1e6},       {"log2", log2l, NULL, 3, 0, 1e6},
    {"log10", log10l, NULL, 3, 0, 1e6},    {"log1p", log1pl, NULL, 2, -1, 1e3},  {"sin", sinl, NULL, 4, -1e5, 1e5},
    {"cos", cosl, NULL, 4, -1e5, 1e5},     {"tan", tanl, NULL, 5, -1e4, 1e4},    {"sinh", sinhl, NULL, 4, -90, 90},
    {"cosh", coshl, NULL, 4, -90, 90},     {"tanh", tanhl, NULL, 5, -20, 20},    {"asin", asinl, NULL, 4, -1, 1},
    {"acos", acosl, NULL, 4, -1, 1},       {"atan", atanl, NULL, 5, -1e3, 1e3},  {"cbrt", cbrtl, NULL, 2, -1e6, 1e6},
    {"atan2", NULL, atan2l, 6, -10, 10},   {"pow", NULL, powl, 16, 0, 20},      {"powr", NULL, powr_l, 16, 0, 20},
    {"asinh", asinhl, NULL, 4, -1e6, 1e6}, {"acosh", acoshl, NULL, 4, 1, 1e6},   {"atanh", atanhl, NULL, 5, -1, 1},
    {"hypot", NULL, hypotl, 4, -1e30, 1e30},
    {"fmod", NULL, fmodl, 0, -1e6, 1e6},  /* exact */
    /* inline: 1 / sqrt (float through double) */
    {"rsqrt", rsqrt_l, NULL, 2, 0, 1e6},
    /* the implementation's accuracy (half_: 8192 ulp): here the full function's bound */
    {"native_exp", expl, NULL, 3, -110, 90, 1}, {"native_log2", log2l, NULL, 3, 0, 1e6, 1},
    {"native_sin", sinl, NULL, 4, -1e5, 1e5, 1}, {"native_cos", cosl, NULL, 4, -1e5, 1e5, 1},
    {"half_exp", expl, NULL, 3, -110, 90, 1},
    {"pown", NULL, pown_l, 4, -20, 20, 1}, {"rootn", NULL, rootn_l, 16, -20, 20, 1},
};

/* splitmix64 */
static uint64_t seed = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
    uint64_t z = (seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double unif(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) * 0x1p-53; }

/* Inputs: edge cases first, then a third random bit patterns, a third
 * over the function's range, a third over [-2, 2] (pow: y integers and
 * halves). Doubles hold the same values widened, plus their own bits. */
static void inputs(const struct fn *f, int arg, float *xf, double *xd)
{
    static const double edge[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, 10.0,
                                  FLT_MIN, -FLT_MIN, 0x1p-149, -0x1p-149, 1e-40, -1e-40, 0x1.fffffcp-127, FLT_MAX,
                                  -FLT_MAX, 88.72283, 88.7228394, 89.0, -87.33654, -103.97, -104.0, -150.0, 127.99,
                                  128.0, -149.0, 1e4, -1e4, 1e10, 1e30, -1e30, 3.14159265358979, 1.5707963267949,
                                  -1.5707963267949, 100.5, 0.9999, 1.0001, 1e-8, -1e-8, 0.70710678, 4.5e15,
                                  DBL_MIN, 0x1p-1074, 1e300, -1e300, 709.78, 709.79, -745.1, 1e22, 1e200};
    size_t ne = sizeof edge / sizeof edge[0];
    for (size_t i = 0; i < N; i++) {
        double v;
        size_t pick = i / ne;  /* every edge value meets every other (two-argument functions) */
        if (i < ne * ne && f->r2)
            v = edge[arg ? pick : i % ne];
        else if (i < ne)
            v = edge[i];
        else if (i % 3 == 0) {
            uint64_t b = rnd();
            uint32_t b32 = (uint32_t)b;
            float fv;
            memcpy(&fv, &b32, 4);
            v = (i % 6 == 0) ? (double)fv : 0.0;
            if (i % 6 != 0)
                memcpy(&v, &b, 8);
        } else if (i % 3 == 1) {
            v = (arg && (strstr(f->name, "pow") || strstr(f->name, "root"))) ? unif(-30, 30) : unif(f->lo, f->hi);
        } else {
            v = (arg && (strstr(f->name, "pow") || strstr(f->name, "root"))) ? (double)((int)(rnd() % 41) - 20) * ((i & 8) ? 0.5 : 1.0)
                                                  : unif(-2, 2);
        }
        xd[i] = v;
        xf[i] = (float)v;
    }
}

/* Error of got against the exact ref, in ulp of the format (p bits,
 * exponents emin..emax): infinity counts as 2^(emax+1); NaN must meet NaN,
 * an infinite ref an equal infinity, a zero ref a zero of its sign. */
static double ulp_err(long double got, long double ref, int p, int emin, int emax, long double maxv)
{
    if (isnan(ref))
        return isnan(got) ? 0 : INFINITY;
    if (isnan(got))
        return INFINITY;
    if (isinf(ref))
        return got == ref ? 0 : INFINITY;
    if (ref == 0 && got == 0)
        return signbit(ref) == signbit(got) ? 0 : INFINITY;
    if (fabsl(ref) > maxv) {  /* rounds to infinity (or to the largest finite, 1 ulp off) */
        if (isinf(got) || fabsl(got) == maxv)
            return signbit(got) == signbit(ref) ? (isinf(got) ? 0 : 1) : INFINITY;
        return INFINITY;
    }
    long double g = isinf(got) ? copysignl(ldexpl(1, emax + 1), got) : got;
    int e = ref == 0 ? emin : ilogbl(ref);
    if (e < emin)
        e = emin;
    return (double)(fabsl(g - ref) / ldexpl(1, e - p + 1));
}

/* A 1-D launch of kernel `name`. */
static int launch1(const char *name, size_t g, size_t l, uint32_t n, const sx_arg *a)
{
    return launch(name, 1, NULL, &g, &l, n, a);
}

/* One kernel: shape "f1", "f4", "f16", "d1", "d3" or "d8" (fib8: float8
 * on fibers). */
static void run_shape(const struct fn *f, const char *shape, const float *xf, const float *yf, const double *xd,
                      const double *yd)
{
    int dbl = shape[0] == 'd';
    size_t lanes = (size_t)atoi(shape + strcspn(shape, "0123456789")), esz = dbl ? 8 : 4;
    void *x = alloc(N * esz), *y = alloc(N * esz), *o = alloc(N * esz);
    memcpy(x, dbl ? (const void *)xd : (const void *)xf, N * esz);
    memcpy(y, dbl ? (const void *)yd : (const void *)yf, N * esz);
    size_t g = N / lanes, l = g % 100 == 0 ? 100 : g % 40 == 0 ? 40 : g % 50 == 0 ? 50 : g % 30 == 0 ? 30 : 1;
    char name[64];
    snprintf(name, sizeof name, "%s_%s", shape, f->name);
    sx_arg a[] = {ptr(0, x), ptr(1, y), ptr(2, o)};
    if (launch1(name, g, l, 3, a)) {
        double worst = 0;
        size_t bad = 0, first = N;
        for (size_t i = 0; i < N; i++) {
            long double xv = dbl ? (long double)xd[i] : (long double)xf[i];
            long double yv = dbl ? (long double)yd[i] : (long double)yf[i];
            long double ref = f->r1 ? f->r1(xv) : f->r2(xv, yv);
            long double got = dbl ? (long double)((double *)o)[i] : (long double)((float *)o)[i];
            double e = dbl ? ulp_err(got, ref, 53, -1022, 1023, DBL_MAX) : ulp_err(got, ref, 24, -126, 127, FLT_MAX);
            if (!(e <= f->bound)) {
                if (!bad++)
                    first = i;
            } else if (e > worst) {
                worst = e;
            }
        }
        if (bad) {
            long double xv = dbl ? (long double)xd[first] : (long double)xf[first];
            long double yv = dbl ? (long double)yd[first] : (long double)yf[first];
            long double ref = f->r1 ? f->r1(xv) : f->r2(xv, yv);
            long double got = dbl ? (long double)((double *)o)[first] : (long double)((float *)o)[first];
            char args[96];
            if (f->r2)
                snprintf(args, sizeof args, "%.17Lg, %.17Lg", xv, yv);
            else
                snprintf(args, sizeof args, "%.17Lg", xv);
            fprintf(stderr, "vmath-e2e: FAIL %s: %zu of %d results outside %g ulp; first [%zu]: %s(%s) = %.17Lg, exact %.20Lg\n",
                    name, bad, N, f->bound, first, f->name, args, got, ref);
            failures++;
        } else {
            printf("ok %-10s max %.3f ulp (bound %g)\n", name, worst, f->bound);
        }
    }
    sx_usm_free(ctx, x);
    sx_usm_free(ctx, y);
    sx_usm_free(ctx, o);
}

/* pow(2, k): exact, for a uniform k and for k per work-item. */
static void t_pow2(void)
{
    float *x = alloc(N * 4), *o = alloc(N * 4);
    double *od = alloc(N * 8);
    int *k = alloc(N * 4);
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 97) * 0.25f - 7.0f;
        k[i] = i % 400 - 200;
    }
    static const int ks[] = {0, 5, -3, 127, 128, -126, -149, -150, 300, -300};
    for (size_t j = 0; j < sizeof ks / sizeof ks[0]; j++) {
        int kk = ks[j];
        sx_arg a[] = {ptr(0, x), ptr(1, o), {SX_ARG_VALUE, 2, 4, &kk}};
        if (!launch1("pow2_uniform", N, 100, 3, a))
            break;
        for (int i = 0; i < N; i++) {
            float want = x[i] * ldexpf(1.0f, kk);
            if (memcmp(&want, &o[i], 4) != 0 && !(isnan(want) && isnan(o[i]))) {
                fprintf(stderr, "vmath-e2e: FAIL pow2_uniform k %d: [%d] = %a, expected %a\n", kk, i, o[i], want);
                failures++;
                break;
            }
        }
    }
    sx_arg a[] = {ptr(0, k), ptr(1, o), ptr(2, od)};
    if (launch1("pow2_item", N, 100, 3, a)) {
        int bad = 0;
        for (int i = 0; i < N && !bad; i++)
            if (o[i] != ldexpf(1.0f, k[i]) || od[i] != ldexp(1.0, k[i])) {
                fprintf(stderr, "vmath-e2e: FAIL pow2_item: k %d: %a and %a, expected %a and %a\n", k[i], o[i], od[i],
                        ldexpf(1.0f, k[i]), ldexp(1.0, k[i]));
                bad = 1;
                failures++;
            }
        if (!bad)
            printf("ok pow2 (uniform k and k per work-item, exact)\n");
    }
    sx_usm_free(ctx, x);
    sx_usm_free(ctx, o);
    sx_usm_free(ctx, od);
    sx_usm_free(ctx, k);
}

/* common_ops: min, max, clamp, abs, popcount, clz, ctz, mix, exact. */
static void t_common(void)
{
    int *a = alloc(N * 4), *b = alloc(N * 4), *oi = alloc(N * 4), *o4 = alloc(N * 16);
    unsigned *ou = alloc(N * 4);
    float *f = alloc(N * 4), *of = alloc(N * 4);
    for (int i = 0; i < N; i++) {
        a[i] = (int)(uint32_t)rnd() >> (i % 24);
        b[i] = (i % 5 == 0) ? a[i] : (int)(uint32_t)rnd() >> (i % 29);
        if (i % 97 == 0)
            a[i] = INT32_MIN;
        f[i] = (float)((int)(rnd() % 2001) - 1000) * 0.005f;
    }
    sx_arg args[] = {ptr(0, a), ptr(1, b), ptr(2, f), ptr(3, oi), ptr(4, ou), ptr(5, of), ptr(6, o4)};
    if (!launch1("common_ops", N, 100, 7, args))
        goto out;
    for (int i = 0; i < N; i++) {
        int x = a[i], y = b[i];
        unsigned ux = (unsigned)x, uy = (unsigned)y;
#define MIN(p, q) ((p) < (q) ? (p) : (q))
#define MAX(p, q) ((p) > (q) ? (p) : (q))
        int wi = MIN(x, y) ^ (int)((unsigned)MAX(x, y) << 1) ^ MIN(MAX(x, -1000), y) ^ (int)(x < 0 ? 0u - (unsigned)x : (unsigned)x);
        unsigned wu = MIN(ux, uy) ^ (MAX(ux, uy) >> 1) ^ MIN(MAX(ux, 10u), 1u << 30) ^ (unsigned)__builtin_popcount(ux) ^
                      ((ux ? (unsigned)__builtin_clz(ux) : 32u) << 8) ^ ((uy ? (unsigned)__builtin_ctz(uy) : 32u) << 16);
        float v[4] = {f[i], -f[i], f[i] * 0.5f, 3.0f}, c[4];
        for (int k = 0; k < 4; k++) {
            volatile float m = v[k] + (1.0f - v[k]) * 0.25f;  /* as written, no contraction */
            c[k] = fminf(fmaxf(v[k], -2.0f), 2.0f) + m + fminf(v[k], 0.5f) + fmaxf(v[k], -0.5f);
        }
        float wf = c[0] + c[1] * 2.0f + c[2] * 4.0f + c[3] * 8.0f;
        int w4[4] = {x, y, (int)((unsigned)x - (unsigned)y), 7};
        int s24 = (int)((unsigned)x << 8) >> 8, t24 = (int)((unsigned)y << 8) >> 8;
        unsigned r = uy & 31, rot = r ? (ux << r) | (ux >> (32 - r)) : ux;
        wi ^= (int)((unsigned)((s24 >> 12) * (t24 >> 12)) + (unsigned)((s24 >> 13) * 3 + t24) + rot +
                    (unsigned)((x & 4) ? y : x) + (unsigned)((x & ~0x0f0f0f0f) | (y & 0x0f0f0f0f)));
        int c4[4] = {x, -1, 0, y};
        int bad4 = 0;
        for (int k = 0; k < 4; k++) {
            int e = (int)((unsigned)MIN(MAX(w4[k], -50), 50) + (unsigned)MAX(w4[k], 3) +
                          ((w4[k] < 0 ? 0u - (unsigned)w4[k] : (unsigned)w4[k]) & 0xffu));
            int sel = w4[k] < 0 ? k + 1 : w4[k];
            uint32_t vb, mb, hb;
            float sgn = -0.0f, m1 = -1.0f; /* the sign bit: -|v| */
            memcpy(&vb, &v[k], 4);
            memcpy(&mb, &m1, 4);
            memcpy(&hb, &sgn, 4);
            uint32_t bs = (vb & ~hb) | (mb & hb);
            float bsf;
            memcpy(&bsf, &bs, 4);
            float fs = (c4[k] < 0 ? 9.0f : v[k]) + bsf;
            e = (int)((unsigned)e + (unsigned)sel + (unsigned)(int)(fs * 16.0f));
            if (o4[i * 4 + k] != e && !bad4)
                fprintf(stderr, "vmath-e2e: common_ops [%d] int4 lane %d: %d, expected %d\n", i, k, o4[i * 4 + k], e);
            bad4 |= o4[i * 4 + k] != e;
        }
        if (oi[i] != wi || ou[i] != wu || of[i] != wf || bad4) {
            fprintf(stderr, "vmath-e2e: FAIL common_ops [%d] (a %d, b %d, f %g): int %d/%d uint %u/%u float %g/%g int4 %s\n", i,
                    x, y, f[i], oi[i], wi, ou[i], wu, of[i], wf, bad4 ? "differs" : "ok");
            failures++;
            goto out;
        }
    }
    printf("ok common_ops (min, max, clamp, abs, popcount, clz, ctz, mix, mul24, mad24, rotate, select, bitselect "
           "inline; exact)\n");
out:
    sx_usm_free(ctx, a);
    sx_usm_free(ctx, b);
    sx_usm_free(ctx, oi);
    sx_usm_free(ctx, o4);
    sx_usm_free(ctx, ou);
    sx_usm_free(ctx, f);
    sx_usm_free(ctx, of);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: vmath-e2e FILE.sximg [FUNCTION]\n");
        return 2;
    }
    if (!e2e_setup(argv[1]))
        return 1;
    static float xf[N], yf[N];
    static double xd[N], yd[N];
    static const char *const shapes[] = {"f1", "f4", "f16", "d1", "d3", "d8"};
    for (size_t i = 0; i < sizeof FNS / sizeof FNS[0]; i++) {
        const struct fn *f = &FNS[i];
        if (argc > 2 && strcmp(argv[2], f->name) != 0)
            continue;
        inputs(f, 0, xf, xd);
        inputs(f, 1, yf, yd);
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            if (!f->float_only || shapes[s][0] == 'f')
                run_shape(f, shapes[s], xf, yf, xd, yd);
        if (!strcmp(f->name, "tanh"))
            run_shape(f, "fib8", xf, yf, xd, yd);
    }
    if (argc <= 2) {
        t_pow2();
        t_common();
    }
    return e2e_finish();
}
