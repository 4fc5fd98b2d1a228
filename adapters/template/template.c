/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* template.c: the starting point for a new adapter. It compiles against
 * include/sycl-ext/adapter.h alone, loads, says "0 platforms", and answers
 * SX_ERROR_UNSUPPORTED_FEATURE everywhere else. Rename the tmpl_ prefix,
 * then replace each stub by the real thing; the comment above each says
 * what it must do (doc/adapters.md has every entry's full contract).
 * Build it as a shared object exporting only sxa_get_proc_table, against
 * the installed kit:
 *   cc -std=c11 $(pkg-config --cflags sycl-ext-adapter) template.c \
 *      $(pkg-config --libs sycl-ext-adapter) -o sx-adapter-mine.so
 * check it with `sx-adapter-cts ./sx-adapter-mine.so`, and install it as
 * $(pkg-config --variable=adapterdir sycl-ext-adapter)/sx-adapter-mine.so
 * to have it discovered. serialcpu.c beside this file is a complete small
 * adapter grown from this template. */

#include <stdio.h>

#include <sycl-ext/adapter.h>

/* Your objects. Each one starts with an sxa_object whose dispatch field is
 * services->dispatch, so the core can tell in one load who owns a handle.
 * Add your backend's handles after it. */
struct sxa_adapter_s {
    sxa_object base;
    /* e.g. the dlopen handle of your vendor library */
};
struct sxa_platform_s {
    sxa_object base;
};
struct sxa_device_s {
    sxa_object base;
};
struct sxa_context_s {
    sxa_object base;
};
struct sxa_queue_s {
    sxa_object base;
};
struct sxa_program_s {
    sxa_object base;
};
struct sxa_kernel_s {
    sxa_object base;
};
struct sxa_event_s {
    sxa_object base;
};

/* What the core gave at init: log, error detail, getenv. Valid until fini returns. */
static const sxa_services *svc;
static struct sxa_adapter_s the_adapter;

/* Every error goes through services->error() with one sentence naming the
 * entry, the object and the backend's native code by name and number, e.g.
 * "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11) for program 0x..: <log>". */
static sx_result tmpl_error(sx_result code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static sx_result tmpl_error(sx_result code, const char *fmt, ...)
{
    /* svc is NULL before init and after fini: never call through it unchecked */
    if (!svc)
        return code;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return svc->error(code, "template: %s", msg);
}

static sx_result unsupported(const char *entry)
{
    return tmpl_error(SX_ERROR_UNSUPPORTED_FEATURE, "%s is not implemented", entry);
}

/* ------------------------------------------------------------ adapter (M) */

/* M. Global setup: keep `services`; dlopen your vendor library here (never
 * link it: the adapter must load on machines without it). A missing vendor
 * library is not an error: succeed and report 0 platforms, with the reason
 * in SXA_ADAPTER_INFO_STATUS. */
static sx_result tmpl_init(const sxa_services *services, sxa_adapter *out)
{
    if (!services || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    svc = services;
    the_adapter.base.dispatch = services->dispatch;
    *out = &the_adapter;
    return SX_SUCCESS;
}

/* M. Called once, after the core released every object: free everything,
 * dlclose the vendor library. */
static sx_result tmpl_fini(sxa_adapter adapter)
{
    svc = NULL;
    return SX_SUCCESS;
}

/* M. NAME (short, e.g. "opencl"), BACKEND (SX_BACKEND_OTHER out of tree),
 * VERSION (SXA_MAKE_VERSION of the adapter itself), STATUS (one line for
 * sx-info). Two-call: sxa_info_copy/sxa_info_string do it. Unknown params:
 * SX_ERROR_INVALID_ENUMERATION through services->error(). */
static sx_result tmpl_adapter_get_info(sxa_adapter adapter, sxa_adapter_info param, size_t size, void *value,
                                       size_t *size_ret)
{
    switch (param) {
    case SXA_ADAPTER_INFO_NAME:
        return sxa_info_string("template", size, value, size_ret);
    case SXA_ADAPTER_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_OTHER;
        return sxa_info_copy(&b, sizeof b, size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_VERSION: {
        uint32_t v = SXA_MAKE_VERSION(0, 1);
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_STATUS:
        return sxa_info_string("template adapter: nothing implemented: 0 platforms", size, value, size_ret);
    }
    return tmpl_error(SX_ERROR_INVALID_ENUMERATION, "adapter info %u unknown", param);
}

/* ---------------------------------------------------------- platform (M) */

/* M. Two-call list of platforms; they live until fini. The template has
 * none, which is what a missing vendor library should answer too. */
static sx_result tmpl_platform_get(sxa_adapter adapter, uint32_t count, sxa_platform *platforms,
                                   uint32_t *num_platforms)
{
    if (num_platforms)
        *num_platforms = 0;
    return SX_SUCCESS;
}

/* M. SX_PLATFORM_INFO_NAME, VENDOR, VERSION (char[]), BACKEND (sx_backend). */
static sx_result tmpl_platform_get_info(sxa_platform platform, sx_platform_info param, size_t size, void *value,
                                        size_t *size_ret)
{
    return unsupported("platform.get_info");
}

/* ------------------------------------------------------------ device (M) */

/* M. Devices of `platform` whose type is in the mask (two-call); they live
 * until fini. None: SX_ERROR_DEVICE_NOT_FOUND or 0. */
static sx_result tmpl_device_get(sxa_platform platform, sx_device_type type, uint32_t count, sxa_device *devices,
                                 uint32_t *num_devices)
{
    return unsupported("device.get");
}

/* M. SX_DEVICE_INFO_*: TYPE and NAME required; IMAGE_KINDS lists the image
 * kinds the device takes, most preferred first (the core picks images by
 * it); ASPECTS a set of DPC++ aspect numbers; PLATFORM its sxa_platform.
 * Unknown params: SX_ERROR_INVALID_ENUMERATION or SX_ERROR_UNSUPPORTED_FEATURE. */
static sx_result tmpl_device_get_info(sxa_device device, sx_device_info param, size_t size, void *value,
                                      size_t *size_ret)
{
    return unsupported("device.get_info");
}

/* ---------------------------------------------------- context, queue (M) */

/* M. A context of devices of one platform of this adapter. */
static sx_result tmpl_context_create(uint32_t num_devices, const sxa_device *devices, sxa_context *out)
{
    return unsupported("context.create");
}

/* M. Free the context; the core released its programs and queues first. */
static sx_result tmpl_context_release(sxa_context context)
{
    return unsupported("context.release");
}

/* M. SXA_QUEUE_IN_ORDER by default; OUT_OF_ORDER may be served in order;
 * PROFILING asks for timestamps. */
static sx_result tmpl_queue_create(sxa_context context, sxa_device device, uint32_t flags, sxa_queue *out)
{
    return unsupported("queue.create");
}

/* M. Called after finish. */
static sx_result tmpl_queue_release(sxa_queue queue)
{
    return unsupported("queue.release");
}

/* M. Return when every command of the queue completed; a failed command's
 * error is returned. */
static sx_result tmpl_queue_finish(sxa_queue queue)
{
    return unsupported("queue.finish");
}

/* Optional: start submitted work. Leave NULL to let the core answer
 * "unsupported" (the entries below marked optional likewise). */
static sx_result tmpl_queue_flush(sxa_queue queue)
{
    return unsupported("queue.flush");
}

/* --------------------------------------------------------------- USM (M) */

/* M. device NULL for SX_USM_TYPE_HOST; align 0 = default, else a power of
 * two. SX_ERROR_UNSUPPORTED_FEATURE when the device has no USM of that
 * type. Never ask a driver for more managed memory than it has free. */
static sx_result tmpl_usm_alloc(sxa_context context, sxa_device device, sx_usm_type type, size_t size, size_t align,
                                void **out)
{
    return unsupported("usm.alloc");
}

/* M. Only pointers alloc returned (the core checks). */
static sx_result tmpl_usm_free(sxa_context context, void *ptr)
{
    return unsupported("usm.free");
}

/* ----------------------------------------------------------- program (M) */

/* M. A program of one image for one device. `kind` is one the device
 * listed; `desc` (may be NULL) carries the kernels' parameter lists and the
 * image's options. Check every byte you parse: images come from files. */
static sx_result tmpl_program_create(sxa_context context, sxa_device device, sx_image_kind kind, const void *data,
                                     size_t size, const sxa_program_desc *desc, sxa_program *out)
{
    return unsupported("program.create");
}

/* M. Compile and link into an executable; a failure puts the build log in
 * the error detail (SX_ERROR_BUILD_FAILURE). */
static sx_result tmpl_program_build(sxa_program program, const char *options)
{
    return unsupported("program.build");
}

/* Optional: compile only, for a later link. */
static sx_result tmpl_program_compile(sxa_program program, const char *options)
{
    return unsupported("program.compile");
}

/* Optional: link compiled programs into a new executable one; the inputs
 * stay the caller's; the backend's log goes into the error. */
static sx_result tmpl_program_link(sxa_context context, sxa_device device, uint32_t count,
                                   const sxa_program *programs, const char *options, sxa_program *out)
{
    return unsupported("program.link");
}

/* M. After every kernel of it was released. */
static sx_result tmpl_program_release(sxa_program program)
{
    return unsupported("program.release");
}

/* Optional: the built program as bytes create() accepts again (two-call),
 * for the persistent cache. */
static sx_result tmpl_program_get_binary(sxa_program program, sx_image_kind *kind, size_t size, void *value,
                                         size_t *size_ret)
{
    return unsupported("program.get_binary");
}

/* Optional: a program-scope variable's size and device address (*ptr NULL
 * where the backend has none). SX_ERROR_INVALID_GLOBAL_NAME if absent. */
static sx_result tmpl_program_get_global(sxa_program program, const char *name, size_t *size, void **ptr)
{
    return unsupported("program.get_global");
}

/* ------------------------------------------------------------ kernel (M) */

/* M. SX_ERROR_INVALID_KERNEL_NAME when the program has no such entry. */
static sx_result tmpl_kernel_create(sxa_program program, const char *name, sxa_kernel *out)
{
    return unsupported("kernel.create");
}

/* M. */
static sx_result tmpl_kernel_release(sxa_kernel kernel)
{
    return unsupported("kernel.release");
}

/* Optional: SXA_KERNEL_INFO_NUM_ARGS, MAX_WORK_GROUP_SIZE, LOCAL_MEM_SIZE. */
static sx_result tmpl_kernel_get_info(sxa_kernel kernel, sxa_kernel_info param, size_t size, void *value,
                                      size_t *size_ret)
{
    return unsupported("kernel.get_info");
}

/* ----------------------------------------------------------- enqueue (M) */

/* M. `args` gives every backend argument exactly once, in any order.
 * VALUE: copy `size` bytes at `value` before returning. POINTER: `value` IS
 * the device pointer. LOCAL: `size` bytes of work-group memory. Keep no
 * per-kernel argument state: many threads launch one kernel at once.
 * local_size NULL: choose; global_offset may be NULL; out_event NULL: do
 * not create an event. */
static sx_result tmpl_kernel_launch(sxa_queue queue, sxa_kernel kernel, uint32_t work_dim,
                                    const size_t *global_offset, const size_t *global_size, const size_t *local_size,
                                    uint32_t num_args, const sx_arg *args, uint32_t num_events,
                                    const sxa_event *wait_list, sxa_event *out_event)
{
    return unsupported("enqueue.kernel_launch");
}

/* M. Between USM and/or host memory; blocking returns when done. */
static sx_result tmpl_usm_memcpy(sxa_queue queue, int blocking, void *dst, const void *src, size_t size,
                                 uint32_t num_events, const sxa_event *wait_list, sxa_event *out_event)
{
    return unsupported("enqueue.usm_memcpy");
}

/* Optional: pattern sizes are powers of two up to 128; size a multiple. */
static sx_result tmpl_usm_fill(sxa_queue queue, void *ptr, size_t pattern_size, const void *pattern, size_t size,
                               uint32_t num_events, const sxa_event *wait_list, sxa_event *out_event)
{
    return unsupported("enqueue.usm_fill");
}

/* Optional: write `count` bytes at `offset` of the program variable `name`.
 * SX_ERROR_INVALID_GLOBAL_NAME if absent, SX_ERROR_INVALID_VALUE (with the
 * numbers) if offset + count passes its size. A non-blocking write copies
 * `src` or keeps it alive until done. */
static sx_result tmpl_global_write(sxa_queue queue, sxa_program program, const char *name, int blocking,
                                   size_t count, size_t offset, const void *src, uint32_t num_events,
                                   const sxa_event *wait_list, sxa_event *out_event)
{
    return unsupported("enqueue.global_write");
}

/* Optional: the same, reading. */
static sx_result tmpl_global_read(sxa_queue queue, sxa_program program, const char *name, int blocking,
                                  size_t count, size_t offset, void *dst, uint32_t num_events,
                                  const sxa_event *wait_list, sxa_event *out_event)
{
    return unsupported("enqueue.global_read");
}

/* Optional: an event that completes when the wait list has, or, with an
 * empty list, every earlier command of the queue. */
static sx_result tmpl_barrier(sxa_queue queue, uint32_t num_events, const sxa_event *wait_list,
                              sxa_event *out_event)
{
    return unsupported("enqueue.barrier");
}

/* ------------------------------------------------------------- event (M) */

/* M. Block until all completed; a failed command gives its error. */
static sx_result tmpl_event_wait(uint32_t count, const sxa_event *events)
{
    return unsupported("event.wait");
}

/* M. SX_EVENT_STATUS_*; a failed command answers SX_EVENT_STATUS_ERROR. */
static sx_result tmpl_event_get_status(sxa_event event, sx_event_status *status)
{
    return unsupported("event.get_status");
}

/* M. May come before the command completed. */
static sx_result tmpl_event_release(sxa_event event)
{
    return unsupported("event.release");
}

/* Optional: nanosecond timestamps for queues made with PROFILING. */
static sx_result tmpl_event_get_profiling(sxa_event event, sxa_profiling_info param, uint64_t *value)
{
    return unsupported("event.get_profiling");
}

/* --------------------------------------------- global (ABI 1.1, optional) */
/* For devices without USM only: the core asks usm.alloc for a device
 * global's instance first and comes here when it answers
 * SX_ERROR_UNSUPPORTED_FEATURE. An adapter whose devices all have USM
 * leaves this table out, as the template does by default: it is not
 * served, so the core sees SX_ERROR_INVALID_ENUMERATION for it. Build with
 * -DTMPL_DEVICES_WITHOUT_USM=1 (or delete the #if) if yours need it. */
#ifndef TMPL_DEVICES_WITHOUT_USM
#define TMPL_DEVICES_WITHOUT_USM 0
#endif
#if TMPL_DEVICES_WITHOUT_USM

/* Memory the adapter owns (an OpenCL buffer, say), zero-filled. */
static sx_result tmpl_instance_create(sxa_context context, sxa_device device, size_t size, void **instance)
{
    return unsupported("global.instance_create");
}

static sx_result tmpl_instance_release(sxa_context context, void *instance)
{
    return unsupported("global.instance_release");
}

/* Copy `count` bytes at `offset` of the instance to (write 0) or from
 * (write 1) host memory; the core has checked the bounds. */
static sx_result tmpl_instance_copy(sxa_queue queue, void *instance, int write, size_t offset, size_t count,
                                    void *host, int blocking, uint32_t num_events, const sxa_event *wait_list,
                                    sxa_event *out_event)
{
    return unsupported("global.instance_copy");
}

/* Make the program's pointer variable `name` point at the instance before
 * returning, so kernels launched afterwards see it. */
static sx_result tmpl_bind(sxa_queue queue, sxa_program program, const char *name, void *instance)
{
    return unsupported("global.bind");
}
#endif

/* ------------------------------------------------------------- tables */

static const sxa_adapter_table adapter_table = {
    .size = sizeof(sxa_adapter_table),
    .init = tmpl_init,
    .fini = tmpl_fini,
    .get_info = tmpl_adapter_get_info,
};
static const sxa_platform_table platform_table = {
    .size = sizeof(sxa_platform_table),
    .get = tmpl_platform_get,
    .get_info = tmpl_platform_get_info,
};
static const sxa_device_table device_table = {
    .size = sizeof(sxa_device_table),
    .get = tmpl_device_get,
    .get_info = tmpl_device_get_info,
};
static const sxa_context_table context_table = {
    .size = sizeof(sxa_context_table),
    .create = tmpl_context_create,
    .release = tmpl_context_release,
};
static const sxa_queue_table queue_table = {
    .size = sizeof(sxa_queue_table),
    .create = tmpl_queue_create,
    .release = tmpl_queue_release,
    .finish = tmpl_queue_finish,
    .flush = tmpl_queue_flush,
};
static const sxa_usm_table usm_table = {
    .size = sizeof(sxa_usm_table),
    .alloc = tmpl_usm_alloc,
    .free = tmpl_usm_free,
};
static const sxa_program_table program_table = {
    .size = sizeof(sxa_program_table),
    .create = tmpl_program_create,
    .build = tmpl_program_build,
    .compile = tmpl_program_compile,
    .link = tmpl_program_link,
    .release = tmpl_program_release,
    .get_binary = tmpl_program_get_binary,
    .get_global = tmpl_program_get_global,
};
static const sxa_kernel_table kernel_table = {
    .size = sizeof(sxa_kernel_table),
    .create = tmpl_kernel_create,
    .release = tmpl_kernel_release,
    .get_info = tmpl_kernel_get_info,
};
static const sxa_enqueue_table enqueue_table = {
    .size = sizeof(sxa_enqueue_table),
    .kernel_launch = tmpl_kernel_launch,
    .usm_memcpy = tmpl_usm_memcpy,
    .usm_fill = tmpl_usm_fill,
    .global_write = tmpl_global_write,
    .global_read = tmpl_global_read,
    .barrier = tmpl_barrier,
};
static const sxa_event_table event_table = {
    .size = sizeof(sxa_event_table),
    .wait = tmpl_event_wait,
    .get_status = tmpl_event_get_status,
    .release = tmpl_event_release,
    .get_profiling = tmpl_event_get_profiling,
};
#if TMPL_DEVICES_WITHOUT_USM
static const sxa_global_table global_table = {
    .size = sizeof(sxa_global_table),
    .instance_create = tmpl_instance_create,
    .instance_release = tmpl_instance_release,
    .instance_copy = tmpl_instance_copy,
    .bind = tmpl_bind,
};
#endif

/* The one export. Refuse a major version you do not speak (any minor of a
 * known major is fine: minors only append entries); refuse unknown tables
 * with SX_ERROR_INVALID_ENUMERATION; copy no more than the core's size
 * field allows (SXA_FILL_TABLE does that). */
SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table)
{
    static const void *const tables[SXA_TABLE_COUNT_] = {
        [SXA_TABLE_ADAPTER] = &adapter_table,
        [SXA_TABLE_PLATFORM] = &platform_table,
        [SXA_TABLE_DEVICE] = &device_table,
        [SXA_TABLE_CONTEXT] = &context_table,
        [SXA_TABLE_QUEUE] = &queue_table,
        [SXA_TABLE_USM] = &usm_table,
        [SXA_TABLE_PROGRAM] = &program_table,
        [SXA_TABLE_KERNEL] = &kernel_table,
        [SXA_TABLE_ENQUEUE] = &enqueue_table,
        [SXA_TABLE_EVENT] = &event_table,
#if TMPL_DEVICES_WITHOUT_USM
        [SXA_TABLE_GLOBAL] = &global_table,
#endif
    };
    return sxa_serve_table(abi_version, id, table, tables, SXA_TABLE_COUNT_);
}
