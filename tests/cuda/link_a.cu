/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// link_a.cu: a kernel calling a device function defined in another image (link_b).
extern "C" {
__device__ int link_helper(int x);
__device__ int link_value;

__global__ void link_kernel(int *out)
{
    out[threadIdx.x] = link_helper((int)threadIdx.x) + link_value;
}
}
