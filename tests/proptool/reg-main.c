/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* reg-main.c: proptool's images seen by the core. Built by run.sh twice:
 * with the generated registration C (constructor registration), and with
 * -DUSE_IMAGE_FILE (sx_image_file_load of the .sximg). Both check the
 * kernels' kind, dimensions and parameters and launch __sycl_kernel_scale
 * (a struct by value and local memory) on the native adapter. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <sycl-ext/sx.h>

#ifndef USE_IMAGE_FILE
sx_result testimg_registration_result(void);
#endif

static int failures;

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        sx_result r_ = (call);                                                                        \
        if (r_ != SX_SUCCESS) {                                                                       \
            fprintf(stderr, "reg-main: %s failed: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

#define EXPECT(cond, ...)                                                                             \
    do {                                                                                              \
        if (!(cond)) {                                                                                \
            fprintf(stderr, "reg-main: FAIL %s: ", #cond);                                            \
            fprintf(stderr, __VA_ARGS__);                                                             \
            fputc('\n', stderr);                                                                      \
            failures++;                                                                               \
        }                                                                                             \
    } while (0)

static int kernel_info(const char *name, uint32_t kind, uint32_t dims, uint32_t nargs)
{
    sx_kernel k;
    CHECK(sx_kernel_get(name, &k));
    uint32_t v;
    CHECK(sx_kernel_get_info(k, SX_KERNEL_INFO_KIND, sizeof v, &v, NULL));
    EXPECT(v == kind, "%s: kind %u, expected %u", name, v, kind);
    CHECK(sx_kernel_get_info(k, SX_KERNEL_INFO_DIMENSIONS, sizeof v, &v, NULL));
    EXPECT(v == dims, "%s: dims %u, expected %u", name, v, dims);
    CHECK(sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_BACKEND_ARGS, sizeof v, &v, NULL));
    EXPECT(v == nargs, "%s: %u args, expected %u", name, v, nargs);
    CHECK(sx_kernel_release(k));
    return 0;
}

struct pair {
    int a;
    float b;
    char c;
    double d;
};

int main(int argc, char **argv)
{
#ifdef USE_IMAGE_FILE
    if (argc != 2) {
        fprintf(stderr, "usage: reg-main FILE.sximg\n");
        return 2;
    }
    sx_image_file file;
    CHECK(sx_image_file_load(argv[1], &file));
#else
    (void)argc;
    (void)argv;
    /* The constructor ran before main. */
    CHECK(testimg_registration_result());
#endif
    CHECK(sx_init(0));
    if (kernel_info("__sycl_kernel_scale", SX_KERNEL_KIND_ND_RANGE, 1, 4) ||
        kernel_info("__sycl_kernel_once", SX_KERNEL_KIND_SINGLE_TASK, 0, 1) ||
        kernel_info("__sycl_kernel_grid", SX_KERNEL_KIND_ND_RANGE, 2, 5) ||
        kernel_info("plain_atomic", SX_KERNEL_KIND_PLAIN, 0, 2))
        return 1;
    sx_kernel nope;
    EXPECT(sx_kernel_get("no_such_kernel", &nope) == SX_ERROR_INVALID_KERNEL_NAME, "unknown kernel found");

    sx_device dev;
    sx_context ctx;
    sx_queue q;
    CHECK(sx_device_get_default(&dev));
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    enum { N = 64, L = 16 };
    float *out;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&out));
    sx_kernel k;
    CHECK(sx_kernel_get("__sycl_kernel_scale", &k));
    struct pair s = {2, 0.5f, 3, 0.25};
    int n = 10;
    sx_arg args[] = {
        {SX_ARG_POINTER, 0, sizeof(void *), out},
        {SX_ARG_VALUE, 1, sizeof s, &s},
        {SX_ARG_LOCAL, 2, L * sizeof(float), NULL},
        {SX_ARG_VALUE, 3, sizeof n, &n},
    };
    size_t global[1] = {N}, local[1] = {L};
    CHECK(sx_queue_launch(q, k, 1, NULL, global, local, 4, args, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    int bad = 0;
    for (int i = 0; i < N; i++) {
        float want = (float)i * 0.5f + 2.0f + 3.0f + 0.25f + 10.0f;
        if (fabsf(out[i] - want) > 1e-5f) {
            if (bad++ < 3)
                fprintf(stderr, "reg-main: out[%d] = %g, expected %g\n", i, out[i], want);
        }
    }
    EXPECT(bad == 0, "%d of %d results wrong", bad, N);
    CHECK(sx_kernel_release(k));
    CHECK(sx_usm_free(ctx, out));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
#ifdef USE_IMAGE_FILE
    CHECK(sx_image_file_release(file));
#endif
    printf("reg-main: %s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
