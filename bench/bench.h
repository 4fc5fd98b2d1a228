/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench.h: what the core benchmarks share: a fatal CHECK and a clock. */
#ifndef SX_BENCH_H
#define SX_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sycl-ext/sx.h>

#define CHECK(call)                                                                                 \
    do {                                                                                            \
        sx_result r_ = (call);                                                                      \
        if (r_ != SX_SUCCESS) {                                                                     \
            fprintf(stderr, "%s: %s: %s\n", #call, sx_result_name(r_), sx_last_error());            \
            exit(1);                                                                                \
        }                                                                                           \
    } while (0)

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The native device of sx_init's devices, NULL when there is none. */
static inline sx_device bench_native_device(void)
{
    sx_device devs[16], dev = NULL;
    uint32_t nd = 0;
    CHECK(sx_device_get(NULL, SX_DEVICE_TYPE_CPU, 16, devs, &nd));
    for (uint32_t i = 0; i < nd && i < 16; i++) {
        sx_backend b;
        CHECK(sx_device_get_info(devs[i], SX_DEVICE_INFO_BACKEND, sizeof(b), &b, NULL));
        if (b == SX_BACKEND_NATIVE)
            dev = devs[i];
    }
    return dev;
}

/* This thread's CPU time: a round preempted by other processes on a busy
 * machine is not charged for the time it did not run. */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* What a fresh process pays: `fn(arg, out)` runs in a forked child and
 * fills out[0..n), which comes back through a pipe. -1 if the child died
 * first (out is then untouched), else 0. */
static inline int bench_child_values(void (*fn)(void *arg, double *out), void *arg, double *out, int n)
{
    int fd[2];
    if (n < 1 || n > 64 || pipe(fd) != 0)
        return -1;
    size_t bytes = (size_t)n * sizeof(double);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        double v[64];
        fn(arg, v);
        _exit(write(fd[1], v, bytes) == (ssize_t)bytes ? 0 : 1);
    }
    close(fd[1]);
    double v[64];
    int rc = pid > 0 && read(fd[0], v, bytes) == (ssize_t)bytes ? 0 : -1;
    close(fd[0]);
    int st;
    if (pid > 0)
        waitpid(pid, &st, 0);
    if (rc == 0)
        memcpy(out, v, bytes);
    return rc;
}

typedef struct {
    double (*fn)(int kind);
    int kind;
} bench_child_call;

static inline void bench_child_one(void *arg, double *out)
{
    const bench_child_call *c = arg;
    out[0] = c->fn(c->kind);
}

/* `fn(kind)` in a forked child: its result (milliseconds; negative:
 * failed), -1 if the child died first. */
static inline double bench_in_child(double (*fn)(int kind), int kind)
{
    bench_child_call c = {fn, kind};
    double ms;
    return bench_child_values(bench_child_one, &c, &ms, 1) == 0 ? ms : -1;
}

/* Paired rounds: ratios[i] = ours / raw of round i. Prints "median M
 * (range LO-HI)" after `label`; returns the median. Sorts in place. */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static inline double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
static inline double bench_print_ratio(const char *label, double *ratios, int n)
{
    double m = bench_median(ratios, n);
    printf("%s ratio %.3f (range %.3f-%.3f, %d rounds)\n", label, m, ratios[0], ratios[n - 1], n);
    return m;
}

#endif
