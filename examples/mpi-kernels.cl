/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mpi-kernels.cl: the MPI example's virtual-function kernel: a
 * "calls-indirectly" kernel, linked at its first launch with the image of
 * the set it calls (the direct-call form of doc/spirv-conventions.md).
 * Its device_global kernel is in mpi-scale.cl: a program of one image. */
#include <sycl-ext/device.h>

/* The default virtual-function set (_ZTSv), outlined by proptool into an
 * image of its own. */
SX_INDIRECTLY_CALLABLE_DEFAULT __attribute__((noinline)) int vf_poly(int x)
{
    return x * x + 7;
}

SX_KERNEL(SX_P_CALLS_INDIRECTLY_DEFAULT) void vf_apply(global int *r)
{
    size_t i = get_global_id(0);
    r[i] = vf_poly(r[i]);
}
