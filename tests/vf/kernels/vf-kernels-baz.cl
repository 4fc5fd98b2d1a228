/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-kernels-baz.cl: a kernel image calling Base::baz, which a second
 * library's image of the default set provides. */
#include "vf-base.h"

global int result;

VF_KERNEL void use_baz(int x) { result = Base::baz(x); }

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
