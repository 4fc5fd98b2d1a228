/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vmath-fmod.c: float fmod on vectors for compiled work-group images
 * (issue 28: dpnp's remainder called fmodf lane by lane). fmod is exact
 * (OpenCL C: 0 ulp), and so is this, bit for bit libm's fmodf
 * (tests/native-builtins/vmath-ulp.c).
 *
 * |x| = q |y| + r, 0 <= r < |y|. In double, with q below 2^29: q |y| is
 * exact (29 + 24 bits), and so is |x| - q |y| (a multiple of |y|'s ulp,
 * under |y|). q is trunc(|x| / |y|) of the rounded quotient, and that is
 * the true one: the quotient is at least 2^-24 from the next whole number
 * (r and |y| - r are multiples of |y|'s ulp, 2^-23 of |y|'s binade) and
 * the division's error under 2^29 * 2^-53 = 2^-24. r is exact in float
 * (fmod's result always is) and takes x's sign. Lanes with a larger
 * quotient, a zero or infinite y, an infinite x or a NaN take libm's
 * fmodf, only in the vectors that have such a lane. */
#include <math.h>

#include "vmath.h"

typedef double dd4 __attribute__((vector_size(32)));
typedef double dd8 __attribute__((vector_size(64)));
typedef double dd16 __attribute__((vector_size(128)));
typedef long long ll4 __attribute__((vector_size(32)));
typedef long long ll8 __attribute__((vector_size(64)));
typedef long long ll16 __attribute__((vector_size(128)));

#define FMOD(N, isa, vt, mt, dt, lt)                                                                                   \
    EXPORT T_##isa vt __sx_vm_fmod_f##N##_##isa(vt x, vt y);                                                           \
    T_##isa vt __sx_vm_fmod_f##N##_##isa(vt x, vt y)                                                                   \
    {                                                                                                                  \
        vt ax = (vt)((mt)x & 0x7fffffff), ay = (vt)((mt)y & 0x7fffffff);                                               \
        dt dx = __builtin_convertvector(ax, dt), dy = __builtin_convertvector(ay, dt);                                 \
        lt fast = (dx < dy * 0x1p29) & (dy != (dt){} + INFINITY); /* false for NaN, y = 0, x = inf */                \
        dt q = dx / dy;                                                                                                \
        q = (dt)((lt)q & fast); /* 0 in the other lanes: the conversion below stays in range */                      \
        dt r = dx - __builtin_convertvector(__builtin_convertvector(q, mt), dt) * dy;                                  \
        vt res = (vt)((mt)__builtin_convertvector(r, vt) | ((mt)x & (int)0x80000000));                               \
        mt slow = ~__builtin_convertvector(fast, mt);                                                                  \
        int any = 0;                                                                                                   \
        for (int i = 0; i < N; i++)                                                                                    \
            any |= slow[i];                                                                                            \
        if (any)                                                                                                       \
            for (int i = 0; i < N; i++)                                                                                \
                if (slow[i])                                                                                           \
                    res[i] = fmodf(x[i], y[i]);                                                                        \
        return res;                                                                                                    \
    }

FMOD(4, sse2, f4, i4, dd4, ll4)
FMOD(4, avx2, f4, i4, dd4, ll4)
FMOD(8, avx2, f8, i8, dd8, ll8)
FMOD(16, avx512, f16, i16, dd16, ll16)
