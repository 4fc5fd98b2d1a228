/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* timeline.h: SX_TRACE=FILE.json: spans of what the library did (register,
 * resolve, build, link, cache, copies, launches, waits), one track per
 * thread, written as Trace Event JSON (Perfetto, chrome://tracing).
 * Off, a span costs one predictable branch at each end. */
#ifndef SXI_TIMELINE_H
#define SXI_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The slow path of launches, copies and waits is on: a timeline file is
 * open (sxi_tl_file) or SX_LOG is debug (their lines). */
extern bool sxi_tl_on;
extern bool sxi_tl_file;
void sxi_tl_refresh(void);
uint64_t sxi_now_ns(void);

/* Span times are ticks: the time-stamp counter on x86-64 (reading it costs
 * a fraction of clock_gettime, which is most of a span's cost), converted
 * to nanoseconds when the span is written; nanoseconds elsewhere. */
#if defined(__x86_64__)
static inline uint64_t sxi_tl_ticks(void)
{
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32 | lo) | 1; /* never 0: 0 is "off" */
}
#else
static inline uint64_t sxi_tl_ticks(void)
{
    return sxi_now_ns() | 1;
}
#endif
/* Ticks to nanoseconds since the timeline began. */
uint64_t sxi_tl_ns(uint64_t ticks);

/* The start of a span: its ticks, or 0 when the timeline is off. */
static inline uint64_t sxi_tl_begin(void)
{
    return __builtin_expect(sxi_tl_on, 0) ? sxi_tl_ticks() : 0;
}

/* A span's arguments, written as JSON members into a small buffer. */
typedef struct sxi_tl_args {
    char buf[480];
    size_t len;
} sxi_tl_args;
void sxi_tl_arg_str(sxi_tl_args *a, const char *key, const char *value);
void sxi_tl_arg_u64(sxi_tl_args *a, const char *key, uint64_t value);
void sxi_tl_arg_bool(sxi_tl_args *a, const char *key, bool value);
void sxi_tl_arg_sizes(sxi_tl_args *a, const char *key, const size_t *v, uint32_t n);

/* Record the span [t0, now) named `name` (a string literal) on this
 * thread's track; `args` may be NULL. Nothing when t0 is 0. */
void sxi_tl_end(uint64_t t0, const char *name, const sxi_tl_args *args) __attribute__((cold));
/* The common spans, out of line. */
void sxi_tl_launch(uint64_t t0, const char *kernel, const char *device, uint32_t dims, const size_t *global,
                   const size_t *local, uint32_t num_args, int result) __attribute__((cold));
void sxi_tl_copy(uint64_t t0, const char *what, const char *device, size_t bytes, int blocking, int result)
    __attribute__((cold));
void sxi_tl_simple(uint64_t t0, const char *name, const char *key, const char *value) __attribute__((cold));

/* sx_init: read SX_TRACE (a value ending in .json, or json:PATH; %p in it is
 * the process id) and open the file. */
void sxi_tl_init_from_env(void);
/* Is SX_TRACE asking for the text trace (any other non-empty value but 0)? */
bool sxi_trace_text_wanted(void);
/* Write every thread's buffered spans (sx_fini, sx_cache_flush). */
void sxi_tl_flush(void);

#endif
