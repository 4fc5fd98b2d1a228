/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ur-api.h: the part of Unified Runtime's C API (ur_api.h v0.12 as shipped
 * in intel-cmplr-lib-ur 2026.1.2, where urPlatformGet takes one adapter and
 * urEnqueueKernelLaunch one launch-properties pointer before the wait list)
 * that bench/ur-vs-sx calls, declared from its documented signatures and
 * resolved with dlsym from libur_loader.so.0.
 * Handles are opaque pointers; only the enumerators used are named. */
#ifndef SX_BENCH_UR_API_H
#define SX_BENCH_UR_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef int32_t ur_result_t;
typedef void *ur_adapter_handle_t, *ur_platform_handle_t, *ur_device_handle_t,
    *ur_context_handle_t, *ur_queue_handle_t, *ur_program_handle_t, *ur_kernel_handle_t,
    *ur_event_handle_t;

enum {
    UR_RESULT_SUCCESS = 0,
    UR_ADAPTER_INFO_BACKEND = 0,
    UR_ADAPTER_BACKEND_OPENCL = 2,
    UR_PLATFORM_INFO_NAME = 1,
    UR_DEVICE_TYPE_ALL = 2,
    UR_PROGRAM_INFO_BINARY_SIZES = 5,
    UR_PROGRAM_INFO_BINARIES = 6,
};

/* name, return type and parameters of each entry point used */
#define UR_ENTRIES(X)                                                                               \
    X(urLoaderInit, (uint32_t device_flags, void *loader_config))                                  \
    X(urAdapterGet, (uint32_t n, ur_adapter_handle_t *adapters, uint32_t *num))                    \
    X(urAdapterGetInfo, (ur_adapter_handle_t a, uint32_t prop, size_t size, void *value,           \
                         size_t *size_ret))                                                        \
    X(urPlatformGet, (ur_adapter_handle_t a, uint32_t n, ur_platform_handle_t *platforms,          \
                      uint32_t *num))                                                              \
    X(urPlatformGetInfo, (ur_platform_handle_t p, uint32_t prop, size_t size, void *value,         \
                          size_t *size_ret))                                                       \
    X(urDeviceGet, (ur_platform_handle_t p, uint32_t type, uint32_t n, ur_device_handle_t *devices, \
                    uint32_t *num))                                                                \
    X(urContextCreate, (uint32_t n, const ur_device_handle_t *devices, const void *props,          \
                        ur_context_handle_t *ctx))                                                 \
    X(urContextRelease, (ur_context_handle_t ctx))                                                 \
    X(urQueueCreate, (ur_context_handle_t ctx, ur_device_handle_t dev, const void *props,          \
                      ur_queue_handle_t *q))                                                       \
    X(urQueueRelease, (ur_queue_handle_t q))                                                       \
    X(urQueueFinish, (ur_queue_handle_t q))                                                        \
    X(urProgramCreateWithIL, (ur_context_handle_t ctx, const void *il, size_t len,                 \
                              const void *props, ur_program_handle_t *prog))                       \
    X(urProgramCreateWithBinary, (ur_context_handle_t ctx, uint32_t n,                             \
                                  const ur_device_handle_t *devs, const size_t *lengths,           \
                                  const uint8_t **binaries, const void *props,                     \
                                  ur_program_handle_t *prog))                                      \
    X(urProgramBuild, (ur_context_handle_t ctx, ur_program_handle_t prog, const char *options))    \
    X(urProgramCompile, (ur_context_handle_t ctx, ur_program_handle_t prog, const char *options))  \
    X(urProgramLink, (ur_context_handle_t ctx, uint32_t count, const ur_program_handle_t *progs,   \
                      const char *options, ur_program_handle_t *out))                              \
    X(urProgramGetInfo, (ur_program_handle_t prog, uint32_t prop, size_t size, void *value,        \
                         size_t *size_ret))                                                        \
    X(urProgramRelease, (ur_program_handle_t prog))                                                \
    X(urKernelCreate, (ur_program_handle_t prog, const char *name, ur_kernel_handle_t *k))         \
    X(urKernelRelease, (ur_kernel_handle_t k))                                                     \
    X(urKernelSetArgValue, (ur_kernel_handle_t k, uint32_t index, size_t size, const void *props,  \
                            const void *value))                                                    \
    X(urEnqueueKernelLaunch, (ur_queue_handle_t q, ur_kernel_handle_t k, uint32_t dims,            \
                              const size_t *offset, const size_t *global, const size_t *local,     \
                              const void *launch_props, uint32_t num_events,                       \
                              const ur_event_handle_t *wait_list, ur_event_handle_t *event))       \
    X(urEnqueueDeviceGlobalVariableWrite, (ur_queue_handle_t q, ur_program_handle_t prog,          \
                                           const char *name, bool blocking, size_t count,          \
                                           size_t offset, const void *src, uint32_t num_events,    \
                                           const ur_event_handle_t *wait_list,                     \
                                           ur_event_handle_t *event))                              \
    X(urEnqueueDeviceGlobalVariableRead, (ur_queue_handle_t q, ur_program_handle_t prog,           \
                                          const char *name, bool blocking, size_t count,           \
                                          size_t offset, void *dst, uint32_t num_events,           \
                                          const ur_event_handle_t *wait_list,                      \
                                          ur_event_handle_t *event))                               \
    X(urEventWait, (uint32_t n, const ur_event_handle_t *events))                                  \
    X(urEventRelease, (ur_event_handle_t ev))

#endif
