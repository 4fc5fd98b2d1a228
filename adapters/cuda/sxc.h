/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sxc.h: internals of the CUDA adapter shared by its files (driver table, objects). */
#ifndef SXC_H
#define SXC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <cuda.h>

#include <sycl-ext/adapter.h>

/* The driver entry points the adapter uses, resolved from libcuda.so.1 by
 * their versioned ABI names (cuda.h maps cuMemAlloc to cuMemAlloc_v2 and so
 * on; dlsym needs the real names). Types come from cuda.h's prototypes, so
 * a mismatch is a compile error, not a crash. Optional entries may be NULL. */
#define SXC_DRIVER_ENTRIES(X, O)                                                   \
    X(cuInit)                                                                      \
    X(cuDriverGetVersion)                                                          \
    X(cuGetErrorName)                                                              \
    X(cuGetErrorString)                                                            \
    X(cuDeviceGetCount)                                                            \
    X(cuDeviceGet)                                                                 \
    X(cuDeviceGetName)                                                             \
    X(cuDeviceGetAttribute)                                                        \
    X(cuDeviceTotalMem_v2)                                                         \
    X(cuDevicePrimaryCtxRetain)                                                    \
    X(cuDevicePrimaryCtxRelease_v2)                                                \
    X(cuCtxGetCurrent)                                                             \
    X(cuCtxSetCurrent)                                                             \
    X(cuStreamCreate)                                                              \
    X(cuStreamDestroy_v2)                                                          \
    X(cuStreamSynchronize)                                                         \
    X(cuStreamWaitEvent)                                                           \
    X(cuEventCreate)                                                               \
    X(cuEventRecord)                                                               \
    X(cuEventQuery)                                                                \
    X(cuEventSynchronize)                                                          \
    X(cuEventDestroy_v2)                                                           \
    X(cuMemGetInfo_v2)                                                             \
    X(cuMemAlloc_v2)                                                               \
    X(cuMemFree_v2)                                                                \
    X(cuMemHostAlloc)                                                              \
    X(cuMemFreeHost)                                                               \
    X(cuMemAllocManaged)                                                           \
    X(cuPointerGetAttribute)                                                       \
    X(cuMemcpyAsync)                                                               \
    X(cuMemcpyHtoDAsync_v2)                                                        \
    X(cuMemcpyDtoHAsync_v2)                                                        \
    X(cuMemsetD8Async)                                                             \
    X(cuMemsetD16Async)                                                            \
    X(cuMemsetD32Async)                                                            \
    X(cuMemsetD2D8Async)                                                           \
    X(cuMemsetD2D32Async)                                                          \
    X(cuModuleLoadDataEx)                                                          \
    X(cuModuleUnload)                                                              \
    X(cuModuleGetFunction)                                                         \
    X(cuModuleGetGlobal_v2)                                                        \
    X(cuLinkCreate_v2)                                                             \
    X(cuLinkAddData_v2)                                                            \
    X(cuLinkComplete)                                                              \
    X(cuLinkDestroy)                                                               \
    X(cuFuncGetAttribute)                                                          \
    X(cuFuncSetAttribute)                                                          \
    X(cuLaunchKernel)                                                              \
    O(cuFuncGetParamInfo)                                                          \
    O(cuEventElapsedTime_v2)

typedef struct sxc_driver {
#define SXC_DECLARE(field) __typeof__(field) *field;
    SXC_DRIVER_ENTRIES(SXC_DECLARE, SXC_DECLARE)
#undef SXC_DECLARE
    /* cuEventElapsedTime_v2 where the driver has it, else the old name
     * (a macro in cuda.h 13, so it cannot go through the list above). */
    __typeof__(cuEventElapsedTime_v2) *elapsed;
} sxc_driver;

/* ---- objects; each starts with the core's dispatch pointer ---- */

typedef struct sxc_platform_s sxc_platform_t;

#define SXC_EVENT_POOL 256

typedef struct sxc_device_s {
    sxa_object base;
    sxc_platform_t *platform;
    CUdevice cu;
    int ordinal;
    char name[256];
    int cc_major, cc_minor;
    int driver_version;     /* cuDriverGetVersion at init: the persistent cache's key asks for it */
    int max_threads;        /* per block */
    int max_block[3];
    int max_grid[3];
    int smem_optin;         /* largest shared memory a block may opt into */
    int sm_count;
    int managed, concurrent_managed, pageable_access, host_atomics;
    /* Small writes as copies, not memsets (enqueue.c): SX_CUDA_SMALL_WRITES=copy. */
    _Atomic int small_copy;
    size_t total_mem;
    /* Primary context, retained on first use and released at fini. */
    pthread_mutex_t lock;
    CUcontext _Atomic ctx;
    /* Profiling time base, made by the first profiling queue: an event and
     * the host CLOCK_MONOTONIC nanoseconds when it completed. It lives
     * until fini, so events may outlive their queue. */
    CUevent base_event;
    uint64_t base_ns;
    /* Spare untimed events: a launch that wants an event reuses one
     * instead of paying cuEventCreate/cuEventDestroy each time. */
    pthread_mutex_t pool_lock;
    uint32_t pool_n;
    CUevent pool[SXC_EVENT_POOL];
} sxc_device_t;

struct sxc_platform_s {
    sxa_object base;
    uint32_t num_devices;
    sxc_device_t *devices;
};

typedef struct sxc_context_s {
    sxa_object base;
    uint32_t num_devices;
    sxc_device_t **devices;
} sxc_context_t;

typedef struct sxc_queue_s {
    sxa_object base;
    sxc_context_t *context;
    sxc_device_t *device;
    CUcontext cuctx;
    CUstream stream;
    int profiling;
} sxc_queue_t;

typedef struct sxc_event_s {
    sxa_object base;
    const sxc_queue_t *queue; /* compared, never followed: the queue may go first */
    sxc_device_t *device;
    CUevent ev;        /* completion */
    CUevent start;     /* profiling only: recorded before the command */
    uint64_t queued_ns; /* profiling only: host time at enqueue */
} sxc_event_t;

/* A cached device-global lookup (cuModuleGetGlobal answer). */
typedef struct sxc_global {
    char *name;
    CUdeviceptr ptr;
    size_t size;
} sxc_global;

typedef enum { SXC_PROG_SOURCE, SXC_PROG_OBJECT, SXC_PROG_EXECUTABLE } sxc_prog_state;

/* A kernel of a program's bytes (params.c): its name's offset and length;
 * in a cubin also its .nv.info records' offset and size. */
typedef struct sxc_image_entry {
    size_t name, len, off, size;
} sxc_image_entry;

typedef struct sxc_program_s {
    sxa_object base;
    sxc_context_t *context;
    sxc_device_t *device;
    sx_image_kind kind;      /* of `image` */
    unsigned char *image;    /* input bytes (PTX NUL-terminated); the linked cubin once built */
    size_t image_size;
    sxc_prog_state state;
    CUmodule module;
    char *link_options_desc; /* link options from the descriptor, if any */
    char *build_options;     /* a PTX loaded whole: its options, for the cubin get_binary links */
    unsigned char *cubin;    /* that cubin, made on the first get_binary */
    size_t cubin_size;
    pthread_mutex_t lock;    /* guards globals, cubin and the kernel index */
    uint32_t num_globals, cap_globals;
    sxc_global *globals;
    /* The kernels of `image`, indexed on the first kernel creation
     * (params.c): 0 not yet, 1 done, -1 not indexable. */
    int indexed;
    uint32_t num_entries;
    sxc_image_entry *entries;
    size_t text_len;         /* PTX: its length without the NUL, once indexed */
    uint64_t serial;         /* unique in the process: tells a program from a later one at its address */
} sxc_program_t;

typedef struct sxc_kernel_s {
    sxa_object base;
    sxc_program_t *program;
    CUfunction fn;
    uint32_t num_params;       /* from the image or cuFuncGetParamInfo; UINT32_MAX when unknown */
    uint32_t *param_size;      /* per parameter, bytes the driver reads (NULL if unknown) */
    /* The attributes below are asked on first need (sxc_kernel_attrs):
     * before the first launch each query is dear. */
    _Atomic int attrs_known;
    int static_smem;
    int max_threads;
    /* Largest dynamic shared memory the function attribute allows now;
     * only ever raised, so concurrent launches never lower it under one
     * another. */
    _Atomic int dyn_smem_limit;
    pthread_mutex_t lock;      /* serialises raising dyn_smem_limit */
    char name[];
} sxc_kernel_t;

/* ---- globals of the adapter (adapter.c) ---- */
/* The one exported symbol (adapter.h names only its type). */
SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table);
extern const sxa_services *sxc_services;
extern sxc_driver sxc_cu;

/* ---- driver.c ---- */
/* Load libcuda.so.1 and resolve the table; on failure fill `status` and
 * return 0 (not an error for the adapter: it reports 0 platforms). */
int sxc_driver_load(char *status, size_t status_size);
void sxc_driver_unload(void);
/* "cuXxx: CUDA_ERROR_NAME (n)" through services->error; returns `code`. */
sx_result sxc_error(sx_result code, CUresult r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The sx_result that best describes a driver failure. */
sx_result sxc_map(CUresult r);
/* Make `ctx` current on this thread when it is not already. */
static inline CUresult sxc_make_current(CUcontext ctx)
{
    CUcontext cur;
    CUresult r = sxc_cu.cuCtxGetCurrent(&cur);
    if (r == CUDA_SUCCESS && cur == ctx)
        return CUDA_SUCCESS;
    return sxc_cu.cuCtxSetCurrent(ctx);
}
/* The device's primary context, retained on first call. */
sx_result sxc_device_context(sxc_device_t *device, CUcontext *out);
uint64_t sxc_now_ns(void);
/* Release what a device holds (pooled events, time base); at fini. */
void sxc_device_cleanup(sxc_device_t *device);

/* ---- tables, filled in each file ---- */
extern const sxa_platform_table sxc_platform_table;
extern const sxa_device_table sxc_device_table;
extern const sxa_context_table sxc_context_table;
extern const sxa_queue_table sxc_queue_table;
extern const sxa_usm_table sxc_usm_table;
extern const sxa_event_table sxc_event_table;
extern const sxa_program_table sxc_program_table;
extern const sxa_kernel_table sxc_kernel_table;
extern const sxa_enqueue_table sxc_enqueue_table;

/* ---- shared between files ---- */
/* Wait list onto a stream; a create of a command's event. */
sx_result sxc_wait_list(sxc_queue_t *q, uint32_t n, const sxa_event *list);
/* Before a command: an event whose `start` is recorded when profiling. */
sx_result sxc_event_begin(sxc_queue_t *q, sxa_event *out, sxc_event_t **ev);
/* After a command: record its completion; publishes *out. */
sx_result sxc_event_end(sxc_queue_t *q, sxc_event_t *ev, sxa_event *out);
void sxc_event_discard(sxc_event_t *ev);
/* Make sure the kernel's attributes (max_threads, static_smem,
 * dyn_smem_limit) are known; asks the driver once. */
void sxc_kernel_attrs(sxc_kernel_t *k);
/* params.c: the parameter sizes of kernel `name` from the built program's
 * bytes: 1 with *sizes (malloc'ed; NULL when none) and *count, 0 when the
 * bytes do not say (ask the driver), -1 out of memory. */
int sxc_params_from_image(sxc_program_t *p, const char *name, uint32_t **sizes, uint32_t *count);
/* Look up a program variable (cached). */
sx_result sxc_program_global(sxc_program_t *p, const char *name, CUdeviceptr *ptr, size_t *size);

#define SXC_DISPATCH() (sxc_services->dispatch)

#endif /* SXC_H */
