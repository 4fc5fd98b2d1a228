/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-adapter-cts-launch.c: the conformance suite's launch checks. None of
 * them needs barrier() (that is launch.barrier's own check): a device that
 * runs work-items one after another passes them all. Each kernel is in
 * sx-adapter-cts.cl, .cu and -host.c; an image without it gives a SKIP
 * that says to rebuild the image. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sx-adapter-cts.h"

/* A launch answered SX_ERROR_UNSUPPORTED_FEATURE is the device saying it
 * cannot: a SKIP with its reason, never a FAIL. */
static bool launched(const char *check, sx_result r)
{
    if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
        skip(check, "the adapter refused the launch: %s", err_msg);
        return false;
    }
    return ok(check, r, true);
}

static sxa_kernel kernel_of(run *R, sxa_program p, const char *name, const char *check)
{
    sxa_kernel k = NULL;
    err_reset();
    sx_result r = R->t.kernel.create(p, name, &k);
    if (r != SX_SUCCESS) {
        skip(check, "the image has no %s (%s): rebuild it from this version's sx-adapter-cts.cl", name, rn(r));
        return NULL;
    }
    return k;
}

/* Launch, wait for its event, check it completed. */
static bool launch_wait(run *R, const char *check, sxa_kernel k, uint32_t dim, const size_t *offset,
                        const size_t *global, const size_t *local, uint32_t n, const sx_arg *args)
{
    sxa_event ev = NULL;
    err_reset();
    if (!launched(check, R->t.enqueue.kernel_launch(R->q, k, dim, offset, global, local, n, args, 0, NULL, &ev)))
        return false;
    err_reset();
    bool good = ok(check, R->t.event.wait(1, &ev), true);
    sx_event_status st = SX_EVENT_STATUS_QUEUED;
    if (good && (R->t.event.get_status(ev, &st) != SX_SUCCESS || st != SX_EVENT_STATUS_COMPLETE)) {
        fail(check, "status %d after event.wait, expected SX_EVENT_STATUS_COMPLETE", st);
        good = false;
    }
    R->t.event.release(ev);
    return good;
}

static bool results_ok(const char *check, const int *host, size_t n, int (*want)(size_t, const void *),
                       const void *ctx)
{
    for (size_t i = 0; i < n; i++)
        if (host[i] != want(i, ctx)) {
            fail(check, "out[%zu] = %d, expected %d", i, host[i], want(i, ctx));
            return false;
        }
    return true;
}

/* ------------------------------------------------------------ sx_cts_local */

typedef struct local_run {
    int v;
    size_t first;  /* out[] index of work-item 0 */
} local_run;

static int local_want(size_t i, const void *ctx)
{
    const local_run *lr = ctx;
    return (int)(i - lr->first) * lr->v + 1;
}

static sx_result launch_local_at(run *R, sxa_kernel k, size_t first, size_t count, int v, const size_t *local,
                                 uint32_t num_events, const sxa_event *wait, sxa_event *out)
{
    sx_arg args[3] = {
        {SX_ARG_LOCAL, 2, (local ? *local : count) * sizeof(int), NULL}, /* any order: the contract says so */
        {SX_ARG_POINTER, 0, sizeof(void *), (int *)R->out + first},
        {SX_ARG_VALUE, 1, sizeof(int), &v},
    };
    return R->t.enqueue.kernel_launch(R->q, k, 1, NULL, &count, local, 3, args, num_events, wait, out);
}

void launch_local(run *R, sxa_kernel k, const char *check)
{
    size_t local = LOCAL;
    sxa_event ev = NULL;
    err_reset();
    if (!launched(check, launch_local_at(R, k, 0, N, 3, &local, 0, NULL, &ev)))
        return;
    err_reset();
    bool good = dispatch_ok("dispatch.event", ev) && ok(check, R->t.event.wait(1, &ev), true);
    if (ev)
        R->t.event.release(ev);
    if (!good)
        return;
    if (launch_only) {
        pass(check, "launched and completed; results not checked (--launch-only)");
        return;
    }
    int host[64];
    local_run lr = {3, 0};
    if (read_back(R, check, host, N) && results_ok(check, host, N, local_want, &lr))
        pass(check, "pointer, value and local arguments in any order; %zu work-items in groups of %zu, no barrier",
             N, LOCAL);
}

/* local_size NULL: the adapter picks a group size. */
static void check_null_local(run *R, sxa_kernel k, const char *kn)
{
    char check[128];
    snprintf(check, sizeof check, "launch.null-local[%s]", kn);
    size_t global = N;
    int v = 7;
    sx_arg args[3] = {{SX_ARG_POINTER, 0, sizeof(void *), R->out},
                      {SX_ARG_VALUE, 1, sizeof(int), &v},
                      {SX_ARG_LOCAL, 2, N * sizeof(int), NULL}};
    if (!launch_wait(R, check, k, 1, NULL, &global, NULL, 3, args))
        return;
    if (launch_only) {
        pass(check, "launched; results not checked (--launch-only)");
        return;
    }
    int host[64];
    local_run lr = {7, 0};
    if (read_back(R, check, host, N) && results_ok(check, host, N, local_want, &lr))
        pass(check, "%zu work-items, group size left to the adapter", N);
}

/* ------------------------------------------------------- sx_cts_scalars */

typedef struct cts_pair {
    int i;
    float f;
} cts_pair;

/* float, struct by value, char and long arguments. */
static void check_scalars(run *R, sxa_program p, const char *kn)
{
    char check[128];
    snprintf(check, sizeof check, "launch.scalars[%s]", kn);
    sxa_kernel k = kernel_of(R, p, "sx_cts_scalars", check);
    if (!k)
        return;
    float f = 0.5f;
    cts_pair s = {40, 0.25f};
    signed char c = -3;
    int64_t l = 1000000;
    sx_arg args[5] = {{SX_ARG_POINTER, 0, sizeof(void *), R->out},
                      {SX_ARG_VALUE, 1, sizeof f, &f},
                      {SX_ARG_VALUE, 2, sizeof s, &s},
                      {SX_ARG_VALUE, 3, sizeof c, &c},
                      {SX_ARG_VALUE, 4, sizeof l, &l}};
    size_t global = N, local = LOCAL;
    if (launch_wait(R, check, k, 1, NULL, &global, &local, 5, args)) {
        float host[64];
        if (launch_only) {
            pass(check, "launched; results not checked (--launch-only)");
        } else if (read_back(R, check, (int *)host, N)) {
            size_t g = 0;
            for (; g < N; g++) {
                float want = (float)g * 0.5f + 40.0f + 0.25f - 3.0f + 1000000.0f;
                if (host[g] != want) {
                    fail(check, "out[%zu] = %g, expected %g (float 0.5, {int 40, float 0.25}, char -3, long 1e6)",
                         g, host[g], want);
                    break;
                }
            }
            if (g == N)
                pass(check, "float, struct {int, float} by value, char and long values");
        }
    }
    R->t.kernel.release(k);
}

static void check_double(run *R, sxa_program p, const char *kn)
{
    char check[128];
    snprintf(check, sizeof check, "launch.double[%s]", kn);
    sx_aspect_set aspects = 0;
    if (R->t.device.get_info(R->dev, SX_DEVICE_INFO_ASPECTS, sizeof aspects, &aspects, NULL) != SX_SUCCESS ||
        !(aspects & SX_ASPECT_BIT(SX_ASPECT_FP64))) {
        skip(check, "the device does not report the fp64 aspect");
        return;
    }
    sxa_kernel k = kernel_of(R, p, "sx_cts_double", check);
    if (!k)
        return;
    double d = 1.0 / 3.0;
    sx_arg args[2] = {{SX_ARG_POINTER, 0, sizeof(void *), R->out}, {SX_ARG_VALUE, 1, sizeof d, &d}};
    size_t global = N / 2, local = LOCAL;
    if (launch_wait(R, check, k, 1, NULL, &global, &local, 2, args)) {
        double host[32];
        if (launch_only) {
            pass(check, "launched; results not checked (--launch-only)");
        } else if (read_back(R, check, (int *)host, N)) {
            size_t g = 0;
            for (; g < N / 2; g++)
                if (host[g] != (double)g * d + 0.25) {
                    fail(check, "out[%zu] = %.17g, expected %.17g (double arithmetic)", g, host[g],
                         (double)g * d + 0.25);
                    break;
                }
            if (g == N / 2)
                pass(check, "a double value, double results bit for bit");
        }
    }
    R->t.kernel.release(k);
}

/* ------------------------------------------------------------ sx_cts_nd */

/* What sx_cts_nd writes for the work-item at out index 2i and 2i+1. */
typedef struct nd_run {
    uint32_t dim;
    size_t off[3], global[3], local[3];
} nd_run;

static int nd_want(size_t i, const void *ctx)
{
    const nd_run *nr = ctx;
    size_t w = i / 2, x = w % nr->global[0], y = (w / nr->global[0]) % nr->global[1],
           z = w / (nr->global[0] * nr->global[1]);
    size_t id[3] = {x + nr->off[0], y + nr->off[1], z + nr->off[2]};
    size_t lid[3] = {x % nr->local[0], y % nr->local[1], z % nr->local[2]};
    size_t grp[3] = {x / nr->local[0], y / nr->local[1], z / nr->local[2]};
    if (i % 2 == 0)
        return (int)(id[0] + 100 * id[1] + 10000 * id[2]);
    return (int)(lid[0] + 4 * lid[1] + 16 * lid[2] + 64 * (grp[0] + 4 * grp[1] + 16 * grp[2]));
}

static bool nd_launch(run *R, sxa_kernel k, const char *check, nd_run *nr, bool with_offset)
{
    sx_arg arg = {SX_ARG_POINTER, 0, sizeof(void *), R->out};
    if (!launch_wait(R, check, k, nr->dim, with_offset ? nr->off : NULL, nr->global, nr->local, 1, &arg))
        return false;
    if (launch_only)
        return true;
    int host[64];
    size_t items = nr->global[0] * nr->global[1] * nr->global[2];
    return read_back(R, check, host, 2 * items) && results_ok(check, host, 2 * items, nd_want, nr);
}

/* 1-, 2- and 3-D ranges: global, local and group ids in every dimension,
 * then the same with global offsets. */
static void check_nd(run *R, sxa_program p, const char *kn)
{
    char check[128];
    snprintf(check, sizeof check, "launch.nd[%s]", kn);
    sxa_kernel k = kernel_of(R, p, "sx_cts_nd", check);
    if (!k)
        return;
    nd_run runs[3] = {
        {1, {5, 0, 0}, {32, 1, 1}, {8, 1, 1}},
        {2, {1, 2, 0}, {8, 4, 1}, {4, 2, 1}},
        {3, {1, 2, 3}, {4, 4, 2}, {2, 2, 1}},
    };
    bool good = true;
    for (int i = 0; i < 3 && good; i++) {
        nd_run plain = runs[i];
        memset(plain.off, 0, sizeof plain.off);
        good = nd_launch(R, k, check, &plain, false);
    }
    if (good)
        pass(check, "1-D 32/8, 2-D 8x4/4x2, 3-D 4x4x2/2x2x1: global, local and group ids%s",
             launch_only ? "; results not checked (--launch-only)" : "");
    snprintf(check, sizeof check, "launch.offset[%s]", kn);
    good = true;
    for (int i = 0; i < 3 && good; i++)
        good = nd_launch(R, k, check, &runs[i], true);
    if (good)
        pass(check, "global offsets (5), (1,2), (1,2,3)%s", launch_only ? "; results not checked (--launch-only)" : "");
    R->t.kernel.release(k);
}

/* ------------------------------------------------------ threads and events */

#define CTS_THREADS 4
#define CTS_ROUNDS 25

typedef struct thread_run {
    run *R;
    sxa_kernel k;
    int index;
    sx_result r;
    char msg[256];
} thread_run;

/* One kernel handle from several threads at once, each on its own part
 * of the output with its own value: arguments must not leak between them. */
static void *launch_thread(void *arg)
{
    thread_run *tr = arg;
    size_t part = N / CTS_THREADS, local = part;
    for (int round = 0; round < CTS_ROUNDS && tr->r == SX_SUCCESS; round++) {
        sxa_event ev = NULL;
        err_reset();
        tr->r = launch_local_at(tr->R, tr->k, part * (size_t)tr->index, part, tr->index + 2, &local, 0, NULL, &ev);
        if (tr->r == SX_SUCCESS) {
            tr->r = tr->R->t.event.wait(1, &ev);
            tr->R->t.event.release(ev);
        }
        if (tr->r != SX_SUCCESS)
            snprintf(tr->msg, sizeof tr->msg, "%.255s", err_msg);
    }
    return NULL;
}

static void check_threads(run *R, sxa_kernel k, const char *kn)
{
    char check[128];
    snprintf(check, sizeof check, "launch.threads[%s]", kn);
    thread_run tr[CTS_THREADS];
    pthread_t th[CTS_THREADS];
    int started = 0;
    for (int i = 0; i < CTS_THREADS; i++) {
        tr[i] = (thread_run){R, k, i, SX_SUCCESS, ""};
        if (pthread_create(&th[i], NULL, launch_thread, &tr[i]) != 0)
            break;
        started++;
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    if (started < CTS_THREADS) {
        skip(check, "could not start %d threads", CTS_THREADS);
        return;
    }
    for (int i = 0; i < CTS_THREADS; i++)
        if (tr[i].r != SX_SUCCESS) {
            if (tr[i].r == SX_ERROR_UNSUPPORTED_FEATURE)
                skip(check, "thread %d: the adapter refused: %s", i, tr[i].msg);
            else
                fail(check, "thread %d: %s: %s", i, rn(tr[i].r), tr[i].msg);
            return;
        }
    if (launch_only) {
        pass(check, "%d threads x %d launches of one kernel; results not checked (--launch-only)", CTS_THREADS,
             CTS_ROUNDS);
        return;
    }
    int host[64];
    if (!read_back(R, check, host, N))
        return;
    size_t part = N / CTS_THREADS;
    for (int i = 0; i < CTS_THREADS; i++)
        if (!results_ok(check, host + part * (size_t)i, part, local_want, &(local_run){i + 2, 0}))
            return;
    pass(check, "%d threads x %d launches of one kernel handle, each its own values and output", CTS_THREADS,
         CTS_ROUNDS);
}

/* A wait list orders a copy after a launch; a barrier with a wait list
 * completes after both; every event reports COMPLETE after the wait. */
static void check_events(run *R, sxa_kernel k, const char *kn)
{
    char check[128];
    snprintf(check, sizeof check, "launch.wait-list[%s]", kn);
    size_t local = LOCAL;
    sxa_event ev[3] = {NULL, NULL, NULL};
    err_reset();
    if (!launched(check, launch_local_at(R, k, 0, N / 2, 5, &local, 0, NULL, &ev[0]))) {
        return;
    }
    err_reset();
    sx_result r = R->t.enqueue.usm_memcpy(R->q, 0, (int *)R->out + N / 2, R->out, N / 2 * sizeof(int), 1, &ev[0],
                                          &ev[1]);
    if (ok(check, r, true)) {
        err_reset();
        r = R->t.enqueue.barrier(R->q, 2, ev, &ev[2]);
        if (r == SX_ERROR_UNSUPPORTED_FEATURE)
            r = R->t.event.wait(2, ev); /* barrier is optional: wait for both */
        else if (r == SX_SUCCESS)
            r = R->t.event.wait(1, &ev[2]);
        bool good = ok(check, r, true);
        for (int i = 0; i < 3 && good; i++) {
            sx_event_status st = SX_EVENT_STATUS_QUEUED;
            if (ev[i] && (R->t.event.get_status(ev[i], &st) != SX_SUCCESS || st != SX_EVENT_STATUS_COMPLETE)) {
                fail(check, "event %d: status %d after the barrier completed, expected COMPLETE", i, st);
                good = false;
            }
        }
        int host[64];
        local_run lr = {5, 0};
        if (good && launch_only)
            pass(check, "launch -> copy waiting on it -> barrier; results not checked (--launch-only)");
        else if (good && read_back(R, check, host, N) && results_ok(check, host + N / 2, N / 2, local_want, &lr))
            pass(check, "a copy waiting on a launch's event saw its results; a barrier on both completed after them");
    }
    for (int i = 0; i < 3; i++)
        if (ev[i])
            R->t.event.release(ev[i]);
}

/* Needs R->out (USM): a device without it runs launch.args through a
 * program variable instead (sx-adapter-cts.c). */
void check_launches(run *R, sxa_program p, const char *kn)
{
    char check[128];
    snprintf(check, sizeof check, "launch.args[%s]", kn);
    sxa_kernel k = kernel_of(R, p, "sx_cts_local", check);
    if (k) {
        launch_local(R, k, check);
        check_null_local(R, k, kn);
        check_threads(R, k, kn);
        check_events(R, k, kn);
        R->t.kernel.release(k);
    }
    check_scalars(R, p, kn);
    check_double(R, p, kn);
    check_nd(R, p, kn);
}
