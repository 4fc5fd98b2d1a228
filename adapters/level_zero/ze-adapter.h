/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-adapter.h: internals shared by the files of the Level Zero adapter. */
#ifndef SX_ZE_ADAPTER_H
#define SX_ZE_ADAPTER_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <level_zero/ze_api.h>
#include <stdatomic.h>
#include <sycl-ext/adapter.h>

/* The ze* entry points the adapter calls, resolved from libze_loader.so.1
 * with dlsym so the adapter builds and loads without Level Zero. */
#define SXZ_REQUIRED_FUNCS(X)                                                       \
    X(zeInit) X(zeDriverGet) X(zeDriverGetApiVersion) X(zeDriverGetProperties)      \
    X(zeDeviceGet) X(zeDeviceGetProperties) X(zeDeviceGetComputeProperties)         \
    X(zeDeviceGetModuleProperties) X(zeDeviceGetMemoryProperties)                   \
    X(zeDeviceGetMemoryAccessProperties) X(zeDeviceGetCommandQueueGroupProperties)  \
    X(zeContextCreate) X(zeContextDestroy)                                          \
    X(zeCommandListCreateImmediate) X(zeCommandListDestroy)                         \
    X(zeCommandListAppendBarrier) X(zeCommandListAppendMemoryCopy)                  \
    X(zeCommandListAppendMemoryFill) X(zeCommandListAppendLaunchKernel)             \
    X(zeEventPoolCreate) X(zeEventPoolDestroy) X(zeEventCreate) X(zeEventDestroy)   \
    X(zeEventHostSynchronize) X(zeEventQueryStatus) X(zeEventQueryKernelTimestamp)  \
    X(zeMemAllocDevice) X(zeMemAllocHost) X(zeMemAllocShared) X(zeMemFree)          \
    X(zeModuleCreate) X(zeModuleDestroy) X(zeModuleDynamicLink)                     \
    X(zeModuleGetNativeBinary) X(zeModuleGetGlobalPointer) X(zeModuleGetProperties) \
    X(zeModuleBuildLogGetString) X(zeModuleBuildLogDestroy)                         \
    X(zeKernelCreate) X(zeKernelDestroy) X(zeKernelSetArgumentValue)                \
    X(zeKernelSetGroupSize) X(zeKernelSuggestGroupSize) X(zeKernelGetProperties)     \
    X(zeKernelSetIndirectAccess)
/* Optional: a NULL one makes only the feature using it unsupported. */
#define SXZ_OPTIONAL_FUNCS(X) X(zeKernelSetGlobalOffsetExp)

typedef struct sxz_api {
#define SXZ_FIELD(fn) __typeof__(fn) *fn;
    SXZ_REQUIRED_FUNCS(SXZ_FIELD)
    SXZ_OPTIONAL_FUNCS(SXZ_FIELD)
#undef SXZ_FIELD
} sxz_api;

/* Set by adapter init, cleared by fini; one adapter instance per process. */
extern sxz_api sxz_ze;
extern const sxa_services *sxz_services;

struct sxa_adapter_s {
    sxa_object base;
    void *lib;                 /* libze_loader.so.1, or NULL */
    char status[256];
    uint32_t num_platforms;
    struct sxa_platform_s *platforms;
};

struct sxa_platform_s {
    sxa_object base;
    ze_driver_handle_t driver;
    uint32_t index;
    char name[64];
    char version[64];
    char driver_version[32];
    uint32_t num_devices;
    struct sxa_device_s *devices;
};

struct sxa_device_s {
    sxa_object base;
    struct sxa_platform_s *platform;
    ze_device_handle_t dev;
    ze_device_properties_t props;
    ze_device_compute_properties_t compute;
    ze_device_module_properties_t module;
    uint64_t global_mem;
    sx_aspect_set aspects;
    uint32_t compute_ordinal;  /* command queue group used for queues */
};

/* A block of events of one flavour (plain or with kernel timestamps);
 * slots are handed out under the context's lock. */
#define SXZ_POOL_EVENTS 128
typedef struct sxz_pool {
    ze_event_pool_handle_t pool;
    int timestamps;
    uint32_t used_count;
    uint8_t used[SXZ_POOL_EVENTS];
    struct sxz_pool *next;
} sxz_pool;

struct sxa_context_s {
    sxa_object base;
    ze_context_handle_t ctx;
    struct sxa_platform_s *platform;
    uint32_t num_devices;
    struct sxa_device_s **devices;
    pthread_mutex_t lock;      /* the pools */
    sxz_pool *pools;
    /* USM kinds allocated so far (1 << SX_USM_TYPE_*): what a kernel that
     * reaches USM indirectly declares (zeKernelSetIndirectAccess). */
    _Atomic uint32_t usm_kinds;
};

struct sxa_queue_s {
    sxa_object base;
    struct sxa_context_s *context;
    struct sxa_device_s *device;
    ze_command_list_handle_t list;
    uint32_t flags;
    pthread_mutex_t lock;      /* Level Zero command lists are not thread-safe */
    int pending;               /* in-order: a command was appended since the last barrier */
};

struct sxa_event_s {
    sxa_object base;
    struct sxa_context_s *context;
    struct sxa_device_s *device;
    ze_event_handle_t ev;
    sxz_pool *pool;
    uint32_t slot;
};

enum { SXZ_PROGRAM_CREATED, SXZ_PROGRAM_COMPILED, SXZ_PROGRAM_EXECUTABLE };

struct sxa_program_s {
    sxa_object base;
    struct sxa_context_s *context;
    struct sxa_device_s *device;
    sx_image_kind kind;
    unsigned char *data;       /* the image bytes (a linked program: NULL) */
    size_t size;
    char *compile_options;     /* options given to compile(), reused by link() */
    int state;
    uint32_t num_modules;      /* 1, or one per input of a link */
    ze_module_handle_t *modules;
    /* Indirect USM access (issue 29): SXA_PROGRAM_INDIRECT_USM, and the
     * kernels whose signatures show they need none (others declare it). */
    uint32_t usm_flags;
    char **direct_only;
    uint32_t num_direct_only;
};

struct sxa_kernel_s {
    sxa_object base;
    struct sxa_program_s *program;
    ze_kernel_handle_t kernel;
    char *name;
    uint32_t num_args;
    uint32_t local_mem;
    /* ze_kernel_handle_t keeps argument and group-size state, so a launch
     * holds this lock from the first zeKernelSetArgumentValue to the
     * append (which captures the state). Concurrent launches of one kernel
     * are therefore safe and serialised only for that short window. */
    pthread_mutex_t lock;
    uint32_t group[3];         /* last group size given to the driver */
    int offset_set;            /* a non-zero global offset was set */
    int indirect;              /* may reach USM no argument names */
    uint32_t indirect_kinds;   /* USM kinds declared so far (under the lock) */
};

/* ze-api.c */
const char *sxz_result_name(ze_result_t rc);
sx_result sxz_map_result(ze_result_t rc);
/* services->error with "<fn>: <ZE_RESULT name> (0x..)<detail>"; returns the mapped code. */
sx_result sxz_fail(const char *fn, ze_result_t rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
sx_result sxz_error(sx_result code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
sx_result sxz_load(struct sxa_adapter_s *adapter);
void sxz_unload(struct sxa_adapter_s *adapter);

/* ze-platform.c */
sx_result sxz_discover(struct sxa_adapter_s *adapter);
extern const sxa_adapter_table sxz_adapter_table;
extern const sxa_platform_table sxz_platform_table;
extern const sxa_device_table sxz_device_table;

/* ze-context.c */
sx_result sxz_event_new(struct sxa_context_s *ctx, struct sxa_device_s *dev, int timestamps,
                        struct sxa_event_s **out);
void sxz_event_free(struct sxa_event_s *ev);
extern const sxa_context_table sxz_context_table;
extern const sxa_queue_table sxz_queue_table;
extern const sxa_usm_table sxz_usm_table;
extern const sxa_event_table sxz_event_table;

/* ze-program.c */
extern const sxa_program_table sxz_program_table;
extern const sxa_kernel_table sxz_kernel_table;
sx_result sxz_program_global(struct sxa_program_s *prog, const char *name, size_t *size,
                             void **ptr);

/* ze-enqueue.c */
extern const sxa_enqueue_table sxz_enqueue_table;

#endif /* SX_ZE_ADAPTER_H */
