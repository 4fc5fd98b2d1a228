/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mpi-kernels.cl: the MPI example's virtual-function kernel: a
 * "calls-indirectly" kernel, linked at its first launch with the image of
 * the set it calls (the direct-call form of doc/spirv-conventions.md).
 * Its device_global kernel is in mpi-scale.cl: a program of one image. */

/* The default virtual-function set (_ZTSv), outlined by proptool into an
 * image of its own. */
__attribute__((annotate("indirectly-callable"), noinline)) int vf_poly(int x)
{
    return x * x + 7;
}

__attribute__((annotate("calls-indirectly"))) kernel void vf_apply(global int *r)
{
    size_t i = get_global_id(0);
    r[i] = vf_poly(r[i]);
}
