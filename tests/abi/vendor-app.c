/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vendor-app.c: an application built against the INSTALLED libsycl-ext
 * (tests/abi/vendor-kit.sh): it finds the device SX_DEVICE_SELECTOR picked,
 * checks which adapter serves it, and runs a kernel through the public API.
 * Usage: vendor-app IMAGE.sximg ADAPTER-NAME */
#include <stdio.h>
#include <string.h>

#include <sycl-ext/sx.h>

#define CHECK(call)                                                                     \
    do {                                                                                \
        sx_result r_ = (call);                                                          \
        if (r_ != SX_SUCCESS) {                                                         \
            printf("FAIL %s: %s: %s\n", #call, sx_result_name(r_), sx_last_error());   \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    CHECK(sx_init(0));
    sx_device dev;
    CHECK(sx_device_get_default(&dev));
    char name[64], dname[128];
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_ADAPTER_NAME, sizeof name, name, NULL));
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof dname, dname, NULL));
    if (strcmp(name, argv[2]) != 0) {
        printf("FAIL: the default device '%s' is served by adapter '%s', expected '%s'\n", dname, name, argv[2]);
        return 1;
    }
    printf("PASS selected: '%s' of adapter '%s'\n", dname, name);
    sx_context ctx;
    sx_queue q;
    sx_image_file file;
    sx_kernel k, kb;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    CHECK(sx_image_file_load(argv[1], &file));
    CHECK(sx_kernel_get("vk_scale", &k));
    enum { N = 256 };
    float *in, *out;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&in));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&out));
    for (int i = 0; i < N; i++)
        in[i] = (float)i;
    float a = 2.0f;
    sx_arg args[] = {{SX_ARG_POINTER, 0, sizeof(void *), out},
                     {SX_ARG_POINTER, 1, sizeof(void *), in},
                     {SX_ARG_VALUE, 2, sizeof a, &a}};
    size_t global = N, local = 64;
    CHECK(sx_queue_launch(q, k, 1, NULL, &global, &local, 3, args, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    for (int i = 0; i < N; i++)
        if (out[i] != (float)i * 2.0f + 1.0f) {
            printf("FAIL: out[%d] = %g, expected %g\n", i, out[i], (float)i * 2.0f + 1.0f);
            return 1;
        }
    printf("PASS launch: %d work-items of vk_scale on '%s'\n", N, dname);
    /* A barrier kernel: refused with a reason, never run wrong. */
    CHECK(sx_kernel_get("vk_reverse", &kb));
    sx_arg bargs[] = {{SX_ARG_POINTER, 0, sizeof(void *), out}, {SX_ARG_LOCAL, 1, 4 * sizeof(int), NULL}};
    global = 8;
    local = 4;
    sx_result r = sx_queue_launch(q, kb, 1, NULL, &global, &local, 2, bargs, 0, NULL, NULL);
    if (r != SX_ERROR_UNSUPPORTED_FEATURE || !strstr(sx_last_error(), "barrier")) {
        printf("FAIL: a barrier kernel on a serial device: %s: %s\n", sx_result_name(r), sx_last_error());
        return 1;
    }
    printf("PASS barrier refused: %s\n", sx_last_error());
    CHECK(sx_kernel_release(kb));
    CHECK(sx_kernel_release(k));
    CHECK(sx_usm_free(ctx, in));
    CHECK(sx_usm_free(ctx, out));
    CHECK(sx_image_file_release(file));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    return 0;
}
