/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-vs-pocl.cl: the kernels of bench/native-vs-pocl, built from this
 * source by the OpenCL driver and, through SPIR-V and proptool's work-group
 * compiler, for the native adapter. */
kernel void saxpy(float a, global const float *x, global float *y)
{ size_t i = get_global_id(0); y[i] = a * x[i] + y[i]; }
kernel void reduce(global const float *in, global float *out, local float *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (l < s) tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0) out[get_group_id(0)] = tmp[0];
}
kernel void matmul(global const float *A, global const float *B, global float *C, int N)
{
    local float ta[16][16], tb[16][16];
    int lx = get_local_id(0), ly = get_local_id(1), gx = get_global_id(0), gy = get_global_id(1);
    float acc = 0;
    for (int t = 0; t < N / 16; t++) {
        ta[ly][lx] = A[gy * N + t * 16 + lx];
        tb[ly][lx] = B[(t * 16 + ly) * N + gx];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 16; k++) acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[gy * N + gx] = acc;
}
kernel void smooth(global float *data, int iters, local float *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
    for (int it = 0; it < iters; it++) {
        tmp[l] = data[g];
        barrier(CLK_LOCAL_MEM_FENCE);
        data[g] = 0.5f * (tmp[l] + tmp[l + 1 == n ? 0 : l + 1]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
kernel void expsin(global const float *x, global const float *w, global float *y)
{ size_t i = get_global_id(0); float v = x[i]; y[i] = exp(-v) * sin(3.0f * v) + pow(v, w[i]); }
