/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* core-launch: what the core adds to a launch. In one process, on one
 * queue and kernel (an empty free-function kernel, one work-item):
 *   raw     the adapter's kernel_launch called directly with the cached kernel
 *   queue   sx_queue_launch with backend arguments (lookup, shape and argument checks)
 *   ffk     sx_nd_launch with a set_arg builder (plus mapping source arguments)
 * and prints launches per second and the ratios to raw. Not run by make check.
 * Usage: core-launch IMAGE.sximg [ITERATIONS]   (device: SX_DEVICE_SELECTOR or default) */
#include <stdio.h>
#include <stdlib.h>

#include "sx-internal.h"
#include "bench.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: core-launch IMAGE.sximg [ITERATIONS]\n");
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
    sx_kernel k;
    sx_args a;
    CHECK(sx_kernel_get_free_function("empty", &k));
    CHECK(sx_args_create(k, &a));
    int x = 1;
    CHECK(sx_args_set(a, 0, sizeof(x), &x));
    sx_arg args[1] = {{SX_ARG_VALUE, 0, sizeof(x), &x}};
    size_t g[1] = {1}, l[1] = {1};
    CHECK(sx_queue_launch(q, k, 1, NULL, g, l, 1, args, 0, NULL, NULL)); /* build, cache */
    CHECK(sx_queue_wait(q));
    sxi_kernel_slot *s;
    sxi_section sec = sxi_read_lock(); /* no other thread drops slots here */
    CHECK(sxi_slot_for(q, k, &sec, &s));
    sxi_read_unlock(sec);
    struct sx_adapter_s *ad = q->adapter;

    double best[3] = {1e9, 1e9, 1e9};
    for (int rep = 0; rep < 5; rep++) {
        double t0 = bench_now();
        for (long i = 0; i < n; i++)
            ad->dispatch.enqueue.kernel_launch(q->handle, s->handle, 1, NULL, g, l, 1, args, 0, NULL, NULL);
        CHECK(sx_queue_wait(q));
        double t1 = bench_now();
        for (long i = 0; i < n; i++)
            sx_queue_launch(q, k, 1, NULL, g, l, 1, args, 0, NULL, NULL);
        CHECK(sx_queue_wait(q));
        double t2 = bench_now();
        for (long i = 0; i < n; i++)
            sx_nd_launch(q, a, 1, g, l, NULL, 0, NULL, NULL);
        CHECK(sx_queue_wait(q));
        double t3 = bench_now();
        double d[3] = {t1 - t0, t2 - t1, t3 - t2};
        for (int i = 0; i < 3; i++)
            if (d[i] < best[i])
                best[i] = d[i];
    }
    char name[256];
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    printf("device: %s (%s adapter), %ld launches of an empty 1-work-item kernel, best of 5\n", name, ad->name, n);
    const char *what[3] = {"raw adapter kernel_launch", "sx_queue_launch", "sx_nd_launch (set_arg builder)"};
    for (int i = 0; i < 3; i++)
        printf("  %-32s %10.0f launches/s  %7.1f ns/launch  ratio to raw %.3f\n", what[i], n / best[i],
               best[i] / n * 1e9, best[i] / best[0]);
    CHECK(sx_args_release(a));
    CHECK(sx_kernel_release(k));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    CHECK(sx_image_file_release(f));
    return 0;
}
