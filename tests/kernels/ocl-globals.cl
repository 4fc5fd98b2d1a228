/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-globals.cl: program-scope variables with hand-written accessor kernels (the adapter's convention). */

/* 16 bytes, and an int; kernels below use them, so they are shared state. */
global uint ocl_dg_vec[4] = {1, 2, 3, 4};
global int ocl_dg_counter;

#define SX_DG_ACCESSORS(name)                                                        \
    kernel void __sx_dg_size_##name(global ulong *out) { out[0] = sizeof(name); }    \
    kernel void __sx_dg_read_##name(global uchar *dst, ulong offset, ulong count)    \
    {                                                                                \
        const global uchar *p = (const global uchar *)&name;                        \
        for (ulong i = 0; i < count; i++)                                           \
            dst[i] = p[offset + i];                                                  \
    }                                                                                \
    kernel void __sx_dg_write_##name(global const uchar *src, ulong offset, ulong count) \
    {                                                                                \
        global uchar *p = (global uchar *)&name;                                     \
        for (ulong i = 0; i < count; i++)                                           \
            p[offset + i] = src[i];                                                  \
    }

SX_DG_ACCESSORS(ocl_dg_vec)
SX_DG_ACCESSORS(ocl_dg_counter)

/* A user kernel: counter += sum(vec) * k, with value args only (runs on
 * drivers without USM too). */
kernel void ocl_dg_accumulate(int k)
{
    int s = 0;
    for (int i = 0; i < 4; i++)
        s += (int)ocl_dg_vec[i];
    ocl_dg_counter += s * k;
}

/* Rotates the vector: the host sees what a kernel changed. */
kernel void ocl_dg_rotate(void)
{
    uint first = ocl_dg_vec[0];
    for (int i = 0; i < 3; i++)
        ocl_dg_vec[i] = ocl_dg_vec[i + 1];
    ocl_dg_vec[3] = first;
}

/* Only a read accessor: an incomplete set must be refused. */
global int ocl_dg_partial;
kernel void __sx_dg_size_ocl_dg_partial(global ulong *out) { out[0] = sizeof(ocl_dg_partial); }

/* The one-kernel form (one entry name per variable, as "SX/device global
 * accessors" lists): op 0 size, 1 read, 2 write. */
global long ocl_dg_single[3] = {-1, -2, -3};
kernel void __sx_dg_access_ocl_dg_single(global uchar *buf, ulong offset, ulong count, uint op)
{
    global uchar *p = (global uchar *)&ocl_dg_single;
    if (op == 0)
        *(global ulong *)buf = sizeof(ocl_dg_single);
    else if (op == 1)
        for (ulong i = 0; i < count; i++)
            buf[i] = p[offset + i];
    else if (op == 2)
        for (ulong i = 0; i < count; i++)
            p[offset + i] = buf[i];
}

/* ocl_dg_single[2] = ocl_dg_single[0] + ocl_dg_single[1] */
kernel void ocl_dg_single_sum(void)
{
    ocl_dg_single[2] = ocl_dg_single[0] + ocl_dg_single[1];
}
