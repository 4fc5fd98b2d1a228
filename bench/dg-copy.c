/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dg-copy: a device_global write/read against a plain USM memcpy of the
 * same bytes to device memory, through the same adapter, in one process:
 * alternating rounds, each value read back and checked, the median of the
 * per-round ratios with their range. Not run by make check.
 * Usage: dg-copy IMAGE.sximg [COPIES-PER-ROUND] [ROUNDS]
 * (the image must hold device global "dg_counter", e.g. tests/e2e/dg.sximg;
 * SX_DEVICE_SELECTOR picks the device, e.g. native:cpu) */
#include <stdio.h>
#include <stdlib.h>

#include <sycl-ext/device-global.h>

#include "bench.h"

SX_DEVICE_GLOBAL(int, counter, "dg_counter", SX_HOST_ACCESS_READ_WRITE);

/* Host devices: thread CPU time (robust on a shared machine); devices
 * that copy asynchronously: wall time. */
static int cpu_clock;
static double clock_now(void) { return cpu_clock ? bench_cpu_now() : bench_now(); }

static void check(int got, int want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "dg-copy: %s read back %d, want %d\n", what, got, want);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dg-copy IMAGE.sximg [COPIES-PER-ROUND] [ROUNDS]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 2000;
    int rounds = argc > 3 ? atoi(argv[3]) : 201;
    if (n < 1 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "dg-copy: bad counts\n");
        return 2;
    }
    sx_image_file f;
    CHECK(sx_image_file_load(argv[1], &f));
    CHECK(sx_init(0));
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    CHECK(sx_device_get_default(&dev));
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, 0, &q));
    sx_backend backend;
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_BACKEND, sizeof(backend), &backend, NULL));
    cpu_clock = backend == SX_BACKEND_NATIVE;
    void *usm;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, sizeof(int), 0, &usm));
    int v = 1, back = 0;
    CHECK(sx_queue_device_global_write(q, &counter, &v, sizeof(v), 0, 1, 0, NULL, NULL)); /* instance */
    double *wr = calloc((size_t)rounds, sizeof(double)), *rd = calloc((size_t)rounds, sizeof(double));
    double tw[2] = {0}, tr[2] = {0};
    for (int round = 0; round < rounds; round++) {
        double t[5];
        v = round + 7;
        t[0] = clock_now();
        for (long i = 0; i < n; i++)
            CHECK(sx_queue_memcpy(q, 1, usm, &v, sizeof(v), 0, NULL, NULL));
        t[1] = clock_now();
        for (long i = 0; i < n; i++)
            CHECK(sx_queue_device_global_write(q, &counter, &v, sizeof(v), 0, 1, 0, NULL, NULL));
        t[2] = clock_now();
        for (long i = 0; i < n; i++)
            CHECK(sx_queue_memcpy(q, 1, &back, usm, sizeof(v), 0, NULL, NULL));
        t[3] = clock_now();
        check(back, v, "USM memcpy");
        back = 0;
        for (long i = 0; i < n; i++)
            CHECK(sx_queue_device_global_read(q, &back, &counter, sizeof(v), 0, 1, 0, NULL, NULL));
        t[4] = clock_now();
        check(back, v, "device_global read");
        wr[round] = (t[2] - t[1]) / (t[1] - t[0]);
        rd[round] = (t[4] - t[3]) / (t[3] - t[2]);
        tw[0] += t[1] - t[0];
        tw[1] += t[2] - t[1];
        tr[0] += t[3] - t[2];
        tr[1] += t[4] - t[3];
    }
    char name[256];
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    double per = 1e9 / ((double)n * rounds);
    printf("device: %s; blocking 4-byte copies, %d alternating rounds of %ld (%s time)\n", name, rounds, n,
           cpu_clock ? "thread CPU" : "wall");
    printf("  host->device: USM memcpy %7.1f ns, device_global write %7.1f ns;", tw[0] * per, tw[1] * per);
    bench_print_ratio(" write/memcpy", wr, rounds);
    printf("  device->host: USM memcpy %7.1f ns, device_global read  %7.1f ns;", tr[0] * per, tr[1] * per);
    bench_print_ratio(" read/memcpy", rd, rounds);
    free(wr);
    free(rd);
    CHECK(sx_usm_free(ctx, usm));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    CHECK(sx_image_file_release(f));
    return 0;
}
