/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vmath.c: vector variants of the OpenCL C math builtins for compiled
 * work-group images (issue 28). sx-wgc names them in each table's calls
 * (proptool/wgc/vmath.cpp: LLVM's vector-function ABI attribute and the
 * rewrite of float4/double4 calls), so the loop vectoriser turns a call of
 * exp in a work-item loop into one call per vector of work-items.
 *
 * __sx_vm_FN_TN_ISA(x[, y]): T is f (float) or d (double), N the lanes, ISA
 * the instruction set the caller's table has and the function may use:
 *     sse2    baseline x86-64          f4  d2
 *     avx2    x86-64-v3 (AVX2, FMA)     f4  d2  f8  d4   (128-bit ones VEX)
 *     avx512  x86-64-v4 (AVX-512F)      f16 d8
 * Vectors go in XMM/YMM/ZMM registers as the ISA passes them. This is the
 * module's ABI with sx-wgc; doc/abi.md lists it.
 *
 * With SLEEF (Debian libsleef-dev) each is SLEEF's 1.0-ulp function for
 * that ISA, well inside the OpenCL C bounds (exp 3 ulp, sin 4, pow 16, ...),
 * except float sin and cos: glibc's libmvec where it is (below), float pow
 * and the AVX-512 float exp, log, log2, sin and cos: this module's own
 * (vmath-pow.c, vmath-avx512.c, with or without SLEEF).
 * Without SLEEF each lane calls libm (correct, not faster). */
#include <math.h>

#include "vmath.h"

/* The functions, their libm names and how many arguments they take; the
 * functions of SX_VMATH_RANGED(_D) need SLEEF's result mended at the ends of
 * their range (below); SX_VMATH_MVEC's float ones come from glibc's
 * libmvec where it is there (Intel's SVML code, within 4 ulp as glibc
 * documents, the OpenCL bound of these; doubles stay with SLEEF's 1 ulp).
 * libmvec's powf was SX_VMATH_MVEC's until vmath-pow.c: 1.6 times the time
 * of that one's. */
#define SX_VMATH_FUNCS(X)                                                                                              \
    X(exp2, 1) X(exp10, 1) X(expm1, 1) X(log10, 1) X(tan, 1) X(tanh, 1) X(asin, 1)      \
    X(acos, 1) X(atan, 1) X(cbrt, 1) X(atan2, 2) X(atanh, 1)
#define SX_VMATH_RANGED(X) X(log1p, 1) X(sinh, 1) X(cosh, 1) X(acosh, 1)
/* asinh: SLEEF's mended the same way for double; float's is vmath-f64.c's
 * (in double, through SLEEF's log1pf: about 0.6 of SLEEF's asinhf's time). */
#define SX_VMATH_RANGED_D(X) X(asinh, 1)
#define SX_VMATH_MVEC(X) X(sin, 1) X(cos, 1)
/* hypot: SLEEF's 0.5-ulp one (it has no 1-ulp one) for double; float's is
 * vmath-f64.c's (in double: faster, as close). */
#define SX_VMATH_U05(X) X(hypot, 2)
/* pow: float's in vmath-pow.c (this module's own), double's SLEEF's. */
#define SX_VMATH_DPOW(X) X(pow, 2)
/* exp, log, log2, sin and cos: the AVX-512 float ones are this module's
 * own (vmath-avx512.c, vmath-pow.c); the others SLEEF's (exp, log, log2)
 * or libmvec's (sin, cos). */
#define SX_VMATH_OWN512(X) X(exp, 1) X(log, 1) X(log2, 1)

/* Every variant: X(fn, arity, T, N, isa, vector type, mask type, SLEEF's
 * suffix, libmvec's ISA letter). */
#define SX_VMATH_FLOAT(X, fn, n)                                                                                       \
    X(fn, n, f, 4, sse2, f4, i4, sse2, b) X(fn, n, f, 4, avx2, f4, i4, avx2128, b) X(fn, n, f, 8, avx2, f8, i8, avx2, d) \
    X(fn, n, f, 16, avx512, f16, i16, avx512f, e)
#define SX_VMATH_DOUBLE(X, fn, n)                                                                                      \
    X(fn, n, d, 2, sse2, d2, l2, sse2, b) X(fn, n, d, 2, avx2, d2, l2, avx2128, b) X(fn, n, d, 4, avx2, d4, l4, avx2, d) \
    X(fn, n, d, 8, avx512, d8, l8, avx512f, e)
#define SX_VMATH_VARIANTS(X, fn, n) SX_VMATH_FLOAT(X, fn, n) SX_VMATH_DOUBLE(X, fn, n)
/* Those of a function whose AVX-512 float variant is vmath-avx512.c's. */
#define SX_VMATH_FLOAT256(X, fn, n)                                                                                    \
    X(fn, n, f, 4, sse2, f4, i4, sse2, b) X(fn, n, f, 4, avx2, f4, i4, avx2128, b) X(fn, n, f, 8, avx2, f8, i8, avx2, d)
#define SX_VMATH_VARIANTS256(X, fn, n) SX_VMATH_FLOAT256(X, fn, n) SX_VMATH_DOUBLE(X, fn, n)

#define SEL(vt, mt, m, a, b) ((vt)(((mt)(a) & (m)) | ((mt)(b) & ~(m))))

#if HAVE_SLEEF
/* SLEEF's names: Sleef_expf4_u10sse2, Sleef_expd4_u10avx2, ... Declared
 * here with GCC vector types (sleef.h declares only what the compiler's
 * flags enable, and this file is built for baseline x86-64). */
#define SL(fn, n, T, N, isa, vt, mt, tag, L) SL##n(fn, T, N, isa, vt, tag)
#define SL1(fn, T, N, isa, vt, tag)                                                                                    \
    vt Sleef_##fn##T##N##_u10##tag(vt) T_##isa;                                                                        \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x);                                                             \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x) { return Sleef_##fn##T##N##_u10##tag(x); }
#define SL2(fn, T, N, isa, vt, tag)                                                                                    \
    vt Sleef_##fn##T##N##_u10##tag(vt, vt) T_##isa;                                                                    \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y);                                                       \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y) { return Sleef_##fn##T##N##_u10##tag(x, y); }
#define ALL(fn, n) SX_VMATH_VARIANTS(SL, fn, n)
#define ALLD(fn, n) SX_VMATH_DOUBLE(SL, fn, n)
#define ALL256(fn, n) SX_VMATH_VARIANTS256(SL, fn, n)
SX_VMATH_FUNCS(ALL)
SX_VMATH_DPOW(ALLD)
SX_VMATH_OWN512(ALL256)
#define SL05(fn, n, T, N, isa, vt, mt, tag, L)                                                                          \
    vt Sleef_##fn##T##N##_u05##tag(vt, vt) T_##isa;                                                                    \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y);                                                       \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y) { return Sleef_##fn##T##N##_u05##tag(x, y); }
#define ALL05(fn, n) SX_VMATH_DOUBLE(SL05, fn, n)
SX_VMATH_U05(ALL05)
f16 Sleef_expf16_u10avx512f(f16) T_avx512; /* sinh, cosh and log1p's mending (below) */
f16 Sleef_logf16_u10avx512f(f16) T_avx512;

/* SLEEF 3.5 overflows where the result does not: log1p of x past about
 * 1e38 (float) or 1e307 (double) is inf, sinh and cosh are inf from
 * |x| = 88.72 (float) or 709.78 (double) on, where the results run on to
 * FLT_MAX and DBL_MAX. Lanes out there (tested: vmath.sh) take log(x)
 * (log1p(x) - log(x) = log1p(1/x) < 2^-60, far below half an ulp), and
 * exp(|x|/2) * 0.5 * exp(|x|/2) (two 1-ulp factors and one rounding: under
 * 3 ulp, the bound is 4). Only vectors with such a lane pay for it. */
#define ANY(m, N)                                                                                                      \
    ({                                                                                                                 \
        int any_ = 0;                                                                                                  \
        for (int i_ = 0; i_ < N; i_++)                                                                                 \
            any_ |= m[i_] != 0;                                                                                        \
        any_;                                                                                                          \
    })
#define BIG_log1p_f 0x1p64f
#define BIG_log1p_d 0x1p512
#define BIG_sinh_f 88.0f
#define BIG_sinh_d 709.0
#define BIG_cosh_f 88.0f
#define BIG_cosh_d 709.0
#define FIX_log1p(T, N, tag, vt, mt, x, r)                                                                             \
    mt m = x > BIG_log1p_##T;                                                                                          \
    if (ANY(m, N))                                                                                                     \
        r = SEL(vt, mt, m, Sleef_log##T##N##_u10##tag(x), r);
#define FIX_HYP(T, N, tag, vt, mt, x, r, odd)                                                                          \
    vt ax = SEL(vt, mt, x < 0, -x, x);                                                                                 \
    mt m = ax > BIG_sinh_##T;                                                                                          \
    if (ANY(m, N)) {                                                                                                   \
        vt e = Sleef_exp##T##N##_u10##tag(ax * 0.5f);                                                                  \
        vt big = e * 0.5f * e;                                                                                         \
        if (odd)                                                                                                       \
            big = SEL(vt, mt, x < 0, -big, big);                                                                       \
        r = SEL(vt, mt, m, big, r);                                                                                    \
    }
/* SLEEF 3.5's asinh and acosh overflow from |x| = 2^64 (float) or 2^512
 * (double) on; out there asinh |x| = acosh |x| = log |x| + log 2 to far
 * below an ulp (the difference is under 1/x^2), log's 1 ulp and one
 * rounding: under 2 ulp (the bound is 4). */
#define BIG_asinh_f 0x1p63f
#define BIG_asinh_d 0x1p511
#define BIG_acosh_f 0x1p63f
#define BIG_acosh_d 0x1p511
#define LN2_f 0.693147180559945309f
#define LN2_d 0.693147180559945309
#define FIX_AHYP(fn, T, N, tag, vt, mt, x, r, odd)                                                                     \
    vt ax = odd ? SEL(vt, mt, x < 0, -x, x) : x; /* acosh of x < 1: SLEEF's NaN */                              \
    mt m = ax > BIG_##fn##_##T;                                                                                        \
    if (ANY(m, N)) {                                                                                                   \
        vt big = Sleef_log##T##N##_u10##tag(ax) + LN2_##T;                                                             \
        if (odd)                                                                                                       \
            big = SEL(vt, mt, x < 0, -big, big);                                                                       \
        r = SEL(vt, mt, m, big, r);                                                                                    \
    }
#define FIX_asinh(T, N, tag, vt, mt, x, r) FIX_AHYP(asinh, T, N, tag, vt, mt, x, r, 1)
#define FIX_acosh(T, N, tag, vt, mt, x, r) FIX_AHYP(acosh, T, N, tag, vt, mt, x, r, 0)
#define FIX_sinh(T, N, tag, vt, mt, x, r) FIX_HYP(T, N, tag, vt, mt, x, r, 1)
#define FIX_cosh(T, N, tag, vt, mt, x, r) FIX_HYP(T, N, tag, vt, mt, x, r, 0)
#define SLR(fn, n, T, N, isa, vt, mt, tag, L)                                                                            \
    vt Sleef_##fn##T##N##_u10##tag(vt) T_##isa;                                                                        \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x);                                                             \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x)                                                                             \
    {                                                                                                                  \
        vt r = Sleef_##fn##T##N##_u10##tag(x);                                                                         \
        FIX_##fn(T, N, tag, vt, mt, x, r) return r;                                                                    \
    }
#define RANGED(fn, n) SX_VMATH_VARIANTS(SLR, fn, n)
#define RANGEDD(fn, n) SX_VMATH_DOUBLE(SLR, fn, n)
SX_VMATH_RANGED(RANGED)
SX_VMATH_RANGED_D(RANGEDD)
#if HAVE_LIBMVEC
/* glibc's names: _ZGVeN16v_sinf, _ZGVdN8v_cosf, ... (b: SSE, d: AVX2,
 * e: AVX-512; each picks its code by the CPU at load). */
#define MV(fn, n, T, W, isa, vt, mt, tag, L) MV##n(fn, W, isa, vt, mt, L)
#define MV1(fn, W, isa, vt, mt, L)                                                                                     \
    vt _ZGV##L##N##W##v_##fn##f(vt) T_##isa;                                                                           \
    EXPORT T_##isa vt __sx_vm_##fn##_f##W##_##isa(vt x);                                                               \
    vt __sx_vm_##fn##_f##W##_##isa(vt x) { return _ZGV##L##N##W##v_##fn##f(x); }
#define MVEC(fn, n) SX_VMATH_FLOAT256(MV, fn, n) SX_VMATH_DOUBLE(SL, fn, n)
SX_VMATH_MVEC(MVEC)
#else
SX_VMATH_MVEC(ALL256)
#endif
#else
/* Per lane through libm: float through the f-suffixed function. */
#define LN(fn, n, T, N, isa, vt, mt, tag, L) LN##n(fn, T, N, isa, vt, T##_SFX)
#define f_SFX f
#define d_SFX
#define CAT(a, b) CAT_(a, b)
#define CAT_(a, b) a##b
#define LN1(fn, T, N, isa, vt, sfx)                                                                                    \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x);                                                             \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x)                                                                             \
    {                                                                                                                  \
        vt r;                                                                                                          \
        for (int i = 0; i < N; i++)                                                                                    \
            r[i] = CAT(fn, sfx)(x[i]);                                                                                 \
        return r;                                                                                                      \
    }
#define LN2(fn, T, N, isa, vt, sfx)                                                                                    \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y);                                                       \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y)                                                                       \
    {                                                                                                                  \
        vt r;                                                                                                          \
        for (int i = 0; i < N; i++)                                                                                    \
            r[i] = CAT(fn, sfx)(x[i], y[i]);                                                                           \
        return r;                                                                                                      \
    }
#define ALL(fn, n) SX_VMATH_VARIANTS(LN, fn, n)
#define ALLD(fn, n) SX_VMATH_DOUBLE(LN, fn, n)
#define ALL256(fn, n) SX_VMATH_VARIANTS256(LN, fn, n)
SX_VMATH_FUNCS(ALL)
SX_VMATH_U05(ALLD) /* float: vmath-f64.c */
SX_VMATH_RANGED(ALL)
SX_VMATH_RANGED_D(ALL)
SX_VMATH_MVEC(ALL256)
SX_VMATH_DPOW(ALLD)
SX_VMATH_OWN512(ALL256)
#endif
