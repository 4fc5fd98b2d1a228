/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-harness.h: drives the Level Zero adapter through sxa_get_proc_table, with the TEST DRIVER under the real loader. */
#ifndef ZE_HARNESS_H
#define ZE_HARNESS_H

#include <check.h>
#include <stddef.h>

#include <sycl-ext/adapter.h>

typedef struct zh_tables {
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
} zh_tables;

extern zh_tables ZT;
extern sxa_adapter zh_adapter;
extern sxa_platform zh_platform;
extern sxa_device zh_device;
extern sxa_context zh_context;
extern sxa_queue zh_queue;
extern const sxa_services zh_services;

/* 0 when the loader, the adapter module and the TEST DRIVER are there;
 * else prints why and returns 77 (Automake's SKIP). */
int zh_prerequisites(void);
/* Point the loader at the TEST DRIVER and its call log at a fresh file. */
void zh_use_test_driver(void);
/* dlopen the adapter module and fetch every table (no init). */
void zh_load_tables(void);
/* zh_use_test_driver + zh_load_tables + init + first platform/device +
 * a context and an in-order queue. */
void zh_setup(void);
void zh_teardown(void);

const char *zh_last_error(void);
const char *zh_name(sx_result r);
/* Does the TEST DRIVER's call log contain `text`? Count of lines with it. */
int zh_log_count(const char *text);
/* Read a built test kernel (tests/level_zero/kernels/NAME); NULL if absent. */
unsigned char *zh_read_kernel(const char *name, size_t *size);
const char *zh_path(const char *rel);

#define ZK_OK(call)                                                                   \
    do {                                                                              \
        sx_result r_ = (call);                                                        \
        ck_assert_msg(r_ == SX_SUCCESS, "%s -> %s: %s", #call, zh_name(r_), zh_last_error()); \
    } while (0)

#define ZK_ERR(call, want)                                                            \
    do {                                                                              \
        sx_result r_ = (call);                                                        \
        ck_assert_msg(r_ == (want), "%s -> %s (want %s): %s", #call, zh_name(r_),     \
                      zh_name(want), zh_last_error());                                \
    } while (0)

#define ZK_MSG_HAS(text)                                                              \
    ck_assert_msg(strstr(zh_last_error(), (text)) != NULL,                            \
                  "last error '%s' does not mention '%s'", zh_last_error(), (text))

#define ZK_LOG_HAS(text) \
    ck_assert_msg(zh_log_count(text) > 0, "the TEST DRIVER's call log has no '%s'", (text))

/* One binary per suite, forked tests; exits 77 without prerequisites. */
#define ZH_MAIN(suite_fn)                                                             \
    int main(void)                                                                    \
    {                                                                                 \
        int pre = zh_prerequisites();                                                 \
        if (pre)                                                                      \
            return pre;                                                               \
        SRunner *sr = srunner_create(suite_fn());                                     \
        srunner_set_fork_status(sr, CK_FORK);                                         \
        srunner_run_all(sr, CK_NORMAL);                                               \
        int failed = srunner_ntests_failed(sr);                                       \
        srunner_free(sr);                                                             \
        return failed ? 1 : 0;                                                        \
    }

#endif
