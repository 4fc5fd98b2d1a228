/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// vf-kernels.cu: the kernel image for CUDA: "construct" makes the object
// (its vtable points at foo and bar, defined in the set images), "use"
// and "use_fp64" call them through it.
#include <new>
#include "vf-base.cuh"

__device__ void Base::key() {}

// Storage, not a Base: __device__ variables cannot have constructors.
__device__ alignas(Base) unsigned char obj[sizeof(Base)];

extern "C" {
__device__ int result;
__global__ void construct() { new (obj) Base; }
__global__ void use(int x) { result = reinterpret_cast<Base *>(obj)->foo(x); }
__global__ void use_fp64(int x) { result = reinterpret_cast<Base *>(obj)->bar(x); }
}
