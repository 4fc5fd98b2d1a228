/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dup.cl: defines a kernel name kernels.cl defines too (an error across inputs). */
__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_once(global int *out)
{
    out[0] = 1;
}
