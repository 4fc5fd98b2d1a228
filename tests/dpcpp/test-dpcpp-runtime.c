/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-dpcpp-runtime.c: DPC++'s runtime unit-test scenarios on the fake
 * TEST adapter (issue 14):
 * - sycl/unittests/Extensions/VirtualFunctions/RuntimeLinking.cpp: two
 *   kernel images that both use set-a, with no provider, are linked
 *   together (2 creates, 1 link), and the second kernel reuses the program;
 *   and the closure scenarios DPC++'s notes describe for uses- (several
 *   providers, transitive over the sets of other users);
 * - sycl/unittests/Extensions/DeviceGlobal.cpp: the USM instance's address
 *   is written into the program once, at the first launch; a copy before
 *   the first launch lands in the instance and is not overwritten by its
 *   initialisation; partial copies; out-of-bounds copies fail.
 * The fake adapter logs program calls and program-variable writes
 * (FAKE_LINK_LOG), which stand in for the unit tests' mocked PI calls. */
#include <unistd.h>

#include "../check-util.h"
#include "../vf/vf-images.h"

static sx_device dev;
static sx_context ctx;
static sx_queue q;
static char logpath[64];

static void setup(void)
{
    snprintf(logpath, sizeof(logpath), "/tmp/sx-dpcpp-rt-%d.log", (int)getpid());
    unlink(logpath);
    setenv("SX_ADAPTERS", sxt_build_path("tests/fake/.libs/fake-good.so"), 1);
    setenv("FAKE_LINK_LOG", logpath, 1);
    setenv("SX_CACHE", "0", 1);
    unsetenv("FAKE_FP64");
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&dev));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, 0, &q));
}

static void teardown(void)
{
    sx_fini();
    unlink(logpath);
}

static sx_result launch(const char *name) { return vf_launch(q, name); }
static unsigned log_count(const char *line) { return vf_log_count(logpath, line); }

/* ------------------------------------------------ RuntimeLinking.cpp */

/* VirtualFunctions.A: KernelA's and KernelB's images both carry
 * uses-virtual-functions-set "set-a" (as the unit test builds them: no
 * trailing NUL) and nothing provides set-a. */
START_TEST(runtime_linking_users_linked_together)
{
    vf_spec s[] = {{.bytes = "PROGRAM_A", .kernels = "KernelA", .uses = "set-a", .no_nul = 1},
                   {.bytes = "PROGRAM_B", .kernels = "KernelB", .uses = "set-a", .no_nul = 1}};
    vf_lib *l = vf_lib_new(s, 2);
    CK_OK(sx_register_images(&l->desc));
    CK_OK(launch("KernelA"));
    ck_assert_uint_eq(log_count("create"), 2);  /* one per image */
    ck_assert_uint_eq(log_count("link"), 1);    /* both linked together */
    ck_assert_uint_eq(log_count("link 2"), 1);
    /* The second kernel is in the linked program: nothing new. */
    CK_OK(launch("KernelB"));
    ck_assert_uint_eq(log_count("create"), 2);
    ck_assert_uint_eq(log_count("link"), 1);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* A set provided by two images: the user and both providers, one link. */
START_TEST(runtime_linking_two_providers)
{
    vf_spec s[] = {{.bytes = "user", .kernels = "KernelA", .uses = "set-a", .no_nul = 1},
                   {.bytes = "provider 1", .set = "set-a", .no_nul = 1},
                   {.bytes = "provider 2", .set = "set-a", .no_nul = 1}};
    vf_lib *l = vf_lib_new(s, 3);
    CK_OK(sx_register_images(&l->desc));
    CK_OK(launch("KernelA"));
    ck_assert_uint_eq(log_count("create"), 3);
    ck_assert_uint_eq(log_count("link 3"), 1);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* Recursive: KernelD uses set-d (provided by D0); KernelE's image uses
 * set-d and set-e (provided by E0): launching KernelD links D, D0, E, E0. */
START_TEST(runtime_linking_transitive)
{
    vf_spec s[] = {{.bytes = "D", .kernels = "KernelD", .uses = "set-d", .no_nul = 1},
                   {.bytes = "D0", .set = "set-d", .no_nul = 1},
                   {.bytes = "E", .kernels = "KernelE", .uses = "set-d,set-e", .no_nul = 1},
                   {.bytes = "E0", .set = "set-e", .no_nul = 1},
                   {.bytes = "F unrelated", .kernels = "KernelF", .uses = "set-f", .no_nul = 1}};
    vf_lib *l = vf_lib_new(s, 5);
    CK_OK(sx_register_images(&l->desc));
    CK_OK(launch("KernelD"));
    ck_assert_uint_eq(log_count("create"), 4);
    ck_assert_uint_eq(log_count("link 4"), 1);
    CK_OK(launch("KernelE"));  /* in the same group: cached */
    ck_assert_uint_eq(log_count("link"), 1);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* Our decision beside DPC++'s: a used set whose every provider needs an
 * aspect the device lacks is refused up front (DPC++ would skip the
 * provider and fail at link time or later). */
START_TEST(uses_with_only_incompatible_provider)
{
    vf_spec s[] = {{.bytes = "user", .kernels = "k", .uses = "fp64set"},
                   {.bytes = "provider", .set = "fp64set", .aspect = SX_ASPECT_FP64}};
    vf_lib *l = vf_lib_new(s, 2);
    CK_OK(sx_register_images(&l->desc));
    CK_ERR(launch("k"), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_MSG_HAS("fp64set");
    CK_MSG_HAS("aspect(s) 6");
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* Point 7: a direct call to a virtual function of another image is an
 * import no image exports; the error says why. */
START_TEST(direct_call_into_set_image_explained)
{
    vf_spec s[] = {{.bytes = "kernel", .kernels = "k", .imports = "fb"},
                   {.bytes = "set image", .set = "set-b"}};
    vf_lib *l = vf_lib_new(s, 2);
    CK_OK(sx_register_images(&l->desc));
    CK_ERR(launch("k"), SX_ERROR_LINK_FAILURE);
    CK_MSG_HAS("imports symbol 'fb', which no registered image exports");
    CK_MSG_HAS("virtual-function set image");
    CK_MSG_HAS("calls-indirectly");
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* --------------------------------------------------- DeviceGlobal.cpp */

/* DPC++'s host object of device_global<int[2]>: { int *usm; int value[2]; }. */
typedef struct {
    void *usm;
    int value[2];
} dg_host;

static vf_lib *dg_lib(dg_host *obj)
{
    static const vf_spec s = {.bytes = "dg image", .kernels = "DeviceGlobalTestKernel", .global = "DeviceGlobalName"};
    vf_lib *l = vf_lib_new(&s, 1);
    CK_OK(sx_device_global_add(obj, "DeviceGlobalName", sizeof(obj->value), 0, SX_HOST_ACCESS_READ_WRITE));
    CK_OK(sx_register_images(&l->desc));
    return l;
}

static void dg_done(vf_lib *l, dg_host *obj)
{
    CK_OK(sx_unregister_images(&l->desc));
    CK_OK(sx_device_global_remove(obj));
    vf_lib_free(l);
}

/* DeviceGlobalInitBeforeUse: four launches, one write of the address. */
START_TEST(dg_init_before_use)
{
    dg_host obj = {0};
    vf_lib *l = dg_lib(&obj);
    for (int i = 0; i < 4; i++)
        CK_OK(launch("DeviceGlobalTestKernel"));
    ck_assert_uint_eq(log_count("global_write DeviceGlobalName"), 1);
    dg_done(l, &obj);
}
END_TEST

/* DeviceGlobalCopyToBeforeUseFull / MemcpyToBeforeUseFull. */
START_TEST(dg_copy_to_before_use_full)
{
    dg_host obj = {0};
    vf_lib *l = dg_lib(&obj);
    int vals[2] = {42, 1234}, out[2] = {0, 0};
    CK_OK(sx_queue_device_global_copy_to(q, vals, &obj, sizeof(int), 2, 0, 1, 0, NULL, NULL));
    ck_assert_uint_eq(log_count("global_write"), 0);  /* not written before a launch */
    CK_OK(sx_queue_device_global_read(q, out, &obj, sizeof(out), 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(out[0], 42);
    ck_assert_int_eq(out[1], 1234);
    CK_OK(launch("DeviceGlobalTestKernel"));
    ck_assert_uint_eq(log_count("global_write DeviceGlobalName"), 1);
    memset(out, 0, sizeof(out));
    CK_OK(sx_queue_device_global_read(q, out, &obj, sizeof(out), 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(out[0], 42);  /* initialisation did not overwrite */
    ck_assert_int_eq(out[1], 1234);
    dg_done(l, &obj);
}
END_TEST

/* DeviceGlobalCopyToBeforeUsePartialNoOffset / PartialWithOffset: the
 * rest keeps the initial value (the host object's). */
START_TEST(dg_copy_to_before_use_partial)
{
    dg_host obj = {.value = {7, 8}};
    vf_lib *l = dg_lib(&obj);
    int v = 42, out[2];
    CK_OK(sx_queue_device_global_copy_to(q, &v, &obj, sizeof(int), 1, 0, 1, 0, NULL, NULL));
    CK_OK(sx_queue_device_global_read(q, out, &obj, sizeof(out), 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(out[0], 42);
    ck_assert_int_eq(out[1], 8);
    v = 1234;
    CK_OK(sx_queue_device_global_copy_to(q, &v, &obj, sizeof(int), 1, 1, 1, 0, NULL, NULL));
    CK_OK(launch("DeviceGlobalTestKernel"));
    CK_OK(sx_queue_device_global_read(q, out, &obj, sizeof(out), 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(out[0], 42);
    ck_assert_int_eq(out[1], 1234);
    dg_done(l, &obj);
}
END_TEST

/* DPC++: "Copy to device_global is out of bounds." (errc::invalid). */
START_TEST(dg_copy_out_of_bounds)
{
    dg_host obj = {0};
    vf_lib *l = dg_lib(&obj);
    int v[3] = {0};
    CK_ERR(sx_queue_device_global_copy_to(q, v, &obj, sizeof(int), 3, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("DeviceGlobalName");
    CK_ERR(sx_queue_device_global_copy_from(q, v, &obj, sizeof(int), 1, 2, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    dg_done(l, &obj);
}
END_TEST

/* One context with two devices (issue 29, what DPC++'s users reported):
 * a device global has one USM instance per device; each device's program
 * gets its own instance's address; copies through each device's queue see
 * that device's instance only. */
START_TEST(dg_two_devices)
{
    CK_OK(sx_fini());
    setenv("FAKE_TWO_DEVICES", "1", 1);
    CK_OK(sx_init(0));
    sx_device devs[2];
    uint32_t n = 0;
    CK_OK(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 2, devs, &n));
    ck_assert_uint_eq(n, 2);
    sx_context c2;
    sx_queue qs[2];
    CK_OK(sx_context_create(2, devs, &c2));
    for (int i = 0; i < 2; i++)
        CK_OK(sx_queue_create(c2, devs[i], 0, &qs[i]));
    dg_host obj = {.value = {5, 6}};
    vf_lib *l = dg_lib(&obj);
    int a[2] = {10, 11}, b[2] = {20, 21}, out[2];
    CK_OK(sx_queue_device_global_copy_to(qs[0], a, &obj, sizeof(int), 2, 0, 1, 0, NULL, NULL));
    CK_OK(sx_queue_device_global_copy_to(qs[1], b, &obj, sizeof(int), 1, 0, 1, 0, NULL, NULL));
    for (int i = 0; i < 2; i++)
        CK_OK(vf_launch(qs[i], "DeviceGlobalTestKernel"));
    ck_assert_uint_eq(log_count("global_write DeviceGlobalName"), 2);  /* one program per device */
    CK_OK(sx_queue_device_global_read(qs[0], out, &obj, sizeof(out), 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(out[0], 10);
    ck_assert_int_eq(out[1], 11);
    CK_OK(sx_queue_device_global_read(qs[1], out, &obj, sizeof(out), 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(out[0], 20);
    ck_assert_int_eq(out[1], 6);  /* the rest keeps the initial value */
    for (int i = 0; i < 2; i++)
        CK_OK(sx_queue_release(qs[i]));
    CK_OK(sx_context_release(c2));
    dg_done(l, &obj);
    unsetenv("FAKE_TWO_DEVICES");
}
END_TEST

static Suite *dpcpp_runtime_suite(void)
{
    Suite *s = suite_create("dpcpp-runtime");
    TCase *t = tcase_create("RuntimeLinking");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, runtime_linking_users_linked_together);
    tcase_add_test(t, runtime_linking_two_providers);
    tcase_add_test(t, runtime_linking_transitive);
    tcase_add_test(t, uses_with_only_incompatible_provider);
    tcase_add_test(t, direct_call_into_set_image_explained);
    suite_add_tcase(s, t);
    TCase *d = tcase_create("DeviceGlobal");
    tcase_add_checked_fixture(d, setup, teardown);
    tcase_add_test(d, dg_init_before_use);
    tcase_add_test(d, dg_copy_to_before_use_full);
    tcase_add_test(d, dg_copy_to_before_use_partial);
    tcase_add_test(d, dg_copy_out_of_bounds);
    tcase_add_test(d, dg_two_devices);
    suite_add_tcase(s, d);
    return s;
}

SXT_MAIN(dpcpp_runtime_suite)
