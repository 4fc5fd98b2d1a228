/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* demo: run the free-function kernel saxpy (examples/saxpy.cl, bundled by
 * proptool into saxpy-images.c, which registers it from a constructor) on
 * the default device, print what it computed and check it. */
#include <math.h>
#include <stdio.h>

#include <sycl-ext/sx.h>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        sx_result r_ = (call);                                                              \
        if (r_ != SX_SUCCESS) {                                                             \
            fprintf(stderr, "demo: %s failed: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            return 1;                                                                       \
        }                                                                                   \
    } while (0)

int main(void)
{
    CHECK(sx_init(0));
    sx_kernel k;
    CHECK(sx_kernel_get_free_function("saxpy", &k));
    sx_device dev;
    CHECK(sx_device_get_default(&dev));
    int ok = 0;
    CHECK(sx_kernel_is_compatible(k, dev, &ok));
    if (!ok) {
        /* The default device takes none of the bundled images (a GPU whose
         * kind was not built): say so, and use the first one that does. */
        sx_device all[16];
        uint32_t n = 0;
        CHECK(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 16, all, &n));
        for (uint32_t i = 0; i < n && i < 16 && !ok; i++)
            if (sx_kernel_is_compatible(k, all[i], &ok) == SX_SUCCESS && ok)
                dev = all[i];
        fprintf(stderr, "demo: the default device has no image of saxpy; using another\n");
    }
    char name[256];
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    printf("device: %s\n", name);

    sx_context ctx;
    sx_queue q;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    enum { N = 1024 };
    float *x, *y;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&x));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&y));
    for (int i = 0; i < N; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    /* set_arg by source position, then nd_launch over 1024 work-items in groups of 64 */
    sx_args args;
    float a = 2.0f;
    CHECK(sx_args_create(k, &args));
    CHECK(sx_args_set_pointer(args, 0, y));
    CHECK(sx_args_set_pointer(args, 1, x));
    CHECK(sx_args_set(args, 2, sizeof(a), &a));
    size_t global[1] = {N}, local[1] = {64};
    CHECK(sx_nd_launch(q, args, 1, global, local, NULL, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));

    int bad = 0;
    for (int i = 0; i < N; i++)
        if (fabsf(y[i] - (2.0f * (float)i + 1.0f)) > 1e-6f)
            bad++;
    printf("saxpy: y[i] = 2 * x[i] + 1 for %d elements: y[0]=%g y[1]=%g y[1023]=%g\n", N, y[0], y[1], y[N - 1]);
    printf("%s: %d of %d elements wrong\n", bad ? "FAILED" : "OK", bad, N);

    CHECK(sx_args_release(args));
    CHECK(sx_kernel_release(k));
    CHECK(sx_usm_free(ctx, x));
    CHECK(sx_usm_free(ctx, y));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    return bad ? 1 : 0;
}
