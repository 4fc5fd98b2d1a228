/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* stress.c: twelve threads using the library the way applications do, all
 * at once, on the native adapter: launches of kept kernel handles while
 * their image file is released and loaded again, contexts and queues
 * created and released, USM, device-global copies, first launches racing,
 * a second image file churned (the second image of device_image_scope
 * 'dg_tile'), argument sets (sx_args) and kernel queries kept across the
 * churn, device-global copies racing the removal and re-adding of their
 * variables (dg_tile's host registration among them, while its image's
 * programs run). Every result is checked: a
 * launch may only succeed or (while its image is away) say
 * SX_ERROR_KERNEL_NOT_SUPPORTED; a copy may only succeed or say why not
 * (variable removed, or in two images); a queue released while another
 * thread launches, enqueues and waits on it gives that thread success or
 * SX_ERROR_INVALID_HANDLE.
 * Then the last sx_fini races two launching threads: they get success,
 * SX_ERROR_UNINITIALIZED or (their queue released by it) INVALID_HANDLE,
 * never a crash, and their handles are released
 * after it. Runs SX_STRESS_SECONDS seconds (3 by default, what make check
 * uses) plus a fraction of a second for the sx_fini race.
 * Usage: stress [SECONDS]   (images from SX_TEST_BUILDDIR/tests/e2e) */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sycl-ext/device-global.h>
#include <sycl-ext/sx.h>

SX_DEVICE_GLOBAL(int, counter, "dg_counter", SX_HOST_ACCESS_READ_WRITE);
SX_DEVICE_GLOBAL_IMAGE_SCOPE(int[4], tile, "dg_tile", SX_HOST_ACCESS_READ_WRITE);
/* In no image: its USM instances live only while it is registered, so
 * each removal frees them under the copies of another thread. */
static struct {
    void *usm;
    int value[4];
} racy;

static _Atomic int stop;
static _Atomic long failures;
static char ffk_path[4096], dg_path[4096], scope_path[4096];
static sx_device dev;
static sx_context ctx;   /* shared */
static sx_queue q;       /* shared, in order */
static sx_kernel empty_k, axpy_k, dg_add_k;  /* kept handles */
static sx_args empty_args;                   /* kept across the churn (launcher 2) */

typedef struct {
    const char *name;
    long ops, unsupported;
} stats;

static void fail(int line, const char *what, sx_result r)
{
    if (atomic_fetch_add(&failures, 1) < 10)
        fprintf(stderr, "stress: line %d: %s -> %s: %s\n", line, what, sx_result_name(r), sx_last_error());
    atomic_store(&stop, 1);
}

#define OK(call)                                                                                   \
    do {                                                                                           \
        sx_result r_ = (call);                                                                     \
        if (r_ != SX_SUCCESS) {                                                                    \
            fail(__LINE__, #call, r_);                                                             \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)
/* Succeeds, or fails only with `alt`; sets `var` to the result. */
#define OK_OR(var, call, alt)                                                                      \
    do {                                                                                           \
        var = (call);                                                                              \
        if (var != SX_SUCCESS && var != (alt)) {                                                   \
            fail(__LINE__, #call, var);                                                            \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)
/* The same with two alternatives. */
#define OK_OR2(var, call, alt, alt2)                                                               \
    do {                                                                                           \
        var = (call);                                                                              \
        if (var != SX_SUCCESS && var != (alt) && var != (alt2)) {                                  \
            fail(__LINE__, #call, var);                                                            \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fail(__LINE__, #cond, SX_SUCCESS);                                                     \
            return NULL;                                                                           \
        }                                                                                          \
    } while (0)

/* Builds take the registry lock for milliseconds: the threads that build
 * every round pause between rounds, or they starve the churning one. */
static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000};
    nanosleep(&ts, NULL);
}

static sx_result launch_empty(sx_queue on, sx_kernel k, sx_event *ev)
{
    int x = 3;
    sx_arg a = {SX_ARG_VALUE, 0, sizeof(x), &x};
    size_t g = 1;
    return sx_queue_launch(on, k, 1, NULL, &g, &g, 1, &a, 0, NULL, ev);
}

/* Releases and reloads ffk.sximg: the kept handles' image. After a
 * release a launch must say the kernel is gone. */
static void *churn_ffk(void *arg)
{
    stats *st = arg;
    sx_image_file f;
    OK(sx_image_file_load(ffk_path, &f));
    while (!atomic_load(&stop)) {
        OK(sx_image_file_release(f));
        sx_result r = launch_empty(q, empty_k, NULL);
        if (r != SX_ERROR_KERNEL_NOT_SUPPORTED) {
            fail(__LINE__, "launch after sx_image_file_release", r);
            return NULL;
        }
        OK(sx_image_file_load(ffk_path, &f));
        /* Loaded most of the time, so launches build and run between drops. */
        pause_ms(2);
        st->ops++;
    }
    OK(sx_image_file_release(f));
    return NULL;
}

/* The kept argument set of "empty": an nd_range<1> launch. */
static sx_result launch_args(sx_queue on, sx_event *ev)
{
    size_t g = 1;
    return sx_nd_launch(on, empty_args, 1, &g, &g, NULL, 0, NULL, ev);
}

/* Launches of the kept handles on the shared queue (the second launcher
 * through the kept sx_args); axpy's results checked. */
static void *launcher(void *arg)
{
    stats *st = arg;
    bool by_args = st->name[8] == '2';
    float *x, *y;
    enum { N = 64 };
    OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&x));
    OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&y));
    for (long i = 0; !atomic_load(&stop); i++) {
        sx_result r;
        sx_event ev = NULL;
        OK_OR(r, by_args ? launch_args(q, i % 8 == 0 ? &ev : NULL) : launch_empty(q, empty_k, i % 8 == 0 ? &ev : NULL),
              SX_ERROR_KERNEL_NOT_SUPPORTED);
        if (ev) {
            OK(sx_event_wait(1, &ev));
            OK(sx_event_release(ev));
        }
        st->unsupported += r != SX_SUCCESS;
        if (i % 16 == 0) {
            for (int k = 0; k < N; k++) {
                x[k] = (float)k;
                y[k] = 1.0f;
            }
            float a = 2.0f;
            long n = N;
            sx_arg args[4] = {{SX_ARG_POINTER, 0, sizeof(void *), y}, {SX_ARG_POINTER, 1, sizeof(void *), x},
                              {SX_ARG_VALUE, 2, sizeof(a), &a}, {SX_ARG_VALUE, 3, sizeof(n), &n}};
            size_t g = N, l = 16;
            OK_OR(r, sx_queue_launch(q, axpy_k, 1, NULL, &g, &l, 4, args, 0, NULL, NULL), SX_ERROR_KERNEL_NOT_SUPPORTED);
            OK(sx_queue_wait(q));
            if (r == SX_SUCCESS)
                for (int k = 0; k < N; k++)
                    EXPECT(y[k] == 2.0f * (float)k + 1.0f);
        }
        st->ops++;
    }
    OK(sx_usm_free(ctx, x));
    OK(sx_usm_free(ctx, y));
    return NULL;
}

/* Contexts and queues come and go; each gets a launch of a kept handle. */
static void *contexts(void *arg)
{
    stats *st = arg;
    while (!atomic_load(&stop)) {
        sx_context c;
        sx_queue cq;
        sx_result r;
        void *p;
        OK(sx_context_create(1, &dev, &c));
        OK(sx_queue_create(c, dev, 0, &cq));
        OK_OR(r, launch_empty(cq, empty_k, NULL), SX_ERROR_KERNEL_NOT_SUPPORTED);
        st->unsupported += r != SX_SUCCESS;
        OK(sx_usm_alloc(c, dev, SX_USM_TYPE_DEVICE, 256, 0, &p));
        if (st->ops % 2)
            OK(sx_usm_free(c, p)); /* else the context's release frees it */
        OK(sx_queue_release(cq));
        OK(sx_context_release(c));
        st->ops++;
        pause_ms(1);
    }
    return NULL;
}

/* Issue 26, finding 3: a queue released while another thread launches and
 * enqueues on it; the queue holds its context's last reference. The user
 * gets success, or INVALID_HANDLE once it is released (or, while the image
 * is away, KERNEL_NOT_SUPPORTED), never freed memory. */
static _Atomic(sx_queue) doomed;
/* The same for an event (in a wait list, waited on, asked its status) and
 * an argument set (launched with), each released while in use (issue 26:
 * the cases left after finding 3). */
static _Atomic(sx_event) doomed_ev;
static _Atomic(sx_args) doomed_args;

static void *queue_release_race(void *arg)
{
    stats *st = arg;
    while (!atomic_load(&stop)) {
        sx_context c;
        sx_queue cq;
        sx_event ev = NULL;
        sx_args a;
        int three = 3;
        OK(sx_context_create(1, &dev, &c));
        OK(sx_queue_create(c, dev, 0, &cq));
        OK(sx_context_release(c));
        sx_result r;
        OK_OR(r, launch_empty(q, empty_k, &ev), SX_ERROR_KERNEL_NOT_SUPPORTED);
        if (r != SX_SUCCESS)
            ev = NULL;
        OK(sx_args_create(empty_k, &a));
        OK(sx_args_set(a, 0, sizeof(three), &three));
        atomic_store(&doomed, cq);
        atomic_store(&doomed_ev, ev);
        atomic_store(&doomed_args, a);
        pause_ms(2);
        OK(sx_queue_release(cq));
        if (ev)
            OK(sx_event_release(ev));
        OK(sx_args_release(a));
        st->ops++;
    }
    atomic_store(&doomed, NULL);
    atomic_store(&doomed_ev, NULL);
    atomic_store(&doomed_args, NULL);
    return NULL;
}

static void *queue_user(void *arg)
{
    stats *st = arg;
    while (!atomic_load(&stop)) {
        sx_queue on = atomic_load(&doomed);
        if (!on) {
            pause_ms(1);
            continue;
        }
        sx_result r;
        OK_OR2(r, launch_empty(on, empty_k, NULL), SX_ERROR_INVALID_HANDLE, SX_ERROR_KERNEL_NOT_SUPPORTED);
        st->unsupported += r != SX_SUCCESS;
        OK_OR(r, sx_queue_barrier(on, 0, NULL, NULL), SX_ERROR_INVALID_HANDLE);
        OK_OR(r, sx_queue_wait(on), SX_ERROR_INVALID_HANDLE);
        sx_event ev = atomic_load(&doomed_ev);
        if (ev) {
            sx_event_status status;
            OK_OR2(r, sx_queue_barrier(q, 1, &ev, NULL), SX_ERROR_INVALID_HANDLE, SX_ERROR_INVALID_EVENT_WAIT_LIST);
            OK_OR(r, sx_event_wait(1, &ev), SX_ERROR_INVALID_HANDLE);
            OK_OR(r, sx_event_get_status(ev, &status), SX_ERROR_INVALID_HANDLE);
        }
        sx_args a = atomic_load(&doomed_args);
        if (a) {
            size_t g = 1;
            OK_OR2(r, sx_nd_launch(q, a, 1, &g, &g, NULL, 0, NULL, NULL), SX_ERROR_INVALID_HANDLE,
                   SX_ERROR_KERNEL_NOT_SUPPORTED);
        }
        st->ops++;
    }
    return NULL;
}

/* USM: fill, copy, check, including a copy past the end (refused). */
static void *usm(void *arg)
{
    stats *st = arg;
    while (!atomic_load(&stop)) {
        int *a, *b;
        enum { N = 1024 };
        OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(int), 0, (void **)&a));
        OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_HOST, N * sizeof(int), 0, (void **)&b));
        int pat = (int)st->ops;
        OK(sx_queue_fill(q, a, &pat, sizeof(pat), N * sizeof(int), 0, NULL, NULL));
        OK(sx_queue_memcpy(q, 0, b, a, N * sizeof(int), 0, NULL, NULL));
        OK(sx_queue_wait(q));
        for (int k = 0; k < N; k++)
            EXPECT(b[k] == pat);
        sx_result r = sx_queue_memcpy(q, 1, b, a, N * sizeof(int) + 4, 0, NULL, NULL);
        EXPECT(r == SX_ERROR_INVALID_VALUE);
        OK(sx_usm_free(ctx, a));
        OK(sx_usm_free(ctx, b));
        st->ops++;
    }
    return NULL;
}

/* Device-global copies and a kernel that adds to the variable, on a
 * context of its own (its own instance, so the values are known). */
static void *device_globals(void *arg)
{
    stats *st = arg;
    sx_context c;
    sx_queue cq;
    OK(sx_context_create(1, &dev, &c));
    OK(sx_queue_create(c, dev, 0, &cq));
    for (int i = 0; !atomic_load(&stop); i++) {
        int v = i, got = -1, add = 3;
        OK(sx_queue_device_global_write(cq, &counter, &v, sizeof(v), 0, 1, 0, NULL, NULL));
        sx_arg a = {SX_ARG_VALUE, 0, sizeof(add), &add};
        size_t g = 1;
        OK(sx_queue_launch(cq, dg_add_k, 1, NULL, &g, &g, 1, &a, 0, NULL, NULL));
        OK(sx_queue_device_global_copy_from(cq, &got, &counter, sizeof(int), 1, 0, 1, 0, NULL, NULL));
        EXPECT(got == i + 3);
        EXPECT(sx_queue_device_global_copy_to(cq, &v, &counter, sizeof(int), 2, 0, 1, 0, NULL, NULL) ==
               SX_ERROR_INVALID_VALUE);
        st->ops++;
    }
    OK(sx_queue_release(cq));
    OK(sx_context_release(c));
    return NULL;
}

/* Remove and add back 'stress_racy' (freeing its instances each time) and
 * the host registration of 'dg_tile', while dg_copies copies to both. */
static void *dg_churn(void *arg)
{
    stats *st = arg;
    while (!atomic_load(&stop)) {
        OK(sx_device_global_remove(&racy));
        EXPECT(sx_device_global_remove(&racy) == SX_ERROR_INVALID_VALUE);
        OK(sx_device_global_add(&racy, "stress_racy", sizeof(racy.value), 0, SX_HOST_ACCESS_READ_WRITE));
        if (st->ops % 4 == 0) {
            OK(sx_device_global_remove(&tile));
            OK(sx_device_global_add(&tile, "dg_tile", sizeof(tile.value), SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                                    SX_HOST_ACCESS_READ_WRITE));
        }
        st->ops++;
        if (st->ops % 16 == 0)
            pause_ms(1);
    }
    return NULL;
}

/* Copies, repeated (the per-thread fast path) and with events, racing
 * dg_churn: each succeeds or says the variable is not registered (or, for
 * dg_tile while scope2.sximg is loaded too, that it is in two images); a
 * value read back is what was written, or the fresh instance's zeros. */
static void *dg_copies(void *arg)
{
    stats *st = arg;
    sx_context c;
    sx_queue cq;
    OK(sx_context_create(1, &dev, &c));
    OK(sx_queue_create(c, dev, 0, &cq));
    for (int i = 1; !atomic_load(&stop); i++) {
        int v[4] = {i, i + 1, i + 2, i + 3}, got[4] = {-1, -1, -1, -1};
        sx_result w, r;
        for (int k = 0; k < 8; k++)
            OK_OR(w, sx_queue_device_global_write(cq, &racy, v, sizeof(v), 0, 1, 0, NULL, NULL),
                  SX_ERROR_INVALID_GLOBAL_NAME);
        OK_OR(r, sx_queue_device_global_read(cq, got, &racy, sizeof(got), 0, 1, 0, NULL, NULL),
              SX_ERROR_INVALID_GLOBAL_NAME);
        if (r == SX_SUCCESS)
            EXPECT((got[0] == i && got[3] == i + 3) || (got[0] == 0 && got[3] == 0));
        sx_event ev = NULL;
        OK_OR(w, sx_queue_device_global_write(cq, &racy, v, sizeof(int), 4, 0, 0, NULL, &ev),
              SX_ERROR_INVALID_GLOBAL_NAME);
        if (w == SX_SUCCESS) {
            OK(sx_event_wait(1, &ev));
            OK(sx_event_release(ev));
        }
        OK_OR2(w, sx_queue_device_global_write(cq, &tile, v, sizeof(v), 0, 1, 0, NULL, NULL),
               SX_ERROR_INVALID_GLOBAL_NAME, SX_ERROR_INVALID_VALUE);
        OK_OR2(r, sx_queue_device_global_read(cq, got, &tile, sizeof(got), 0, 1, 0, NULL, NULL),
               SX_ERROR_INVALID_GLOBAL_NAME, SX_ERROR_INVALID_VALUE);
        if (w == SX_SUCCESS && r == SX_SUCCESS)
            EXPECT(got[0] == i && got[3] == i + 3);
        st->unsupported += w != SX_SUCCESS;
        st->ops++;
    }
    OK(sx_queue_release(cq));
    OK(sx_context_release(c));
    return NULL;
}

/* First launches racing: new handles on new contexts, every round. */
static void *first_launches(void *arg)
{
    stats *st = arg;
    while (!atomic_load(&stop)) {
        sx_context c;
        sx_queue cq;
        sx_kernel k;
        sx_result r;
        OK(sx_context_create(1, &dev, &c));
        OK(sx_queue_create(c, dev, 0, &cq));
        OK_OR(r, sx_kernel_get_free_function("empty", &k), SX_ERROR_INVALID_KERNEL_NAME);
        if (r == SX_SUCCESS) {
            OK_OR(r, launch_empty(cq, k, NULL), SX_ERROR_KERNEL_NOT_SUPPORTED);
            OK(sx_kernel_release(k));
        }
        st->unsupported += r != SX_SUCCESS;
        OK(sx_queue_release(cq));
        OK(sx_context_release(c));
        st->ops++;
        pause_ms(1);
    }
    return NULL;
}

/* A second image file loaded (from disk and from memory), used, released. */
static void *churn_scope(void *arg)
{
    stats *st = arg;
    FILE *fp = fopen(scope_path, "rb");
    EXPECT(fp != NULL);
    static char bytes[1 << 20];
    size_t n = fread(bytes, 1, sizeof(bytes), fp);
    fclose(fp);
    EXPECT(n > 0 && n < sizeof(bytes));
    while (!atomic_load(&stop)) {
        sx_image_file f;
        sx_kernel k;
        if (st->ops % 2)
            OK(sx_image_file_load(scope_path, &f));
        else
            OK(sx_image_file_load_memory(bytes, n, &f));
        sx_args a;
        OK(sx_kernel_get("__sycl_kernel_tile_zero", &k));
        OK(sx_args_create(k, &a));
        size_t g = 1;
        OK(sx_queue_launch(q, k, 1, NULL, &g, &g, 0, NULL, 0, NULL, NULL));
        OK(sx_single_task(q, a, NULL, 0, NULL, NULL));
        OK(sx_queue_wait(q));
        OK(sx_image_file_release(f));
        /* the handle, its argument set and queries outlive the images */
        EXPECT(sx_queue_launch(q, k, 1, NULL, &g, &g, 0, NULL, 0, NULL, NULL) == SX_ERROR_KERNEL_NOT_SUPPORTED);
        EXPECT(sx_single_task(q, a, NULL, 0, NULL, NULL) == SX_ERROR_KERNEL_NOT_SUPPORTED);
        uint32_t nargs;
        EXPECT(sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_ARGS, sizeof(nargs), &nargs, NULL) ==
               SX_ERROR_KERNEL_NOT_SUPPORTED);
        int compatible = 1;
        OK(sx_kernel_is_compatible(k, dev, &compatible));
        EXPECT(!compatible);
        OK(sx_args_release(a));
        OK(sx_kernel_release(k));
        EXPECT(sx_kernel_release(k) == SX_ERROR_INVALID_HANDLE);
        st->ops++;
    }
    return NULL;
}

/* The sx_fini race: launches of kept handles and argument sets until the
 * main thread's last sx_fini, then a while after it. */
static _Atomic int fini_done;
static void *fini_racer(void *arg)
{
    stats *st = arg;
    bool by_args = st->ops & 1;
    st->ops = 0;
    for (long after = 0; after < 100;) {
        bool done = atomic_load(&fini_done);
        sx_result r = by_args ? launch_args(q, NULL) : launch_empty(q, empty_k, NULL);
        if (r == SX_ERROR_UNINITIALIZED || r == SX_ERROR_INVALID_HANDLE) /* the queue sx_fini released */
            st->unsupported++;
        else if (r != SX_SUCCESS && r != SX_ERROR_KERNEL_NOT_SUPPORTED) {
            fail(__LINE__, "launch racing sx_fini", r);
            return NULL;
        }
        EXPECT(!done || r == SX_ERROR_UNINITIALIZED);
        after += done;
        st->ops++;
    }
    return NULL;
}

static int setup_fail(const char *what, sx_result r)
{
    fprintf(stderr, "stress: %s -> %s: %s\n", what, sx_result_name(r), sx_last_error());
    return 1;
}
#define SETUP(call)                                                                                \
    do {                                                                                           \
        sx_result r_ = (call);                                                                     \
        if (r_ != SX_SUCCESS)                                                                      \
            return setup_fail(#call, r_);                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const char *env = getenv("SX_STRESS_SECONDS");
    double seconds = argc > 1 ? atof(argv[1]) : env ? atof(env) : 3.0;
    if (seconds <= 0)
        seconds = 3.0;
    const char *b = getenv("SX_TEST_BUILDDIR");
    snprintf(ffk_path, sizeof(ffk_path), "%s/tests/e2e/ffk.sximg", b ? b : ".");
    snprintf(dg_path, sizeof(dg_path), "%s/tests/e2e/dg.sximg", b ? b : ".");
    snprintf(scope_path, sizeof(scope_path), "%s/tests/e2e/scope2.sximg", b ? b : ".");
    setenv("SX_ADAPTERS", "native", 1);
    sx_image_file ffk, dgf;
    SETUP(sx_image_file_load(ffk_path, &ffk));
    SETUP(sx_image_file_load(dg_path, &dgf));
    SETUP(sx_init(0));
    SETUP(sx_device_get_default(&dev));
    SETUP(sx_context_create(1, &dev, &ctx));
    SETUP(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    SETUP(sx_kernel_get_free_function("empty", &empty_k));
    SETUP(sx_kernel_get_free_function("axpy", &axpy_k));
    SETUP(sx_kernel_get_free_function("dg_add", &dg_add_k));
    SETUP(sx_args_create(empty_k, &empty_args));
    int three = 3;
    SETUP(sx_args_set(empty_args, 0, sizeof(three), &three));
    /* The churning thread owns ffk.sximg from now on. */
    SETUP(sx_image_file_release(ffk));

    SETUP(sx_device_global_add(&racy, "stress_racy", sizeof(racy.value), 0, SX_HOST_ACCESS_READ_WRITE));
    enum { NT = 12 };
    void *(*fns[NT])(void *) = {churn_ffk, launcher, launcher, contexts, usm, device_globals, first_launches,
                                churn_scope, dg_churn, dg_copies, queue_release_race, queue_user};
    const char *names[NT] = {"image-file churn", "launcher", "launcher2", "contexts", "usm", "device globals",
                             "first launches", "image-file churn 2", "dg remove/add", "dg copies (racing)",
                             "queue releases", "released queue user"};
    stats st[NT];
    pthread_t th[NT];
    for (int i = 0; i < NT; i++) {
        st[i] = (stats){names[i], 0, 0};
        if (pthread_create(&th[i], NULL, fns[i], &st[i]) != 0) {
            fprintf(stderr, "stress: pthread_create failed\n");
            return 1;
        }
    }
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (!atomic_load(&stop) && (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9 < seconds);
    atomic_store(&stop, 1);
    for (int i = 0; i < NT; i++)
        pthread_join(th[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &now);
    double took = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("stress: %d threads, %.1f s\n", NT, took);
    for (int i = 0; i < NT; i++)
        printf("  %-20s %8ld rounds  %6ld kernel-not-supported (copies: refused)\n", st[i].name, st[i].ops,
               st[i].unsupported);
    /* The last sx_fini with two threads launching (the queue and context
     * are released by it; the handles and argument sets stay the caller's). */
    stats race[2] = {{"fini race", 0, 0}, {"fini race (args)", 1, 0}};
    pthread_t rt[2];
    if (!atomic_load(&failures)) {
        atomic_store(&stop, 0);
        SETUP(sx_image_file_load(ffk_path, &ffk));
        for (int i = 0; i < 2; i++)
            if (pthread_create(&rt[i], NULL, fini_racer, &race[i]) != 0)
                return setup_fail("pthread_create", SX_ERROR_UNKNOWN);
        pause_ms(50);
        SETUP(sx_fini());
        atomic_store(&fini_done, 1);
        for (int i = 0; i < 2; i++)
            pthread_join(rt[i], NULL);
        for (int i = 0; i < 2; i++)
            printf("  %-20s %8ld launches  %6ld refused (fini)\n", race[i].name, race[i].ops, race[i].unsupported);
        SETUP(sx_image_file_release(ffk));
    } else {
        SETUP(sx_queue_release(q));
        SETUP(sx_context_release(ctx));
        SETUP(sx_fini());
    }
    SETUP(sx_args_release(empty_args));
    SETUP(sx_kernel_release(empty_k));
    SETUP(sx_kernel_release(axpy_k));
    SETUP(sx_kernel_release(dg_add_k));
    SETUP(sx_image_file_release(dgf));
    SETUP(sx_device_global_remove(&racy));
    long f = atomic_load(&failures);
    for (int i = 0; i < NT; i++)
        if (st[i].ops == 0 && !f) {
            fprintf(stderr, "stress: thread '%s' did no round\n", st[i].name);
            f++;
        }
    if (f) {
        fprintf(stderr, "stress: %ld failure(s)\n", f);
        return 1;
    }
    printf("stress: every result as expected\n");
    return 0;
}
