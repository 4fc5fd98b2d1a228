/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* load.c: load DPC++-built modules from PyPI wheels (dpctl 0.22.1, dpnp
 * 0.20.0) with libsycl-ext-dpcpp.so preloaded: every descriptor must
 * register, and unloading them (in another order than loaded) must
 * unregister every one. Prints the counts and the registration time.
 * Usage: load LIBDIR MODULE... (run by tests/wheels/load.sh). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sycl-ext/dpcpp.h>
#include <sycl-ext/sx.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static sx_result (*get_stats)(sx_dpcpp_bridge_stats *);

static sx_dpcpp_bridge_stats stats(void)
{
    sx_dpcpp_bridge_stats s = {.size = sizeof(s)};
    if (get_stats(&s) != SX_SUCCESS) {
        fprintf(stderr, "FAIL: sx_dpcpp_bridge_get_stats failed\n");
        exit(1);
    }
    return s;
}

static uint32_t kernels(void)
{
    uint32_t n = 0;
    if (sx_kernel_get_all(0, NULL, &n) != SX_SUCCESS) {
        fprintf(stderr, "FAIL: sx_kernel_get_all: %s\n", sx_last_error());
        exit(1);
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: load LIBDIR MODULE...\n");
        return 2;
    }
    get_stats = (sx_result(*)(sx_dpcpp_bridge_stats *))(uintptr_t)dlsym(RTLD_DEFAULT, "sx_dpcpp_bridge_get_stats");
    if (!get_stats) {
        fprintf(stderr, "FAIL: libsycl-ext-dpcpp.so is not loaded (LD_PRELOAD it)\n");
        return 1;
    }
    /* Python extension modules leave the interpreter's symbols to the
     * process: libpython first, global, so RTLD_NOW can bind them. */
    if (!dlopen("libpython3.11.so.1", RTLD_NOW | RTLD_GLOBAL)) {
        printf("SKIP: %s\n", dlerror());
        return 77;
    }
    /* Registration works before sx_init; counting kernels needs it. */
    if (sx_init(0) != SX_SUCCESS) {
        fprintf(stderr, "FAIL: sx_init: %s\n", sx_last_error());
        return 1;
    }
    int n = argc - 2;
    void **h = calloc((size_t)n, sizeof(*h));
    sx_dpcpp_bridge_stats before = stats();
    int fail = 0;
    for (int i = 0; i < n; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", argv[1], argv[i + 2]);
        sx_dpcpp_bridge_stats s0 = stats();
        uint32_t k0 = kernels();
        double t0 = now();
        h[i] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        double t1 = now();
        if (!h[i]) {
            fprintf(stderr, "FAIL: dlopen %s: %s\n", path, dlerror());
            return 1;
        }
        sx_dpcpp_bridge_stats s1 = stats();
        printf("%s: %llu descriptor(s), %llu image(s), %u kernel(s) registered; %llu refused; "
               "sx_register_images %.1f ms (dlopen %.1f ms)\n",
               argv[i + 2], (unsigned long long)(s1.registrations - s0.registrations),
               (unsigned long long)(s1.registered_images - s0.registered_images), kernels() - k0,
               (unsigned long long)(s1.refused - s0.refused), (double)(s1.register_ns - s0.register_ns) / 1e6,
               (t1 - t0) * 1e3);
        if (s1.refused != s0.refused) {
            fprintf(stderr, "FAIL: %s: a descriptor was refused: %s\n", argv[i + 2], s1.last_error);
            fail = 1;
        }
        if (s1.registrations == s0.registrations) {
            fprintf(stderr, "FAIL: %s registered nothing (is the bridge ahead of libsycl.so?)\n", argv[i + 2]);
            fail = 1;
        }
    }
    sx_dpcpp_bridge_stats all = stats();
    printf("total: %llu image(s), %u kernel(s) in %u descriptor(s); sx_register_images %.1f ms in all; "
           "%llu call(s) passed on to DPC++'s runtime\n",
           (unsigned long long)all.registered_images, kernels(), all.registered,
           (double)(all.register_ns - before.register_ns) / 1e6, (unsigned long long)all.forwarded);
    if (getenv("SX_TEST_EXPECT_IMAGES") &&
        all.registered_images != strtoull(getenv("SX_TEST_EXPECT_IMAGES"), NULL, 10)) {
        fprintf(stderr, "FAIL: %llu images registered, %s expected\n", (unsigned long long)all.registered_images,
                getenv("SX_TEST_EXPECT_IMAGES"));
        fail = 1;
    }
    /* Unload out of load order: the middle one first, then the rest
     * backwards (the registry is by descriptor, not a stack). */
    int order[64], m = 0;
    if (n > 2)
        order[m++] = 1;
    for (int i = n - 1; i >= 0 && m < 64; i--)
        if (!(n > 2 && i == 1))
            order[m++] = i;
    for (int j = 0; j < m; j++) {
        sx_dpcpp_bridge_stats s0 = stats();
        if (dlclose(h[order[j]]) != 0) {
            fprintf(stderr, "FAIL: dlclose %s: %s\n", argv[order[j] + 2], dlerror());
            fail = 1;
        }
        sx_dpcpp_bridge_stats s1 = stats();
        printf("unloaded %s: %llu descriptor(s) unregistered, %llu image(s) left\n", argv[order[j] + 2],
               (unsigned long long)(s1.unregistrations - s0.unregistrations),
               (unsigned long long)s1.registered_images);
    }
    sx_dpcpp_bridge_stats end = stats();
    if (end.registered || end.registered_images || kernels()) {
        fprintf(stderr, "FAIL: after unloading: %u descriptor(s), %llu image(s), %u kernel(s) still registered\n",
                end.registered, (unsigned long long)end.registered_images, kernels());
        fail = 1;
    }
    free(h);
    sx_fini();
    if (!fail)
        printf("PASS\n");
    return fail;
}
