/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* saxpy.cl: the demo's kernel, a free-function kernel in OpenCL C. The
 * build compiles it to SPIR-V and for the host (native adapter) and
 * proptool bundles both, with the registration code, into the demo. */
__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_saxpy(global float *y, global const float *x, float a)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
