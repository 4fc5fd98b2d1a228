/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-e2e.c: proptool's split of vfsets.clcpp run by the core on the native
 * adapter (host objects per part given with --host and --host-vf): the
 * constructor kernel links the sets (the dummy of set_fp64 where fp64 is
 * hidden), "use" calls Base::foo, "use_fp64" calls Base::bar or is refused
 * as unsupported. Usage: vf-e2e FILE.sximg fp64|nofp64 (set
 * SX_NATIVE_HIDE_ASPECTS=fp64 for the second). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <sycl-ext/sx.h>

static int failures;

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        sx_result r_ = (call);                                                                        \
        if (r_ != SX_SUCCESS) {                                                                       \
            fprintf(stderr, "vf-e2e: %s failed: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

static sx_result launch(sx_queue q, const char *name, void *obj, int *r)
{
    sx_kernel k;
    sx_result rc = sx_kernel_get(name, &k);
    if (rc != SX_SUCCESS)
        return rc;
    size_t g = 1;
    sx_arg a[2] = {{.type = SX_ARG_POINTER, .index = 0, .size = sizeof(void *), .value = obj},
                   {.type = SX_ARG_POINTER, .index = 1, .size = sizeof(void *), .value = r}};
    rc = sx_queue_launch(q, k, 1, NULL, &g, NULL, r ? 2 : 1, a, 0, NULL, NULL);
    if (rc == SX_SUCCESS)
        rc = sx_queue_wait(q);
    sx_kernel_release(k);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: vf-e2e FILE.sximg fp64|nofp64\n");
        return 2;
    }
    bool fp64 = !strcmp(argv[2], "fp64");
    sx_image_file file;
    CHECK(sx_image_file_load(argv[1], &file));
    CHECK(sx_init(0));
    sx_device dev;
    CHECK(sx_device_get_default(&dev));
    int has = -1;
    CHECK(sx_device_has_aspect(dev, SX_ASPECT_FP64, &has));
    if (has != fp64) {
        fprintf(stderr, "vf-e2e: the device %s fp64, expected the opposite\n", has ? "has" : "lacks");
        return 1;
    }
    sx_context ctx;
    sx_queue q;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    void *obj;
    int *r;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 64, 16, &obj));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 2 * sizeof(int), 0, (void **)&r));
    r[0] = 0;
    r[1] = 4;
    CHECK(launch(q, "construct", obj, NULL));
    CHECK(launch(q, "use", obj, r));
    if (r[0] != 1) {
        fprintf(stderr, "vf-e2e: FAIL use: r[0] = %d, expected 1 (Base::foo)\n", r[0]);
        failures++;
    }
    sx_result rc = launch(q, "use_fp64", obj, r);
    if (fp64 && (rc != SX_SUCCESS || r[1] != 13)) {
        fprintf(stderr, "vf-e2e: FAIL use_fp64: %s (%s), r[1] = %d, expected 13 (Base::bar: 4 * 3.25)\n",
                sx_result_name(rc), sx_last_error(), r[1]);
        failures++;
    }
    if (!fp64 && rc != SX_ERROR_KERNEL_NOT_SUPPORTED) {
        fprintf(stderr, "vf-e2e: FAIL use_fp64 without fp64: %s, expected SX_ERROR_KERNEL_NOT_SUPPORTED\n",
                sx_result_name(rc));
        failures++;
    }
    sx_usm_free(ctx, obj);
    sx_usm_free(ctx, r);
    sx_queue_release(q);
    sx_context_release(ctx);
    sx_image_file_release(file);
    sx_fini();
    if (!failures)
        printf("vf-e2e (%s): OK\n", argv[2]);
    return failures ? 1 : 0;
}
