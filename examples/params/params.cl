/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* params.cl: one free-function kernel per group of parameter kinds, each
 * set from the host by its position (params.c): buffers (global, const
 * global), scalars of every size, vectors, a struct by value, and
 * work_group_memory (in OpenCL C a `local T *` parameter: the host gives
 * its size with sx_args_set_local, each work-group gets its own), and work-
 * group scratch memory (get_work_group_scratch_memory(): a `local T *`
 * parameter the kernel's SX_P_WORK_GROUP_SCRATCH names, sized by the
 * launch's work_group_scratch_size; the host sets no argument for it). */
#include "params.h"

SX_SINGLE_TASK_KERNEL(every_kind)
(global double *out,               /* 0: a USM pointer (sx_args_set_pointer) */
 global const int *in,             /* 1: a const one */
 char c, uchar uc, short s,        /* 2-4: scalars (sx_args_set, by size) */
 int i, uint u, long l, ulong ul,  /* 5-8 */
 float f, double d,                /* 9-10 */
 float4 v4, int2 v2,               /* 11-12: vectors */
 struct mixed m)                   /* 13: a struct by value */
{
    out[0] = c + uc + s + i + u + l + ul;
    out[1] = f + d;
    out[2] = v4.x + v4.y + v4.z + v4.w + v2.x + v2.y;
    out[3] = m.tag + m.weight + m.count;
    out[4] = in[0] + in[1];
}

/* work_group_memory<int[]>: sums[g] = the sum of group g's inputs. */
SX_ND_RANGE_KERNEL(1, group_sums)(global const int *in, global int *sums, local int *scratch)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s /= 2) {
        if (l < s)
            scratch[l] += scratch[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        sums[get_group_id(0)] = scratch[0];
}

/* Work-group scratch memory: sums[g] = bias + the sum of group g's inputs,
 * through the scratch block the launch sizes (work_group_scratch_size). */
SX_ND_RANGE_KERNEL(1, scratch_sums, SX_P_WORK_GROUP_SCRATCH)
(global const int *in, global int *sums, int bias, local int *scratch)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = bias;
        for (size_t i = 0; i < n; i++)
            s += scratch[i];
        sums[get_group_id(0)] = s;
    }
}
