/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-basic.cl: OpenCL adapter test kernels: 1/2/3-D launches with value, pointer and local arguments. */

/* out[i] = in[i] * scale + bias over a 1-D range (any global offset). */
kernel void ocl_axpb(global const int *in, global int *out, int scale, long bias)
{
    size_t i = get_global_id(0);
    out[i] = in[i] * scale + (int)bias;
}

/* Each item of a 2-D range writes its linear id; row pitch = global size 0. */
kernel void ocl_ids2(global uint *out)
{
    size_t x = get_global_id(0), y = get_global_id(1);
    out[y * get_global_size(0) + x] = (uint)(y * 1000 + x);
}

/* 3-D: out[linear] = x + 100 y + 10000 z. */
kernel void ocl_ids3(global uint *out)
{
    size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    size_t lin = (z * get_global_size(1) + y) * get_global_size(0) + x;
    out[lin] = (uint)(x + 100 * y + 10000 * z);
}

/* Work-group sum through local memory and a barrier: out[group] = sum. */
kernel void ocl_group_sum(global const int *in, global int *out, local int *scratch)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    scratch[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = 0;
        for (size_t i = 0; i < n; i++)
            s += scratch[i];
        out[get_group_id(0)] = s;
    }
}

/* Uneven ranges: counts the items that ran (non-uniform work-groups). */
kernel void ocl_count(global int *counter)
{
    atomic_inc(counter);
}

/* A struct by value: OpenCL passes it with clSetKernelArg like any value. */
typedef struct { int a; float b; long c; } ocl_pod;
kernel void ocl_struct(global long *out, ocl_pod p)
{
    out[0] = p.a;
    out[1] = (long)(p.b * 4.0f);
    out[2] = p.c;
}

/* Value and local arguments only (runs without USM): each group sums its
 * ids in local memory and checks the total against what the host said. */
kernel void ocl_values(int expect, long bias, local int *scratch)
{
    size_t l = get_local_id(0);
    scratch[l] = (int)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = 0;
        for (size_t i = 0; i < get_local_size(0); i++)
            s += scratch[i];
        if (s + (int)bias != expect)
            scratch[0] = -1;
    }
}
