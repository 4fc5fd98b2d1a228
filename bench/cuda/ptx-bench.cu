/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ptx-bench.cu: the kernels of ptx-bench.cl in CUDA, line for line (nvcc's
 * PTX is the other side of bench/cuda/ptx-vs-nvcc). The __local parameter
 * of reduce is an offset into dynamic shared memory, as the CUDA adapter
 * passes it to either PTX. conv2d and gemm: see ptx-bench.cl. */
#define TILE 16

extern "C" __global__ void saxpy(float *y, const float *x, float a)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = a * x[i] + y[i];
}

extern "C" __global__ void reduce(const float *in, float *out, unsigned off)
{
    extern __shared__ char dyn[];
    float *tmp = (float *)(dyn + off);
    size_t l = threadIdx.x, n = blockDim.x, g = blockIdx.x;
    size_t i = g * n * 2 + l;
    tmp[l] = in[i] + in[i + n];
    __syncthreads();
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] += tmp[l + s];
        __syncthreads();
    }
    if (l == 0)
        out[g] = tmp[0];
}

extern "C" __global__ void matmul(const float *A, const float *B, float *C, int n)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx, row = blockIdx.y * TILE + ty;
    float acc = 0;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = acc;
}

extern "C" __global__ void conv2d(const float *A, float *B, int ni, int nj)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    const float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
    const float c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
    const float c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
    if (i > 0 && j > 0 && i < ni - 1 && j < nj - 1)
        B[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c21 * A[(i - 1) * nj + j] + c31 * A[(i - 1) * nj + (j + 1)] +
                        c12 * A[i * nj + (j - 1)] + c22 * A[i * nj + j] + c32 * A[i * nj + (j + 1)] +
                        c13 * A[(i + 1) * nj + (j - 1)] + c23 * A[(i + 1) * nj + j] + c33 * A[(i + 1) * nj + (j + 1)];
}

extern "C" __global__ void gemm(const float *a, const float *b, float *c, float alpha, float beta, int ni, int nj, int nk)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++)
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
}
