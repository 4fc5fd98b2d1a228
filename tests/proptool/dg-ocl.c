/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dg-ocl.c: proptool's accessor kernels driven by the core and the OpenCL
 * adapter (Oclgrind): the image file of dgacc.cl built with --spir-bc
 * --device-global-accessors is loaded, the device globals' host objects
 * are registered, and sx_queue_device_global_read/write reach the program
 * variables through __sx_dg_access_<symbol>; a kernel sees what the host
 * wrote and the host sees what the kernel wrote.
 * dg-ocl FILE.sximg; exits 77 when no OpenCL device can run the image. */
#include <stdio.h>
#include <string.h>

#include <sycl-ext/sx.h>

#define CHECK(call)                                                                                   \
    do {                                                                                              \
        sx_result r_ = (call);                                                                        \
        if (r_ != SX_SUCCESS) {                                                                       \
            fprintf(stderr, "dg-ocl: %s failed: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

#define EXPECT(cond, ...)                                                                             \
    do {                                                                                              \
        if (!(cond)) {                                                                                \
            fprintf(stderr, "dg-ocl: FAIL %s: ", #cond);                                              \
            fprintf(stderr, __VA_ARGS__);                                                             \
            fputc('\n', stderr);                                                                      \
            failures++;                                                                               \
        }                                                                                             \
    } while (0)

/* Host objects, DPC++'s layout for device_image_scope: { T value; }. */
static int scope_host[4];
static int ro_host;

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    int failures = 0;
    sx_image_file file;
    CHECK(sx_image_file_load(argv[1], &file));
    CHECK(sx_device_global_add(scope_host, "dg_acc_scope", sizeof scope_host, SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                               SX_HOST_ACCESS_READ_WRITE));
    CHECK(sx_device_global_add(&ro_host, "dg_acc_ro", sizeof ro_host, SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                               SX_HOST_ACCESS_READ));
    CHECK(sx_init(0));
    sx_device dev;
    if (sx_device_get_default(&dev) != SX_SUCCESS) {
        printf("SKIP: no OpenCL device: %s\n", sx_last_error());
        return 77;
    }
    sx_context ctx;
    sx_queue q;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    int v[4] = {0};
    sx_result r = sx_queue_device_global_read(q, v, scope_host, sizeof v, 0, 1, 0, NULL, NULL);
    if (r == SX_ERROR_KERNEL_NOT_SUPPORTED || r == SX_ERROR_UNSUPPORTED_FEATURE) {
        printf("SKIP: %s: %s\n", sx_result_name(r), sx_last_error());
        return 77;
    }
    EXPECT(r == SX_SUCCESS && v[0] == 5 && v[3] == 8, "read: %s: %s; %d %d %d %d (want the program's 5 6 7 8)",
           sx_result_name(r), sx_last_error(), v[0], v[1], v[2], v[3]);
    int w[2] = {100, 200};
    CHECK(sx_queue_device_global_write(q, scope_host, w, sizeof w, 4, 1, 0, NULL, NULL));  /* [1], [2] */
    int ro = 0;
    CHECK(sx_queue_device_global_read(q, &ro, &ro_host, sizeof ro, 0, 1, 0, NULL, NULL));
    EXPECT(ro == 42, "dg_acc_ro reads %d (want 42)", ro);
    r = sx_queue_device_global_write(q, &ro_host, &ro, sizeof ro, 0, 1, 0, NULL, NULL);
    EXPECT(r == SX_ERROR_ACCESS_DENIED, "write to host_access=read: %s", sx_result_name(r));
    r = sx_queue_device_global_read(q, v, scope_host, 8, 12, 1, 0, NULL, NULL);
    EXPECT(r == SX_ERROR_INVALID_VALUE, "read past the end: %s", sx_result_name(r));

    /* The kernel sees the host's write and changes the variable. */
    int *out;
    r = sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, sizeof(int), 0, (void **)&out);
    if (r == SX_SUCCESS) {
        sx_kernel k;
        CHECK(sx_kernel_get("__sycl_kernel_acc_sum", &k));
        sx_arg arg = {SX_ARG_POINTER, 0, sizeof(void *), out};
        size_t one = 1;
        CHECK(sx_queue_launch(q, k, 1, NULL, &one, &one, 1, &arg, 0, NULL, NULL));
        CHECK(sx_queue_wait(q));
        EXPECT(*out == 5 + 100 + 200 + 8 + 42, "kernel summed %d (want %d)", *out, 5 + 100 + 200 + 8 + 42);
        CHECK(sx_queue_device_global_read(q, v, scope_host, sizeof v, 0, 1, 0, NULL, NULL));
        EXPECT(v[3] == -1, "the kernel's write reads back as %d (want -1)", v[3]);
        CHECK(sx_kernel_release(k));
        CHECK(sx_usm_free(ctx, out));
    } else {
        printf("dg-ocl: no USM here (%s): kernel part skipped\n", sx_result_name(r));
    }
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    CHECK(sx_device_global_remove(scope_host));
    CHECK(sx_device_global_remove(&ro_host));
    CHECK(sx_image_file_release(file));
    printf("dg-ocl: %s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
