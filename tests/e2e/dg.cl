/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dg.cl: device globals for the end-to-end suite. */

/* device_global<int>: the program variable holds the instance's address. */
__attribute__((annotate("sycl-unique-id=dg_counter;sycl-device-global-size=4")))
global int *global dg_counter_ptr;

/* device_global<int[4]> with host_access read. */
__attribute__((annotate("sycl-unique-id=dg_ro;sycl-device-global-size=16;host_access=read")))
global int *global dg_ro_ptr;

/* device_global<int[4], device_image_scope>: the variable is the storage. */
__attribute__((annotate("sycl-unique-id=dg_tile;sycl-device-global-size=16;device_image_scope")))
global int tile[4] = {1, 2, 3, 4};

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_dg_inc(void)
{
    dg_counter_ptr[0] += 1;
}

__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_dg_add(int v)
{
    atomic_add(dg_counter_ptr, v);
}

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_dg_ro_fill(int v)
{
    for (int i = 0; i < 4; i++)
        dg_ro_ptr[i] = v + i;
}

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_tile_double(void)
{
    for (int i = 0; i < 4; i++)
        tile[i] *= 2;
}
