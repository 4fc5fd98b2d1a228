/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ks-run.c: the kernel shapes of shapes.cl on the native device and on
 * PoCL, each checked against a plain C reference computed here. PoCL
 * builds the source with kernel-scope __local arrays (KS_KERNEL_SCOPE);
 * the native device runs it twice: the host build (clang -x cl for x86-64),
 * where the same scratch comes as __local arguments, and, when ks.sh gives
 * KS_SXIMG, the native variant proptool made from the SPIR-V of the
 * kernel-scope source (compiled work-groups, issue 13). exit 77 when the
 * host image is absent. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../native-builtins/two-devices.h"
#include "../../util/sxt.h"

#define WG 256
#define TILE 16

typedef int (*runner)(const char *, unsigned, const td_arg *, unsigned, const size_t *, const size_t *);
static int native;  /* the device being run: its kernels take the scratch as arguments */
static int failures;

static uint32_t seed = 12345;
static uint32_t rnd(void)
{
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
}

static int check(const char *what, const char *dev, int ok)
{
    printf("%-12s %-7s %s\n", what, dev, ok ? "ok" : "WRONG");
    failures += !ok;
    return ok;
}

/* Append a local-memory argument on the native device only. */
static unsigned scratch(td_arg *a, unsigned n, size_t bytes)
{
    if (native)
        a[n++] = (td_arg){TD_LOCAL, bytes, NULL};
    return n;
}

static int near(float x, float y) { return fabsf(x - y) <= 1e-4f * fmaxf(1.0f, fabsf(y)); }

static void scan(runner run, const char *dev)
{
    enum { N = 8 * WG };
    int *in = malloc(N * 4), *out = calloc(N, 4), sums[N / WG] = {0};
    for (int i = 0; i < N; i++)
        in[i] = (int)(rnd() % 1000) - 500;
    td_arg a[4] = {{TD_BUFFER, N * 4, in}, {TD_BUFFER, N * 4, out}, {TD_BUFFER, sizeof(sums), sums}};
    unsigned na = scratch(a, 3, 2 * WG * 4);
    size_t g = N, l = WG;
    int ok = run("ks_scan", na, a, 1, &g, &l) == 0;
    for (int s = 0; ok && s < N / WG; s++) {
        int acc = 0;
        for (int i = 0; i < WG; i++) {
            acc += in[s * WG + i];
            ok = ok && out[s * WG + i] == acc;
        }
        ok = ok && sums[s] == acc;
    }
    check("scan", dev, ok);
    free(in);
    free(out);
}

static int cmp_int(const void *a, const void *b) { return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b); }

static void bitonic(runner run, const char *dev)
{
    enum { N = 4 * WG };
    int *d = malloc(N * 4), *want = malloc(N * 4);
    for (int i = 0; i < N; i++)
        want[i] = d[i] = (int)(rnd() % 100000) - 50000;
    for (int s = 0; s < N / WG; s++)
        qsort(want + s * WG, WG, 4, cmp_int);
    td_arg a[2] = {{TD_BUFFER, N * 4, d}};
    unsigned na = scratch(a, 1, WG * 4);
    size_t g = N, l = WG;
    check("bitonic", dev, run("ks_bitonic", na, a, 1, &g, &l) == 0 && memcmp(d, want, N * 4) == 0);
    free(d);
    free(want);
}

static void gemm(runner run, const char *dev)
{
    enum { N = 64 };
    float *A = malloc(N * N * 4), *B = malloc(N * N * 4), *C = calloc(N * N, 4);
    for (int i = 0; i < N * N; i++) {
        A[i] = (float)(rnd() % 200) / 100.0f - 1.0f;
        B[i] = (float)(rnd() % 200) / 100.0f - 1.0f;
    }
    int n = N;
    td_arg a[6] = {{TD_BUFFER, N * N * 4, A}, {TD_BUFFER, N * N * 4, B}, {TD_BUFFER, N * N * 4, C},
                   {TD_VALUE, 4, &n}};
    unsigned na = scratch(a, 4, TILE * TILE * 4);
    na = scratch(a, na, TILE * TILE * 4);
    size_t g[2] = {N, N}, l[2] = {TILE, TILE};
    int ok = run("ks_gemm", na, a, 2, g, l) == 0;
    for (int r = 0; ok && r < N; r++)
        for (int c = 0; ok && c < N; c++) {
            double s = 0;
            for (int k = 0; k < N; k++)
                s += (double)A[r * N + k] * B[k * N + c];
            ok = fabs(C[r * N + c] - s) <= 1e-4 * fmax(1.0, fabs(s));
        }
    check("gemm", dev, ok);
    free(A);
    free(B);
    free(C);
}

static void transpose(runner run, const char *dev)
{
    enum { W = 96, H = 48 };
    float *in = malloc(W * H * 4), *out = calloc(W * H, 4);
    for (int i = 0; i < W * H; i++)
        in[i] = (float)i;
    int w = W, h = H;
    td_arg a[5] = {{TD_BUFFER, W * H * 4, in}, {TD_BUFFER, W * H * 4, out}, {TD_VALUE, 4, &w}, {TD_VALUE, 4, &h}};
    unsigned na = scratch(a, 4, TILE * (TILE + 1) * 4);
    size_t g[2] = {W, H}, l[2] = {TILE, TILE};
    int ok = run("ks_transpose", na, a, 2, g, l) == 0;
    for (int y = 0; ok && y < H; y++)
        for (int x = 0; ok && x < W; x++)
            ok = out[x * H + y] == in[y * W + x];
    check("transpose", dev, ok);
    free(in);
    free(out);
}

static void histogram(runner run, const char *dev)
{
    enum { ITEMS = 4 * 64, PER = 37, N = ITEMS * PER };
    unsigned char *in = malloc(N);
    uint32_t hist[256] = {0}, want[256] = {0};
    for (int i = 0; i < N; i++) {
        in[i] = (unsigned char)(i % 7 == 0 ? 42 : rnd());
        want[in[i]]++;
    }
    int per = PER;
    td_arg a[4] = {{TD_BUFFER, N, in}, {TD_BUFFER, sizeof(hist), hist}, {TD_VALUE, 4, &per}};
    unsigned na = scratch(a, 3, 256 * 4);
    size_t g = ITEMS, l = 64;
    check("histogram", dev, run("ks_histogram", na, a, 1, &g, &l) == 0 && memcmp(hist, want, sizeof(hist)) == 0);
    free(in);
}

static float at2(const float *in, int w, int h, int x, int y)
{
    x = x < 0 ? 0 : x >= w ? w - 1 : x;
    y = y < 0 ? 0 : y >= h ? h - 1 : y;
    return in[y * w + x];
}

static void stencil2d(runner run, const char *dev)
{
    enum { W = 64, H = 32 };
    float *in = malloc(W * H * 4), *out = calloc(W * H, 4);
    for (int i = 0; i < W * H; i++)
        in[i] = (float)(rnd() % 1000) / 10.0f;
    int w = W, h = H;
    td_arg a[5] = {{TD_BUFFER, W * H * 4, in}, {TD_BUFFER, W * H * 4, out}, {TD_VALUE, 4, &w}, {TD_VALUE, 4, &h}};
    unsigned na = scratch(a, 4, (TILE + 2) * (TILE + 2) * 4);
    size_t g[2] = {W, H}, l[2] = {TILE, TILE};
    int ok = run("ks_stencil2d", na, a, 2, g, l) == 0;
    for (int y = 0; ok && y < H; y++)
        for (int x = 0; ok && x < W; x++)
            ok = near(out[y * W + x], 0.5f * at2(in, W, H, x, y) +
                                          0.125f * (at2(in, W, H, x - 1, y) + at2(in, W, H, x + 1, y) +
                                                    at2(in, W, H, x, y - 1) + at2(in, W, H, x, y + 1)));
    check("stencil2d", dev, ok);
    free(in);
    free(out);
}

static void stencil3d(runner run, const char *dev)
{
    enum { X = 16, Y = 12, Z = 8, N = X * Y * Z };
    float *in = malloc(N * 4), *out = calloc(N, 4);
    for (int i = 0; i < N; i++)
        in[i] = (float)(rnd() % 1000) / 10.0f;
    td_arg a[2] = {{TD_BUFFER, N * 4, in}, {TD_BUFFER, N * 4, out}};
    size_t g[3] = {X, Y, Z}, l[3] = {4, 4, 2};
    int ok = run("ks_stencil3d", 2, a, 3, g, l) == 0;
#define V(x, y, z) in[((z < 0 ? 0 : z >= Z ? Z - 1 : z) * Y + (y < 0 ? 0 : y >= Y ? Y - 1 : y)) * X + \
                      (x < 0 ? 0 : x >= X ? X - 1 : x)]
    for (int z = 0; ok && z < Z; z++)
        for (int y = 0; ok && y < Y; y++)
            for (int x = 0; ok && x < X; x++)
                ok = near(out[(z * Y + y) * X + x],
                          0.4f * V(x, y, z) + 0.1f * (V(x - 1, y, z) + V(x + 1, y, z) + V(x, y - 1, z) +
                                                      V(x, y + 1, z) + V(x, y, z - 1) + V(x, y, z + 1)));
#undef V
    check("stencil3d", dev, ok);
    free(in);
    free(out);
}

static void async_copy(runner run, const char *dev)
{
    enum { G = 4, N = G * 64 };
    float *in = malloc(N * 4), *out = calloc(2 * N, 4);
    for (int i = 0; i < N; i++)
        in[i] = (float)(rnd() % 1000);
    td_arg a[3] = {{TD_BUFFER, N * 4, in}, {TD_BUFFER, 2 * N * 4, out}};
    unsigned na = scratch(a, 2, 64 * 4);
    size_t g = N, l = 64;
    int ok = run("ks_async", na, a, 1, &g, &l) == 0;
    for (int gr = 0; ok && gr < G; gr++)
        for (int i = 0; ok && i < 64; i++)
            ok = out[2 * (gr * 64 + i)] == in[gr * 64 + (i + 1) % 64] * 2.0f + (float)i &&
                 out[2 * (gr * 64 + i) + 1] == 0.0f;
    check("async", dev, ok);
    free(in);
    free(out);
}

static void vectors(runner run, const char *dev)
{
    enum { N = 64 };
    float *in = malloc((4 * N + 8) * 4), *o3 = calloc(3 * N, 4), *o4 = calloc(4 * N, 4);
    uint16_t *oh = calloc(4 * N, 2);
    for (int i = 0; i < 4 * N + 8; i++)
        in[i] = (float)(rnd() % 2000) / 8.0f - 100.0f;
    td_arg a[4] = {{TD_BUFFER, (4 * N + 8) * 4, in}, {TD_BUFFER, 3 * N * 4, o3}, {TD_BUFFER, 4 * N * 4, o4},
                   {TD_BUFFER, 4 * N * 2, oh}};
    size_t g = N, l = 8;
    int ok = run("ks_vectors", 4, a, 1, &g, &l) == 0;
    for (int i = 0; ok && i < N; i++) {
        for (int k = 0; k < 4; k++)
            ok = ok && o4[4 * i + k] == in[4 * i + k] * 2.0f + (float)(k + 1);
        const float *b = in + 1 + 3 * i;
        ok = ok && o3[3 * i] == b[2] - 1.0f && o3[3 * i + 1] == b[0] - 1.0f && o3[3 * i + 2] == b[1] - 1.0f;
        /* inputs are multiples of 1/8 below 128: exact in half */
        for (int k = 0; ok && k < 4; k++) {
            float v = in[4 * i + k] * 0.5f;
            uint16_t h = oh[4 * i + k];
            float back = ldexpf((float)((h & 0x3ff) | ((h >> 10) & 0x1f ? 0x400 : 0)),
                                ((h >> 10) & 0x1f ? (h >> 10) & 0x1f : 1) - 25);
            ok = (h & 0x8000 ? -back : back) == v;
        }
    }
    check("vectors", dev, ok);
    free(in);
    free(o3);
    free(o4);
    free(oh);
}

static void all(runner run, const char *dev)
{
    scan(run, dev);
    bitonic(run, dev);
    gemm(run, dev);
    transpose(run, dev);
    histogram(run, dev);
    stencil2d(run, dev);
    stencil3d(run, dev);
    async_copy(run, dev);
    vectors(run, dev);
}

int main(void)
{
    const char *top = getenv("SX_TEST_SRCDIR");
    char src[4096];
    snprintf(src, sizeof(src), "%s/tests/kernels/shapes/shapes.cl", top ? top : ".");
    static const char *names[] = {"ks_scan", "ks_bitonic", "ks_gemm", "ks_transpose", "ks_histogram",
                                  "ks_stencil2d", "ks_stencil3d", "ks_async", "ks_vectors"};
    static const char *params[] = {"pppl", "pl", "pppill", "ppiil", "ppil", "ppiil", "pp", "ppl", "pppp"};
    sx_device_binaries *bins = td_native_image("shapes.hso", 9, names, params);
    if (!bins) {
        printf("SKIP: shapes.hso was not built (no clang-14?)\n");
        return 77;
    }
    if (!td_native_open() || sx_register_images(bins) != SX_SUCCESS) {
        fprintf(stderr, "native device: %s\n", sx_last_error());
        return 1;
    }
    native = 1;
    all(td_native_run, "native");
    sx_unregister_images(bins);
    td_native_close();
    sxt_binaries_free(bins);
    const char *sximg = getenv("KS_SXIMG");
    if (sximg && *sximg) {
        sx_image_file file;
        if (sx_image_file_load(sximg, &file) != SX_SUCCESS || !td_native_open()) {
            fprintf(stderr, "%s: %s\n", sximg, sx_last_error());
            return 1;
        }
        native = 0; /* kernel-scope __local arrays: no scratch arguments */
        all(td_native_run, "native-wg"); /* from SPIR-V: compiled work-groups */
        td_native_close();
        sx_image_file_release(file);
    } else {
        printf("no KS_SXIMG: the kernel-scope (SPIR-V) variant was not run\n");
    }
    /* PoCL 3.1 crashes in wait_group_events (the kernels found it):
     * its ks_async is built with plain copies (KS_POCL) */
    if (td_pocl_open(src, "-DKS_KERNEL_SCOPE -DKS_POCL")) {
        native = 0;
        all(td_pocl_run, "PoCL");
        td_pocl_close();
    } else {
        printf("PoCL absent: the native device alone was checked\n");
    }
    printf("%s\n", failures ? "FAILED" : "all shapes match the host reference");
    return failures ? 1 : 0;
}
