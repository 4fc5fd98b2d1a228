/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* abi-globals.c: device-global read/write/size through the OpenCL adapter's accessor kernels (ABI level). */
#include "abi-util.h"

#include <pthread.h>
#include <stdint.h>

static probe P;

static sx_result wr(sxa_program p, const char *name, size_t count, size_t offset, const void *src)
{
    return T_enq.global_write(E.queue, p, name, 1, count, offset, src, 0, NULL, NULL);
}

static sx_result rd(sxa_program p, const char *name, size_t count, size_t offset, void *dst)
{
    return T_enq.global_read(E.queue, p, name, 1, count, offset, dst, 0, NULL, NULL);
}

static void launch(sxa_program p, const char *kernel, uint32_t nargs, const sx_arg *args)
{
    sxa_kernel k = NULL;
    CK_SX(T_k.create(p, kernel, &k));
    size_t one = 1;
    CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &one, NULL, nargs, args, 0, NULL, NULL));
    CK_SX(T_k.release(k));
}

START_TEST(t_size_and_names)
{
    env_up(0);
    sxa_program p = build_program("ocl-globals");
    size_t size = 0;
    void *ptr = (void *)1;
    CK_SX(T_prog.get_global(p, "ocl_dg_vec", &size, &ptr));
    ck_assert_uint_eq(size, 16);
    /* Only the driver's global-variable entry points (Intel's CPU runtime)
     * give an address and reach variables without accessor kernels. */
    int by_driver = ptr != NULL;
    CK_SX(T_prog.get_global(p, "ocl_dg_counter", &size, NULL));
    ck_assert_uint_eq(size, 4);
    CK_SX_IS(T_prog.get_global(p, "ocl_dg_nothing", &size, NULL), SX_ERROR_INVALID_GLOBAL_NAME);
    if (by_driver) {
        ck_assert_msg(strstr(last_error, "clGetDeviceGlobalVariablePointerINTEL") &&
                      strstr(last_error, "'ocl_dg_nothing'"), "%s", last_error);
        /* the variable itself is there; its lone size accessor does not matter */
        CK_SX(T_prog.get_global(p, "ocl_dg_partial", &size, &ptr));
        ck_assert_uint_eq(size, 4);
        ck_assert_ptr_nonnull(ptr);
    } else {
        ck_assert_msg(strstr(last_error, "__sx_dg_size_ocl_dg_nothing"), "%s", last_error);
        /* a size accessor alone is not a usable variable */
        CK_SX_IS(T_prog.get_global(p, "ocl_dg_partial", &size, NULL), SX_ERROR_INVALID_GLOBAL_NAME);
        ck_assert_msg(strstr(last_error, "__sx_dg_read_ocl_dg_partial"), "%s", last_error);
    }
    int v = 0;
    CK_SX_IS(wr(p, "ocl_dg_nothing", sizeof v, 0, &v), SX_ERROR_INVALID_GLOBAL_NAME);
    CK_SX_IS(rd(p, "", sizeof v, 0, &v), SX_ERROR_INVALID_GLOBAL_NAME);
    CK_SX_IS(rd(p, "ocl_dg_vec", sizeof v, 0, NULL), SX_ERROR_INVALID_NULL_POINTER);
    CK_SX(T_prog.release(p));
    env_down();
}
END_TEST

START_TEST(t_read_write_bounds)
{
    env_up(0);
    sxa_program p = build_program("ocl-globals");
    uint32_t v[4] = {0};
    CK_SX(rd(p, "ocl_dg_vec", sizeof v, 0, v));
    ck_assert_uint_eq(v[0], 1);  /* the initialiser */
    ck_assert_uint_eq(v[3], 4);
    uint32_t mid[2] = {77, 88};
    CK_SX(wr(p, "ocl_dg_vec", sizeof mid, 4, mid));
    CK_SX(rd(p, "ocl_dg_vec", sizeof v, 0, v));
    ck_assert_uint_eq(v[0], 1);
    ck_assert_uint_eq(v[1], 77);
    ck_assert_uint_eq(v[2], 88);
    ck_assert_uint_eq(v[3], 4);
    /* every edge: end exactly at the size is fine, one past is not */
    uint8_t b[17] = {0};
    CK_SX(rd(p, "ocl_dg_vec", 1, 15, b));
    CK_SX(rd(p, "ocl_dg_vec", 16, 0, b));
    CK_SX(rd(p, "ocl_dg_vec", 0, 16, b));
    CK_SX_IS(rd(p, "ocl_dg_vec", 17, 0, b), SX_ERROR_INVALID_VALUE);
    ck_assert_msg(strstr(last_error, "ocl_dg_vec") && strstr(last_error, "17 bytes") &&
                      strstr(last_error, "its 16 bytes"),
                  "names the variable and numbers: %s", last_error);
    CK_SX_IS(rd(p, "ocl_dg_vec", 2, 15, b), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(rd(p, "ocl_dg_vec", 0, 17, b), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(wr(p, "ocl_dg_vec", 8, 12, b), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(wr(p, "ocl_dg_vec", 1, SIZE_MAX, b), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(wr(p, "ocl_dg_vec", SIZE_MAX, 1, b), SX_ERROR_INVALID_VALUE);
    /* nothing changed by the refused copies */
    CK_SX(rd(p, "ocl_dg_vec", sizeof v, 0, v));
    ck_assert_uint_eq(v[3], 4);
    CK_SX(T_prog.release(p));
    env_down();
}
END_TEST

/* Kernels and the host see one variable, both ways. */
START_TEST(t_shared_with_kernels)
{
    env_up(0);
    sxa_program p = build_program("ocl-globals");
    uint32_t v[4] = {10, 20, 30, 40};
    int counter = 5;
    CK_SX(wr(p, "ocl_dg_vec", sizeof v, 0, v));
    CK_SX(wr(p, "ocl_dg_counter", sizeof counter, 0, &counter));
    int k = 2;
    sx_arg a = {SX_ARG_VALUE, 0, sizeof k, &k};
    launch(p, "ocl_dg_accumulate", 1, &a);
    CK_SX(rd(p, "ocl_dg_counter", sizeof counter, 0, &counter));
    ck_assert_int_eq(counter, 5 + 100 * 2);
    launch(p, "ocl_dg_rotate", 0, NULL);
    CK_SX(rd(p, "ocl_dg_vec", sizeof v, 0, v));
    ck_assert_uint_eq(v[0], 20);
    ck_assert_uint_eq(v[3], 10);
    /* A second program of the same image has its own variables. */
    sxa_program p2 = build_program("ocl-globals");
    CK_SX(rd(p2, "ocl_dg_vec", sizeof v, 0, v));
    ck_assert_uint_eq(v[0], 1);
    CK_SX(T_prog.release(p2));
    CK_SX(T_prog.release(p));
    env_down();
}
END_TEST

/* The one-kernel accessor form: size, read, write, bounds, kernels see it. */
START_TEST(t_single_accessor)
{
    env_up(0);
    sxa_program p = build_program("ocl-globals");
    size_t size = 0;
    CK_SX(T_prog.get_global(p, "ocl_dg_single", &size, NULL));
    ck_assert_uint_eq(size, 24);
    int64_t v[3] = {0};
    CK_SX(rd(p, "ocl_dg_single", sizeof v, 0, v));
    ck_assert_int_eq(v[0], -1);
    ck_assert_int_eq(v[2], -3);
    int64_t two[2] = {40, 2};
    CK_SX(wr(p, "ocl_dg_single", sizeof two, 0, two));
    launch(p, "ocl_dg_single_sum", 0, NULL);
    CK_SX(rd(p, "ocl_dg_single", sizeof v[2], 16, &v[2]));
    ck_assert_int_eq(v[2], 42);
    CK_SX_IS(rd(p, "ocl_dg_single", 9, 16, v), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(wr(p, "ocl_dg_single", 25, 0, v), SX_ERROR_INVALID_VALUE);
    CK_SX(T_prog.release(p));
    env_down();
}
END_TEST

/* Non-blocking: the write's source may change right after the call; events order the rest. */
START_TEST(t_nonblocking_events)
{
    env_up(0);
    sxa_program p = build_program("ocl-globals");
    uint32_t src[4] = {5, 6, 7, 8};
    sxa_event w = NULL, r = NULL, b = NULL;
    CK_SX(T_enq.barrier(E.queue, 0, NULL, &b));
    CK_SX(T_enq.global_write(E.queue, p, "ocl_dg_vec", 0, sizeof src, 0, src, 1, &b, &w));
    memset(src, 0xff, sizeof src);
    uint32_t dst[4] = {0};
    CK_SX(T_enq.global_read(E.queue, p, "ocl_dg_vec", 0, sizeof dst, 0, dst, 1, &w, &r));
    CK_SX(T_ev.wait(1, &r));
    ck_assert_uint_eq(dst[0], 5);
    ck_assert_uint_eq(dst[3], 8);
    sx_event_status st;
    CK_SX(T_ev.get_status(w, &st));
    ck_assert_int_eq(st, SX_EVENT_STATUS_COMPLETE);
    /* empty copies still give events */
    sxa_event e0 = NULL;
    CK_SX(T_enq.global_read(E.queue, p, "ocl_dg_vec", 0, 0, 16, dst, 1, &r, &e0));
    ck_assert_ptr_nonnull(e0);
    CK_SX(T_ev.wait(1, &e0));
    CK_SX(T_ev.release(e0));
    CK_SX(T_ev.release(b));
    CK_SX(T_ev.release(w));
    CK_SX(T_ev.release(r));
    CK_SX(T_prog.release(p));
    env_down();
}
END_TEST

/* Threads write and read their own 4 bytes of one variable at once. */
static sxa_program shared_prog;

static void *copier(void *arg)
{
    uint32_t id = (uint32_t)(uintptr_t)arg;
    for (uint32_t r = 0; r < 50; r++) {
        uint32_t v = id * 1000 + r, back = 0;
        if (wr(shared_prog, "ocl_dg_vec", sizeof v, id * 4, &v) != SX_SUCCESS ||
            rd(shared_prog, "ocl_dg_vec", sizeof back, id * 4, &back) != SX_SUCCESS)
            return (void *)1;
        if (back != v)
            return (void *)2;
    }
    return NULL;
}

START_TEST(t_threads)
{
    env_up(0);
    shared_prog = build_program("ocl-globals");
    pthread_t th[4];
    for (uintptr_t i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, copier, (void *)i), 0);
    for (int i = 0; i < 4; i++) {
        void *r;
        pthread_join(th[i], &r);
        ck_assert_msg(r == NULL, "thread %d: %ld: %s", i, (long)(intptr_t)r, last_error);
    }
    uint32_t v[4];
    CK_SX(rd(shared_prog, "ocl_dg_vec", sizeof v, 0, v));
    for (uint32_t i = 0; i < 4; i++)
        ck_assert_uint_eq(v[i], i * 1000 + 49);
    CK_SX(T_prog.release(shared_prog));
    env_down();
}
END_TEST

/* On a CPU device whose memory is the host's, a blocking copy of a
 * variable whose address the driver gives is a clEnqueueSVMMemcpy (the
 * test interposer counts them), ordered after the kernels before it; a
 * non-blocking one still goes through the driver's variable entry points. */
START_TEST(t_host_copies)
{
    void *lib = load_interposer();
    ck_assert_ptr_nonnull(lib);
    int (*calls)(void) = (int (*)(void))dlsym(lib, "sxt_svm_memcpy_calls");
    int (*finishes)(void) = (int (*)(void))dlsym(lib, "sxt_finish_calls");
    ck_assert_ptr_nonnull(calls);
    ck_assert_ptr_nonnull(finishes);
    env_up(0);
    sxa_program p = build_program("ocl-globals");
    size_t size = 0;
    void *ptr = NULL;
    CK_SX(T_prog.get_global(p, "ocl_dg_counter", &size, &ptr));
    sx_device_type type = 0;
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_TYPE, sizeof type, &type, NULL));
    if (!ptr || type != SX_DEVICE_TYPE_CPU) {
        printf("skipped: host copies: '%s' is no CPU device giving variables' addresses\n", E.name);
        CK_SX(T_prog.release(p));
        env_down();
        return;
    }
    CK_SX(T_q.finish(E.queue));
    int before = calls(), fin = finishes(), counter = 5, k = 2;
    uint32_t v[4] = {10, 20, 30, 40};
    CK_SX(wr(p, "ocl_dg_vec", sizeof v, 0, v));
    CK_SX(wr(p, "ocl_dg_counter", sizeof counter, 0, &counter));
    ck_assert_int_eq(calls() - before, 2);
    ck_assert_int_eq(finishes() - fin, 0); /* no kernel since the finish: straight to the copy */
    sx_arg a = {SX_ARG_VALUE, 0, sizeof k, &k};
    for (int i = 0; i < 50; i++)
        launch(p, "ocl_dg_accumulate", 1, &a);
    CK_SX(rd(p, "ocl_dg_counter", sizeof counter, 0, &counter));
    ck_assert_int_eq(counter, 5 + 50 * 100 * 2);
    ck_assert_int_eq(calls() - before, 3);
    /* kernels were pending: the queue was finished first (by this thread,
     * which helps run them), once; the next read finds it idle */
    ck_assert_int_eq(finishes() - fin, 1);
    CK_SX(rd(p, "ocl_dg_counter", sizeof counter, 0, &counter));
    ck_assert_int_eq(finishes() - fin, 1);
    ck_assert_int_eq(calls() - before, 4);
    /* after kernels, a write lands after them */
    for (int i = 0; i < 50; i++)
        launch(p, "ocl_dg_accumulate", 1, &a);
    counter = 7;
    CK_SX(wr(p, "ocl_dg_counter", sizeof counter, 0, &counter));
    counter = 0;
    CK_SX(rd(p, "ocl_dg_counter", sizeof counter, 0, &counter));
    ck_assert_int_eq(counter, 7);
    /* non-blocking: the driver's entry point, from a copy of the source */
    int later = 9;
    sxa_event ev = NULL;
    int n = calls();
    CK_SX(T_enq.global_write(E.queue, p, "ocl_dg_counter", 0, sizeof later, 0, &later, 0, NULL, &ev));
    CK_SX(T_ev.wait(1, &ev));
    CK_SX(T_ev.release(ev));
    ck_assert_int_eq(calls(), n);
    CK_SX(rd(p, "ocl_dg_counter", sizeof counter, 0, &counter));
    ck_assert_int_eq(counter, 9);
    CK_SX(T_prog.release(p));
    env_down();
    unsetenv("SX_OPENCL_LOADER");
}
END_TEST

int main(void)
{
    load_module();
    P = probe_driver(1);
    if (!P.platforms) {
        printf("SKIP: no OpenCL platform: %s\n", P.status);
        return 77;
    }
    if (!P.globals_ok) {
        printf("SKIP: device globals on '%s': %s\n", P.device, P.why);
        return 77;
    }
    printf("device '%s' (%s)\n", P.device, P.status);
    Suite *s = suite_create("opencl-abi-globals");
    TCase *tc = tcase_create("globals");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, t_size_and_names);
    tcase_add_test(tc, t_read_write_bounds);
    tcase_add_test(tc, t_shared_with_kernels);
    tcase_add_test(tc, t_single_accessor);
    tcase_add_test(tc, t_nonblocking_events);
    tcase_add_test(tc, t_threads);
    tcase_add_test(tc, t_host_copies);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
