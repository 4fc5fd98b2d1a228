/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* unknown-key.cl: an annotation key proptool does not know (a warning only). */
__attribute__((annotate("sycl-single-task-kernel;sycl-frobnicate=3")))
kernel void __sycl_kernel_unknown(global int *out)
{
    out[0] = 1;
}
