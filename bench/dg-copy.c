/* dg-copy: a device_global write/read against a plain USM memcpy of the
 * same size to device memory, through the same adapter, in one process.
 * Not run by make check. Usage: dg-copy IMAGE.sximg [ITERATIONS]
 * (the image must hold device global "dg_counter", e.g. tests/e2e/dg.sximg) */
#include <stdio.h>
#include <stdlib.h>

#include <sycl-ext/device-global.h>

#include "bench.h"

SX_DEVICE_GLOBAL(int, counter, "dg_counter", SX_HOST_ACCESS_READ_WRITE);

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: dg-copy IMAGE.sximg [ITERATIONS]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 200000;
    sx_image_file f;
    CHECK(sx_image_file_load(argv[1], &f));
    CHECK(sx_init(0));
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    CHECK(sx_device_get_default(&dev));
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, 0, &q));
    void *usm;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, sizeof(int), 0, &usm));
    int v = 1, back = 0;
    CHECK(sx_queue_device_global_write(q, &counter, &v, sizeof(v), 0, 1, 0, NULL, NULL)); /* instance */
    double best[4] = {1e9, 1e9, 1e9, 1e9};
    for (int rep = 0; rep < 5; rep++) {
        double t[5];
        t[0] = bench_now();
        for (long i = 0; i < n; i++)
            sx_queue_memcpy(q, 1, usm, &v, sizeof(v), 0, NULL, NULL);
        t[1] = bench_now();
        for (long i = 0; i < n; i++)
            sx_queue_device_global_write(q, &counter, &v, sizeof(v), 0, 1, 0, NULL, NULL);
        t[2] = bench_now();
        for (long i = 0; i < n; i++)
            sx_queue_memcpy(q, 1, &back, usm, sizeof(v), 0, NULL, NULL);
        t[3] = bench_now();
        for (long i = 0; i < n; i++)
            sx_queue_device_global_read(q, &back, &counter, sizeof(v), 0, 1, 0, NULL, NULL);
        t[4] = bench_now();
        for (int i = 0; i < 4; i++)
            if (t[i + 1] - t[i] < best[i])
                best[i] = t[i + 1] - t[i];
    }
    char name[256];
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    printf("device: %s, %ld blocking 4-byte copies, best of 5\n", name, n);
    printf("  host->device: USM memcpy %7.1f ns, device_global write %7.1f ns, ratio %.3f\n", best[0] / n * 1e9,
           best[1] / n * 1e9, best[1] / best[0]);
    printf("  device->host: USM memcpy %7.1f ns, device_global read  %7.1f ns, ratio %.3f\n", best[2] / n * 1e9,
           best[3] / n * 1e9, best[3] / best[2]);
    CHECK(sx_usm_free(ctx, usm));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    CHECK(sx_image_file_release(f));
    return 0;
}
