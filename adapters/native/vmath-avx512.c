/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vmath-avx512.c: the builtins module's own AVX-512 float exp, sin and cos
 * (__sx_vm_exp_f16_avx512, __sx_vm_sin_f16_avx512, __sx_vm_cos_f16_avx512;
 * issue 28), in single precision on 16 lanes, faster than SLEEF's expf
 * and libmvec's sinf and cosf that the table had (bench/native-vs-pocl's
 * expsin), within 1.2 ulp (measured: tests/native-builtins/vmath-ulp.c;
 * the OpenCL C bounds are 3 and 4).
 *
 *   exp x = 2^n e^r, n = round(x / ln 2), r = x - n ln 2 (ln 2 in two
 *   parts, the first product exact by the FMA), |r| <= ln 2 / 2,
 *   e^r = 1 + r + r^2 Q(r), Q of degree 4 (relative error 2^-26.5);
 *   vscalefps makes 2^n, and the subnormal, zero and infinite results.
 *   x is clamped to [-104, 89] first (NaN stays NaN): past those the
 *   result is 0 or inf anyway.
 *
 *   sin x = (-1)^n sin r, n = round(x / pi), r = x - n pi (pi in three
 *   parts: r is exact to the float's rounding for |x| < 2^15),
 *   sin r = r + r^3 P(r^2), P of degree 4 (relative error 2^-25.7);
 *   cos x = (-1)^(n+1) sin r with r = x - (n + 1/2) pi, n = round(x / pi
 *   - 1/2). Lanes with |x| >= 2^15, infinite or NaN take libm's sinf and
 *   cosf (an out-of-line call, only for vectors that have one); sin keeps
 *   the sign of a zero.
 *
 * Coefficients: tools/vmath-pow-tables.py (Chebyshev fits in exact
 * rationals, rounded to float). */
#include <math.h>

#include <immintrin.h>

#include "vmath.h"

#define C(v) _mm512_set1_ps(v)
#define ROUND(v) _mm512_roundscale_ps((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* e^r = 1 + r + r^2 (Q0 + Q1 r + Q2 r^2 + Q3 r^3 + Q4 r^4) */
#define Q0 0x1p-1f
#define Q1 0x1.5554dcp-3f
#define Q2 0x1.555518p-5f
#define Q3 0x1.120cd4p-7f
#define Q4 0x1.6d1270p-10f
#define LN2HI 0x1.62e430p-1f
#define LN2LO -0x1.05c610p-29f
#define L2E 0x1.715476p+0f

EXPORT T_avx512 f16 __sx_vm_exp_f16_avx512(f16 x);
f16 __sx_vm_exp_f16_avx512(f16 xv)
{
    __m512 x = _mm512_max_ps(C(-104.0f), _mm512_min_ps(C(89.0f), (__m512)xv)); /* vminps: NaN from operand 2 */
    __m512 n = ROUND(_mm512_mul_ps(x, C(L2E)));
    __m512 r = _mm512_fnmadd_ps(n, C(LN2HI), x);
    r = _mm512_fnmadd_ps(n, C(LN2LO), r);
    __m512 q = _mm512_fmadd_ps(C(Q4), r, C(Q3));
    q = _mm512_fmadd_ps(q, r, C(Q2));
    q = _mm512_fmadd_ps(q, r, C(Q1));
    q = _mm512_fmadd_ps(q, r, C(Q0));
    __m512 p = _mm512_add_ps(_mm512_fmadd_ps(_mm512_mul_ps(r, r), q, r), C(1.0f));
    return (f16)_mm512_scalef_ps(p, n);
}

/* sin r = r + r^3 (S0 + S1 r^2 + S2 r^4 + S3 r^6 + S4 r^8), |r| <= pi/2 */
#define S0 -0x1.555556p-3f
#define S1 0x1.111110p-7f
#define S2 -0x1.a01906p-13f
#define S3 0x1.719692p-19f
#define S4 -0x1.9db1ccp-26f
#define PI1 0x1.921fb6p+1f
#define PI2 -0x1.777a5cp-24f
#define PI3 -0x1.ee59dap-49f
#define INVPI 0x1.45f306p-2f

/* sin r, r = x - h pi; its sign flipped where odd (bit 31). */
static inline T_avx512 __m512 sin_reduced(__m512 x, __m512 h, __m512i odd)
{
    __m512 r = _mm512_fnmadd_ps(h, C(PI1), x);
    r = _mm512_fnmadd_ps(h, C(PI2), r);
    r = _mm512_fnmadd_ps(h, C(PI3), r);
    __m512 r2 = _mm512_mul_ps(r, r);
    __m512 q = _mm512_fmadd_ps(C(S4), r2, C(S3));
    q = _mm512_fmadd_ps(q, r2, C(S2));
    q = _mm512_fmadd_ps(q, r2, C(S1));
    q = _mm512_fmadd_ps(q, r2, C(S0));
    __m512 s = _mm512_fmadd_ps(_mm512_mul_ps(r, r2), q, r);
    return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(s), odd));
}

/* Lanes of |x| >= 2^15, inf or NaN (their bits past 0x47000000). */
static inline T_avx512 __mmask16 trig_big(__m512 x)
{
    __m512i a = _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(0x7fffffff));
    return _mm512_cmpge_epu32_mask(a, _mm512_set1_epi32(0x47000000));
}

static __attribute__((noinline)) T_avx512 f16 trig_lanes(f16 r, f16 x, unsigned m, int cosine)
{
    for (unsigned i = 0; m; i++, m >>= 1)
        if (m & 1)
            r[i] = cosine ? cosf(x[i]) : sinf(x[i]);
    return r;
}

EXPORT T_avx512 f16 __sx_vm_sin_f16_avx512(f16 xv);
f16 __sx_vm_sin_f16_avx512(f16 xv)
{
    __m512 x = (__m512)xv;
    __m512 n = ROUND(_mm512_mul_ps(x, C(INVPI)));
    __m512i odd = _mm512_slli_epi32(_mm512_cvtps_epi32(n), 31);
    __m512 s = sin_reduced(x, n, odd);
    s = _mm512_mask_mov_ps(s, _mm512_cmp_ps_mask(x, C(0.0f), _CMP_EQ_OQ), x); /* sin(-0) = -0 */
    __mmask16 m = trig_big(x);
    return m ? trig_lanes((f16)s, xv, m, 0) : (f16)s;
}

EXPORT T_avx512 f16 __sx_vm_cos_f16_avx512(f16 xv);
f16 __sx_vm_cos_f16_avx512(f16 xv)
{
    __m512 x = (__m512)xv;
    __m512 n = ROUND(_mm512_fmsub_ps(x, C(INVPI), C(0.5f)));
    __m512i even = _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(1)), 31);
    __m512 s = sin_reduced(x, _mm512_add_ps(n, C(0.5f)), even);
    __mmask16 m = trig_big(x);
    return m ? trig_lanes((f16)s, xv, m, 1) : (f16)s;
}
