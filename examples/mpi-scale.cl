/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mpi-scale.cl: the MPI example's device_global kernel, in a module of its
 * own so that its program is one image (the virtual-function kernel's,
 * in mpi-kernels.cl, is linked from two). */

/* device_global<int> rank_scale: each rank writes its own value. */
__attribute__((annotate("sycl-unique-id=mpi_rank_scale;sycl-device-global-size=4")))
global int *global rank_scale_ptr;

__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_scale(global int *out)
{
    size_t i = get_global_id(0);
    out[i] = (int)i * rank_scale_ptr[0];
}
