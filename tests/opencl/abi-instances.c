/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* abi-instances.c: the OpenCL adapter's global table (ABI 1.1) alone: buffer instances and bind (accessor op 3) where there is no USM, refusal where there is. */
#include "abi-util.h"

#include <stdint.h>

static sxa_global_table T_g = {sizeof T_g};
static probe P;

static sx_result copy_in(void *inst, size_t offset, size_t count, void *host)
{
    return T_g.instance_copy(E.queue, inst, 1, offset, count, host, 1, 0, NULL, NULL);
}

static sx_result copy_out(void *inst, size_t offset, size_t count, void *host)
{
    return T_g.instance_copy(E.queue, inst, 0, offset, count, host, 1, 0, NULL, NULL);
}

/* USM devices (PoCL: SVM) refuse, saying why; others get a zeroed buffer. */
START_TEST(t_create_policy)
{
    env_up(0);
    void *inst = (void *)1;
    sx_result rc = T_g.instance_create(E.context, E.device, 16, &inst);
    if (HAS_USM(E.aspects)) {
        CK_SX_IS(rc, SX_ERROR_UNSUPPORTED_FEATURE);
        ck_assert_ptr_null(inst);
        ck_assert_msg(strstr(last_error, "USM allocations"), "says why: %s", last_error);
        printf("t_create_policy: '%s' has USM: instances stay USM (%s)\n", E.name, last_error);
    } else {
        CK_SX(rc);
        ck_assert_ptr_nonnull(inst);
        uint8_t b[16];
        memset(b, 0xee, sizeof b);
        CK_SX(copy_out(inst, 0, sizeof b, b));
        for (size_t i = 0; i < sizeof b; i++)
            ck_assert_uint_eq(b[i], 0);
        CK_SX(T_g.instance_release(E.context, inst));
    }
    CK_SX_IS(T_g.instance_create(E.context, E.device, 16, NULL), SX_ERROR_INVALID_NULL_POINTER);
    CK_SX_IS(T_g.instance_create(NULL, E.device, 16, &inst), SX_ERROR_INVALID_NULL_HANDLE);
    CK_SX(T_g.instance_release(E.context, NULL));
    env_down();
}
END_TEST

/* Copies: round trips, every bounds edge, events, bad instances. */
START_TEST(t_copies)
{
    env_up(0);
    void *inst;
    CK_SX(T_g.instance_create(E.context, E.device, 16, &inst));
    void *none = (void *)1;
    CK_SX_IS(T_g.instance_create(E.context, E.device, 0, &none), SX_ERROR_INVALID_SIZE);
    ck_assert_ptr_null(none);
    uint32_t v[4] = {10, 20, 30, 40}, back[4] = {0};
    CK_SX(copy_in(inst, 0, sizeof v, v));
    uint32_t mid = 99;
    CK_SX(copy_in(inst, 8, sizeof mid, &mid));
    CK_SX(copy_out(inst, 0, sizeof back, back));
    ck_assert_uint_eq(back[0], 10);
    ck_assert_uint_eq(back[2], 99);
    ck_assert_uint_eq(back[3], 40);
    uint8_t b[17] = {0};
    CK_SX(copy_out(inst, 15, 1, b));
    CK_SX(copy_out(inst, 16, 0, b));
    CK_SX(copy_out(inst, 16, 0, NULL));
    CK_SX_IS(copy_out(inst, 0, 17, b), SX_ERROR_INVALID_VALUE);
    ck_assert_msg(strstr(last_error, "17 bytes") && strstr(last_error, "its 16 bytes"), "%s", last_error);
    CK_SX_IS(copy_out(inst, 15, 2, b), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(copy_in(inst, 17, 0, b), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(copy_in(inst, SIZE_MAX, 1, b), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(copy_in(inst, 0, 4, NULL), SX_ERROR_INVALID_NULL_POINTER);
    /* not an instance: a stack address */
    CK_SX_IS(copy_in(b, 0, 1, b), SX_ERROR_INVALID_VALUE);
    /* non-blocking, chained by events; an empty copy orders only */
    sxa_event e1 = NULL, e2 = NULL, e3 = NULL;
    uint32_t w = 1234, r = 0;
    CK_SX(T_g.instance_copy(E.queue, inst, 1, 4, sizeof w, &w, 0, 0, NULL, &e1));
    CK_SX(T_g.instance_copy(E.queue, inst, 0, 0, 0, NULL, 0, 1, &e1, &e2));
    CK_SX(T_g.instance_copy(E.queue, inst, 0, 4, sizeof r, &r, 0, 1, &e2, &e3));
    CK_SX(T_ev.wait(1, &e3));
    ck_assert_uint_eq(r, 1234);
    CK_SX(T_ev.release(e1));
    CK_SX(T_ev.release(e2));
    CK_SX(T_ev.release(e3));
    /* an instance of another context */
    sxa_context c2;
    void *other;
    CK_SX(T_ctx.create(1, &E.device, &c2));
    CK_SX(T_g.instance_create(c2, E.device, 4, &other));
    CK_SX_IS(copy_in(other, 0, 4, &w), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(T_g.instance_release(E.context, other), SX_ERROR_INVALID_VALUE);
    CK_SX(T_g.instance_release(c2, other));
    CK_SX(T_ctx.release(c2));
    CK_SX(T_g.instance_release(E.context, inst));
    env_down();
}
END_TEST

static void launch_update(sxa_program p, int m, int a)
{
    sxa_kernel k;
    CK_SX(T_k.create(p, "ocl_bind_update", &k));
    sx_arg args[2] = {{SX_ARG_VALUE, 0, sizeof m, &m},
                      {SX_ARG_VALUE, 1, sizeof a, &a}};
    size_t one = 1;
    CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &one, NULL, 2, args, 0, NULL, NULL));
    CK_SX(T_q.finish(E.queue));
    CK_SX(T_k.release(k));
}

/* Bind: kernels reach the instance; two programs share one; rebinding
 * moves a program to another instance; the refusals. */
START_TEST(t_bind)
{
    env_up(0);
    sxa_program p1 = build_program("ocl-bind"), p2 = build_program("ocl-bind");
    void *a, *b;
    CK_SX(T_g.instance_create(E.context, E.device, 8, &a));
    CK_SX(T_g.instance_create(E.context, E.device, 8, &b));
    int32_t init[2] = {5, 0}, got[2];
    CK_SX(copy_in(a, 0, sizeof init, init));
    CK_SX(T_g.bind(E.queue, p1, "ocl_bind_ptr", a));
    CK_SX(T_g.bind(E.queue, p2, "ocl_bind_ptr", a));
    launch_update(p1, 3, 1);  /* 16 */
    launch_update(p2, 2, 0);  /* 32 */
    CK_SX(copy_out(a, 0, sizeof got, got));
    ck_assert_int_eq(got[0], 32);
    ck_assert_int_eq(got[1], 2);
    /* the variable holds the buffer's address, as op 1 shows */
    uint64_t slot = 0;
    CK_SX(T_enq.global_read(E.queue, p1, "ocl_bind_ptr", 1, sizeof slot, 0, &slot, 0, NULL, NULL));
    ck_assert_msg(slot != 0, "bound slot reads NULL");
    /* p2 moves to b; p1 stays on a */
    CK_SX(T_g.bind(E.queue, p2, "ocl_bind_ptr", b));
    launch_update(p2, 1, 7);
    launch_update(p1, 1, 1);
    CK_SX(copy_out(b, 0, sizeof got, got));
    ck_assert_int_eq(got[0], 7);
    ck_assert_int_eq(got[1], 1);
    CK_SX(copy_out(a, 0, sizeof got, got));
    ck_assert_int_eq(got[0], 33);
    ck_assert_int_eq(got[1], 3);
    /* refusals, each saying why */
    CK_SX_IS(T_g.bind(E.queue, p1, "ocl_nobind_ptr", a), SX_ERROR_INVALID_BINARY);
    ck_assert_msg(strstr(last_error, "did not bind"), "%s", last_error);
    CK_SX_IS(T_g.bind(E.queue, p1, "ocl_bind_vec", a), SX_ERROR_INVALID_VALUE);
    ck_assert_msg(strstr(last_error, "16 bytes, not a pointer"), "%s", last_error);
    CK_SX_IS(T_g.bind(E.queue, p1, "ocl_three_ptr", a), SX_ERROR_UNSUPPORTED_FEATURE);
    ck_assert_msg(strstr(last_error, "one-kernel accessor"), "%s", last_error);
    CK_SX_IS(T_g.bind(E.queue, p1, "ocl_no_such", a), SX_ERROR_INVALID_GLOBAL_NAME);
    CK_SX_IS(T_g.bind(E.queue, p1, "ocl_bind_ptr", NULL), SX_ERROR_INVALID_NULL_POINTER);
    CK_SX_IS(T_g.bind(E.queue, p1, NULL, a), SX_ERROR_INVALID_NULL_POINTER);
    CK_SX_IS(T_g.bind(NULL, p1, "ocl_bind_ptr", a), SX_ERROR_INVALID_NULL_HANDLE);
    int not_an_instance = 0;
    CK_SX_IS(T_g.bind(E.queue, p1, "ocl_bind_ptr", &not_an_instance), SX_ERROR_INVALID_VALUE);
    CK_SX(T_prog.release(p1));
    CK_SX(T_prog.release(p2));
    CK_SX(T_g.instance_release(E.context, a));
    CK_SX(T_g.instance_release(E.context, b));
    env_down();
}
END_TEST

/* Out-of-order queue: bind is complete when it returns. */
START_TEST(t_bind_out_of_order)
{
    env_up(SXA_QUEUE_OUT_OF_ORDER);
    sxa_program p = build_program("ocl-bind");
    void *a;
    CK_SX(T_g.instance_create(E.context, E.device, 8, &a));
    CK_SX(T_g.bind(E.queue, p, "ocl_bind_ptr", a));
    launch_update(p, 1, 41);
    int32_t got[2] = {0};
    CK_SX(copy_out(a, 0, sizeof got, got));
    ck_assert_int_eq(got[0], 41);
    ck_assert_int_eq(got[1], 1);
    CK_SX(T_prog.release(p));
    CK_SX(T_g.instance_release(E.context, a));
    env_down();
}
END_TEST

int main(void)
{
    load_module();
    if (get_proc_table(SXA_ABI_VERSION, SXA_TABLE_GLOBAL, &T_g) != SX_SUCCESS || !T_g.instance_create ||
        !T_g.bind) {
        printf("FAIL: the adapter has no global table (ABI 1.1)\n");
        return 1;
    }
    P = probe_driver(1);
    if (!P.platforms) {
        printf("SKIP: no OpenCL platform: %s\n", P.status);
        return 77;
    }
    Suite *s = suite_create("opencl-abi-instances");
    TCase *tc = tcase_create("instances");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, t_create_policy);
    if (HAS_USM(P.aspects)) {
        printf("device '%s' has USM: only the refusal is tested\n", P.device);
    } else if (!P.globals_ok) {
        printf("device '%s': no device globals (%s): only creation is tested\n", P.device, P.why);
    } else {
        printf("device '%s' (%s): buffer instances\n", P.device, P.status);
        tcase_add_test(tc, t_copies);
        tcase_add_test(tc, t_bind);
        tcase_add_test(tc, t_bind_out_of_order);
    }
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
