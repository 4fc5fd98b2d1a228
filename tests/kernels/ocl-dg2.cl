/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-dg2.cl: a second image sharing ocl-dg.cl's counter under another
 * variable name (the unique id is what matches). */
__attribute__((annotate("sycl-unique-id=ocl_dg_counter;sycl-device-global-size=4")))
global int *global counter_elsewhere;

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_ocl_dg_times(int m)
{
    counter_elsewhere[0] *= m;
}
