/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ptx-vs-nvcc.c: kernel time of proptool's PTX variant (SPIR-V of
 * ptx-bench.cl through sx-ptx) against nvcc's PTX of ptx-bench.cu, in one
 * process, alternating rounds, results compared; and the JIT time of each
 * module's first launch with the driver's JIT cache off.
 *     ptx-vs-nvcc OURS.ptx NVCC.ptx
 * Kernel times are cuEvent times of BATCH launches; the ratio is ours/nvcc
 * per round, reported as the median with its range. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>

#define ROUNDS 11
#define BATCH 20
#define JIT_ROUNDS 5

#define FN(x) static __typeof__(x) *p_##x;
#define CU_FUNCS(X) X(cuInit) X(cuDeviceGet) X(cuDeviceGetName) X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) \
    X(cuModuleLoadDataEx) X(cuModuleGetFunction) X(cuModuleUnload) X(cuMemAlloc_v2) X(cuMemFree_v2)          \
    X(cuMemcpyHtoD_v2) X(cuMemcpyDtoH_v2) X(cuLaunchKernel) X(cuEventCreate) X(cuEventRecord)                 \
    X(cuEventSynchronize) X(cuEventElapsedTime) X(cuCtxSynchronize) X(cuGetErrorString) X(cuMemsetD32_v2)
CU_FUNCS(FN)

static void check(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return;
    const char *s = "?";
    if (p_cuGetErrorString)
        p_cuGetErrorString(r, &s);
    fprintf(stderr, "ptx-vs-nvcc: %s: %s (%d)\n", what, s, (int)r);
    exit(1);
}
#define CK(x) check((x), #x)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "%s: read failed\n", path);
        exit(2);
    }
    b[n] = 0;
    fclose(f);
    return b;
}

static CUmodule load(const char *ptx)
{
    CUmodule m;
    char log[8192] = "";
    CUjit_option o[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *v[2] = {log, (void *)(size_t)sizeof log};
    CUresult r = p_cuModuleLoadDataEx(&m, ptx, 2, o, v);
    if (r != CUDA_SUCCESS)
        fprintf(stderr, "JIT log: %s\n", log);
    CK(r);
    return m;
}

typedef struct {
    const char *name;
    unsigned grid[3], block[3], shared;
    void **params;
    CUdeviceptr out;   /* compared between the two sides */
    size_t out_bytes;
    CUdeviceptr reset; /* an output that accumulates: re-set from `init` before each side */
    const float *init;
    size_t reset_bytes;
} kspec;

static void launch_n(CUfunction f, const kspec *k, int n)
{
    for (int i = 0; i < n; i++)
        CK(p_cuLaunchKernel(f, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2], k->shared,
                            NULL, k->params, NULL));
}

static float time_batch(CUfunction f, const kspec *k, CUevent a, CUevent b)
{
    float ms = 0;
    CK(p_cuEventRecord(a, NULL));
    launch_n(f, k, BATCH);
    CK(p_cuEventRecord(b, NULL));
    CK(p_cuEventSynchronize(b));
    CK(p_cuEventElapsedTime(&ms, a, b));
    return ms / BATCH;
}

/* One launch of each side from the same inputs; the outputs agree. */
static int compare(CUfunction fo, CUfunction fn, const kspec *k)
{
    float *o = malloc(k->out_bytes), *n = malloc(k->out_bytes);
    if (k->reset)
        CK(p_cuMemcpyHtoD_v2(k->reset, k->init, k->reset_bytes));
    launch_n(fo, k, 1);
    CK(p_cuCtxSynchronize());
    CK(p_cuMemcpyDtoH_v2(o, k->out, k->out_bytes));
    if (k->reset)
        CK(p_cuMemcpyHtoD_v2(k->reset, k->init, k->reset_bytes));
    launch_n(fn, k, 1);
    CK(p_cuCtxSynchronize());
    CK(p_cuMemcpyDtoH_v2(n, k->out, k->out_bytes));
    size_t cnt = k->out_bytes / sizeof(float), bad = 0;
    for (size_t i = 0; i < cnt; i++) {
        float d = fabsf(o[i] - n[i]), s = fmaxf(fabsf(o[i]), fabsf(n[i]));
        if (!(d <= 1e-4f * s + 1e-5f)) {
            if (bad < 3)
                fprintf(stderr, "%s: element %zu: ours %.9g, nvcc %.9g\n", k->name, i, o[i], n[i]);
            bad++;
        }
    }
    free(o);
    free(n);
    return bad != 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: ptx-vs-nvcc OURS.ptx NVCC.ptx\n");
        return 2;
    }
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        printf("SKIP: no CUDA driver (libcuda.so.1): %s\n", dlerror());
        return 77;
    }
#define LOAD(x) if (!(p_##x = (__typeof__(p_##x))dlsym(lib, #x))) { fprintf(stderr, "no %s\n", #x); return 1; }
    CU_FUNCS(LOAD)
    /* the JIT rounds must compile: no driver cache */
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    if (p_cuInit(0) != CUDA_SUCCESS) {
        printf("SKIP: cuInit failed (no GPU)\n");
        return 77;
    }
    CUdevice dev;
    CUcontext ctx;
    char name[256];
    CK(p_cuDeviceGet(&dev, 0));
    CK(p_cuDeviceGetName(name, sizeof name, dev));
    CK(p_cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(p_cuCtxSetCurrent(ctx));
    char *ptx_o = slurp(argv[1]), *ptx_n = slurp(argv[2]);
    printf("device: %s\n", name);

    /* ---- JIT: module load + first launch of saxpy, cache off */
    double jo[JIT_ROUNDS], jn[JIT_ROUNDS];
    {
        CUdeviceptr y, x;
        CK(p_cuMemAlloc_v2(&y, 1024 * 4));
        CK(p_cuMemAlloc_v2(&x, 1024 * 4));
        float a = 2;
        void *pp[] = {&y, &x, &a};
        for (int r = 0; r < JIT_ROUNDS; r++)
            for (int side = 0; side < 2; side++) {
                int ours = (side == 0) == (r % 2 == 0);
                double t0 = now_s();
                CUmodule m = load(ours ? ptx_o : ptx_n);
                CUfunction f;
                CK(p_cuModuleGetFunction(&f, m, "saxpy"));
                CK(p_cuLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, NULL, pp, NULL));
                CK(p_cuCtxSynchronize());
                (ours ? jo : jn)[r] = now_s() - t0;
                CK(p_cuModuleUnload(m));
            }
        CK(p_cuMemFree_v2(y));
        CK(p_cuMemFree_v2(x));
    }
    double mjo = median(jo, JIT_ROUNDS), mjn = median(jn, JIT_ROUNDS);
    printf("JIT first launch (module load + saxpy, JIT cache off, median of %d): ours %.2f ms, nvcc %.2f ms, "
           "ratio %.2f (PTX bytes: ours %zu, nvcc %zu)\n",
           JIT_ROUNDS, mjo * 1e3, mjn * 1e3, mjo / mjn, strlen(ptx_o), strlen(ptx_n));

    CUmodule mo = load(ptx_o), mn = load(ptx_n);

    /* ---- data */
    enum { N = 1 << 26, WG = 256, MM = 2048, CI = 8192, GN = 1024 };
    size_t big = (size_t)N * 4;
    float *h = malloc(big);
    for (size_t i = 0; i < N; i++)
        h[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
    CUdeviceptr x, y, part, A, Bm, C, ca, cb, ga, gb, gc;
    CK(p_cuMemAlloc_v2(&x, big));
    CK(p_cuMemAlloc_v2(&y, big));
    CK(p_cuMemAlloc_v2(&part, big / WG));
    CK(p_cuMemcpyHtoD_v2(x, h, big));
    CK(p_cuMemcpyHtoD_v2(y, h, big));
    CK(p_cuMemAlloc_v2(&A, (size_t)MM * MM * 4));
    CK(p_cuMemAlloc_v2(&Bm, (size_t)MM * MM * 4));
    CK(p_cuMemAlloc_v2(&C, (size_t)MM * MM * 4));
    CK(p_cuMemcpyHtoD_v2(A, h, (size_t)MM * MM * 4));
    CK(p_cuMemcpyHtoD_v2(Bm, h + 7, (size_t)MM * MM * 4));
    CK(p_cuMemAlloc_v2(&ca, (size_t)CI * CI * 4));
    CK(p_cuMemAlloc_v2(&cb, (size_t)CI * CI * 4));
    CK(p_cuMemcpyHtoD_v2(ca, h, (size_t)CI * CI * 4));
    CK(p_cuMemsetD32_v2(cb, 0, (size_t)CI * CI));
    CK(p_cuMemAlloc_v2(&ga, (size_t)GN * GN * 4));
    CK(p_cuMemAlloc_v2(&gb, (size_t)GN * GN * 4));
    CK(p_cuMemAlloc_v2(&gc, (size_t)GN * GN * 4));
    CK(p_cuMemcpyHtoD_v2(ga, h + 3, (size_t)GN * GN * 4));
    CK(p_cuMemcpyHtoD_v2(gb, h + 5, (size_t)GN * GN * 4));
    CK(p_cuMemcpyHtoD_v2(gc, h + 11, (size_t)GN * GN * 4));

    float alpha = 2.0f, s_alpha = 1.5f, s_beta = 0.5f;
    unsigned off = 0;
    int mm = MM, ci = CI, gn = GN;
    void *p_saxpy[] = {&y, &x, &alpha};
    void *p_reduce[] = {&x, &part, &off};
    void *p_matmul[] = {&A, &Bm, &C, &mm};
    void *p_conv[] = {&ca, &cb, &ci, &ci};
    void *p_gemm[] = {&ga, &gb, &gc, &s_alpha, &s_beta, &gn, &gn, &gn};
    kspec ks[] = {
        {"saxpy", {N / WG, 1, 1}, {WG, 1, 1}, 0, p_saxpy, y, big, y, h, big},
        {"reduce", {N / WG / 2, 1, 1}, {WG, 1, 1}, WG * 4, p_reduce, part, big / WG / 2, 0, NULL, 0},
        {"matmul", {MM / 16, MM / 16, 1}, {16, 16, 1}, 0, p_matmul, C, (size_t)MM * MM * 4, 0, NULL, 0},
        {"conv2d", {CI / 32, CI / 8, 1}, {32, 8, 1}, 0, p_conv, cb, (size_t)CI * CI * 4, 0, NULL, 0},
        {"gemm", {GN / 32, GN / 8, 1}, {32, 8, 1}, 0, p_gemm, gc, (size_t)GN * GN * 4, gc, h + 11, (size_t)GN * GN * 4},
    };
    CUevent ea, eb;
    CK(p_cuEventCreate(&ea, CU_EVENT_DEFAULT));
    CK(p_cuEventCreate(&eb, CU_EVENT_DEFAULT));
    int failed = 0;
    printf("%-8s %12s %12s %8s %18s  %s\n", "kernel", "ours ms", "nvcc ms", "ratio", "range", "results");
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        kspec *k = &ks[i];
        CUfunction fo, fn;
        CK(p_cuModuleGetFunction(&fo, mo, k->name));
        CK(p_cuModuleGetFunction(&fn, mn, k->name));
        int bad = compare(fo, fn, k);
        failed |= bad;
        /* warm-up, then alternate which side goes first */
        time_batch(fo, k, ea, eb);
        time_batch(fn, k, ea, eb);
        double to[ROUNDS], tn[ROUNDS], ratio[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            if (r % 2 == 0) {
                to[r] = time_batch(fo, k, ea, eb);
                tn[r] = time_batch(fn, k, ea, eb);
            } else {
                tn[r] = time_batch(fn, k, ea, eb);
                to[r] = time_batch(fo, k, ea, eb);
            }
            ratio[r] = to[r] / tn[r];
        }
        double lo = ratio[0], hi = ratio[0];
        for (int r = 1; r < ROUNDS; r++) {
            lo = ratio[r] < lo ? ratio[r] : lo;
            hi = ratio[r] > hi ? ratio[r] : hi;
        }
        double mr = median(ratio, ROUNDS), mo_ = median(to, ROUNDS), mn_ = median(tn, ROUNDS);
        printf("%-8s %12.4f %12.4f %8.3f %8.3f..%-8.3f  %s\n", k->name, mo_, mn_, mr, lo, hi,
               bad ? "DIFFER" : "same");
    }
    /* host check of one side: saxpy ran many times, so check reduce's sums */
    {
        size_t np = N / WG / 2;
        float *pv = malloc(np * 4);
        CK(p_cuMemcpyDtoH_v2(pv, part, np * 4));
        double dev_sum = 0, host_sum = 0;
        for (size_t i = 0; i < np; i++)
            dev_sum += pv[i];
        for (size_t i = 0; i < N; i++)
            host_sum += h[i];
        /* x was never written: the partial sums add up to the host's sum */
        int ok = fabs(dev_sum - host_sum) <= 1e-5 * host_sum;
        printf("reduce total: device %.6g, host %.6g: %s\n", dev_sum, host_sum, ok ? "ok" : "WRONG");
        failed |= !ok;
        free(pv);
    }
    printf("%s\n", failed ? "FAILED: results differ" : "all results agree");
    return failed;
}
