/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-kernels-calls.cl: a kernel image whose kernel calls set_fp64 (its
 * "calls-virtual-functions-set"): linked with the real set or refused. */
#include "vf-base.h"

global int result;

#ifdef VF_STATIC
VF_KERNEL void call_fp64(int x) { result = Base::bar(x); }
#else
/* Storage, never constructed: a qualified call needs no vtable (which
 * lives with the other kernel image). */
global unsigned char obj2[sizeof(Base)] __attribute__((aligned(8)));
VF_KERNEL void call_fp64(int x) { result = ((global Base *)obj2)->Base::bar(x); }
#endif

VF_KERNEL void __sx_dg_size_result(global ulong *out) { out[0] = sizeof(result); }
VF_KERNEL void __sx_dg_read_result(global uchar *dst, ulong offset, ulong count)
{
    for (ulong i = 0; i < count; i++)
        dst[i] = ((const global uchar *)&result)[offset + i];
}
VF_KERNEL void __sx_dg_write_result(global const uchar *src, ulong offset, ulong count)
{
    for (ulong i = 0; i < count; i++)
        ((global uchar *)&result)[offset + i] = src[i];
}
