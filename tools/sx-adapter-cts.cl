/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-adapter-cts.cl: the kernels sx-adapter-cts launches. Build an image
 * file of them for your device with proptool (see sx-adapter-cts --help)
 * and pass it with --images. sx-adapter-cts-host.c is the same in C. */

global int sx_cts_global[4] = {1, 2, 3, 4};

/* Accessor kernels (the OpenCL adapter's convention for program-scope
 * variables; other backends ignore them). */
#define SX_CTS_ACCESSORS(name)                                                           \
    kernel void __sx_dg_size_##name(global ulong *out) { out[0] = sizeof(name); }        \
    kernel void __sx_dg_read_##name(global uchar *dst, ulong offset, ulong count)        \
    {                                                                                    \
        const global uchar *p = (const global uchar *)&name;                            \
        for (ulong i = 0; i < count; i++)                                               \
            dst[i] = p[offset + i];                                                      \
    }                                                                                    \
    kernel void __sx_dg_write_##name(global const uchar *src, ulong offset, ulong count) \
    {                                                                                    \
        global uchar *p = (global uchar *)&name;                                         \
        for (ulong i = 0; i < count; i++)                                               \
            p[offset + i] = src[i];                                                      \
    }

/* For devices without USM: the output goes to a program variable. */
global int sx_cts_out[64];

SX_CTS_ACCESSORS(sx_cts_global)
SX_CTS_ACCESSORS(sx_cts_out)

/* Every argument kind: a pointer, a value, local memory (shared through a barrier). */
kernel void sx_cts_args(global int *out, int v, local int *tmp)
{
    size_t g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
    tmp[l] = (int)g * v;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tmp[n - 1 - l] + 1;
}

/* The program variable as kernels see it, after a host write. */
kernel void sx_cts_global_get(global int *out)
{
    size_t g = get_global_id(0);
    out[g] = sx_cts_global[g];
}

/* sx_cts_args without a pointer, for devices without USM: value and local
 * arguments, the result read back through the program variable. */
kernel void sx_cts_args_global(int v, local int *tmp)
{
    size_t g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
    tmp[l] = (int)g * v;
    barrier(CLK_LOCAL_MEM_FENCE);
    sx_cts_out[g] = tmp[n - 1 - l] + 1;
}

/* ---- the launch checks (sx-adapter-cts-launch.c); none uses barrier() ---- */

/* Pointer, value and local arguments; each work-item uses its own slot. */
kernel void sx_cts_local(global int *out, int v, local int *tmp)
{
    size_t g = get_global_id(0), l = get_local_id(0);
    tmp[l] = (int)g * v;
    out[g] = tmp[l] + 1;
}

typedef struct sx_cts_pair {
    int i;
    float f;
} sx_cts_pair;

/* float, a struct by value, char and long values. */
kernel void sx_cts_scalars(global float *out, float f, sx_cts_pair s, char c, long l)
{
    size_t g = get_global_id(0);
    out[g] = (float)g * f + (float)s.i + s.f + (float)c + (float)l;
}

kernel void sx_cts_double(global double *out, double d)
{
    size_t g = get_global_id(0);
    out[g] = (double)g * d + 0.25;
}

/* Global, local and group ids of 1-, 2- and 3-D ranges, with offsets. */
kernel void sx_cts_nd(global int *out)
{
    size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1),
           z = get_global_id(2) - get_global_offset(2);
    size_t i = (z * get_global_size(1) + y) * get_global_size(0) + x;
    out[2 * i] = (int)(get_global_id(0) + 100 * get_global_id(1) + 10000 * get_global_id(2));
    out[2 * i + 1] = (int)(get_local_id(0) + 4 * get_local_id(1) + 16 * get_local_id(2) +
                           64 * (get_group_id(0) + 4 * get_group_id(1) + 16 * get_group_id(2)));
}
