/* first-launch: the first launch of a one-image PTX kernel in a fresh
 * process (the second process of an application: caches warm), ours
 * against the raw driver, each sample in its own forked child, the kinds
 * alternating round by round:
 *   raw         cuModuleLoadDataEx(PTX) + cuModuleGetFunction + cuLaunchKernel + sync
 *   sx, no cache  the first sx_single_task done, SX_CACHE=0 (the adapter's
 *               cuModuleLoadDataEx; the driver's JIT cache warm)
 *   sx          the same with the persistent cache (cubin from get_binary)
 *   sx, JIT off   the persistent cache, CUDA_CACHE_DISABLE=1
 *   raw, JIT off  cuModuleLoadDataEx with CUDA_CACHE_DISABLE=1
 * Each child sets up its context (and ours its queue and image file) first;
 * the clock covers program build/load, kernel lookup, launch and wait.
 * Prints medians with ranges and the paired ratios to raw.
 * Usage: first-launch [ROUNDS]  (SXC_TEST_DATA: the directory holding
 * props.ptx and props-ptx.sximg; SX_CACHE_DIR: a cache directory) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda.h>

#include "../bench.h"

enum { RAW, SX_NOCACHE, SX_CACHE, SX_NOJIT, RAW_NOJIT, KINDS };
static const char *const kind_name[KINDS] = {"raw cuModuleLoadDataEx", "sx, persistent cache off",
                                             "sx, persistent cache", "sx, cache, driver JIT cache off",
                                             "raw, driver JIT cache off"};
static char ptx_path[4096], image_path[4096];

#define CU(call)                                                                    \
    do {                                                                            \
        CUresult r_ = (call);                                                       \
        if (r_ != CUDA_SUCCESS) {                                                   \
            fprintf(stderr, "first-launch: %s: CUresult %d\n", #call, (int)r_);     \
            return -1;                                                              \
        }                                                                           \
    } while (0)

static double raw(void)
{
    void *cu = dlopen("libcuda.so.1", RTLD_NOW);
    if (!cu)
        return -77;
#define SYM(name, real) __typeof__(real) *name = (__typeof__(real) *)dlsym(cu, #real)
    SYM(init, cuInit);
    SYM(dget, cuDeviceGet);
    SYM(retain, cuDevicePrimaryCtxRetain);
    SYM(setcur, cuCtxSetCurrent);
    SYM(load, cuModuleLoadDataEx);
    SYM(getfn, cuModuleGetFunction);
    SYM(launch, cuLaunchKernel);
    SYM(sync, cuCtxSynchronize);
    FILE *f = fopen(ptx_path, "rb");
    if (!f)
        return -1;
    static char ptx[1 << 20];
    size_t n = fread(ptx, 1, sizeof(ptx) - 1, f);
    fclose(f);
    ptx[n] = 0;
    CUdevice dev;
    CUcontext ctx;
    CU(init(0));
    CU(dget(&dev, 0));
    CU(retain(&ctx, dev));
    CU(setcur(ctx));
    double t0 = bench_now();
    CUmodule m;
    CUfunction fn;
    CU(load(&m, ptx, 0, NULL, NULL));
    CU(getfn(&fn, m, "__sycl_kernel_pt_tile_double"));
    CU(launch(fn, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    CU(sync());
    return (bench_now() - t0) * 1e3;
}

static struct { int value[4]; } tile;

static double ours(void)
{
    sx_image_file f;
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    sx_kernel k;
    sx_args a;
    CHECK(sx_image_file_load(image_path, &f));
    CHECK(sx_init(0));
    if (sx_device_get_default(&dev) != SX_SUCCESS)
        return -77;
    CHECK(sx_device_global_add(&tile, "pt_tile", sizeof(tile.value), SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                               SX_HOST_ACCESS_READ_WRITE));
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    double t0 = bench_now();
    CHECK(sx_kernel_get_free_function("pt_tile_double", &k));
    CHECK(sx_args_create(k, &a));
    CHECK(sx_single_task(q, a, NULL, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    double ms = (bench_now() - t0) * 1e3;
    int back[4];
    CHECK(sx_queue_device_global_read(q, back, &tile, sizeof(back), 0, 1, 0, NULL, NULL));
    if (back[0] != 2 || back[3] != 8) {
        fprintf(stderr, "first-launch: pt_tile is %d..%d, want 2..8\n", back[0], back[3]);
        return -1;
    }
    return ms;
}

static double sample(int kind)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        if (kind == SX_NOCACHE)
            setenv("SX_CACHE", "0", 1);
        if (kind == SX_NOJIT || kind == RAW_NOJIT)
            setenv("CUDA_CACHE_DISABLE", "1", 1);
        double ms = kind == RAW || kind == RAW_NOJIT ? raw() : ours();
        _exit(write(fd[1], &ms, sizeof(ms)) == sizeof(ms) ? 0 : 1);
    }
    close(fd[1]);
    double ms = -1;
    if (pid < 0 || read(fd[0], &ms, sizeof(ms)) != sizeof(ms))
        ms = -1;
    close(fd[0]);
    int st;
    if (pid > 0)
        waitpid(pid, &st, 0);
    return ms;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    if (rounds < 1 || rounds > 1000)
        return 2;
    const char *dir = getenv("SXC_TEST_DATA");
    const char *b = getenv("SX_TEST_BUILDDIR");
    snprintf(ptx_path, sizeof(ptx_path), "%s/props.ptx", dir ? dir : "tests/cuda");
    snprintf(image_path, sizeof(image_path), "%s/props-ptx.sximg", dir ? dir : "tests/cuda");
    if (!getenv("SX_ADAPTERS")) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/adapters/cuda/.libs/sx-adapter-cuda.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
    unsetenv("CUDA_CACHE_DISABLE");
    unsetenv("SX_CACHE");
    double *t[KINDS], *ratio[KINDS];
    for (int k = 0; k < KINDS; k++) {
        t[k] = calloc((size_t)rounds, sizeof(double));
        ratio[k] = calloc((size_t)rounds, sizeof(double));
        double w = sample(k); /* warms the driver's JIT cache and ours */
        if (w == -77) {
            printf("SKIP: no CUDA GPU\n");
            return 77;
        }
        if (w < 0) {
            fprintf(stderr, "first-launch: %s failed\n", kind_name[k]);
            return 1;
        }
    }
    for (int i = 0; i < rounds; i++)
        for (int k = 0; k < KINDS; k++)
            if ((t[k][i] = sample(k)) < 0) {
                fprintf(stderr, "first-launch: a %s sample failed\n", kind_name[k]);
                return 1;
            }
    for (int i = 0; i < rounds; i++)
        for (int k = 0; k < KINDS; k++)
            ratio[k][i] = t[k][i] / t[k == SX_NOJIT || k == RAW_NOJIT ? RAW_NOJIT : RAW][i];
    printf("first launch of a one-image PTX kernel in a fresh process (%d alternating rounds, wall time):\n", rounds);
    for (int k = 0; k < KINDS; k++) {
        double m = bench_median(t[k], rounds);
        printf("  %-34s median %8.3f ms (range %.3f-%.3f)\n", kind_name[k], m, t[k][0], t[k][rounds - 1]);
    }
    bench_print_ratio("  sx, persistent cache off / raw:         ", ratio[SX_NOCACHE], rounds);
    bench_print_ratio("  sx, persistent cache / raw:             ", ratio[SX_CACHE], rounds);
    bench_print_ratio("  sx, cache / raw, both driver JIT off:   ", ratio[SX_NOJIT], rounds);
    return 0;
}
