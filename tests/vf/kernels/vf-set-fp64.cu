/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// vf-set-fp64.cu: set_fp64's image: Base::bar uses double.
#include "vf-base.cuh"

__device__ int Base::bar(int x) { double d = x; return (int)(d * 2.5); }
