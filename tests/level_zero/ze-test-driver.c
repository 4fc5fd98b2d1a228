/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-test-driver.c: a Level Zero TEST DRIVER (no GPU) that the real loader loads through ZE_ENABLE_ALT_DRIVERS.
 *
 * This is a TEST DRIVER, not a device: it proves that the adapter calls
 * Level Zero correctly through the real loader (libze_loader.so.1) and
 * handles its errors. It keeps just enough state on the host:
 *   - one driver with one GPU-typed device;
 *   - contexts; memory from malloc for zeMemAlloc{Host,Device,Shared};
 *   - immediate command lists that execute every append at once
 *     (regular lists and command queues are not implemented);
 *   - event pools and events (signalled when their command ran);
 *   - modules parsed from real SPIR-V (OpEntryPoint names and parameter
 *     sizes, exported OpVariables with size and initialiser, Import/Export
 *     linkage; ze-test-spirv.c) or from the TEST DRIVER's "native binary",
 *     which is the 8 bytes "ZETDNAT1" followed by the SPIR-V module (what
 *     zeModuleGetNativeBinary returns);
 *   - zeModuleDynamicLink resolving imports against the other modules'
 *     exports, with a link log naming what is unresolved;
 *   - kernels whose launch is recorded; a few test kernels (the ze-*.cl
 *     sources in tests/kernels) have a host implementation here so the
 *     results of a launch can be checked: ze_vadd, ze_args, ze_global_get,
 *     ze_global_inc, ze_use_helper.
 *
 * Environment:
 *   ZE_TEST_DRIVER_LOG=file   append one line per call ("zeModuleCreate IL 2472 bytes ...")
 *   ZE_TEST_DRIVER_FAIL=list  comma-separated `zeName` or `zeName=0xCODE`: that entry
 *                             fails with the code (default per entry: zeModuleCreate
 *                             MODULE_BUILD_FAILURE with a build log, zeMem* OUT_OF_DEVICE_MEMORY,
 *                             others ERROR_UNKNOWN). Read at every call.
 *   ZE_TEST_DRIVER_MODULE_FLAGS=hex  the device's ze_device_module_flags_t (default FP16|FP64|INT64_ATOMICS)
 *
 * The 1.8 loader wants every proc-address-table getter (23 zeGet*, 13
 * zetGet*, 17 zesGet*) exported; tables not implemented here are returned
 * successfully with their entries left NULL. */
#include "ze-test-driver.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <level_zero/ze_api.h>
#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#define EXPORT __attribute__((visibility("default")))
#define NATIVE_MAGIC "ZETDNAT1"

enum { MAGIC_DRIVER = 0x5a445256, MAGIC_DEVICE, MAGIC_CONTEXT, MAGIC_LIST, MAGIC_POOL,
       MAGIC_EVENT, MAGIC_MODULE, MAGIC_KERNEL, MAGIC_LOG, MAGIC_DEAD = 0xdeaddead };

typedef struct ztd_driver { uint32_t magic; } ztd_driver;
typedef struct ztd_device { uint32_t magic; } ztd_device;
typedef struct ztd_context { uint32_t magic; } ztd_context;
typedef struct ztd_list { uint32_t magic; } ztd_list;

typedef struct ztd_pool {
    uint32_t magic;
    uint32_t count;
    uint32_t flags;
    uint32_t live;
} ztd_pool;

typedef struct ztd_event {
    uint32_t magic;
    ztd_pool *pool;
    uint32_t index;
    int signalled;
    uint64_t start, end;
} ztd_event;

typedef struct ztd_module {
    uint32_t magic;
    ztd_module_info info;
    unsigned char **storage;      /* per exported global */
    void **import_ptrs;           /* resolved address of each import (globals), or 1 */
    int linked;
    unsigned char *spirv;
    size_t spirv_size;
    uint32_t live_kernels;
} ztd_module;

typedef struct ztd_kernel {
    uint32_t magic;
    ztd_module *module;
    const ztd_kernel_info *info;
    unsigned char (*values)[16];  /* per param: value bytes */
    size_t *sizes;                /* per param: size passed */
    int *set;
    uint32_t group[3];
    uint32_t offset[3];
} ztd_kernel;

typedef struct ztd_log {
    uint32_t magic;
    char *text;
} ztd_log;

typedef struct alloc_rec {
    void *ptr;
    size_t size;
    ze_memory_type_t type;
    struct alloc_rec *next;
} alloc_rec;

static ztd_driver the_driver = {MAGIC_DRIVER};
static ztd_device the_device = {MAGIC_DEVICE};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static alloc_rec *allocs;

/* ---- call log and fault injection ---- */

static void tlog(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tlog(const char *fmt, ...)
{
    const char *path = getenv("ZE_TEST_DRIVER_LOG");
    if (!path || !*path)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof(line) - 2)
        n = (int)sizeof(line) - 2;
    line[n++] = '\n';
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    /* One write per line so lines from threads and forks never interleave. */
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    close(fd);
}

/* The injected result for entry `name`, or ZE_RESULT_SUCCESS. */
static ze_result_t injected(const char *name, ze_result_t dflt)
{
    const char *list = getenv("ZE_TEST_DRIVER_FAIL");
    size_t nl = strlen(name);
    if (!list)
        return ZE_RESULT_SUCCESS;
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len >= nl && strncmp(p, name, nl) == 0 && (len == nl || p[nl] == '=')) {
            ze_result_t rc = dflt;
            if (len > nl + 1)
                rc = (ze_result_t)strtoul(p + nl + 1, NULL, 0);
            tlog("%s injected failure 0x%x", name, (unsigned)rc);
            return rc;
        }
        p += len + (end ? 1 : 0);
    }
    return ZE_RESULT_SUCCESS;
}

#define INJECT(name, dflt)                                 \
    do {                                                   \
        ze_result_t inj_ = injected(name, dflt);           \
        if (inj_ != ZE_RESULT_SUCCESS)                     \
            return inj_;                                   \
    } while (0)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* ---- global, driver, device ---- */

static ze_result_t td_init(ze_init_flags_t flags)
{
    tlog("zeInit flags=0x%x", (unsigned)flags);
    INJECT("zeInit", ZE_RESULT_ERROR_UNINITIALIZED);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_driver_get(uint32_t *count, ze_driver_handle_t *drivers)
{
    tlog("zeDriverGet count=%u", count ? *count : 0);
    if (!count)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    INJECT("zeDriverGet", ZE_RESULT_ERROR_UNKNOWN);
    if (*count == 0 || !drivers) {
        *count = 1;
        return ZE_RESULT_SUCCESS;
    }
    drivers[0] = (ze_driver_handle_t)&the_driver;
    *count = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_driver_api_version(ze_driver_handle_t d, ze_api_version_t *v)
{
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    *v = ZE_API_VERSION_1_4;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_driver_props(ze_driver_handle_t d, ze_driver_properties_t *p)
{
    tlog("zeDriverGetProperties");
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    memset(&p->uuid, 0, sizeof(p->uuid));
    memcpy(p->uuid.id, "sx-ze-test-drv", 14);
    p->driverVersion = 0x01000002;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_driver_ext_props(ze_driver_handle_t d, uint32_t *count,
                                       ze_driver_extension_properties_t *p)
{
    *count = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_device_get(ze_driver_handle_t d, uint32_t *count,
                                 ze_device_handle_t *devices)
{
    tlog("zeDeviceGet count=%u", count ? *count : 0);
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!count)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (*count == 0 || !devices) {
        *count = 1;
        return ZE_RESULT_SUCCESS;
    }
    devices[0] = (ze_device_handle_t)&the_device;
    *count = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_device_subdevices(ze_device_handle_t d, uint32_t *count,
                                        ze_device_handle_t *sub)
{
    *count = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_device_props(ze_device_handle_t d, ze_device_properties_t *p)
{
    tlog("zeDeviceGetProperties");
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    INJECT("zeDeviceGetProperties", ZE_RESULT_ERROR_UNKNOWN);
    p->type = ZE_DEVICE_TYPE_GPU;
    p->vendorId = 0x8086;
    p->deviceId = 0x0ff0;
    p->flags = 0;
    p->subdeviceId = 0;
    p->coreClockRate = 1000;
    p->maxMemAllocSize = 1u << 30;
    p->maxHardwareContexts = 64;
    p->maxCommandQueuePriority = 0;
    p->numThreadsPerEU = 7;
    p->physicalEUSimdWidth = 8;
    p->numEUsPerSubslice = 8;
    p->numSubslicesPerSlice = 2;
    p->numSlices = 1;
    p->timerResolution = 1;
    p->timestampValidBits = 64;
    p->kernelTimestampValidBits = 64;
    memset(&p->uuid, 0, sizeof(p->uuid));
    snprintf(p->name, sizeof(p->name), "Level Zero TEST DRIVER device (no GPU)");
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_device_compute(ze_device_handle_t d, ze_device_compute_properties_t *p)
{
    tlog("zeDeviceGetComputeProperties");
    p->maxTotalGroupSize = 256;
    p->maxGroupSizeX = 256;
    p->maxGroupSizeY = 256;
    p->maxGroupSizeZ = 64;
    p->maxGroupCountX = p->maxGroupCountY = p->maxGroupCountZ = 65535;
    p->maxSharedLocalMemory = 65536;
    p->numSubGroupSizes = 2;
    p->subGroupSizes[0] = 8;
    p->subGroupSizes[1] = 16;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_device_module(ze_device_handle_t d, ze_device_module_properties_t *p)
{
    tlog("zeDeviceGetModuleProperties");
    const char *f = getenv("ZE_TEST_DRIVER_MODULE_FLAGS");
    p->spirvVersionSupported = ZE_MAKE_VERSION(1, 4);
    p->flags = f ? (ze_device_module_flags_t)strtoul(f, NULL, 16)
                 : ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64 |
                       ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS;
    p->fp16flags = p->flags & ZE_DEVICE_MODULE_FLAG_FP16 ? ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST : 0;
    p->fp32flags = ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST;
    p->fp64flags = p->flags & ZE_DEVICE_MODULE_FLAG_FP64 ? ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST : 0;
    p->maxArgumentsSize = 2048;
    p->printfBufferSize = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_device_memory(ze_device_handle_t d, uint32_t *count,
                                    ze_device_memory_properties_t *p)
{
    if (*count == 0 || !p) {
        *count = 1;
        return ZE_RESULT_SUCCESS;
    }
    *count = 1;
    p->flags = 0;
    p->maxClockRate = 1000;
    p->maxBusWidth = 64;
    p->totalSize = 1ull << 32;
    snprintf(p->name, sizeof(p->name), "host memory");
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_device_access(ze_device_handle_t d, ze_device_memory_access_properties_t *p)
{
    ze_memory_access_cap_flags_t rw = ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC;
    p->hostAllocCapabilities = rw;
    p->deviceAllocCapabilities = rw;
    p->sharedSingleDeviceAllocCapabilities = rw;
    p->sharedCrossDeviceAllocCapabilities = 0;
    p->sharedSystemAllocCapabilities = 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_device_groups(ze_device_handle_t d, uint32_t *count,
                                    ze_command_queue_group_properties_t *p)
{
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (*count == 0 || !p) {
        *count = 1;
        return ZE_RESULT_SUCCESS;
    }
    *count = 1;
    p->flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE | ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
    p->maxMemoryFillPatternSize = 128;
    p->numQueues = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_device_status(ze_device_handle_t d)
{
    return ZE_RESULT_SUCCESS;
}

/* ---- context ---- */

static ze_result_t td_context_create(ze_driver_handle_t d, const ze_context_desc_t *desc,
                                     ze_context_handle_t *out)
{
    tlog("zeContextCreate");
    if (!d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !out)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    INJECT("zeContextCreate", ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    ztd_context *c = calloc(1, sizeof(*c));
    if (!c)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    c->magic = MAGIC_CONTEXT;
    *out = (ze_context_handle_t)c;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_context_destroy(ze_context_handle_t h)
{
    ztd_context *c = (ztd_context *)h;
    tlog("zeContextDestroy");
    if (!c || c->magic != MAGIC_CONTEXT)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    c->magic = MAGIC_DEAD;
    free(c);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_context_status(ze_context_handle_t h)
{
    return ZE_RESULT_SUCCESS;
}

/* ---- memory ---- */

static ze_result_t do_alloc(const char *name, ze_memory_type_t type, size_t size,
                            size_t align, void **out)
{
    tlog("%s size=%zu align=%zu", name, size, align);
    if (!out)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (size == 0)
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    if (align & (align - 1))
        return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
    if (size > (1u << 30))
        return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
    INJECT(name, type == ZE_MEMORY_TYPE_HOST ? ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY
                                             : ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY);
    void *p = NULL;
    if (posix_memalign(&p, align < 64 ? 64 : align, size))
        return ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY;
    /* Fresh allocations hold a pattern, not zeroes, so tests notice reads of
     * memory nobody wrote. */
    memset(p, 0xa5, size);
    alloc_rec *r = malloc(sizeof(*r));
    if (!r) {
        free(p);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    r->ptr = p;
    r->size = size;
    r->type = type;
    pthread_mutex_lock(&lock);
    r->next = allocs;
    allocs = r;
    pthread_mutex_unlock(&lock);
    *out = p;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_alloc_device(ze_context_handle_t c, const ze_device_mem_alloc_desc_t *d,
                                   size_t size, size_t align, ze_device_handle_t dev, void **out)
{
    if (!c || !dev)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return do_alloc("zeMemAllocDevice", ZE_MEMORY_TYPE_DEVICE, size, align, out);
}

static ze_result_t td_alloc_host(ze_context_handle_t c, const ze_host_mem_alloc_desc_t *d,
                                 size_t size, size_t align, void **out)
{
    if (!c)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return do_alloc("zeMemAllocHost", ZE_MEMORY_TYPE_HOST, size, align, out);
}

static ze_result_t td_alloc_shared(ze_context_handle_t c, const ze_device_mem_alloc_desc_t *dd,
                                   const ze_host_mem_alloc_desc_t *hd, size_t size, size_t align,
                                   ze_device_handle_t dev, void **out)
{
    if (!c)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return do_alloc("zeMemAllocShared", ZE_MEMORY_TYPE_SHARED, size, align, out);
}

static ze_result_t td_mem_free(ze_context_handle_t c, void *ptr)
{
    tlog("zeMemFree %s", ptr ? "ptr" : "NULL");
    if (!c)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&lock);
    for (alloc_rec **pp = &allocs; *pp; pp = &(*pp)->next) {
        if ((*pp)->ptr == ptr) {
            alloc_rec *r = *pp;
            *pp = r->next;
            pthread_mutex_unlock(&lock);
            free(r->ptr);
            free(r);
            return ZE_RESULT_SUCCESS;
        }
    }
    pthread_mutex_unlock(&lock);
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

static ze_result_t td_mem_props(ze_context_handle_t c, const void *ptr,
                                ze_memory_allocation_properties_t *p, ze_device_handle_t *dev)
{
    p->type = ZE_MEMORY_TYPE_UNKNOWN;
    pthread_mutex_lock(&lock);
    for (alloc_rec *r = allocs; r; r = r->next)
        if ((const char *)ptr >= (char *)r->ptr && (const char *)ptr < (char *)r->ptr + r->size)
            p->type = r->type;
    pthread_mutex_unlock(&lock);
    p->id = 0;
    p->pageSize = 4096;
    if (dev)
        *dev = p->type == ZE_MEMORY_TYPE_UNKNOWN ? NULL : (ze_device_handle_t)&the_device;
    return ZE_RESULT_SUCCESS;
}

/* ---- events ---- */

static ze_result_t td_pool_create(ze_context_handle_t c, const ze_event_pool_desc_t *desc,
                                  uint32_t ndev, ze_device_handle_t *devs, ze_event_pool_handle_t *out)
{
    tlog("zeEventPoolCreate count=%u flags=0x%x", desc ? desc->count : 0,
         desc ? (unsigned)desc->flags : 0);
    if (!c)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !out)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->count == 0)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    INJECT("zeEventPoolCreate", ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    ztd_pool *p = calloc(1, sizeof(*p));
    if (!p)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    p->magic = MAGIC_POOL;
    p->count = desc->count;
    p->flags = desc->flags;
    *out = (ze_event_pool_handle_t)p;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_pool_destroy(ze_event_pool_handle_t h)
{
    ztd_pool *p = (ztd_pool *)h;
    tlog("zeEventPoolDestroy");
    if (!p || p->magic != MAGIC_POOL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (p->live)
        return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    p->magic = MAGIC_DEAD;
    free(p);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_event_create(ze_event_pool_handle_t h, const ze_event_desc_t *desc,
                                   ze_event_handle_t *out)
{
    ztd_pool *p = (ztd_pool *)h;
    if (!p || p->magic != MAGIC_POOL)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !out)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (desc->index >= p->count)
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    ztd_event *e = calloc(1, sizeof(*e));
    if (!e)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    e->magic = MAGIC_EVENT;
    e->pool = p;
    e->index = desc->index;
    pthread_mutex_lock(&lock);
    p->live++;
    pthread_mutex_unlock(&lock);
    *out = (ze_event_handle_t)e;
    return ZE_RESULT_SUCCESS;
}

static ztd_event *event_of(ze_event_handle_t h)
{
    ztd_event *e = (ztd_event *)h;
    return e && e->magic == MAGIC_EVENT ? e : NULL;
}

static ze_result_t td_event_destroy(ze_event_handle_t h)
{
    ztd_event *e = event_of(h);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&lock);
    e->pool->live--;
    pthread_mutex_unlock(&lock);
    e->magic = MAGIC_DEAD;
    free(e);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_event_signal(ze_event_handle_t h)
{
    ztd_event *e = event_of(h);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    __atomic_store_n(&e->signalled, 1, __ATOMIC_RELEASE);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_event_query(ze_event_handle_t h)
{
    ztd_event *e = event_of(h);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    return __atomic_load_n(&e->signalled, __ATOMIC_ACQUIRE) ? ZE_RESULT_SUCCESS
                                                            : ZE_RESULT_NOT_READY;
}

static ze_result_t td_event_sync(ze_event_handle_t h, uint64_t timeout)
{
    ztd_event *e = event_of(h);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    INJECT("zeEventHostSynchronize", ZE_RESULT_ERROR_DEVICE_LOST);
    /* Commands run at append, so an unsignalled event is only ever signalled
     * by the host: poll for it, as a real driver would block. */
    uint64_t t0 = now_ns();
    while (!__atomic_load_n(&e->signalled, __ATOMIC_ACQUIRE)) {
        if (timeout != UINT64_MAX && now_ns() - t0 >= timeout)
            return ZE_RESULT_NOT_READY;
        usleep(100);
    }
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_event_reset(ze_event_handle_t h)
{
    ztd_event *e = event_of(h);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    __atomic_store_n(&e->signalled, 0, __ATOMIC_RELEASE);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_event_timestamp(ze_event_handle_t h, ze_kernel_timestamp_result_t *r)
{
    ztd_event *e = event_of(h);
    if (!e)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!(e->pool->flags & ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP))
        return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    if (!__atomic_load_n(&e->signalled, __ATOMIC_ACQUIRE))
        return ZE_RESULT_NOT_READY;
    r->global.kernelStart = r->context.kernelStart = e->start;
    r->global.kernelEnd = r->context.kernelEnd = e->end;
    return ZE_RESULT_SUCCESS;
}

/* ---- command lists: immediate only, every append runs at once ---- */

static ze_result_t td_list_create(ze_context_handle_t c, ze_device_handle_t d,
                                  const ze_command_list_desc_t *desc, ze_command_list_handle_t *out)
{
    tlog("zeCommandListCreate (regular lists are not implemented by the TEST DRIVER)");
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

static ze_result_t td_list_create_imm(ze_context_handle_t c, ze_device_handle_t d,
                                      const ze_command_queue_desc_t *desc,
                                      ze_command_list_handle_t *out)
{
    tlog("zeCommandListCreateImmediate flags=0x%x mode=%d", desc ? (unsigned)desc->flags : 0,
         desc ? (int)desc->mode : -1);
    if (!c || !d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !out)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    INJECT("zeCommandListCreateImmediate", ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    ztd_list *l = calloc(1, sizeof(*l));
    if (!l)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    l->magic = MAGIC_LIST;
    *out = (ze_command_list_handle_t)l;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_list_destroy(ze_command_list_handle_t h)
{
    ztd_list *l = (ztd_list *)h;
    tlog("zeCommandListDestroy");
    if (!l || l->magic != MAGIC_LIST)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    l->magic = MAGIC_DEAD;
    free(l);
    return ZE_RESULT_SUCCESS;
}

/* Common head of every append: check the list and the wait list. */
static ze_result_t begin_cmd(ze_command_list_handle_t h, uint32_t nwait, ze_event_handle_t *wait)
{
    ztd_list *l = (ztd_list *)h;
    if (!l || l->magic != MAGIC_LIST)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (nwait && !wait)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    for (uint32_t i = 0; i < nwait; i++) {
        ztd_event *e = event_of(wait[i]);
        if (!e)
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
        /* Nothing runs later here, so waiting on an unsignalled event would
         * deadlock a real queue: wait like the device would. */
        td_event_sync(wait[i], UINT64_MAX);
    }
    return ZE_RESULT_SUCCESS;
}

static void end_cmd(ze_event_handle_t signal, uint64_t start)
{
    ztd_event *e = event_of(signal);
    if (e) {
        e->start = start;
        e->end = now_ns();
        __atomic_store_n(&e->signalled, 1, __ATOMIC_RELEASE);
    }
}

static ze_result_t td_append_barrier(ze_command_list_handle_t h, ze_event_handle_t signal,
                                     uint32_t nwait, ze_event_handle_t *wait)
{
    tlog("zeCommandListAppendBarrier wait=%u signal=%s", nwait, signal ? "yes" : "no");
    ze_result_t rc = begin_cmd(h, nwait, wait);
    if (rc)
        return rc;
    end_cmd(signal, now_ns());
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_append_copy(ze_command_list_handle_t h, void *dst, const void *src,
                                  size_t size, ze_event_handle_t signal, uint32_t nwait,
                                  ze_event_handle_t *wait)
{
    tlog("zeCommandListAppendMemoryCopy size=%zu wait=%u signal=%s", size, nwait,
         signal ? "yes" : "no");
    ze_result_t rc = begin_cmd(h, nwait, wait);
    if (rc)
        return rc;
    if (!dst || !src)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    INJECT("zeCommandListAppendMemoryCopy", ZE_RESULT_ERROR_DEVICE_LOST);
    uint64_t t = now_ns();
    memmove(dst, src, size);
    end_cmd(signal, t);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_append_fill(ze_command_list_handle_t h, void *ptr, const void *pattern,
                                  size_t psize, size_t size, ze_event_handle_t signal,
                                  uint32_t nwait, ze_event_handle_t *wait)
{
    tlog("zeCommandListAppendMemoryFill pattern=%zu size=%zu wait=%u signal=%s", psize, size,
         nwait, signal ? "yes" : "no");
    ze_result_t rc = begin_cmd(h, nwait, wait);
    if (rc)
        return rc;
    if (!ptr || !pattern)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (psize == 0 || psize > 128 || (psize & (psize - 1)) || size % psize)
        return ZE_RESULT_ERROR_INVALID_SIZE;
    uint64_t t = now_ns();
    for (size_t off = 0; off < size; off += psize)
        memcpy((char *)ptr + off, pattern, psize);
    end_cmd(signal, t);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_append_signal(ze_command_list_handle_t h, ze_event_handle_t e)
{
    ze_result_t rc = begin_cmd(h, 0, NULL);
    if (rc)
        return rc;
    end_cmd(e, now_ns());
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_append_wait(ze_command_list_handle_t h, uint32_t n, ze_event_handle_t *w)
{
    return begin_cmd(h, n, w);
}

static ze_result_t td_append_reset(ze_command_list_handle_t h, ze_event_handle_t e)
{
    return td_event_reset(e);
}

/* ---- modules ---- */

static void module_free(ztd_module *m)
{
    if (m->storage)
        for (uint32_t i = 0; i < m->info.num_globals; i++)
            free(m->storage[i]);
    free(m->storage);
    free(m->import_ptrs);
    free(m->spirv);
    ztd_module_info_free(&m->info);
    m->magic = MAGIC_DEAD;
    free(m);
}

static ze_module_build_log_handle_t make_log(const char *text)
{
    ztd_log *l = calloc(1, sizeof(*l));
    if (!l)
        return NULL;
    l->magic = MAGIC_LOG;
    l->text = dupstr(text);
    if (!l->text) {
        free(l);
        return NULL;
    }
    return (ze_module_build_log_handle_t)l;
}

static ze_result_t td_module_create(ze_context_handle_t c, ze_device_handle_t d,
                                    const ze_module_desc_t *desc, ze_module_handle_t *out,
                                    ze_module_build_log_handle_t *log)
{
    if (log)
        *log = NULL;
    if (!c || !d)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !out || !desc->pInputModule)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    tlog("zeModuleCreate %s %zu bytes flags='%s'",
         desc->format == ZE_MODULE_FORMAT_IL_SPIRV ? "IL" : "NATIVE", desc->inputSize,
         desc->pBuildFlags ? desc->pBuildFlags : "");
    ze_result_t inj = injected("zeModuleCreate", ZE_RESULT_ERROR_MODULE_BUILD_FAILURE);
    if (inj != ZE_RESULT_SUCCESS) {
        if (log)
            *log = make_log("TEST DRIVER: injected failure of zeModuleCreate\n"
                            "error: line 1: this build log comes from ZE_TEST_DRIVER_FAIL");
        return inj;
    }
    const unsigned char *bytes = desc->pInputModule;
    size_t size = desc->inputSize;
    if (desc->format == ZE_MODULE_FORMAT_NATIVE) {
        if (size < 8 || memcmp(bytes, NATIVE_MAGIC, 8) != 0) {
            tlog("zeModuleCreate: not a TEST DRIVER native binary");
            return ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
        }
        bytes += 8;
        size -= 8;
    } else if (desc->format != ZE_MODULE_FORMAT_IL_SPIRV) {
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    }
    ztd_module *m = calloc(1, sizeof(*m));
    if (!m)
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    m->magic = MAGIC_MODULE;
    char err[256];
    if (ztd_spirv_parse(bytes, size, &m->info, err, sizeof(err))) {
        free(m);
        char text[400];
        snprintf(text, sizeof(text), "TEST DRIVER SPIR-V reader: %s", err);
        tlog("zeModuleCreate failed: %s", err);
        if (log)
            *log = make_log(text);
        return desc->format == ZE_MODULE_FORMAT_NATIVE ? ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
                                                       : ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    }
    m->storage = calloc(m->info.num_globals + 1, sizeof(*m->storage));
    m->import_ptrs = calloc(m->info.num_imports + 1, sizeof(*m->import_ptrs));
    m->spirv = malloc(size);
    if (!m->storage || !m->import_ptrs || !m->spirv) {
        module_free(m);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(m->spirv, bytes, size);
    m->spirv_size = size;
    for (uint32_t i = 0; i < m->info.num_globals; i++) {
        if (!(m->storage[i] = malloc(m->info.globals[i].size))) {
            module_free(m);
            return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
        }
        memcpy(m->storage[i], m->info.globals[i].init, m->info.globals[i].size);
    }
    m->linked = m->info.num_imports == 0;
    for (uint32_t i = 0; i < m->info.num_kernels; i++)
        tlog("zeModuleCreate: kernel %s (%u params)", m->info.kernels[i].name,
             m->info.kernels[i].num_params);
    for (uint32_t i = 0; i < m->info.num_globals; i++)
        tlog("zeModuleCreate: global %s (%zu bytes)", m->info.globals[i].name,
             m->info.globals[i].size);
    for (uint32_t i = 0; i < m->info.num_imports; i++)
        tlog("zeModuleCreate: import %s", m->info.imports[i]);
    if (log)
        *log = make_log("");
    *out = (ze_module_handle_t)m;
    return ZE_RESULT_SUCCESS;
}

static ztd_module *module_of(ze_module_handle_t h)
{
    ztd_module *m = (ztd_module *)h;
    return m && m->magic == MAGIC_MODULE ? m : NULL;
}

static ze_result_t td_module_destroy(ze_module_handle_t h)
{
    ztd_module *m = module_of(h);
    tlog("zeModuleDestroy");
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (m->live_kernels)
        return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
    module_free(m);
    return ZE_RESULT_SUCCESS;
}

static int find_global(ztd_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->info.num_globals; i++)
        if (strcmp(m->info.globals[i].name, name) == 0)
            return (int)i;
    return -1;
}

static int has_func_export(ztd_module *m, const char *name)
{
    for (uint32_t i = 0; i < m->info.num_func_exports; i++)
        if (strcmp(m->info.func_exports[i], name) == 0)
            return 1;
    return 0;
}

static ze_result_t td_module_link(uint32_t n, ze_module_handle_t *mods,
                                  ze_module_build_log_handle_t *log)
{
    tlog("zeModuleDynamicLink %u modules", n);
    if (log)
        *log = NULL;
    if (n == 0 || !mods)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < n; i++)
        if (!module_of(mods[i]))
            return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    INJECT("zeModuleDynamicLink", ZE_RESULT_ERROR_MODULE_LINK_FAILURE);
    char text[2048] = "";
    size_t used = 0;
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        ztd_module *m = module_of(mods[i]);
        if (m->linked)
            continue;  /* a module's imports are linked once */
        for (uint32_t k = 0; k < m->info.num_imports; k++) {
            const char *name = m->info.imports[k];
            int found = 0;
            void *addr = (void *)1;
            for (uint32_t j = 0; j < n; j++) {
                ztd_module *o = module_of(mods[j]);
                int g = find_global(o, name);
                if (g >= 0 || has_func_export(o, name)) {
                    found++;
                    if (g >= 0)
                        addr = o->storage[g];
                }
            }
            if (found == 1) {
                m->import_ptrs[k] = addr;
                continue;
            }
            bad = 1;
            int w = snprintf(text + used, sizeof(text) - used, "error: %s symbol '%s'\n",
                             found ? "ambiguous exported" : "unresolved imported", name);
            if (w > 0 && (size_t)w < sizeof(text) - used)
                used += (size_t)w;
        }
    }
    if (bad) {
        tlog("zeModuleDynamicLink failed: %s", text);
        if (log)
            *log = make_log(text);
        return ZE_RESULT_ERROR_MODULE_LINK_FAILURE;
    }
    for (uint32_t i = 0; i < n; i++)
        module_of(mods[i])->linked = 1;
    if (log)
        *log = make_log("");
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_module_native(ze_module_handle_t h, size_t *size, uint8_t *out)
{
    ztd_module *m = module_of(h);
    tlog("zeModuleGetNativeBinary");
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!size)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t need = m->spirv_size + 8;
    if (out) {
        if (*size < need)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(out, NATIVE_MAGIC, 8);
        memcpy(out + 8, m->spirv, m->spirv_size);
    }
    *size = need;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_module_global(ze_module_handle_t h, const char *name, size_t *size,
                                    void **ptr)
{
    ztd_module *m = module_of(h);
    tlog("zeModuleGetGlobalPointer %s", name ? name : "(null)");
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!name)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    INJECT("zeModuleGetGlobalPointer", ZE_RESULT_ERROR_UNKNOWN);
    /* The device_global design note's reading of pGlobalName: first a
     * variable whose HostAccessINTEL name matches, then one whose
     * LinkageAttributes name does, exported or (once linked) imported. */
    int g = -1;
    for (uint32_t i = 0; i < m->info.num_globals && g < 0; i++)
        if (m->info.globals[i].host_name && strcmp(m->info.globals[i].host_name, name) == 0)
            g = (int)i;
    if (g < 0)
        g = find_global(m, name);
    if (g >= 0) {
        if (size)
            *size = m->info.globals[g].size;
        if (ptr)
            *ptr = m->storage[g];
        return ZE_RESULT_SUCCESS;
    }
    for (uint32_t v = 0; v < m->info.num_import_vars; v++) {
        const ztd_global_info *iv = &m->info.import_vars[v];
        if (strcmp(iv->name, name) != 0 && !(iv->host_name && strcmp(iv->host_name, name) == 0))
            continue;
        if (!m->linked)
            return ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED;
        for (uint32_t k = 0; k < m->info.num_imports; k++)
            if (strcmp(m->info.imports[k], iv->name) == 0) {
                if (size)
                    *size = iv->size;
                if (ptr)
                    *ptr = m->import_ptrs[k];
                return ZE_RESULT_SUCCESS;
            }
    }
    return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
}

static ze_result_t td_module_names(ze_module_handle_t h, uint32_t *count, const char **names)
{
    ztd_module *m = module_of(h);
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (*count == 0 || !names) {
        *count = m->info.num_kernels;
        return ZE_RESULT_SUCCESS;
    }
    uint32_t n = *count < m->info.num_kernels ? *count : m->info.num_kernels;
    for (uint32_t i = 0; i < n; i++)
        names[i] = m->info.kernels[i].name;
    *count = n;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_module_props(ze_module_handle_t h, ze_module_properties_t *p)
{
    ztd_module *m = module_of(h);
    tlog("zeModuleGetProperties");
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    p->flags = m->info.num_imports ? ZE_MODULE_PROPERTY_FLAG_IMPORTS : 0;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_log_destroy(ze_module_build_log_handle_t h)
{
    ztd_log *l = (ztd_log *)h;
    if (!l || l->magic != MAGIC_LOG)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    l->magic = MAGIC_DEAD;
    free(l->text);
    free(l);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_log_string(ze_module_build_log_handle_t h, size_t *size, char *out)
{
    ztd_log *l = (ztd_log *)h;
    if (!l || l->magic != MAGIC_LOG)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!size)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    size_t need = strlen(l->text) + 1;
    if (out) {
        if (*size < need)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(out, l->text, need);
    }
    *size = need;
    return ZE_RESULT_SUCCESS;
}

/* ---- kernels ---- */

static ztd_kernel *kernel_of(ze_kernel_handle_t h)
{
    ztd_kernel *k = (ztd_kernel *)h;
    return k && k->magic == MAGIC_KERNEL ? k : NULL;
}

static ze_result_t td_kernel_create(ze_module_handle_t h, const ze_kernel_desc_t *desc,
                                    ze_kernel_handle_t *out)
{
    ztd_module *m = module_of(h);
    tlog("zeKernelCreate %s", desc && desc->pKernelName ? desc->pKernelName : "(null)");
    if (!m)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!desc || !desc->pKernelName || !out)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    INJECT("zeKernelCreate", ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY);
    const ztd_kernel_info *ki = NULL;
    for (uint32_t i = 0; i < m->info.num_kernels; i++)
        if (strcmp(m->info.kernels[i].name, desc->pKernelName) == 0)
            ki = &m->info.kernels[i];
    if (!ki)
        return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    if (!m->linked)
        return ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED;
    ztd_kernel *k = calloc(1, sizeof(*k));
    uint32_t np = ki->num_params ? ki->num_params : 1;
    if (k) {
        k->values = calloc(np, sizeof(*k->values));
        k->sizes = calloc(np, sizeof(*k->sizes));
        k->set = calloc(np, sizeof(*k->set));
    }
    if (!k || !k->values || !k->sizes || !k->set) {
        if (k) {
            free(k->values);
            free(k->sizes);
            free(k->set);
        }
        free(k);
        return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
    }
    k->magic = MAGIC_KERNEL;
    k->module = m;
    k->info = ki;
    pthread_mutex_lock(&lock);
    m->live_kernels++;
    pthread_mutex_unlock(&lock);
    *out = (ze_kernel_handle_t)k;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_kernel_destroy(ze_kernel_handle_t h)
{
    ztd_kernel *k = kernel_of(h);
    tlog("zeKernelDestroy");
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    pthread_mutex_lock(&lock);
    k->module->live_kernels--;
    pthread_mutex_unlock(&lock);
    k->magic = MAGIC_DEAD;
    free(k->values);
    free(k->sizes);
    free(k->set);
    free(k);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_kernel_group(ze_kernel_handle_t h, uint32_t x, uint32_t y, uint32_t z)
{
    ztd_kernel *k = kernel_of(h);
    tlog("zeKernelSetGroupSize %u %u %u", x, y, z);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!x || !y || !z || (uint64_t)x * y * z > 256)
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    k->group[0] = x;
    k->group[1] = y;
    k->group[2] = z;
    return ZE_RESULT_SUCCESS;
}

static uint32_t suggest(uint32_t g, uint32_t max)
{
    uint32_t s = 1;
    while (s * 2 <= max && g % (s * 2) == 0)
        s *= 2;
    return s;
}

static ze_result_t td_kernel_suggest(ze_kernel_handle_t h, uint32_t gx, uint32_t gy, uint32_t gz,
                                     uint32_t *x, uint32_t *y, uint32_t *z)
{
    tlog("zeKernelSuggestGroupSize %u %u %u", gx, gy, gz);
    if (!kernel_of(h))
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    *x = suggest(gx, 64);
    *y = suggest(gy, 256 / *x < 4 ? 256 / *x : 4);
    *z = suggest(gz, 256 / (*x * *y) < 4 ? 256 / (*x * *y) : 4);
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_kernel_arg(ze_kernel_handle_t h, uint32_t index, size_t size,
                                 const void *value)
{
    ztd_kernel *k = kernel_of(h);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (index >= k->info->num_params) {
        tlog("zeKernelSetArgumentValue %s %u: index past %u params", k->info->name, index,
             k->info->num_params);
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
    }
    const ztd_param *p = &k->info->params[index];
    if (p->local) {
        tlog("zeKernelSetArgumentValue %s %u local size=%zu value=%s", k->info->name, index,
             size, value ? "ptr" : "NULL");
        if (value || size == 0)
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    } else {
        tlog("zeKernelSetArgumentValue %s %u size=%zu", k->info->name, index, size);
        if (size != p->size || size > sizeof(k->values[0]))
            return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
        if (value)
            memcpy(k->values[index], value, size);
        else
            memset(k->values[index], 0, sizeof(k->values[0]));
    }
    k->sizes[index] = size;
    k->set[index] = 1;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_kernel_props(ze_kernel_handle_t h, ze_kernel_properties_t *p)
{
    ztd_kernel *k = kernel_of(h);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    p->numKernelArgs = k->info->num_params;
    p->requiredGroupSizeX = p->requiredGroupSizeY = p->requiredGroupSizeZ = 0;
    p->requiredNumSubGroups = 0;
    p->requiredSubgroupSize = 0;
    p->maxSubgroupSize = 16;
    p->maxNumSubgroups = 16;
    p->localMemSize = 0;
    p->privateMemSize = 0;
    p->spillMemSize = 0;
    memset(&p->uuid, 0, sizeof(p->uuid));
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_kernel_name(ze_kernel_handle_t h, size_t *size, char *name)
{
    ztd_kernel *k = kernel_of(h);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    size_t need = strlen(k->info->name) + 1;
    if (name) {
        if (*size < need)
            return ZE_RESULT_ERROR_INVALID_SIZE;
        memcpy(name, k->info->name, need);
    }
    *size = need;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_kernel_offset(ze_kernel_handle_t h, uint32_t x, uint32_t y, uint32_t z)
{
    ztd_kernel *k = kernel_of(h);
    tlog("zeKernelSetGlobalOffsetExp %u %u %u", x, y, z);
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    k->offset[0] = x;
    k->offset[1] = y;
    k->offset[2] = z;
    return ZE_RESULT_SUCCESS;
}

static ze_result_t td_kernel_indirect(ze_kernel_handle_t h, ze_kernel_indirect_access_flags_t f)
{
    ztd_kernel *k = kernel_of(h);
    tlog("zeKernelSetIndirectAccess %s flags=0x%x", k ? k->info->name : "?", (unsigned)f);
    if (f & ~(ze_kernel_indirect_access_flags_t)7)
        return ZE_RESULT_ERROR_INVALID_ENUMERATION;
    return k ? ZE_RESULT_SUCCESS : ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
}

/* Pointer argument i of a launch. */
static void *ptr_arg(ztd_kernel *k, uint32_t i)
{
    void *p;
    memcpy(&p, k->values[i], sizeof(p));
    return p;
}

/* Host implementations of the test kernels (tests/kernels/ze-*.cl), over
 * the linear global range [offset, offset + n). */
static void run_host_kernel(ztd_kernel *k, size_t off, size_t n)
{
    const char *name = k->info->name;
    ztd_module *m = k->module;
    if (strcmp(name, "ze_vadd") == 0) {
        const int *a = ptr_arg(k, 0), *b = ptr_arg(k, 1);
        int *c = ptr_arg(k, 2);
        for (size_t i = off; i < off + n; i++)
            c[i] = a[i] + b[i];
    } else if (strcmp(name, "ze_args") == 0) {
        int *out = ptr_arg(k, 0);
        int scale;
        memcpy(&scale, k->values[1], sizeof(scale));
        /* The local buffer must hold one int per work-item of a group. */
        size_t group = (size_t)k->group[0] * k->group[1] * k->group[2];
        int ok = k->sizes[2] >= group * sizeof(int);
        for (size_t i = off; i < off + n; i++)
            out[i] = ok ? (int)i * scale : -1;
    } else if (strcmp(name, "ze_global_get") == 0) {
        int *out = ptr_arg(k, 0);
        int g = find_global(m, "ze_dg");
        const int *dg = g >= 0 ? (const int *)m->storage[g] : NULL;
        for (size_t i = off; i < off + n && dg; i++)
            out[i] = dg[i % 4];
    } else if (strcmp(name, "ze_global_inc") == 0) {
        int g = find_global(m, "ze_dg");
        int *dg = g >= 0 ? (int *)m->storage[g] : NULL;
        for (size_t i = off; i < off + n && dg; i++)
            dg[i % 4] += 1;
    } else if (strcmp(name, "ze_use_helper") == 0) {
        int *out = ptr_arg(k, 0);
        const int *base = NULL;
        for (uint32_t j = 0; j < m->info.num_imports; j++)
            if (strcmp(m->info.imports[j], "ze_linked_base") == 0)
                base = m->import_ptrs[j];
        /* ze_helper(x) = 2x and ze_linked_base, both from ze-link-b.cl */
        for (size_t i = off; i < off + n; i++)
            out[i] = (int)i * 2 + (base ? *base : 0);
    }
}

static ze_result_t td_append_launch(ze_command_list_handle_t h, ze_kernel_handle_t kh,
                                    const ze_group_count_t *groups, ze_event_handle_t signal,
                                    uint32_t nwait, ze_event_handle_t *wait)
{
    ztd_kernel *k = kernel_of(kh);
    ze_result_t rc = begin_cmd(h, nwait, wait);
    if (rc)
        return rc;
    if (!k)
        return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    if (!groups)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    tlog("zeCommandListAppendLaunchKernel %s groups=%u,%u,%u group=%u,%u,%u wait=%u signal=%s",
         k->info->name, groups->groupCountX, groups->groupCountY, groups->groupCountZ,
         k->group[0], k->group[1], k->group[2], nwait, signal ? "yes" : "no");
    INJECT("zeCommandListAppendLaunchKernel", ZE_RESULT_ERROR_DEVICE_LOST);
    for (uint32_t i = 0; i < k->info->num_params; i++)
        if (!k->set[i]) {
            tlog("zeCommandListAppendLaunchKernel %s: argument %u not set", k->info->name, i);
            return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        }
    if (!k->group[0])
        return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
    uint64_t t = now_ns();
    size_t n = (size_t)groups->groupCountX * groups->groupCountY * groups->groupCountZ *
               k->group[0] * k->group[1] * k->group[2];
    run_host_kernel(k, k->offset[0], n);
    end_cmd(signal, t);
    return ZE_RESULT_SUCCESS;
}

/* ---- proc-address tables ---- */

static ze_result_t check_version(ze_api_version_t v, const void *table)
{
    if (!table)
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    if (ZE_MAJOR_VERSION(v) != 1)
        return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
    return ZE_RESULT_SUCCESS;
}

#define GETTER(name, type, body)                                            \
    EXPORT ze_result_t ZE_APICALL name(ze_api_version_t v, type *t);        \
    EXPORT ze_result_t ZE_APICALL name(ze_api_version_t v, type *t)         \
    {                                                                       \
        ze_result_t rc_ = check_version(v, t);                              \
        if (rc_)                                                            \
            return rc_;                                                     \
        body;                                                               \
        return ZE_RESULT_SUCCESS;                                           \
    }

GETTER(zeGetGlobalProcAddrTable, ze_global_dditable_t, { t->pfnInit = td_init; })
GETTER(zeGetDriverProcAddrTable, ze_driver_dditable_t, {
    t->pfnGet = td_driver_get;
    t->pfnGetApiVersion = td_driver_api_version;
    t->pfnGetProperties = td_driver_props;
    t->pfnGetExtensionProperties = td_driver_ext_props;
})
GETTER(zeGetDeviceProcAddrTable, ze_device_dditable_t, {
    t->pfnGet = td_device_get;
    t->pfnGetSubDevices = td_device_subdevices;
    t->pfnGetProperties = td_device_props;
    t->pfnGetComputeProperties = td_device_compute;
    t->pfnGetModuleProperties = td_device_module;
    t->pfnGetMemoryProperties = td_device_memory;
    t->pfnGetMemoryAccessProperties = td_device_access;
    t->pfnGetCommandQueueGroupProperties = td_device_groups;
    t->pfnGetStatus = td_device_status;
})
GETTER(zeGetContextProcAddrTable, ze_context_dditable_t, {
    t->pfnCreate = td_context_create;
    t->pfnDestroy = td_context_destroy;
    t->pfnGetStatus = td_context_status;
})
GETTER(zeGetCommandQueueProcAddrTable, ze_command_queue_dditable_t, {})
GETTER(zeGetCommandListProcAddrTable, ze_command_list_dditable_t, {
    t->pfnCreate = td_list_create;
    t->pfnCreateImmediate = td_list_create_imm;
    t->pfnDestroy = td_list_destroy;
    t->pfnAppendBarrier = td_append_barrier;
    t->pfnAppendMemoryCopy = td_append_copy;
    t->pfnAppendMemoryFill = td_append_fill;
    t->pfnAppendSignalEvent = td_append_signal;
    t->pfnAppendWaitOnEvents = td_append_wait;
    t->pfnAppendEventReset = td_append_reset;
    t->pfnAppendLaunchKernel = td_append_launch;
})
GETTER(zeGetEventPoolProcAddrTable, ze_event_pool_dditable_t, {
    t->pfnCreate = td_pool_create;
    t->pfnDestroy = td_pool_destroy;
})
GETTER(zeGetEventProcAddrTable, ze_event_dditable_t, {
    t->pfnCreate = td_event_create;
    t->pfnDestroy = td_event_destroy;
    t->pfnHostSignal = td_event_signal;
    t->pfnHostSynchronize = td_event_sync;
    t->pfnQueryStatus = td_event_query;
    t->pfnHostReset = td_event_reset;
    t->pfnQueryKernelTimestamp = td_event_timestamp;
})
GETTER(zeGetMemProcAddrTable, ze_mem_dditable_t, {
    t->pfnAllocShared = td_alloc_shared;
    t->pfnAllocDevice = td_alloc_device;
    t->pfnAllocHost = td_alloc_host;
    t->pfnFree = td_mem_free;
    t->pfnGetAllocProperties = td_mem_props;
})
GETTER(zeGetModuleProcAddrTable, ze_module_dditable_t, {
    t->pfnCreate = td_module_create;
    t->pfnDestroy = td_module_destroy;
    t->pfnDynamicLink = td_module_link;
    t->pfnGetNativeBinary = td_module_native;
    t->pfnGetGlobalPointer = td_module_global;
    t->pfnGetKernelNames = td_module_names;
    t->pfnGetProperties = td_module_props;
})
GETTER(zeGetModuleBuildLogProcAddrTable, ze_module_build_log_dditable_t, {
    t->pfnDestroy = td_log_destroy;
    t->pfnGetString = td_log_string;
})
GETTER(zeGetKernelProcAddrTable, ze_kernel_dditable_t, {
    t->pfnCreate = td_kernel_create;
    t->pfnDestroy = td_kernel_destroy;
    t->pfnSetGroupSize = td_kernel_group;
    t->pfnSuggestGroupSize = td_kernel_suggest;
    t->pfnSetArgumentValue = td_kernel_arg;
    t->pfnSetIndirectAccess = td_kernel_indirect;
    t->pfnGetProperties = td_kernel_props;
    t->pfnGetName = td_kernel_name;
})
GETTER(zeGetKernelExpProcAddrTable, ze_kernel_exp_dditable_t, {
    t->pfnSetGlobalOffsetExp = td_kernel_offset;
})
/* Tables the TEST DRIVER does not implement: present (the 1.8 loader
 * requires every getter), entries NULL. */
GETTER(zeGetDeviceExpProcAddrTable, ze_device_exp_dditable_t, {})
GETTER(zeGetEventExpProcAddrTable, ze_event_exp_dditable_t, {})
GETTER(zeGetFabricEdgeExpProcAddrTable, ze_fabric_edge_exp_dditable_t, {})
GETTER(zeGetFabricVertexExpProcAddrTable, ze_fabric_vertex_exp_dditable_t, {})
GETTER(zeGetFenceProcAddrTable, ze_fence_dditable_t, {})
GETTER(zeGetImageProcAddrTable, ze_image_dditable_t, {})
GETTER(zeGetImageExpProcAddrTable, ze_image_exp_dditable_t, {})
GETTER(zeGetPhysicalMemProcAddrTable, ze_physical_mem_dditable_t, {})
GETTER(zeGetSamplerProcAddrTable, ze_sampler_dditable_t, {})
GETTER(zeGetVirtualMemProcAddrTable, ze_virtual_mem_dditable_t, {})

GETTER(zetGetCommandListProcAddrTable, zet_command_list_dditable_t, {})
GETTER(zetGetContextProcAddrTable, zet_context_dditable_t, {})
GETTER(zetGetDebugProcAddrTable, zet_debug_dditable_t, {})
GETTER(zetGetDeviceProcAddrTable, zet_device_dditable_t, {})
GETTER(zetGetKernelProcAddrTable, zet_kernel_dditable_t, {})
GETTER(zetGetMetricGroupExpProcAddrTable, zet_metric_group_exp_dditable_t, {})
GETTER(zetGetMetricGroupProcAddrTable, zet_metric_group_dditable_t, {})
GETTER(zetGetMetricProcAddrTable, zet_metric_dditable_t, {})
GETTER(zetGetMetricQueryPoolProcAddrTable, zet_metric_query_pool_dditable_t, {})
GETTER(zetGetMetricQueryProcAddrTable, zet_metric_query_dditable_t, {})
GETTER(zetGetMetricStreamerProcAddrTable, zet_metric_streamer_dditable_t, {})
GETTER(zetGetModuleProcAddrTable, zet_module_dditable_t, {})
GETTER(zetGetTracerExpProcAddrTable, zet_tracer_exp_dditable_t, {})

GETTER(zesGetDeviceProcAddrTable, zes_device_dditable_t, {})
GETTER(zesGetDiagnosticsProcAddrTable, zes_diagnostics_dditable_t, {})
GETTER(zesGetDriverProcAddrTable, zes_driver_dditable_t, {})
GETTER(zesGetEngineProcAddrTable, zes_engine_dditable_t, {})
GETTER(zesGetFabricPortProcAddrTable, zes_fabric_port_dditable_t, {})
GETTER(zesGetFanProcAddrTable, zes_fan_dditable_t, {})
GETTER(zesGetFirmwareProcAddrTable, zes_firmware_dditable_t, {})
GETTER(zesGetFrequencyProcAddrTable, zes_frequency_dditable_t, {})
GETTER(zesGetLedProcAddrTable, zes_led_dditable_t, {})
GETTER(zesGetMemoryProcAddrTable, zes_memory_dditable_t, {})
GETTER(zesGetPerformanceFactorProcAddrTable, zes_performance_factor_dditable_t, {})
GETTER(zesGetPowerProcAddrTable, zes_power_dditable_t, {})
GETTER(zesGetPsuProcAddrTable, zes_psu_dditable_t, {})
GETTER(zesGetRasProcAddrTable, zes_ras_dditable_t, {})
GETTER(zesGetSchedulerProcAddrTable, zes_scheduler_dditable_t, {})
GETTER(zesGetStandbyProcAddrTable, zes_standby_dditable_t, {})
GETTER(zesGetTemperatureProcAddrTable, zes_temperature_dditable_t, {})
