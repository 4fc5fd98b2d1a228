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
 * that ISA, well inside the OpenCL C bounds (exp 3 ulp, sin 4, pow 16, ...).
 * Without it each lane calls libm (correct, not faster). */
#include <math.h>

#define EXPORT __attribute__((visibility("default")))

typedef float f4 __attribute__((vector_size(16)));
typedef float f8 __attribute__((vector_size(32)));
typedef float f16 __attribute__((vector_size(64)));
typedef double d2 __attribute__((vector_size(16)));
typedef double d4 __attribute__((vector_size(32)));
typedef double d8 __attribute__((vector_size(64)));

#define T_sse2
#define T_avx2 __attribute__((target("avx2,fma")))
#define T_avx512 __attribute__((target("avx2,fma,avx512f")))

/* The functions, their libm names and how many arguments they take. */
#define SX_VMATH_FUNCS(X)                                                                                              \
    X(exp, 1) X(exp2, 1) X(exp10, 1) X(expm1, 1) X(log, 1) X(log2, 1) X(log10, 1) X(log1p, 1) X(sin, 1) X(cos, 1)       \
    X(tan, 1) X(sinh, 1) X(cosh, 1) X(tanh, 1) X(asin, 1) X(acos, 1) X(atan, 1) X(cbrt, 1) X(atan2, 2) X(pow, 2)

#if HAVE_SLEEF
/* SLEEF's names: Sleef_expf4_u10sse2, Sleef_expd4_u10avx2, ... Declared
 * here with GCC vector types (sleef.h declares only what the compiler's
 * flags enable, and this file is built for baseline x86-64). */
#define SL1(fn, T, N, isa, vt, tag)                                                                                    \
    vt Sleef_##fn##T##N##_u10##tag(vt) T_##isa;                                                                        \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x);                                                             \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x) { return Sleef_##fn##T##N##_u10##tag(x); }
#define SL2(fn, T, N, isa, vt, tag)                                                                                    \
    vt Sleef_##fn##T##N##_u10##tag(vt, vt) T_##isa;                                                                    \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y);                                                       \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y) { return Sleef_##fn##T##N##_u10##tag(x, y); }
#define ALL(fn, n)                                                                                                     \
    SL##n(fn, f, 4, sse2, f4, sse2) SL##n(fn, d, 2, sse2, d2, sse2) SL##n(fn, f, 4, avx2, f4, avx2128)                 \
    SL##n(fn, d, 2, avx2, d2, avx2128) SL##n(fn, f, 8, avx2, f8, avx2) SL##n(fn, d, 4, avx2, d4, avx2)                 \
    SL##n(fn, f, 16, avx512, f16, avx512f) SL##n(fn, d, 8, avx512, d8, avx512f)
#else
/* Per lane through libm: float through the f-suffixed function. */
#define LN1(fn, T, N, isa, vt, sfx)                                                                                    \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x);                                                             \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x)                                                                             \
    {                                                                                                                  \
        vt r;                                                                                                          \
        for (int i = 0; i < N; i++)                                                                                    \
            r[i] = fn##sfx(x[i]);                                                                                      \
        return r;                                                                                                      \
    }
#define LN2(fn, T, N, isa, vt, sfx)                                                                                    \
    EXPORT T_##isa vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y);                                                       \
    vt __sx_vm_##fn##_##T##N##_##isa(vt x, vt y)                                                                       \
    {                                                                                                                  \
        vt r;                                                                                                          \
        for (int i = 0; i < N; i++)                                                                                    \
            r[i] = fn##sfx(x[i], y[i]);                                                                                \
        return r;                                                                                                      \
    }
#define ALL(fn, n)                                                                                                     \
    LN##n(fn, f, 4, sse2, f4, f) LN##n(fn, d, 2, sse2, d2, ) LN##n(fn, f, 4, avx2, f4, f) LN##n(fn, d, 2, avx2, d2, )   \
    LN##n(fn, f, 8, avx2, f8, f) LN##n(fn, d, 4, avx2, d4, ) LN##n(fn, f, 16, avx512, f16, f)                          \
    LN##n(fn, d, 8, avx512, d8, )
#endif

SX_VMATH_FUNCS(ALL)
