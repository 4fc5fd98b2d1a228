/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* launch-ab: the cached sx_queue_launch of two builds of libsycl-ext in ONE
 * process. Each library is dlopen'ed (RTLD_LOCAL: two separate copies of the
 * core, each with its built-in native adapter) and runs the same empty
 * 1-work-item kernel on its own queue; rounds alternate which side goes
 * first and time each side by this thread's CPU time (a single work-group
 * runs inline on the native adapter, so that is all of it; a round that is
 * preempted is not charged). Prints the median of the per-round ratios B/A
 * and their range. Used to compare a build against the pre-epoch one.
 * Not run by make check; only the public API (doc/abi.md) is used, so any
 * two builds of libsycl-ext.so.1 can be compared.
 * Usage: launch-ab LIB_A LIB_B IMAGE.sximg [ROUNDS] [LAUNCHES_PER_ROUND]
 * SX_AB_BUILTINS_A / _B: each side's SX_NATIVE_BUILTINS (set around its
 * first launch); SX_DEVICE_SELECTOR picks the device for both.
 * SX_AB_ENV_A / _B: NAME=VALUE set for that side's load and sx_init only,
 * e.g. SX_AB_ENV_B=SX_TRACE=/tmp/t.json compares the launch with the
 * timeline on (B) and off (A) in one library build (two copies of the file).
 * SX_AB_MODE: "launch" (default: launches, one queue wait per round),
 * "event" (each launch takes an event, sx_event_wait on it, then
 * sx_event_release: the cached launch + wait), "chain" (each launch has the
 * previous launch's event in its wait list, then releases it), "args"
 * (sx_args_create, sx_args_set, sx_nd_launch, sx_args_release each time:
 * an argument set made per launch). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct side {
    const char *path;
    void *dl;
    sx_result (*launch)(sx_queue, sx_kernel, uint32_t, const size_t *, const size_t *, const size_t *, uint32_t,
                        const sx_arg *, uint32_t, const sx_event *, sx_event *);
    sx_result (*wait)(sx_queue);
    sx_result (*ev_wait)(uint32_t, const sx_event *);
    sx_result (*ev_release)(sx_event);
    sx_result (*args_create)(sx_kernel, sx_args *);
    sx_result (*args_set)(sx_args, uint32_t, size_t, const void *);
    sx_result (*nd_launch)(sx_queue, sx_args, uint32_t, const size_t *, const size_t *, const sx_launch_properties *,
                           uint32_t, const sx_event *, sx_event *);
    sx_result (*args_release)(sx_args);
    sx_queue q;
    sx_kernel k;
} side;

#define SYM(s, name) load_sym((s), #name)
static void *load_sym(side *s, const char *name)
{
    void *p = dlsym(s->dl, name);
    if (!p) {
        fprintf(stderr, "launch-ab: %s: no %s\n", s->path, name);
        exit(1);
    }
    return p;
}

static int x = 1;
static sx_arg args[1] = {{SX_ARG_VALUE, 0, sizeof(int), &x}};
static const size_t g[1] = {1}, l[1] = {1};

#define SIDE_CHECK(s, call)                                                                          \
    do {                                                                                             \
        sx_result r_ = (call);                                                                       \
        if (r_ != SX_SUCCESS) {                                                                      \
            fprintf(stderr, "%s: %s failed: %d: %s\n", (s)->path, #call, (int)r_, last_error());    \
            exit(1);                                                                                 \
        }                                                                                            \
    } while (0)

static void open_side(side *s, const char *path, const char *image, const char *builtins_env, const char *env_env)
{
    char *env = getenv(env_env) ? strdup(getenv(env_env)) : NULL, *eq = env ? strchr(env, '=') : NULL;
    if (eq) {
        *eq = 0;
        setenv(env, eq + 1, 1);
    }
    s->path = path;
    if (!(s->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL))) {
        fprintf(stderr, "launch-ab: %s\n", dlerror());
        exit(1);
    }
    const char *(*last_error)(void) = SYM(s, sx_last_error);
    sx_result (*init)(uint32_t) = SYM(s, sx_init);
    sx_result (*load)(const char *, sx_image_file *) = SYM(s, sx_image_file_load);
    sx_result (*dev_default)(sx_device *) = SYM(s, sx_device_get_default);
    sx_result (*ctx_create)(uint32_t, const sx_device *, sx_context *) = SYM(s, sx_context_create);
    sx_result (*q_create)(sx_context, sx_device, uint32_t, sx_queue *) = SYM(s, sx_queue_create);
    sx_result (*get_ff)(const char *, sx_kernel *) = SYM(s, sx_kernel_get_free_function);
    s->launch = SYM(s, sx_queue_launch);
    s->wait = SYM(s, sx_queue_wait);
    s->ev_wait = SYM(s, sx_event_wait);
    s->ev_release = SYM(s, sx_event_release);
    s->args_create = SYM(s, sx_args_create);
    s->args_set = SYM(s, sx_args_set);
    s->nd_launch = SYM(s, sx_nd_launch);
    s->args_release = SYM(s, sx_args_release);
    const char *b = getenv(builtins_env);
    if (b)
        setenv("SX_NATIVE_BUILTINS", b, 1);
    sx_image_file f;
    sx_device d;
    sx_context c;
    SIDE_CHECK(s, load(image, &f));
    SIDE_CHECK(s, init(0));
    SIDE_CHECK(s, dev_default(&d));
    SIDE_CHECK(s, ctx_create(1, &d, &c));
    SIDE_CHECK(s, q_create(c, d, 0, &s->q));
    SIDE_CHECK(s, get_ff("empty", &s->k));
    SIDE_CHECK(s, s->launch(s->q, s->k, 1, NULL, g, l, 1, args, 0, NULL, NULL)); /* build, cache */
    SIDE_CHECK(s, s->wait(s->q));
    if (eq)
        unsetenv(env);
    free(env);
    /* Objects stay until exit: each library is torn down with the process. */
}

static int mode; /* 0 launch, 1 event, 2 chain, 3 args */

static void fail(const side *s, const char *what)
{
    fprintf(stderr, "%s: %s failed\n", s->path, what);
    exit(1);
}

static double run(side *s, long n)
{
    double t0 = bench_cpu_now();
    if (mode == 1) {
        for (long i = 0; i < n; i++) {
            sx_event e;
            if (s->launch(s->q, s->k, 1, NULL, g, l, 1, args, 0, NULL, &e) != SX_SUCCESS)
                fail(s, "launch");
            if (s->ev_wait(1, &e) != SX_SUCCESS || s->ev_release(e) != SX_SUCCESS)
                fail(s, "event wait/release");
        }
    } else if (mode == 2) {
        sx_event prev;
        if (s->launch(s->q, s->k, 1, NULL, g, l, 1, args, 0, NULL, &prev) != SX_SUCCESS)
            fail(s, "launch");
        for (long i = 1; i < n; i++) {
            sx_event e;
            if (s->launch(s->q, s->k, 1, NULL, g, l, 1, args, 1, &prev, &e) != SX_SUCCESS)
                fail(s, "launch with a wait list");
            if (s->ev_release(prev) != SX_SUCCESS)
                fail(s, "event release");
            prev = e;
        }
        if (s->ev_wait(1, &prev) != SX_SUCCESS || s->ev_release(prev) != SX_SUCCESS)
            fail(s, "event wait/release");
    } else if (mode == 3) {
        for (long i = 0; i < n; i++) {
            sx_args a;
            if (s->args_create(s->k, &a) != SX_SUCCESS || s->args_set(a, 0, sizeof(x), &x) != SX_SUCCESS ||
                s->nd_launch(s->q, a, 1, g, l, NULL, 0, NULL, NULL) != SX_SUCCESS || s->args_release(a) != SX_SUCCESS)
                fail(s, "args create/set/launch/release");
        }
    } else {
        for (long i = 0; i < n; i++)
            if (s->launch(s->q, s->k, 1, NULL, g, l, 1, args, 0, NULL, NULL) != SX_SUCCESS)
                fail(s, "launch");
    }
    if (s->wait(s->q) != SX_SUCCESS)
        exit(1);
    return bench_cpu_now() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: launch-ab LIB_A LIB_B IMAGE.sximg [ROUNDS] [LAUNCHES_PER_ROUND]\n");
        return 2;
    }
    int rounds = argc > 4 ? atoi(argv[4]) : 201;
    long n = argc > 5 ? atol(argv[5]) : 20000;
    if (rounds < 1 || rounds > 100000 || n < 1)
        return 2;
    const char *m = getenv("SX_AB_MODE");
    mode = !m || !strcmp(m, "launch") ? 0 : !strcmp(m, "event") ? 1 : !strcmp(m, "chain") ? 2 : !strcmp(m, "args") ? 3 : -1;
    if (mode < 0) {
        fprintf(stderr, "launch-ab: SX_AB_MODE=%s is not launch, event, chain or args\n", m);
        return 2;
    }
    side a, b;
    open_side(&a, argv[1], argv[3], "SX_AB_BUILTINS_A", "SX_AB_ENV_A");
    open_side(&b, argv[2], argv[3], "SX_AB_BUILTINS_B", "SX_AB_ENV_B");
    double *ratio = calloc((size_t)rounds, sizeof(double)), ta = 1e9, tb = 1e9;
    if (!ratio)
        return 1;
    for (int r = 0; r < rounds; r++) {
        double t[2];
        for (int i = 0; i < 2; i++) {
            int which = (i ^ r) & 1;
            t[which] = run(which ? &b : &a, n);
        }
        ratio[r] = t[1] / t[0];
        if (t[0] < ta)
            ta = t[0];
        if (t[1] < tb)
            tb = t[1];
    }
    printf("launch-ab: %d rounds of %ld launches each side (%s; thread CPU time)\n", rounds, n,
           mode == 1 ? "launch + sx_event_wait + release" : mode == 2 ? "launch after the previous event + release"
                                                 : mode == 3 ? "args create + set + nd_launch + release"
                                                             : "launches");
    printf("  A %s: best %.1f ns/launch\n  B %s: best %.1f ns/launch\n", a.path, ta / n * 1e9, b.path,
           tb / n * 1e9);
    bench_print_ratio("  B/A", ratio, rounds);
    free(ratio);
    return 0;
}
