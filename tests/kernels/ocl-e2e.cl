/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-e2e.cl: OpenCL end to end: free-function kernels and a device_image_scope
 * variable, bundled by proptool with SPIR-V and SPIR (--spir-bc) variants. */

/* device_image_scope: the variable is the storage, reached through its
 * accessor kernel (the OpenCL adapter's convention). */
__attribute__((annotate("sycl-unique-id=ocl_tile;sycl-device-global-size=16;device_image_scope")))
global int ocl_tile[4];

kernel void __sx_dg_access_ocl_tile(global uchar *buf, ulong offset, ulong count, uint op)
{
    global uchar *p = (global uchar *)&ocl_tile;
    if (op == 0)
        *(global ulong *)buf = sizeof(ocl_tile);
    else if (op == 1)
        for (ulong i = 0; i < count; i++)
            buf[i] = p[offset + i];
    else if (op == 2)
        for (ulong i = 0; i < count; i++)
            p[offset + i] = buf[i];
}

__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_ocl_axpy(global float *y, global const float *x, float a)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

/* Each work-group sums k over its items in local memory into ocl_tile[group]. */
__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_ocl_tile_add(local int *tmp, int k)
{
    size_t l = get_local_id(0);
    tmp[l] = k;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = 0;
        for (size_t i = 0; i < get_local_size(0); i++)
            s += tmp[i];
        ocl_tile[get_group_id(0) % 4] += s;
    }
}

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_ocl_tile_scale(int m)
{
    for (int i = 0; i < 4; i++)
        ocl_tile[i] *= m;
}
