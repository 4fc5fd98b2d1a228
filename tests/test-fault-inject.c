/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-fault-inject.c: a whole flow (register -> init -> context, queue,
 * USM -> kernel -> launch with event -> copy -> releases -> fini ->
 * unregister) run once for every N with the Nth adapter call failing
 * (tests/fake fault-inject.so, a TEST adapter), and once for every N with
 * the Nth memory allocation failing (malloc interposed here). Every run
 * must end in success or clean errors that name something, with no crash;
 * afterwards nothing is left registered (the descriptor registers again)
 * and a flow without faults works. tests/valgrind.sh runs the adapter
 * sweep for leaks. */
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"
#include "fake-image.h"

/* ------------------------------------------------ failing allocations */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static _Atomic long alloc_count, alloc_fail_at; /* 0: no failure */
static _Atomic int alloc_failed;

static int alloc_should_fail(void)
{
    long at = atomic_load_explicit(&alloc_fail_at, memory_order_relaxed);
    if (!at)
        return 0;
    if (atomic_fetch_add(&alloc_count, 1) + 1 != at)
        return 0;
    atomic_store(&alloc_failed, 1);
    return 1;
}
/* Default visibility: the build hides symbols, and these must interpose. */
#define VISIBLE __attribute__((visibility("default")))
VISIBLE void *malloc(size_t n) { return alloc_should_fail() ? NULL : __libc_malloc(n); }
VISIBLE void *calloc(size_t a, size_t b) { return alloc_should_fail() ? NULL : __libc_calloc(a, b); }
VISIBLE void *realloc(void *p, size_t n) { return alloc_should_fail() ? NULL : __libc_realloc(p, n); }

/* ------------------------------------------------ the flow */

static fake_image img;
static char adapter_path[4096];

static int errors_named, steps_failed;

/* A failing step must say what failed. */
static int step(sx_result r)
{
    if (r != SX_SUCCESS) {
        steps_failed++;
        if (sx_last_error()[0])
            errors_named++;
    }
    return r == SX_SUCCESS;
}

/* Returns 1 when the whole flow succeeded. */
static int flow(void)
{
    int ok = 1;
    sx_device dev = NULL;
    sx_context ctx = NULL;
    sx_queue q = NULL;
    sx_kernel k = NULL;
    sx_event ev = NULL;
    unsigned long *buf = NULL;
    int registered = step(sx_register_images(&img.desc));
    ok &= registered;
    int inited = step(sx_init(0));
    ok &= inited;
    if (inited && step(sx_device_get_default(&dev)) && step(sx_context_create(1, &dev, &ctx)) &&
        step(sx_queue_create(ctx, dev, 0, &q)) &&
        step(sx_usm_alloc(ctx, NULL, SX_USM_TYPE_HOST, 2 * sizeof(unsigned long), 0, (void **)&buf)) &&
        step(sx_kernel_get("k_args", &k))) {
        int v = 3;
        sx_arg args[3] = {{SX_ARG_POINTER, 0, sizeof(void *), buf}, {SX_ARG_VALUE, 1, sizeof(v), &v},
                          {SX_ARG_LOCAL, 2, 64, NULL}};
        size_t g = 4, l = 4;
        if (step(sx_queue_launch(q, k, 1, NULL, &g, &l, 3, args, 0, NULL, &ev)) && step(sx_event_wait(1, &ev)) &&
            step(sx_queue_memcpy(q, 1, buf + 1, buf, sizeof(unsigned long), 0, NULL, NULL)))
            ok &= buf[1] == buf[0] && buf[0] > 0;
        else
            ok = 0;
    } else {
        ok = 0;
    }
    /* Releases: each may report the adapter's failure, never crash. */
    if (ev)
        ok &= step(sx_event_release(ev));
    if (k)
        ok &= step(sx_kernel_release(k));
    if (buf)
        ok &= step(sx_usm_free(ctx, buf));
    if (q)
        ok &= step(sx_queue_release(q));
    if (ctx)
        ok &= step(sx_context_release(ctx));
    if (inited)
        ok &= step(sx_fini());
    if (registered)
        ok &= step(sx_unregister_images(&img.desc));
    return ok;
}

/* Nothing registered is left behind: the descriptor registers again. */
static void check_clean(long n, const char *what)
{
    long saved = atomic_exchange(&alloc_fail_at, 0);
    sx_result r = sx_register_images(&img.desc);
    ck_assert_msg(r == SX_SUCCESS, "%s %ld: the descriptor is still (half) registered: %s: %s", what, n,
                  sx_result_name(r), sx_last_error());
    CK_OK(sx_unregister_images(&img.desc));
    atomic_store(&alloc_fail_at, saved);
}

static void setup(void)
{
    fake_image_init(&img, NULL, 0);
    snprintf(adapter_path, sizeof(adapter_path), "%s", sxt_build_path("tests/fake/.libs/fault-inject.so"));
    ck_assert_msg(access(adapter_path, R_OK) == 0, "%s not built", adapter_path);
    setenv("SX_ADAPTERS", adapter_path, 1);
    unsetenv("SX_FAULT_AT");
}

/* The number of adapter calls a clean flow makes. */
static long count_calls(void)
{
    char path[] = "/tmp/sx-fault-count-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    setenv("SX_FAULT_COUNT_FILE", path, 1);
    ck_assert_msg(flow(), "the flow fails without any fault: %s", sx_last_error());
    unsetenv("SX_FAULT_COUNT_FILE");
    FILE *f = fopen(path, "r");
    long n = 0;
    ck_assert_msg(f && fscanf(f, "%ld", &n) == 1, "no call count in %s", path);
    fclose(f);
    unlink(path);
    return n;
}

START_TEST(every_adapter_call_fails_once)
{
    setup();
    long calls = count_calls();
    ck_assert_int_gt(calls, 20);
    long failed_runs = 0;
    for (long n = 1; n <= calls; n++) {
        char at[32];
        snprintf(at, sizeof(at), "%ld", n);
        setenv("SX_FAULT_AT", at, 1);
        errors_named = steps_failed = 0;
        failed_runs += !flow();
        ck_assert_msg(errors_named == steps_failed, "fault at call %ld: %d failing steps, %d with a message", n,
                      steps_failed, errors_named);
        unsetenv("SX_FAULT_AT");
        check_clean(n, "adapter call");
    }
    ck_assert_msg(failed_runs > 0, "no injected fault made any step fail (%ld calls)", calls);
    ck_assert_msg(flow(), "a clean flow after the sweep failed: %s", sx_last_error());
    printf("fault injection: %ld adapter calls, each failed once; %ld flows ended in an error\n", calls, failed_runs);
}
END_TEST

START_TEST(every_allocation_fails_once)
{
    const char *v = getenv("SX_TEST_UNDER_VALGRIND");
    if (v && *v == '1')
        return; /* valgrind replaces malloc itself */
    setup();
    /* The number of allocations a clean flow makes. */
    atomic_store(&alloc_count, 0);
    atomic_store(&alloc_fail_at, LONG_MAX);
    ck_assert(flow());
    long allocs = atomic_load(&alloc_count);
    atomic_store(&alloc_fail_at, 0);
    ck_assert_int_gt(allocs, 10);
    long failed_runs = 0;
    for (long n = 1; n <= allocs; n++) {
        atomic_store(&alloc_count, 0);
        atomic_store(&alloc_failed, 0);
        atomic_store(&alloc_fail_at, n);
        errors_named = steps_failed = 0;
        failed_runs += !flow();
        atomic_store(&alloc_fail_at, 0);
        ck_assert_msg(errors_named == steps_failed, "allocation %ld failing: %d failing steps, %d with a message", n,
                      steps_failed, errors_named);
        check_clean(n, "allocation");
    }
    ck_assert_msg(flow(), "a clean flow after the sweep failed: %s", sx_last_error());
    printf("allocation failures: %ld allocations, each failed once; %ld flows ended in an error\n", allocs,
           failed_runs);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fault injection");
    TCase *tc = tcase_create("sweeps");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_adapter_call_fails_once);
    tcase_add_test(tc, every_allocation_fails_once);
    suite_add_tcase(s, tc);
    return s;
}

SXT_MAIN(suite)
