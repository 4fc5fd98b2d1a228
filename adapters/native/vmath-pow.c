/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vmath-pow.c: the builtins module's own vector powf (issue 28), the
 * __sx_vm_pow_fN_ISA entry points of vmath.c's ABI (sse2 f4, avx2 f4 and
 * f8, avx512 f16). glibc's libmvec and SLEEF take about twice the time of
 * the SVML powf Intel's CPU runtime calls; this one computes in double:
 *
 *   x = 2^k z, z in [0.703, 1.406) (the bits of x less an offset give k
 *   and z); z in one of 16 intervals, c its centre (1 for the one holding
 *   1, so log2 stays relative near x = 1): log2 x = k + log2(1/c)... in
 *   full: k - log2(invc) + log2(1 + r), r = z invc - 1, |r| <= 1/32,
 *   log2(1 + r) a degree-5 polynomial (relative error 2^-31.8);
 *   t = y log2 x (double, |t| clamped to [-160, 129]: past those the float
 *   result is 0 or inf anyway, and 2^t stays a normal double);
 *   2^t = 2^(i/16) 2^s, i = round(16 t), |s| <= 1/32, 2^(i/16) from a
 *   16-entry table with i >> 4 added to its exponent, 2^s - 1 a degree-3
 *   polynomial (relative error 2^-28.7).
 *
 * The double result is within about 2^-28 of pow (relative) before its one
 * rounding to float: under 0.8 ulp measured (tests/native-builtins/
 * vmath-ulp.c). The
 * result's rounding to float also makes the subnormal and overflowing
 * results right (2^t is a double there). Lanes where x is zero, negative,
 * subnormal, infinite or NaN, or y infinite or NaN, take libm's powf (C99
 * Annex F's special cases, which OpenCL C's pow follows); only vectors
 * with such a lane pay for it.
 *
 * The tables are looked up by AVX-512's two-register permute (16 doubles
 * in two registers), AVX2's gather, or lane by lane (SSE2). The algorithm
 * is the usual table-driven one (as in ARM's optimized-routines powf); the
 * code and constants are this project's (tools/vmath-pow-tables.py: the
 * tables, and Chebyshev fits in exact rationals). */
#include <math.h>
#include <stdint.h>

#include <immintrin.h>

#define EXPORT __attribute__((visibility("default")))

typedef float f4 __attribute__((vector_size(16)));
typedef float f8 __attribute__((vector_size(32)));
typedef float f16 __attribute__((vector_size(64)));
typedef double d2 __attribute__((vector_size(16)));
typedef double d4 __attribute__((vector_size(32)));
typedef double d8 __attribute__((vector_size(64)));
typedef int i4 __attribute__((vector_size(16)));
typedef int i8 __attribute__((vector_size(32)));
typedef int i16 __attribute__((vector_size(64)));
typedef float f2 __attribute__((vector_size(8)));
typedef unsigned u4 __attribute__((vector_size(16)));
typedef unsigned u8 __attribute__((vector_size(32)));
typedef unsigned u16 __attribute__((vector_size(64)));
typedef long long l2 __attribute__((vector_size(16)));
typedef long long l4 __attribute__((vector_size(32)));
typedef long long l8 __attribute__((vector_size(64)));

#define T_sse2
#define T_avx2 __attribute__((target("avx2,fma")))
#define T_avx512 __attribute__((target("avx2,fma,avx512f,avx512dq")))

/* log2: x's bits less OFF (0.703125) hold k above bit 23 and the interval
 * in the 4 bits below; z = x 2^-k. Interval j holds z in
 * [OFF + j 2^19, OFF + (j+1) 2^19) (as bits); invc = 1 / its centre. */
#define POW_OFF 0x3f340000
#define POW_OFFD 0x3fe6800000000000LL /* OFF as a double's bits */
static const double pow_invc[16] __attribute__((aligned(64))) = {
    0x1.642c8590b2164p+0, 0x1.5555555555555p+0, 0x1.47ae147ae147bp+0, 0x1.3b13b13b13b14p+0,
    0x1.2f684bda12f68p+0, 0x1.2492492492492p+0, 0x1.1a7b9611a7b96p+0, 0x1.1111111111111p+0,
    0x1.0842108421084p+0, 0x1.0000000000000p+0, 0x1.e1e1e1e1e1e1ep-1, 0x1.c71c71c71c71cp-1,
    0x1.af286bca1af28p-1, 0x1.999999999999ap-1, 0x1.8618618618618p-1, 0x1.745d1745d1746p-1,
};
/* -log2(invc) */
static const double pow_logc[16] __attribute__((aligned(64))) = {
    -0x1.e7df5fe538ab3p-2, -0x1.a8ff971810a5dp-2, -0x1.6cb0f6865c8ebp-2, -0x1.32bfee370ee6ap-2,
    -0x1.f5fd8a9063e32p-3, -0x1.8a8980abfbd30p-3, -0x1.22dadc2ab3496p-3, -0x1.7d60496cfbb4bp-4,
    -0x1.77394c9d958d0p-5, 0x0.0p+0,              0x1.663f6fac91318p-4,  0x1.5c01a39fbd68bp-3,
    0x1.fbc16b902680dp-3,  0x1.49a784bcd1b8ap-2,  0x1.91bba891f170ap-2,  0x1.d6753e032ea0ep-2,
};
/* log2(1 + r) = r (L1 + L2 r + L3 r^2 + L4 r^3 + L5 r^4), r in [-0.0295, 0.0313] */
#define L1 0x1.71547652785a6p+0
#define L2 -0x1.71547437b2cedp-1
#define L3 0x1.ec70cd09bc04fp-2
#define L4 -0x1.719c59d767832p-2
#define L5 0x1.26939b806bae6p-2
/* 2^(j/16)'s bits less j << 48: adding i << 48 for i = 16 n + j makes
 * 2^(i/16). */
static const long long pow_exp2t[16] __attribute__((aligned(64))) = {
    0x3ff0000000000000, 0x3fefb5586cf9890f, 0x3fef72b83c7d517b, 0x3fef387a6e756238,
    0x3fef06fe0a31b715, 0x3feedea64c123422, 0x3feebfdad5362a27, 0x3feeab07dd485429,
    0x3feea09e667f3bcd, 0x3feea11473eb0187, 0x3feeace5422aa0db, 0x3feec49182a3f090,
    0x3feee89f995ad3ad, 0x3fef199bdd85529c, 0x3fef5818dcfba487, 0x3fefa4afa2a490da,
};
/* 2^s - 1 = s (E1 + E2 s + E3 s^2), |s| <= 1/32 */
#define E1 0x1.62e42fefa39efp-1
#define E2 0x1.ebff917b281ecp-3
#define E3 0x1.c6b299bd68059p-5
/* t + SHIFT rounds t to a multiple of 1/16, whose 16ths are the low bits. */
#define SHIFT 0x1.8p48

#define SEL(vt, mt, m, a, b) ((vt)(((mt)(a) & (m)) | ((mt)(b) & ~(m))))

/* The double part on W lanes: z, k and y of x's lanes (their special
 * lanes are fixed after) to the double 2^(y (k + log2 z)). DT a double
 * vector, LT int64 of the same lanes; LOOK(table, LT index) a DT of the
 * table's entries (the index's low 4 bits), LOOKI the same for int64. */
#define POW_CORE(name, attr, DT, LT, LOOK, LOOKI)                                                                      \
    static inline attr DT name(DT z, DT k, DT y)                                                                       \
    {                                                                                                                  \
        LT j = ((LT)z - POW_OFFD) >> 48;                                                                               \
        DT invc = LOOK(pow_invc, j), logc = LOOK(pow_logc, j);                                                         \
        DT r = z * invc - 1.0;                                                                                         \
        DT r2 = r * r;                                                                                                 \
        DT p = (L1 + L2 * r) + r2 * ((L3 + L4 * r) + L5 * r2);                                                         \
        DT t = y * (p * r + (logc + k));                                                                               \
        t = SEL(DT, LT, t < -160.0, (DT){0} - 160.0, t);                                                               \
        t = SEL(DT, LT, t > 129.0, (DT){0} + 129.0, t);                                                                \
        DT kd = t + SHIFT;                                                                                             \
        LT ki = (LT)kd;                                                                                                \
        DT s = t - (kd - SHIFT);                                                                                       \
        DT sc = (DT)(LOOKI(pow_exp2t, ki) + (ki << 48));                                                               \
        DT q = s * (E1 + s * (E2 + s * E3));                                                                           \
        return sc + sc * q;                                                                                            \
    }

/* Lane by lane (SSE2 has no gather). */
#define LOOK_LANES2(t, j) ((d2){(t)[(j)[0] & 15], (t)[(j)[1] & 15]})
#define LOOKI_LANES2(t, j) ((l2){(t)[(j)[0] & 15], (t)[(j)[1] & 15]})
POW_CORE(pow_core_sse2, T_sse2, d2, l2, LOOK_LANES2, LOOKI_LANES2)

#define LOOK_GATHER4(t, j) ((d4)_mm256_i64gather_pd((t), (__m256i)((j) & 15), 8))
#define LOOKI_GATHER4(t, j) ((l4)_mm256_i64gather_epi64((const long long *)(t), (__m256i)((j) & 15), 8))
POW_CORE(pow_core_avx2, T_avx2, d4, l4, LOOK_GATHER4, LOOKI_GATHER4)

/* AVX-512: the tables are two registers each, looked up by vpermt2pd;
 * 2^t is 2^(i/16) (table) 2^s (polynomial) scaled by vscalefpd, which
 * takes the integer part of i/16 (t clamped to [-200, 200], where the
 * float result is 0 or inf already). */
static const double pow_exp2d[16] __attribute__((aligned(64))) = {
    0x1p+0,
    0x1.0b5586cf9890fp+0,
    0x1.172b83c7d517bp+0,
    0x1.2387a6e756238p+0,
    0x1.306fe0a31b715p+0,
    0x1.3dea64c123422p+0,
    0x1.4bfdad5362a27p+0,
    0x1.5ab07dd485429p+0,
    0x1.6a09e667f3bcdp+0,
    0x1.7a11473eb0187p+0,
    0x1.8ace5422aa0dbp+0,
    0x1.9c49182a3f090p+0,
    0x1.ae89f995ad3adp+0,
    0x1.c199bdd85529cp+0,
    0x1.d5818dcfba487p+0,
    0x1.ea4afa2a490dap+0,
};
static inline T_avx512 __m512d pow_core_avx512(__m512d z, __m512d k, __m512d y)
{
#define PERM(t, j) _mm512_permutex2var_pd(_mm512_load_pd(t), (j), _mm512_load_pd((t) + 8))
#define C(v) _mm512_set1_pd(v)
    __m512i j = _mm512_srli_epi64(_mm512_sub_epi64(_mm512_castpd_si512(z), _mm512_set1_epi64(POW_OFFD)), 48);
    __m512d invc = PERM(pow_invc, j), logc = PERM(pow_logc, j);
    __m512d r = _mm512_fmadd_pd(z, invc, C(-1.0));
    __m512d r2 = _mm512_mul_pd(r, r);
    __m512d p = _mm512_fmadd_pd(C(L2), r, C(L1));
    __m512d q = _mm512_fmadd_pd(C(L4), r, C(L3));
    q = _mm512_fmadd_pd(C(L5), r2, q);
    p = _mm512_fmadd_pd(q, r2, p);
    __m512d t = _mm512_mul_pd(y, _mm512_fmadd_pd(p, r, _mm512_add_pd(logc, k)));
    t = _mm512_max_pd(_mm512_min_pd(t, C(200.0)), C(-200.0)); /* SHIFT's rounding needs |t| < 2^47 */
    __m512d kd = _mm512_add_pd(t, C(SHIFT));
    __m512d n16 = _mm512_sub_pd(kd, C(SHIFT));
    __m512d s = _mm512_sub_pd(t, n16);
    __m512d sc = PERM(pow_exp2d, _mm512_castpd_si512(kd));
    __m512d e = _mm512_mul_pd(s, _mm512_fmadd_pd(_mm512_fmadd_pd(C(E3), s, C(E2)), s, C(E1)));
    return _mm512_scalef_pd(_mm512_fmadd_pd(sc, e, sc), n16);
#undef PERM
#undef C
}

/* x = 2^k z on the float lanes (UT: unsigned int32 vector, IT signed). */
#define SPLIT(UT, IT, FT, x, k, z)                                                                                     \
    UT tmp_ = (UT)(x) - POW_OFF;                                                                                       \
    IT k = (IT)tmp_ >> 23;                                                                                             \
    FT z = (FT)((UT)(x) - (tmp_ & 0xff800000u))

/* The lanes the core does not take, a bit each in m, through libm: x not
 * a positive normal number (zero, negative, subnormal, infinite, NaN) or y
 * infinite or NaN. Out of line: only vectors with such a lane call it. */
#define SPECIAL(UT, x, y) (((UT)(x) - 0x00800000u >= 0x7f000000u) | (((UT)(y) & 0x7fffffffu) >= 0x7f800000u))
#define FIX(FT, attr)                                                                                                  \
    static __attribute__((noinline)) attr FT pow_lanes_##FT(FT r, FT x, FT y, unsigned m)                              \
    {                                                                                                                  \
        for (unsigned i = 0; m; i++, m >>= 1)                                                                          \
            if (m & 1)                                                                                                 \
                r[i] = powf(x[i], y[i]);                                                                               \
        return r;                                                                                                      \
    }
FIX(f4, T_sse2)
FIX(f8, T_avx2)
FIX(f16, T_avx512)

#define LO2(v) __builtin_shufflevector(v, v, 0, 1)
#define HI2(v) __builtin_shufflevector(v, v, 2, 3)
#define CV(v, T) __builtin_convertvector(v, T)

EXPORT f4 __sx_vm_pow_f4_sse2(f4 x, f4 y);
f4 __sx_vm_pow_f4_sse2(f4 x, f4 y)
{
    SPLIT(u4, i4, f4, x, k, z);
    d2 a = pow_core_sse2(CV(LO2(z), d2), CV(LO2(k), d2), CV(LO2(y), d2));
    d2 b = pow_core_sse2(CV(HI2(z), d2), CV(HI2(k), d2), CV(HI2(y), d2));
    f4 r = (f4)_mm_movelh_ps(_mm_cvtpd_ps((__m128d)a), _mm_cvtpd_ps((__m128d)b));
    unsigned m = (unsigned)_mm_movemask_ps((__m128)SPECIAL(u4, x, y));
    return m ? pow_lanes_f4(r, x, y, m) : r;
}

EXPORT T_avx2 f4 __sx_vm_pow_f4_avx2(f4 x, f4 y);
f4 __sx_vm_pow_f4_avx2(f4 x, f4 y)
{
    SPLIT(u4, i4, f4, x, k, z);
    d4 a = pow_core_avx2((d4)_mm256_cvtps_pd((__m128)z), (d4)_mm256_cvtepi32_pd((__m128i)k),
                         (d4)_mm256_cvtps_pd((__m128)y));
    f4 r = (f4)_mm256_cvtpd_ps((__m256d)a);
    unsigned m = (unsigned)_mm_movemask_ps((__m128)SPECIAL(u4, x, y));
    return m ? pow_lanes_f4(r, x, y, m) : r;
}

EXPORT T_avx2 f8 __sx_vm_pow_f8_avx2(f8 x, f8 y);
f8 __sx_vm_pow_f8_avx2(f8 x, f8 y)
{
    SPLIT(u8, i8, f8, x, k, z);
#define H(v, i) _mm256_extractf128_ps((__m256)(v), i)
#define HI(v, i) _mm256_extracti128_si256((__m256i)(v), i)
    d4 a = pow_core_avx2((d4)_mm256_cvtps_pd(H(z, 0)), (d4)_mm256_cvtepi32_pd(HI(k, 0)), (d4)_mm256_cvtps_pd(H(y, 0)));
    d4 b = pow_core_avx2((d4)_mm256_cvtps_pd(H(z, 1)), (d4)_mm256_cvtepi32_pd(HI(k, 1)), (d4)_mm256_cvtps_pd(H(y, 1)));
#undef H
#undef HI
    f8 r = (f8)_mm256_set_m128(_mm256_cvtpd_ps((__m256d)b), _mm256_cvtpd_ps((__m256d)a));
    unsigned m = (unsigned)_mm256_movemask_ps((__m256)SPECIAL(u8, x, y));
    return m ? pow_lanes_f8(r, x, y, m) : r;
}

EXPORT T_avx512 f16 __sx_vm_pow_f16_avx512(f16 x, f16 y);
f16 __sx_vm_pow_f16_avx512(f16 x, f16 y)
{
    SPLIT(u16, i16, f16, x, k, z);
#define H(v, i) _mm512_extractf32x8_ps((__m512)(v), i)
#define HI(v, i) _mm512_extracti64x4_epi64((__m512i)(v), i)
    __m512d a = pow_core_avx512(_mm512_cvtps_pd(_mm512_castps512_ps256((__m512)z)),
                                _mm512_cvtepi32_pd(_mm512_castsi512_si256((__m512i)k)),
                                _mm512_cvtps_pd(_mm512_castps512_ps256((__m512)y)));
    __m512d b = pow_core_avx512(_mm512_cvtps_pd((__m256)_mm512_extracti64x4_epi64((__m512i)z, 1)),
                                _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64((__m512i)k, 1)),
                                _mm512_cvtps_pd((__m256)_mm512_extracti64x4_epi64((__m512i)y, 1)));
    f16 r = (f16)_mm512_insertf64x4(_mm512_castpd256_pd512((__m256d)_mm512_cvtpd_ps(a)),
                                    (__m256d)_mm512_cvtpd_ps(b), 1);
    __m512i sx = _mm512_sub_epi32((__m512i)x, _mm512_set1_epi32(0x00800000));
    __mmask16 m = _mm512_cmpge_epu32_mask(sx, _mm512_set1_epi32(0x7f000000)) |
                  _mm512_cmpge_epu32_mask(_mm512_and_si512((__m512i)y, _mm512_set1_epi32(0x7fffffff)),
                                          _mm512_set1_epi32(0x7f800000));
    return m ? pow_lanes_f16(r, x, y, m) : r;
}
