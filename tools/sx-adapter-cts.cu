// sx-adapter-cts.cu: sx-adapter-cts.cl's kernels in CUDA, for the CUDA
// adapter's PTX/cubin images (proptool -o cts.sximg cts.spv --ptx cts.ptx:
// the PTX takes the SPIR-V image's signatures). Work-group memory arrives
// as a byte offset into dynamic shared memory (doc/adapters.md).
#include <stddef.h>

extern "C" {
__device__ int sx_cts_global[4] = {1, 2, 3, 4};
__device__ int sx_cts_out[64];

__global__ void sx_cts_args(int *out, int v, size_t tmp_off)
{
    extern __shared__ char smem[];
    int *tmp = (int *)(smem + tmp_off);
    unsigned l = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + l;
    tmp[l] = (int)g * v;
    __syncthreads();
    out[g] = tmp[n - 1 - l] + 1;
}

__global__ void sx_cts_global_get(int *out)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    out[g] = sx_cts_global[g];
}

__global__ void sx_cts_args_global(int v, size_t tmp_off)
{
    extern __shared__ char smem[];
    int *tmp = (int *)(smem + tmp_off);
    unsigned l = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + l;
    tmp[l] = (int)g * v;
    __syncthreads();
    sx_cts_out[g] = tmp[n - 1 - l] + 1;
}
}
