/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// kernels.cu: test kernels for the CUDA adapter (free-function style, C names).
#include <stddef.h>

struct pair_arg {
    int a;
    double b;
};

extern "C" {
__device__ int dg_counter;
__device__ int dg_array[16];

// device_global<int[4]> "uid_usm" as DPC++ lowers it: the program variable
// holds the address of the per-(context, device) USM instance, and its
// name differs from the id ("uid_usm@global_id_mapping").
__device__ int *dg_usm_ptr;
// device_global<int[4], device_image_scope> "dg_scope": the value itself.
__device__ int dg_scope[4];

__global__ void empty_kernel(void) {}

__global__ void dg_read(int *out)
{
    unsigned t = threadIdx.x;
    if (t < 4) {
        out[t] = dg_usm_ptr[t];
        out[4 + t] = dg_scope[t];
    }
}

__global__ void dg_bump(void)
{
    unsigned t = threadIdx.x;
    if (t < 4) {
        dg_usm_ptr[t] += 1;
        dg_scope[t] += 2;
    }
}

// A device function (no kernel: has no parameter records of its own).
__device__ __noinline__ int twice(int v)
{
    return 2 * v;
}

// At most 64 work-items a group: the kernel's limit, below the device's.
__global__ void __launch_bounds__(64) bounded_add(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += twice(1) - 1;
}

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

__global__ void axpy(float *y, const float *x, float a, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void struct_arg(struct pair_arg s, double *out)
{
    out[0] = s.a + s.b;
}

// Work-group memory arrives as byte offsets into dynamic shared memory.
__global__ void local_reverse(int *out, const int *in, size_t tmp_off, size_t scratch_off,
                              unsigned scratch_bytes)
{
    extern __shared__ char smem[];
    int *tmp = (int *)(smem + tmp_off);
    unsigned char *scratch = (unsigned char *)(smem + scratch_off);
    unsigned t = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + t;
    tmp[t] = in[g];
    for (unsigned i = t; i < scratch_bytes; i += n)
        scratch[i] = (unsigned char)i;
    __syncthreads();
    unsigned bad = 0;
    for (unsigned i = t; i < scratch_bytes; i += n)
        bad |= scratch[i] != (unsigned char)i;
    out[g] = bad ? -1 : tmp[n - 1 - t];
}

__global__ void read_globals(int *out)
{
    unsigned t = threadIdx.x;
    if (t < 16)
        out[t] = dg_array[t] + dg_counter;
}

__global__ void bump_counter(void)
{
    atomicAdd(&dg_counter, 1);
}

// Each work-item writes its (z, y, x) id at its linear position.
__global__ void index_3d(int *out)
{
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
    unsigned w = gridDim.x * blockDim.x, h = gridDim.y * blockDim.y;
    out[(z * h + y) * w + x] = (int)((z << 20) | (y << 10) | x);
}

// A free-function nd_range kernel as a SYCL compiler would lower it for
// CUDA: (float *out, const float *in, work_group_memory<float[]> tmp,
// float factor), then the hidden scratch argument; both kinds of local
// memory arrive as offsets into dynamic shared memory.
__global__ void __sycl_kernel_ff_scale(float *out, const float *in, size_t tmp_off, float factor,
                                       size_t scratch_off)
{
    extern __shared__ char smem[];
    float *tmp = (float *)(smem + tmp_off);
    unsigned *scratch = (unsigned *)(smem + scratch_off);
    unsigned t = threadIdx.x, n = blockDim.x, g = blockIdx.x * n + t;
    tmp[t] = in[g] * factor;
    scratch[t] = t;
    __syncthreads();
    unsigned r = n - 1 - t;
    out[g] = tmp[r] + (scratch[r] != r ? 1000.0f : 0.0f);
}

__global__ void atomic_add(unsigned long long *counter, unsigned long long v)
{
    atomicAdd(counter, v);
}
}
