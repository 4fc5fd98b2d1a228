/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* builtins-ocl.h: OpenCL C prelude of builtins-gen.cl (compiled by clang-14
 * for the host, without the default header: the module *defines* the
 * builtins). Scalar helpers, overloaded on the element type, that the
 * generated overloads apply per element; the floating-point work is C in
 * builtins-math.c (sxm_*). */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable

#define OVL __attribute__((overloadable))
#define SI static inline __attribute__((overloadable, always_inline))
#define SC __ATOMIC_SEQ_CST

/* --------------------------------------------------------- from C (sxm_*) */
#define M1D(n) float sxm_##n##_f(float); double sxm_##n##_d(double);          \
    SI float sx_##n(float x) { return sxm_##n##_f(x); }                        \
    SI double sx_##n(double x) { return sxm_##n##_d(x); }
#define M2D(n) float sxm_##n##_f(float, float); double sxm_##n##_d(double, double); \
    SI float sx_##n(float x, float y) { return sxm_##n##_f(x, y); }            \
    SI double sx_##n(double x, double y) { return sxm_##n##_d(x, y); }
#define M3D(n) float sxm_##n##_f(float, float, float);                         \
    double sxm_##n##_d(double, double, double);                                \
    SI float sx_##n(float x, float y, float z) { return sxm_##n##_f(x, y, z); } \
    SI double sx_##n(double x, double y, double z) { return sxm_##n##_d(x, y, z); }
#define MID(n) float sxm_##n##_f(float, int); double sxm_##n##_d(double, int);  \
    SI float sx_##n(float x, int y) { return sxm_##n##_f(x, y); }              \
    SI double sx_##n(double x, int y) { return sxm_##n##_d(x, y); }
#define MPD(n, P) float sxm_##n##_f(float, P float *); double sxm_##n##_d(double, P double *); \
    SI float sx_##n(float x, P float *y) { return sxm_##n##_f(x, y); }         \
    SI double sx_##n(double x, P double *y) { return sxm_##n##_d(x, y); }
#define MPI(n) float sxm_##n##_f(float, int *); double sxm_##n##_d(double, int *); \
    SI float sx_##n(float x, int *y) { return sxm_##n##_f(x, y); }             \
    SI double sx_##n(double x, int *y) { return sxm_##n##_d(x, y); }

M1D(acos) M1D(acosh) M1D(acospi) M1D(asin) M1D(asinh) M1D(asinpi) M1D(atan) M1D(atanh)
M1D(atanpi) M1D(cbrt) M1D(ceil) M1D(cos) M1D(cosh) M1D(cospi) M1D(erf) M1D(erfc) M1D(exp)
M1D(exp2) M1D(exp10) M1D(expm1) M1D(fabs) M1D(floor) M1D(lgamma) M1D(log) M1D(log10)
M1D(log1p) M1D(log2) M1D(logb) M1D(rint) M1D(round) M1D(rsqrt) M1D(sin) M1D(sinh) M1D(sinpi)
M1D(sqrt) M1D(tan) M1D(tanh) M1D(tanpi) M1D(tgamma) M1D(trunc) M1D(degrees) M1D(radians)
M1D(sign) M1D(recip)
M2D(atan2) M2D(atan2pi) M2D(copysign) M2D(fdim) M2D(fmax) M2D(fmin) M2D(fmod) M2D(hypot)
M2D(maxmag) M2D(minmag) M2D(pow) M2D(powr) M2D(remainder) M2D(divide) M2D(step) M2D(nextafter)
M3D(fma) M3D(mad) M3D(mix) M3D(smoothstep) M3D(clamp)
MID(ldexp) MID(pown) MID(rootn)
MPD(fract, ) MPD(modf, ) MPD(sincos, )
MPI(frexp) MPI(lgamma_r)
float sxm_remquo_f(float, float, int *);
double sxm_remquo_d(double, double, int *);
SI float sx_remquo(float x, float y, int *q) { return sxm_remquo_f(x, y, q); }
SI double sx_remquo(double x, double y, int *q) { return sxm_remquo_d(x, y, q); }
int sxm_ilogb_f(float);
int sxm_ilogb_d(double);
SI int sx_ilogb(float x) { return sxm_ilogb_f(x); }
SI int sx_ilogb(double x) { return sxm_ilogb_d(x); }
float sxm_nan_f(uint);
double sxm_nan_d(ulong);
SI float sx_nan(uint x) { return sxm_nan_f(x); }
SI double sx_nan(ulong x) { return sxm_nan_d(x); }
/* max/min of floats: fmax/fmin (OpenCL leaves NaN and infinity open) */
SI float sx_max(float x, float y) { return sxm_fmax_f(x, y); }
SI double sx_max(double x, double y) { return sxm_fmax_d(x, y); }
SI float sx_min(float x, float y) { return sxm_fmin_f(x, y); }
SI double sx_min(double x, double y) { return sxm_fmin_d(x, y); }

double sxm_dot(const double *, const double *, int);
double sxm_length(const double *, int);
void sxm_normalize(double *, int);
float sxm_cvt_f_l(long, int);
float sxm_cvt_f_m(ulong, int);
float sxm_cvt_f_d(double, int);
double sxm_cvt_d_l(long, int);
double sxm_cvt_d_m(ulong, int);
ushort sxm_to_half(double, int);
float sxm_from_half(ushort);
long sxm_mul_hi_l(long, long);
ulong sxm_mul_hi_m(ulong, ulong);
long sxm_mad_sat_l(long, long, long);
ulong sxm_mad_sat_m(ulong, ulong, ulong);

/* -------------------------------------------------------------- relational */
#define REL(T)                                                                 \
    SI int sx_isequal(T x, T y) { return x == y; }                             \
    SI int sx_isnotequal(T x, T y) { return x != y; }                          \
    SI int sx_isgreater(T x, T y) { return x > y; }                            \
    SI int sx_isgreaterequal(T x, T y) { return x >= y; }                      \
    SI int sx_isless(T x, T y) { return x < y; }                               \
    SI int sx_islessequal(T x, T y) { return x <= y; }                         \
    SI int sx_islessgreater(T x, T y) { return x < y || x > y; }               \
    SI int sx_isfinite(T x) { return __builtin_isfinite(x); }                  \
    SI int sx_isinf(T x) { return __builtin_isinf(x); }                        \
    SI int sx_isnan(T x) { return __builtin_isnan(x); }                        \
    SI int sx_isnormal(T x) { return __builtin_isnormal(x); }                  \
    SI int sx_isordered(T x, T y) { return x == x && y == y; }                 \
    SI int sx_isunordered(T x, T y) { return x != x || y != y; }               \
    SI int sx_signbit(T x) { return __builtin_signbit(x) != 0; }
REL(float)
REL(double)
SI float sx_bitselect(float a, float b, float c)
{
    return as_float((as_uint(a) & ~as_uint(c)) | (as_uint(b) & as_uint(c)));
}
SI double sx_bitselect(double a, double b, double c)
{
    return as_double((as_ulong(a) & ~as_ulong(c)) | (as_ulong(b) & as_ulong(c)));
}

/* ----------------------------------------------------------------- integer */
/* T, its unsigned U, a type W twice as wide (or T for 64 bits), bits, min, max */
#define INT_COMMON(T, U, BITS)                                                 \
    SI U sx_abs(T x) { return x < 0 ? (U)0 - (U)x : (U)x; }                    \
    SI U sx_abs_diff(T x, T y) { return x > y ? (U)((U)x - (U)y) : (U)((U)y - (U)x); } \
    SI T sx_hadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + (x & y & 1)); } \
    SI T sx_rhadd(T x, T y) { return (T)((x >> 1) + (y >> 1) + ((x | y) & 1)); } \
    SI T sx_max(T x, T y) { return x < y ? y : x; }                            \
    SI T sx_min(T x, T y) { return y < x ? y : x; }                            \
    SI T sx_clamp(T x, T lo, T hi) { return sx_min(sx_max(x, lo), hi); }       \
    SI T sx_bitselect(T a, T b, T c) { return (T)((a & ~c) | (b & c)); }       \
    SI T sx_clz(T x)                                                           \
    {                                                                          \
        return x == 0 ? BITS                                                   \
               : BITS == 64 ? (T)__builtin_clzl((ulong)(U)x)                  \
                            : (T)(__builtin_clz((uint)(U)x) - (32 - BITS));   \
    }                                                                          \
    SI T sx_ctz(T x)                                                           \
    {                                                                          \
        return x == 0 ? BITS : BITS == 64 ? (T)__builtin_ctzl((ulong)(U)x) : (T)__builtin_ctz((uint)(U)x); \
    }                                                                          \
    SI T sx_popcount(T x)                                                      \
    {                                                                          \
        return BITS == 64 ? (T)__builtin_popcountl((ulong)(U)x) : (T)__builtin_popcount((uint)(U)x); \
    }                                                                          \
    SI T sx_rotate(T x, T n)                                                   \
    {                                                                          \
        U ux = (U)x, s = (U)((U)n & (BITS - 1));                              \
        return s ? (T)(U)((ux << s) | (ux >> (BITS - s))) : x;                 \
    }                                                                          \
    SI T sx_add_sat(T x, T y)                                                  \
    {                                                                          \
        T r;                                                                   \
        if (!__builtin_add_overflow(x, y, &r))                                 \
            return r;                                                          \
        return (T)-1 < 0 ? (x < 0 ? sx_tmin_##T() : sx_tmax_##T()) : sx_tmax_##T(); \
    }                                                                          \
    SI T sx_sub_sat(T x, T y)                                                  \
    {                                                                          \
        T r;                                                                   \
        if (!__builtin_sub_overflow(x, y, &r))                                 \
            return r;                                                          \
        return (T)-1 < 0 ? (x < 0 ? sx_tmin_##T() : sx_tmax_##T()) : (T)0;    \
    }
/* the narrow types: exact arithmetic in W */
#define INT_NARROW(T, U, W, BITS)                                              \
    INT_COMMON(T, U, BITS)                                                     \
    SI T sx_mul_hi(T x, T y) { return (T)(((W)x * (W)y) >> BITS); }            \
    SI T sx_mad_hi(T x, T y, T z) { return (T)(sx_mul_hi(x, y) + z); }        \
    SI T sx_mad_sat(T x, T y, T z)                                             \
    {                                                                          \
        W v = (W)x * (W)y + (W)z;                                              \
        return v > (W)sx_tmax_##T() ? sx_tmax_##T() : v < (W)sx_tmin_##T() ? sx_tmin_##T() : (T)v; \
    }
#define LIMITS(T, MIN, MAX)                                                    \
    static inline T sx_tmin_##T(void) { return MIN; }                          \
    static inline T sx_tmax_##T(void) { return MAX; }
LIMITS(char, -128, 127)
LIMITS(uchar, 0, 255)
LIMITS(short, -32768, 32767)
LIMITS(ushort, 0, 65535)
LIMITS(int, (int)0x80000000, 0x7fffffff)
LIMITS(uint, 0, 0xffffffffu)
LIMITS(long, (long)0x8000000000000000ul, 0x7fffffffffffffffl)
LIMITS(ulong, 0, 0xfffffffffffffffful)
INT_NARROW(char, uchar, int, 8)
INT_NARROW(uchar, uchar, int, 8)
INT_NARROW(short, ushort, int, 16)
INT_NARROW(ushort, ushort, int, 16)
INT_NARROW(int, uint, long, 32)
INT_NARROW(uint, uint, long, 32)
INT_COMMON(long, ulong, 64)
INT_COMMON(ulong, ulong, 64)
SI long sx_mul_hi(long x, long y) { return sxm_mul_hi_l(x, y); }
SI ulong sx_mul_hi(ulong x, ulong y) { return sxm_mul_hi_m(x, y); }
SI long sx_mad_hi(long x, long y, long z) { return sxm_mul_hi_l(x, y) + z; }
SI ulong sx_mad_hi(ulong x, ulong y, ulong z) { return sxm_mul_hi_m(x, y) + z; }
SI long sx_mad_sat(long x, long y, long z) { return sxm_mad_sat_l(x, y, z); }
SI ulong sx_mad_sat(ulong x, ulong y, ulong z) { return sxm_mad_sat_m(x, y, z); }
/* 24-bit multiplies: the low 32 bits of the product (defined for 24-bit inputs) */
SI int sx_mul24(int x, int y) { return (int)((uint)x * (uint)y); }
SI uint sx_mul24(uint x, uint y) { return x * y; }
SI int sx_mad24(int x, int y, int z) { return (int)((uint)x * (uint)y + (uint)z); }
SI uint sx_mad24(uint x, uint y, uint z) { return x * y + z; }
SI short sx_upsample(char h, uchar l) { return (short)(((ushort)(uchar)h << 8) | l); }
SI ushort sx_upsample(uchar h, uchar l) { return (ushort)(((ushort)h << 8) | l); }
SI int sx_upsample(short h, ushort l) { return (int)(((uint)(ushort)h << 16) | l); }
SI uint sx_upsample(ushort h, ushort l) { return ((uint)h << 16) | l; }
SI long sx_upsample(int h, uint l) { return (long)(((ulong)(uint)h << 32) | l); }
SI ulong sx_upsample(uint h, uint l) { return ((ulong)h << 32) | l; }

/* ------------------------------------------------------------ conversions */
/* float or double to an integer type: round (0 rte, 1 rtz, 2 rtp, 3 rtn),
 * then clamp into [lo, hi] (NaN -> 0). Out-of-range values are undefined
 * without _sat; clamping them too keeps the C behaviour defined. */
SI double sx_rnd(double v, int mode)
{
    return mode == 0 ? __builtin_rint(v) : mode == 1 ? __builtin_trunc(v)
           : mode == 2 ? __builtin_ceil(v) : __builtin_floor(v);
}

/* ------------------------------------------------------ async copies */
event_t sxn_async_copy(void *dst, const void *src, size_t elem, size_t num, size_t dstride,
                       size_t sstride, event_t ev);
