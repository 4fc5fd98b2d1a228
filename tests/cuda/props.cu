/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// props.cu: the CUDA side of props.cl (same names and parameters; local
// pointers become byte offsets into dynamic shared memory).
#include <stddef.h>

extern "C" {
__device__ int *pt_counter_ptr;
__device__ int pt_tile[4] = {1, 2, 3, 4};

__global__ void __sycl_kernel_pt_reverse(int *out, const int *in, size_t tmp_off)
{
    extern __shared__ char smem[];
    int *tmp = (int *)(smem + tmp_off);
    unsigned l = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + l;
    tmp[l] = in[g];
    __syncthreads();
    out[g] = tmp[n - 1 - l];
}

__global__ void __sycl_kernel_pt_add(int v)
{
    atomicAdd(pt_counter_ptr, v);
}

__global__ void __sycl_kernel_pt_globals(int *out)
{
    out[0] = *pt_counter_ptr;
    for (int i = 0; i < 4; i++)
        out[1 + i] = pt_tile[i];
}

__global__ void __sycl_kernel_pt_tile_double(void)
{
    for (int i = 0; i < 4; i++)
        pt_tile[i] *= 2;
}
}
