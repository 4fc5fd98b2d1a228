/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// vf-kernels-calls.cu: a kernel image whose kernel calls set_fp64.
#include "vf-base.cuh"

__device__ alignas(Base) unsigned char obj2[sizeof(Base)];

extern "C" {
__device__ int result;
__global__ void call_fp64(int x) { result = reinterpret_cast<Base *>(obj2)->Base::bar(x); }
}
