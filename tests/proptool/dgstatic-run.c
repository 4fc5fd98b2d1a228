/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dgstatic-run.c: dgstatic.cl's internal device globals through the public
 * API on the device SX_ADAPTERS picks: written from the host, read by the
 * kernel, changed there and read back (issue 29, point 5). Usage:
 * dgstatic-run FILE.sximg; exit 0 pass, 1 fail, 77 no device. */
#include <stdio.h>

#include <sycl-ext/device-global.h>
#include <sycl-ext/sx.h>

SX_DEVICE_GLOBAL_IMAGE_SCOPE(int, scope_dg, "uid_static_scope", SX_HOST_ACCESS_READ_WRITE);
SX_DEVICE_GLOBAL_INIT(int, usm_dg, "uid_static_usm", SX_HOST_ACCESS_READ_WRITE, 7);

#define TRY(call)                                                                                     \
    do {                                                                                              \
        sx_result r_ = (call);                                                                        \
        if (r_ != SX_SUCCESS) {                                                                       \
            fprintf(stderr, "dgstatic-run: %s: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: dgstatic-run FILE.sximg\n");
        return 2;
    }
    sx_image_file file;
    TRY(sx_image_file_load(argv[1], &file));
    TRY(sx_init(0));
    sx_device dev;
    if (sx_device_get_default(&dev) != SX_SUCCESS) {
        printf("SKIP: no device: %s\n", sx_last_error());
        return 77;
    }
    char name[256] = "";
    sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL);
    sx_context ctx;
    sx_queue q;
    TRY(sx_context_create(1, &dev, &ctx));
    TRY(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    int *out;
    TRY(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 2 * sizeof(int), 0, (void **)&out));
    int v = 31;
    TRY(sx_queue_device_global_write(q, &scope_dg, &v, sizeof(v), 0, 1, 0, NULL, NULL));
    sx_kernel k;
    TRY(sx_kernel_get("dg_static_bump", &k));
    size_t g = 1;
    sx_arg a = {SX_ARG_POINTER, 0, sizeof(void *), out};
    TRY(sx_queue_launch(q, k, 1, NULL, &g, NULL, 1, &a, 0, NULL, NULL));
    TRY(sx_queue_wait(q));
    int scope = 0, usm = 0, bad = 0;
    TRY(sx_queue_device_global_read(q, &scope, &scope_dg, sizeof(scope), 0, 1, 0, NULL, NULL));
    TRY(sx_queue_device_global_read(q, &usm, &usm_dg, sizeof(usm), 0, 1, 0, NULL, NULL));
    if (out[0] != 31 || out[1] != 7 || scope != 41 || usm != 107) {
        fprintf(stderr, "dgstatic-run: FAIL: the kernel saw %d and %d (expected 31 and 7); read back %d and %d "
                "(expected 41 and 107)\n", out[0], out[1], scope, usm);
        bad = 1;
    }
    TRY(sx_kernel_release(k));
    TRY(sx_usm_free(ctx, out));
    TRY(sx_queue_release(q));
    TRY(sx_context_release(ctx));
    TRY(sx_fini());
    TRY(sx_image_file_release(file));
    printf("%s: static device globals on %s\n", bad ? "FAIL" : "PASS", name);
    return bad;
}
