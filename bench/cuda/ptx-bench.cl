/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ptx-bench.cl: the kernels bench/cuda/ptx-vs-nvcc times through proptool's
 * PTX variant (SPIR-V -> sx-ptx) against nvcc's PTX of ptx-bench.cu, the
 * same kernels in CUDA. conv2d and gemm follow the Convolution2D_kernel and
 * gemm kernels of PolyBench/GPU 1.0 (Grauer-Gray, Pouchet et al., University
 * of Delaware, 2012: OpenCL/2DCONV/2DConvolution.cl, OpenCL/GEMM/gemm.cl),
 * rewritten here with the same loops and coefficients. */
#define TILE 16

__kernel void saxpy(__global float *y, __global const float *x, float a)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

/* one partial sum per work-group: tree reduction in local memory */
__kernel void reduce(__global const float *in, __global float *out, __local float *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0), g = get_group_id(0);
    size_t i = g * n * 2 + l;
    tmp[l] = in[i] + in[i + n];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        out[g] = tmp[0];
}

/* C = A B, n x n, TILE x TILE tiles in kernel-scope __local arrays */
__kernel void matmul(__global const float *A, __global const float *B, __global float *C, int n)
{
    __local float As[TILE][TILE], Bs[TILE][TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_group_id(0) * TILE + tx, row = get_group_id(1) * TILE + ty;
    float acc = 0;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}

/* PolyBench/GPU 2DCONV: a 3x3 stencil with fixed coefficients */
__kernel void conv2d(__global const float *A, __global float *B, int ni, int nj)
{
    int j = get_global_id(0), i = get_global_id(1);
    const float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f;
    const float c12 = -0.3f, c22 = +0.6f, c32 = -0.9f;
    const float c13 = +0.4f, c23 = +0.7f, c33 = +0.10f;
    if (i > 0 && j > 0 && i < ni - 1 && j < nj - 1)
        B[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c21 * A[(i - 1) * nj + j] + c31 * A[(i - 1) * nj + (j + 1)] +
                        c12 * A[i * nj + (j - 1)] + c22 * A[i * nj + j] + c32 * A[i * nj + (j + 1)] +
                        c13 * A[(i + 1) * nj + (j - 1)] + c23 * A[(i + 1) * nj + j] + c33 * A[(i + 1) * nj + (j + 1)];
}

/* PolyBench/GPU GEMM: C = alpha A B + beta C, one work-item per element, no tiling */
__kernel void gemm(__global const float *a, __global const float *b, __global float *c, float alpha, float beta, int ni,
                   int nj, int nk)
{
    int j = get_global_id(0), i = get_global_id(1);
    if (i < ni && j < nj) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++)
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
}
