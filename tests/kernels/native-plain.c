/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-plain.c: a kernel in plain C for the native adapter. It follows
 * the conventions of host-compiled OpenCL C: ordinary C calling
 * convention, builtins imported by their OpenCL mangled names. */
#include <stddef.h>

size_t _Z13get_global_idj(unsigned dim);
void _Z7barrierj(unsigned flags);

void csquare(int *out, int n)
{
    size_t i = _Z13get_global_idj(0);
    out[i] = (int)i * (int)i + n;
}
