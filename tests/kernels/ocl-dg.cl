/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-dg.cl: ordinary device globals (not device_image_scope) for the
 * ocl-dg suite: the program variable is a pointer to the (context, device)
 * instance, bound by proptool's accessor kernel on devices without USM. */

/* device_global<int>, initial value 41 on the host side. */
__attribute__((annotate("sycl-unique-id=ocl_dg_counter;sycl-device-global-size=4")))
global int *global ocl_counter;

/* device_global<int[2]>: what the kernels saw. */
__attribute__((annotate("sycl-unique-id=ocl_dg_seen;sycl-device-global-size=8")))
global int *global ocl_seen;

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_ocl_dg_inc(int by)
{
    ocl_counter[0] += by;
}

/* seen[slot] = counter (no loops: the SPIR-V stays spirv-val clean) */
__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_ocl_dg_snap(int slot)
{
    ocl_seen[slot & 1] = ocl_counter[0];
}
