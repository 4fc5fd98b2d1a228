/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* launch-section: what the reader section (epoch.c) adds to a cached
 * launch. In one process, on one queue and kernel (an empty free-function
 * kernel, one work-item), alternating rounds of
 *   bare     the cached launch as it was before the section: the slot walk
 *            and sxi_launch_slot, nothing announced
 *   section  sx_queue_launch: the same inside sxi_read_lock/unlock
 * prints the median of the per-round ratios section/bare (thread CPU time:
 * one work-group runs inline here) and their range.
 * Not run by make check.
 * Usage: launch-section IMAGE.sximg [ROUNDS] [LAUNCHES_PER_ROUND] */
#include <stdio.h>
#include <stdlib.h>

#include "sx-internal.h"
#include "bench.h"

/* sx_queue_launch as it was before the section (its checks, the walk, the
 * launch): single-threaded here, so nothing is dropped under it. */
static sx_result bare_launch(sx_queue q, sx_kernel k, uint32_t dims, const size_t *offset, const size_t *global,
                             const size_t *local, uint32_t num_args, const sx_arg *args)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    SXI_CHECK_HANDLE(k, SXI_TAG_KERNEL, "kernel");
    SXI_CHECK_PTR(global, "global_size");
    if (num_args && !args)
        return SX_ERROR_INVALID_NULL_POINTER;
    sxi_kernel_slot *s = atomic_load_explicit(&k->k->slots, memory_order_acquire);
    while (s && (s->context != q->context || s->device != q->device))
        s = atomic_load_explicit(&s->next, memory_order_acquire);
    if (!s)
        return SX_ERROR_INVALID_OPERATION;
    return sxi_launch_slot(q, k, s, dims, offset, global, local, num_args, args, false, 0, NULL, NULL);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: launch-section IMAGE.sximg [ROUNDS] [LAUNCHES_PER_ROUND]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 41;
    long n = argc > 3 ? atol(argv[3]) : 50000;
    if (rounds < 1 || rounds > 10000 || n < 1)
        return 2;
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
    CHECK(sx_kernel_get_free_function("empty", &k));
    int x = 1;
    sx_arg args[1] = {{SX_ARG_VALUE, 0, sizeof(x), &x}};
    size_t g[1] = {1}, l[1] = {1};
    CHECK(sx_queue_launch(q, k, 1, NULL, g, l, 1, args, 0, NULL, NULL)); /* build, cache */
    CHECK(sx_queue_wait(q));
    double *ratio = calloc((size_t)rounds, sizeof(double));
    if (!ratio)
        return 1;
    for (int r = 0; r < rounds; r++) {
        /* Which side goes first alternates, so order effects cancel. */
        double t[2];
        for (int side = 0; side < 2; side++) {
            bool section = (side ^ r) & 1;
            double t0 = bench_cpu_now();
            if (section)
                for (long i = 0; i < n; i++)
                    CHECK(sx_queue_launch(q, k, 1, NULL, g, l, 1, args, 0, NULL, NULL));
            else
                for (long i = 0; i < n; i++)
                    CHECK(bare_launch(q, k, 1, NULL, g, l, 1, args));
            CHECK(sx_queue_wait(q));
            t[section] = bench_cpu_now() - t0;
        }
        ratio[r] = t[1] / t[0];
    }
    qsort(ratio, (size_t)rounds, sizeof(double), cmp);
    printf("launch-section: %d rounds of %ld launches each side; section/bare median %.3f (range %.3f .. %.3f)\n",
           rounds, n, ratio[rounds / 2], ratio[0], ratio[rounds - 1]);
    free(ratio);
    CHECK(sx_kernel_release(k));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    CHECK(sx_image_file_release(f));
    return 0;
}
