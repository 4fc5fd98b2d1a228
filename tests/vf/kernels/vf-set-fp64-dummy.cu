/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// vf-set-fp64-dummy.cu: set_fp64's dummy image: the body emptied.
#include "vf-base.cuh"

__device__ int Base::bar(int) { return 0; }
