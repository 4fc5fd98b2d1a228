/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* promote.cl: loops that store to one address in every iteration, read by
   promote.sh on native and on Intel's CPU runtime (issue 28). sx-wgc moves
   such a store after the loop when a run-time check finds it aliases none
   of the loop's loads; the kernels here take their pointers from one
   buffer at an offset, so the check must fail (and the original loop run)
   where they overlap. Each work-item writes only what it alone reads (a
   column of its own), so the overlapping runs are race-free and have one
   answer. covar and corr are PolyBench-ACC's covariance and correlation
   kernels (datamining/covariance, datamining/correlation, OpenCL), with
   their two buffers as parts of one. */

/* a column per work-item: its element in row off + x accumulates rows
   0..n-1 of it (one of them when off + x < n). The address moves by a row
   and one element from work-item to work-item: the lanes' stores are a
   scatter (one element apart they would be a vector, which needs no copy) */
kernel void col_self(global float *buf, int n, int off)
{
    int x = get_global_id(0), w = get_global_size(0);
    buf[(off + x) * w + x] = 1.0f;
    for (int i = 0; i < n; i++)
        buf[(off + x) * w + x] += buf[i * w + x] * 0.25f;
}

/* the same walking down, in size_t arithmetic */
kernel void col_down(global float *buf, int n, int off)
{
    size_t x = get_global_id(0), w = get_global_size(0);
    for (int i = n - 1; i >= 0; i--)
        buf[(off + x) * w + x] += buf[i * w + x] * 0.5f - 1.0f;
}

/* triangular, as covariance: for j2 from j1 on (a loop made uniform),
   row off + j2 of column j1 accumulates rows 0..n-1 of it */
kernel void tri_self(global float *buf, int m, int n, int off)
{
    int j1 = get_global_id(0), w = get_global_size(0);
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            buf[(off + j2) * w + j1] = 0.5f;
            for (int i = 0; i < n; i++)
                buf[(off + j2) * w + j1] += buf[i * w + j1] * 0.25f;
        }
    }
}

/* PolyBench's covar_kernel, symmat at float off of the buffer, data at 0 */
kernel void covar(global float *buf, int m, int n, int off)
{
    global float *symmat = buf + off, *data = buf;
    int j1 = get_global_id(0);
    int i, j2;
    if (j1 < m) {
        for (j2 = j1; j2 < m; j2++) {
            symmat[j1 * m + j2] = 0.0f;
            for (i = 0; i < n; i++)
                symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
            symmat[j2 * m + j1] = symmat[j1 * m + j2];
        }
    }
}

/* PolyBench's corr_kernel: from j1 + 1, accumulating onto what symmat held */
kernel void corr(global float *symmat, global const float *data, int m, int n)
{
    int j1 = get_global_id(0);
    int i, j2;
    if (j1 < (m - 1)) {
        symmat[j1 * m + j1] = 1.0f;
        for (j2 = (j1 + 1); j2 < m; j2++) {
            for (i = 0; i < n; i++)
                symmat[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
            symmat[j2 * m + j1] = symmat[j1 * m + j2];
        }
    }
}

/* PolyBench's syrk_kernel (two dimensions; its c[i * nj + j] is one
   vector of the lanes: left to vectorize.cpp) */
kernel void syrk(global const float *a, global float *c, float alpha, float beta, int ni, int nj)
{
    int j = get_global_id(0);
    int i = get_global_id(1);
    if ((i < nj) && (j < nj)) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < ni; k++)
            c[i * nj + j] += alpha * a[i * ni + k] * a[j * ni + k];
    }
}
