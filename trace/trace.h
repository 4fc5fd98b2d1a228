/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* trace.h: the trace layer's runtime, shared by trace.c and the wrappers
 * gen-trace.awk writes. Nothing here is exported. */
#ifndef SXT_TRACE_H
#define SXT_TRACE_H

#include <stdint.h>
#include <stdio.h>

#define SX_BUILDING_LIBRARY 1 /* SX_API = default visibility: the wrappers are the exports */
#include <sycl-ext/sx.h>

#define SXT_EXPORT __attribute__((visibility("default")))

/* One trace line, built in memory and written with one write() so lines of
 * several threads never interleave. */
typedef struct sxt_line {
    char buf[2048];
    size_t len;
} sxt_line;

typedef struct sxt_entry {
    const char *name;
    void **real;
    int returns_string; /* the three string getters */
} sxt_entry;

extern const sxt_entry sxt_entries[];
extern const size_t sxt_num_entries;

/* 1 once the real functions are resolved and tracing is off: the wrappers
 * then only tail-call the real function. */
extern int sxt_fast;

/* Resolve (once), then 1 if this call is to be traced (tracing on and not
 * nested inside another traced call), 0 to just forward. */
int sxt_enter(void);
uint64_t sxt_now(void);
const char *sxt_result_name(sx_result r);

void sxt_begin(sxt_line *l, const char *fn);
void sxt_put(sxt_line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sxt_ptr(sxt_line *l, const void *p);
void sxt_fnptr(sxt_line *l, void (*p)(void));
void sxt_str(sxt_line *l, const char *s);
void sxt_ptrs(sxt_line *l, const void *const *v, uint32_t n);
void sxt_sizes(sxt_line *l, const size_t *v, uint32_t n);
void sxt_args(sxt_line *l, const sx_arg *v, uint32_t n);
void sxt_binaries(sxt_line *l, const sx_device_binaries *b);
void sxt_launch_props(sxt_line *l, const sx_launch_properties *p);
/* Duration, the last error when `failed`, newline; write; leave. */
void sxt_end(sxt_line *l, uint64_t ns, int failed);

#endif
