/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* first-launch: the first launch of a one-image PTX kernel in a fresh
 * process (the second process of an application: caches warm), ours
 * against the raw driver, each sample in its own forked child, the kinds
 * taking turns round by round (the order turning by one each round):
 *   raw         cuModuleLoadDataEx(PTX) + cuModuleGetFunction + cuLaunchKernel + sync
 *   sx, no cache  the first sx_queue_launch waited for, SX_CACHE=0 (the adapter's
 *               cuModuleLoadDataEx; the driver's JIT cache warm)
 *   sx          the same with the persistent cache (cubin from get_binary)
 *   sx, JIT off   the persistent cache, CUDA_CACHE_DISABLE=1
 *   raw, JIT off  cuModuleLoadDataEx with CUDA_CACHE_DISABLE=1
 *   raw again   raw once more: its ratio to raw is the measure's own spread
 *               (A/A); a ratio of ours means little where it is inside that
 * The kernel, set42(int *p), is one PTX module with nothing else (no
 * device globals: both sides do the same work). Each child sets up its
 * context, queue (ours: registered image) and a device int first; the
 * clock covers program build/load, kernel lookup, launch and wait; the
 * int is read back and checked. Prints medians with ranges and the paired
 * ratios to raw.
 * What each clock holds, exactly:
 *   raw: cuModuleLoadDataEx (the same PTX bytes, no options), cuModuleGetFunction,
 *        cuLaunchKernel (1x1x1, the legacy NULL stream), cuCtxSynchronize.
 *   sx:  sx_kernel_get, sx_queue_launch (image selection, the persistent
 *        cache's key and lookup, cuModuleLoadDataEx of the PTX or of the
 *        cached cubin, cuModuleGetFunction, the launch on the queue's
 *        non-blocking stream), sx_queue_wait (cuStreamSynchronize).
 *   Before either clock: cuInit, the primary context, the device int; for
 *   ours also sx_init, the registration and the queue (its stream).
 * bench/cuda/first-launch-parts splits both step by step.
 * Usage: first-launch [ROUNDS [quick]]  (default 31; quick: raw, ours and the
 * A/A control only; SX_CACHE_DIR: a cache directory) */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "../bench.h"
#include "set42.h"

enum { RAW, SX_NOCACHE, SX_CACHE, SX_NOJIT, RAW_NOJIT, RAW_AGAIN, KINDS };
static const char *const kind_name[KINDS] = {"raw cuModuleLoadDataEx", "sx, persistent cache off",
                                             "sx, persistent cache", "sx, cache, driver JIT cache off",
                                             "raw, driver JIT cache off", "raw again (A/A control)"};
#define CU(call) SET42_CU(call)

static double raw(void)
{
    void *cu = dlopen("libcuda.so.1", RTLD_NOW);
    if (!cu)
        return -77;
    SET42_SYM(cu, dtoh, cuMemcpyDtoH_v2);
    SET42_SYM(cu, load, cuModuleLoadDataEx);
    SET42_SYM(cu, getfn, cuModuleGetFunction);
    SET42_SYM(cu, launch, cuLaunchKernel);
    SET42_SYM(cu, sync, cuCtxSynchronize);
    CUdeviceptr d;
    CU(set42_raw_setup(cu, &d));
    double t0 = bench_now();
    CUmodule m;
    CUfunction fn;
    CU(load(&m, set42_ptx, 0, NULL, NULL));
    CU(getfn(&fn, m, SET42_NAME));
    void *params[] = {&d};
    CU(launch(fn, 1, 1, 1, 1, 1, 1, 0, NULL, params, NULL));
    CU(sync());
    double ms = (bench_now() - t0) * 1e3;
    int back = 0;
    CU(dtoh(&back, d, sizeof(back)));
    return back == 42 ? ms : -1;
}

static double ours(void)
{
    sx_queue q;
    int *d;
    sx_result r = set42_sx_setup(&q, &d);
    if (r == SX_ERROR_DEVICE_NOT_FOUND)
        return -77;
    if (r != SX_SUCCESS)
        return -1;
    double t0 = bench_now();
    CHECK(set42_sx_first_launch(q, d));
    double ms = (bench_now() - t0) * 1e3;
    int back = 0;
    CHECK(sx_queue_memcpy(q, 1, &back, d, sizeof(back), 0, NULL, NULL));
    return back == 42 ? ms : -1;
}

/* One sample (in a child): its milliseconds, or a negative on failure. */
static double run_kind(int kind)
{
    if (kind == SX_NOCACHE)
        setenv("SX_CACHE", "0", 1);
    if (kind == SX_NOJIT || kind == RAW_NOJIT)
        setenv("CUDA_CACHE_DISABLE", "1", 1);
    return kind == RAW || kind == RAW_NOJIT || kind == RAW_AGAIN ? raw() : ours();
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 31;
    if (rounds < 1 || rounds > 1000)
        return 2;
    /* "quick": only the kinds of the goal (raw, ours, the A/A control), so
     * that many more rounds fit in the same time. */
    bool quick = argc > 2 && strcmp(argv[2], "quick") == 0;
    int kinds[KINDS], nk = 0;
    for (int k = 0; k < KINDS; k++)
        if (!quick || k == RAW || k == SX_NOCACHE || k == SX_CACHE || k == RAW_AGAIN)
            kinds[nk++] = k;
    set42_adapter_env();
    unsetenv("CUDA_CACHE_DISABLE");
    unsetenv("SX_CACHE");
    double *t[KINDS], *ratio[KINDS];
    for (int k = 0; k < KINDS; k++) {
        t[k] = calloc((size_t)rounds, sizeof(double));
        ratio[k] = calloc((size_t)rounds, sizeof(double));
    }
    for (int n = 0; n < nk; n++) {
        int k = kinds[n];
        double w = bench_in_child(run_kind, k); /* warms the driver's JIT cache and ours */
        if (w == -77) {
            printf("SKIP: no CUDA GPU\n");
            return 77;
        }
        if (w < 0) {
            fprintf(stderr, "first-launch: %s failed\n", kind_name[k]);
            return 1;
        }
    }
    /* One traced child of each of ours (stderr): where the time goes. */
    setenv("SX_TRACE", "1", 1);
    setenv("SX_LOG", "debug", 1);
    for (int k = SX_NOCACHE; k <= SX_NOJIT && !quick; k++) {
        fprintf(stderr, "---- traced: %s\n", kind_name[k]);
        bench_in_child(run_kind, k);
    }
    unsetenv("SX_TRACE");
    unsetenv("SX_LOG");
    /* The order turns by one kind each round: no kind always runs first or
     * always follows the same one (the machine's state after a child,
     * e.g. after the 15 ms JIT of RAW_NOJIT, would favour one side). */
    for (int i = 0; i < rounds; i++)
        for (int j = 0; j < nk; j++) {
            int k = kinds[(i + j) % nk];
            if ((t[k][i] = bench_in_child(run_kind, k)) < 0) {
                fprintf(stderr, "first-launch: a %s sample failed\n", kind_name[k]);
                return 1;
            }
        }
    for (int i = 0; i < rounds; i++)
        for (int k = 0; k < KINDS; k++)
            ratio[k][i] = t[k][i] / t[k == SX_NOJIT || k == RAW_NOJIT ? RAW_NOJIT : RAW][i];
    printf("first launch of a one-image PTX kernel in a fresh process (%d rounds, the order turning, wall time):\n",
           rounds);
    for (int n = 0; n < nk; n++) {
        int k = kinds[n];
        double m = bench_median(t[k], rounds);
        printf("  %-34s median %8.3f ms (range %.3f-%.3f)\n", kind_name[k], m, t[k][0], t[k][rounds - 1]);
    }
    bench_print_ratio("  sx, persistent cache off / raw:         ", ratio[SX_NOCACHE], rounds);
    bench_print_ratio("  sx, persistent cache / raw:             ", ratio[SX_CACHE], rounds);
    if (!quick)
        bench_print_ratio("  sx, cache / raw, both driver JIT off:   ", ratio[SX_NOJIT], rounds);
    /* Two samples of the same raw kind: how far the measure itself strays. */
    bench_print_ratio("  raw again / raw (A/A: the noise):       ", ratio[RAW_AGAIN], rounds);
    return 0;
}
