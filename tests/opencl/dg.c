/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dg.c: ordinary device globals on OpenCL through the public API: instances that are buffers bound by proptool's accessor (op 3) where there is no USM (Oclgrind). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sycl-ext/device-global.h>
#include <sycl-ext/sx.h>

#define CK_SX(expr)                                                                          \
    do {                                                                                     \
        sx_result ck_rc_ = (expr);                                                           \
        ck_assert_msg(ck_rc_ == SX_SUCCESS, "%s -> %s: %s", #expr, sx_result_name(ck_rc_),   \
                      sx_last_error());                                                      \
    } while (0)
#define CK_SX_IS(expr, want)                                                                 \
    do {                                                                                     \
        sx_result ck_rc_ = (expr);                                                           \
        ck_assert_msg(ck_rc_ == (want), "%s -> %s, expected %s: %s", #expr,                  \
                      sx_result_name(ck_rc_), sx_result_name(want), sx_last_error());        \
    } while (0)

/* The host objects: tests/kernels/ocl-dg.cl and ocl-dg2.cl. */
SX_DEVICE_GLOBAL_INIT(int, counter, "ocl_dg_counter", SX_HOST_ACCESS_READ_WRITE, 41);
SX_DEVICE_GLOBAL(int[2], seen, "ocl_dg_seen", SX_HOST_ACCESS_READ_WRITE);
/* tests/kernels/ocl-dg-nobind.cl: an accessor without op 3 */
SX_DEVICE_GLOBAL(int, nobind, "ocl_dg_nobind", SX_HOST_ACCESS_READ_WRITE);

static char path1[4096], path2[4096], path3[4096];
static sx_image_file file1, file2;
static sx_device dev;
static sx_context ctx;
static sx_queue q;

static void up(void)
{
    CK_SX(sx_image_file_load(path1, &file1));
    CK_SX(sx_image_file_load(path2, &file2));
    CK_SX(sx_init(SX_INIT_DEFAULT));
    CK_SX(sx_device_get_default(&dev));
    CK_SX(sx_context_create(1, &dev, &ctx));
    CK_SX(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
}

static void down(void)
{
    CK_SX(sx_queue_release(q));
    CK_SX(sx_context_release(ctx));
    CK_SX(sx_fini());
    CK_SX(sx_image_file_release(file2));
    CK_SX(sx_image_file_release(file1));
}

static sx_args args_of(const char *fn)
{
    sx_kernel k;
    sx_args a;
    CK_SX(sx_kernel_get_free_function(fn, &k));
    CK_SX(sx_args_create(k, &a));
    CK_SX(sx_kernel_release(k));
    return a;
}

/* One single_task of `fn` with an int argument on `queue`, waited for. */
static void run(sx_queue queue, const char *fn, int arg)
{
    sx_args a = args_of(fn);
    CK_SX(sx_args_set(a, 0, sizeof arg, &arg));
    CK_SX(sx_single_task(queue, a, NULL, 0, NULL, NULL));
    CK_SX(sx_queue_wait(queue));
    CK_SX(sx_args_release(a));
}

static int read_int(sx_queue queue, const void *global, size_t offset)
{
    int v = -12345;
    CK_SX(sx_queue_device_global_read(queue, &v, global, sizeof v, offset, 1, 0, NULL, NULL));
    return v;
}

/* Zero before any kernel; the host's initial value is what a kernel sees. */
START_TEST(t_initial)
{
    up();
    int s[2] = {-1, -1};
    CK_SX(sx_queue_device_global_read(q, s, &seen, sizeof s, 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(s[0], 0);
    ck_assert_int_eq(s[1], 0);
    ck_assert_int_eq(read_int(q, &counter, 0), 41);
    run(q, "ocl_dg_snap", 1);
    CK_SX(sx_queue_device_global_read(q, s, &seen, sizeof s, 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(s[0], 0);
    ck_assert_int_eq(s[1], 41);
    down();
}
END_TEST

/* Host write, kernel increment, host read; the element-wise copies,
 * non-blocking ones chained by events. */
START_TEST(t_write_inc_read)
{
    up();
    int v = 5;
    CK_SX(sx_queue_device_global_write(q, &counter, &v, sizeof v, 0, 1, 0, NULL, NULL));
    run(q, "ocl_dg_inc", 3);
    ck_assert_int_eq(read_int(q, &counter, 0), 8);
    run(q, "ocl_dg_inc", -10);
    ck_assert_int_eq(read_int(q, &counter, 0), -2);

    int w = 100, back = 0;
    sx_event e1, e2, e3;
    CK_SX(sx_queue_device_global_copy_to(q, &w, &counter, sizeof(int), 1, 0, 0, 0, NULL, &e1));
    sx_args a = args_of("ocl_dg_inc");
    int by = 7;
    CK_SX(sx_args_set(a, 0, sizeof by, &by));
    CK_SX(sx_single_task(q, a, NULL, 1, &e1, &e2));
    CK_SX(sx_queue_device_global_copy_from(q, &back, &counter, sizeof(int), 1, 0, 0, 1, &e2, &e3));
    CK_SX(sx_event_wait(1, &e3));
    ck_assert_int_eq(back, 107);
    CK_SX(sx_event_release(e1));
    CK_SX(sx_event_release(e2));
    CK_SX(sx_event_release(e3));
    CK_SX(sx_args_release(a));

    /* the second element of seen alone */
    int s1 = 77, s[2] = {0};
    CK_SX(sx_queue_device_global_copy_to(q, &s1, &seen, sizeof(int), 1, 1, 1, 0, NULL, NULL));
    CK_SX(sx_queue_device_global_read(q, s, &seen, sizeof s, 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(s[0], 0);
    ck_assert_int_eq(s[1], 77);
    run(q, "ocl_dg_snap", 0);
    CK_SX(sx_queue_device_global_copy_from(q, s, &seen, sizeof(int), 2, 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(s[0], 107);
    ck_assert_int_eq(s[1], 77);
    down();
}
END_TEST

/* Two images (the variable under two names) share one instance. */
START_TEST(t_two_images)
{
    up();
    run(q, "ocl_dg_inc", 1);    /* 42 */
    run(q, "ocl_dg_times", 3);  /* image 2: 126 */
    run(q, "ocl_dg_inc", 4);    /* 130 */
    ck_assert_int_eq(read_int(q, &counter, 0), 130);
    int v = -3;
    CK_SX(sx_queue_device_global_write(q, &counter, &v, sizeof v, 0, 1, 0, NULL, NULL));
    run(q, "ocl_dg_times", 5);
    run(q, "ocl_dg_snap", 0);
    ck_assert_int_eq(read_int(q, &seen, 0), -15);
    down();
}
END_TEST

/* Every offset/count edge around the 4 and 8 bytes. */
START_TEST(t_bounds)
{
    up();
    char b[16] = {0};
    CK_SX_IS(sx_queue_device_global_read(q, b, &counter, 8, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    ck_assert_msg(strstr(sx_last_error(), "ocl_dg_counter") != NULL, "names the variable: %s", sx_last_error());
    CK_SX_IS(sx_queue_device_global_read(q, b, &counter, 1, 4, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(sx_queue_device_global_write(q, &counter, b, 2, 3, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(sx_queue_device_global_write(q, &counter, b, 1, (size_t)-1, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(sx_queue_device_global_read(q, b, &seen, 9, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(sx_queue_device_global_copy_from(q, b, &seen, sizeof(int), 2, 1, 1, 0, NULL, NULL),
             SX_ERROR_INVALID_VALUE);
    CK_SX_IS(sx_queue_device_global_copy_to(q, b, &seen, sizeof(int), (size_t)1 << 62, 0, 1, 0, NULL, NULL),
             SX_ERROR_INVALID_VALUE);
    /* the edges that fit: empty at the end, the last byte, a middle part */
    CK_SX(sx_queue_device_global_read(q, b, &counter, 0, 4, 1, 0, NULL, NULL));
    unsigned char hi = 0x7f;
    CK_SX(sx_queue_device_global_write(q, &counter, &hi, 1, 3, 1, 0, NULL, NULL));
    ck_assert_int_eq(read_int(q, &counter, 0), 0x7f000000 | 41);
    short mid = 0;
    CK_SX(sx_queue_device_global_read(q, &mid, &counter, 2, 1, 1, 0, NULL, NULL));
    ck_assert_int_eq(mid, 0);
    CK_SX(sx_queue_device_global_read(q, b, &seen, 8, 0, 1, 0, NULL, NULL));
    /* not a device global */
    static int stranger;
    CK_SX_IS(sx_queue_device_global_read(q, b, &stranger, 4, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_GLOBAL_NAME);
    down();
}
END_TEST

/* A second context has its own instance, from the initial value again;
 * destroying it leaves the first one alone. */
START_TEST(t_second_context)
{
    up();
    sx_context ctx2;
    sx_queue q2;
    CK_SX(sx_context_create(1, &dev, &ctx2));
    CK_SX(sx_queue_create(ctx2, dev, SX_QUEUE_IN_ORDER, &q2));
    int v = 1000;
    CK_SX(sx_queue_device_global_write(q, &counter, &v, sizeof v, 0, 1, 0, NULL, NULL));
    run(q, "ocl_dg_inc", 1);
    run(q2, "ocl_dg_inc", 2);
    run(q2, "ocl_dg_times", 2);
    ck_assert_int_eq(read_int(q, &counter, 0), 1001);
    ck_assert_int_eq(read_int(q2, &counter, 0), 86);
    run(q2, "ocl_dg_snap", 1);
    ck_assert_int_eq(read_int(q2, &seen, 4), 86);
    ck_assert_int_eq(read_int(q, &seen, 4), 0);
    CK_SX(sx_queue_release(q2));
    CK_SX(sx_context_release(ctx2));
    run(q, "ocl_dg_times", 2);
    ck_assert_int_eq(read_int(q, &counter, 0), 2002);
    /* a third context, made after the second is gone: fresh again */
    CK_SX(sx_context_create(1, &dev, &ctx2));
    CK_SX(sx_queue_create(ctx2, dev, SX_QUEUE_IN_ORDER, &q2));
    ck_assert_int_eq(read_int(q2, &counter, 0), 41);
    run(q2, "ocl_dg_inc", 1);
    ck_assert_int_eq(read_int(q2, &counter, 0), 42);
    CK_SX(sx_queue_release(q2));
    CK_SX(sx_context_release(ctx2));
    down();
}
END_TEST

/* Out-of-order queue: the copies and launches ordered by events alone. */
START_TEST(t_out_of_order)
{
    up();
    sx_queue qo;
    CK_SX(sx_queue_create(ctx, dev, SX_QUEUE_OUT_OF_ORDER, &qo));
    int v = 10, back = 0;
    sx_event e[3];
    CK_SX(sx_queue_device_global_write(qo, &counter, &v, sizeof v, 0, 0, 0, NULL, &e[0]));
    sx_args a = args_of("ocl_dg_times");
    int m = 4;
    CK_SX(sx_args_set(a, 0, sizeof m, &m));
    CK_SX(sx_single_task(qo, a, NULL, 1, &e[0], &e[1]));
    CK_SX(sx_queue_device_global_read(qo, &back, &counter, sizeof back, 0, 0, 1, &e[1], &e[2]));
    CK_SX(sx_event_wait(1, &e[2]));
    ck_assert_int_eq(back, 40);
    for (int i = 0; i < 3; i++)
        CK_SX(sx_event_release(e[i]));
    CK_SX(sx_args_release(a));
    CK_SX(sx_queue_release(qo));
    down();
}
END_TEST

/* An image whose accessor cannot bind: its kernels are refused with the
 * reason where instances are buffers; copies still work (they never touch
 * the program). */
START_TEST(t_no_bind)
{
    up();
    sx_image_file file3;
    CK_SX(sx_image_file_load(path3, &file3));
    int usm = 0, v = 9;
    CK_SX(sx_device_has_aspect(dev, SX_ASPECT_USM_DEVICE_ALLOCATIONS, &usm));
    CK_SX(sx_queue_device_global_write(q, &nobind, &v, sizeof v, 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(read_int(q, &nobind, 0), 9);
    sx_kernel k;
    sx_args a;
    CK_SX(sx_kernel_get_free_function("ocl_dg_nobind_inc", &k));
    CK_SX(sx_args_create(k, &a));
    sx_result r = sx_single_task(q, a, NULL, 0, NULL, NULL);
    if (usm) {
        printf("t_no_bind: USM instances: op 3 is not needed here\n");
        CK_SX(r);
    } else {
        CK_SX_IS(r, SX_ERROR_INVALID_BINARY);
        ck_assert_msg(strstr(sx_last_error(), "did not bind") && strstr(sx_last_error(), "ocl_nobind"),
                      "says why: %s", sx_last_error());
        /* again: the failed program is not kept as if it were bound */
        CK_SX_IS(sx_single_task(q, a, NULL, 0, NULL, NULL), SX_ERROR_INVALID_BINARY);
        ck_assert_int_eq(read_int(q, &nobind, 0), 9);
    }
    CK_SX(sx_queue_wait(q));
    CK_SX(sx_args_release(a));
    CK_SX(sx_kernel_release(k));
    /* the good images still work beside it */
    run(q, "ocl_dg_inc", 1);
    ck_assert_int_eq(read_int(q, &counter, 0), 42);
    CK_SX(sx_image_file_release(file3));
    down();
}
END_TEST

/* Decide in a child process (the suite's own processes stay clean of a
 * failed driver): 0 run the suite, 77 skip (the reason printed). */
static int probe(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return 0;
    if (pid == 0) {
        int rc = 0;
        if (sx_image_file_load(path1, &file1) != SX_SUCCESS || sx_image_file_load(path2, &file2) != SX_SUCCESS ||
            sx_init(SX_INIT_DEFAULT) != SX_SUCCESS) {
            printf("probe: %s\n", sx_last_error());
            _exit(0); /* the suite reports it */
        }
        if (sx_device_get_default(&dev) != SX_SUCCESS) {
            printf("SKIP: no OpenCL device: %s\n", sx_last_error());
            _exit(77);
        }
        char name[256] = "";
        int usm = 0;
        sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof name, name, NULL);
        sx_device_has_aspect(dev, SX_ASPECT_USM_DEVICE_ALLOCATIONS, &usm);
        sx_context_create(1, &dev, &ctx);
        sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q);
        sx_kernel k = NULL;
        sx_args a;
        int one = 1;
        sx_result r = sx_kernel_get_free_function("ocl_dg_inc", &k);
        if (r == SX_SUCCESS && (r = sx_args_create(k, &a)) == SX_SUCCESS) {
            sx_args_set(a, 0, sizeof one, &one);
            r = sx_single_task(q, a, NULL, 0, NULL, NULL);
            if (r == SX_SUCCESS)
                r = sx_queue_wait(q);
            sx_args_release(a);
        }
        if (r == SX_ERROR_UNSUPPORTED_FEATURE || r == SX_ERROR_KERNEL_NOT_SUPPORTED) {
            /* PoCL 3.1: one copy of a program variable per kernel */
            printf("SKIP: device globals on '%s': %s: %s\n", name, sx_result_name(r), sx_last_error());
            rc = 77;
        } else if (r == SX_SUCCESS) {
            printf("device '%s': instances are %s\n", name,
                   usm ? "USM allocations" : "buffers bound by the accessor's op 3");
        } else {
            printf("probe on '%s': %s: %s (the suite will say more)\n", name, sx_result_name(r), sx_last_error());
        }
        if (k)
            sx_kernel_release(k);
        sx_queue_release(q);
        sx_context_release(ctx);
        sx_fini();
        sx_image_file_release(file2);
        sx_image_file_release(file1);
        fflush(stdout);
        _exit(rc);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return 0;
    return WEXITSTATUS(st) == 77 ? 77 : 0;
}

int main(void)
{
    const char *b = getenv("SX_TEST_BUILDDIR");
    const char *adapter = getenv("SXO_TEST_ADAPTER");
    /* SXO_DG_PLAIN=1 (dg-plain.sh): the same sources made into SPIR-V
     * images without accessor kernels, for drivers that reach program
     * variables themselves (cl_intel_global_variable_access) */
    const char *plain = getenv("SXO_DG_PLAIN") ? "-plain" : "";
    snprintf(path1, sizeof path1, "%s/tests/kernels/ocl-dg%s.sximg", b ? b : ".", plain);
    snprintf(path2, sizeof path2, "%s/tests/kernels/ocl-dg2%s.sximg", b ? b : ".", plain);
    snprintf(path3, sizeof path3, "%s/tests/kernels/ocl-dg-nobind.sximg", b ? b : ".");
    if (!adapter || access(path1, R_OK) != 0 || access(path2, R_OK) != 0 || access(path3, R_OK) != 0) {
        printf("SKIP: %s\n", adapter ? "ocl-dg*.sximg not built (no proptool/clang?)"
                                     : "SXO_TEST_ADAPTER not set");
        return 77;
    }
    setenv("SX_ADAPTERS", adapter, 1);
    if (probe() == 77)
        return 77;
    Suite *s = suite_create("opencl-dg");
    TCase *tc = tcase_create("dg");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, t_initial);
    tcase_add_test(tc, t_write_inc_read);
    tcase_add_test(tc, t_two_images);
    tcase_add_test(tc, t_bounds);
    tcase_add_test(tc, t_second_context);
    tcase_add_test(tc, t_out_of_order);
    tcase_add_test(tc, t_no_bind);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
