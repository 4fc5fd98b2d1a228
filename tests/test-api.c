/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-api.c: the public API's error paths (NULLs, wrong handles, sizes,
 * calls after fini) and the launch checks, on the fake TEST adapter. */
#include <pthread.h>
#include <string.h>

#include "check-util.h"
#include "fake-image.h"

static sx_device dev;
static sx_context ctx;
static sx_queue q;
static fake_image img;

static void setup(void)
{
    char list[4200];
    snprintf(list, sizeof(list), "%s", sxt_build_path("tests/fake/.libs/fake-good.so"));
    setenv("SX_ADAPTERS", list, 1);
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&dev));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, 0, &q));
    fake_image_init(&img, NULL, 0);
    CK_OK(sx_register_images(&img.desc));
}

static void teardown(void)
{
    sx_unregister_images(&img.desc);
    sx_fini();
}

START_TEST(result_names_and_strings)
{
    for (sx_result r = 0; r < SX_RESULT_COUNT_; r++) {
        ck_assert_msg(strncmp(sx_result_name(r), "SX_", 3) == 0, "no name for %d", r);
        ck_assert_msg(strlen(sx_result_string(r)) > 10, "no sentence for %d", r);
    }
    ck_assert_str_eq(sx_result_name(SX_RESULT_COUNT_), "SX_RESULT_UNKNOWN");
    ck_assert_str_eq(sx_result_name(-5), "SX_RESULT_UNKNOWN");
    ck_assert_str_eq(sx_result_name(SX_ERROR_INVALID_KERNEL_ARGS), "SX_ERROR_INVALID_KERNEL_ARGS");
    uint32_t maj, min, pat;
    CK_OK(sx_get_version(&maj, &min, &pat));
    ck_assert_uint_eq(maj, SX_VERSION_MAJOR);
    ck_assert_uint_eq(min, SX_VERSION_MINOR);
    CK_ERR(sx_get_version(NULL, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    CK_ERR(sx_set_log_level(99), SX_ERROR_INVALID_ENUMERATION);
}
END_TEST

static void *other_thread(void *arg)
{
    sx_init(0x40); /* fails: sets this thread's message only */
    return NULL;
}

START_TEST(last_error_is_per_thread)
{
    CK_ERR(sx_queue_create(ctx, dev, 0x100, NULL), SX_ERROR_INVALID_NULL_POINTER);
    char mine[256];
    snprintf(mine, sizeof(mine), "%s", sx_last_error());
    pthread_t t;
    pthread_create(&t, NULL, other_thread, NULL);
    pthread_join(t, NULL);
    ck_assert_str_eq(sx_last_error(), mine);
}
END_TEST

START_TEST(null_and_wrong_handles)
{
    sx_queue q2;
    CK_ERR(sx_queue_create(NULL, dev, 0, &q2), SX_ERROR_INVALID_NULL_HANDLE);
    CK_ERR(sx_queue_create((sx_context)dev, dev, 0, &q2), SX_ERROR_INVALID_HANDLE);
    CK_MSG_HAS("context");
    CK_ERR(sx_queue_create(ctx, (sx_device)ctx, 0, &q2), SX_ERROR_INVALID_HANDLE);
    CK_ERR(sx_queue_create(ctx, dev, 0x100, &q2), SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_context_create(0, &dev, &ctx), SX_ERROR_INVALID_SIZE);
    CK_ERR(sx_context_create(1, NULL, &ctx), SX_ERROR_INVALID_NULL_POINTER);
    sx_device twice[2] = {dev, dev};
    sx_context c2;
    CK_ERR(sx_context_create(2, twice, &c2), SX_ERROR_INVALID_DEVICE);
    CK_ERR(sx_device_get_info(NULL, SX_DEVICE_INFO_NAME, 0, NULL, NULL), SX_ERROR_INVALID_NULL_HANDLE);
    CK_ERR(sx_device_get_info(dev, 999, 0, NULL, NULL), SX_ERROR_INVALID_ENUMERATION);
    CK_ERR(sx_event_release(NULL), SX_ERROR_INVALID_NULL_HANDLE);
    CK_ERR(sx_event_wait(1, (sx_event *)&q), SX_ERROR_INVALID_HANDLE);
    CK_ERR(sx_kernel_release((sx_kernel)q), SX_ERROR_INVALID_HANDLE);
    CK_ERR(sx_platform_get(0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    CK_ERR(sx_adapter_get(0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
}
END_TEST

START_TEST(two_call_info)
{
    size_t n = 0;
    CK_OK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, 0, NULL, &n));
    ck_assert_uint_eq(n, strlen("fake device") + 1);
    char small[4];
    CK_ERR(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(small), small, NULL), SX_ERROR_INVALID_SIZE);
    CK_MSG_HAS("4 bytes");
    CK_ERR(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    sx_platform p;
    CK_OK(sx_device_get_info(dev, SX_DEVICE_INFO_PLATFORM, sizeof(p), &p, NULL));
    char pname[64];
    CK_OK(sx_platform_get_info(p, SX_PLATFORM_INFO_NAME, sizeof(pname), pname, NULL));
    ck_assert_str_eq(pname, "fake platform");
    int has = -1;
    CK_OK(sx_device_has_aspect(dev, SX_ASPECT_CUSTOM, &has));
    ck_assert_int_eq(has, 1);
    CK_OK(sx_device_has_aspect(dev, SX_ASPECT_FP64, &has));
    ck_assert_int_eq(has, 0);
    CK_OK(sx_device_has_aspect(dev, 1000, &has));
    ck_assert_int_eq(has, 0);
}
END_TEST

START_TEST(usm_tracks_allocations)
{
    void *p;
    CK_ERR(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, 0, 0, &p), SX_ERROR_INVALID_SIZE);
    CK_ERR(sx_usm_alloc(ctx, dev, 17, 64, 0, &p), SX_ERROR_INVALID_ENUMERATION);
    CK_ERR(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, 64, 3, &p), SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_usm_alloc(ctx, NULL, SX_USM_TYPE_SHARED, 64, 0, &p), SX_ERROR_INVALID_NULL_HANDLE);
    CK_OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, 64, 0, &p));
    sx_usm_type t;
    size_t size;
    CK_OK(sx_usm_get_info(ctx, (char *)p + 10, &t, &size));
    ck_assert_uint_eq(t, SX_USM_TYPE_DEVICE);
    ck_assert_uint_eq(size, 64);
    int stack_var;
    CK_ERR(sx_usm_free(ctx, &stack_var), SX_ERROR_INVALID_VALUE);
    CK_OK(sx_usm_free(ctx, p));
    CK_ERR(sx_usm_free(ctx, p), SX_ERROR_INVALID_VALUE); /* double free caught */
    CK_OK(sx_usm_free(ctx, NULL));
    /* Left allocated on purpose: context teardown frees it (valgrind sees). */
    CK_OK(sx_usm_alloc(ctx, NULL, SX_USM_TYPE_HOST, 32, 0, &p));
}
END_TEST

START_TEST(queue_commands_check_arguments)
{
    char a[16] = "hello", b[16];
    sx_event e;
    CK_OK(sx_queue_memcpy(q, 1, b, a, 6, 0, NULL, &e));
    ck_assert_str_eq(b, "hello");
    sx_event_status st;
    CK_OK(sx_event_get_status(e, &st));
    ck_assert_int_eq(st, SX_EVENT_STATUS_COMPLETE);
    CK_OK(sx_queue_memcpy(q, 0, b, a, 6, 1, &e, NULL));
    CK_ERR(sx_queue_memcpy(q, 0, b, a, 6, 1, NULL, NULL), SX_ERROR_INVALID_EVENT_WAIT_LIST);
    sx_event bogus[1] = {(sx_event)q};
    CK_ERR(sx_queue_memcpy(q, 0, b, a, 6, 1, bogus, NULL), SX_ERROR_INVALID_EVENT_WAIT_LIST);
    CK_MSG_HAS("entry 0");
    CK_OK(sx_event_release(e));
    CK_ERR(sx_queue_memcpy(q, 0, a + 2, a, 6, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("overlap");
    CK_ERR(sx_queue_memcpy(q, 0, NULL, a, 6, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    int pat = 7;
    CK_ERR(sx_queue_fill(q, b, &pat, 3, 12, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_queue_fill(q, b, &pat, 4, 10, 0, NULL, NULL), SX_ERROR_INVALID_SIZE);
    /* The fake adapter has no fill: the core's stub answers. */
    CK_ERR(sx_queue_fill(q, b, &pat, 4, 12, 0, NULL, NULL), SX_ERROR_UNSUPPORTED_FEATURE);
    CK_MSG_HAS("usm_fill");
    CK_ERR(sx_queue_barrier(q, 0, NULL, NULL), SX_ERROR_UNSUPPORTED_FEATURE);
    CK_OK(sx_queue_wait(q));
}
END_TEST

START_TEST(launch_checks_arguments_and_shape)
{
    sx_kernel k;
    CK_ERR(sx_kernel_get("nope", &k), SX_ERROR_INVALID_KERNEL_NAME);
    CK_MSG_HAS("nope");
    CK_OK(sx_kernel_get("k_args", &k));
    uint32_t v;
    CK_OK(sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_BACKEND_ARGS, sizeof(v), &v, NULL));
    ck_assert_uint_eq(v, 3);
    CK_OK(sx_kernel_get_info(k, SX_KERNEL_INFO_DIMENSIONS, sizeof(v), &v, NULL));
    ck_assert_uint_eq(v, 1);
    unsigned long out = 0;
    int val = 5;
    sx_arg args[3] = {
        {SX_ARG_POINTER, 0, sizeof(void *), &out},
        {SX_ARG_VALUE, 1, sizeof(int), &val},
        {SX_ARG_LOCAL, 2, 256, NULL},
    };
    size_t g[3] = {64, 4, 4}, l[3] = {16, 2, 2};
    CK_OK(sx_queue_launch(q, k, 1, NULL, g, l, 3, args, 0, NULL, NULL));
    ck_assert_uint_ge(out, 1); /* the fake adapter wrote through the pointer */
    /* args in any order */
    sx_arg rev[3] = {args[2], args[1], args[0]};
    CK_OK(sx_queue_launch(q, k, 1, NULL, g, NULL, 3, rev, 0, NULL, NULL));

    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, l, 2, args, 0, NULL, NULL), SX_ERROR_INVALID_KERNEL_ARGS);
    CK_MSG_HAS("argument 2 is not set");
    sx_arg bad[3] = {args[0], args[1], {SX_ARG_LOCAL, 3, 256, NULL}};
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, l, 3, bad, 0, NULL, NULL), SX_ERROR_INVALID_ARGUMENT_INDEX);
    CK_MSG_HAS("index 3");
    bad[2] = args[1];
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, l, 3, bad, 0, NULL, NULL), SX_ERROR_INVALID_ARGUMENT_INDEX);
    CK_MSG_HAS("twice");
    bad[2] = args[2];
    bad[1].size = 8;
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, l, 3, bad, 0, NULL, NULL), SX_ERROR_INVALID_ARGUMENT_SIZE);
    CK_MSG_HAS("8 bytes, its parameter 4");
    bad[1] = args[1];
    bad[0].type = SX_ARG_VALUE;
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, l, 3, bad, 0, NULL, NULL), SX_ERROR_INVALID_KERNEL_ARGS);
    bad[0] = args[0];
    bad[2].size = 0;
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, l, 3, bad, 0, NULL, NULL), SX_ERROR_INVALID_ARGUMENT_SIZE);
    bad[2].type = 9;
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, l, 3, bad, 0, NULL, NULL), SX_ERROR_INVALID_ENUMERATION);

    CK_ERR(sx_queue_launch(q, k, 0, NULL, g, l, 3, args, 0, NULL, NULL), SX_ERROR_INVALID_WORK_DIMENSION);
    CK_ERR(sx_queue_launch(q, k, 4, NULL, g, l, 3, args, 0, NULL, NULL), SX_ERROR_INVALID_WORK_DIMENSION);
    size_t l_bad[3] = {10, 1, 1};
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, l_bad, 3, args, 0, NULL, NULL), SX_ERROR_INVALID_WORK_GROUP_SIZE);
    CK_MSG_HAS("does not divide global size 64");
    size_t g_big[3] = {128, 128, 1}, l_big[3] = {32, 4, 1};
    CK_ERR(sx_queue_launch(q, k, 2, NULL, g_big, l_big, 3, args, 0, NULL, NULL), SX_ERROR_INVALID_WORK_GROUP_SIZE);
    CK_MSG_HAS("limit of 64");
    size_t g0[1] = {0};
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g0, NULL, 3, args, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, NULL, 3, NULL, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    CK_ERR(sx_queue_launch(q, k, 1, NULL, NULL, NULL, 3, args, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);

    /* No signature: the adapter gets whatever is given. */
    sx_kernel plain;
    CK_OK(sx_kernel_get("k_plain", &plain));
    CK_OK(sx_queue_launch(q, plain, 1, NULL, g, NULL, 0, NULL, 0, NULL, NULL));
    CK_OK(sx_kernel_release(plain));
    CK_OK(sx_kernel_release(k));
}
END_TEST

#define THREADS 8
static sx_kernel shared_kernel;
static void *launcher(void *arg)
{
    unsigned long out = 0;
    int val = (int)(intptr_t)arg;
    sx_arg args[3] = {{SX_ARG_POINTER, 0, sizeof(void *), &out}, {SX_ARG_VALUE, 1, 4, &val}, {SX_ARG_LOCAL, 2, 64, NULL}};
    size_t g[1] = {16};
    for (int i = 0; i < 2000; i++)
        if (sx_queue_launch(q, shared_kernel, 1, NULL, g, NULL, 3, args, 0, NULL, NULL) != SX_SUCCESS || out == 0)
            return (void *)1;
    return NULL;
}

START_TEST(concurrent_launches)
{
    CK_OK(sx_kernel_get("k_args", &shared_kernel));
    pthread_t t[THREADS];
    for (intptr_t i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, launcher, (void *)i);
    for (int i = 0; i < THREADS; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        ck_assert_ptr_null(ret);
    }
    CK_OK(sx_kernel_release(shared_kernel));
}
END_TEST

START_TEST(build_failure_and_missing_aspect)
{
    fake_image fail, fp64;
    fake_image_init(&fail, "-fail-build", 0);
    fail.entries[0].name = (char *)"k_fail";
    fail.sig_props[0].name = (char *)"k_fail";
    fail.entries[1].name = (char *)"k_fail2";
    CK_OK(sx_register_images(&fail.desc));
    sx_kernel k;
    CK_OK(sx_kernel_get("k_fail2", &k));
    size_t g[1] = {1};
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, NULL, 0, NULL, 0, NULL, NULL), SX_ERROR_BUILD_FAILURE);
    CK_MSG_HAS("failed on purpose");
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_unregister_images(&fail.desc));

    fake_image_init(&fp64, NULL, SX_ASPECT_FP64);
    fp64.entries[1].name = (char *)"k_fp64";
    CK_OK(sx_register_images(&fp64.desc));
    CK_OK(sx_kernel_get("k_fp64", &k));
    int ok = -1;
    CK_OK(sx_kernel_is_compatible(k, dev, &ok));
    ck_assert_int_eq(ok, 0);
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, NULL, 0, NULL, 0, NULL, NULL), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_MSG_HAS("aspect 6");
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_unregister_images(&fp64.desc));
}
END_TEST

START_TEST(calls_after_fini)
{
    sx_kernel k;
    CK_OK(sx_kernel_get("k_args", &k));
    CK_OK(sx_unregister_images(&img.desc));
    size_t g[1] = {1};
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, NULL, 0, NULL, 0, NULL, NULL), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_MSG_HAS("unregistered");
    CK_OK(sx_register_images(&img.desc));
    CK_OK(sx_fini()); /* releases the queue and context the test still holds */
    CK_ERR(sx_queue_wait(q), SX_ERROR_UNINITIALIZED);
    CK_ERR(sx_device_get_default(&dev), SX_ERROR_UNINITIALIZED);
    CK_ERR(sx_kernel_get("k_args", &k), SX_ERROR_UNINITIALIZED);
    CK_OK(sx_unregister_images(&img.desc)); /* allowed after fini */
    CK_OK(sx_register_images(&img.desc));   /* and registering too */
    CK_OK(sx_init(0));
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("fake adapter");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, result_names_and_strings);
    tcase_add_test(tc, last_error_is_per_thread);
    tcase_add_test(tc, null_and_wrong_handles);
    tcase_add_test(tc, two_call_info);
    tcase_add_test(tc, usm_tracks_allocations);
    tcase_add_test(tc, queue_commands_check_arguments);
    tcase_add_test(tc, launch_checks_arguments_and_shape);
    tcase_add_test(tc, concurrent_launches);
    tcase_add_test(tc, build_failure_and_missing_aspect);
    tcase_add_test(tc, calls_after_fini);
    suite_add_tcase(s, tc);
    return s;
}

SXT_MAIN(api_suite)
