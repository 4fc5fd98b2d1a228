/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dg-scope.c: device_image_scope copies whose program cannot be made on a driver fail with a message that names the variable and the image, never with a kernel or variable the caller did not use, and never abort (issue 15). */
#include <string.h>
#include <unistd.h>

#include "../check-util.h"

/* The host objects of tests/kernels/ocl-vf-dg.cl and ocl-dg-mixed.cl. */
static int vfdg_scale[1], mix_scale[1], mix_count[1];

static sx_image_file file;
static sx_device dev;
static sx_context ctx;
static sx_queue q;
static char dev_name[256];

static void up(const char *image)
{
    char rel[128];
    snprintf(rel, sizeof rel, "tests/kernels/%s.sximg", image);
    CK_OK(sx_image_file_load(sxt_build_path(rel), &file));
    CK_OK(sx_init(SX_INIT_DEFAULT));
    CK_OK(sx_device_get_default(&dev));
    CK_OK(sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof dev_name, dev_name, NULL));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
}

static void down(void)
{
    CK_OK(sx_queue_release(q));
    CK_OK(sx_context_release(ctx));
    CK_OK(sx_fini());
    CK_OK(sx_image_file_release(file));
}

/* The set image of ocl-vf-dg declares vfdg_scale without initializer.
 * Oclgrind aborted the process making its program (LLVM's assertion
 * "GV doesn't have initializer!"): the adapter refuses it first, and the
 * message names the variable, the image and why. Where linking works
 * (Intel's CPU runtime) the value goes through. */
START_TEST(set_image_with_external_variable)
{
    CK_OK(sx_device_global_add(vfdg_scale, "vfdg_scale", sizeof vfdg_scale, SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                               SX_HOST_ACCESS_READ_WRITE));
    up("ocl-vf-dg");
    int v = 5, back = -1;
    sx_result r = sx_queue_device_global_write(q, vfdg_scale, &v, sizeof v, 0, 1, 0, NULL, NULL);
    if (r == SX_SUCCESS) {
        CK_OK(sx_queue_device_global_read(q, &back, vfdg_scale, sizeof back, 0, 1, 0, NULL, NULL));
        ck_assert_int_eq(back, 5);
        printf("%s: linked and copied\n", dev_name);
    } else {
        printf("%s: %s: %s\n", dev_name, sx_result_name(r), sx_last_error());
        ck_assert_msg(strncmp(sx_last_error(), "device_global 'vfdg_scale'", 26) == 0, "names the variable first: %s",
                      sx_last_error());
        CK_MSG_HAS("image ");
        ck_assert_msg(!strstr(sx_last_error(), "kernel 'vfdg_use'"), "names a kernel not used: %s", sx_last_error());
        if (strstr(dev_name, "Oclgrind")) {
            CK_ERR(r, SX_ERROR_UNSUPPORTED_FEATURE);
            CK_MSG_HAS("declares the program-scope variable 'vfdg_scale' without defining it");
            CK_MSG_HAS("aborts");
            /* a launch of the kernel is refused the same way */
            sx_kernel k;
            CK_OK(sx_kernel_get("vfdg_use", &k));
            size_t one = 1;
            int x = 2;
            sx_arg a = {.type = SX_ARG_VALUE, .index = 0, .size = sizeof x, .value = &x};
            CK_ERR(sx_queue_launch(q, k, 1, NULL, &one, NULL, 1, &a, 0, NULL, NULL), SX_ERROR_UNSUPPORTED_FEATURE);
            CK_MSG_HAS("kernel 'vfdg_use'");
            CK_MSG_HAS("'vfdg_scale' without defining it");
            CK_OK(sx_kernel_release(k));
        }
    }
    down();
    CK_OK(sx_device_global_remove(vfdg_scale));
}
END_TEST

/* A device_image_scope read whose program build fails on the ordinary
 * device global beside it (PoCL: one copy of a program variable per
 * kernel): the message says the read of mix_scale needed the image's
 * program, not "kernel 'mix_bump': device_global 'mix_count': ...". */
START_TEST(image_scope_read_names_its_variable)
{
    CK_OK(sx_device_global_add(mix_scale, "mix_scale", sizeof mix_scale, SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                               SX_HOST_ACCESS_READ_WRITE));
    CK_OK(sx_device_global_add(mix_count, "mix_count", sizeof mix_count, 0, SX_HOST_ACCESS_READ_WRITE));
    up("ocl-dg-mixed");
    int back = -1;
    sx_result r = sx_queue_device_global_read(q, &back, mix_scale, sizeof back, 0, 1, 0, NULL, NULL);
    if (r == SX_SUCCESS) {
        ck_assert_int_eq(back, 0);
        int v = 3;
        CK_OK(sx_queue_device_global_write(q, mix_scale, &v, sizeof v, 0, 1, 0, NULL, NULL));
        CK_OK(sx_queue_device_global_read(q, &back, mix_scale, sizeof back, 0, 1, 0, NULL, NULL));
        ck_assert_int_eq(back, 3);
        printf("%s: read and written\n", dev_name);
    } else {
        printf("%s: %s: %s\n", dev_name, sx_result_name(r), sx_last_error());
        ck_assert_msg(strncmp(sx_last_error(), "device_global 'mix_scale'", 25) == 0, "names the variable first: %s",
                      sx_last_error());
        CK_MSG_HAS("a read needs the program of image ");
        ck_assert_msg(!strstr(sx_last_error(), "kernel 'mix_bump'"), "names a kernel not used: %s", sx_last_error());
    }
    /* an element count that overflows names the variable too */
    CK_ERR(sx_queue_device_global_copy_from(q, &back, mix_scale, sizeof(int), SIZE_MAX / 2, 0, 1, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("mix_scale");
    down();
    CK_OK(sx_device_global_remove(mix_count));
    CK_OK(sx_device_global_remove(mix_scale));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("opencl-dg-scope");
    TCase *tc = tcase_create("dg-scope");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, set_image_with_external_variable);
    tcase_add_test(tc, image_scope_read_names_its_variable);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *adapter = getenv("SXO_TEST_ADAPTER");
    if (!adapter || access(sxt_build_path("tests/kernels/ocl-vf-dg.sximg"), R_OK) != 0 ||
        access(sxt_build_path("tests/kernels/ocl-dg-mixed.sximg"), R_OK) != 0) {
        printf("SKIP: %s\n", adapter ? "ocl-vf-dg.sximg or ocl-dg-mixed.sximg not built (no proptool/clang?)"
                                     : "SXO_TEST_ADAPTER not set");
        return 77;
    }
    setenv("SX_ADAPTERS", adapter, 1);
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
