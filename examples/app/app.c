/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* app.c: the newcomer's application (README, doc/device-header.md): a
 * device_global the host reads and writes, an image-scope one it may only
 * write, a 2-D free-function kernel taking a struct and local memory, two
 * virtual-function sets in a library module of their own (shapes-lib.clcpp,
 * built apart from shapes.clcpp, whose kernels use them) and an
 * if_device function, every name shared with the device sources through
 * app.h. Runs on the default device or SX_DEVICE_SELECTOR's first; prints
 * "OK" when every result is right, exit 1 otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <sycl-ext/sx.h>

#include "app.h"

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        sx_result r_ = (call);                                                                         \
        if (r_ != SX_SUCCESS) {                                                                        \
            fprintf(stderr, "app: %s failed: %s: %s\n", #call, sx_result_name(r_), sx_last_error());   \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

enum { W = 16, H = 4, LX = 8, NSHAPES = 4 };

static int wrong;
static void expect(const char *what, double got, double want)
{
    if (fabs(got - want) > 1e-5) {
        fprintf(stderr, "app: %s is %g, expected %g\n", what, got, want);
        wrong++;
    }
}

static sx_args args_for(const char *name, sx_kernel *k)
{
    sx_args a;
    CHECK(sx_kernel_get_free_function(name, k));
    CHECK(sx_args_create(*k, &a));
    return a;
}

int main(void)
{
    CHECK(sx_init(0));
    sx_device dev;
    uint32_t found = 0;
    CHECK(sx_device_select("*:*", 1, &dev, &found)); /* SX_DEVICE_SELECTOR's first, else the best */
    char name[256];
    CHECK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    printf("device: %s\n", name);
    sx_context ctx;
    sx_queue q;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));

    /* The device globals: the counter starts at 0, the scale at 2. */
    int zero = 0;
    float two = 2.0f;
    CHECK(sx_queue_device_global_write(q, &launches, &zero, sizeof(zero), 0, 1, 0, NULL, NULL));
    CHECK(sx_queue_device_global_write(q, &scale, &two, sizeof(two), 0, 1, 0, NULL, NULL));

    /* blur2d over a W x H grid in work-groups of LX x 1. */
    float *in, *out;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, W * H * sizeof(float), 0, (void **)&in));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, W * H * sizeof(float), 0, (void **)&out));
    for (int i = 0; i < W * H; i++)
        in[i] = (float)i;
    sx_kernel kb;
    sx_args ab = args_for(SX_KERNEL_NAME(blur2d), &kb);
    struct params p = {1, 0.5f};
    CHECK(sx_args_set_pointer(ab, 0, in));
    CHECK(sx_args_set_pointer(ab, 1, out));
    CHECK(sx_args_set(ab, 2, sizeof(p), &p));
    CHECK(sx_args_set_local(ab, 3, LX * sizeof(float))); /* work_group_memory<float[LX]> */
    const size_t global[2] = {W, H}, local[2] = {LX, 1};
    CHECK(sx_nd_launch(q, ab, 2, global, local, NULL, 0, NULL, NULL));
    CHECK(sx_nd_launch(q, ab, 2, global, local, NULL, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float left = x % LX ? in[y * W + x - 1] : 0.0f;
            char what[64];
            snprintf(what, sizeof(what), "blur2d out[%d][%d]", y, x);
            expect(what, out[y * W + x], (in[y * W + x] + left) * 2.0f + 0.5f + 1.0f);
        }
    int count = -1;
    CHECK(sx_queue_device_global_read(q, &count, &launches, sizeof(count), 0, 1, 0, NULL, NULL));
    expect("launches (device_global, read_write)", count, 2);
    /* host_access write: the host may not read the scale back. */
    float s;
    sx_result r = sx_queue_device_global_read(q, &s, &scale, sizeof(s), 0, 1, 0, NULL, NULL);
    if (r != SX_ERROR_ACCESS_DENIED) {
        fprintf(stderr, "app: reading the write-only scale gave %s, expected SX_ERROR_ACCESS_DENIED\n", sx_result_name(r));
        wrong++;
    } else
        printf("scale (host_access write) refused a read: %s\n", sx_last_error());

    /* if_device: host_only's body (4242) must not run on the device. */
    int *res;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 2 * sizeof(int), 0, (void **)&res));
    res[0] = res[1] = 0;
    sx_kernel kw;
    sx_args aw = args_for(SX_KERNEL_NAME(where_am_i), &kw);
    CHECK(sx_args_set_pointer(aw, 0, res));
    CHECK(sx_single_task(q, aw, NULL, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    expect("where_am_i r[0] (sycl-call-if-on-host body must not run)", res[0], 1);
    expect("where_am_i r[1]", res[1], 2);

    /* Virtual functions: objects made by one kernel, called by two others,
     * each through a set in an image of its own. */
    char *objs;
    float *areas, *perims;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, NSHAPES * APP_SHAPE_BYTES, 64, (void **)&objs));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, NSHAPES * sizeof(float), 0, (void **)&areas));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, NSHAPES * sizeof(float), 0, (void **)&perims));
    sx_kernel km, ka, kp;
    sx_args am = args_for(SX_KERNEL_NAME(make_shapes), &km);
    sx_args aa = args_for(SX_KERNEL_NAME(shape_areas), &ka);
    sx_args ap = args_for(SX_KERNEL_NAME(shape_perims), &kp);
    int n = NSHAPES;
    CHECK(sx_queue_device_global_write(q, &area_calls, &zero, sizeof(zero), 0, 1, 0, NULL, NULL));
    CHECK(sx_args_set_pointer(am, 0, objs));
    CHECK(sx_args_set(am, 1, sizeof(n), &n));
    CHECK(sx_single_task(q, am, NULL, 0, NULL, NULL));
    CHECK(sx_args_set_pointer(aa, 0, objs));
    CHECK(sx_args_set_pointer(aa, 1, areas));
    CHECK(sx_args_set_pointer(ap, 0, objs));
    CHECK(sx_args_set_pointer(ap, 1, perims));
    const size_t ns[1] = {NSHAPES};
    CHECK(sx_nd_launch(q, aa, 1, ns, NULL, NULL, 0, NULL, NULL));
    CHECK(sx_nd_launch(q, ap, 1, ns, NULL, NULL, 0, NULL, NULL));
    sx_event done;
    float copy[NSHAPES];
    CHECK(sx_queue_memcpy(q, 0, copy, areas, sizeof(copy), 0, NULL, &done));
    CHECK(sx_event_wait(1, &done));
    CHECK(sx_event_release(done));
    CHECK(sx_queue_wait(q));
    for (int i = 0; i < NSHAPES; i++) {
        char what[64];
        snprintf(what, sizeof(what), "Square(%d).area() (set %s)", i + 1, SX_VF_SET_NAME(set_area));
        expect(what, copy[i], (i + 1.0) * (i + 1.0));
        snprintf(what, sizeof(what), "Square(%d).perim() (set %s)", i + 1, SX_VF_SET_NAME(set_perim));
        expect(what, perims[i], 4.0 * (i + 1));
    }

    /* area_calls: counted by the library's set, read through the app's name. */
    CHECK(sx_queue_device_global_read(q, &count, &area_calls, sizeof(count), 0, 1, 0, NULL, NULL));
    expect("area_calls (device_global used by set_area in the library module)", count, NSHAPES);
    CHECK(sx_queue_device_global_read(q, &count, &launches, sizeof(count), 0, 1, 0, NULL, NULL));
    expect("launches at the end", count, 2);

    sx_args handles[] = {ab, aw, am, aa, ap};
    for (size_t i = 0; i < sizeof(handles) / sizeof(*handles); i++)
        CHECK(sx_args_release(handles[i]));
    sx_kernel ks[] = {kb, kw, km, ka, kp};
    for (size_t i = 0; i < sizeof(ks) / sizeof(*ks); i++)
        CHECK(sx_kernel_release(ks[i]));
    void *mem[] = {in, out, res, objs, areas, perims};
    for (size_t i = 0; i < sizeof(mem) / sizeof(*mem); i++)
        CHECK(sx_usm_free(ctx, mem[i]));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    if (wrong) {
        printf("FAIL: %d results wrong\n", wrong);
        return 1;
    }
    printf("OK: blur2d, device globals, if_device and two virtual-function sets right\n");
    return 0;
}
