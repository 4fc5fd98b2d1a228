/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-e2e-dg.c: device globals from dg.cl/dg2.cl (bundled by proptool)
 * on the native adapter: state shared by kernels and images, zero and
 * initial values, instances per context, copy/memcpy edges, host_access,
 * device_image_scope with one, two and no images, teardown in both orders,
 * many threads. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>
#include <sycl-ext/device-global.h>

#include "e2e.h"

SX_DEVICE_GLOBAL(int, counter, "dg_counter", SX_HOST_ACCESS_READ_WRITE);
SX_DEVICE_GLOBAL(int[4], ro, "dg_ro", SX_HOST_ACCESS_READ);
SX_DEVICE_GLOBAL_IMAGE_SCOPE(int[4], tile, "dg_tile", SX_HOST_ACCESS_READ_WRITE);
/* Known to the host only: no image has it. */
SX_DEVICE_GLOBAL_INIT(long, lonely, "dg_lonely", SX_HOST_ACCESS_READ_WRITE, 77);
SX_DEVICE_GLOBAL_IMAGE_SCOPE(int[2], hostonly, "dg_hostonly", SX_HOST_ACCESS_READ_WRITE);

static e2e t;
static void setup(void) { e2e_open(&t, "tests/e2e/dg.sximg"); }
static void teardown(void) { e2e_close(&t); }

static void run(sx_queue q, const char *fn, const int *arg)
{
    sx_args a = e2e_args(fn);
    if (arg)
        CK_OK(sx_args_set(a, 0, sizeof(*arg), arg));
    CK_OK(sx_single_task(q, a, NULL, 0, NULL, NULL));
    CK_OK(sx_queue_wait(q));
    CK_OK(sx_args_release(a));
}

static int read_counter(sx_queue q)
{
    int v = -1;
    CK_OK(sx_queue_device_global_read(q, &v, &counter, sizeof(v), 0, 1, 0, NULL, NULL));
    return v;
}

START_TEST(shared_across_kernels_and_images)
{
    ck_assert_int_eq(read_counter(t.q), 0); /* zero-initialised */
    int v = 41;
    CK_OK(sx_queue_device_global_write(t.q, &counter, &v, sizeof(v), 0, 1, 0, NULL, NULL));
    run(t.q, "dg_inc", NULL);
    ck_assert_int_eq(read_counter(t.q), 42);
    /* dg_get lives in the other image (dg2.cl): same instance */
    int *out = e2e_alloc(&t, sizeof(int));
    sx_args a = e2e_args("dg_get");
    CK_OK(sx_args_set_pointer(a, 0, out));
    CK_OK(sx_single_task(t.q, a, NULL, 0, NULL, NULL));
    CK_OK(sx_queue_wait(t.q));
    ck_assert_int_eq(*out, 42);
    CK_OK(sx_args_release(a));
    /* an nd_range kernel with atomics from many work-items */
    a = e2e_args("dg_add");
    int add = 2;
    CK_OK(sx_args_set(a, 0, sizeof(add), &add));
    size_t g[1] = {256}, l[1] = {16};
    CK_OK(sx_nd_launch(t.q, a, 1, g, l, NULL, 0, NULL, NULL));
    CK_OK(sx_queue_wait(t.q));
    ck_assert_int_eq(read_counter(t.q), 42 + 512);
    CK_OK(sx_args_release(a));
    CK_OK(sx_usm_free(t.ctx, out));
}
END_TEST

START_TEST(instances_per_context)
{
    sx_context c2;
    sx_queue q2;
    CK_OK(sx_context_create(1, &t.dev, &c2));
    CK_OK(sx_queue_create(c2, t.dev, 0, &q2));
    int v = 5;
    CK_OK(sx_queue_device_global_write(t.q, &counter, &v, sizeof(v), 0, 1, 0, NULL, NULL));
    run(q2, "dg_inc", NULL);
    run(q2, "dg_inc", NULL);
    ck_assert_int_eq(read_counter(q2), 2);
    ck_assert_int_eq(read_counter(t.q), 5);
    /* a host-only variable gets an instance too, from its initial value */
    long lv = 0;
    CK_OK(sx_queue_device_global_read(q2, &lv, &lonely, sizeof(lv), 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(lv, 77);
    CK_OK(sx_queue_release(q2));
    CK_OK(sx_context_release(c2));
}
END_TEST

START_TEST(copy_and_memcpy_edges)
{
    int four[4] = {0}, one = 9;
    /* ro is 16 bytes, host_access read: fill it from a kernel, read it */
    int base = 10;
    run(t.q, "dg_ro_fill", &base);
    CK_OK(sx_queue_device_global_read(t.q, four, &ro, 16, 0, 1, 0, NULL, NULL));
    ck_assert(four[0] == 10 && four[3] == 13);
    CK_OK(sx_queue_device_global_copy_from(t.q, &one, &ro, sizeof(int), 1, 3, 1, 0, NULL, NULL));
    ck_assert_int_eq(one, 13);
    CK_OK(sx_queue_device_global_read(t.q, &one, &ro, 4, 12, 1, 0, NULL, NULL)); /* last element */
    CK_OK(sx_queue_device_global_read(t.q, &one, &ro, 0, 16, 1, 0, NULL, NULL)); /* empty at the end */
    CK_ERR(sx_queue_device_global_read(t.q, &one, &ro, 4, 13, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("device_global 'dg_ro': copying 4 bytes from it at offset 13 overruns its 16 bytes.");
    CK_ERR(sx_queue_device_global_read(t.q, four, &ro, 17, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_queue_device_global_read(t.q, four, &ro, 4, SIZE_MAX - 1, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_queue_device_global_copy_from(t.q, four, &ro, sizeof(int), 2, 3, 1, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_queue_device_global_copy_from(t.q, four, &ro, sizeof(int), 1, SIZE_MAX / 2, 1, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_queue_device_global_copy_from(t.q, four, &ro, 0, 1, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_SIZE);
    /* host_access read: writes are refused */
    CK_ERR(sx_queue_device_global_write(t.q, &ro, four, 4, 0, 1, 0, NULL, NULL), SX_ERROR_ACCESS_DENIED);
    CK_MSG_HAS("device_global 'dg_ro': host_access read forbids copying to it.");
    /* unknown variable, NULL buffers */
    int stray;
    CK_ERR(sx_queue_device_global_write(t.q, &stray, four, 4, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_GLOBAL_NAME);
    CK_ERR(sx_queue_device_global_write(t.q, &counter, NULL, 4, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    /* copy_to with a start index and an event, then a dependent read */
    int v = 123;
    sx_event e;
    CK_OK(sx_queue_device_global_copy_to(t.q, &v, &counter, sizeof(int), 1, 0, 0, 0, NULL, &e));
    int back = 0;
    CK_OK(sx_queue_device_global_read(t.q, &back, &counter, 4, 0, 1, 1, &e, NULL));
    ck_assert_int_eq(back, 123);
    CK_OK(sx_event_release(e));
    /* USM as the source */
    int *usm = e2e_alloc(&t, sizeof(int));
    *usm = 7;
    CK_OK(sx_queue_device_global_write(t.q, &counter, usm, 4, 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(read_counter(t.q), 7);
    CK_OK(sx_usm_free(t.ctx, usm));
}
END_TEST

START_TEST(image_scope_one_image)
{
    int v[4] = {0};
    /* no program yet: the copy builds it; the value starts from the initialiser */
    CK_OK(sx_queue_device_global_read(t.q, v, &tile, sizeof(v), 0, 1, 0, NULL, NULL));
    ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4);
    int w[2] = {10, 20};
    CK_OK(sx_queue_device_global_write(t.q, &tile, w, sizeof(w), 8, 1, 0, NULL, NULL));
    run(t.q, "tile_double", NULL);
    CK_OK(sx_queue_device_global_read(t.q, v, &tile, sizeof(v), 0, 1, 0, NULL, NULL));
    ck_assert(v[0] == 2 && v[1] == 4 && v[2] == 20 && v[3] == 40);
    CK_ERR(sx_queue_device_global_write(t.q, &tile, w, 8, 12, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(image_scope_two_images)
{
    sx_image_file second;
    CK_OK(sx_image_file_load(sxt_build_path("tests/e2e/scope2.sximg"), &second));
    int v[4];
    CK_ERR(sx_queue_device_global_read(t.q, v, &tile, sizeof(v), 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("is in 2 images");
    CK_OK(sx_image_file_release(second));
    CK_OK(sx_queue_device_global_read(t.q, v, &tile, sizeof(v), 0, 1, 0, NULL, NULL));
    /* The other way round: copies repeated (the resolution reused), then
     * the second image comes: seen at once. */
    CK_OK(sx_queue_device_global_read(t.q, v, &tile, sizeof(v), 0, 1, 0, NULL, NULL));
    CK_OK(sx_image_file_load(sxt_build_path("tests/e2e/scope2.sximg"), &second));
    CK_ERR(sx_queue_device_global_write(t.q, &tile, v, sizeof(v), 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("is in 2 images");
    CK_OK(sx_image_file_release(second));
    /* Unregistered under a remembered program: the host object is the
     * storage then; registered again, a new program starts from the
     * initialiser. */
    CK_OK(sx_queue_device_global_read(t.q, v, &tile, sizeof(v), 0, 1, 0, NULL, NULL));
    CK_OK(sx_image_file_release(t.file));
    CK_OK(sx_queue_device_global_read(t.q, v, &tile, sizeof(v), 0, 1, 0, NULL, NULL));
    CK_OK(sx_image_file_load(sxt_build_path("tests/e2e/dg.sximg"), &t.file));
    CK_OK(sx_queue_device_global_read(t.q, v, &tile, sizeof(v), 0, 1, 0, NULL, NULL));
    ck_assert(v[0] == 1 && v[3] == 4); /* a fresh program: the initialiser again */
}
END_TEST

START_TEST(image_scope_no_image_uses_host_storage)
{
    int w[2] = {3, 4}, r[2] = {0};
    CK_OK(sx_queue_device_global_write(t.q, &hostonly, w, sizeof(w), 0, 1, 0, NULL, NULL));
    ck_assert(hostonly.value[0] == 3 && hostonly.value[1] == 4);
    CK_OK(sx_queue_device_global_read(t.q, r, &hostonly, 4, 4, 1, 0, NULL, NULL));
    ck_assert_int_eq(r[0], 4);
    CK_ERR(sx_queue_device_global_read(t.q, r, &hostonly, 8, 4, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(teardown_unregister_then_context)
{
    /* instance allocated, then the library goes, then the context */
    int v = 1;
    CK_OK(sx_queue_device_global_write(t.q, &counter, &v, 4, 0, 1, 0, NULL, NULL));
    run(t.q, "dg_inc", NULL);
    CK_OK(sx_image_file_release(t.file));
    CK_OK(sx_device_global_remove(&counter));
    CK_ERR(sx_queue_device_global_read(t.q, &v, &counter, 4, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_GLOBAL_NAME);
    CK_OK(sx_queue_release(t.q));
    CK_OK(sx_context_release(t.ctx));
    CK_OK(sx_device_global_add(&counter, "dg_counter", sizeof(int), 0, SX_HOST_ACCESS_READ_WRITE));
    /* and the fixture's teardown sees a fresh set again */
    CK_OK(sx_image_file_load(sxt_build_path("tests/e2e/dg.sximg"), &t.file));
    CK_OK(sx_context_create(1, &t.dev, &t.ctx));
    CK_OK(sx_queue_create(t.ctx, t.dev, 0, &t.q));
}
END_TEST

/* Repeated copies reuse their thread's last resolution: each change
 * (registration, access, context, bounds) must still be seen. */
START_TEST(repeated_copies_see_changes)
{
    int v = 5, back = 0;
    for (int i = 0; i < 3; i++)
        CK_OK(sx_queue_device_global_write(t.q, &counter, &v, 4, 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(read_counter(t.q), 5);
    CK_ERR(sx_queue_device_global_write(t.q, &counter, &v, 4, 4, 1, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("overruns its 4 bytes");
    CK_ERR(sx_queue_device_global_write(t.q, &counter, NULL, 4, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    /* A read-only one just read: a write is still refused. */
    int four[4];
    CK_OK(sx_queue_device_global_read(t.q, four, &ro, sizeof(four), 0, 1, 0, NULL, NULL));
    CK_ERR(sx_queue_device_global_write(t.q, &ro, four, sizeof(four), 0, 1, 0, NULL, NULL), SX_ERROR_ACCESS_DENIED);
    /* Removed and registered again: gone in between, the value kept after. */
    CK_OK(sx_queue_device_global_read(t.q, &back, &counter, 4, 0, 1, 0, NULL, NULL));
    CK_OK(sx_device_global_remove(&counter));
    CK_ERR(sx_queue_device_global_read(t.q, &back, &counter, 4, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_GLOBAL_NAME);
    CK_OK(sx_device_global_add(&counter, "dg_counter", sizeof(int), 0, SX_HOST_ACCESS_READ_WRITE));
    ck_assert_int_eq(read_counter(t.q), 5);
    /* A new context (perhaps at the old one's address): its own instance. */
    CK_OK(sx_queue_release(t.q));
    CK_OK(sx_context_release(t.ctx));
    CK_OK(sx_context_create(1, &t.dev, &t.ctx));
    CK_OK(sx_queue_create(t.ctx, t.dev, 0, &t.q));
    ck_assert_int_eq(read_counter(t.q), 0);
    v = 9;
    CK_OK(sx_queue_device_global_write(t.q, &counter, &v, 4, 0, 1, 0, NULL, NULL));
    run(t.q, "dg_inc", NULL);
    ck_assert_int_eq(read_counter(t.q), 10);
}
END_TEST

START_TEST(teardown_context_then_unregister)
{
    int v = 1;
    sx_context c2;
    sx_queue q2;
    CK_OK(sx_context_create(1, &t.dev, &c2));
    CK_OK(sx_queue_create(c2, t.dev, 0, &q2));
    CK_OK(sx_queue_device_global_write(q2, &counter, &v, 4, 0, 1, 0, NULL, NULL));
    run(q2, "dg_inc", NULL);
    CK_OK(sx_queue_release(q2));
    CK_OK(sx_context_release(c2));
    CK_OK(sx_image_file_release(t.file));
    CK_OK(sx_image_file_load(sxt_build_path("tests/e2e/dg.sximg"), &t.file));
    ck_assert_int_eq(read_counter(t.q), 0);
}
END_TEST

static void *worker(void *arg)
{
    sx_queue q;
    if (sx_queue_create(t.ctx, t.dev, 0, &q))
        return (void *)1;
    void *ret = NULL;
    for (int i = 0; i < 40 && !ret; i++) {
        sx_kernel k;
        sx_args a;
        int add = 1;
        if (sx_kernel_get_free_function("dg_add", &k) || sx_args_create(k, &a))
            ret = (void *)2;
        else {
            sx_kernel_release(k);
            size_t g[1] = {8};
            sx_args_set(a, 0, 4, &add);
            if (sx_nd_launch(q, a, 1, g, NULL, NULL, 0, NULL, NULL) || sx_queue_wait(q))
                ret = (void *)3;
            int tmp;
            if (sx_queue_device_global_read(q, &tmp, &counter, 4, 0, 1, 0, NULL, NULL))
                ret = (void *)4;
            sx_args_release(a);
        }
    }
    sx_queue_release(q);
    return ret;
}

START_TEST(many_threads_copy_and_launch)
{
    pthread_t th[6];
    for (intptr_t i = 0; i < 6; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < 6; i++) {
        void *r;
        pthread_join(th[i], &r);
        ck_assert_msg(!r, "thread %d: %p", i, r);
    }
    ck_assert_int_eq(read_counter(t.q), 6 * 40 * 8);
}
END_TEST

/* In no image: a removal frees its instances while copies may run. */
static struct {
    void *usm;
    int value[2];
} racy;
static _Atomic int racy_stop, racy_started;

static void *racy_churn(void *arg)
{
    (void)arg;
    void *ret = NULL;
    while (!atomic_load(&racy_started))
        sched_yield();
    for (int i = 0; i < 3000 && !ret; i++)
        if (sx_device_global_remove(&racy) ||
            sx_device_global_add(&racy, "dg_racy", sizeof(racy.value), 0, SX_HOST_ACCESS_READ_WRITE))
            ret = (void *)1;
    atomic_store(&racy_stop, 1);
    return ret;
}

/* A copy racing sx_device_global_remove of its variable succeeds (into an
 * instance still alive) or says the variable is not registered; it never
 * touches freed memory (ASan, TSan and valgrind runs of this suite). */
START_TEST(copies_race_removal)
{
    CK_OK(sx_device_global_add(&racy, "dg_racy", sizeof(racy.value), 0, SX_HOST_ACCESS_READ_WRITE));
    int v[2] = {5, 6}, got[2];
    CK_OK(sx_device_global_remove(&racy));
    sx_result r = sx_queue_device_global_write(t.q, &racy, v, sizeof(v), 0, 1, 0, NULL, NULL);
    ck_assert_msg(r == SX_ERROR_INVALID_GLOBAL_NAME, "a copy after removal: %s", sx_result_name(r));
    CK_MSG_HAS("is not a registered device_global");
    CK_OK(sx_device_global_add(&racy, "dg_racy", sizeof(racy.value), 0, SX_HOST_ACCESS_READ_WRITE));
    CK_OK(sx_queue_device_global_read(t.q, got, &racy, sizeof(got), 0, 1, 0, NULL, NULL));
    ck_assert_msg(got[0] == 0 && got[1] == 0, "a new instance reads %d %d", got[0], got[1]);
    atomic_store(&racy_stop, 0);
    atomic_store(&racy_started, 0);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, racy_churn, NULL), 0);
    long ok = 0, gone = 0;
    for (int i = 1; i < 100 || !atomic_load(&racy_stop); i++) {
        atomic_store(&racy_started, 1);
        v[0] = i, v[1] = -i;
        for (int k = 0; k < 4; k++) { /* repeated: this thread's fast path */
            r = sx_queue_device_global_write(t.q, &racy, v, sizeof(v), 0, 1, 0, NULL, NULL);
            ck_assert_msg(r == SX_SUCCESS || r == SX_ERROR_INVALID_GLOBAL_NAME, "write %d: %s: %s", i,
                          sx_result_name(r), sx_last_error());
        }
        sx_event ev = NULL;
        r = sx_queue_device_global_read(t.q, got, &racy, sizeof(got), 0, 0, 0, NULL, &ev);
        ck_assert_msg(r == SX_SUCCESS || r == SX_ERROR_INVALID_GLOBAL_NAME, "read %d: %s: %s", i, sx_result_name(r),
                      sx_last_error());
        if (r == SX_SUCCESS) {
            CK_OK(sx_event_wait(1, &ev));
            CK_OK(sx_event_release(ev));
            ck_assert_msg((got[0] == i && got[1] == -i) || (got[0] == 0 && got[1] == 0), "read %d %d after %d", got[0],
                          got[1], i);
        }
        ok += r == SX_SUCCESS;
        gone += r != SX_SUCCESS;
    }
    void *ret;
    pthread_join(th, &ret);
    ck_assert_msg(!ret, "remove/add failed: %s", sx_last_error());
    ck_assert_msg(ok > 0, "no copy succeeded (%ld refused)", gone);
    CK_OK(sx_queue_device_global_write(t.q, &racy, v, sizeof(v), 0, 1, 0, NULL, NULL));
    CK_OK(sx_device_global_remove(&racy));
}
END_TEST

static _Atomic int scope_stop;

static void *scope_churn(void *arg)
{
    for (int i = 0; i < 150; i++) {
        sx_image_file f;
        if (sx_image_file_load((const char *)arg, &f) || sx_image_file_release(f))
            return (void *)1;
    }
    atomic_store(&scope_stop, 1);
    return NULL;
}

/* Repeated device_image_scope copies (the thread's remembered program and
 * symbol, used inside a reader section) while the only image holding the
 * variable is registered and unregistered: each copy succeeds, into the
 * program while the image is there, into the host object while it is not;
 * the program and image freed by each unregistration are never used. */
START_TEST(image_scope_copies_race_unregistration)
{
    /* dg_tile only in scope2.sximg: the fixture's image goes for now */
    CK_OK(sx_image_file_release(t.file));
    char path[4096];
    snprintf(path, sizeof(path), "%s", sxt_build_path("tests/e2e/scope2.sximg"));
    atomic_store(&scope_stop, 0);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, scope_churn, path), 0);
    long n = 0;
    /* at least 50 rounds, however soon the churning thread is done (a
     * loaded or many-core machine finishes it first) */
    for (int i = 1; i <= 50 || !atomic_load(&scope_stop); i++, n++) {
        int v[4] = {i, i, i, i}, got[4] = {0};
        for (int k = 0; k < 4; k++)
            CK_OK(sx_queue_device_global_write(t.q, &tile, v, sizeof(v), 0, 1, 0, NULL, NULL));
        CK_OK(sx_queue_device_global_read(t.q, got, &tile, sizeof(got), 0, 1, 0, NULL, NULL));
        /* what was written, or (the image came or went in between) the
         * program's zeros or the host object's last value */
        ck_assert_msg(got[0] == got[3] && got[0] <= i && got[0] >= 0, "read %d..%d after writing %d", got[0], got[3], i);
    }
    void *ret;
    pthread_join(th, &ret);
    ck_assert_msg(!ret, "image churn failed: %s", sx_last_error());
    ck_assert_msg(n >= 50, "%ld rounds", n);
    CK_OK(sx_image_file_load(sxt_build_path("tests/e2e/dg.sximg"), &t.file));
}
END_TEST

/* Two devices: the native CPU and the Level Zero TEST DRIVER's GPU (the
 * driver runs no kernels of this file, but copies exercise the instances). */
START_TEST(instances_per_device)
{
    char list[8192];
    const char *ze = sxt_build_path("adapters/level_zero/.libs/sx-adapter-level_zero.so");
    const char *drv = sxt_build_path("tests/level_zero/.libs/libze_sx_test_driver.so");
    if (access(ze, F_OK) || access(drv, F_OK)) {
        fprintf(stderr, "instances_per_device: no Level Zero adapter or test driver built: skipped\n");
        return;
    }
    /* Start again with both adapters; the image file stays registered. */
    CK_OK(sx_queue_release(t.q));
    CK_OK(sx_context_release(t.ctx));
    CK_OK(sx_fini());
    snprintf(list, sizeof(list), "native,%s", ze);
    setenv("SX_ADAPTERS", list, 1);
    setenv("ZE_ENABLE_ALT_DRIVERS", drv, 1);
    CK_OK(sx_init(0));
    sx_device devs[2];
    uint32_t n = 0;
    CK_OK(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 2, devs, &n));
    ck_assert_uint_eq(n, 2);
    sx_context c[2];
    sx_queue q[2];
    for (int i = 0; i < 2; i++) {
        CK_OK(sx_context_create(1, &devs[i], &c[i]));
        CK_OK(sx_queue_create(c[i], devs[i], 0, &q[i]));
        int v = 100 + i;
        CK_OK(sx_queue_device_global_write(q[i], &counter, &v, sizeof(v), 0, 1, 0, NULL, NULL));
    }
    for (int i = 0; i < 2; i++) {
        ck_assert_int_eq(read_counter(q[i]), 100 + i);
        CK_OK(sx_queue_release(q[i]));
        CK_OK(sx_context_release(c[i]));
    }
    /* the fixture's objects again, on the native device */
    CK_OK(sx_device_get(NULL, SX_DEVICE_TYPE_CPU, 1, &t.dev, NULL));
    CK_OK(sx_context_create(1, &t.dev, &t.ctx));
    CK_OK(sx_queue_create(t.ctx, t.dev, 0, &t.q));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("e2e device globals");
    TCase *tc = tcase_create("native");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, shared_across_kernels_and_images);
    tcase_add_test(tc, instances_per_context);
    tcase_add_test(tc, instances_per_device);
    tcase_add_test(tc, copy_and_memcpy_edges);
    tcase_add_test(tc, image_scope_one_image);
    tcase_add_test(tc, image_scope_two_images);
    tcase_add_test(tc, image_scope_no_image_uses_host_storage);
    tcase_add_test(tc, teardown_unregister_then_context);
    tcase_add_test(tc, repeated_copies_see_changes);
    tcase_add_test(tc, teardown_context_then_unregister);
    tcase_add_test(tc, many_threads_copy_and_launch);
    tcase_add_test(tc, copies_race_removal);
    tcase_add_test(tc, image_scope_copies_race_unregistration);
    suite_add_tcase(s, tc);
    return s;
}

SXT_MAIN(suite)
