/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// vf-kernels-baz.cu: a kernel image calling Base::baz, which a second
// library's image of the default set provides.
#include "vf-base.cuh"

extern "C" {
__device__ int result;
__global__ void use_baz(int x) { result = Base::baz(x); }
}
