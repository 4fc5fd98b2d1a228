/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* startup: what a fresh process pays before its first native kernel has
 * run: sx_init + device + context + queue + image file load + first launch
 * (axpy of 4 floats, checked), each sample in its own forked child, the
 * kinds of child alternating:
 *   select         sx_device_select("native:*"): the program names its
 *                  device in code; only native is loaded
 *   lazy+selector  SX_DEVICE_SELECTOR=native:* (only native is loaded)
 *   lazy           no selector (the device query loads every adapter)
 *   eager          SX_ADAPTERS_EAGER=1: every adapter loaded at sx_init,
 *                  as before lazy loading
 *   raw            dlopen of the native builtins and of the kernel's host
 *                  object (the floor any native launch pays)
 * Prints each median in ms with its range, and the ratios to raw and eager.
 * Usage: startup FFK.sximg FFK-HOST.so [ROUNDS]   (tests/e2e/ffk.sximg,
 * tests/e2e/ffk-host.so; SX_ADAPTERS_PATH should name the build's adapter
 * directories so that every adapter counts as installed) */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

enum { SELECT, LAZY_SELECTOR, LAZY, EAGER, RAW, KINDS };
static const char *const kind_name[KINDS] = {"sx_device_select native:*", "lazy+selector native:*",
                                             "lazy, no selector", "eager (old)", "raw dlopen"};

static int ours(const char *image, int kind)
{
    sx_image_file f;
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    sx_kernel k;
    sx_args a;
    float *y, *x, two = 2;
    long n = 4;
    CHECK(sx_init(0));
    if (kind == SELECT)
        CHECK(sx_device_select("native:*", 1, &dev, NULL));
    else
        CHECK(sx_device_get_default(&dev));
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    CHECK(sx_image_file_load(image, &f));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 4 * sizeof(float), 0, (void **)&y));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 4 * sizeof(float), 0, (void **)&x));
    for (int i = 0; i < 4; i++)
        y[i] = (float)i, x[i] = 1;
    CHECK(sx_kernel_get_free_function("axpy", &k));
    CHECK(sx_args_create(k, &a));
    CHECK(sx_args_set_pointer(a, 0, y));
    CHECK(sx_args_set_pointer(a, 1, x));
    CHECK(sx_args_set(a, 2, sizeof(two), &two));
    CHECK(sx_args_set(a, 3, sizeof(n), &n));
    size_t g = 4;
    CHECK(sx_nd_launch(q, a, 1, &g, NULL, NULL, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    for (int i = 0; i < 4; i++)
        if (y[i] != (float)i + 2) {
            fprintf(stderr, "startup: y[%d] = %g, want %g\n", i, y[i], (double)i + 2);
            return 1;
        }
    return 0;
}

static int raw(const char *host_so)
{
    const char *b = getenv("SX_NATIVE_BUILTINS");
    if (!b || !dlopen(b, RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "startup: SX_NATIVE_BUILTINS: %s\n", b ? dlerror() : "unset");
        return 1;
    }
    void *dl = dlopen(host_so, RTLD_NOW | RTLD_LOCAL);
    if (!dl || !dlsym(dl, "__sycl_kernel_axpy")) {
        fprintf(stderr, "startup: %s: %s\n", host_so, dlerror());
        return 1;
    }
    return 0;
}

static const char *image_path, *host_path;

/* One sample (in a child): its milliseconds, or a negative on failure. */
static double run_kind(int kind)
{
    if (kind == LAZY_SELECTOR)
        setenv("SX_DEVICE_SELECTOR", "native:*", 1);
    if (kind == EAGER)
        setenv("SX_ADAPTERS_EAGER", "1", 1);
    double t0 = bench_now();
    int rc = kind == RAW ? raw(host_path) : ours(image_path, kind);
    return rc == 0 ? (bench_now() - t0) * 1e3 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: startup FFK.sximg FFK-HOST.so [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 3 ? atoi(argv[3]) : 31;
    if (rounds < 1 || rounds > 10000)
        return 2;
    image_path = argv[1];
    host_path = argv[2];
    unsetenv("SX_DEVICE_SELECTOR");
    unsetenv("SX_ADAPTERS_EAGER");
    double *t[KINDS], *r_raw = calloc((size_t)rounds, sizeof(double)), *r_eager = calloc((size_t)rounds, sizeof(double)),
           *r_select = calloc((size_t)rounds, sizeof(double));
    for (int k = 0; k < KINDS; k++)
        t[k] = calloc((size_t)rounds, sizeof(double));
    bench_in_child(run_kind, LAZY); /* warm the page cache and the program cache's markers */
    for (int i = 0; i < rounds; i++)
        for (int k = 0; k < KINDS; k++)
            if ((t[k][i] = bench_in_child(run_kind, k)) < 0) {
                fprintf(stderr, "startup: a %s sample failed\n", kind_name[k]);
                return 1;
            }
    for (int i = 0; i < rounds; i++) {
        r_raw[i] = t[LAZY_SELECTOR][i] / t[RAW][i];
        r_eager[i] = t[LAZY_SELECTOR][i] / t[EAGER][i];
        r_select[i] = t[SELECT][i] / t[RAW][i];
    }
    printf("startup to the first native launch done (fresh process each; %d alternating rounds; wall time):\n", rounds);
    for (int k = 0; k < KINDS; k++) {
        double m = bench_median(t[k], rounds);
        printf("  %-24s median %7.3f ms (range %.3f-%.3f)\n", kind_name[k], m, t[k][0], t[k][rounds - 1]);
    }
    bench_print_ratio("  select / raw dlopen:       ", r_select, rounds);
    bench_print_ratio("  lazy+selector / raw dlopen:", r_raw, rounds);
    bench_print_ratio("  lazy+selector / eager:     ", r_eager, rounds);
    return 0;
}
