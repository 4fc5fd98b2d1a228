/* bench.h: what the core benchmarks share: a fatal CHECK and a clock. */
#ifndef SX_BENCH_H
#define SX_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

/* This thread's CPU time: a round preempted by other processes on a busy
 * machine is not charged for the time it did not run. */
static inline double bench_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
