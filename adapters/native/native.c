/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native.c: the native adapter's entry point and tables, and its simple
 * objects: the one platform and CPU device, contexts, queues, host-memory
 * USM, synchronous copies and always-complete events. */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

const sxa_services *sxn_services;

static struct sxa_adapter_s the_adapter;
static struct sxa_platform_s the_platform;
static struct sxa_device_s the_device;
static atomic_int initialized;

uint64_t sxn_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ device setup */

static void read_cpu_name(char *out, size_t n)
{
    snprintf(out, n, "host CPU");
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "model name", 10) != 0)
            continue;
        const char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        size_t len = strcspn(colon, "\n");
        if (len) {
            if (len >= n)
                len = n - 1;
            memcpy(out, colon, len);
            out[len] = 0;
        }
        break;
    }
    fclose(f);
}

static const struct {
    const char *name;
    sx_aspect aspect;
} aspect_names[] = {
    {"cpu", SX_ASPECT_CPU},
    {"gpu", SX_ASPECT_GPU},
    {"accelerator", SX_ASPECT_ACCELERATOR},
    {"custom", SX_ASPECT_CUSTOM},
    {"fp16", SX_ASPECT_FP16},
    {"fp64", SX_ASPECT_FP64},
    {"int64_base_atomics", SX_ASPECT_INT64_BASE_ATOMICS},
    {"int64_extended_atomics", SX_ASPECT_INT64_EXTENDED_ATOMICS},
    {"image", SX_ASPECT_IMAGE},
    {"online_compiler", SX_ASPECT_ONLINE_COMPILER},
    {"online_linker", SX_ASPECT_ONLINE_LINKER},
    {"queue_profiling", SX_ASPECT_QUEUE_PROFILING},
    {"usm_device_allocations", SX_ASPECT_USM_DEVICE_ALLOCATIONS},
    {"usm_host_allocations", SX_ASPECT_USM_HOST_ALLOCATIONS},
    {"usm_shared_allocations", SX_ASPECT_USM_SHARED_ALLOCATIONS},
    {"usm_system_allocations", SX_ASPECT_USM_SYSTEM_ALLOCATIONS},
    {"usm_atomic_host_allocations", SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS},
    {"usm_atomic_shared_allocations", SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS},
    {"atomic64", SX_ASPECT_ATOMIC64},
};

/* SX_NATIVE_HIDE_ASPECTS="fp64,atomic64" (names or numbers) removes
 * aspects, so tests can have a device without, e.g., fp64. */
static sx_aspect_set hidden_aspects(void)
{
    const char *env = sxn_getenv("SX_NATIVE_HIDE_ASPECTS");
    sx_aspect_set hide = 0;
    if (!env)
        return 0;
    const char *p = env;
    while (*p) {
        size_t len = strcspn(p, ", ");
        if (len) {
            char word[64];
            if (len < sizeof(word)) {
                memcpy(word, p, len);
                word[len] = 0;
                char *end;
                unsigned long v = strtoul(word, &end, 10);
                bool found = false;
                if (*end == 0 && end != word) {
                    if (v < SX_ASPECT_MAX_) {
                        hide |= SX_ASPECT_BIT(v);
                        found = true;
                    }
                } else {
                    for (size_t i = 0; i < sizeof(aspect_names) / sizeof(aspect_names[0]); i++)
                        if (strcmp(word, aspect_names[i].name) == 0) {
                            hide |= SX_ASPECT_BIT(aspect_names[i].aspect);
                            found = true;
                        }
                }
                if (!found)
                    sxn_services->log(SX_LOG_WARN,
                                      "SX_NATIVE_HIDE_ASPECTS: unknown aspect '%s' ignored", word);
            }
        }
        p += len;
        while (*p == ',' || *p == ' ')
            p++;
    }
    return hide;
}

static void device_setup(struct sxa_device_s *d)
{
    read_cpu_name(d->name, sizeof(d->name));
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    d->compute_units = n > 0 ? (uint32_t)n : 1;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    d->global_mem = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    static const sx_aspect have[] = {
        SX_ASPECT_CPU, SX_ASPECT_FP64, SX_ASPECT_INT64_BASE_ATOMICS,
        SX_ASPECT_INT64_EXTENDED_ATOMICS, SX_ASPECT_QUEUE_PROFILING,
        SX_ASPECT_USM_DEVICE_ALLOCATIONS, SX_ASPECT_USM_HOST_ALLOCATIONS,
        SX_ASPECT_USM_SHARED_ALLOCATIONS, SX_ASPECT_USM_SYSTEM_ALLOCATIONS,
        SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS, SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS,
        SX_ASPECT_ATOMIC64, SX_ASPECT_ONLINE_LINKER,
    };
    d->aspects = 0;
    for (size_t i = 0; i < sizeof(have) / sizeof(have[0]); i++)
        d->aspects |= SX_ASPECT_BIT(have[i]);
    d->aspects &= ~hidden_aspects();
}

/* ------------------------------------------------------------ adapter */

static pthread_mutex_t usm_lock = PTHREAD_MUTEX_INITIALIZER;
static void usm_reset(void);

static sx_result adapter_init(const sxa_services *services, sxa_adapter *out)
{
    if (!services || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (atomic_load(&initialized))
        return services->error(SX_ERROR_INVALID_OPERATION,
                               "native adapter: init called twice without fini");
    sxn_services = services;
    the_adapter.obj.dispatch = services->dispatch;
    the_platform.obj.dispatch = services->dispatch;
    the_device.obj.dispatch = services->dispatch;
    device_setup(&the_device);
    sx_result r = sxn_tcache_init();
    if (r != SX_SUCCESS)
        return r;
    atomic_store(&initialized, 1);
    *out = &the_adapter;
    return SX_SUCCESS;
}

static sx_result adapter_fini(sxa_adapter adapter)
{
    if (adapter != &the_adapter)
        return SX_ERROR_INVALID_HANDLE;
    sxn_pool_shutdown();
    sxn_tcache_shutdown();
    sxn_builtins_unload();
    usm_reset();
    atomic_store(&initialized, 0);
    return SX_SUCCESS;
}

static sx_result adapter_get_info(sxa_adapter adapter, sxa_adapter_info param, size_t size,
                                  void *value, size_t *size_ret)
{
    if (adapter != &the_adapter)
        return sxn_error(SX_ERROR_INVALID_HANDLE, "native: %p is not the native adapter",
                         (void *)adapter);
    switch (param) {
    case SXA_ADAPTER_INFO_NAME:
        return sxa_info_string("native", size, value, size_ret);
    case SXA_ADAPTER_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_NATIVE;
        return sxa_info_copy(&b, sizeof(b), size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_VERSION: {
        uint32_t v = SXA_MAKE_VERSION(1, 0);
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_STATUS: {
        char line[128];
        snprintf(line, sizeof(line), "1 platform, 1 CPU device (%u threads)",
                 the_device.compute_units);
        return sxa_info_string(line, size, value, size_ret);
    }
    default:
        return sxn_error(SX_ERROR_INVALID_ENUMERATION, "native: adapter info %u unknown",
                         (unsigned)param);
    }
}

/* ------------------------------------------------------------ platform, device */

static sx_result platform_get(sxa_adapter adapter, uint32_t count, sxa_platform *platforms,
                              uint32_t *num_platforms)
{
    if (adapter != &the_adapter)
        return sxn_error(SX_ERROR_INVALID_HANDLE, "native: %p is not the native adapter",
                         (void *)adapter);
    if (!platforms && !num_platforms)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: platform.get with no output");
    if (num_platforms)
        *num_platforms = 1;
    if (platforms && count >= 1)
        platforms[0] = &the_platform;
    return SX_SUCCESS;
}

static sx_result platform_get_info(sxa_platform platform, sx_platform_info param, size_t size,
                                   void *value, size_t *size_ret)
{
    if (platform != &the_platform)
        return sxn_error(SX_ERROR_INVALID_HANDLE, "native: %p is not the native platform",
                         (void *)platform);
    switch (param) {
    case SX_PLATFORM_INFO_NAME:
        return sxa_info_string("libsycl-ext native", size, value, size_ret);
    case SX_PLATFORM_INFO_VENDOR:
        return sxa_info_string("libsycl-ext", size, value, size_ret);
    case SX_PLATFORM_INFO_VERSION:
        return sxa_info_string("1.0 (libffi)", size, value, size_ret);
    case SX_PLATFORM_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_NATIVE;
        return sxa_info_copy(&b, sizeof(b), size, value, size_ret);
    }
    default:
        return sxn_error(SX_ERROR_INVALID_ENUMERATION, "native: platform info %u unknown",
                         (unsigned)param);
    }
}

static sx_result device_get(sxa_platform platform, sx_device_type type, uint32_t count,
                            sxa_device *devices, uint32_t *num_devices)
{
    if (platform != &the_platform)
        return sxn_error(SX_ERROR_INVALID_HANDLE, "native: %p is not the native platform",
                         (void *)platform);
    if (!devices && !num_devices)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: device.get with no output");
    uint32_t n = (type == SX_DEVICE_TYPE_DEFAULT || (type & SX_DEVICE_TYPE_CPU)) ? 1 : 0;
    if (num_devices)
        *num_devices = n;
    if (devices && count >= 1 && n)
        devices[0] = &the_device;
    return SX_SUCCESS;
}

static sx_result device_get_info(sxa_device device, sx_device_info param, size_t size,
                                 void *value, size_t *size_ret)
{
    if (device != &the_device)
        return sxn_error(SX_ERROR_INVALID_HANDLE, "native: %p is not the native device",
                         (void *)device);
    const struct sxa_device_s *d = device;
    switch (param) {
    case SX_DEVICE_INFO_TYPE: {
        sx_device_type t = SX_DEVICE_TYPE_CPU;
        return sxa_info_copy(&t, sizeof(t), size, value, size_ret);
    }
    case SX_DEVICE_INFO_NAME:
        return sxa_info_string(d->name, size, value, size_ret);
    case SX_DEVICE_INFO_VENDOR:
        return sxa_info_string("libsycl-ext", size, value, size_ret);
    case SX_DEVICE_INFO_DRIVER_VERSION:
        return sxa_info_string("1.0", size, value, size_ret);
    case SX_DEVICE_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_NATIVE;
        return sxa_info_copy(&b, sizeof(b), size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE: {
        size_t v = SXN_MAX_WORK_GROUP;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES: {
        size_t v[3] = {SXN_MAX_WORK_GROUP, SXN_MAX_WORK_GROUP, SXN_MAX_WORK_GROUP};
        return sxa_info_copy(v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_LOCAL_MEM_SIZE: {
        uint64_t v = SXN_LOCAL_MEM;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_GLOBAL_MEM_SIZE:
        return sxa_info_copy(&d->global_mem, sizeof(d->global_mem), size, value, size_ret);
    case SX_DEVICE_INFO_MAX_COMPUTE_UNITS:
        return sxa_info_copy(&d->compute_units, sizeof(d->compute_units), size, value, size_ret);
    case SX_DEVICE_INFO_ASPECTS:
        return sxa_info_copy(&d->aspects, sizeof(d->aspects), size, value, size_ret);
    case SX_DEVICE_INFO_IMAGE_KINDS: {
        sx_image_kind k = SX_IMAGE_KIND_HOST_ELF;
        return sxa_info_copy(&k, sizeof(k), size, value, size_ret);
    }
    case SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS: {
        uint32_t v = 0;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_SUB_GROUP_SIZES: {
        /* sx-wgc compiles any size a kernel requires (1-64); these are
         * Intel's CPU runtime's, 16 the size of kernels requiring none. */
        static const size_t v[] = {4, 8, 16, 32, 64};
        return sxa_info_copy(v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_PLATFORM: {
        sxa_platform p = &the_platform;
        return sxa_info_copy(&p, sizeof(p), size, value, size_ret);
    }
    default:
        return sxn_error(SX_ERROR_INVALID_ENUMERATION, "native: device info %u unknown",
                         (unsigned)param);
    }
}

/* ------------------------------------------------------------ context, queue */

static sx_result context_create(uint32_t num_devices, const sxa_device *devices, sxa_context *out)
{
    if (!out || (num_devices && !devices))
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: context.create: NULL argument");
    if (num_devices == 0)
        return sxn_error(SX_ERROR_INVALID_SIZE, "native: context.create with no device");
    for (uint32_t i = 0; i < num_devices; i++)
        if (devices[i] != &the_device)
            return sxn_error(SX_ERROR_INVALID_DEVICE,
                             "native: context.create: device %u (%p) is not the native device",
                             i, (void *)devices[i]);
    struct sxa_context_s *c = calloc(1, sizeof(*c));
    if (!c)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: context.create: out of memory");
    c->obj.dispatch = sxn_services->dispatch;
    *out = c;
    return SX_SUCCESS;
}

static sx_result context_release(sxa_context context)
{
    if (!context)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: context.release: NULL");
    free(context);
    return SX_SUCCESS;
}

static sx_result queue_create(sxa_context context, sxa_device device, uint32_t flags,
                              sxa_queue *out)
{
    if (!context || !device)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: queue.create: NULL handle");
    if (!out)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: queue.create: out is NULL");
    if (device != &the_device)
        return sxn_error(SX_ERROR_INVALID_DEVICE, "native: queue.create: %p is not the native device",
                         (void *)device);
    struct sxa_queue_s *q = calloc(1, sizeof(*q));
    if (!q)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: queue.create: out of memory");
    q->obj.dispatch = sxn_services->dispatch;
    q->context = context;
    /* Commands run at enqueue, so every queue is in order. */
    q->flags = flags & SXA_QUEUE_PROFILING;
    *out = q;
    return SX_SUCCESS;
}

static sx_result queue_release(sxa_queue queue)
{
    if (!queue)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: queue.release: NULL");
    free(queue);
    return SX_SUCCESS;
}

static sx_result queue_finish(sxa_queue queue)
{
    if (!queue)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: queue.finish: NULL");
    return SX_SUCCESS;
}

/* ------------------------------------------------------------ events */

sx_result sxn_event_new(sxa_queue queue, uint64_t queued, sxa_event *out)
{
    struct sxa_event_s *e = malloc(sizeof(*e));
    if (!e)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for an event");
    e->obj.dispatch = sxn_services->dispatch;
    e->queued = e->submit = e->start = queued;
    e->end = (queue->flags & SXA_QUEUE_PROFILING) ? sxn_now_ns() : queued;
    *out = e;
    return SX_SUCCESS;
}

sx_result sxn_check_wait_list(uint32_t num_events, const sxa_event *wait_list)
{
    if (num_events && !wait_list)
        return sxn_error(SX_ERROR_INVALID_EVENT_WAIT_LIST,
                         "native: %u events to wait for but the wait list is NULL", num_events);
    for (uint32_t i = 0; i < num_events; i++) {
        if (!wait_list[i])
            return sxn_error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "native: wait list entry %u is NULL", i);
        if (wait_list[i]->obj.dispatch != sxn_services->dispatch)
            return sxn_error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "native: wait list entry %u is not a native event", i);
    }
    return SX_SUCCESS;
}

static sx_result event_wait(uint32_t count, const sxa_event *events)
{
    if (count && !events)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: event.wait: events is NULL");
    /* Every native command completes before its enqueue returns: only
     * what is waited for is checked. */
    for (uint32_t i = 0; i < count; i++)
        if (!events[i] || events[i]->obj.dispatch != sxn_services->dispatch)
            return sxn_error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "native: event.wait: entry %u is not a native event", i);
    return SX_SUCCESS;
}

static sx_result event_get_status(sxa_event event, sx_event_status *status)
{
    if (!event)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: event.get_status: NULL event");
    if (!status)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: event.get_status: NULL status");
    *status = SX_EVENT_STATUS_COMPLETE;
    return SX_SUCCESS;
}

static sx_result event_release(sxa_event event)
{
    if (!event)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: event.release: NULL");
    free(event);
    return SX_SUCCESS;
}

static sx_result event_get_profiling(sxa_event event, sxa_profiling_info param, uint64_t *value)
{
    if (!event)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: event.get_profiling: NULL event");
    if (!value)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: event.get_profiling: NULL value");
    switch (param) {
    case SXA_PROFILING_QUEUED: *value = event->queued; break;
    case SXA_PROFILING_SUBMIT: *value = event->submit; break;
    case SXA_PROFILING_START: *value = event->start; break;
    case SXA_PROFILING_END: *value = event->end; break;
    default:
        return sxn_error(SX_ERROR_INVALID_ENUMERATION, "native: profiling info %u unknown",
                         (unsigned)param);
    }
    return SX_SUCCESS;
}

static sx_result finish_command(sxa_queue queue, uint64_t t0, sxa_event *out_event)
{
    if (!out_event)
        return SX_SUCCESS;
    return sxn_event_new(queue, t0, out_event);
}

/* ------------------------------------------------------------ USM */

/* Live allocations, so a free of a pointer we never returned is an error
 * rather than heap corruption: open addressing keyed by pointer. */
struct usm_slot {
    void *ptr;      /* NULL empty, TOMB deleted */
    void *base;     /* what aligned_alloc returned (ptr less its colour) */
    sxa_context context;
};
#define TOMB ((void *)1)
static struct usm_slot *usm_slots;
static size_t usm_cap, usm_used, usm_live;

static size_t usm_hash(const void *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

static bool usm_insert_locked(void *ptr, void *base, sxa_context ctx)
{
    if ((usm_used + 1) * 2 > usm_cap) {
        size_t ncap = usm_cap ? usm_cap * 2 : 64;
        while ((usm_live + 1) * 2 > ncap)
            ncap *= 2;
        struct usm_slot *ns = calloc(ncap, sizeof(*ns));
        if (!ns)
            return false;
        for (size_t i = 0; i < usm_cap; i++) {
            void *p = usm_slots[i].ptr;
            if (!p || p == TOMB)
                continue;
            size_t h = usm_hash(p, ncap);
            while (ns[h].ptr)
                h = (h + 1) & (ncap - 1);
            ns[h] = usm_slots[i];
        }
        free(usm_slots);
        usm_slots = ns;
        usm_cap = ncap;
        usm_used = usm_live;
    }
    size_t h = usm_hash(ptr, usm_cap);
    while (usm_slots[h].ptr && usm_slots[h].ptr != TOMB)
        h = (h + 1) & (usm_cap - 1);
    if (!usm_slots[h].ptr)
        usm_used++;
    usm_slots[h].ptr = ptr;
    usm_slots[h].base = base;
    usm_slots[h].context = ctx;
    usm_live++;
    return true;
}

static struct usm_slot *usm_find_locked(const void *ptr)
{
    if (!usm_cap)
        return NULL;
    size_t h = usm_hash(ptr, usm_cap);
    for (size_t n = 0; n < usm_cap && usm_slots[h].ptr; n++, h = (h + 1) & (usm_cap - 1))
        if (usm_slots[h].ptr == ptr)
            return &usm_slots[h];
    return NULL;
}

static void usm_reset(void)
{
    pthread_mutex_lock(&usm_lock);
    if (usm_live)
        sxn_services->log(SX_LOG_WARN, "native: %zu USM allocations still live at fini; freed",
                          usm_live);
    for (size_t i = 0; i < usm_cap; i++)
        if (usm_slots[i].ptr && usm_slots[i].ptr != TOMB)
            free(usm_slots[i].base);
    free(usm_slots);
    usm_slots = NULL;
    usm_cap = usm_used = usm_live = 0;
    pthread_mutex_unlock(&usm_lock);
}

static sx_result usm_alloc(sxa_context context, sxa_device device, sx_usm_type type, size_t size,
                           size_t align, void **out)
{
    if (!context)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: usm.alloc: NULL context");
    if (!out)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: usm.alloc: out is NULL");
    if (type != SX_USM_TYPE_HOST && type != SX_USM_TYPE_DEVICE && type != SX_USM_TYPE_SHARED)
        return sxn_error(SX_ERROR_INVALID_ENUMERATION, "native: usm.alloc: type %u unknown",
                         (unsigned)type);
    if (device && device != &the_device)
        return sxn_error(SX_ERROR_INVALID_DEVICE, "native: usm.alloc: %p is not the native device",
                         (void *)device);
    if (size == 0)
        return sxn_error(SX_ERROR_INVALID_SIZE, "native: usm.alloc of 0 bytes");
    if (align == 0)
        align = SXN_DEFAULT_ALIGN;
    if (align & (align - 1))
        return sxn_error(SX_ERROR_INVALID_VALUE,
                         "native: usm.alloc: alignment %zu is not a power of two", align);
    if (align < sizeof(void *))
        align = sizeof(void *);
    if (size > SIZE_MAX - align)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: usm.alloc of %zu bytes", size);
    /* Large allocations in transparent huge pages where the kernel gives
     * them on request (THP "madvise", the usual default): a kernel streaming
     * through them takes no TLB miss per 4 KiB, and the hardware prefetcher,
     * which stops at page boundaries, runs on (saxpy over 2 x 64 MiB: 1.5x
     * on one core). 2 MiB aligned and rounded; a no-op where THP is off. */
    bool huge = size >= SXN_HUGE_ALLOC && size <= SIZE_MAX - SXN_HUGE_PAGE;
    if (huge && align < SXN_HUGE_PAGE)
        align = SXN_HUGE_PAGE;
    /* Mid-sized allocations start at a page offset that turns with each
     * (a colour, as jemalloc does for large ones): arrays that all began
     * at the same offset in their pages put a kernel's a[j * n + k] and
     * b[j * n + k] in the same L1 sets and 4 KiB-alias each other's
     * stores (PolyBench's syr2k ran 8 or 18 ms by where the heap put its
     * arrays). */
    size_t colour = 0;
    if (!huge && size >= SXN_COLOUR_ALLOC && align <= SXN_COLOUR_STEP && size <= SIZE_MAX - 2 * SXN_PAGE) {
        static atomic_uint colours;
        colour = (size_t)(atomic_fetch_add(&colours, 1) % (SXN_PAGE / SXN_COLOUR_STEP)) * SXN_COLOUR_STEP;
        align = SXN_PAGE;
    }
    size_t rounded = (size + colour + align - 1) & ~(align - 1);
    void *base = aligned_alloc(align, rounded);
    if (!base)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY,
                         "native: usm.alloc of %zu bytes (align %zu) failed", size, align);
#ifdef MADV_HUGEPAGE
    if (huge)
        (void)madvise(base, rounded, MADV_HUGEPAGE);  /* advice: failure changes nothing */
#endif
    void *p = (char *)base + colour;
    pthread_mutex_lock(&usm_lock);
    bool ok = usm_insert_locked(p, base, context);
    pthread_mutex_unlock(&usm_lock);
    if (!ok) {
        free(base);
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: usm.alloc: out of memory");
    }
    *out = p;
    return SX_SUCCESS;
}

static sx_result usm_free(sxa_context context, void *ptr)
{
    if (!context)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: usm.free: NULL context");
    if (!ptr)
        return SX_SUCCESS;
    pthread_mutex_lock(&usm_lock);
    struct usm_slot *s = usm_find_locked(ptr);
    if (!s || s->context != context) {
        pthread_mutex_unlock(&usm_lock);
        return sxn_error(SX_ERROR_INVALID_VALUE,
                         "native: usm.free: %p was not allocated in context %p", ptr,
                         (void *)context);
    }
    void *base = s->base;
    s->ptr = TOMB;
    usm_live--;
    pthread_mutex_unlock(&usm_lock);
    free(base);
    return SX_SUCCESS;
}

/* ------------------------------------------------------------ enqueue */

static sx_result enq_memcpy(sxa_queue queue, int blocking, void *dst, const void *src,
                            size_t size, uint32_t num_events, const sxa_event *wait_list,
                            sxa_event *out_event)
{
    if (!queue)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: usm_memcpy: NULL queue");
    sx_result r = sxn_check_wait_list(num_events, wait_list);
    if (r != SX_SUCCESS)
        return r;
    if (size && (!dst || !src))
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER,
                         "native: usm_memcpy of %zu bytes from %p to %p", size, src, dst);
    uint64_t t0 = (queue->flags & SXA_QUEUE_PROFILING) ? sxn_now_ns() : 0;
    if (size)
        memmove(dst, src, size);
    return finish_command(queue, t0, out_event);
}

static sx_result enq_fill(sxa_queue queue, void *ptr, size_t pattern_size, const void *pattern,
                          size_t size, uint32_t num_events, const sxa_event *wait_list,
                          sxa_event *out_event)
{
    if (!queue)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: usm_fill: NULL queue");
    sx_result r = sxn_check_wait_list(num_events, wait_list);
    if (r != SX_SUCCESS)
        return r;
    if (!ptr || !pattern)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: usm_fill: NULL %s",
                         ptr ? "pattern" : "pointer");
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)))
        return sxn_error(SX_ERROR_INVALID_VALUE,
                         "native: usm_fill: pattern size %zu is not a power of two up to 128",
                         pattern_size);
    if (size % pattern_size)
        return sxn_error(SX_ERROR_INVALID_SIZE,
                         "native: usm_fill: %zu bytes is not a multiple of the pattern size %zu",
                         size, pattern_size);
    uint64_t t0 = (queue->flags & SXA_QUEUE_PROFILING) ? sxn_now_ns() : 0;
    unsigned char *p = ptr;
    if (pattern_size == 1) {
        memset(p, *(const unsigned char *)pattern, size);
    } else if (size) {
        /* Copy the pattern once, then double the filled prefix. */
        memcpy(p, pattern, pattern_size);
        size_t done = pattern_size;
        while (done < size) {
            size_t n = done < size - done ? done : size - done;
            memcpy(p + done, p, n);
            done += n;
        }
    }
    return finish_command(queue, t0, out_event);
}

static sx_result global_range(sxa_program program, const char *name, size_t count, size_t offset,
                              unsigned char **where)
{
    if (!program)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: program variable access: NULL program");
    if (!name)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: program variable access: NULL name");
    void *addr;
    size_t vsize;
    sx_result r = sxn_global_find(program, name, &addr, &vsize);
    if (r != SX_SUCCESS)
        return r;
    if (offset > vsize || count > vsize - offset)
        return sxn_error(SX_ERROR_INVALID_VALUE,
                         "native: program variable '%s': offset %zu + count %zu passes its size %zu",
                         name, offset, count, vsize);
    *where = (unsigned char *)addr + offset;
    return SX_SUCCESS;
}

/* global_write and global_read: one copy between a program variable and
 * host memory, `write` saying which way. */
static sx_result global_copy(sxa_queue queue, sxa_program program, const char *name, int write, size_t count,
                             size_t offset, void *host, uint32_t num_events, const sxa_event *wait_list,
                             sxa_event *out_event)
{
    const char *what = write ? "global_write" : "global_read";
    if (!queue)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: %s: NULL queue", what);
    sx_result r = sxn_check_wait_list(num_events, wait_list);
    if (r != SX_SUCCESS)
        return r;
    if (count && !host)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: %s: NULL %s", what,
                         write ? "source" : "destination");
    unsigned char *where = NULL;
    r = global_range(program, name, count, offset, &where);
    if (r != SX_SUCCESS)
        return r;
    uint64_t t0 = (queue->flags & SXA_QUEUE_PROFILING) ? sxn_now_ns() : 0;
    if (count)
        memcpy(write ? where : host, write ? host : where, count);
    return finish_command(queue, t0, out_event);
}

static sx_result enq_global_write(sxa_queue queue, sxa_program program, const char *name,
                                  int blocking, size_t count, size_t offset, const void *src,
                                  uint32_t num_events, const sxa_event *wait_list,
                                  sxa_event *out_event)
{
    return global_copy(queue, program, name, 1, count, offset, (void *)src, num_events, wait_list, out_event);
}

static sx_result enq_global_read(sxa_queue queue, sxa_program program, const char *name,
                                 int blocking, size_t count, size_t offset, void *dst,
                                 uint32_t num_events, const sxa_event *wait_list,
                                 sxa_event *out_event)
{
    return global_copy(queue, program, name, 0, count, offset, dst, num_events, wait_list, out_event);
}

static sx_result enq_barrier(sxa_queue queue, uint32_t num_events, const sxa_event *wait_list,
                             sxa_event *out_event)
{
    if (!queue)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: barrier: NULL queue");
    sx_result r = sxn_check_wait_list(num_events, wait_list);
    if (r != SX_SUCCESS)
        return r;
    uint64_t t0 = (queue->flags & SXA_QUEUE_PROFILING) ? sxn_now_ns() : 0;
    return finish_command(queue, t0, out_event);
}

/* ------------------------------------------------------------ tables */

static const sxa_adapter_table adapter_table = {
    .size = sizeof(sxa_adapter_table),
    .init = adapter_init,
    .fini = adapter_fini,
    .get_info = adapter_get_info,
};
static const sxa_platform_table platform_table = {
    .size = sizeof(sxa_platform_table),
    .get = platform_get,
    .get_info = platform_get_info,
};
static const sxa_device_table device_table = {
    .size = sizeof(sxa_device_table),
    .get = device_get,
    .get_info = device_get_info,
};
static const sxa_context_table context_table = {
    .size = sizeof(sxa_context_table),
    .create = context_create,
    .release = context_release,
};
static const sxa_queue_table queue_table = {
    .size = sizeof(sxa_queue_table),
    .create = queue_create,
    .release = queue_release,
    .finish = queue_finish,
    .flush = queue_finish,
};
static const sxa_usm_table usm_table = {
    .size = sizeof(sxa_usm_table),
    .alloc = usm_alloc,
    .free = usm_free,
};
static const sxa_enqueue_table enqueue_table = {
    .size = sizeof(sxa_enqueue_table),
    .kernel_launch = sxn_kernel_launch,
    .usm_memcpy = enq_memcpy,
    .usm_fill = enq_fill,
    .global_write = enq_global_write,
    .global_read = enq_global_read,
    .barrier = enq_barrier,
};
static const sxa_event_table event_table = {
    .size = sizeof(sxa_event_table),
    .wait = event_wait,
    .get_status = event_get_status,
    .release = event_release,
    .get_profiling = event_get_profiling,
};

#ifdef SXN_BUILTIN
#define ENTRY sxn_get_proc_table
#else
#define ENTRY sxa_get_proc_table
SXA_EXPORT
#endif
sx_result ENTRY(uint32_t abi_version, sxa_table_id id, void *table)
{
    static const void *const tables[SXA_TABLE_COUNT_] = {
        [SXA_TABLE_ADAPTER] = &adapter_table,
        [SXA_TABLE_PLATFORM] = &platform_table,
        [SXA_TABLE_DEVICE] = &device_table,
        [SXA_TABLE_CONTEXT] = &context_table,
        [SXA_TABLE_QUEUE] = &queue_table,
        [SXA_TABLE_USM] = &usm_table,
        [SXA_TABLE_PROGRAM] = &sxn_program_table,
        [SXA_TABLE_KERNEL] = &sxn_kernel_table,
        [SXA_TABLE_ENQUEUE] = &enqueue_table,
        [SXA_TABLE_EVENT] = &event_table,
    };
    return sxa_serve_table(abi_version, id, table, tables, SXA_TABLE_COUNT_);
}
