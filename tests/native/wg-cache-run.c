/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* wg-cache-run.c: one process of tests/native/wg-cache.sh. Registers the
 * two halves of a linked program of compiled work-group images
 * (native-wg-link-a/b: each imports what the other exports), launches the
 * kernel that needs both on the native device and checks its results.
 * The script runs it twice against one persistent cache directory. */
#include <stdio.h>
#include <stdlib.h>

#include <sycl-ext/sx.h>

#include "../util/sxt.h"

#define CHECK(call)                                                                                  \
    do {                                                                                             \
        sx_result r_ = (call);                                                                       \
        if (r_ != SX_SUCCESS) {                                                                      \
            fprintf(stderr, "%s: %s: %s\n", #call, sx_result_name(r_), sx_last_error());             \
            return 1;                                                                                \
        }                                                                                            \
    } while (0)

static sxt_image *image_of(const char *file)
{
    char *path = sxt_kernel_path(file);
    size_t size;
    void *bytes = path ? sxt_read_file(path, &size) : NULL;
    free(path);
    sxt_image *im = bytes ? sxt_image_new(SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE, bytes, size) : NULL;
    free(bytes);
    return im;
}

int main(void)
{
    sxt_image *a = image_of("native-wg-link-a.hso"), *b = image_of("native-wg-link-b.hso");
    if (!a || !b) {
        printf("SKIP: native-wg-link-a/b.hso not built\n");
        return 77;
    }
    sxa_kernel_param p[] = {SXT_PARAM_POINTER()};
    if (sxt_image_add_kernel(a, "linked", SX_KERNEL_KIND_ND_RANGE, 1, 1, 1, p, NULL) ||
        sxt_image_add_entry(a, "wg_twice") ||
        sxt_image_add_prop_u32(a, SX_PROP_SET_EXPORTED_SYMBOLS, "wg_twice", 1) ||
        sxt_image_add_prop_u32(a, SX_PROP_SET_IMPORTED_SYMBOLS, "wg_plus_one", 1) ||
        sxt_image_add_prop_u32(a, SX_PROP_SET_IMPORTED_SYMBOLS, "wg_base", 1) ||
        sxt_image_add_entry(b, "wg_plus_one") || sxt_image_add_entry(b, "wg_base") ||
        sxt_image_add_prop_u32(b, SX_PROP_SET_EXPORTED_SYMBOLS, "wg_plus_one", 1) ||
        sxt_image_add_prop_u32(b, SX_PROP_SET_EXPORTED_SYMBOLS, "wg_base", 1) ||
        sxt_image_add_prop_u32(b, SX_PROP_SET_IMPORTED_SYMBOLS, "wg_twice", 1)) {
        fprintf(stderr, "cannot describe the images\n");
        return 1;
    }
    sxt_image *imgs[] = {a, b};
    sx_device_binaries *bin = sxt_binaries(imgs, 2);
    CHECK(sx_init(SX_INIT_DEFAULT));
    CHECK(sx_register_images(bin));
    sx_device devs[16], dev = NULL;
    uint32_t nd = 0;
    CHECK(sx_device_get(NULL, SX_DEVICE_TYPE_CPU, 16, devs, &nd));
    for (uint32_t i = 0; i < nd && i < 16; i++) {
        sx_backend be;
        CHECK(sx_device_get_info(devs[i], SX_DEVICE_INFO_BACKEND, sizeof(be), &be, NULL));
        if (be == SX_BACKEND_NATIVE)
            dev = devs[i];
    }
    if (!dev) {
        fprintf(stderr, "no native device\n");
        return 1;
    }
    sx_context ctx;
    sx_queue q;
    sx_kernel k;
    int *out;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    CHECK(sx_kernel_get("linked", &k));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 64 * sizeof(int), 0, (void **)&out));
    sx_arg arg = {SX_ARG_POINTER, 0, sizeof(void *), out};
    size_t g = 64, l = 8;
    CHECK(sx_queue_launch(q, k, 1, NULL, &g, &l, 1, &arg, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    int bad = 0;
    for (int i = 0; i < 64; i++)
        if (out[i] != (i + 1 + 3) * 10) {
            fprintf(stderr, "out[%d] = %d, expected %d\n", i, out[i], (i + 4) * 10);
            bad = 1;
        }
    printf("linked kernel: %s\n", bad ? "WRONG" : "results checked");
    CHECK(sx_usm_free(ctx, out));
    CHECK(sx_kernel_release(k));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_unregister_images(bin));
    CHECK(sx_fini());
    sxt_binaries_free(bin);
    return bad;
}
