/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-bind.cl: ordinary device globals as the OpenCL adapter binds them
 * without USM: the variable is a pointer, and the accessor's op 3 stores
 * its buffer argument's address into it (written by hand here, as proptool
 * --device-global-accessors generates it). */
global int *global ocl_bind_ptr;
global int *global ocl_nobind_ptr;
global uint ocl_bind_vec[4] = {1, 2, 3, 4};

kernel void __sx_dg_access_ocl_bind_ptr(global uchar *buf, ulong offset, ulong count, uint op)
{
    global uchar *p = (global uchar *)&ocl_bind_ptr;
    if (op == 0)
        *(global ulong *)buf = sizeof(ocl_bind_ptr);
    else if (op == 1)
        for (ulong i = 0; i < count; i++)
            buf[i] = p[offset + i];
    else if (op == 2)
        for (ulong i = 0; i < count; i++)
            p[offset + i] = buf[i];
    else if (op == 3)
        *(global uchar *global *)&ocl_bind_ptr = buf;
}

/* an accessor from before op 3 */
kernel void __sx_dg_access_ocl_nobind_ptr(global uchar *buf, ulong offset, ulong count, uint op)
{
    global uchar *p = (global uchar *)&ocl_nobind_ptr;
    if (op == 0)
        *(global ulong *)buf = sizeof(ocl_nobind_ptr);
    else if (op == 1)
        for (ulong i = 0; i < count; i++)
            buf[i] = p[offset + i];
}

/* not a pointer: 16 bytes */
kernel void __sx_dg_access_ocl_bind_vec(global uchar *buf, ulong offset, ulong count, uint op)
{
    global uchar *p = (global uchar *)&ocl_bind_vec;
    if (op == 0)
        *(global ulong *)buf = sizeof(ocl_bind_vec);
    else if (op == 1)
        for (ulong i = 0; i < count; i++)
            buf[i] = p[offset + i];
}

/* the three-kernel form cannot bind */
global int *global ocl_three_ptr;
kernel void __sx_dg_size_ocl_three_ptr(global ulong *out) { out[0] = sizeof(ocl_three_ptr); }
kernel void __sx_dg_read_ocl_three_ptr(global uchar *dst, ulong offset, ulong count)
{
    for (ulong i = 0; i < count; i++)
        dst[i] = ((global uchar *)&ocl_three_ptr)[offset + i];
}
kernel void __sx_dg_write_ocl_three_ptr(global const uchar *src, ulong offset, ulong count)
{
    for (ulong i = 0; i < count; i++)
        ((global uchar *)&ocl_three_ptr)[offset + i] = src[i];
}

/* *ptr = *ptr * m + a over the instance's ints */
kernel void ocl_bind_update(int m, int a)
{
    ocl_bind_ptr[0] = ocl_bind_ptr[0] * m + a;
    ocl_bind_ptr[1] += 1;
}
