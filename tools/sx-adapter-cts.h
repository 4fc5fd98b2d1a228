/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-adapter-cts.h: what the conformance suite's files share: the tables
 * under test, the run state of one device, and the PASS/FAIL/SKIP report. */
#ifndef SX_ADAPTER_CTS_H
#define SX_ADAPTER_CTS_H

#include <stdbool.h>
#include <stddef.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/sx.h>

typedef struct tables {
    sxa_adapter_table adapter;
    sxa_platform_table platform;
    sxa_device_table device;
    sxa_context_table context;
    sxa_queue_table queue;
    sxa_usm_table usm;
    sxa_program_table program;
    sxa_kernel_table kernel;
    sxa_enqueue_table enqueue;
    sxa_event_table event;
    sxa_global_table global; /* ABI 1.1, optional */
} tables;

typedef struct cts_image {
    sx_image_kind kind;
    const void *data;
    size_t size;
    const sxa_program_desc *desc;
    const char *from;
} cts_image;

typedef struct run {
    tables t;
    sxa_adapter adapter;
    sxa_context ctx;
    sxa_queue q;
    sxa_device dev;
    void *out;       /* 64 ints of USM the kernels write */
    sx_usm_type out_type;
} run;

/* Work-items of the 1-D launches and their group size; R->out holds N ints. */
static const size_t N = 64, LOCAL = 16;

/* Objects must start with this as their dispatch pointer. */
extern const char cts_dispatch_mark[16];
#define CTS_DISPATCH ((const struct sxa_dispatch *)(const void *)cts_dispatch_mark)

/* --launch-only: the device does not really run kernels (a test driver). */
extern bool launch_only;

/* The last services->error() of this thread. */
extern _Thread_local int err_calls;
extern _Thread_local sx_result err_code;
extern _Thread_local char err_msg[1024];
void err_reset(void);

void pass(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fail(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void skip(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *rn(sx_result r);
/* An expected error: the right family, and reported through services->error. */
void expect_error(const char *check, sx_result r, sx_result want1, sx_result want2);
/* A call that must succeed; on failure prints the adapter's message. */
bool ok(const char *check, sx_result r, bool quiet);
bool dispatch_ok(const char *check, const void *obj);
/* Read back `n` ints of R->out through usm_memcpy. */
bool read_back(run *R, const char *check, int *host, size_t n);

/* sx-adapter-cts-launch.c: every launch check on one built program, and
 * the barrier-free launch of sx_cts_local (pointer, value and local
 * arguments), which the link check reuses. */
void check_launches(run *R, sxa_program p, const char *kind_name);
void launch_local(run *R, sxa_kernel k, const char *check);

#endif /* SX_ADAPTER_CTS_H */
