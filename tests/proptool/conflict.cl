/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* conflict.cl: a kernel that is both nd_range and single_task (an error). */
__attribute__((annotate("sycl-nd-range-kernel=1;sycl-single-task-kernel")))
kernel void __sycl_kernel_both(global int *out)
{
    out[0] = 1;
}
