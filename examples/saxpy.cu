/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// saxpy.cu: saxpy.cl's kernel in CUDA, the demo's PTX variant (CMake:
// sycl_ext_add_device_code(... VARIANTS ...;ptx) finds it beside saxpy.cl).
// The PTX image takes the SPIR-V image's signature.
#include <stddef.h>

extern "C" __global__ void __sycl_kernel_saxpy(float *y, const float *x, float a)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = a * x[i] + y[i];
}
