/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vmath.h: what the vector math files of the builtins module (vmath.c,
 * vmath-pow.c, vmath-avx512.c) share: the vector types of their entry
 * points (__sx_vm_FN_TN_ISA) and the target attribute of each ISA. The
 * AVX-512 one is the x86-64-v4 table's (AVX-512 F, DQ among them). */
#ifndef SX_NATIVE_VMATH_H
#define SX_NATIVE_VMATH_H

#define EXPORT __attribute__((visibility("default")))

#define T_sse2
#define T_avx2 __attribute__((target("avx2,fma")))
#define T_avx512 __attribute__((target("avx2,fma,avx512f,avx512dq")))

typedef float f4 __attribute__((vector_size(16)));
typedef float f8 __attribute__((vector_size(32)));
typedef float f16 __attribute__((vector_size(64)));
typedef double d2 __attribute__((vector_size(16)));
typedef double d4 __attribute__((vector_size(32)));
typedef double d8 __attribute__((vector_size(64)));
typedef double d16 __attribute__((vector_size(128))); /* two registers: vmath-f64.c's float16 in double */
typedef int i4 __attribute__((vector_size(16)));
typedef int i8 __attribute__((vector_size(32)));
typedef int i16 __attribute__((vector_size(64)));
typedef unsigned u4 __attribute__((vector_size(16)));
typedef unsigned u8 __attribute__((vector_size(32)));
typedef unsigned u16 __attribute__((vector_size(64)));
typedef long long l2 __attribute__((vector_size(16)));
typedef long long l4 __attribute__((vector_size(32)));
typedef long long l8 __attribute__((vector_size(64)));

#endif
