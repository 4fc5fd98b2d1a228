/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* corpus.c: the native device against the CPU OpenCL drivers (PoCL,
 * Intel's CPU runtime) on public benchmark kernels nobody here wrote:
 * PolyBench/GPU 1.0's OpenCL kernels (PolyBench-ACC,
 * https://github.com/cavazos-lab/PolyBench-ACC, directory OpenCL/). Their
 * sources are not part of this tree: give a checkout of that repository
 * (--polybench DIR, or SX_BENCH_POLYBENCH). Every kernel's .cl file goes
 * unchanged to the OpenCL drivers, and through clang-14 -> SPIR-V ->
 * proptool --native (the work-group compiler) to the native device. One
 * process, alternating rounds (the sides' order turning each round; a
 * side's time in a round is its best of three launches, each on reset
 * buffers); after each round every side's outputs are compared with a C reference of the kernel (below, one per
 * kernel, written from PolyBench's own sequential code). Inputs are small
 * integers, so most results are exact whatever the order of operations.
 *
 *   bench/corpus [--rounds N] [--polybench DIR] [--only KERNEL[,KERNEL]...] [--platform NAME]...
 *
 * Prints per kernel the median of the per-round ratios native/side with
 * their range, then the geometric means. Run from the build tree
 * (SX_TEST_BUILDDIR and SX_NATIVE_BUILTINS as make check sets, CLANG and
 * LLVM_SPIRV, or clang-14 and llvm-spirv-14 on PATH). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sycl-ext/sx.h>

#include "../tests/util/sxt.h"
#include "bench.h"
#include "cl-sides.h"

#define DIE(...) cls_die(__VA_ARGS__)
#define MAXB 6
#define MAXA 10

typedef struct {
    char kind;  /* 'b' buffer (index into the case's buffers), 'i' int, 'f' float */
    int v;
    float f;
} carg;

typedef struct ccase ccase;
struct ccase {
    const char *file;    /* under DIR/OpenCL/ */
    const char *kernel;
    int dims;
    size_t g[2], l[2];   /* global size already a multiple of the local one */
    int nbuf;
    size_t n[MAXB];      /* elements (float) of each buffer */
    int nargs;
    carg a[MAXA];
    void (*ref)(float **b, const carg *a);  /* the kernel on the host, in place */
};

#define B(i) {'b', i, 0}
#define I(x) {'i', x, 0}
#define F(x) {'f', 0, x}
#define IA(k) (a[k].v)
#define FA(k) (a[k].f)

/* ---- C references (PolyBench's sequential loops, work-item by work-item) */
static void r_gemm(float **b, const carg *a)
{
    float *A = b[0], *Bm = b[1], *C = b[2], alpha = FA(3), beta = FA(4);
    int ni = IA(5), nj = IA(6), nk = IA(7);
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++) {
            C[i * nj + j] *= beta;
            for (int k = 0; k < nk; k++)
                C[i * nj + j] += alpha * A[i * nk + k] * Bm[k * nj + j];
        }
}
static void r_mm2_1(float **b, const carg *a)
{
    float *tmp = b[0], *A = b[1], *Bm = b[2], alpha = FA(7);
    int ni = IA(3), nj = IA(4), nk = IA(5);
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++) {
            tmp[i * nj + j] = 0;
            for (int k = 0; k < nk; k++)
                tmp[i * nj + j] += alpha * A[i * nk + k] * Bm[k * nj + j];
        }
}
static void r_mm2_2(float **b, const carg *a)
{
    float *tmp = b[0], *C = b[1], *D = b[2], beta = FA(8);
    int ni = IA(3), nj = IA(4), nl = IA(6);
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nl; j++) {
            D[i * nl + j] *= beta;
            for (int k = 0; k < nj; k++)
                D[i * nl + j] += tmp[i * nj + k] * C[k * nl + j];
        }
}
static void r_mm3_1(float **b, const carg *a)
{
    float *A = b[0], *Bm = b[1], *E = b[2];
    int ni = IA(3), nj = IA(4), nk = IA(5);
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++) {
            E[i * nj + j] = 0;
            for (int k = 0; k < nk; k++)
                E[i * nj + j] += A[i * nk + k] * Bm[k * nj + j];
        }
}
static void r_atax1(float **b, const carg *a)
{
    float *A = b[0], *x = b[1], *tmp = b[2];
    int nx = IA(3), ny = IA(4);
    for (int i = 0; i < nx; i++)
        for (int j = 0; j < ny; j++)
            tmp[i] += A[i * ny + j] * x[j];
}
static void r_atax2(float **b, const carg *a)
{
    float *A = b[0], *y = b[1], *tmp = b[2];
    int nx = IA(3), ny = IA(4);
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            y[j] += A[i * ny + j] * tmp[i];
}
static void r_bicg1(float **b, const carg *a)
{
    float *A = b[0], *p = b[1], *q = b[2];
    int nx = IA(3), ny = IA(4);
    for (int i = 0; i < nx; i++) {
        q[i] = 0;
        for (int j = 0; j < ny; j++)
            q[i] += A[i * ny + j] * p[j];
    }
}
static void r_bicg2(float **b, const carg *a)
{
    float *A = b[0], *r = b[1], *s = b[2];
    int nx = IA(3), ny = IA(4);
    for (int j = 0; j < ny; j++) {
        s[j] = 0;
        for (int i = 0; i < nx; i++)
            s[j] += A[i * ny + j] * r[i];
    }
}
static void r_gesummv(float **b, const carg *a)
{
    float *A = b[0], *Bm = b[1], *x = b[2], *y = b[3], *tmp = b[4], alpha = FA(5), beta = FA(6);
    int n = IA(7);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            tmp[i] += A[i * n + j] * x[j];
            y[i] += Bm[i * n + j] * x[j];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}
static void r_mvt1(float **b, const carg *a)
{
    float *A = b[0], *x1 = b[1], *y1 = b[2];
    int n = IA(3);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x1[i] += A[i * n + j] * y1[j];
}
static void r_mvt2(float **b, const carg *a)
{
    float *A = b[0], *x2 = b[1], *y2 = b[2];
    int n = IA(3);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            x2[i] += A[j * n + i] * y2[j];
}
static void r_syrk(float **b, const carg *a)
{
    float *A = b[0], *C = b[1], alpha = FA(2), beta = FA(3);
    int ni = IA(4), nj = IA(5);
    for (int i = 0; i < nj; i++)
        for (int j = 0; j < nj; j++) {
            C[i * nj + j] *= beta;
            for (int k = 0; k < ni; k++)
                C[i * nj + j] += alpha * A[i * ni + k] * A[j * ni + k];
        }
}
static void r_syr2k(float **b, const carg *a)
{
    float *A = b[0], *Bm = b[1], *C = b[2], alpha = FA(3), beta = FA(4);
    int ni = IA(5), nj = IA(6);
    for (int i = 0; i < nj; i++)
        for (int j = 0; j < nj; j++) {
            C[i * nj + j] *= beta;
            for (int k = 0; k < ni; k++)
                C[i * nj + j] += alpha * A[i * ni + k] * Bm[j * ni + k] + alpha * Bm[i * ni + k] * A[j * ni + k];
        }
}
static void r_gemver1(float **b, const carg *a)
{
    float *A = b[0], *V1 = b[1], *V2 = b[2], *U1 = b[3], *U2 = b[4];
    int n = IA(5);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i * n + j] += U1[i] * V1[j] + U2[i] * V2[j];
}
static void r_gemver2(float **b, const carg *a)
{
    float *A = b[0], *X = b[1], *Y = b[2], *Z = b[3], beta = FA(4);
    int n = IA(5);
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            X[i] += beta * A[j * n + i] * Y[j];
        X[i] += Z[i];
    }
}
static void r_gemver3(float **b, const carg *a)
{
    float *A = b[0], *X = b[1], *w = b[2], alpha = FA(3);
    int n = IA(4);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            w[i] += alpha * A[i * n + j] * X[j];
}
static void r_mean(float **b, const carg *a)
{
    float *mean = b[0], *data = b[1], fn = FA(2);
    int m = IA(3), n = IA(4);
    for (int j = 0; j < m; j++) {
        mean[j] = 0;
        for (int i = 0; i < n; i++)
            mean[j] += data[i * m + j];
        mean[j] /= fn;
    }
}
static void r_cov_reduce(float **b, const carg *a)
{
    float *mean = b[0], *data = b[1];
    int m = IA(2), n = IA(3);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i * m + j] -= mean[j];
}
static void r_covar(float **b, const carg *a)
{
    float *sym = b[0], *data = b[1];
    int m = IA(2), n = IA(3);
    for (int j1 = 0; j1 < m; j1++)
        for (int j2 = j1; j2 < m; j2++) {
            sym[j1 * m + j2] = 0;
            for (int i = 0; i < n; i++)
                sym[j1 * m + j2] += data[i * m + j1] * data[i * m + j2];
            sym[j2 * m + j1] = sym[j1 * m + j2];
        }
}
static void r_std(float **b, const carg *a)
{
    float *mean = b[0], *std = b[1], *data = b[2], fn = FA(3), eps = FA(4);
    int m = IA(5), n = IA(6);
    for (int j = 0; j < m; j++) {
        std[j] = 0;
        for (int i = 0; i < n; i++)
            std[j] += (data[i * m + j] - mean[j]) * (data[i * m + j] - mean[j]);
        std[j] /= fn;
        std[j] = sqrtf(std[j]);
        if (std[j] <= eps)
            std[j] = 1.0f;
    }
}
static void r_doitgen1(float **b, const carg *a)
{
    int nq = IA(1), np = IA(2), r = IA(6);
    float *A = b[0], *C4 = b[1], *sum = b[2];
    for (int q = 0; q < nq; q++)
        for (int p = 0; p < np; p++) {
            float *s = &sum[r * (nq * np) + q * np + p];
            *s = 0;
            for (int k = 0; k < np; k++)
                *s = *s + A[r * (nq * np) + q * np + k] * C4[k * np + p];
        }
}
static void r_conv2d(float **b, const carg *a)
{
    float *A = b[0], *Bm = b[1];
    int ni = IA(2), nj = IA(3);
    float c11 = +0.2f, c21 = +0.5f, c31 = -0.8f, c12 = -0.3f, c22 = +0.6f, c32 = -0.9f, c13 = +0.4f, c23 = +0.7f,
          c33 = +0.10f;
    for (int i = 1; i < ni - 1; i++)
        for (int j = 1; j < nj - 1; j++)
            Bm[i * nj + j] = c11 * A[(i - 1) * nj + (j - 1)] + c21 * A[(i - 1) * nj + (j + 0)] +
                             c31 * A[(i - 1) * nj + (j + 1)] + c12 * A[(i + 0) * nj + (j - 1)] +
                             c22 * A[(i + 0) * nj + (j + 0)] + c32 * A[(i + 0) * nj + (j + 1)] +
                             c13 * A[(i + 1) * nj + (j - 1)] + c23 * A[(i + 1) * nj + (j + 0)] +
                             c33 * A[(i + 1) * nj + (j + 1)];
}
static void r_jacobi1(float **b, const carg *a)
{
    float *A = b[0], *Bm = b[1];
    int n = IA(2);
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            Bm[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + (j - 1)] + A[i * n + (1 + j)] + A[(1 + i) * n + j] +
                                    A[(i - 1) * n + j]);
}
static void r_fdtd2(float **b, const carg *a)
{
    float *ex = b[0], *hz = b[2];
    int nx = IA(3), ny = IA(4);
    for (int i = 0; i < nx; i++)
        for (int j = 1; j < ny; j++)
            ex[i * ny + j] = (float)(ex[i * ny + j] - 0.5 * (hz[i * ny + j] - hz[i * ny + (j - 1)]));
}
static void r_fdtd3(float **b, const carg *a)
{
    float *ex = b[0], *ey = b[1], *hz = b[2];
    int nx = IA(3), ny = IA(4);
    for (int i = 0; i < nx - 1; i++)
        for (int j = 0; j < ny - 1; j++)
            hz[i * ny + j] = (float)(hz[i * ny + j] -
                                     0.7 * (ex[i * ny + (j + 1)] - ex[i * ny + j] + ey[(i + 1) * ny + j] - ey[i * ny + j]));
}

/* ---- the corpus: PolyBench/GPU's problem shapes, local sizes as its hosts use (32 x 8, 256) */
#define N3 256   /* O(n^3) kernels */
#define N2 2048  /* O(n^2) kernels */
#define NN(n) ((size_t)(n) * (n))
static const ccase corpus[] = {
    {"linear-algebra/kernels/gemm/gemm.cl", "gemm", 2, {N3, N3}, {32, 8}, 3, {NN(N3), NN(N3), NN(N3)}, 8,
     {B(0), B(1), B(2), F(2), F(1), I(N3), I(N3), I(N3)}, r_gemm},
    {"linear-algebra/kernels/2mm/2mm.cl", "mm2_kernel1", 2, {N3, N3}, {32, 8}, 3, {NN(N3), NN(N3), NN(N3)}, 9,
     {B(0), B(1), B(2), I(N3), I(N3), I(N3), I(N3), F(2), F(1)}, r_mm2_1},
    {"linear-algebra/kernels/2mm/2mm.cl", "mm2_kernel2", 2, {N3, N3}, {32, 8}, 3, {NN(N3), NN(N3), NN(N3)}, 9,
     {B(0), B(1), B(2), I(N3), I(N3), I(N3), I(N3), F(2), F(1)}, r_mm2_2},
    {"linear-algebra/kernels/3mm/3mm.cl", "mm3_kernel1", 2, {N3, N3}, {32, 8}, 3, {NN(N3), NN(N3), NN(N3)}, 6,
     {B(0), B(1), B(2), I(N3), I(N3), I(N3)}, r_mm3_1},
    {"linear-algebra/kernels/syrk/syrk.cl", "syrk_kernel", 2, {N3, N3}, {32, 8}, 2, {NN(N3), NN(N3)}, 6,
     {B(0), B(1), F(1), F(2), I(N3), I(N3)}, r_syrk},
    {"linear-algebra/kernels/syr2k/syr2k.cl", "syr2k_kernel", 2, {N3, N3}, {32, 8}, 3, {NN(N3), NN(N3), NN(N3)}, 7,
     {B(0), B(1), B(2), F(1), F(2), I(N3), I(N3)}, r_syr2k},
    {"datamining/covariance/covariance.cl", "covar_kernel", 1, {N3, 1}, {256, 1}, 2, {NN(N3), NN(N3)}, 4,
     {B(0), B(1), I(N3), I(N3)}, r_covar},
    {"linear-algebra/kernels/doitgen/doitgen.cl", "doitgen_kernel1", 2, {128, 128}, {32, 8}, 3,
     {128 * 128 * 4, 128 * 128, 128 * 128 * 4}, 7, {I(4), I(128), I(128), B(0), B(1), B(2), I(2)}, r_doitgen1},
    {"linear-algebra/kernels/atax/atax.cl", "atax_kernel1", 1, {N2, 1}, {256, 1}, 3, {NN(N2), N2, N2}, 5,
     {B(0), B(1), B(2), I(N2), I(N2)}, r_atax1},
    {"linear-algebra/kernels/atax/atax.cl", "atax_kernel2", 1, {N2, 1}, {256, 1}, 3, {NN(N2), N2, N2}, 5,
     {B(0), B(1), B(2), I(N2), I(N2)}, r_atax2},
    {"linear-algebra/kernels/bicg/bicg.cl", "bicgKernel1", 1, {N2, 1}, {256, 1}, 3, {NN(N2), N2, N2}, 5,
     {B(0), B(1), B(2), I(N2), I(N2)}, r_bicg1},
    {"linear-algebra/kernels/bicg/bicg.cl", "bicgKernel2", 1, {N2, 1}, {256, 1}, 3, {NN(N2), N2, N2}, 5,
     {B(0), B(1), B(2), I(N2), I(N2)}, r_bicg2},
    {"linear-algebra/kernels/gesummv/gesummv.cl", "gesummv_kernel", 1, {N2, 1}, {256, 1}, 5,
     {NN(N2), NN(N2), N2, N2, N2}, 8, {B(0), B(1), B(2), B(3), B(4), F(2), F(1), I(N2)}, r_gesummv},
    {"linear-algebra/kernels/mvt/mvt.cl", "mvt_kernel1", 1, {N2, 1}, {256, 1}, 3, {NN(N2), N2, N2}, 4,
     {B(0), B(1), B(2), I(N2)}, r_mvt1},
    {"linear-algebra/kernels/mvt/mvt.cl", "mvt_kernel2", 1, {N2, 1}, {256, 1}, 3, {NN(N2), N2, N2}, 4,
     {B(0), B(1), B(2), I(N2)}, r_mvt2},
    {"linear-algebra/kernels/gemver/gemver.cl", "gemver_kernel1", 2, {N2, N2}, {32, 8}, 5, {NN(N2), N2, N2, N2, N2},
     6, {B(0), B(1), B(2), B(3), B(4), I(N2)}, r_gemver1},
    {"linear-algebra/kernels/gemver/gemver.cl", "gemver_kernel2", 1, {N2, 1}, {256, 1}, 4, {NN(N2), N2, N2, N2}, 6,
     {B(0), B(1), B(2), B(3), F(2), I(N2)}, r_gemver2},
    {"linear-algebra/kernels/gemver/gemver.cl", "gemver_kernel3", 1, {N2, 1}, {256, 1}, 3, {NN(N2), N2, N2}, 5,
     {B(0), B(1), B(2), F(1), I(N2)}, r_gemver3},
    {"datamining/covariance/covariance.cl", "mean_kernel", 1, {N2, 1}, {256, 1}, 2, {N2, NN(N2)}, 5,
     {B(0), B(1), F(4), I(N2), I(N2)}, r_mean},
    {"datamining/covariance/covariance.cl", "reduce_kernel", 2, {N2, N2}, {32, 8}, 2, {N2, NN(N2)}, 4,
     {B(0), B(1), I(N2), I(N2)}, r_cov_reduce},
    {"datamining/correlation/correlation.cl", "std_kernel", 1, {N2, 1}, {256, 1}, 3, {N2, N2, NN(N2)}, 7,
     {B(0), B(1), B(2), F(4), F(0.005f), I(N2), I(N2)}, r_std},
    {"stencils/convolution-2d/2DConvolution.cl", "Convolution2D_kernel", 2, {N2, N2}, {32, 8}, 2, {NN(N2), NN(N2)}, 4,
     {B(0), B(1), I(N2), I(N2)}, r_conv2d},
    {"stencils/jacobi-2d-imper/jacobi2D.cl", "runJacobi2D_kernel1", 2, {N2, N2}, {32, 8}, 2, {NN(N2), NN(N2)}, 3,
     {B(0), B(1), I(N2)}, r_jacobi1},
    {"stencils/fdtd-2d/fdtd2d.cl", "fdtd_kernel2", 2, {N2, N2}, {32, 8}, 3, {NN(N2), NN(N2), NN(N2)}, 5,
     {B(0), B(1), B(2), I(N2), I(N2)}, r_fdtd2},
    {"stencils/fdtd-2d/fdtd2d.cl", "fdtd_kernel3", 2, {N2, N2}, {32, 8}, 3, {NN(N2), NN(N2), NN(N2)}, 5,
     {B(0), B(1), B(2), I(N2), I(N2)}, r_fdtd3},
};
#define NCASES (sizeof corpus / sizeof *corpus)

/* ---- sides */
static cl_side sides[CLS_MAX];
static int nsides;
static sx_context ctx;
static sx_device dev;
static sx_queue q;
static int rounds = 9;
#define REPS 3 /* launches per side and round; the best counts */

/* Is NAME one of the comma-separated LIST? */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

/* The native variant of DIR/OpenCL/FILE: built once into the build tree. */
static char *native_image(const char *dir, const char *file)
{
    const char *b = getenv("SX_TEST_BUILDDIR");
    const char *clang = getenv("CLANG"), *spirv = getenv("LLVM_SPIRV");
    char base[256], out[4096], cmd[16384];
    snprintf(base, sizeof base, "%s", strrchr(file, '/') ? strrchr(file, '/') + 1 : file);
    *strrchr(base, '.') = 0;
    snprintf(out, sizeof out, "%s/bench/corpus-images", b ? b : ".");
    mkdir(out, 0777);
    snprintf(out, sizeof out, "%s/bench/corpus-images/%s.sximg", b ? b : ".", base);
    snprintf(cmd, sizeof cmd,
             "set -e; cd '%s/bench/corpus-images'; %s -target spir64 -cl-std=CL1.2 -O2 -c -emit-llvm -Xclang "
             "-finclude-default-header '%s/OpenCL/%s' -o '%s.bc'; %s '%s.bc' -o '%s.spv'; "
             "'%s/proptool/proptool' -q --native -o '%s.sximg' '%s.spv'",
             b ? b : ".", clang && *clang ? clang : "clang-14", dir, file, base, spirv && *spirv ? spirv : "llvm-spirv-14",
             base, base, b ? b : ".", base, base);
    /* kept while newer than the source and the work-group compiler */
    char src[4096], wgc[4096];
    struct stat so, ss, sw;
    snprintf(src, sizeof src, "%s/OpenCL/%s", dir, file);
    snprintf(wgc, sizeof wgc, "%s/proptool/sx-wgc", b ? b : ".");
    if (stat(out, &so) == 0 && stat(src, &ss) == 0 && stat(wgc, &sw) == 0 && so.st_mtime > ss.st_mtime &&
        so.st_mtime > sw.st_mtime)
        return strdup(out);
    if (system(cmd) != 0)
        DIE("cannot build the native variant of %s/OpenCL/%s:\n  %s", dir, file, cmd);
    return strdup(out);
}

static double ratios[NCASES][CLS_MAX];

static void run_case(const ccase *c, size_t ci, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/OpenCL/%s", dir, c->file);
    size_t srclen;
    char *src = sxt_read_file(path, &srclen);
    if (!src)
        DIE("cannot read %s (--polybench DIR: a checkout of PolyBench-ACC)", path);
    char *img = native_image(dir, c->file);
    sx_image_file file;
    CHECK(sx_image_file_load(img, &file));
    sx_kernel k;
    CHECK(sx_kernel_get(c->kernel, &k));
    cl_program prog[CLS_MAX];
    cl_kernel ck[CLS_MAX];
    for (int s = 0; s < nsides; s++) {
        prog[s] = cls_build(&sides[s], src, "");
        ck[s] = cls_kernel(prog[s], c->kernel);
    }
    /* buffers: the pristine inputs, the expected outputs, the native (USM) and each side's */
    float *init[MAXB], *want[MAXB], *nat[MAXB], *cb[CLS_MAX][MAXB];
    cl_mem mem[CLS_MAX][MAXB];
    for (int i = 0; i < c->nbuf; i++) {
        size_t bytes = c->n[i] * 4;
        init[i] = cls_host_alloc(bytes);
        want[i] = cls_host_alloc(bytes);
        for (size_t e = 0; e < c->n[i]; e++)
            init[i][e] = (float)((int)((e * 7 + (size_t)i * 3) % 5) - 2);
        memcpy(want[i], init[i], bytes);
        CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, bytes, 64, (void **)&nat[i]));
        for (int s = 0; s < nsides; s++) {
            cb[s][i] = cls_host_alloc(bytes);
            mem[s][i] = cls_buffer(&sides[s], cb[s][i], bytes);
        }
    }
    c->ref(want, c->a);
    sx_arg sa[MAXA];
    for (int i = 0; i < c->nargs; i++) {
        const carg *x = &c->a[i];
        if (x->kind == 'b')
            sa[i] = (sx_arg){SX_ARG_POINTER, (uint32_t)i, sizeof(void *), nat[x->v]};
        else
            sa[i] = (sx_arg){SX_ARG_VALUE, (uint32_t)i, 4, x->kind == 'i' ? (const void *)&x->v : (const void *)&x->f};
        for (int s = 0; s < nsides; s++) {
            if (x->kind == 'b')
                CLS(clSetKernelArg(ck[s], (cl_uint)i, sizeof(cl_mem), &mem[s][x->v]));
            else
                CLS(clSetKernelArg(ck[s], (cl_uint)i, 4, x->kind == 'i' ? (const void *)&x->v : (const void *)&x->f));
        }
    }
    double tn[256], tc[CLS_MAX][256];
    for (int r = -1; r < rounds; r++) {  /* round -1 warms every side up */
        /* The sides' order turns each round; a side's time in a round is
         * its best of REPS launches, each on freshly reset buffers (one
         * launch of a few ms on a shared machine is mostly noise). */
        for (int o = 0; o <= nsides; o++) {
            int s = (o + (r < 0 ? 0 : r)) % (nsides + 1) - 1; /* -1: native */
            double best = 0;
            for (int rep = 0; rep < REPS; rep++) {
                for (int i = 0; i < c->nbuf; i++)
                    memcpy(s < 0 ? nat[i] : cb[s][i], init[i], c->n[i] * 4);
                double t;
                if (s < 0) {
                    double t0 = bench_now();
                    CHECK(sx_queue_launch(q, k, (uint32_t)c->dims, NULL, c->g, c->l, (uint32_t)c->nargs, sa, 0,
                                          NULL, NULL));
                    CHECK(sx_queue_wait(q));
                    t = bench_now() - t0;
                } else {
                    t = cls_run(&sides[s], ck[s], (cl_uint)c->dims, c->g, c->l);
                }
                if (rep == 0 || t < best)
                    best = t;
            }
            if (r >= 0)
                *(s < 0 ? &tn[r] : &tc[s][r]) = best;
        }
        for (int i = 0; i < c->nbuf; i++)
            for (int s = -1; s < nsides; s++) {
                const float *got = s < 0 ? nat[i] : cb[s][i];
                if (s >= 0)
                    cls_sync(&sides[s], mem[s][i], c->n[i] * 4);
                for (size_t e = 0; e < c->n[i]; e++)
                    if (!(fabsf(got[e] - want[i][e]) <= 1e-4f * (1.0f + fabsf(want[i][e]))))
                        DIE("%s: %s round %d: buffer %d element %zu is %.9g, expected %.9g", c->kernel,
                            s < 0 ? "native" : sides[s].label, r, i, e, got[e], want[i][e]);
            }
    }
    double n[256];
    memcpy(n, tn, sizeof(double) * (size_t)rounds);
    qsort(n, (size_t)rounds, sizeof(double), bench_cmp_double);
    printf("%-22s native %9.3f ms", c->kernel, n[rounds / 2] * 1e3);
    for (int s = 0; s < nsides; s++) {
        double rr[256], cc[256];
        for (int i = 0; i < rounds; i++) {
            rr[i] = tn[i] / tc[s][i];
            cc[i] = tc[s][i];
        }
        qsort(rr, (size_t)rounds, sizeof(double), bench_cmp_double);
        qsort(cc, (size_t)rounds, sizeof(double), bench_cmp_double);
        ratios[ci][s] = rr[rounds / 2];
        printf("  | %s %9.3f ms  native/%s %6.3f [%.3f .. %.3f]", sides[s].label, cc[rounds / 2] * 1e3,
               sides[s].label, rr[rounds / 2], rr[0], rr[rounds - 1]);
    }
    printf("\n");
    fflush(stdout);
    for (int i = 0; i < c->nbuf; i++) {
        CHECK(sx_usm_free(ctx, nat[i]));
        for (int s = 0; s < nsides; s++) {
            p_clReleaseMemObject(mem[s][i]);
            free(cb[s][i]);
        }
        free(init[i]);
        free(want[i]);
    }
    for (int s = 0; s < nsides; s++) {
        p_clReleaseKernel(ck[s]);
        p_clReleaseProgram(prog[s]);
    }
    CHECK(sx_kernel_release(k));
    CHECK(sx_image_file_release(file));
    free(img);
    free(src);
}

int main(int argc, char **argv)
{
    const char *wants[CLS_MAX], *dir = getenv("SX_BENCH_POLYBENCH"), *only = NULL;
    int nwants = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc && nwants < CLS_MAX)
            wants[nwants++] = argv[++i];
        else if (strcmp(argv[i], "--polybench") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else
            DIE("usage: %s [--rounds N] [--polybench DIR] [--only KERNEL[,KERNEL]...] [--platform NAME]...", argv[0]);
    }
    if (rounds < 1 || rounds > 256)
        DIE("--rounds: 1 to 256");
    if (!dir) {
        fprintf(stderr, "SKIP: no PolyBench-ACC checkout (--polybench DIR or SX_BENCH_POLYBENCH; "
                        "https://github.com/cavazos-lab/PolyBench-ACC)\n");
        return 77;
    }
    if (!nwants) {
        wants[nwants++] = "Portable Computing Language";
        wants[nwants++] = "Intel(R) OpenCL";
    }
    nsides = cls_open(wants, nwants, sides);
    CHECK(sx_init(SX_INIT_DEFAULT));
    dev = bench_native_device();
    if (!dev)
        DIE("no native device");
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    printf("PolyBench/GPU kernels (%s): native (table %s)", dir,
           getenv("SX_NATIVE_WG_TABLE") ? getenv("SX_NATIVE_WG_TABLE") : "the CPU's best");
    for (int s = 0; s < nsides; s++)
        printf(" vs %s (%s: %s)", sides[s].label, sides[s].platform, sides[s].device);
    printf(", %d alternating rounds, every result checked; median of per-round ratios [range]\n", rounds);
    size_t ran = 0;
    bool did[NCASES] = {false};
    for (size_t i = 0; i < NCASES; i++) {
        if (only && !listed(only, corpus[i].kernel))
            continue;
        run_case(&corpus[i], i, dir);
        did[i] = true;
        ran++;
    }
    for (int s = 0; s < nsides && ran; s++) {
        double lg = 0, worst = 0;
        const char *wk = "";
        for (size_t i = 0; i < NCASES; i++)
            if (did[i]) {
                lg += log(ratios[i][s]);
                if (ratios[i][s] > worst) {
                    worst = ratios[i][s];
                    wk = corpus[i].kernel;
                }
            }
        printf("geomean native/%s over %zu kernels: %.3f (highest %.3f, %s)\n", sides[s].label, ran,
               exp(lg / (double)ran), worst, wk);
    }
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    for (int s = 0; s < nsides; s++)
        cls_close(&sides[s]);
    return 0;
}
