/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* adapter.c: the OpenCL adapter's entry point, ICD-loader loading, adapter/platform/device tables. */
#include "opencl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

sxo_api sxo_cl;
const sxa_services *sxo_svc;
pthread_mutex_t sxo_serial;
int sxo_serialize_any;
static pthread_once_t serial_once = PTHREAD_ONCE_INIT;

static void serial_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&sxo_serial, &a);
    pthread_mutexattr_destroy(&a);
}

/* The adapter: one per process (the core calls init once). */
struct sxa_adapter_s {
    sxa_object base;
    void *lib;
    char status[256];
    struct sxa_platform_s *platforms;
    uint32_t num_platforms;
};

static struct sxa_adapter_s the_adapter;

#define SXO_LOADER "libOpenCL.so.1"

/* Resolve every entry; a missing required one makes the loader unusable
 * (reported as 0 platforms with the reason), a missing 2.x one is only
 * logged: devices will not use it. */
static int resolve(void *lib, char *why, size_t why_size)
{
#define SXO_RESOLVE(name, required)                                                 \
    *(void **)&sxo_cl.name = dlsym(lib, #name);                                     \
    if (!sxo_cl.name && (required)) {                                               \
        snprintf(why, why_size, SXO_LOADER " lacks %s: 0 platforms", #name);        \
        return -1;                                                                  \
    }
    SXO_CL_ENTRIES(SXO_RESOLVE)
#undef SXO_RESOLVE
    return 0;
}

static sx_result adapter_init(const sxa_services *services, sxa_adapter *out)
{
    if (!services || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    sxo_svc = services;
    pthread_once(&serial_once, serial_init);
    sxo_serialize_any = 0;
    struct sxa_adapter_s *a = &the_adapter;
    memset(a, 0, sizeof *a);
    a->base.dispatch = services->dispatch;
    *out = a;

    /* SX_OPENCL_LOADER names another loader file (tests use a missing one). */
    const char *name = services->getenv ? services->getenv("SX_OPENCL_LOADER") : NULL;
    if (!name || !*name)
        name = SXO_LOADER;
    a->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!a->lib) {
        const char *e = dlerror();
        snprintf(a->status, sizeof a->status, "%s not found (%s): 0 platforms", name,
                 e ? e : "?");
        services->log(SX_LOG_INFO, "opencl: %s", a->status);
        return SX_SUCCESS;
    }
    if (resolve(a->lib, a->status, sizeof a->status) != 0) {
        services->log(SX_LOG_WARN, "opencl: %s", a->status);
        memset(&sxo_cl, 0, sizeof sxo_cl);
        dlclose(a->lib);
        a->lib = NULL;
        return SX_SUCCESS;
    }
    sx_result rc = sxo_platforms_load(&a->platforms, &a->num_platforms);
    if (rc != SX_SUCCESS) {
        snprintf(a->status, sizeof a->status, "listing OpenCL platforms failed: 0 platforms");
        a->platforms = NULL;
        a->num_platforms = 0;
        return SX_SUCCESS;
    }
    uint32_t devices = 0;
    for (uint32_t i = 0; i < a->num_platforms; i++)
        devices += a->platforms[i].num_devices;
    snprintf(a->status, sizeof a->status, SXO_LOADER ": %u platform%s, %u device%s",
             a->num_platforms, a->num_platforms == 1 ? "" : "s", devices, devices == 1 ? "" : "s");
    return SX_SUCCESS;
}

static sx_result adapter_fini(sxa_adapter adapter)
{
    struct sxa_adapter_s *a = adapter;
    if (!a)
        return SX_ERROR_INVALID_NULL_HANDLE;
    sxo_platforms_free(a->platforms, a->num_platforms);
    a->platforms = NULL;
    a->num_platforms = 0;
    /* ocl-icd never unloads its ICDs and PoCL keeps threads: leave the
     * loader mapped rather than risk unloading code that still runs. */
    a->lib = NULL;
    return SX_SUCCESS;
}

static sx_result adapter_get_info(sxa_adapter adapter, sxa_adapter_info param, size_t size,
                                  void *value, size_t *size_ret)
{
    struct sxa_adapter_s *a = adapter;
    if (!a)
        return SX_ERROR_INVALID_NULL_HANDLE;
    switch (param) {
    case SXA_ADAPTER_INFO_NAME:
        return sxa_info_string("opencl", size, value, size_ret);
    case SXA_ADAPTER_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_OPENCL;
        return sxa_info_copy(&b, sizeof b, size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_VERSION: {
        uint32_t v = SXA_MAKE_VERSION(1, 1);  /* 1.1: the global table */
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_STATUS:
        return sxa_info_string(a->status, size, value, size_ret);
    default:
        return sxo_error(SX_ERROR_INVALID_ENUMERATION, "opencl: adapter info %u unknown", param);
    }
}

static sx_result platform_get(sxa_adapter adapter, uint32_t count, sxa_platform *platforms,
                              uint32_t *num_platforms)
{
    struct sxa_adapter_s *a = adapter;
    if (!a)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!platforms && !num_platforms)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (num_platforms)
        *num_platforms = a->num_platforms;
    if (platforms)
        for (uint32_t i = 0; i < count && i < a->num_platforms; i++)
            platforms[i] = &a->platforms[i];
    return SX_SUCCESS;
}

static sx_result platform_get_info(sxa_platform platform, sx_platform_info param, size_t size,
                                   void *value, size_t *size_ret)
{
    struct sxa_platform_s *p = platform;
    if (!p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    switch (param) {
    case SX_PLATFORM_INFO_NAME:
        return sxa_info_string(p->name, size, value, size_ret);
    case SX_PLATFORM_INFO_VENDOR:
        return sxa_info_string(p->vendor, size, value, size_ret);
    case SX_PLATFORM_INFO_VERSION:
        return sxa_info_string(p->version, size, value, size_ret);
    case SX_PLATFORM_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_OPENCL;
        return sxa_info_copy(&b, sizeof b, size, value, size_ret);
    }
    default:
        return sxo_error(SX_ERROR_INVALID_ENUMERATION, "opencl: platform info %u unknown", param);
    }
}

static sx_result device_get(sxa_platform platform, sx_device_type type, uint32_t count,
                            sxa_device *devices, uint32_t *num_devices)
{
    struct sxa_platform_s *p = platform;
    if (!p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!devices && !num_devices)
        return SX_ERROR_INVALID_NULL_POINTER;
    /* DEFAULT is every device: the core's selector decides among them. */
    sx_device_type mask = type == SX_DEVICE_TYPE_DEFAULT ? SX_DEVICE_TYPE_ALL : type;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->num_devices; i++) {
        if (!(p->devices[i].type & mask))
            continue;
        if (devices && n < count)
            devices[n] = &p->devices[i];
        n++;
    }
    if (num_devices)
        *num_devices = n;
    return SX_SUCCESS;
}

static sx_result device_get_info(sxa_device device, sx_device_info param, size_t size,
                                 void *value, size_t *size_ret)
{
    struct sxa_device_s *d = device;
    if (!d)
        return SX_ERROR_INVALID_NULL_HANDLE;
    switch (param) {
    case SX_DEVICE_INFO_TYPE:
        return sxa_info_copy(&d->type, sizeof d->type, size, value, size_ret);
    case SX_DEVICE_INFO_NAME:
        return sxa_info_string(d->name, size, value, size_ret);
    case SX_DEVICE_INFO_VENDOR:
        return sxa_info_string(d->vendor, size, value, size_ret);
    case SX_DEVICE_INFO_DRIVER_VERSION:
        return sxa_info_string(d->driver, size, value, size_ret);
    case SX_DEVICE_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_OPENCL;
        return sxa_info_copy(&b, sizeof b, size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE:
        return sxa_info_copy(&d->max_wg, sizeof d->max_wg, size, value, size_ret);
    case SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES:
        return sxa_info_copy(d->max_items, sizeof d->max_items, size, value, size_ret);
    case SX_DEVICE_INFO_LOCAL_MEM_SIZE:
        return sxa_info_copy(&d->local_mem, sizeof d->local_mem, size, value, size_ret);
    case SX_DEVICE_INFO_GLOBAL_MEM_SIZE:
        return sxa_info_copy(&d->global_mem, sizeof d->global_mem, size, value, size_ret);
    case SX_DEVICE_INFO_MAX_COMPUTE_UNITS:
        return sxa_info_copy(&d->compute_units, sizeof d->compute_units, size, value, size_ret);
    case SX_DEVICE_INFO_ASPECTS:
        return sxa_info_copy(&d->aspects, sizeof d->aspects, size, value, size_ret);
    case SX_DEVICE_INFO_IMAGE_KINDS:
        return sxa_info_copy(d->kinds, d->num_kinds * sizeof d->kinds[0], size, value, size_ret);
    case SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS:
        return sxa_info_copy(&d->nonuniform, sizeof d->nonuniform, size, value, size_ret);
    case SX_DEVICE_INFO_PLATFORM: {
        sxa_platform p = d->platform;
        return sxa_info_copy(&p, sizeof p, size, value, size_ret);
    }
    case SX_DEVICE_INFO_SUB_GROUP_SIZES: {  /* cl_intel_required_subgroup_size's list */
        size_t v[32], n = 0;
        if (sxo_cl.clGetDeviceInfo(d->id, 0x4108 /* CL_DEVICE_SUB_GROUP_SIZES_INTEL */, sizeof v, v, &n) != CL_SUCCESS ||
            n == 0 || n > sizeof v)
            return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE, "opencl: the device does not list its sub-group sizes");
        return sxa_info_copy(v, n, size, value, size_ret);
    }
    default:
        return sxo_error(SX_ERROR_INVALID_ENUMERATION, "opencl: device info %u unknown", param);
    }
}

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

/* ---- serialised entries (see sxa_platform_s.serialize) ---- */

#define SERIAL(cond, call)                                                         \
    do {                                                                           \
        int serial_ = (cond);                                                      \
        if (serial_)                                                               \
            pthread_mutex_lock(&sxo_serial);                                       \
        sx_result serial_rc_ = (call);                                             \
        if (serial_)                                                               \
            pthread_mutex_unlock(&sxo_serial);                                     \
        return serial_rc_;                                                         \
    } while (0)
#define QSERIAL(q) ((q) && (q)->device->platform->serialize)

static __attribute__((noinline, cold)) sx_result
s_kernel_launch_serial(sxa_queue queue, sxa_kernel kernel, uint32_t work_dim, const size_t *global_offset,
                       const size_t *global_size, const size_t *local_size, uint32_t num_args,
                       const sx_arg *args, uint32_t num_events, const sxa_event *wait_list,
                       sxa_event *out_event)
{
    SERIAL(1, sxo_kernel_launch(queue, kernel, work_dim, global_offset, global_size, local_size,
                                num_args, args, num_events, wait_list, out_event));
}

/* The hot entries keep the locked case out of line: a jump, not a frame. */
static __attribute__((hot)) sx_result s_kernel_launch(sxa_queue queue, sxa_kernel kernel, uint32_t work_dim,
                                 const size_t *global_offset, const size_t *global_size,
                                 const size_t *local_size, uint32_t num_args, const sx_arg *args,
                                 uint32_t num_events, const sxa_event *wait_list,
                                 sxa_event *out_event)
{
    if (__builtin_expect(QSERIAL(queue), 0))
        return s_kernel_launch_serial(queue, kernel, work_dim, global_offset, global_size, local_size,
                                      num_args, args, num_events, wait_list, out_event);
    return sxo_kernel_launch(queue, kernel, work_dim, global_offset, global_size, local_size, num_args,
                             args, num_events, wait_list, out_event);
}

static sx_result s_usm_memcpy(sxa_queue queue, int blocking, void *dst, const void *src,
                              size_t size, uint32_t num_events, const sxa_event *wait_list,
                              sxa_event *out_event)
{
    SERIAL(QSERIAL(queue), sxo_usm_memcpy(queue, blocking, dst, src, size, num_events, wait_list,
                                          out_event));
}

static sx_result s_usm_fill(sxa_queue queue, void *ptr, size_t pattern_size, const void *pattern,
                            size_t size, uint32_t num_events, const sxa_event *wait_list,
                            sxa_event *out_event)
{
    SERIAL(QSERIAL(queue), sxo_usm_fill(queue, ptr, pattern_size, pattern, size, num_events,
                                        wait_list, out_event));
}

static sx_result s_global_write(sxa_queue queue, sxa_program program, const char *name,
                                int blocking, size_t count, size_t offset, const void *src,
                                uint32_t num_events, const sxa_event *wait_list,
                                sxa_event *out_event)
{
    SERIAL(QSERIAL(queue), sxo_global_write(queue, program, name, blocking, count, offset, src,
                                            num_events, wait_list, out_event));
}

static sx_result s_global_read(sxa_queue queue, sxa_program program, const char *name,
                               int blocking, size_t count, size_t offset, void *dst,
                               uint32_t num_events, const sxa_event *wait_list,
                               sxa_event *out_event)
{
    SERIAL(QSERIAL(queue), sxo_global_read(queue, program, name, blocking, count, offset, dst,
                                           num_events, wait_list, out_event));
}

static sx_result s_barrier(sxa_queue queue, uint32_t num_events, const sxa_event *wait_list,
                           sxa_event *out_event)
{
    SERIAL(QSERIAL(queue), sxo_barrier(queue, num_events, wait_list, out_event));
}

static sx_result s_get_global(sxa_program program, const char *name, size_t *size, void **ptr)
{
    SERIAL(program && program->device->platform->serialize,
           sxo_get_global(program, name, size, ptr));
}

static sx_result s_queue_finish(sxa_queue queue)
{
    SERIAL(QSERIAL(queue), sxo_queue_table.finish(queue));
}

/* Events do not know their platform: any serialised platform serialises waits. */
static __attribute__((noinline, cold)) sx_result s_event_wait_serial(uint32_t count, const sxa_event *events)
{
    SERIAL(1, sxo_event_wait(count, events));
}

static __attribute__((hot)) sx_result s_event_wait(uint32_t count, const sxa_event *events)
{
    if (__builtin_expect(sxo_serialize_any, 0))
        return s_event_wait_serial(count, events);
    return sxo_event_wait(count, events);
}

static sx_result s_event_get_status(sxa_event event, sx_event_status *status)
{
    SERIAL(sxo_serialize_any, sxo_event_table.get_status(event, status));
}

/* The global table (ABI 1.1): instances on devices without USM. */
#define CSERIAL(c) ((c) && (c)->num_devices && (c)->devices[0]->platform->serialize)

static sx_result s_instance_create(sxa_context context, sxa_device device, size_t size,
                                   void **instance)
{
    SERIAL(CSERIAL(context), sxo_instance_create(context, device, size, instance));
}

static sx_result s_instance_release(sxa_context context, void *instance)
{
    SERIAL(CSERIAL(context), sxo_instance_release(context, instance));
}

static sx_result s_instance_copy(sxa_queue queue, void *instance, int write, size_t offset,
                                 size_t count, void *host, int blocking, uint32_t num_events,
                                 const sxa_event *wait_list, sxa_event *out_event)
{
    SERIAL(QSERIAL(queue), sxo_instance_copy(queue, instance, write, offset, count, host,
                                             blocking, num_events, wait_list, out_event));
}

static sx_result s_global_bind(sxa_queue queue, sxa_program program, const char *name,
                               void *instance)
{
    SERIAL(QSERIAL(queue), sxo_global_bind(queue, program, name, instance));
}

static const sxa_global_table global_table = {
    .size = sizeof(sxa_global_table),
    .instance_create = s_instance_create,
    .instance_release = s_instance_release,
    .instance_copy = s_instance_copy,
    .bind = s_global_bind,
};

static const sxa_enqueue_table enqueue_table = {
    .size = sizeof(sxa_enqueue_table),
    .kernel_launch = s_kernel_launch,
    .usm_memcpy = s_usm_memcpy,
    .usm_fill = s_usm_fill,
    .global_write = s_global_write,
    .global_read = s_global_read,
    .barrier = s_barrier,
};

SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table)
{
    if (SXA_MAJOR_VERSION(abi_version) != SXA_ABI_VERSION_MAJOR)
        return SX_ERROR_UNSUPPORTED_VERSION;
    if (!table)
        return SX_ERROR_INVALID_NULL_POINTER;
    switch (id) {
    case SXA_TABLE_ADAPTER: SXA_FILL_TABLE(table, &adapter_table); break;
    case SXA_TABLE_PLATFORM: SXA_FILL_TABLE(table, &platform_table); break;
    case SXA_TABLE_DEVICE: SXA_FILL_TABLE(table, &device_table); break;
    case SXA_TABLE_CONTEXT: SXA_FILL_TABLE(table, &sxo_context_table); break;
    case SXA_TABLE_QUEUE: {
        sxa_queue_table t = sxo_queue_table;
        t.finish = s_queue_finish;
        SXA_FILL_TABLE(table, &t);
        break;
    }
    case SXA_TABLE_USM: SXA_FILL_TABLE(table, &sxo_usm_table); break;
    case SXA_TABLE_PROGRAM: {
        sxa_program_table t = sxo_program_table;
        t.get_global = s_get_global;
        SXA_FILL_TABLE(table, &t);
        break;
    }
    case SXA_TABLE_KERNEL: SXA_FILL_TABLE(table, &sxo_kernel_table); break;
    case SXA_TABLE_ENQUEUE: SXA_FILL_TABLE(table, &enqueue_table); break;
    case SXA_TABLE_GLOBAL: SXA_FILL_TABLE(table, &global_table); break;
    case SXA_TABLE_EVENT: {
        sxa_event_table t = sxo_event_table;
        t.wait = s_event_wait;
        t.get_status = s_event_get_status;
        SXA_FILL_TABLE(table, &t);
        break;
    }
    default: return SX_ERROR_INVALID_ENUMERATION;
    }
    return SX_SUCCESS;
}
