/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ptx.cl: kernels for proptool's PTX variant (tests/proptool/ptx.sh): a
 * device global, __local arguments and kernel-scope __local arrays with
 * barriers, atomics on global, local and generic pointers, a struct by
 * value, libdevice math and the work-item queries. */
typedef struct { float a; int b; float c[3]; } pod;

__global int counter;
__global float table[16] = {1, 2, 3};
__constant float weights[4] = {0.5f, 0.25f, 0.125f, 0.0625f};

__kernel void saxpy(__global float *y, __global const float *x, float a)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

__kernel void reduce(__global const float *in, __global float *out, __local float *tmp)
{
    __local float scale[4];
    size_t l = get_local_id(0);
    if (l < 4)
        scale[l] = weights[l];
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) {
        out[get_group_id(0)] = tmp[0] * scale[0];
        atomic_inc(&counter);
    }
}

__kernel void atomics(__global int *g, __local int *lo)
{
    if (get_local_id(0) == 0)
        *lo = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(lo, 1);
    atomic_max(&g[1], (int)get_global_id(0));
    atomic_cmpxchg(&g[2], 0, 1);
    atomic_fetch_add((volatile __global atomic_int *)&g[3], 2);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        atomic_add(&g[0], *lo);
}

__kernel void by_value(__global float *out, pod p)
{
    out[get_global_id(0)] = p.a + p.b + p.c[2] + table[2];
}

__kernel void math(__global float *out, __global const float *x)
{
    size_t i = get_global_id(0);
    out[i] = exp(x[i]) + sin(x[i]) + pow(x[i], 2.5f) + sqrt(x[i]) + fma(x[i], 2.0f, 1.0f) +
             (float)get_work_dim() + (float)get_num_groups(0);
}
