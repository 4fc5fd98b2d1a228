/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* builtins-math.c: the scalar floating-point work behind the OpenCL C math,
 * common and geometric builtins of sx-native-builtins.so. The overloads
 * themselves (every type and vector width, under clang's mangled names)
 * are OpenCL C in builtins-gen.cl; they call these per element.
 *
 * float results are computed in double and rounded once, double results
 * in long double where libm's double is not within the OpenCL bounds
 * (the *pi functions, rootn, rsqrt, geometric sums, cbrt: glibc's double
 * one is off by up to 4 ulp, OpenCL allows 2), so every function stays
 * inside the ulp limits of the OpenCL C specification (7.4). */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* Internal to the module (it is built with -fvisibility=hidden). */
#define H __attribute__((visibility("hidden")))

/* ---------------------------------------------------- one-argument math */

static long double sinpi_l(long double x)
{
    /* sinpi(-x) = -sinpi(x); reduce |x| mod 2 exactly, then to [0, 1/2]. */
    long double s = signbit(x) ? -1.0L : 1.0L, r = fmodl(fabsl(x), 2.0L);
    if (r >= 1.0L) {
        s = -s;
        r -= 1.0L;
    }
    if (r > 0.5L)
        r = 1.0L - r;
    long double v = r <= 0.25L ? sinl(M_PIl * r) : cosl(M_PIl * (0.5L - r));
    return s * v;  /* integers give +-0 with the sign of x */
}
static long double cospi_l(long double x)
{
    long double r = fmodl(fabsl(x), 2.0L), s = 1.0L;
    if (r > 1.0L)
        r = 2.0L - r;
    if (r > 0.5L) {
        s = -1.0L;
        r = 1.0L - r;
    }
    if (r == 0.5L)
        return 0.0L;  /* cospi(n + 1/2) is +0 */
    return s * (r <= 0.25L ? cosl(M_PIl * r) : sinl(M_PIl * (0.5L - r)));
}
static long double tanpi_l(long double x)
{
    long double s = signbit(x) ? -1.0L : 1.0L, r = fmodl(fabsl(x), 1.0L);
    if (r == 0.5L)
        return s * INFINITY;
    if (r > 0.5L) {
        s = -s;
        r = 1.0L - r;
    }
    if (r == 0.0L)  /* tanpi(n) is +-0: +0 for even n, -0 for odd, times the sign */
        return s * (fmodl(fabsl(x), 2.0L) == 0.0L ? 0.0L : -0.0L);
    return s * (r <= 0.25L ? tanl(M_PIl * r) : 1.0L / tanl(M_PIl * (0.5L - r)));
}
static double sign_d(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x == x ? x : 0.0; }
static double rootn_l(double x, int n)
{
    if (n == 0 || (x < 0 && !(n & 1)))
        return NAN;
    if (x == 0)
        return n > 0 ? ((n & 1) ? x : 0.0) : ((n & 1) ? copysign(INFINITY, x) : INFINITY);
    long double r = powl(fabsl((long double)x), 1.0L / (long double)n);
    return (double)(x < 0 ? -r : r);
}
static double powr_d(double x, double y)
{
    if (x < 0 || isnan(x) || isnan(y))
        return NAN;
    if (x == 0 && y == 0)
        return NAN;
    if (isinf(x) && y == 0)
        return NAN;
    if (x == 1 && isinf(y))
        return NAN;
    return pow(x, y);
}

/* One-argument functions: NAME, float expression, double expression. */
#define ONE(X)                                                                \
    X(acos, acos(x), acos(x)) X(acosh, acosh(x), acosh(x))                    \
    X(acospi, acos(x) / M_PI, (double)(acosl(x) / M_PIl))                      \
    X(asin, asin(x), asin(x)) X(asinh, asinh(x), asinh(x))                    \
    X(asinpi, asin(x) / M_PI, (double)(asinl(x) / M_PIl))                      \
    X(atan, atan(x), atan(x)) X(atanh, atanh(x), atanh(x))                    \
    X(atanpi, atan(x) / M_PI, (double)(atanl(x) / M_PIl))                      \
    X(cbrt, cbrt(x), (double)cbrtl(x)) X(ceil, ceil(x), ceil(x))              \
    X(cos, cos(x), cos(x)) X(cosh, cosh(x), cosh(x))                          \
    X(cospi, (double)cospi_l(x), (double)cospi_l(x))                          \
    X(erf, erf(x), erf(x)) X(erfc, erfc(x), erfc(x))                          \
    X(exp, exp(x), exp(x)) X(exp2, exp2(x), exp2(x))                          \
    X(exp10, exp10(x), exp10(x)) X(expm1, expm1(x), expm1(x))                 \
    X(fabs, fabs(x), fabs(x)) X(floor, floor(x), floor(x))                    \
    X(lgamma, lgamma(x), lgamma(x)) X(log, log(x), log(x))                    \
    X(log10, log10(x), log10(x)) X(log1p, log1p(x), log1p(x))                 \
    X(log2, log2(x), log2(x)) X(logb, logb(x), logb(x))                       \
    X(rint, rint(x), rint(x)) X(round, round(x), round(x))                    \
    X(rsqrt, 1.0 / sqrt(x), (double)(1.0L / sqrtl(x)))                        \
    X(sin, sin(x), sin(x)) X(sinh, sinh(x), sinh(x))                          \
    X(sinpi, (double)sinpi_l(x), (double)sinpi_l(x))                          \
    X(sqrt, sqrt(x), sqrt(x)) X(tan, tan(x), tan(x))                          \
    X(tanh, tanh(x), tanh(x))                                                 \
    X(tanpi, (double)tanpi_l(x), (double)tanpi_l(x))                          \
    X(tgamma, tgamma(x), tgamma(x)) X(trunc, trunc(x), trunc(x))              \
    X(degrees, x * (180.0 / M_PI), (double)(x * (180.0L / M_PIl)))            \
    X(radians, x * (M_PI / 180.0), (double)(x * (M_PIl / 180.0L)))            \
    X(sign, sign_d(x), sign_d(x))                                             \
    X(recip, 1.0 / x, 1.0 / x)
#define DEF1(name, ef, ed)                                                    \
    H float sxm_##name##_f(float xf);                                         \
    H float sxm_##name##_f(float xf)                                          \
    {                                                                         \
        double x = xf;                                                        \
        return (float)(ef);                                                   \
    }                                                                         \
    H double sxm_##name##_d(double x);                                        \
    H double sxm_##name##_d(double x) { return ed; }
ONE(DEF1)

/* ---------------------------------------------------- two-argument math */

static double maxmag_d(double x, double y)
{
    return fabs(x) > fabs(y) ? x : fabs(y) > fabs(x) ? y : fmax(x, y);
}
static double minmag_d(double x, double y)
{
    return fabs(x) < fabs(y) ? x : fabs(y) < fabs(x) ? y : fmin(x, y);
}
/* Exact in double for float arguments, so one rounding to float. */
#define TWO(X)                                                                \
    X(atan2, atan2(x, y), atan2(x, y))                                        \
    X(atan2pi, atan2(x, y) / M_PI, (double)(atan2l(x, y) / M_PIl))             \
    X(copysign, copysign(x, y), copysign(x, y))                               \
    X(fdim, fdim(x, y), fdim(x, y)) X(fmax, fmax(x, y), fmax(x, y))           \
    X(fmin, fmin(x, y), fmin(x, y)) X(fmod, fmod(x, y), fmod(x, y))           \
    X(hypot, hypot(x, y), hypot(x, y))                                        \
    X(maxmag, maxmag_d(x, y), maxmag_d(x, y))                                 \
    X(minmag, minmag_d(x, y), minmag_d(x, y))                                 \
    X(pow, pow(x, y), pow(x, y)) X(powr, powr_d(x, y), powr_d(x, y))          \
    X(remainder, remainder(x, y), remainder(x, y))                            \
    X(divide, x / y, x / y)                                                   \
    X(step, y < x ? 0.0 : 1.0, y < x ? 0.0 : 1.0)
#define DEF2(name, ef, ed)                                                    \
    H float sxm_##name##_f(float xf, float yf);                               \
    H float sxm_##name##_f(float xf, float yf)                                \
    {                                                                         \
        double x = xf, y = yf;                                                \
        return (float)(ef);                                                   \
    }                                                                         \
    H double sxm_##name##_d(double x, double y);                              \
    H double sxm_##name##_d(double x, double y) { return ed; }
TWO(DEF2)

/* nextafter steps in the argument's own format */
H float sxm_nextafter_f(float x, float y);
H float sxm_nextafter_f(float x, float y) { return nextafterf(x, y); }
H double sxm_nextafter_d(double x, double y);
H double sxm_nextafter_d(double x, double y) { return nextafter(x, y); }

/* -------------------------------------------------- three-argument math */

static double smooth_d(double e0, double e1, double x)
{
    double t = fmin(fmax((x - e0) / (e1 - e0), 0.0), 1.0);
    return t * t * (3.0 - 2.0 * t);
}
H float sxm_fma_f(float x, float y, float z);
H float sxm_fma_f(float x, float y, float z) { return fmaf(x, y, z); }
H double sxm_fma_d(double x, double y, double z);
H double sxm_fma_d(double x, double y, double z) { return fma(x, y, z); }
H float sxm_mad_f(float x, float y, float z);
H float sxm_mad_f(float x, float y, float z) { return fmaf(x, y, z); }
H double sxm_mad_d(double x, double y, double z);
H double sxm_mad_d(double x, double y, double z) { return fma(x, y, z); }
H float sxm_mix_f(float x, float y, float a);
H float sxm_mix_f(float x, float y, float a) { return x + (y - x) * a; }
H double sxm_mix_d(double x, double y, double a);
H double sxm_mix_d(double x, double y, double a) { return x + (y - x) * a; }
H float sxm_smoothstep_f(float e0, float e1, float x);
H float sxm_smoothstep_f(float e0, float e1, float x) { return (float)smooth_d(e0, e1, x); }
H double sxm_smoothstep_d(double e0, double e1, double x);
H double sxm_smoothstep_d(double e0, double e1, double x) { return smooth_d(e0, e1, x); }
H float sxm_clamp_f(float x, float lo, float hi);
H float sxm_clamp_f(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }
H double sxm_clamp_d(double x, double lo, double hi);
H double sxm_clamp_d(double x, double lo, double hi) { return fmin(fmax(x, lo), hi); }

/* ------------------------------------------------ with an integer or out */

H float sxm_ldexp_f(float x, int n);
H float sxm_ldexp_f(float x, int n) { return ldexpf(x, n); }
H double sxm_ldexp_d(double x, int n);
H double sxm_ldexp_d(double x, int n) { return ldexp(x, n); }
H float sxm_pown_f(float x, int n);
H float sxm_pown_f(float x, int n) { return (float)pow(x, (double)n); }
H double sxm_pown_d(double x, int n);
H double sxm_pown_d(double x, int n) { return (double)powl(x, (long double)n); }
H float sxm_rootn_f(float x, int n);
H float sxm_rootn_f(float x, int n) { return (float)rootn_l(x, n); }
H double sxm_rootn_d(double x, int n);
H double sxm_rootn_d(double x, int n) { return rootn_l(x, n); }

static int ilogb_cl(double x)
{
    if (x == 0)
        return INT_MIN;  /* FP_ILOGB0 of OpenCL C */
    if (isnan(x))
        return INT_MAX;  /* FP_ILOGBNAN */
    if (isinf(x))
        return INT_MAX;
    return ilogb(x);
}
H int sxm_ilogb_f(float x);
H int sxm_ilogb_f(float x) { return ilogb_cl(x); }
H int sxm_ilogb_d(double x);
H int sxm_ilogb_d(double x) { return ilogb_cl(x); }

H float sxm_nan_f(uint32_t code);
H float sxm_nan_f(uint32_t code)
{
    uint32_t b = 0x7fc00000u | (code & 0x3fffffu);
    float f;
    memcpy(&f, &b, 4);
    return f;
}
H double sxm_nan_d(uint64_t code);
H double sxm_nan_d(uint64_t code)
{
    uint64_t b = 0x7ff8000000000000ull | (code & 0x7ffffffffffffull);
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* fract: x - floor(x), never 1.0; *ip = floor(x) */
H float sxm_fract_f(float x, float *ip);
H float sxm_fract_f(float x, float *ip)
{
    float fl = floorf(x);
    *ip = fl;
    if (isnan(x))
        return x;
    if (isinf(x))
        return copysignf(0.0f, x);
    return fminf(x - fl, 0x1.fffffep-1f);
}
H double sxm_fract_d(double x, double *ip);
H double sxm_fract_d(double x, double *ip)
{
    double fl = floor(x);
    *ip = fl;
    if (isnan(x))
        return x;
    if (isinf(x))
        return copysign(0.0, x);
    return fmin(x - fl, 0x1.fffffffffffffp-1);
}
H float sxm_frexp_f(float x, int *e);
H float sxm_frexp_f(float x, int *e)
{
    *e = 0;
    return isfinite(x) ? frexpf(x, e) : x;
}
H double sxm_frexp_d(double x, int *e);
H double sxm_frexp_d(double x, int *e)
{
    *e = 0;
    return isfinite(x) ? frexp(x, e) : x;
}
H float sxm_modf_f(float x, float *ip);
H float sxm_modf_f(float x, float *ip) { return modff(x, ip); }
H double sxm_modf_d(double x, double *ip);
H double sxm_modf_d(double x, double *ip) { return modf(x, ip); }
H float sxm_sincos_f(float x, float *c);
H float sxm_sincos_f(float x, float *c)
{
    *c = (float)cos(x);
    return (float)sin(x);
}
H double sxm_sincos_d(double x, double *c);
H double sxm_sincos_d(double x, double *c)
{
    *c = cos(x);
    return sin(x);
}
/* remquo: OpenCL wants the quotient's sign and its 7 low bits (glibc gives
 * 3). The quotient mod 128 comes from the exact fmod by 128|y|; its
 * difference to the remainder is k|y| with k < 128, exact in long double. */
static int quo7(double x, double y)
{
    long double ax = fabsl(x), ay = fabsl(y);
    if (!isfinite(x) || isnan(y) || y == 0)
        return 0;
    long double m = isfinite((double)(ay * 128)) ? fmodl(ax, 128 * ay) : ax;
    long double r = remainderl(m, ay);
    int k = (int)((m - r) / ay) & 127;
    return (signbit(x) != signbit(y)) ? -k : k;
}
H float sxm_remquo_f(float x, float y, int *q);
H float sxm_remquo_f(float x, float y, int *q)
{
    *q = quo7(x, y);
    return remainderf(x, y);
}
H double sxm_remquo_d(double x, double y, int *q);
H double sxm_remquo_d(double x, double y, int *q)
{
    *q = quo7(x, y);
    return remainder(x, y);
}
H float sxm_lgamma_r_f(float x, int *s);
H float sxm_lgamma_r_f(float x, int *s)
{
    *s = 0;
    return (float)lgamma_r(x, s);
}
H double sxm_lgamma_r_d(double x, int *s);
H double sxm_lgamma_r_d(double x, int *s)
{
    *s = 0;
    return lgamma_r(x, s);
}

/* ------------------------------------------------------------ geometric */

/* Sums in long double: no undue overflow or underflow for either type. */
static long double sumsq(const double *a, int n)
{
    long double s = 0;
    for (int i = 0; i < n; i++)
        s += (long double)a[i] * a[i];
    return s;
}
H double sxm_dot(const double *a, const double *b, int n);
H double sxm_dot(const double *a, const double *b, int n)
{
    long double s = 0;
    for (int i = 0; i < n; i++)
        s += (long double)a[i] * b[i];
    return (double)s;
}
H double sxm_length(const double *a, int n);
H double sxm_length(const double *a, int n)
{
    for (int i = 0; i < n; i++)
        if (isinf(a[i]))
            return INFINITY;
    return (double)sqrtl(sumsq(a, n));
}
/* normalize in place: zero stays zero, infinities become +-1 */
H void sxm_normalize(double *a, int n);
H void sxm_normalize(double *a, int n)
{
    int inf = 0;
    for (int i = 0; i < n; i++)
        if (isnan(a[i]))
            return;
        else if (isinf(a[i]))
            inf = 1;
    if (inf)
        for (int i = 0; i < n; i++)
            a[i] = isinf(a[i]) ? copysign(1.0, a[i]) : copysign(0.0, a[i]);
    long double l = sqrtl(sumsq(a, n));
    if (l == 0)
        return;
    for (int i = 0; i < n; i++)
        a[i] = (double)(a[i] / l);
}

/* ---------------------------------------------- conversions with rounding */

/* Round an exactly held value to float or double in an OpenCL rounding
 * mode (0 nearest-even, 1 toward zero, 2 toward +inf, 3 toward -inf):
 * round to nearest, then step once if that went the wrong way. */
H float sxm_rnd_to_f(long double v, int mode);
H float sxm_rnd_to_f(long double v, int mode)
{
    float r = (float)v;
    if (mode == 1 && fabsl((long double)r) > fabsl(v))
        r = nextafterf(r, 0.0f);
    else if (mode == 2 && (long double)r < v)
        r = nextafterf(r, INFINITY);
    else if (mode == 3 && (long double)r > v)
        r = nextafterf(r, -INFINITY);
    return r;
}
H double sxm_rnd_to_d(long double v, int mode);
H double sxm_rnd_to_d(long double v, int mode)
{
    double r = (double)v;
    if (mode == 1 && fabsl((long double)r) > fabsl(v))
        r = nextafter(r, 0.0);
    else if (mode == 2 && (long double)r < v)
        r = nextafter(r, INFINITY);
    else if (mode == 3 && (long double)r > v)
        r = nextafter(r, -INFINITY);
    return r;
}
H float sxm_cvt_f_l(int64_t x, int mode);
H float sxm_cvt_f_l(int64_t x, int mode) { return sxm_rnd_to_f((long double)x, mode); }
H float sxm_cvt_f_m(uint64_t x, int mode);
H float sxm_cvt_f_m(uint64_t x, int mode) { return sxm_rnd_to_f((long double)x, mode); }
H float sxm_cvt_f_d(double x, int mode);
H float sxm_cvt_f_d(double x, int mode) { return isnan(x) ? (float)x : sxm_rnd_to_f(x, mode); }
H double sxm_cvt_d_l(int64_t x, int mode);
H double sxm_cvt_d_l(int64_t x, int mode) { return sxm_rnd_to_d((long double)x, mode); }
H double sxm_cvt_d_m(uint64_t x, int mode);
H double sxm_cvt_d_m(uint64_t x, int mode) { return sxm_rnd_to_d((long double)x, mode); }

/* float/double -> half bits, rounding as above (vstore_half*) */
H uint16_t sxm_to_half(double x, int mode);
H uint16_t sxm_to_half(double x, int mode)
{
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs(x);
    if (isnan(x))
        return sign | 0x7e00;
    if (isinf(a))
        return sign | 0x7c00;
    /* scale so the half's last place is 1, round to an integer there */
    int e;
    frexp(a, &e);            /* a = m * 2^e, m in [0.5, 1) */
    int q = e - 11;          /* last place of an 11-bit significand */
    if (q < -24)
        q = -24;             /* subnormal halves: last place 2^-24 */
    double s = ldexp(a, -q); /* exact */
    double i;
    switch (mode) {
    case 1: i = trunc(s); break;
    case 2: i = sign ? trunc(s) : ceil(s); break;
    case 3: i = sign ? ceil(s) : trunc(s); break;
    default: i = nearbyint(s); break;
    }
    double v = ldexp(i, q);
    if (v >= 65536.0 || (v > 65504.0)) {
        /* overflow: to infinity unless the mode rounds toward zero here */
        int to_inf = mode == 0 || (mode == 2 && !sign) || (mode == 3 && sign);
        return sign | (to_inf ? 0x7c00 : 0x7bff);
    }
    if (v == 0)
        return sign;
    int ve;
    double vm = frexp(v, &ve);  /* v = vm * 2^ve */
    if (ve - 1 < -14)           /* subnormal */
        return sign | (uint16_t)ldexp(v, 24);
    uint16_t exp = (uint16_t)(ve - 1 + 15);
    uint16_t man = (uint16_t)(ldexp(vm, 11) - 1024.0);
    return sign | (uint16_t)(exp << 10) | man;
}
H float sxm_from_half(uint16_t h);
H float sxm_from_half(uint16_t h)
{
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    float v;
    if (e == 0)
        v = ldexpf((float)m, -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = ldexpf((float)(m | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* 64-bit multiply-high and saturating multiply-add need 128 bits */
H int64_t sxm_mul_hi_l(int64_t x, int64_t y);
H int64_t sxm_mul_hi_l(int64_t x, int64_t y) { return (int64_t)(((__int128)x * y) >> 64); }
H uint64_t sxm_mul_hi_m(uint64_t x, uint64_t y);
H uint64_t sxm_mul_hi_m(uint64_t x, uint64_t y)
{
    return (uint64_t)(((unsigned __int128)x * y) >> 64);
}
H int64_t sxm_mad_sat_l(int64_t x, int64_t y, int64_t z);
H int64_t sxm_mad_sat_l(int64_t x, int64_t y, int64_t z)
{
    __int128 v = (__int128)x * y + z;
    return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}
H uint64_t sxm_mad_sat_m(uint64_t x, uint64_t y, uint64_t z);
H uint64_t sxm_mad_sat_m(uint64_t x, uint64_t y, uint64_t z)
{
    unsigned __int128 v = (unsigned __int128)x * y + z;
    return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}
