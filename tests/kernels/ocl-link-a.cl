/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-link-a.cl: a kernel calling a function defined in ocl-link-b.cl (link test). */
int ocl_link_helper(int x);

kernel void ocl_link_use(global int *io)
{
    size_t i = get_global_id(0);
    io[i] = ocl_link_helper(io[i]);
}

/* Value-only variant for drivers without USM: result in a variable. */
global int ocl_link_result;
kernel void ocl_link_use_value(int x) { ocl_link_result = ocl_link_helper(x); }
kernel void __sx_dg_size_ocl_link_result(global ulong *out) { out[0] = sizeof(ocl_link_result); }
kernel void __sx_dg_read_ocl_link_result(global uchar *dst, ulong offset, ulong count)
{
    for (ulong i = 0; i < count; i++)
        dst[i] = ((const global uchar *)&ocl_link_result)[offset + i];
}
kernel void __sx_dg_write_ocl_link_result(global const uchar *src, ulong offset, ulong count)
{
    for (ulong i = 0; i < count; i++)
        ((global uchar *)&ocl_link_result)[offset + i] = src[i];
}
