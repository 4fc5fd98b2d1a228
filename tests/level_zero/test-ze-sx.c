/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-ze-sx.c: the Level Zero adapter under the public sx API (SX_ADAPTERS forcing it), with the TEST DRIVER under the real loader. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check-util.h"

#define ADAPTER_SO "adapters/level_zero/.libs/sx-adapter-level_zero.so"
#define DRIVER_SO "tests/level_zero/.libs/libze_sx_test_driver.so"

static char log_path[64];
static unsigned char *spv;
static size_t spv_size;

static int log_count(const char *text)
{
    FILE *f = fopen(log_path, "r");
    int n = 0;
    char line[2048];
    while (f && fgets(line, sizeof(line), f))
        n += strstr(line, text) != NULL;
    if (f)
        fclose(f);
    return n;
}

static void use_adapter(int with_driver)
{
    setenv("SX_ADAPTERS", sxt_build_path(ADAPTER_SO), 1);
    if (with_driver)
        setenv("ZE_ENABLE_ALT_DRIVERS", sxt_build_path(DRIVER_SO), 1);
    else
        unsetenv("ZE_ENABLE_ALT_DRIVERS");
    snprintf(log_path, sizeof(log_path), "/tmp/ze-sx-log.XXXXXX");
    int fd = mkstemp(log_path);
    ck_assert(fd >= 0);
    close(fd);
    setenv("ZE_TEST_DRIVER_LOG", log_path, 1);
    unsetenv("ZE_TEST_DRIVER_FAIL");
    unsetenv("SX_DEVICE_SELECTOR");
}

static sx_adapter the_adapter(void)
{
    sx_adapter a[8];
    uint32_t n = 0;
    CK_OK(sx_adapter_get(8, a, &n));
    ck_assert_uint_eq(n, 1);  /* SX_ADAPTERS names only ours */
    char name[64];
    CK_OK(sx_adapter_get_info(a[0], SX_ADAPTER_INFO_NAME, sizeof(name), name, NULL));
    ck_assert_str_eq(name, "level_zero");
    return a[0];
}

static void cleanup(void)
{
    sx_fini();
    unlink(log_path);
}

START_TEST(test_sx_zero_drivers)
{
    use_adapter(0);
    CK_OK(sx_init(0));
    sx_adapter a = the_adapter();
    sx_result st = -1;
    CK_OK(sx_adapter_get_info(a, SX_ADAPTER_INFO_STATUS, sizeof(st), &st, NULL));
    ck_assert_int_eq(st, SX_SUCCESS);  /* a missing driver is not a broken adapter */
    uint32_t np = 9;
    CK_OK(sx_adapter_get_info(a, SX_ADAPTER_INFO_NUM_PLATFORMS, sizeof(np), &np, NULL));
    char text[512];
    CK_OK(sx_adapter_get_info(a, SX_ADAPTER_INFO_STATUS_TEXT, sizeof(text), text, NULL));
    if (np == 0) {
        ck_assert_msg(strstr(text, "zeInit: ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)"), "status '%s'", text);
        sx_device d;
        CK_ERR(sx_device_get_default(&d), SX_ERROR_DEVICE_NOT_FOUND);
    }
    cleanup();
}
END_TEST

START_TEST(test_sx_discovery_and_info)
{
    use_adapter(1);
    CK_OK(sx_init(0));
    sx_adapter a = the_adapter();
    char text[512];
    CK_OK(sx_adapter_get_info(a, SX_ADAPTER_INFO_STATUS_TEXT, sizeof(text), text, NULL));
    ck_assert_msg(strstr(text, "1 driver, 1 device"), "status '%s'", text);
    sx_backend b = 0;
    CK_OK(sx_adapter_get_info(a, SX_ADAPTER_INFO_BACKEND, sizeof(b), &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_LEVEL_ZERO);
    sx_device d;
    CK_OK(sx_device_get_default(&d));
    CK_OK(sx_device_get_info(d, SX_DEVICE_INFO_NAME, sizeof(text), text, NULL));
    ck_assert_msg(strstr(text, "TEST DRIVER"), "device '%s'", text);
    int has = 0;
    CK_OK(sx_device_has_aspect(d, SX_ASPECT_FP64, &has));
    ck_assert_int_eq(has, 1);
    CK_OK(sx_device_has_aspect(d, SX_ASPECT_CPU, &has));
    ck_assert_int_eq(has, 0);
    cleanup();
}
END_TEST

START_TEST(test_sx_usm_copies)
{
    use_adapter(1);
    CK_OK(sx_init(0));
    sx_device d;
    sx_context c;
    sx_queue q;
    CK_OK(sx_device_get_default(&d));
    CK_OK(sx_context_create(1, &d, &c));
    CK_OK(sx_queue_create(c, d, SX_QUEUE_PROFILING, &q));
    int *p;
    CK_OK(sx_usm_alloc(c, d, SX_USM_TYPE_DEVICE, 64 * sizeof(int), 0, (void **)&p));
    int pat = 0x1234, out[64];
    sx_event ev;
    CK_OK(sx_queue_fill(q, p, &pat, sizeof(pat), sizeof(out), 0, NULL, &ev));
    CK_OK(sx_queue_memcpy(q, 1, out, p, sizeof(out), 1, &ev, NULL));
    for (int i = 0; i < 64; i++)
        ck_assert_int_eq(out[i], 0x1234);
    uint64_t s = 0, e = 0;
    CK_OK(sx_event_get_profiling(ev, SX_PROFILING_START, &s));
    CK_OK(sx_event_get_profiling(ev, SX_PROFILING_END, &e));
    ck_assert(s > 0 && s <= e);
    CK_OK(sx_event_release(ev));
    CK_OK(sx_usm_free(c, p));
    CK_OK(sx_queue_release(q));
    CK_OK(sx_context_release(c));
    ck_assert_int_ge(log_count("zeCommandListAppendMemoryFill pattern=4 size=256"), 1);
    cleanup();
}
END_TEST

/* A registration descriptor for the SPIR-V test image (no signatures: the
 * Level Zero adapter reads the kernels from the module). */
typedef struct spv_image {
    sx_offload_entry entries[2];
    sx_device_binary bin;
    sx_device_binaries desc;
} spv_image;

static void spv_image_init(spv_image *im)
{
    memset(im, 0, sizeof(*im));
    im->entries[0].name = (char *)"ze_vadd";
    im->entries[1].name = (char *)"ze_args";
    im->bin = (sx_device_binary){.version = SX_DEVICE_BINARY_VERSION,
                                 .kind = SX_OFFLOAD_KIND_SYCL,
                                 .format = SX_BINARY_FORMAT_SPIRV,
                                 .device_target_spec = SX_TARGET_SPIRV64,
                                 .binary_start = spv,
                                 .binary_end = spv + spv_size,
                                 .entries_begin = im->entries,
                                 .entries_end = im->entries + 2};
    im->desc = (sx_device_binaries){.version = SX_DEVICE_BINARIES_VERSION,
                                    .num_device_binaries = 1,
                                    .device_binaries = &im->bin};
}

static int load_spv(void)
{
    FILE *f = fopen(sxt_build_path("tests/level_zero/kernels/ze-prog.spv"), "rb");
    if (!f)
        return 0;
    fseek(f, 0, SEEK_END);
    spv_size = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    spv = malloc(spv_size);
    int ok = spv && fread(spv, 1, spv_size, f) == spv_size;
    fclose(f);
    return ok;
}

START_TEST(test_sx_launch_spirv)
{
    ck_assert_msg(load_spv(), "ze-prog.spv missing");
    use_adapter(1);
    CK_OK(sx_init(0));
    spv_image im;
    spv_image_init(&im);
    CK_OK(sx_register_images(&im.desc));
    sx_device d;
    sx_context c;
    sx_queue q;
    CK_OK(sx_device_get_default(&d));
    CK_OK(sx_context_create(1, &d, &c));
    CK_OK(sx_queue_create(c, d, 0, &q));
    sx_kernel k;
    CK_OK(sx_kernel_get("ze_vadd", &k));
    int compatible = 0;
    CK_OK(sx_kernel_is_compatible(k, d, &compatible));
    ck_assert_int_eq(compatible, 1);
    enum { N = 32 };
    int ha[N], hb[N], hc[N];
    for (int i = 0; i < N; i++) {
        ha[i] = i;
        hb[i] = 3 * i;
    }
    int *a, *b2, *c2;
    CK_OK(sx_usm_alloc(c, d, SX_USM_TYPE_DEVICE, sizeof(ha), 0, (void **)&a));
    CK_OK(sx_usm_alloc(c, d, SX_USM_TYPE_SHARED, sizeof(hb), 0, (void **)&b2));
    CK_OK(sx_usm_alloc(c, d, SX_USM_TYPE_DEVICE, sizeof(hc), 0, (void **)&c2));
    CK_OK(sx_queue_memcpy(q, 0, a, ha, sizeof(ha), 0, NULL, NULL));
    CK_OK(sx_queue_memcpy(q, 0, b2, hb, sizeof(hb), 0, NULL, NULL));
    sx_arg args[3] = {{SX_ARG_POINTER, 0, sizeof(void *), a},
                      {SX_ARG_POINTER, 1, sizeof(void *), b2},
                      {SX_ARG_POINTER, 2, sizeof(void *), c2}};
    size_t g = N, l = 8;
    for (int round = 0; round < 3; round++) {
        CK_OK(sx_queue_launch(q, k, 1, NULL, &g, &l, 3, args, 0, NULL, NULL));
        CK_OK(sx_queue_memcpy(q, 1, hc, c2, sizeof(hc), 0, NULL, NULL));
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(hc[i], 4 * i);
    }
    /* Built once, then found by lookup. */
    ck_assert_int_eq(log_count("zeModuleCreate IL"), 1);
    ck_assert_int_eq(log_count("zeCommandListAppendLaunchKernel ze_vadd"), 3);
    /* Each argument kind through the public launch. */
    sx_kernel k2;
    CK_OK(sx_kernel_get("ze_args", &k2));
    int scale = 7;
    sx_arg args2[3] = {{SX_ARG_POINTER, 0, sizeof(void *), c2},
                       {SX_ARG_VALUE, 1, sizeof(int), &scale},
                       {SX_ARG_LOCAL, 2, 8 * sizeof(int), NULL}};
    CK_OK(sx_queue_launch(q, k2, 1, NULL, &g, &l, 3, args2, 0, NULL, NULL));
    CK_OK(sx_queue_memcpy(q, 1, hc, c2, sizeof(hc), 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(hc[i], 7 * i);
    CK_ERR(sx_queue_launch(q, k2, 1, NULL, &g, &l, 2, args2, 0, NULL, NULL), SX_ERROR_INVALID_KERNEL_ARGS);
    CK_OK(sx_kernel_release(k2));
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_usm_free(c, a));
    CK_OK(sx_usm_free(c, b2));
    CK_OK(sx_usm_free(c, c2));
    CK_OK(sx_queue_release(q));
    CK_OK(sx_context_release(c));
    CK_OK(sx_unregister_images(&im.desc));
    cleanup();
    free(spv);
}
END_TEST

START_TEST(test_sx_build_failure)
{
    ck_assert_msg(load_spv(), "ze-prog.spv missing");
    use_adapter(1);
    CK_OK(sx_init(0));
    spv_image im;
    spv_image_init(&im);
    CK_OK(sx_register_images(&im.desc));
    sx_device d;
    sx_context c;
    sx_queue q;
    CK_OK(sx_device_get_default(&d));
    CK_OK(sx_context_create(1, &d, &c));
    CK_OK(sx_queue_create(c, d, 0, &q));
    sx_kernel k;
    CK_OK(sx_kernel_get("ze_vadd", &k));
    setenv("ZE_TEST_DRIVER_FAIL", "zeModuleCreate", 1);
    int *p;
    CK_OK(sx_usm_alloc(c, d, SX_USM_TYPE_DEVICE, 64, 0, (void **)&p));
    sx_arg args[3] = {{SX_ARG_POINTER, 0, sizeof(void *), p},
                      {SX_ARG_POINTER, 1, sizeof(void *), p},
                      {SX_ARG_POINTER, 2, sizeof(void *), p}};
    size_t g = 16;
    CK_ERR(sx_queue_launch(q, k, 1, NULL, &g, NULL, 3, args, 0, NULL, NULL), SX_ERROR_BUILD_FAILURE);
    CK_MSG_HAS("ZE_RESULT_ERROR_MODULE_BUILD_FAILURE");
    CK_MSG_HAS("this build log comes from ZE_TEST_DRIVER_FAIL");
    unsetenv("ZE_TEST_DRIVER_FAIL");
    CK_OK(sx_usm_free(c, p));
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_queue_release(q));
    CK_OK(sx_context_release(c));
    CK_OK(sx_unregister_images(&im.desc));
    cleanup();
    free(spv);
}
END_TEST

static Suite *ze_sx_suite(void)
{
    Suite *s = suite_create("level_zero through sx");
    TCase *tc = tcase_create("sx");
    tcase_add_test(tc, test_sx_zero_drivers);
    tcase_add_test(tc, test_sx_discovery_and_info);
    tcase_add_test(tc, test_sx_usm_copies);
    tcase_add_test(tc, test_sx_launch_spirv);
    tcase_add_test(tc, test_sx_build_failure);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    void *h = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("SKIP: libze_loader.so.1 not loadable: install libze1\n");
        return 77;
    }
    dlclose(h);
    if (access(sxt_build_path(ADAPTER_SO), R_OK) || access(sxt_build_path(DRIVER_SO), R_OK)) {
        printf("SKIP: the Level Zero adapter or TEST DRIVER is not built\n");
        return 77;
    }
    if (access(sxt_build_path("tests/level_zero/kernels/ze-prog.spv"), R_OK)) {
        printf("SKIP: tests/level_zero/kernels/ze-prog.spv not built (clang-14/llvm-spirv-14 needed)\n");
        return 77;
    }
    SRunner *sr = srunner_create(ze_sx_suite());
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
