/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-prog.cl: Level Zero adapter test kernels (the TEST DRIVER has host versions of them). */
global int ze_dg[4] = {1, 2, 3, 4};
global long ze_scale_dg = 3;

kernel void ze_vadd(global const int *a, global const int *b, global int *c)
{
    size_t i = get_global_id(0);
    c[i] = a[i] + b[i];
}

/* One argument of each kind: pointer, value, local. */
kernel void ze_args(global int *out, int scale, local int *scratch)
{
    size_t l = get_local_id(0);
    scratch[l] = (int)get_global_id(0) * scale;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = scratch[l];
}

kernel void ze_global_get(global int *out)
{
    size_t i = get_global_id(0);
    out[i] = ze_dg[i % 4];
}

kernel void ze_global_inc(void)
{
    size_t i = get_global_id(0);
    atomic_inc((volatile global int *)&ze_dg[i % 4]);
}
