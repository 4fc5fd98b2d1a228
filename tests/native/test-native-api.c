/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-native-api.c: the native adapter through the public API: images
 * registered with sxt descriptors, kernels by name, launches with every
 * argument kind, barrier reduction and launches from several threads. */
#include <pthread.h>
#include <string.h>

#include <sycl-ext/sx.h>

#include "nt.h"

#define OK(call)                                                                  \
    do {                                                                          \
        sx_result r_ = (call);                                                    \
        ck_assert_msg(r_ == SX_SUCCESS, "%s -> %s: %s", #call, sx_result_name(r_), \
                      sx_last_error());                                           \
    } while (0)
#define FAILS(code, call)                                                         \
    do {                                                                          \
        sx_result r_ = (call);                                                    \
        ck_assert_msg(r_ == (code), "%s -> %s, expected %s: %s", #call, sx_result_name(r_), \
                      sx_result_name(code), sx_last_error());                     \
    } while (0)

static sx_device device;
static sx_context context;
static sx_queue queue;
static sx_device_binaries *bins;

static const sxa_param_member pod_members[] = {
    {SX_SCALAR_I32, 0}, {SX_SCALAR_F32, 4}, {SX_SCALAR_F64, 8}, {SX_SCALAR_I8, 16}};
static const sxa_param_member pair_members[] = {{SX_SCALAR_F32, 0}, {SX_SCALAR_F32, 4}};

static sxt_image *image_of(const char *file)
{
    size_t size;
    void *bytes = nt_kernel_bytes(file, &size);
    ck_assert_ptr_nonnull(bytes);
    sxt_image *im = sxt_image_new(SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE, bytes, size);
    free(bytes);
    ck_assert_ptr_nonnull(im);
    return im;
}

static void setup(void)
{
    OK(sx_init(SX_INIT_DEFAULT));
    sx_device devs[8];
    uint32_t n = 0;
    OK(sx_device_get(NULL, SX_DEVICE_TYPE_CPU, 8, devs, &n));
    device = NULL;
    for (uint32_t i = 0; i < n && i < 8; i++) {
        sx_backend b;
        OK(sx_device_get_info(devs[i], SX_DEVICE_INFO_BACKEND, sizeof(b), &b, NULL));
        if (b == SX_BACKEND_NATIVE)
            device = devs[i];
    }
    ck_assert_msg(device != NULL, "no native device");
    OK(sx_context_create(1, &device, &context));
    OK(sx_queue_create(context, device, SX_QUEUE_IN_ORDER, &queue));

    sxt_image *basic = image_of("native-basic.hso");
    sxa_kernel_param fill[] = {SXT_PARAM_POINTER(), SXT_PARAM_VALUE(SX_SCALAR_I32, 4)};
    ck_assert_int_eq(sxt_image_add_kernel(basic, "fill", SX_KERNEL_KIND_PLAIN, 0, 2, 2, fill, NULL), 0);
    sxa_kernel_param bys[] = {SXT_PARAM_POINTER(), SXT_PARAM_VALUE(SX_SCALAR_I32, 4),
                              SXT_PARAM_STRUCT(24, 8, 4, pod_members),
                              SXT_PARAM_STRUCT(8, 4, 2, pair_members), SXT_PARAM_VALUE(SX_SCALAR_F32, 4)};
    ck_assert_int_eq(sxt_image_add_kernel(basic, "bystruct", SX_KERNEL_KIND_PLAIN, 0, 5, 5, bys, NULL), 0);
    sxa_kernel_param ids[] = {SXT_PARAM_POINTER()};
    ck_assert_int_eq(sxt_image_add_kernel(basic, "ids", SX_KERNEL_KIND_ND_RANGE, 3, 1, 1, ids, NULL), 0);
    ck_assert_int_eq(sxt_image_add_kernel(basic, "empty", SX_KERNEL_KIND_SINGLE_TASK, 0, 0, 0, NULL, NULL), 0);

    sxt_image *barrier = image_of("native-barrier.hso");
    sxa_kernel_param red[] = {SXT_PARAM_POINTER(), SXT_PARAM_POINTER(), SXT_PARAM_LOCAL()};
    ck_assert_int_eq(sxt_image_add_kernel(barrier, "reduce", SX_KERNEL_KIND_PLAIN, 0, 3, 3, red, NULL), 0);

    sxt_image *imgs[] = {basic, barrier};
    bins = sxt_binaries(imgs, 2);
    ck_assert_ptr_nonnull(bins);
    OK(sx_register_images(bins));
}

static void teardown(void)
{
    OK(sx_queue_release(queue));
    OK(sx_context_release(context));
    OK(sx_unregister_images(bins));
    OK(sx_fini());
    sxt_binaries_free(bins);
}

static sx_arg aptr(uint32_t i, void *p)
{
    return (sx_arg){SX_ARG_POINTER, i, sizeof(void *), p};
}
static sx_arg aval(uint32_t i, const void *v, size_t n)
{
    return (sx_arg){SX_ARG_VALUE, i, n, v};
}

START_TEST(fill_1d)
{
    sx_kernel k;
    OK(sx_kernel_get("fill", &k));
    uint32_t na;
    OK(sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_BACKEND_ARGS, sizeof(na), &na, NULL));
    ck_assert_uint_eq(na, 2);
    int *out;
    OK(sx_usm_alloc(context, device, SX_USM_TYPE_SHARED, 1000 * sizeof(int), 0, (void **)&out));
    int v = 7;
    sx_arg args[] = {aptr(0, out), aval(1, &v, 4)};
    size_t g = 1000;
    sx_event ev;
    OK(sx_queue_launch(queue, k, 1, NULL, &g, NULL, 2, args, 0, NULL, &ev));
    OK(sx_event_wait(1, &ev));
    sx_event_status st;
    OK(sx_event_get_status(ev, &st));
    ck_assert_int_eq(st, SX_EVENT_STATUS_COMPLETE);
    OK(sx_event_release(ev));
    for (int i = 0; i < 1000; i++)
        ck_assert_int_eq(out[i], 7 + i);
    /* a wrong argument is reported with the kernel and the index */
    int64_t v8 = 1;
    sx_arg bad[] = {aptr(0, out), aval(1, &v8, 8)};
    FAILS(SX_ERROR_INVALID_ARGUMENT_SIZE, sx_queue_launch(queue, k, 1, NULL, &g, NULL, 2, bad, 0, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(sx_last_error(), "fill"));
    OK(sx_usm_free(context, out));
    OK(sx_kernel_release(k));
}
END_TEST

START_TEST(ids_3d)
{
    sx_kernel k;
    OK(sx_kernel_get("ids", &k));
    size_t g[3] = {4, 6, 8}, l[3] = {2, 3, 4}, o[3] = {1, 1, 1};
    uint32_t *out;
    OK(sx_usm_alloc(context, device, SX_USM_TYPE_DEVICE, 4 * 6 * 8 * 8 * 4, 0, (void **)&out));
    sx_arg a = aptr(0, out);
    OK(sx_queue_launch(queue, k, 3, o, g, l, 1, &a, 0, NULL, NULL));
    OK(sx_queue_wait(queue));
    uint32_t *host = malloc(4 * 6 * 8 * 8 * 4);
    OK(sx_queue_memcpy(queue, 1, host, out, 4 * 6 * 8 * 8 * 4, 0, NULL, NULL));
    for (size_t z = 0; z < 8; z++)
        for (size_t y = 0; y < 6; y++)
            for (size_t x = 0; x < 4; x++) {
                const uint32_t *r = host + ((z * 6 + y) * 4 + x) * 8;
                ck_assert_uint_eq(r[0], x + 1);
                ck_assert_uint_eq(r[1], y + 1);
                ck_assert_uint_eq(r[2], z + 1);
                ck_assert_uint_eq(r[4], (x / 2) | (y / 3) << 10 | (z / 4) << 20);
            }
    free(host);
    OK(sx_usm_free(context, out));
    OK(sx_kernel_release(k));
}
END_TEST

START_TEST(structs)
{
    sx_kernel k;
    OK(sx_kernel_get("bystruct", &k));
    double *out;
    OK(sx_usm_alloc(context, device, SX_USM_TYPE_SHARED, 8 * sizeof(double), 0, (void **)&out));
    struct {
        int32_t a;
        float b;
        double c;
        int8_t d;
    } pod = {-42, 1.25f, 1e-3, -9};
    float pair[2] = {7.5f, 8.5f};
    int before = 3;
    float after = 4.0f;
    sx_arg args[] = {aptr(0, out), aval(1, &before, 4), aval(2, &pod, sizeof(pod)),
                     aval(3, pair, 8), aval(4, &after, 4)};
    size_t g = 1;
    OK(sx_queue_launch(queue, k, 1, NULL, &g, NULL, 5, args, 0, NULL, NULL));
    double want[] = {3, -42, 1.25, 1e-3, -9, 7.5, 8.5, 4.0};
    for (int i = 0; i < 8; i++)
        ck_assert_double_eq(out[i], want[i]);
    OK(sx_usm_free(context, out));
    OK(sx_kernel_release(k));
}
END_TEST

struct job {
    sx_kernel k;
    int id, ok;
};

static void *reduce_thread(void *p)
{
    struct job *j = p;
    int *in = NULL, *out = NULL;
    j->ok = 0;
    if (sx_usm_alloc(context, device, SX_USM_TYPE_SHARED, 1024 * sizeof(int), 0, (void **)&in) ||
        sx_usm_alloc(context, device, SX_USM_TYPE_SHARED, 16 * sizeof(int), 0, (void **)&out))
        return NULL;
    int good = 1;
    for (int rep = 0; rep < 20 && good; rep++) {
        for (int i = 0; i < 1024; i++)
            in[i] = j->id + rep;
        sx_arg args[] = {aptr(0, in), aptr(1, out), {SX_ARG_LOCAL, 2, 64 * sizeof(int), NULL}};
        size_t g = 1024, l = 64;
        if (sx_queue_launch(queue, j->k, 1, NULL, &g, &l, 3, args, 0, NULL, NULL) != SX_SUCCESS)
            good = 0;
        for (int i = 0; i < 16 && good; i++)
            good = out[i] == 64 * (j->id + rep);
    }
    sx_usm_free(context, in);
    sx_usm_free(context, out);
    j->ok = good;
    return NULL;
}

START_TEST(barrier_threads)
{
    sx_kernel k;
    OK(sx_kernel_get("reduce", &k));
    enum { N = 6 };
    pthread_t th[N];
    struct job jobs[N];
    for (int i = 0; i < N; i++) {
        jobs[i] = (struct job){k, i, 0};
        ck_assert_int_eq(pthread_create(&th[i], NULL, reduce_thread, &jobs[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(jobs[i].ok, "thread %d: wrong sums", i);
    }
    OK(sx_kernel_release(k));
}
END_TEST

START_TEST(single_task)
{
    sx_kernel k;
    OK(sx_kernel_get("empty", &k));
    size_t g = 1;
    for (int i = 0; i < 1000; i++)
        OK(sx_queue_launch(queue, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
    OK(sx_kernel_release(k));
}
END_TEST

int main(void)
{
    nt_require_kernels();
    Suite *s = suite_create("native-api");
    const char *only = getenv("NT_ONLY");
#define ADD(t) \
    if ((!only || strcmp(only, #t) == 0) && !nt_skipped(#t)) \
    tcase_add_test(tc, t)
    TCase *tc = tcase_create("api");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    ADD(fill_1d);
    ADD(ids_3d);
    ADD(structs);
    ADD(barrier_threads);
    ADD(single_task);
    suite_add_tcase(s, tc);
    return nt_run(s);
}
