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

#endif
