/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dg2.cl: a second image that shares dg_counter with dg.cl. */
__attribute__((annotate("sycl-unique-id=dg_counter;sycl-device-global-size=4")))
global int *global dg_counter_ptr;

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_dg_get(global int *out)
{
    out[0] = dg_counter_ptr[0];
}
