/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-reliability.c: launches racing unloads and context releases,
 * released handles staying caught, sx_fini with live objects (issue 15,
 * points 1 to 3), on the native adapter with the e2e free-function image. */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include <sycl-ext/device-global.h>

#include "e2e.h"

#define IMAGE "tests/e2e/ffk.sximg"

/* Fewer rounds under valgrind (tests/valgrind.sh sets it): it is 50 times slower. */
static int rounds(int n)
{
    const char *v = getenv("SX_TEST_UNDER_VALGRIND"), *scale = getenv("SX_TEST_ROUNDS_SCALE");
    if (scale && atoi(scale) > 0)
        n *= atoi(scale);
    return v && *v == '1' ? (n / 20 > 2 ? n / 20 : 2) : n;
}

/* The e2e image opened, its "empty" kernel and the one argument it takes. */
static int empty_x = 1;
static const sx_arg empty_arg = {SX_ARG_VALUE, 0, sizeof(empty_x), &empty_x};

static sx_kernel open_empty(e2e *t)
{
    e2e_open(t, IMAGE);
    sx_kernel k;
    CK_OK(sx_kernel_get_free_function("empty", &k));
    return k;
}

static sx_result launch_empty(sx_queue q, sx_kernel k)
{
    int x = 7;
    sx_arg a = {SX_ARG_VALUE, 0, sizeof(x), &x};
    size_t g = 1;
    return sx_queue_launch(q, k, 1, NULL, &g, &g, 1, &a, 0, NULL, NULL);
}

/* ------------------------------------------------ launch vs unload */

typedef struct {
    sx_queue q;
    sx_kernel k;
    _Atomic int *stop;
    bool fini_ok;        /* racing the last sx_fini: SX_ERROR_UNINITIALIZED or INVALID_HANDLE expected */
    long ok, unsupported, uninit, other;
    sx_result bad;
    char msg[256];
} launcher;

static void *launch_loop(void *arg)
{
    launcher *l = arg;
    while (!atomic_load(l->stop)) {
        sx_result r = launch_empty(l->q, l->k);
        if (r == SX_SUCCESS)
            l->ok++;
        else if (r == SX_ERROR_KERNEL_NOT_SUPPORTED)
            l->unsupported++;
        else if ((r == SX_ERROR_UNINITIALIZED || r == SX_ERROR_INVALID_HANDLE) && l->fini_ok)
            l->uninit++; /* the queue released by sx_fini between the checks */
        else if (!l->other++) {
            l->bad = r;
            snprintf(l->msg, sizeof(l->msg), "%s", sx_last_error());
        }
    }
    return NULL;
}

/* Two threads launching `k` on `q` until *stop. */
static void start_launchers(launcher l[2], pthread_t th[2], sx_queue q, sx_kernel k, _Atomic int *stop,
                            bool fini_ok)
{
    for (int i = 0; i < 2; i++) {
        memset(&l[i], 0, sizeof(l[i]));
        l[i].q = q;
        l[i].k = k;
        l[i].stop = stop;
        l[i].fini_ok = fini_ok;
        ck_assert_int_eq(pthread_create(&th[i], NULL, launch_loop, &l[i]), 0);
    }
}

/* Stop and join the launchers: no unexpected result, and (unless the race
 * may unregister the kernel) no SX_ERROR_KERNEL_NOT_SUPPORTED either. */
static void stop_launchers(launcher l[2], pthread_t th[2], _Atomic int *stop, bool unsupported_ok)
{
    atomic_store(stop, 1);
    for (int i = 0; i < 2; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(l[i].other == 0 && (unsupported_ok || l[i].unsupported == 0),
                      "launcher %d: %ld unexpected, %ld unsupported: %s: %s", i, l[i].other, l[i].unsupported,
                      sx_result_name(l[i].bad), l[i].msg);
    }
}

/* Two threads launch a kept handle while this one releases and reloads
 * the image file: every launch succeeds or says the kernel is gone
 * (before: a segfault in 9 of 10 runs). */
START_TEST(launch_races_image_release)
{
    e2e t;
    sx_kernel k = open_empty(&t);
    CK_OK(launch_empty(t.q, k));
    _Atomic int stop = 0;
    launcher l[2];
    pthread_t th[2];
    start_launchers(l, th, t.q, k, &stop, false);
    for (int i = 0, n = rounds(1000); i < n; i++) {
        CK_OK(sx_image_file_release(t.file));
        /* Unregistered: a launch now must say so, whatever ran before. */
        CK_ERR(launch_empty(t.q, k), SX_ERROR_KERNEL_NOT_SUPPORTED);
        CK_OK(sx_image_file_load(sxt_build_path(IMAGE), &t.file));
    }
    stop_launchers(l, th, &stop, true);
    ck_assert_msg(l[0].ok + l[1].ok > 0, "no launch succeeded");
    CK_OK(launch_empty(t.q, k));
    CK_OK(sx_kernel_release(k));
    e2e_close(&t);
}
END_TEST

/* Launches on one context while another context is created, used and
 * released: its slots are unlinked from the same kernel under the walk. */
START_TEST(launch_races_other_context_release)
{
    e2e t;
    sx_kernel k = open_empty(&t);
    CK_OK(launch_empty(t.q, k));
    _Atomic int stop = 0;
    launcher l[2];
    pthread_t th[2];
    start_launchers(l, th, t.q, k, &stop, false);
    for (int i = 0, n = rounds(200); i < n; i++) {
        sx_context c;
        sx_queue q;
        CK_OK(sx_context_create(1, &t.dev, &c));
        CK_OK(sx_queue_create(c, t.dev, 0, &q));
        CK_OK(launch_empty(q, k));
        CK_OK(sx_queue_release(q));
        CK_OK(sx_context_release(c));
    }
    stop_launchers(l, th, &stop, false);
    CK_OK(sx_kernel_release(k));
    e2e_close(&t);
}
END_TEST

/* ------------------------------------------------ launch vs queue release */

typedef struct {
    sx_queue q;
    sx_kernel k;
    bool commands;       /* barriers and waits instead of launches */
    _Atomic int *stop;
    _Atomic long *ok;
    long dead, other;
    sx_result bad;
    char msg[256];
} user;

static void *use_loop(void *arg)
{
    user *u = arg;
    while (!atomic_load(u->stop)) {
        sx_result r;
        if (u->commands)
            r = (r = sx_queue_barrier(u->q, 0, NULL, NULL)) != SX_SUCCESS ? r : sx_queue_wait(u->q);
        else
            r = launch_empty(u->q, u->k);
        if (r == SX_SUCCESS)
            atomic_fetch_add(u->ok, 1);
        else if (r == SX_ERROR_INVALID_HANDLE)
            u->dead++; /* released: from then on every call says so */
        else if (!u->other++) {
            u->bad = r;
            snprintf(u->msg, sizeof(u->msg), "%s", sx_last_error());
        }
    }
    return NULL;
}

/* Issue 26, finding 3: sx_queue_release while two threads launch on that
 * queue and one enqueues barriers and waits on it; the queue holds the
 * last reference to its context, so both go. Every call succeeds or says
 * SX_ERROR_INVALID_HANDLE (before: the adapter queue was freed under the
 * launch: "malloc(): unsorted double linked list corrupted", ASan
 * heap-use-after-free in sxn_kernel_launch). */
START_TEST(launch_races_queue_release)
{
    e2e t;
    sx_kernel k = open_empty(&t);
    for (int round = 0, n = rounds(60); round < n; round++) {
        sx_context c;
        sx_queue q;
        CK_OK(sx_context_create(1, &t.dev, &c));
        CK_OK(sx_queue_create(c, t.dev, 0, &q));
        CK_OK(sx_context_release(c)); /* the queue's reference is the last */
        CK_OK(launch_empty(q, k));
        _Atomic int stop = 0;
        _Atomic long ok = 0;
        user u[3];
        pthread_t th[3];
        for (int i = 0; i < 3; i++) {
            u[i] = (user){.q = q, .k = k, .commands = i == 2, .stop = &stop, .ok = &ok};
            ck_assert_int_eq(pthread_create(&th[i], NULL, use_loop, &u[i]), 0);
        }
        while (atomic_load(&ok) < 20)
            sched_yield();
        CK_OK(sx_queue_release(q));
        /* Let them run into the dead handle before they stop. */
        for (int i = 0; i < 50; i++)
            sched_yield();
        atomic_store(&stop, 1);
        for (int i = 0; i < 3; i++) {
            pthread_join(th[i], NULL);
            ck_assert_msg(u[i].other == 0, "round %d, thread %d: %ld unexpected results: %s: %s", round, i,
                          u[i].other, sx_result_name(u[i].bad), u[i].msg);
        }
    }
    CK_OK(sx_kernel_release(k));
    e2e_close(&t);
}
END_TEST

/* ------------------------------------------------ launch vs args and event release */

/* What a racing thread does with the shared args or event (kind), and
 * what it saw: success, a dead handle (INVALID_HANDLE, or for a wait
 * list INVALID_EVENT_WAIT_LIST), anything else. */
typedef struct {
    sx_queue q;
    sx_kernel k;
    sx_args args;
    sx_event ev;
    int kind;            /* 0: sx_nd_launch with args; 1: launch with ev in the wait list;
                            2: sx_event_wait(ev); 3: barrier on ev, its status and profiling */
    _Atomic int *stop;
    _Atomic long *ok;
    long dead, other;
    sx_result bad;
    char msg[256];
} racer;

static sx_result race_once(racer *u)
{
    size_t g = 1;
    sx_result r;
    switch (u->kind) {
    case 0:
        return sx_nd_launch(u->q, u->args, 1, &g, &g, NULL, 0, NULL, NULL);
    case 1: {
        int x = 3;
        sx_arg a = {SX_ARG_VALUE, 0, sizeof(x), &x};
        return sx_queue_launch(u->q, u->k, 1, NULL, &g, &g, 1, &a, 1, &u->ev, NULL);
    }
    case 2:
        return sx_event_wait(1, &u->ev);
    default: {
        sx_event_status st;
        uint64_t t;
        if ((r = sx_queue_barrier(u->q, 1, &u->ev, NULL)) != SX_SUCCESS ||
            (r = sx_event_get_status(u->ev, &st)) != SX_SUCCESS)
            return r;
        return sx_event_get_profiling(u->ev, SX_PROFILING_QUEUED, &t);
    }
    }
}

static void *race_loop(void *arg)
{
    racer *u = arg;
    while (!atomic_load(u->stop)) {
        sx_result r = race_once(u);
        if (r == SX_SUCCESS)
            atomic_fetch_add(u->ok, 1);
        else if (r == SX_ERROR_INVALID_HANDLE || (r == SX_ERROR_INVALID_EVENT_WAIT_LIST && u->kind != 0))
            u->dead++;
        else if (!u->other++) {
            u->bad = r;
            snprintf(u->msg, sizeof(u->msg), "%s", sx_last_error());
        }
    }
    return NULL;
}

/* n racers of the given kinds on one args or event until the main thread
 * released it (after each did some work) and they ran into it. */
static void race_release(racer *u, int n, bool args)
{
    _Atomic int stop = 0;
    _Atomic long ok = 0;
    pthread_t th[4];
    for (int i = 0; i < n; i++) {
        u[i].stop = &stop;
        u[i].ok = &ok;
        ck_assert_int_eq(pthread_create(&th[i], NULL, race_loop, &u[i]), 0);
    }
    while (atomic_load(&ok) < 20)
        sched_yield();
    if (args)
        CK_OK(sx_args_release(u[0].args));
    else
        CK_OK(sx_event_release(u[0].ev));
    for (int i = 0; i < 50; i++)
        sched_yield();
    atomic_store(&stop, 1);
    for (int i = 0; i < n; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(u[i].other == 0, "racer %d (kind %d): %ld unexpected results: %s: %s", i, u[i].kind,
                      u[i].other, sx_result_name(u[i].bad), u[i].msg);
    }
}

/* Two threads launch with one sx_args while this one releases it: each
 * launch succeeds or says SX_ERROR_INVALID_HANDLE (before: the argument
 * array and signature were freed under the launch, ASan heap-use-after-free
 * in map_args). */
START_TEST(args_release_races_launches)
{
    e2e t;
    sx_kernel k = open_empty(&t);
    for (int round = 0, n = rounds(60); round < n; round++) {
        sx_args a;
        CK_OK(sx_args_create(k, &a));
        int x = 5;
        CK_OK(sx_args_set(a, 0, sizeof(x), &x));
        racer u[2];
        for (int i = 0; i < 2; i++)
            u[i] = (racer){.q = t.q, .k = k, .args = a, .kind = 0};
        race_release(u, 2, true);
    }
    CK_OK(sx_kernel_release(k));
    e2e_close(&t);
}
END_TEST

/* One command's event, released while other threads launch with it in
 * the wait list, wait on it, and enqueue a barrier on it and ask its
 * status and profiling: each call succeeds or says the handle is dead
 * (before: the adapter event was freed under the call, ASan
 * heap-use-after-free in the native adapter's event_get_profiling or
 * event_wait). The released event is no longer waited for by anyone
 * once they stopped: the leak checker sees every adapter event freed. */
START_TEST(event_release_races_waits)
{
    e2e t;
    sx_kernel k = open_empty(&t);
    for (int round = 0, n = rounds(60); round < n; round++) {
        int x = 1;
        sx_arg arg = {SX_ARG_VALUE, 0, sizeof(x), &x};
        size_t g = 1;
        sx_event ev;
        CK_OK(sx_queue_launch(t.q, k, 1, NULL, &g, &g, 1, &arg, 0, NULL, &ev));
        racer u[3];
        for (int i = 0; i < 3; i++)
            u[i] = (racer){.q = t.q, .k = k, .ev = ev, .kind = 1 + i};
        race_release(u, 3, false);
    }
    CK_OK(sx_queue_wait(t.q));
    CK_OK(sx_kernel_release(k));
    e2e_close(&t);
}
END_TEST

/* The last sx_fini while two threads launch a kept handle (the
 * application's error, but no crash): each launch succeeds or says
 * SX_ERROR_UNINITIALIZED (or SX_ERROR_INVALID_HANDLE: its queue, which
 * sx_fini releases, was checked after that). Before, sx_fini released the queue under a
 * launch in flight (ASan: heap-use-after-free in sxn_kernel_launch). The
 * handle is released after sx_fini, as sx.h allows. */
START_TEST(launch_races_last_fini)
{
    for (int round = 0, n = rounds(20); round < n; round++) {
        e2e t;
        sx_kernel k = open_empty(&t);
        CK_OK(launch_empty(t.q, k));
        _Atomic int stop = 0;
        launcher l[2];
        pthread_t th[2];
        start_launchers(l, th, t.q, k, &stop, true);
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
        CK_OK(sx_fini()); /* releases the queue and the context */
        CK_ERR(launch_empty(t.q, k), SX_ERROR_UNINITIALIZED);
        stop_launchers(l, th, &stop, false);
        CK_OK(sx_kernel_release(k));
        CK_OK(sx_image_file_release(t.file));
    }
}
END_TEST

/* ------------------------------------------------ teardown order */

/* dg.sximg's ordinary device global: its instance is a context dependent. */
SX_DEVICE_GLOBAL(int, rel_counter, "dg_counter", SX_HOST_ACCESS_READ_WRITE);

static char trace_log[1 << 16];
static size_t trace_len;
static void capture(sx_log_level level, const char *message, void *user)
{
    (void)level;
    (void)user;
    size_t n = strlen(message);
    if (trace_len + n + 2 < sizeof(trace_log)) {
        memcpy(trace_log + trace_len, message, n);
        trace_len += n;
        trace_log[trace_len++] = '\n';
        trace_log[trace_len] = '\0';
    }
}

static long at(const char *call)
{
    const char *p = strstr(trace_log, call);
    ck_assert_msg(p != NULL, "no %s in the teardown trace:\n%s", call, trace_log);
    return p - trace_log;
}

/* A context left to sx_fini with a queue, an event, a kernel slot, its
 * program and a device-global instance: its dependents go in order
 * (doc/reliability.md), each adapter object before what it came from. */
START_TEST(context_teardown_flows_down_in_order)
{
    setenv("SX_TRACE", "1", 1);
    CK_OK(sx_set_log_callback(capture, NULL));
    e2e t;
    e2e_open(&t, "tests/e2e/dg.sximg");
    sx_kernel k;
    CK_OK(sx_kernel_get_free_function("dg_add", &k));
    int add = 2;
    sx_arg a = {SX_ARG_VALUE, 0, sizeof(add), &add};
    size_t g = 1;
    sx_event ev;
    CK_OK(sx_queue_launch(t.q, k, 1, NULL, &g, &g, 1, &a, 0, NULL, &ev));
    CK_OK(sx_event_wait(1, &ev));
    int v = 0;
    CK_OK(sx_queue_device_global_read(t.q, &v, &rel_counter, sizeof(v), 0, 1, 0, NULL, NULL));
    ck_assert_int_eq(v, 2);
    trace_len = 0;
    trace_log[0] = '\0';
    CK_OK(sx_fini()); /* the queue, the event and the context are left to it */
    CK_OK(sx_set_log_callback(NULL, NULL));
    unsetenv("SX_TRACE");
    long queue = at("queue.release"), event = at("event.release"), kernel = at("kernel.release"),
         program = at("program.release"), instance = at("usm.free"), context = at("context.release");
    ck_assert_msg(event < queue && queue < kernel && kernel < program && program < instance && instance < context,
                  "teardown out of order:\n%s", trace_log);
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_image_file_release(t.file));
}
END_TEST

/* ------------------------------------------------ released handles */

START_TEST(double_release_is_invalid_handle)
{
    e2e t;
    sx_kernel k = open_empty(&t);
    sx_event ev;
    sx_arg a = empty_arg;
    size_t g = 1;
    CK_OK(sx_queue_launch(t.q, k, 1, NULL, &g, &g, 1, &a, 0, NULL, &ev));
    CK_OK(sx_event_wait(1, &ev));
    CK_OK(sx_event_release(ev));
    CK_ERR(sx_event_release(ev), SX_ERROR_INVALID_HANDLE);
    sx_event_status st;
    CK_ERR(sx_event_get_status(ev, &st), SX_ERROR_INVALID_HANDLE);
    CK_ERR(sx_event_wait(1, &ev), SX_ERROR_INVALID_HANDLE);

    sx_args args;
    CK_OK(sx_args_create(k, &args));
    CK_OK(sx_args_release(args));
    CK_ERR(sx_args_release(args), SX_ERROR_INVALID_HANDLE);
    CK_ERR(sx_args_set(args, 0, sizeof(empty_x), &empty_x), SX_ERROR_INVALID_HANDLE);

    sx_context c;
    sx_queue q;
    CK_OK(sx_context_create(1, &t.dev, &c));
    CK_OK(sx_queue_create(c, t.dev, 0, &q));
    CK_OK(sx_queue_release(q));
    CK_ERR(sx_queue_wait(q), SX_ERROR_INVALID_HANDLE);
    CK_ERR(sx_queue_release(q), SX_ERROR_INVALID_HANDLE);
    CK_ERR(launch_empty(q, k), SX_ERROR_INVALID_HANDLE);
    CK_OK(sx_context_release(c));
    CK_ERR(sx_context_release(c), SX_ERROR_INVALID_HANDLE);
    CK_ERR(sx_queue_create(c, t.dev, 0, &q), SX_ERROR_INVALID_HANDLE);

    sx_image_file f;
    CK_OK(sx_image_file_load(sxt_build_path("tests/e2e/dg.sximg"), &f));
    CK_OK(sx_image_file_release(f));
    CK_ERR(sx_image_file_release(f), SX_ERROR_INVALID_HANDLE);

    CK_OK(sx_kernel_release(k));
    e2e_close(&t);
}
END_TEST

/* Released handles wait in a quarantine (handle.c) that grows past its
 * first ring when many are released at once, keeps them in order, and
 * hands out only the oldest: the newest released stays caught. */
START_TEST(quarantine_grows_in_order)
{
    enum { MANY = 3000, MORE = 1500 };
    e2e t;
    sx_kernel k = open_empty(&t);
    static sx_event ev[MANY], more[MORE];
    sx_arg a = empty_arg;
    size_t g = 1;
    for (int i = 0; i < MANY; i++)
        CK_OK(sx_queue_launch(t.q, k, 1, NULL, &g, &g, 1, &a, 0, NULL, &ev[i]));
    CK_OK(sx_event_wait(MANY, ev));
    for (int i = 0; i < MANY; i++)
        CK_OK(sx_event_release(ev[i]));
    CK_ERR(sx_event_release(ev[0]), SX_ERROR_INVALID_HANDLE);
    CK_ERR(sx_event_release(ev[MANY - 1]), SX_ERROR_INVALID_HANDLE);
    for (int i = 0; i < MORE; i++) {
        CK_OK(sx_queue_launch(t.q, k, 1, NULL, &g, &g, 1, &a, 0, NULL, &more[i]));
        ck_assert_ptr_ne(more[i], ev[MANY - 1]);
    }
    CK_ERR(sx_event_wait(1, &ev[MANY - 1]), SX_ERROR_INVALID_HANDLE);
    CK_OK(sx_event_wait(MORE, more));
    for (int i = 0; i < MORE; i++)
        CK_OK(sx_event_release(more[i]));
    CK_OK(sx_kernel_release(k));
    e2e_close(&t);
}
END_TEST

/* One thread makes events, another releases them: the released ones,
 * once past their quarantine, come back to the maker through the shared
 * pool, so the memory behind events stays bounded (before the pool, a
 * per-thread quarantine would have grown without end here). */
typedef struct {
    sx_event ring[64];
    _Atomic unsigned made, released;
} handoff;

static void *release_handed(void *arg)
{
    handoff *h = arg;
    for (unsigned i = 0; i < 20000; i++) {
        while (atomic_load(&h->made) <= i)
            sched_yield();
        CK_OK(sx_event_wait(1, &h->ring[i % 64]));
        CK_OK(sx_event_release(h->ring[i % 64]));
        atomic_store(&h->released, i + 1);
    }
    return NULL;
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(events_made_and_released_on_two_threads_reuse_memory)
{
    enum { N = 20000 };
    e2e t;
    sx_kernel k = open_empty(&t);
    sx_arg a = empty_arg;
    size_t g = 1;
    static handoff h;
    static uintptr_t seen[N];
    atomic_store(&h.made, 0);
    atomic_store(&h.released, 0);
    pthread_t th;
    ck_assert_int_eq(pthread_create(&th, NULL, release_handed, &h), 0);
    for (unsigned i = 0; i < N; i++) {
        while (i - atomic_load(&h.released) >= 64)
            sched_yield();
        CK_OK(sx_queue_launch(t.q, k, 1, NULL, &g, &g, 1, &a, 0, NULL, &h.ring[i % 64]));
        seen[i] = (uintptr_t)h.ring[i % 64];
        atomic_store(&h.made, i + 1);
    }
    pthread_join(th, NULL);
    qsort(seen, N, sizeof(seen[0]), cmp_ptr);
    unsigned distinct = 0;
    for (unsigned i = 0; i < N; i++)
        distinct += i == 0 || seen[i] != seen[i - 1];
    /* the releasing thread's quarantine (1024 + 32) and what is in flight */
    ck_assert_msg(distinct < 2048, "%u distinct event addresses for %u events", distinct, (unsigned)N);
    CK_OK(sx_kernel_release(k));
    e2e_close(&t);
}
END_TEST

/* Each sx_kernel_get is a handle of its own: releasing one twice is an
 * error and leaves the other working (before: it freed the other). */
START_TEST(kernel_handles_counted_per_get)
{
    e2e t;
    e2e_open(&t, IMAGE);
    sx_kernel k1, k2;
    CK_OK(sx_kernel_get_free_function("empty", &k1));
    CK_OK(sx_kernel_get_free_function("empty", &k2));
    CK_OK(launch_empty(t.q, k1));
    CK_OK(sx_kernel_release(k1));
    CK_ERR(sx_kernel_release(k1), SX_ERROR_INVALID_HANDLE);
    CK_ERR(launch_empty(t.q, k1), SX_ERROR_INVALID_HANDLE);
    CK_OK(launch_empty(t.q, k2));
    CK_OK(sx_queue_wait(t.q));
    char name[64];
    CK_OK(sx_kernel_get_info(k2, SX_KERNEL_INFO_NAME, sizeof(name), name, NULL));
    ck_assert_str_eq(name, "__sycl_kernel_empty");
    CK_OK(sx_kernel_release(k2));
    CK_ERR(sx_kernel_release(k2), SX_ERROR_INVALID_HANDLE);
    e2e_close(&t);
}
END_TEST

/* The last sx_fini releases every object: events included (valgrind
 * counts them in tests/valgrind.sh), and they are dead afterwards. */
START_TEST(fini_releases_live_events)
{
    e2e t;
    sx_kernel k = open_empty(&t);
    sx_arg a = empty_arg;
    size_t g = 1;
    sx_event ev[3];
    for (int i = 0; i < 3; i++)
        CK_OK(sx_queue_launch(t.q, k, 1, NULL, &g, &g, 1, &a, 0, NULL, &ev[i]));
    sx_queue q = t.q;
    CK_OK(sx_fini());
    CK_ERR(sx_event_release(ev[0]), SX_ERROR_INVALID_HANDLE);
    CK_ERR(sx_queue_wait(q), SX_ERROR_UNINITIALIZED);
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_image_file_release(t.file));
    /* A new init gives working objects again. */
    CK_OK(sx_init(0));
    CK_ERR(sx_queue_wait(q), SX_ERROR_INVALID_HANDLE);
    CK_OK(sx_fini());
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("reliability");
    TCase *tc = tcase_create("races");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, launch_races_image_release);
    tcase_add_test(tc, launch_races_other_context_release);
    tcase_add_test(tc, launch_races_queue_release);
    tcase_add_test(tc, args_release_races_launches);
    tcase_add_test(tc, event_release_races_waits);
    tcase_add_test(tc, launch_races_last_fini);
    suite_add_tcase(s, tc);
    tc = tcase_create("handles");
    tcase_add_test(tc, double_release_is_invalid_handle);
    tcase_add_test(tc, kernel_handles_counted_per_get);
    tcase_add_test(tc, quarantine_grows_in_order);
    tcase_add_test(tc, events_made_and_released_on_two_threads_reuse_memory);
    tcase_add_test(tc, fini_releases_live_events);
    tcase_add_test(tc, context_teardown_flows_down_in_order);
    suite_add_tcase(s, tc);
    return s;
}

SXT_MAIN(suite)
