/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vmath-f64.c: float math on vectors for compiled work-group images
 * (issue 28) computed in double precision, where that is both exact or
 * nearly and faster than a float algorithm that must make up the bits:
 * fmod (dpnp's remainder called fmodf lane by lane), hypot (SLEEF's
 * 0.5-ulp hypotf took longer than Intel's runtime) and asinh (SLEEF's
 * asinhf likewise). tests/native-builtins/vmath-ulp.c checks them: fmod
 * bit for bit libm's fmodf, hypot and asinh over every binade.
 *
 * fmod: |x| = q |y| + r, 0 <= r < |y|. In double, with q below 2^29: q |y| is
 * exact (29 + 24 bits), and so is |x| - q |y| (a multiple of |y|'s ulp,
 * under |y|). q is trunc(|x| / |y|) of the rounded quotient, and that is
 * the true one: the quotient is at least 2^-24 from the next whole number
 * (r and |y| - r are multiples of |y|'s ulp, 2^-23 of |y|'s binade) and
 * the division's error under 2^29 * 2^-53 = 2^-24. r is exact in float
 * (fmod's result always is) and takes x's sign. Lanes with a larger
 * quotient, a zero or infinite y, an infinite x or a NaN take libm's
 * fmodf, only in the vectors that have such a lane. */
#include <immintrin.h>
#include <math.h>

#include "vmath.h"

/* OP on each register-sized half of v (macros: a function returning such
 * a vector would change the ABI on the baseline), the halves' results
 * (Ti) joined into an rt: the double lanes' square roots, and their
 * truncation to ints the way the instruction does it (a NaN or
 * out-of-range lane gives INT_MIN, where a C conversion is undefined;
 * only lanes whose quotient is in range are used). */
#define HALVES(v, rt, T, Ti, OP)                                                                                       \
    ({                                                                                                                 \
        __typeof__(v) v_ = (v);                                                                                        \
        rt r_;                                                                                                         \
        T lo_, hi_;                                                                                                    \
        __builtin_memcpy(&lo_, &v_, sizeof lo_);                                                                       \
        __builtin_memcpy(&hi_, (const char *)&v_ + sizeof lo_, sizeof hi_);                                            \
        Ti a_ = OP(lo_), b_ = OP(hi_);                                                                                 \
        __builtin_memcpy(&r_, &a_, sizeof r_ / 2); /* _mm_cvttpd_epi32: 2 ints in the low half of a_ */             \
        __builtin_memcpy((char *)&r_ + sizeof r_ / 2, &b_, sizeof r_ / 2);                                             \
        r_;                                                                                                            \
    })
/* one register: the same with a single half */
#define WHOLE(v, rt, T, Ti, OP)                                                                                        \
    ({                                                                                                                 \
        __typeof__(v) v_ = (v);                                                                                        \
        rt r_;                                                                                                         \
        T a_;                                                                                                          \
        __builtin_memcpy(&a_, &v_, sizeof a_);                                                                         \
        Ti b_ = OP(a_);                                                                                                \
        __builtin_memcpy(&r_, &b_, sizeof r_);                                                                         \
        r_;                                                                                                            \
    })
#define sqrt_d4_sse2(v) HALVES(v, d4, __m128d, __m128d, _mm_sqrt_pd)
#define sqrt_d4_avx2(v) WHOLE(v, d4, __m256d, __m256d, _mm256_sqrt_pd)
#define sqrt_d8_avx2(v) HALVES(v, d8, __m256d, __m256d, _mm256_sqrt_pd)
#define sqrt_d16_avx512(v) HALVES(v, d16, __m512d, __m512d, _mm512_sqrt_pd)
#define trunc_d4_sse2(v) HALVES(v, i4, __m128d, __m128i, _mm_cvttpd_epi32)
#define trunc_d4_avx2(v) WHOLE(v, i4, __m256d, __m128i, _mm256_cvttpd_epi32)
#define trunc_d8_avx2(v) HALVES(v, i8, __m256d, __m128i, _mm256_cvttpd_epi32)
#define trunc_d16_avx512(v) HALVES(v, i16, __m512d, __m256i, _mm512_cvttpd_epi32)

/* Every mask in float lanes: GCC lowers compares and selects of double
 * vectors wider than a register lane by lane. */
#define FMOD(N, isa, vt, mt, dt, TR)                                                                               \
    EXPORT T_##isa vt __sx_vm_fmod_f##N##_##isa(vt x, vt y);                                                           \
    T_##isa vt __sx_vm_fmod_f##N##_##isa(vt x, vt y)                                                                   \
    {                                                                                                                  \
        vt ax = (vt)((mt)x & 0x7fffffff), ay = (vt)((mt)y & 0x7fffffff);                                               \
        dt dx = __builtin_convertvector(ax, dt), dy = __builtin_convertvector(ay, dt);                                 \
        dt q = dx / dy;                                                                                                \
        /* the quotient under 2^28 (its float rounding keeps it under 2^29); false for NaN, y = 0, x = inf */          \
        mt fast = (__builtin_convertvector(q, vt) < 0x1p28f) & (ay != (vt){} + INFINITY);                              \
        dt r = dx - __builtin_convertvector(TR(q), dt) * dy;                                                           \
        vt res = (vt)((mt)__builtin_convertvector(r, vt) | ((mt)x & (int)0x80000000));                               \
        int any = 0;                                                                                                   \
        for (int i = 0; i < N; i++)                                                                                    \
            any |= ~fast[i];                                                                                           \
        if (any)                                                                                                       \
            for (int i = 0; i < N; i++)                                                                                \
                if (!fast[i])                                                                                          \
                    res[i] = fmodf(x[i], y[i]);                                                                        \
        return res;                                                                                                    \
    }

FMOD(4, sse2, f4, i4, d4, trunc_d4_sse2)
FMOD(4, avx2, f4, i4, d4, trunc_d4_avx2)
FMOD(8, avx2, f8, i8, d8, trunc_d8_avx2)
FMOD(16, avx512, f16, i16, d16, trunc_d16_avx512)

/* hypot: sqrt(x^2 + y^2) in double (the squares exact, one rounding in
 * the sum and one in the root: the float result within 0.5 ulp and a
 * hair, the bound is 4); C99's hypot(+-inf, NaN) = +inf. */
#define HYPOT(N, isa, vt, mt, dt, SQ)                                                                              \
    EXPORT T_##isa vt __sx_vm_hypot_f##N##_##isa(vt x, vt y);                                                          \
    T_##isa vt __sx_vm_hypot_f##N##_##isa(vt x, vt y)                                                                  \
    {                                                                                                                  \
        dt dx = __builtin_convertvector(x, dt), dy = __builtin_convertvector(y, dt);                                   \
        vt r = __builtin_convertvector(SQ(dx * dx + dy * dy), vt);                                                     \
        vt ax = (vt)((mt)x & 0x7fffffff), ay = (vt)((mt)y & 0x7fffffff);                                               \
        mt inf = (ax == (vt){} + INFINITY) | (ay == (vt){} + INFINITY);                                                \
        return (vt)(((mt)r & ~inf) | ((mt)((vt){} + INFINITY) & inf));                                                 \
    }
HYPOT(4, sse2, f4, i4, d4, sqrt_d4_sse2)
HYPOT(4, avx2, f4, i4, d4, sqrt_d4_avx2)
HYPOT(8, avx2, f8, i8, d8, sqrt_d8_avx2)
HYPOT(16, avx512, f16, i16, d16, sqrt_d16_avx512)

#if HAVE_SLEEF
/* asinh |x| = log1p(t), t = |x| + x^2 / (1 + sqrt(1 + x^2)) = |x| +
 * sqrt(1 + x^2) - 1, t in double (below |x| = 2^-10 as |x| + x^2 / 2,
 * where the root's rounding would show) rounded once to float: log1p's
 * condition number is under 1 there, so that rounding costs at most half
 * an ulp, SLEEF's log1pf 1 ulp more (the bound is 4). From |x| = 2^63 on,
 * log |x| + log 2 (vmath.c's mending of SLEEF's asinh: t would overflow). */
#define ASINH(N, isa, vt, mt, dt, SQ, tag)                                                                         \
    vt Sleef_log1pf##N##_u10##tag(vt) T_##isa;                                                                         \
    vt Sleef_logf##N##_u10##tag(vt) T_##isa;                                                                           \
    EXPORT T_##isa vt __sx_vm_asinh_f##N##_##isa(vt x);                                                                \
    T_##isa vt __sx_vm_asinh_f##N##_##isa(vt x)                                                                        \
    {                                                                                                                  \
        vt ax = (vt)((mt)x & 0x7fffffff);                                                                              \
        dt d = __builtin_convertvector(ax, dt), sq = d * d;                                                            \
        vt big = __builtin_convertvector(d + (SQ(sq + 1) - 1), vt), small = __builtin_convertvector(d + sq * 0.5, vt); \
        mt tiny = ax < 0x1p-10f;                                                                                       \
        vt r = Sleef_log1pf##N##_u10##tag((vt)(((mt)big & ~tiny) | ((mt)small & tiny)));                             \
        mt huge = ax > 0x1p63f;                                                                                        \
        int any = 0;                                                                                                   \
        for (int i = 0; i < N; i++)                                                                                    \
            any |= huge[i];                                                                                            \
        if (any)                                                                                                       \
            r = (vt)(((mt)r & ~huge) | ((mt)(Sleef_logf##N##_u10##tag(ax) + 0.693147180559945309f) & huge));         \
        return (vt)((mt)r | ((mt)x & (int)0x80000000));                                                                \
    }
ASINH(4, sse2, f4, i4, d4, sqrt_d4_sse2, sse2)
ASINH(4, avx2, f4, i4, d4, sqrt_d4_avx2, avx2128)
ASINH(8, avx2, f8, i8, d8, sqrt_d8_avx2, avx2)
ASINH(16, avx512, f16, i16, d16, sqrt_d16_avx512, avx512f)
#endif
