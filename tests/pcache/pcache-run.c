/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* pcache-run: one process of the persistent-cache tests: loads an image
 * file, runs one free-function kernel on 4 ints that start as {1, 2, 3, 4}
 * and prints them after, with the program-cache counters.
 *   pcache-run IMAGE.sximg axpy  ocl_axpy(y, x, a) over USM: y = 2 * 1 + y
 *   pcache-run IMAGE.sximg tile  pt_tile_double() on device_image_scope pt_tile
 * Exit 77 when no device is there (the adapter's runtime or GPU absent). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

static struct { int value[4]; } tile;

#define TRY(call)                                                                           \
    do {                                                                                    \
        sx_result r_ = (call);                                                              \
        if (r_ != SX_SUCCESS) {                                                             \
            fprintf(stderr, "pcache-run: %s: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[2], "axpy") && strcmp(argv[2], "tile"))) {
        fprintf(stderr, "usage: pcache-run IMAGE.sximg axpy|tile\n");
        return 2;
    }
    bool axpy = strcmp(argv[2], "axpy") == 0;
    sx_image_file f;
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    sx_kernel k;
    sx_args a;
    TRY(sx_image_file_load(argv[1], &f));
    TRY(sx_init(0));
    sx_result r = sx_device_get_default(&dev);
    if (r == SX_ERROR_DEVICE_NOT_FOUND) {
        fprintf(stderr, "pcache-run: no device: %s\n", sx_last_error());
        return 77;
    }
    TRY(r);
    TRY(sx_context_create(1, &dev, &ctx));
    TRY(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    float init[4] = {1, 2, 3, 4}, back[4] = {0};
    if (axpy) {
        float *y, *x, two = 2;
        TRY(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, sizeof(init), 0, (void **)&y));
        TRY(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, sizeof(init), 0, (void **)&x));
        for (int i = 0; i < 4; i++)
            y[i] = init[i], x[i] = 1;
        TRY(sx_kernel_get_free_function("ocl_axpy", &k));
        TRY(sx_args_create(k, &a));
        TRY(sx_args_set_pointer(a, 0, y));
        TRY(sx_args_set_pointer(a, 1, x));
        TRY(sx_args_set(a, 2, sizeof(two), &two));
        size_t g = 4;
        TRY(sx_nd_launch(q, a, 1, &g, NULL, NULL, 0, NULL, NULL));
        TRY(sx_queue_wait(q));
        memcpy(back, y, sizeof(back));
        TRY(sx_usm_free(ctx, y));
        TRY(sx_usm_free(ctx, x));
    } else {
        int ii[4] = {1, 2, 3, 4}, ib[4];
        TRY(sx_device_global_add(&tile, "pt_tile", sizeof(tile.value), SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                                 SX_HOST_ACCESS_READ_WRITE));
        TRY(sx_queue_device_global_write(q, &tile, ii, sizeof(ii), 0, 1, 0, NULL, NULL));
        TRY(sx_kernel_get_free_function("pt_tile_double", &k));
        TRY(sx_args_create(k, &a));
        TRY(sx_single_task(q, a, NULL, 0, NULL, NULL));
        TRY(sx_queue_device_global_read(q, ib, &tile, sizeof(ib), 0, 1, 0, NULL, NULL));
        TRY(sx_device_global_remove(&tile));
        for (int i = 0; i < 4; i++)
            back[i] = (float)ib[i];
    }
    sxi_program_stats s;
    sxi_program_stats_get(&s);
    printf("builds=%llu disk_hits=%llu disk_writes=%llu disk_rejects=%llu out=%g,%g,%g,%g\n",
           (unsigned long long)s.builds, (unsigned long long)s.disk_hits, (unsigned long long)s.disk_writes,
           (unsigned long long)s.disk_rejects, back[0], back[1], back[2], back[3]);
    TRY(sx_args_release(a));
    TRY(sx_kernel_release(k));
    TRY(sx_queue_release(q));
    TRY(sx_context_release(ctx));
    TRY(sx_fini());
    TRY(sx_image_file_release(f));
    return 0;
}
