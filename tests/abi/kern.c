/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* kern.c: the host-ELF kernels of the ABI tests, plain C for the native
 * adapter (no clang needed). Built once per image with -DK=abi_a, abi_b...:
 * K_fill(out, v) writes out[i] = v * i + K_dg, K_dg being the image's
 * device global (image scope, so the program variable is the value). */
#include <stddef.h>

#ifndef K
#define K abi_a
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)

size_t _Z13get_global_idj(unsigned d);

int CAT(K, _dg);

void CAT(K, _fill)(int *out, int v);
void CAT(K, _fill)(int *out, int v)
{
    size_t i = _Z13get_global_idj(0);
    out[i] = v * (int)i + CAT(K, _dg);
}
