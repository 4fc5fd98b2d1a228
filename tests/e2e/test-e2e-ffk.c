/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-e2e-ffk.c: free-function kernels compiled from ffk.cl, bundled by
 * proptool, found by function name and launched with set_arg on the native
 * adapter: every argument kind, 1/2/3-D, work_group_memory, overloads,
 * errors, many threads. */
#include <math.h>
#include <pthread.h>

#include "e2e.h"
#include "../sig-encode.h"

static e2e t;
static void setup(void) { e2e_open(&t, "tests/e2e/ffk.sximg"); }
static void teardown(void) { e2e_close(&t); }

START_TEST(axpy_scalars_and_pointers)
{
    enum { N = 256 };
    float *x = e2e_alloc(&t, N * sizeof(float)), *y = e2e_alloc(&t, N * sizeof(float));
    for (int i = 0; i < N; i++)
        x[i] = (float)i, y[i] = 1;
    sx_args a = e2e_args("axpy");
    float alpha = 3;
    long n = N - 6; /* the last 6 stay untouched */
    CK_OK(sx_args_set_pointer(a, 0, y));
    CK_OK(sx_args_set_pointer(a, 1, x));
    CK_OK(sx_args_set(a, 2, sizeof(alpha), &alpha));
    CK_OK(sx_args_set(a, 3, sizeof(n), &n));
    size_t g[1] = {N}, l[1] = {32};
    CK_OK(sx_nd_launch(t.q, a, 1, g, l, NULL, 0, NULL, NULL));
    CK_OK(sx_queue_wait(t.q));
    for (int i = 0; i < N; i++)
        ck_assert_msg(y[i] == (i < N - 6 ? 3.0f * i + 1 : 1.0f), "y[%d] = %g", i, y[i]);
    /* kernel info: source parameters */
    sx_kernel k;
    uint32_t num;
    CK_OK(sx_kernel_get_free_function("axpy", &k));
    CK_OK(sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_ARGS, sizeof(num), &num, NULL));
    ck_assert_uint_eq(num, 4);
    CK_OK(sx_kernel_release(k));
    /* errors: a double for the float, a missing argument, past the end */
    double wrong = 1;
    CK_ERR(sx_args_set(a, 2, sizeof(wrong), &wrong), SX_ERROR_INVALID_ARGUMENT_SIZE);
    CK_MSG_HAS("parameter 2 is a value of 4 bytes, but 8 bytes were given.");
    CK_ERR(sx_args_set(a, 4, sizeof(n), &n), SX_ERROR_INVALID_ARGUMENT_INDEX);
    CK_OK(sx_args_set(a, 2, sizeof(alpha), &alpha));
    CK_ERR(sx_single_task(t.q, a, NULL, 0, NULL, NULL), SX_ERROR_INVALID_OPERATION);
    size_t g2[2] = {N, 1};
    CK_ERR(sx_nd_launch(t.q, a, 2, g2, NULL, NULL, 0, NULL, NULL), SX_ERROR_INVALID_WORK_DIMENSION);
    size_t l_bad[1] = {48};
    CK_ERR(sx_nd_launch(t.q, a, 1, g, l_bad, NULL, 0, NULL, NULL), SX_ERROR_INVALID_WORK_GROUP_SIZE);
    CK_MSG_HAS("local size 48 does not divide global size 256");
    size_t g_big[1] = {4096}, l_big[1] = {2048};
    CK_ERR(sx_nd_launch(t.q, a, 1, g_big, l_big, NULL, 0, NULL, NULL), SX_ERROR_INVALID_WORK_GROUP_SIZE);
    CK_OK(sx_args_clear(a));
    CK_OK(sx_args_set_pointer(a, 0, y));
    CK_ERR(sx_nd_launch(t.q, a, 1, g, l, NULL, 0, NULL, NULL), SX_ERROR_INVALID_KERNEL_ARGS);
    CK_MSG_HAS("argument 1 is not set");
    CK_OK(sx_args_release(a));
    CK_OK(sx_usm_free(t.ctx, x));
    CK_OK(sx_usm_free(t.ctx, y));
}
END_TEST

START_TEST(two_and_three_dimensions)
{
    int *out = e2e_alloc(&t, 8 * 6 * 4 * sizeof(int));
    sx_args a = e2e_args("ids2");
    CK_OK(sx_args_set_pointer(a, 0, out));
    size_t g[2] = {8, 6}, l[2] = {4, 3};
    CK_OK(sx_nd_launch(t.q, a, 2, g, l, NULL, 0, NULL, NULL));
    CK_OK(sx_queue_wait(t.q));
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 8; x++)
            ck_assert_int_eq(out[y * 8 + x], (x / 4) * 1000 + (y % 3) * 100 + x);
    CK_OK(sx_args_release(a));
    a = e2e_args("ids3");
    CK_OK(sx_args_set_pointer(a, 0, out));
    size_t g3[3] = {8, 6, 4}, l3[3] = {2, 3, 2};
    CK_OK(sx_nd_launch(t.q, a, 3, g3, l3, NULL, 0, NULL, NULL));
    CK_OK(sx_nd_launch(t.q, a, 3, g3, NULL, NULL, 0, NULL, NULL)); /* backend picks */
    CK_OK(sx_queue_wait(t.q));
    for (int z = 0; z < 4; z++)
        for (int y = 0; y < 6; y++)
            for (int x = 0; x < 8; x++)
                ck_assert_int_eq(out[(z * 6 + y) * 8 + x], z * 10000 + y * 100 + x);
    CK_OK(sx_args_release(a));
    CK_OK(sx_usm_free(t.ctx, out));
}
END_TEST

START_TEST(work_group_memory_and_barrier)
{
    enum { N = 1024, WG = 64 };
    int *in = e2e_alloc(&t, N * sizeof(int)), *out = e2e_alloc(&t, (N / WG) * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = i;
    sx_args a = e2e_args("group_sum");
    CK_OK(sx_args_set_pointer(a, 0, in));
    CK_OK(sx_args_set_pointer(a, 1, out));
    CK_OK(sx_args_set_local(a, 2, WG * sizeof(int)));
    size_t g[1] = {N}, l[1] = {WG};
    CK_OK(sx_nd_launch(t.q, a, 1, g, l, NULL, 0, NULL, NULL));
    CK_OK(sx_queue_wait(t.q));
    for (int k = 0; k < N / WG; k++) {
        int want = 0;
        for (int i = k * WG; i < (k + 1) * WG; i++)
            want += i;
        ck_assert_int_eq(out[k], want);
    }
    /* a value for the work_group_memory parameter is caught where it is set */
    int v = 1;
    CK_ERR(sx_args_set(a, 2, sizeof(v), &v), SX_ERROR_INVALID_KERNEL_ARGS);
    CK_MSG_HAS("parameter 2 is work_group_memory");
    CK_OK(sx_args_release(a));
    CK_OK(sx_usm_free(t.ctx, in));
    CK_OK(sx_usm_free(t.ctx, out));
}
END_TEST

START_TEST(struct_by_value_and_small_scalars)
{
    double *out = e2e_alloc(&t, 4 * sizeof(double));
    sx_args a = e2e_args("mix");
    struct { int i; float f; char c; double d; } p = {1, 0.5f, 3, 0.25};
    long l = -7;
    unsigned char c = 200;
    short s = -300;
    sx_arg all[] = {{SX_ARG_POINTER, 0, sizeof(void *), out}, {SX_ARG_VALUE, 1, sizeof(p), &p},
                    {SX_ARG_VALUE, 2, sizeof(l), &l}, {SX_ARG_VALUE, 3, 1, &c}, {SX_ARG_VALUE, 4, 2, &s}};
    CK_OK(sx_args_set_all(a, 5, all));
    sx_event e;
    CK_OK(sx_single_task(t.q, a, NULL, 0, NULL, &e));
    CK_OK(sx_event_wait(1, &e));
    CK_OK(sx_event_release(e));
    ck_assert(fabs(out[0] - 4.75) < 1e-9);
    ck_assert(out[1] == -7 && out[2] == 200 && out[3] == -300);
    size_t g[1] = {1};
    CK_ERR(sx_nd_launch(t.q, a, 1, g, NULL, NULL, 0, NULL, NULL), SX_ERROR_INVALID_OPERATION);
    CK_OK(sx_args_release(a));
    CK_OK(sx_usm_free(t.ctx, out));
}
END_TEST

START_TEST(overloads_by_entry_name)
{
    sx_kernel k;
    CK_ERR(sx_kernel_get_free_function("twice", &k), SX_ERROR_INVALID_KERNEL_NAME);
    CK_MSG_HAS("_Z19__sycl_kernel_twicePi");
    CK_MSG_HAS("_Z19__sycl_kernel_twicePf");
    int *pi = e2e_alloc(&t, sizeof(int));
    float *pf = e2e_alloc(&t, sizeof(float));
    *pi = 21;
    *pf = 1.25f;
    sx_args ai = e2e_args("_Z19__sycl_kernel_twicePi"), af = e2e_args("_Z19__sycl_kernel_twicePf");
    CK_OK(sx_args_set_pointer(ai, 0, pi));
    CK_OK(sx_args_set_pointer(af, 0, pf));
    CK_OK(sx_single_task(t.q, ai, NULL, 0, NULL, NULL));
    CK_OK(sx_single_task(t.q, af, NULL, 0, NULL, NULL));
    CK_OK(sx_queue_wait(t.q));
    ck_assert_int_eq(*pi, 42);
    ck_assert(*pf == 2.5f);
    CK_OK(sx_args_release(ai));
    CK_OK(sx_args_release(af));
    /* every kernel of the file is a kernel id */
    uint32_t n;
    CK_OK(sx_kernel_get_all(0, NULL, &n));
    ck_assert_uint_eq(n, 8);
    CK_OK(sx_usm_free(t.ctx, pi));
    CK_OK(sx_usm_free(t.ctx, pf));
}
END_TEST

/* Read a whole file (test data). */
static void *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    void *p = malloc(*n);
    ck_assert(fread(p, 1, *n, f) == *n);
    fclose(f);
    return p;
}

/* A hand-built image: one source argument decomposed into two, one
 * eliminated, work_group_memory, and the hidden scratch argument. */
START_TEST(decomposed_eliminated_and_scratch_arguments)
{
    static const rec recs[] = {
        {SX_PARAM_VALUE, SX_SCALAR_I32, 4, 4, 0, 0},
        {SX_PARAM_POINTER, 0, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 1},
        {SX_PARAM_VALUE, SX_SCALAR_I64, 8, 8, 0, 1},
        {SX_PARAM_VALUE, SX_SCALAR_F32, 4, 4, 0, 2},
        {SX_PARAM_LOCAL, 0, 8, 8, SX_ADDRESS_SPACE_LOCAL, 3},
        {SX_PARAM_LOCAL, 0, 8, 8, SX_ADDRESS_SPACE_LOCAL, SX_SOURCE_INDEX_NONE},
    };
    static blob sig;
    encode(&sig, SX_KERNEL_KIND_ND_RANGE, 1, 4, recs, 6);
    static uint8_t mask[9] = {6, 0, 0, 0, 0, 0, 0, 0, 1u << 3}; /* 6 arguments; `dead` eliminated */
    size_t size;
    void *so = slurp(sxt_build_path("tests/e2e/decomp-host.so"), &size);
    static sx_offload_entry entry = {.name = "__sycl_kernel_decomp"};
    sx_device_binary_property sp = {"__sycl_kernel_decomp", sig.bytes, SX_PROPERTY_TYPE_BYTE_ARRAY, sig.len};
    sx_device_binary_property mp = {"__sycl_kernel_decomp", mask, SX_PROPERTY_TYPE_BYTE_ARRAY, sizeof(mask)};
    sx_device_binary_property ip = {"__sycl_kernel_decomp", NULL, SX_PROPERTY_TYPE_UINT32, 5};
    sx_device_binary_property_set sets[3] = {{SX_PROP_SET_KERNEL_SIGNATURES, &sp, &sp + 1},
                                             {SX_PROP_SET_KERNEL_PARAM_OPT, &mp, &mp + 1},
                                             {SX_PROP_SET_IMPLICIT_LOCAL_ARG, &ip, &ip + 1}};
    sx_device_binary bin = {.version = 2, .kind = SX_OFFLOAD_KIND_SYCL, .format = SX_BINARY_FORMAT_NATIVE,
                            .device_target_spec = SX_TARGET_HOST, .binary_start = so,
                            .binary_end = (unsigned char *)so + size, .entries_begin = &entry,
                            .entries_end = &entry + 1, .property_sets_begin = sets, .property_sets_end = sets + 3};
    sx_device_binaries desc = {SX_DEVICE_BINARIES_VERSION, 1, &bin, NULL, NULL};
    CK_OK(sx_register_images(&desc));

    enum { N = 128, WG = 64 };
    int *p = e2e_alloc(&t, N * sizeof(int));
    sx_args a = e2e_args("decomp");
    struct { int *p; long n; } s = {p, 9};
    int av = 7;
    float dead = 1.5f;
    CK_OK(sx_args_set(a, 0, sizeof(av), &av));
    CK_OK(sx_args_set(a, 1, sizeof(s), &s));
    CK_OK(sx_args_set(a, 2, sizeof(dead), &dead));
    CK_OK(sx_args_set_local(a, 3, WG * sizeof(int)));
    sx_launch_properties props = {sizeof(props), 0, WG * sizeof(int)};
    size_t g[1] = {N}, l[1] = {WG};
    CK_ERR(sx_nd_launch(t.q, a, 1, g, l, NULL, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("work_group_scratch_size");
    CK_OK(sx_nd_launch(t.q, a, 1, g, l, &props, 0, NULL, NULL));
    CK_OK(sx_queue_wait(t.q));
    for (int i = 0; i < N; i++)
        ck_assert_msg(p[i] == 7009, "p[%d] = %d", i, p[i]);
    /* the decomposed value must have the struct's size; the eliminated one its own */
    CK_ERR(sx_args_set(a, 1, 8, &s), SX_ERROR_INVALID_ARGUMENT_SIZE);
    CK_MSG_HAS("parameter 1 is a value of 16 bytes, but 8 bytes were given.");
    CK_OK(sx_args_set(a, 1, sizeof(s), &s));
    double wide = 1;
    CK_ERR(sx_args_set(a, 2, sizeof(wide), &wide), SX_ERROR_INVALID_ARGUMENT_SIZE);
    CK_OK(sx_args_release(a));
    sx_kernel k;
    uint32_t num;
    CK_OK(sx_kernel_get_free_function("decomp", &k));
    CK_OK(sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_ARGS, sizeof(num), &num, NULL));
    ck_assert_uint_eq(num, 4);
    CK_OK(sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_BACKEND_ARGS, sizeof(num), &num, NULL));
    ck_assert_uint_eq(num, 5);
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_usm_free(t.ctx, p));
    CK_OK(sx_unregister_images(&desc));
    free(so);
}
END_TEST

#define THREADS 6
static void *submit(void *arg)
{
    int id = (int)(intptr_t)arg;
    enum { N = 64 };
    float *x, *y;
    if (sx_usm_alloc(t.ctx, t.dev, SX_USM_TYPE_SHARED, N * 4, 0, (void **)&x) ||
        sx_usm_alloc(t.ctx, t.dev, SX_USM_TYPE_SHARED, N * 4, 0, (void **)&y))
        return (void *)1;
    sx_kernel k;
    sx_args a;
    if (sx_kernel_get_free_function("axpy", &k) || sx_args_create(k, &a))
        return (void *)2;
    sx_kernel_release(k);
    void *ret = NULL;
    for (int it = 0; it < 50 && !ret; it++) {
        for (int i = 0; i < N; i++)
            x[i] = 1, y[i] = 0;
        float alpha = (float)(id * 100 + it);
        long n = N;
        sx_args_set_pointer(a, 0, y);
        sx_args_set_pointer(a, 1, x);
        sx_args_set(a, 2, 4, &alpha);
        sx_args_set(a, 3, 8, &n);
        size_t g[1] = {N};
        if (sx_nd_launch(t.q, a, 1, g, NULL, NULL, 0, NULL, NULL) || sx_queue_wait(t.q))
            ret = (void *)3;
        for (int i = 0; i < N && !ret; i++)
            if (y[i] != alpha)
                ret = (void *)4;
    }
    sx_args_release(a);
    sx_usm_free(t.ctx, x);
    sx_usm_free(t.ctx, y);
    return ret;
}

START_TEST(many_threads_one_kernel)
{
    pthread_t th[THREADS];
    for (intptr_t i = 0; i < THREADS; i++)
        pthread_create(&th[i], NULL, submit, (void *)i);
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        ck_assert_msg(r == NULL, "thread %d failed with %p: %s", i, r, sx_last_error());
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("e2e free-function kernels");
    TCase *tc = tcase_create("native");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, axpy_scalars_and_pointers);
    tcase_add_test(tc, two_and_three_dimensions);
    tcase_add_test(tc, work_group_memory_and_barrier);
    tcase_add_test(tc, struct_by_value_and_small_scalars);
    tcase_add_test(tc, overloads_by_entry_name);
    tcase_add_test(tc, decomposed_eliminated_and_scratch_arguments);
    tcase_add_test(tc, many_threads_one_kernel);
    suite_add_tcase(s, tc);
    return s;
}

SXT_MAIN(suite)
