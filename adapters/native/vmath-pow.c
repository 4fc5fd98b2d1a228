/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vmath-pow.c: the builtins module's own vector powf (issue 28), the
 * __sx_vm_pow_fN_ISA entry points of vmath.c's ABI (sse2 f4, avx2 f4 and
 * f8, avx512 f16), powr, pown and rootn from the same code, and the
 * AVX-512 logf and log2f from its log2 reduction (at the end). glibc's
 * libmvec and SLEEF take about twice the time of the SVML powf Intel's
 * CPU runtime calls. The AVX-512 and 8-lane AVX2 ones compute in single
 * precision with float pairs where they must (below: pow16_core,
 * POW8_CORE; they need FMA); the 4-lane ones (SSE2, AVX2) in double:
 *
 *   x = 2^k z, z in [0.703, 1.406) (the bits of x less an offset give k
 *   and z); z in one of 16 intervals, c its centre (1 for the one holding
 *   1, so log2 stays relative near x = 1): log2 x = k - log2(invc) +
 *   log2(1 + r), r = z invc - 1, |r| <= 1/32, log2(1 + r) a degree-5
 *   polynomial (relative error 2^-31.8);
 *   t = y log2 x (double, |t| clamped to [-160, 129]: past those the float
 *   result is 0 or inf anyway, and 2^t stays a normal double);
 *   2^t = 2^(i/16) 2^s, i = round(16 t), |s| <= 1/32, 2^(i/16) from a
 *   16-entry table with i >> 4 added to its exponent, 2^s - 1 a degree-3
 *   polynomial (relative error 2^-28.7).
 *
 * The double result is within about 2^-28 of pow (relative) before its one
 * rounding to float: under 0.8 ulp measured (tests/native-builtins/
 * vmath-ulp.c). That rounding also makes the subnormal and overflowing
 * results right (2^t is a double there). Lanes where x is zero, negative,
 * subnormal, infinite or NaN, or y infinite or NaN, take libm's powf (C99
 * Annex F's special cases, which OpenCL C's pow follows), but for x < 0
 * with y an integer on 8 and 16 lanes (pow_special_f8, _f16: the core on
 * |x|); only vectors with such a lane pay for it.
 *
 * The double tables are looked up by AVX2's gathers or lane by lane
 * (SSE2). The algorithm is the usual table-driven one (as in ARM's
 * optimized-routines powf); the code and constants are this project's
 * (tools/vmath-pow-tables.py and vmath-pow-tables-f16.py: the tables,
 * and Chebyshev fits in exact rationals). */
#include <math.h>
#include <stdint.h>

#include <immintrin.h>

#include "vmath.h"

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
#define POW_CORE(name, attr, DT, LT, LOOK, LOOKI, CLAMP)                                                                      \
    static inline attr DT name(DT z, DT k, DT y)                                                                       \
    {                                                                                                                  \
        LT j = ((LT)z - POW_OFFD) >> 48;                                                                               \
        DT invc = LOOK(pow_invc, j), logc = LOOK(pow_logc, j);                                                         \
        DT r = z * invc - 1.0;                                                                                         \
        DT r2 = r * r;                                                                                                 \
        DT p = (L1 + L2 * r) + r2 * ((L3 + L4 * r) + L5 * r2);                                                         \
        DT t = y * (p * r + (logc + k));                                                                               \
        t = CLAMP(t);                                                                                                  \
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
#define CLAMP2(t) ((d2)_mm_max_pd(_mm_min_pd((__m128d)(t), _mm_set1_pd(129.0)), _mm_set1_pd(-160.0)))
POW_CORE(pow_core_sse2, T_sse2, d2, l2, LOOK_LANES2, LOOKI_LANES2, CLAMP2)

/* AVX2 on 4 lanes: by gathers (the float version below, on 8 lanes, takes
 * more per call than this does on 4). */
#define LOOKD_GATHER4(t, j) ((d4)_mm256_i64gather_pd((t), (__m256i)((j) & 15), 8))
#define LOOKI_GATHER4(t, j) ((l4)_mm256_i64gather_epi64((const long long *)(t), (__m256i)((j) & 15), 8))
#define CLAMP4(t) ((d4)_mm256_max_pd(_mm256_min_pd((__m256d)(t), _mm256_set1_pd(129.0)), _mm256_set1_pd(-160.0)))
POW_CORE(pow_core_avx2, T_avx2, d4, l4, LOOKD_GATHER4, LOOKI_GATHER4, CLAMP4)


/* AVX-512: 16 lanes in single precision, with the parts that need more
 * than 24 bits as float pairs (hi + lo):
 *   x = 2^k z, z in [0.711, 1.422) (bits less OFF16), in one of 32
 *   intervals; invc ~ 1/z there with 6 significant bits, so that
 *   r = z invc - 1 (one FMA) is exact, |r| < 0.0232 (invc = 1 for the
 *   interval holding 1: log2 stays relative there);
 *   log2 x = K + LCL + r/ln2 + r^2 P(r): K = k + LCH exact (LCH, the high
 *   part of -log2(invc), a multiple of 2^-15; LCL the rest), r/ln2 as
 *   hi + lo, P of degree 4 (its error under 2^-37); H + L = that sum
 *   (H = K + r/ln2 rounded, L the rest); where some |y| > 256 (acc), P0
 *   r^2 too as hi + lo, added into H exactly, so that L is about an ulp
 *   of H and y L small beside y H (the rounding of r^2 P, 2^-35, times a
 *   large y, would reach 7 ulp);
 *   y log2 x = Th + Tl (y H exactly as two floats by an FMA, plus y L);
 *   2^(Th + Tl) = 2^n 2^f, n = round(Th + Tl), f = Th - n + Tl, 2^f a
 *   degree-6 polynomial (relative error 2^-26.7), 2^n by vscalefps (which
 *   makes the subnormal, zero and infinite results; Th is clamped to
 *   [-200, 200] first, and Tl to [-16, 16]: y H may overflow).
 * The tables are two registers each, looked up by vpermt2ps. Within
 * 1.5 ulp (tests/native-builtins/vmath-ulp.c and 32M random lanes with
 * y log2 x in [-160, 140]), twice as fast here as the double version.
 * Tables and coefficients: tools/vmath-pow-tables-f16.py. */
#define OFF16 0x3f360000
/* 1/ln2 = L1H + L1L; log2(1 + r) = r/ln2 + r^2 (P0 + P1 r + ... + P4 r^4); 2^f = 1 + X1 f + ... + X6 f^6 */
#define L1H 0x1.715476p+0f
#define L1L 0x1.4ae0cp-26f
#define P0 -0x1.715476p-1f
#define P1 0x1.ec709cp-2f
#define P2 -0x1.715476p-2f
#define P3 0x1.279b1ep-2f
#define P4 -0x1.ecb03p-3f
#define X1 0x1.62e43p-1f
#define X2 0x1.ebfbep-3f
#define X3 0x1.c6af6cp-5f
#define X4 0x1.3b2a54p-7f
#define X5 0x1.5f089p-10f
#define X6 0x1.44138ap-13f
static const float pow16_invc[32] __attribute__((aligned(64))) = {
    0x1.68p+0f, 0x1.6p+0f, 0x1.58p+0f, 0x1.5p+0f,
    0x1.48p+0f, 0x1.4p+0f, 0x1.38p+0f, 0x1.38p+0f,
    0x1.3p+0f, 0x1.28p+0f, 0x1.28p+0f, 0x1.2p+0f,
    0x1.18p+0f, 0x1.18p+0f, 0x1.1p+0f, 0x1.1p+0f,
    0x1.08p+0f, 0x1.08p+0f, 0x1.0p+0f, 0x1.fp-1f,
    0x1.ep-1f, 0x1.d8p-1f, 0x1.c8p-1f, 0x1.b8p-1f,
    0x1.bp-1f, 0x1.a8p-1f, 0x1.98p-1f, 0x1.9p-1f,
    0x1.88p-1f, 0x1.8p-1f, 0x1.78p-1f, 0x1.7p-1f,
};
static const float pow16_lch[32] __attribute__((aligned(64))) = {
    -0x1.f7a8p-2f, -0x1.d678p-2f, -0x1.b48p-2f, -0x1.91b8p-2f,
    -0x1.6e2p-2f, -0x1.49a8p-2f, -0x1.244p-2f, -0x1.244p-2f,
    -0x1.fbcp-3f, -0x1.acfp-3f, -0x1.acfp-3f, -0x1.5cp-3f,
    -0x1.08cp-3f, -0x1.08cp-3f, -0x1.664p-4f, -0x1.664p-4f,
    -0x1.6bcp-5f, -0x1.6bcp-5f, 0x0p+0f, 0x1.774p-5f,
    0x1.7d6p-4f, 0x1.e0cp-4f, 0x1.564p-3f, 0x1.bfcp-3f,
    0x1.f6p-3f, 0x1.16ap-2f, 0x1.4f7p-2f, 0x1.6cbp-2f,
    0x1.8a88p-2f, 0x1.a9p-2f, 0x1.c818p-2f, 0x1.e7ep-2f,
};
static const float pow16_lcl[32] __attribute__((aligned(64))) = {
    -0x1.5a32c2p-20f, 0x1.60fe68p-17f, 0x1.408c78p-18f, -0x1.d448f8p-17f,
    -0x1.0e6ce8p-17f, 0x1.ed0cbap-20f, -0x1.eac382p-20f, -0x1.eac382p-20f,
    -0x1.6b9026p-19f, -0x1.78b6d4p-17f, -0x1.78b6d4p-17f, -0x1.a39fbep-19f,
    -0x1.62336ap-17f, -0x1.62336ap-17f, 0x1.20a6dep-21f, 0x1.20a6dep-21f,
    0x1.2c8a72p-17f, 0x1.2c8a72p-17f, 0x0p+0f, -0x1.acd89ap-19f,
    0x1.25b3eep-22f, -0x1.ca2e1ap-17f, -0x1.1eb002p-18f, 0x1.9eap-17f,
    -0x1.3ab7cep-18f, -0x1.fd64ep-17f, -0x1.134c4ep-20f, 0x1.ed0cbap-19f,
    0x1.80abfcp-18f, -0x1.a39fbep-20f, 0x1.dc2d46p-18f, -0x1.40358ep-19f,
};
static inline T_avx512 __m512 pow16_core(__m512 x, __m512 y, __m512 yl, int use_yl, int acc)
{
#define PERM(t, j) _mm512_permutex2var_ps(_mm512_load_ps(t), (j), _mm512_load_ps((t) + 16))
#define C(v) _mm512_set1_ps(v)
    __m512i ix = _mm512_castps_si512(x);
    __m512i tmp = _mm512_sub_epi32(ix, _mm512_set1_epi32(OFF16));
    __m512i j = _mm512_srli_epi32(tmp, 18);
    __m512 kf = _mm512_cvtepi32_ps(_mm512_srai_epi32(tmp, 23));
    __m512 z = _mm512_castsi512_ps(_mm512_sub_epi32(ix, _mm512_and_si512(tmp, _mm512_set1_epi32((int)0xff800000))));
    __m512 r = _mm512_fmadd_ps(z, PERM(pow16_invc, j), C(-1.0f)); /* exact */
    __m512 ah = _mm512_mul_ps(r, C(L1H));
    __m512 al = _mm512_fmadd_ps(r, C(L1L), _mm512_fmsub_ps(r, C(L1H), ah));
    __m512 r2 = _mm512_mul_ps(r, r);
    __m512 k = _mm512_add_ps(kf, PERM(pow16_lch, j)); /* exact */
    __m512 h1 = _mm512_add_ps(k, ah);
    __m512 e1 = _mm512_add_ps(_mm512_sub_ps(k, h1), ah); /* exact: |k| >= |ah| or k = 0 */
    __m512 h, l;
    if (acc) { /* P0 r^2 as v + vl, added into h exactly: L about an ulp of H */
        __m512 r2l = _mm512_fmsub_ps(r, r, r2);
        __m512 v = _mm512_mul_ps(r2, C(P0));
        __m512 vl = _mm512_fmadd_ps(r2l, C(P0), _mm512_fmsub_ps(r2, C(P0), v));
        __m512 p = _mm512_fmadd_ps(C(P4), r, C(P3));
        p = _mm512_fmadd_ps(p, r, C(P2));
        p = _mm512_fmadd_ps(p, r, C(P1));
        __m512 tail = _mm512_fmadd_ps(_mm512_mul_ps(r2, r), p, _mm512_add_ps(PERM(pow16_lcl, j), _mm512_add_ps(al, vl)));
        h = _mm512_add_ps(h1, v);
        __m512 e2 = _mm512_add_ps(_mm512_sub_ps(h1, h), v); /* exact: |h1| >= |v| */
        l = _mm512_add_ps(_mm512_add_ps(e1, e2), tail);
    } else { /* r^2 P in L: its rounding (2^-35) times |y| <= 256 stays under 0.1 ulp */
        __m512 p = _mm512_fmadd_ps(C(P4), r, C(P3));
        p = _mm512_fmadd_ps(p, r, C(P2));
        p = _mm512_fmadd_ps(p, r, C(P1));
        p = _mm512_fmadd_ps(p, r, C(P0));
        h = h1;
        l = _mm512_add_ps(e1, _mm512_fmadd_ps(r2, p, _mm512_add_ps(PERM(pow16_lcl, j), al)));
    }
    __m512 th = _mm512_mul_ps(y, h);
    __m512 tl = _mm512_fmadd_ps(y, l, _mm512_fmsub_ps(y, h, th));
    if (use_yl) /* y + yl: rootn's 1/n */
        tl = _mm512_fmadd_ps(yl, h, tl);
    /* |tl| <= |Th| / 80 or so (L is mostly r^2 P); inf where y H overflowed */
    th = _mm512_max_ps(_mm512_min_ps(th, C(200.0f)), C(-200.0f));
    tl = _mm512_max_ps(_mm512_min_ps(tl, C(16.0f)), C(-16.0f));
    __m512 n = _mm512_roundscale_ps(_mm512_add_ps(th, tl), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 f = _mm512_add_ps(_mm512_sub_ps(th, n), tl); /* th - n exact */
    __m512 e = _mm512_fmadd_ps(C(X6), f, C(X5));
    e = _mm512_fmadd_ps(e, f, C(X4));
    e = _mm512_fmadd_ps(e, f, C(X3));
    e = _mm512_fmadd_ps(e, f, C(X2));
    e = _mm512_fmadd_ps(e, f, C(X1));
    e = _mm512_fmadd_ps(e, f, C(1.0f));
    return _mm512_scalef_ps(e, n);
#undef PERM
#undef C
}

/* The lanes of big (|y| > 256) again through the accurate core; out of
 * line: the hot code stays as small as it was without it. */
static __attribute__((noinline)) T_avx512 f16 pow16_acc(f16 r, f16 x, f16 y, f16 yl, int use_yl, __mmask16 big)
{
    __m512 a = use_yl ? pow16_core((__m512)x, (__m512)y, (__m512)yl, 1, 1) : pow16_core((__m512)x, (__m512)y, (__m512)y, 0, 1);
    return (f16)_mm512_mask_mov_ps((__m512)r, big, a);
}

/* AVX2: pow16_core's algorithm on 8 lanes (P: _mm256; LOOK a table
 * lookup), 2^n as two exact powers of two (n clamped to [-216, 216],
 * halves in the normal range): one rounding, subnormal results included.
 * 1.4 times as fast as the double version, 1.3 times libmvec's. */
#define POW8_CORE(name, P, VF, FT, IT, VI, LOOK)                                                                       \
    static inline T_avx2 FT name(FT xv, FT yv, FT ylv, int use_yl)                                                     \
    {                                                                                                                  \
        VF y = (VF)yv;                                                                                                 \
        IT ix = (IT)xv;                                                                                                \
        IT tmp = ix - OFF16;                                                                                           \
        VI j = (VI)((tmp >> 18) & 31);                                                                                 \
        VF kf = P##_cvtepi32_ps((VI)(tmp >> 23));                                                                      \
        VF z = (VF)(ix - (tmp & (int)0xff800000));                                                                     \
        VF r = P##_fmadd_ps(z, LOOK(pow16_invc, j), P##_set1_ps(-1.0f));                                \
        VF ah = P##_mul_ps(r, P##_set1_ps(L1H));                                                                       \
        VF al = P##_fmadd_ps(r, P##_set1_ps(L1L), P##_fmsub_ps(r, P##_set1_ps(L1H), ah));                              \
        VF r2 = P##_mul_ps(r, r);                                                                                      \
        VF r2l = P##_fmsub_ps(r, r, r2);                                                                               \
        VF v = P##_mul_ps(r2, P##_set1_ps(P0));                                                                        \
        VF vl = P##_fmadd_ps(r2l, P##_set1_ps(P0), P##_fmsub_ps(r2, P##_set1_ps(P0), v));                              \
        VF p = P##_fmadd_ps(P##_set1_ps(P4), r, P##_set1_ps(P3));                                                      \
        p = P##_fmadd_ps(p, r, P##_set1_ps(P2));                                                                       \
        p = P##_fmadd_ps(p, r, P##_set1_ps(P1));                                                                       \
        VF tail = P##_fmadd_ps(P##_mul_ps(r2, r), p,                                                                   \
                               P##_add_ps(LOOK(pow16_lcl, j), P##_add_ps(al, vl)));                     \
        VF k = P##_add_ps(kf, LOOK(pow16_lch, j));                                                      \
        VF h1 = P##_add_ps(k, ah);                                                                                     \
        VF e1 = P##_add_ps(P##_sub_ps(k, h1), ah);                                                                     \
        VF h = P##_add_ps(h1, v);                                                                                      \
        VF e2 = P##_add_ps(P##_sub_ps(h1, h), v);                                                                      \
        VF l = P##_add_ps(P##_add_ps(e1, e2), tail);                                                                   \
        VF th = P##_mul_ps(y, h);                                                                                      \
        VF tl = P##_fmadd_ps(y, l, P##_fmsub_ps(y, h, th));                                                            \
        if (use_yl)                                                                                                    \
            tl = P##_fmadd_ps((VF)ylv, h, tl);                                                                         \
        th = P##_max_ps(P##_min_ps(th, P##_set1_ps(200.0f)), P##_set1_ps(-200.0f));                                    \
        tl = P##_max_ps(P##_min_ps(tl, P##_set1_ps(16.0f)), P##_set1_ps(-16.0f));                                      \
        VF n = P##_round_ps(P##_add_ps(th, tl), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);                         \
        VF f = P##_add_ps(P##_sub_ps(th, n), tl);                                                                      \
        VF e = P##_fmadd_ps(P##_set1_ps(X6), f, P##_set1_ps(X5));                                                      \
        e = P##_fmadd_ps(e, f, P##_set1_ps(X4));                                                                       \
        e = P##_fmadd_ps(e, f, P##_set1_ps(X3));                                                                       \
        e = P##_fmadd_ps(e, f, P##_set1_ps(X2));                                                                       \
        e = P##_fmadd_ps(e, f, P##_set1_ps(X1));                                                                       \
        e = P##_fmadd_ps(e, f, P##_set1_ps(1.0f));                                                                     \
        IT ni = (IT)P##_cvtps_epi32(n);                                                                                \
        IT n1 = ni >> 1;                                                                                               \
        return (FT)P##_mul_ps(P##_mul_ps(e, (VF)((n1 + 127) << 23)), (VF)((ni - n1 + 127) << 23));                     \
    }
/* 32 floats from four registers: vpermps in each, blends by j's bits 3, 4 */
static inline T_avx2 __m256 look32_8(const float *t, __m256i j)
{
    __m256 b3 = _mm256_castsi256_ps(_mm256_slli_epi32(j, 28)), b4 = _mm256_castsi256_ps(_mm256_slli_epi32(j, 27));
    __m256 lo = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_load_ps(t), j),
                                 _mm256_permutevar8x32_ps(_mm256_load_ps(t + 8), j), b3);
    __m256 hi = _mm256_blendv_ps(_mm256_permutevar8x32_ps(_mm256_load_ps(t + 16), j),
                                 _mm256_permutevar8x32_ps(_mm256_load_ps(t + 24), j), b3);
    return _mm256_blendv_ps(lo, hi, b4);
}
#define LOOK_PERM8(t, j) look32_8(t, j)
POW8_CORE(pow8_core, _mm256, __m256, f8, i8, __m256i, LOOK_PERM8)

/* x = 2^k z on the float lanes (UT: unsigned int32 vector, IT signed). */
#define SPLIT(UT, IT, FT, x, k, z)                                                                                     \
    UT tmp_ = (UT)(x) - POW_OFF;                                                                                       \
    IT k = (IT)tmp_ >> 23;                                                                                             \
    FT z = (FT)((UT)(x) - (tmp_ & 0xff800000u))

/* The lanes the core does not take, a bit each in m, through libm: x not
 * a positive normal number (zero, negative, subnormal, infinite, NaN) or y
 * infinite or NaN. Out of line: only vectors with such a lane call it. */
#define SPECIAL(UT, x, y) (((UT)(x) - 0x00800000u >= 0x7f000000u) | (((UT)(y) & 0x7fffffffu) >= 0x7f800000u))
float sxm_powr_f(float x, float y); /* builtins-math.c: powr's special cases (OpenCL C's table) */
#define FIX(FT, attr, fn, scalar)                                                                                      \
    static __attribute__((noinline)) attr FT fn##_lanes_##FT(FT r, FT x, FT y, unsigned m)                             \
    {                                                                                                                  \
        for (unsigned i = 0; m; i++, m >>= 1)                                                                          \
            if (m & 1)                                                                                                 \
                r[i] = scalar(x[i], y[i]);                                                                             \
        return r;                                                                                                      \
    }
FIX(f4, T_sse2, pow, powf)
FIX(f8, T_avx2, pow, powf)
FIX(f16, T_avx512, pow, powf)
FIX(f4, T_sse2, powr, sxm_powr_f)
FIX(f8, T_avx2, powr, sxm_powr_f)
FIX(f16, T_avx512, powr, sxm_powr_f)

/* the low and high two lanes of a float or int vector as doubles (SSE2) */
#define LOD(v) ((d2)_mm_cvtps_pd((__m128)(v)))
#define HID(v) ((d2)_mm_cvtps_pd(_mm_movehl_ps((__m128)(v), (__m128)(v))))
#define LOID(v) ((d2)_mm_cvtepi32_pd((__m128i)(v)))
#define HIID(v) ((d2)_mm_cvtepi32_pd((__m128i)_mm_shuffle_epi32((__m128i)(v), 0xee)))

/* pow's special lanes on 8 and 16 lanes: those of x < 0 (normal) and y an
 * integer take the core on |x|, negated where y is odd (no scalar call for
 * pow(-2, 3)); the others libm's powf. powr's: its scalar function. */
static __attribute__((noinline)) T_avx2 f8 pow_special_f8(f8 r, f8 x, f8 y, unsigned m)
{
    __m256 ax = (__m256)((u8)x & 0x7fffffffu), yv = (__m256)y;
    __m256 yr = _mm256_round_ps(yv, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256 half = _mm256_mul_ps(yv, _mm256_set1_ps(0.5f));
    i8 neg = (i8)x < 0;
    neg &= ((u8)ax - 0x00800000u < 0x7f000000u) & (((u8)y & 0x7fffffffu) < 0x7f800000u);
    neg &= (i8)_mm256_cmp_ps(yr, yv, _CMP_EQ_OQ);
    unsigned mn = (unsigned)_mm256_movemask_ps((__m256)neg) & m;
    if (mn) {
        __m256 odd = _mm256_cmp_ps(_mm256_round_ps(half, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), half,
                                   _CMP_NEQ_UQ);
        f8 p = pow8_core((f8)ax, y, y, 0);
        p = (f8)((u8)p ^ ((u8)odd & 0x80000000u));
        r = (f8)_mm256_blendv_ps((__m256)r, (__m256)p, (__m256)neg);
        m &= ~mn;
    }
    return m ? pow_lanes_f8(r, x, y, m) : r;
}
static __attribute__((noinline)) T_avx512 f16 pow_special_f16(f16 r, f16 x, f16 y, unsigned m)
{
    __m512 ax = _mm512_castsi512_ps(_mm512_and_si512((__m512i)x, _mm512_set1_epi32(0x7fffffff))), yv = (__m512)y;
    __m512 yr = _mm512_roundscale_ps(yv, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 half = _mm512_mul_ps(yv, _mm512_set1_ps(0.5f));
    __mmask16 neg = _mm512_cmplt_epi32_mask((__m512i)x, _mm512_setzero_si512()) &
                    _mm512_cmplt_epu32_mask(_mm512_sub_epi32(_mm512_castps_si512(ax), _mm512_set1_epi32(0x00800000)),
                                            _mm512_set1_epi32(0x7f000000)) &
                    _mm512_cmp_ps_mask(yr, yv, _CMP_EQ_OQ) &
                    _mm512_cmplt_epu32_mask(_mm512_and_si512((__m512i)y, _mm512_set1_epi32(0x7fffffff)),
                                            _mm512_set1_epi32(0x7f800000)) &
                    (__mmask16)m;
    if (neg) {
        __mmask16 odd = _mm512_cmp_ps_mask(
            _mm512_roundscale_ps(half, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), half, _CMP_NEQ_UQ);
        __m512 p = pow16_core(ax, yv, yv, 0, 1);
        p = _mm512_mask_xor_ps(p, odd, p, _mm512_set1_ps(-0.0f));
        r = (f16)_mm512_mask_mov_ps((__m512)r, neg, p);
        m &= ~(unsigned)neg;
    }
    return m ? pow_lanes_f16(r, x, y, m) : r;
}
#define powr_special_f8 powr_lanes_f8
#define powr_special_f16 powr_lanes_f16

/* The f16 entries' rare lanes: |y| > 256 through the accurate core, then
 * the special ones (x not a positive normal number, y infinite or NaN). */
#define SLOW16(fn)                                                                                                     \
    static __attribute__((noinline)) T_avx512 f16 fn##_slow_f16(f16 r, f16 x, f16 y)                                  \
    {                                                                                                                  \
        __m512i ay = _mm512_and_si512((__m512i)y, _mm512_set1_epi32(0x7fffffff));                                      \
        __m512i sx = _mm512_sub_epi32((__m512i)x, _mm512_set1_epi32(0x00800000));                                      \
        __mmask16 big = _mm512_cmpgt_epu32_mask(ay, _mm512_set1_epi32(0x43800000));                                    \
        if (big)                                                                                                       \
            r = pow16_acc(r, x, y, y, 0, big);                                                                         \
        __mmask16 m = _mm512_cmpge_epu32_mask(sx, _mm512_set1_epi32(0x7f000000)) |                                     \
                      _mm512_cmpge_epu32_mask(ay, _mm512_set1_epi32(0x7f800000));                                      \
        return m ? fn##_special_f16(r, x, y, m) : r;                                                                   \
    }
SLOW16(pow)
SLOW16(powr)

/* pow and powr: the same but for the special lanes (powr: OpenCL C's
 * powr, which is NaN for x < 0, 0^0, inf^0, 1^inf, where pow is not). */
#define POW_ENTRIES(fn)                                                                                                \
EXPORT f4 __sx_vm_##fn##_f4_sse2(f4 x, f4 y);                                                                          \
f4 __sx_vm_##fn##_f4_sse2(f4 x, f4 y)                                                                                  \
{                                                                                                                      \
    SPLIT(u4, i4, f4, x, k, z);                                                                                        \
    d2 a = pow_core_sse2(LOD(z), LOID(k), LOD(y));                                                                     \
    d2 b = pow_core_sse2(HID(z), HIID(k), HID(y));                                                                     \
    f4 r = (f4)_mm_movelh_ps(_mm_cvtpd_ps((__m128d)a), _mm_cvtpd_ps((__m128d)b));                                      \
    unsigned m = (unsigned)_mm_movemask_ps((__m128)SPECIAL(u4, x, y));                                                 \
    return m ? fn##_lanes_f4(r, x, y, m) : r;                                                                          \
}                                                                                                                      \
                                                                                                                       \
EXPORT T_avx2 f4 __sx_vm_##fn##_f4_avx2(f4 x, f4 y);                                                                   \
f4 __sx_vm_##fn##_f4_avx2(f4 x, f4 y)                                                                                  \
{                                                                                                                      \
    SPLIT(u4, i4, f4, x, k, z);                                                                                        \
    d4 a = pow_core_avx2((d4)_mm256_cvtps_pd((__m128)z), (d4)_mm256_cvtepi32_pd((__m128i)k),                           \
                         (d4)_mm256_cvtps_pd((__m128)y));                                                              \
    f4 r = (f4)_mm256_cvtpd_ps((__m256d)a);                                                                            \
    unsigned m = (unsigned)_mm_movemask_ps((__m128)SPECIAL(u4, x, y));                                                 \
    return m ? fn##_lanes_f4(r, x, y, m) : r;                                                                          \
}                                                                                                                      \
                                                                                                                       \
EXPORT T_avx2 f8 __sx_vm_##fn##_f8_avx2(f8 x, f8 y);                                                                   \
f8 __sx_vm_##fn##_f8_avx2(f8 x, f8 y)                                                                                  \
{                                                                                                                      \
    f8 r = pow8_core(x, y, y, 0);                                                                                      \
    unsigned m = (unsigned)_mm256_movemask_ps((__m256)SPECIAL(u8, x, y));                                              \
    return m ? fn##_special_f8(r, x, y, m) : r;                                                                        \
}                                                                                                                      \
                                                                                                                       \
EXPORT T_avx512 f16 __sx_vm_##fn##_f16_avx512(f16 x, f16 y);                                                           \
f16 __sx_vm_##fn##_f16_avx512(f16 x, f16 y)                                                                            \
{                                                                                                                      \
    f16 r = (f16)pow16_core((__m512)x, (__m512)y, (__m512)y, 0, 0);                                                   \
    __m512i ay = _mm512_and_si512((__m512i)y, _mm512_set1_epi32(0x7fffffff));                                          \
    __m512i sx = _mm512_sub_epi32((__m512i)x, _mm512_set1_epi32(0x00800000));                                          \
    /* |y| > 256 (inf and NaN among them) or x special: one test */                                                    \
    __mmask16 m = _mm512_cmpge_epu32_mask(sx, _mm512_set1_epi32(0x7f000000)) |                                         \
                  _mm512_cmpgt_epu32_mask(ay, _mm512_set1_epi32(0x43800000));                                          \
    return m ? fn##_slow_f16(r, x, y) : r;                                                                             \
}
POW_ENTRIES(pow)
POW_ENTRIES(powr)

/* pown(x, n) and rootn(x, n): pow's cores on |x| and y = n or 1/n (in
 * double, or as a float pair for the float cores), the sign of x where n
 * is odd. Lanes the cores do not take go to the module's scalar pown and
 * rootn (builtins-math.c): x zero, subnormal, infinite or NaN; pown's
 * |n| >= 2^24 (not a float); rootn's n = 0 and x < 0 with n even. */
float sxm_pown_f(float x, int n);
float sxm_rootn_f(float x, int n);
#define FIXI(FT, IT, attr, fn)                                                                                         \
    static __attribute__((noinline)) attr FT fn##_lanes_##FT(FT r, FT x, IT n, unsigned m)                             \
    {                                                                                                                  \
        for (unsigned i = 0; m; i++, m >>= 1)                                                                          \
            if (m & 1)                                                                                                 \
                r[i] = sxm_##fn##_f(x[i], n[i]);                                                                       \
        return r;                                                                                                      \
    }
FIXI(f4, i4, T_sse2, pown)
FIXI(f8, i8, T_avx2, pown)
FIXI(f16, i16, T_avx512, pown)
FIXI(f4, i4, T_sse2, rootn)
FIXI(f8, i8, T_avx2, rootn)
FIXI(f16, i16, T_avx512, rootn)

/* the lanes of each: UT unsigned lanes of x's bits, n the int lanes */
#define SPECIAL_pown(UT, IT, x, n) ((((UT)(x) & 0x7fffffffu) - 0x00800000u >= 0x7f000000u) | ((UT)((n) + 0x1000000) >= 0x2000000u))
#define SPECIAL_rootn(UT, IT, x, n)                                                                                    \
    ((((UT)(x) & 0x7fffffffu) - 0x00800000u >= 0x7f000000u) | ((n) == 0) | (((IT)(x) < 0) & (((n) & 1) == 0)))
/* y for the double cores */
#define YD_pown(nd) (nd)
#define YD_rootn(nd) (1.0 / (nd))
/* the sign of the result: x's where n is odd */
#define SIGN(UT, x, n) (((UT)(x) & 0x80000000u) & ((UT)(n) << 31))

#define POWN_ENTRIES(fn, use_yl)                                                                                       \
    EXPORT f4 __sx_vm_##fn##_f4_sse2(f4 x, i4 n);                                                                      \
    f4 __sx_vm_##fn##_f4_sse2(f4 x, i4 n)                                                                              \
    {                                                                                                                  \
        f4 ax = (f4)((u4)x & 0x7fffffffu);                                                                             \
        SPLIT(u4, i4, f4, ax, k, z);                                                                                   \
        d2 a = pow_core_sse2(LOD(z), LOID(k), YD_##fn(LOID(n)));                                                       \
        d2 b = pow_core_sse2(HID(z), HIID(k), YD_##fn(HIID(n)));                                                       \
        f4 r = (f4)_mm_movelh_ps(_mm_cvtpd_ps((__m128d)a), _mm_cvtpd_ps((__m128d)b));                                  \
        r = (f4)((u4)r | SIGN(u4, x, n));                                                                              \
        unsigned m = (unsigned)_mm_movemask_ps((__m128)SPECIAL_##fn(u4, i4, x, n));                                    \
        return m ? fn##_lanes_f4(r, x, n, m) : r;                                                                      \
    }                                                                                                                  \
    EXPORT T_avx2 f4 __sx_vm_##fn##_f4_avx2(f4 x, i4 n);                                                               \
    f4 __sx_vm_##fn##_f4_avx2(f4 x, i4 n)                                                                              \
    {                                                                                                                  \
        f4 ax = (f4)((u4)x & 0x7fffffffu);                                                                             \
        SPLIT(u4, i4, f4, ax, k, z);                                                                                   \
        d4 a = pow_core_avx2((d4)_mm256_cvtps_pd((__m128)z), (d4)_mm256_cvtepi32_pd((__m128i)k),                       \
                             YD_##fn((d4)_mm256_cvtepi32_pd((__m128i)n)));                                             \
        f4 r = (f4)_mm256_cvtpd_ps((__m256d)a);                                                                        \
        r = (f4)((u4)r | SIGN(u4, x, n));                                                                              \
        unsigned m = (unsigned)_mm_movemask_ps((__m128)SPECIAL_##fn(u4, i4, x, n));                                    \
        return m ? fn##_lanes_f4(r, x, n, m) : r;                                                                      \
    }                                                                                                                  \
    EXPORT T_avx2 f8 __sx_vm_##fn##_f8_avx2(f8 x, i8 n);                                                               \
    f8 __sx_vm_##fn##_f8_avx2(f8 x, i8 n)                                                                              \
    {                                                                                                                  \
        f8 ax = (f8)((u8)x & 0x7fffffffu);                                                                             \
        f8 nf = __builtin_convertvector(n, f8);                                                                        \
        f8 y = use_yl ? 1.0f / nf : nf;                                                                                \
        f8 yl = (f8)_mm256_mul_ps(_mm256_fnmadd_ps((__m256)y, (__m256)nf, _mm256_set1_ps(1.0f)), (__m256)y);           \
        f8 r = pow8_core(ax, y, yl, use_yl);                                                                           \
        r = (f8)((u8)r | SIGN(u8, x, n));                                                                              \
        unsigned m = (unsigned)_mm256_movemask_ps((__m256)SPECIAL_##fn(u8, i8, x, n));                                 \
        return m ? fn##_lanes_f8(r, x, n, m) : r;                                                                      \
    }                                                                                                                  \
    EXPORT T_avx512 f16 __sx_vm_##fn##_f16_avx512(f16 x, i16 n);                                                       \
    f16 __sx_vm_##fn##_f16_avx512(f16 x, i16 n)                                                                        \
    {                                                                                                                  \
        f16 ax = (f16)((u16)x & 0x7fffffffu);                                                                          \
        __m512 nf = _mm512_cvtepi32_ps((__m512i)n);                                                                    \
        __m512 y = use_yl ? _mm512_div_ps(_mm512_set1_ps(1.0f), nf) : nf;                                              \
        __m512 yl = _mm512_mul_ps(_mm512_fnmadd_ps(y, nf, _mm512_set1_ps(1.0f)), y);                                   \
        f16 r = (f16)pow16_core((__m512)ax, y, yl, use_yl, 0);                                                        \
        __mmask16 big = _mm512_cmpgt_epu32_mask(_mm512_and_si512((__m512i)y, _mm512_set1_epi32(0x7fffffff)),          \
                                                _mm512_set1_epi32(0x43800000)); /* |n| > 256 */                      \
        if (big)                                                                                                       \
            r = pow16_acc(r, ax, (f16)y, (f16)yl, use_yl, big);                                                        \
        r = (f16)((u16)r | SIGN(u16, x, n));                                                                           \
        i16 sm = SPECIAL_##fn(u16, i16, x, n);                                                                         \
        unsigned m = (unsigned)_mm512_cmpneq_epi32_mask((__m512i)sm, _mm512_setzero_si512());                          \
        return m ? fn##_lanes_f16(r, x, n, m) : r;                                                                     \
    }
POWN_ENTRIES(pown, 0)
POWN_ENTRIES(rootn, 1)

/* AVX-512 log and log2 from the same reduction (x = 2^k z, z invc - 1 = r
 * exact, 32 intervals): log2 x = K + LCL + r/ln2 + r^2 P(r) as above,
 * rounded once at the end (H + L); log x = K ln2 (as a float pair) +
 * LCL ln2 + r + r^2 Q(r), Q of degree 4 (Q = P ln2); the last sum
 * through an exact two-sum. Within 1 ulp (vmath-ulp); lanes of x zero, negative, subnormal, infinite or NaN take
 * libm's logf and log2f. SLEEF's took 2.5 times as long. */
#define Q0 -0x1p-1f
#define Q1 0x1.555554p-2f
#define Q2 -0x1.fffffep-3f
#define Q3 0x1.99cbfcp-3f
#define Q4 -0x1.558166p-3f
#define LN2H 0x1.62e43p-1f
#define LN2L -0x1.05c61p-29f
static __attribute__((noinline)) T_avx512 f16 log_lanes(f16 r, f16 x, unsigned m, int two)
{
    for (unsigned i = 0; m; i++, m >>= 1)
        if (m & 1)
            r[i] = two ? log2f(x[i]) : logf(x[i]);
    return r;
}
static inline T_avx512 __mmask16 log_special(__m512 x)
{
    __m512i sx = _mm512_sub_epi32(_mm512_castps_si512(x), _mm512_set1_epi32(0x00800000));
    return _mm512_cmpge_epu32_mask(sx, _mm512_set1_epi32(0x7f000000));
}
EXPORT T_avx512 f16 __sx_vm_log_f16_avx512(f16 xv);
f16 __sx_vm_log_f16_avx512(f16 xv)
{
#define PERM(t, j) _mm512_permutex2var_ps(_mm512_load_ps(t), (j), _mm512_load_ps((t) + 16))
#define C(v) _mm512_set1_ps(v)
    __m512 x = (__m512)xv;
    __m512i ix = _mm512_castps_si512(x);
    __m512i tmp = _mm512_sub_epi32(ix, _mm512_set1_epi32(OFF16));
    __m512i j = _mm512_srli_epi32(tmp, 18);
    __m512 k = _mm512_add_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(tmp, 23)), PERM(pow16_lch, j)); /* exact */
    __m512 z = _mm512_castsi512_ps(_mm512_sub_epi32(ix, _mm512_and_si512(tmp, _mm512_set1_epi32((int)0xff800000))));
    __m512 r = _mm512_fmadd_ps(z, PERM(pow16_invc, j), C(-1.0f)); /* exact */
    __m512 p1 = _mm512_mul_ps(k, C(LN2H));
    __m512 e = _mm512_fmsub_ps(k, C(LN2H), p1);                                          /* exact */
    __m512 lo = _mm512_fmadd_ps(_mm512_add_ps(k, PERM(pow16_lcl, j)), C(LN2L), e);
    lo = _mm512_fmadd_ps(PERM(pow16_lcl, j), C(LN2H), lo);
    __m512 q = _mm512_fmadd_ps(C(Q4), r, C(Q3));
    q = _mm512_fmadd_ps(q, r, C(Q2));
    q = _mm512_fmadd_ps(q, r, C(Q1));
    q = _mm512_fmadd_ps(q, r, C(Q0));
    __m512 t = _mm512_fmadd_ps(_mm512_mul_ps(r, r), q, lo);
    __m512 h = _mm512_add_ps(p1, r);
    __m512 e1 = _mm512_add_ps(_mm512_sub_ps(p1, h), r); /* exact: |p1| >= |r| or p1 = 0 */
    f16 res = (f16)_mm512_add_ps(h, _mm512_add_ps(e1, t));
    __mmask16 m = log_special(x);
    return m ? log_lanes(res, xv, m, 0) : res;
}
EXPORT T_avx512 f16 __sx_vm_log2_f16_avx512(f16 xv);
f16 __sx_vm_log2_f16_avx512(f16 xv)
{
    __m512 x = (__m512)xv;
    __m512i ix = _mm512_castps_si512(x);
    __m512i tmp = _mm512_sub_epi32(ix, _mm512_set1_epi32(OFF16));
    __m512i j = _mm512_srli_epi32(tmp, 18);
    __m512 k = _mm512_add_ps(_mm512_cvtepi32_ps(_mm512_srai_epi32(tmp, 23)), PERM(pow16_lch, j)); /* exact */
    __m512 z = _mm512_castsi512_ps(_mm512_sub_epi32(ix, _mm512_and_si512(tmp, _mm512_set1_epi32((int)0xff800000))));
    __m512 r = _mm512_fmadd_ps(z, PERM(pow16_invc, j), C(-1.0f)); /* exact */
    __m512 ah = _mm512_mul_ps(r, C(L1H));
    __m512 al = _mm512_fmadd_ps(r, C(L1L), _mm512_fmsub_ps(r, C(L1H), ah));
    __m512 p = _mm512_fmadd_ps(C(P4), r, C(P3));
    p = _mm512_fmadd_ps(p, r, C(P2));
    p = _mm512_fmadd_ps(p, r, C(P1));
    p = _mm512_fmadd_ps(p, r, C(P0));
    __m512 t = _mm512_fmadd_ps(_mm512_mul_ps(r, r), p, _mm512_add_ps(PERM(pow16_lcl, j), al));
    __m512 h = _mm512_add_ps(k, ah);
    __m512 e1 = _mm512_add_ps(_mm512_sub_ps(k, h), ah); /* exact: |k| >= |ah| or k = 0 */
    f16 res = (f16)_mm512_add_ps(h, _mm512_add_ps(e1, t));
    __mmask16 m = log_special(x);
    return m ? log_lanes(res, xv, m, 1) : res;
#undef PERM
#undef C
}
