/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
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

// ---- the launch checks (sx-adapter-cts-launch.c); none uses a barrier.
// CUDA has no global offsets: the adapter refuses them (a SKIP).
__global__ void sx_cts_local(int *out, int v, size_t tmp_off)
{
    extern __shared__ char smem[];
    int *tmp = (int *)(smem + tmp_off);
    unsigned l = threadIdx.x, g = blockIdx.x * blockDim.x + l;
    tmp[l] = (int)g * v;
    out[g] = tmp[l] + 1;
}

struct sx_cts_pair {
    int i;
    float f;
};

__global__ void sx_cts_scalars(float *out, float f, sx_cts_pair s, char c, long long l)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    out[g] = (float)g * f + (float)s.i + s.f + (float)c + (float)l;
}

__global__ void sx_cts_double(double *out, double d)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    out[g] = (double)g * d + 0.25;
}

__global__ void sx_cts_nd(int *out)
{
    size_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y,
           z = blockIdx.z * blockDim.z + threadIdx.z;
    size_t i = (z * gridDim.y * blockDim.y + y) * gridDim.x * blockDim.x + x;
    out[2 * i] = (int)(x + 100 * y + 10000 * z);
    out[2 * i + 1] = (int)(threadIdx.x + 4 * threadIdx.y + 16 * threadIdx.z +
                           64 * (blockIdx.x + 4 * blockIdx.y + 16 * blockIdx.z));
}
}
