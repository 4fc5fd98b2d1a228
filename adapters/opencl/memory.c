/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* memory.c: contexts, queues, events, USM (Intel USM or SVM) and USM copies/fills. */
#include "opencl.h"

#include <stdlib.h>
#include <string.h>

/* ---- events ---- */

sx_result sxo_wait_list(uint32_t n, const sxa_event *events, cl_event *buf, size_t cap,
                        cl_event **out)
{
    *out = NULL;
    if (n == 0)
        return SX_SUCCESS;
    if (!events)
        return sxo_error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "opencl: %u events but no list", n);
    cl_event *list = n <= cap ? buf : malloc(n * sizeof *list);
    if (!list)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: wait list of %u events", n);
    for (uint32_t i = 0; i < n; i++) {
        if (!events[i]) {
            if (list != buf)
                free(list);
            return sxo_error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "opencl: event %u of the wait "
                             "list is NULL", i);
        }
        list[i] = events[i]->ev;
    }
    *out = list;
    return SX_SUCCESS;
}

void sxo_wait_list_free(cl_event *list, cl_event *buf)
{
    if (list && list != buf)
        free(list);
}

sx_result sxo_event_out(cl_event ev, sxa_event *out)
{
    if (!out) {
        if (ev)
            sxo_cl.clReleaseEvent(ev);
        return SX_SUCCESS;
    }
    struct sxa_event_s *e = malloc(sizeof *e);
    if (!e) {
        /* The command is enqueued; waiting keeps the caller's view right. */
        sxo_cl.clWaitForEvents(1, &ev);
        sxo_cl.clReleaseEvent(ev);
        *out = NULL;
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: event wrapper");
    }
    e->base.dispatch = sxo_svc->dispatch;
    e->ev = ev;
    *out = e;
    return SX_SUCCESS;
}

__attribute__((hot)) sx_result sxo_event_wait(uint32_t count, const sxa_event *events)
{
    cl_event buf[16], *list = NULL;
    if (count == 0)
        return SX_SUCCESS;
    /* One event (the usual wait for one command): no list to build. */
    int one = count == 1 && events && events[0];
    sx_result rc = one ? SX_SUCCESS : sxo_wait_list(count, events, buf, SXO_ARRAY_SIZE(buf), &list);
    if (rc != SX_SUCCESS)
        return rc;
    cl_int err = sxo_cl.clWaitForEvents(count, one ? &events[0]->ev : list);
    sxo_wait_list_free(list, buf);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clWaitForEvents", "on %u events", count);
    return SX_SUCCESS;
}

static sx_result event_get_status(sxa_event event, sx_event_status *status)
{
    if (!event)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!status)
        return SX_ERROR_INVALID_NULL_POINTER;
    cl_int s;
    cl_int err = sxo_cl.clGetEventInfo(event->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof s, &s,
                                       NULL);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clGetEventInfo", "for event %p", (void *)event);
    switch (s) {
    case CL_COMPLETE: *status = SX_EVENT_STATUS_COMPLETE; break;
    case CL_RUNNING: *status = SX_EVENT_STATUS_RUNNING; break;
    case CL_SUBMITTED: *status = SX_EVENT_STATUS_SUBMITTED; break;
    case CL_QUEUED: *status = SX_EVENT_STATUS_QUEUED; break;
    default: *status = SX_EVENT_STATUS_ERROR; break;
    }
    return SX_SUCCESS;
}

static __attribute__((hot)) sx_result event_release(sxa_event event)
{
    if (!event)
        return SX_ERROR_INVALID_NULL_HANDLE;
    sxo_cl.clReleaseEvent(event->ev);
    free(event);
    return SX_SUCCESS;
}

static sx_result event_get_profiling(sxa_event event, sxa_profiling_info param, uint64_t *value)
{
    if (!event)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!value)
        return SX_ERROR_INVALID_NULL_POINTER;
    cl_profiling_info p;
    switch (param) {
    case SXA_PROFILING_QUEUED: p = CL_PROFILING_COMMAND_QUEUED; break;
    case SXA_PROFILING_SUBMIT: p = CL_PROFILING_COMMAND_SUBMIT; break;
    case SXA_PROFILING_START: p = CL_PROFILING_COMMAND_START; break;
    case SXA_PROFILING_END: p = CL_PROFILING_COMMAND_END; break;
    default:
        return sxo_error(SX_ERROR_INVALID_ENUMERATION, "opencl: profiling info %u unknown", param);
    }
    cl_ulong ns;
    cl_int err = sxo_cl.clGetEventProfilingInfo(event->ev, p, sizeof ns, &ns, NULL);
    if (err == CL_PROFILING_INFO_NOT_AVAILABLE)
        return sxo_svc->error(SX_ERROR_INVALID_OPERATION,
                              "clGetEventProfilingInfo: CL_PROFILING_INFO_NOT_AVAILABLE (-7) for "
                              "event %p: its queue has no profiling or it has not completed",
                              (void *)event);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clGetEventProfilingInfo", "for event %p", (void *)event);
    *value = ns;
    return SX_SUCCESS;
}

const sxa_event_table sxo_event_table = {
    .size = sizeof(sxa_event_table),
    .wait = sxo_event_wait,
    .get_status = event_get_status,
    .release = event_release,
    .get_profiling = event_get_profiling,
};

/* ---- contexts ---- */

static sx_result context_create(uint32_t num_devices, const sxa_device *devices, sxa_context *out)
{
    if (!out || !devices)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (num_devices == 0 || num_devices > 4096)
        return sxo_error(SX_ERROR_INVALID_SIZE, "opencl: context of %u devices", num_devices);
    struct sxa_context_s *c = calloc(1, sizeof *c);
    cl_device_id *ids = calloc(num_devices, sizeof *ids);
    if (c)
        c->devices = calloc(num_devices, sizeof *c->devices);
    if (!c || !ids || !c->devices) {
        free(ids);
        if (c)
            free(c->devices);
        free(c);
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: context");
    }
    for (uint32_t i = 0; i < num_devices; i++) {
        if (!devices[i] || devices[i]->platform != devices[0]->platform) {
            free(ids);
            free(c->devices);
            free(c);
            return sxo_error(SX_ERROR_INVALID_DEVICE,
                             "opencl: device %u of a context is NULL or on another platform", i);
        }
        ids[i] = devices[i]->id;
        c->devices[i] = devices[i];
    }
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     (cl_context_properties)devices[0]->platform->id, 0};
    cl_int err;
    c->ctx = sxo_cl.clCreateContext(props, num_devices, ids, NULL, NULL, &err);
    free(ids);
    if (!c->ctx) {
        free(c->devices);
        free(c);
        return sxo_fail(err, "clCreateContext", "for %u device(s) of '%s'", num_devices,
                        devices[0]->platform->name);
    }
    c->base.dispatch = sxo_svc->dispatch;
    c->num_devices = num_devices;
    pthread_mutex_init(&c->lock, NULL);
    *out = c;
    return SX_SUCCESS;
}

static sx_result context_release(sxa_context context)
{
    if (!context)
        return SX_ERROR_INVALID_NULL_HANDLE;
    /* Allocations the caller never freed go with the context. */
    if (context->aligned)
        atomic_fetch_add(&sxo_usm_frees, 1);
    for (sxo_aligned *a = context->aligned, *next; a; a = next) {
        next = a->next;
        sxo_cl.clSVMFree(context->ctx, a->base);
        free(a);
    }
    pthread_mutex_destroy(&context->lock);
    sxo_cl.clReleaseContext(context->ctx);
    free(context->devices);
    free(context);
    return SX_SUCCESS;
}

const sxa_context_table sxo_context_table = {
    .size = sizeof(sxa_context_table),
    .create = context_create,
    .release = context_release,
};

int sxo_context_has(const struct sxa_context_s *c, const struct sxa_device_s *d)
{
    for (uint32_t i = 0; i < c->num_devices; i++)
        if (c->devices[i] == d)
            return 1;
    return 0;
}

/* ---- queues ---- */

cl_command_queue sxo_create_cl_queue(struct sxa_context_s *ctx, struct sxa_device_s *dev,
                                     uint32_t flags, cl_int *err)
{
    cl_command_queue_properties p = 0;
    if ((flags & SXA_QUEUE_OUT_OF_ORDER) &&
        (dev->queue_props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
        p |= CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
    if ((flags & SXA_QUEUE_PROFILING) && (dev->queue_props & CL_QUEUE_PROFILING_ENABLE))
        p |= CL_QUEUE_PROFILING_ENABLE;
    if (dev->version >= SXO_VERSION(2, 0) && sxo_cl.clCreateCommandQueueWithProperties) {
        cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, p, 0};
        return sxo_cl.clCreateCommandQueueWithProperties(ctx->ctx, dev->id, p ? props : NULL,
                                                         err);
    }
    return sxo_cl.clCreateCommandQueue(ctx->ctx, dev->id, p, err);
}

static sx_result queue_create(sxa_context context, sxa_device device, uint32_t flags,
                              sxa_queue *out)
{
    if (!context || !device)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (!sxo_context_has(context, device))
        return sxo_error(SX_ERROR_INVALID_DEVICE, "opencl: device '%s' is not in context %p",
                         device->name, (void *)context);
    if ((flags & SXA_QUEUE_PROFILING) && !(device->queue_props & CL_QUEUE_PROFILING_ENABLE))
        return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE, "opencl: device '%s' has no queue "
                         "profiling", device->name);
    struct sxa_queue_s *q = calloc(1, sizeof *q);
    if (!q)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: queue");
    cl_int err;
    q->q = sxo_create_cl_queue(context, device, flags, &err);
    if (!q->q) {
        free(q);
        return sxo_fail(err, "clCreateCommandQueue", "on '%s' (flags 0x%x)", device->name, flags);
    }
    q->base.dispatch = sxo_svc->dispatch;
    q->context = context;
    q->device = device;
    *out = q;
    return SX_SUCCESS;
}

static sx_result queue_release(sxa_queue queue)
{
    if (!queue)
        return SX_ERROR_INVALID_NULL_HANDLE;
    sxo_cl.clReleaseCommandQueue(queue->q);
    free(queue);
    return SX_SUCCESS;
}

static sx_result queue_finish(sxa_queue queue)
{
    if (!queue)
        return SX_ERROR_INVALID_NULL_HANDLE;
    cl_int err = sxo_cl.clFinish(queue->q);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clFinish", "on queue %p", (void *)queue);
    atomic_store_explicit(&queue->kernels_pending, 0, memory_order_relaxed);
    return SX_SUCCESS;
}

static sx_result queue_flush(sxa_queue queue)
{
    if (!queue)
        return SX_ERROR_INVALID_NULL_HANDLE;
    cl_int err = sxo_cl.clFlush(queue->q);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clFlush", "on queue %p", (void *)queue);
    return SX_SUCCESS;
}

const sxa_queue_table sxo_queue_table = {
    .size = sizeof(sxa_queue_table),
    .create = queue_create,
    .release = queue_release,
    .finish = queue_finish,
    .flush = queue_flush,
};

/* ---- USM ---- */

/* The USM flavour a context uses: the weakest of its devices (all of them
 * must be able to reach an allocation). */
enum sxo_usm_mode sxo_context_usm(const struct sxa_context_s *c)
{
    enum sxo_usm_mode m = SXO_USM_INTEL;
    for (uint32_t i = 0; i < c->num_devices; i++)
        if (c->devices[i]->usm < m)
            m = c->devices[i]->usm;
    return m;
}

static sx_result usm_alloc(sxa_context context, sxa_device device, sx_usm_type type, size_t size,
                           size_t align, void **out)
{
    if (!context)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!out)
        return SX_ERROR_INVALID_NULL_POINTER;
    *out = NULL;
    if (type != SX_USM_TYPE_HOST && type != SX_USM_TYPE_DEVICE && type != SX_USM_TYPE_SHARED)
        return sxo_error(SX_ERROR_INVALID_ENUMERATION, "opencl: USM type %u", type);
    if (type != SX_USM_TYPE_HOST && !device)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (device && !sxo_context_has(context, device))
        return sxo_error(SX_ERROR_INVALID_DEVICE, "opencl: device '%s' is not in context %p",
                         device->name, (void *)context);
    if (size == 0)
        return sxo_error(SX_ERROR_INVALID_SIZE, "opencl: USM allocation of 0 bytes");
    if (align & (align - 1))
        return sxo_error(SX_ERROR_INVALID_VALUE, "opencl: alignment %zu is not a power of two",
                         align);
    if (align > UINT32_MAX)
        return sxo_error(SX_ERROR_INVALID_VALUE, "opencl: alignment %zu too large", align);
    struct sxa_device_s *d = device ? device : context->devices[0];
    cl_int err = CL_SUCCESS;
    void *p = NULL;
    atomic_fetch_or(&context->usm_kinds, 1u << type); /* before any kernel can be given the memory */
    switch (sxo_context_usm(context)) {
    case SXO_USM_INTEL: {
        const sxo_ext *e = &d->platform->ext;
        if (type == SX_USM_TYPE_HOST)
            p = e->host_alloc(context->ctx, NULL, size, (cl_uint)align, &err);
        else if (type == SX_USM_TYPE_DEVICE)
            p = e->device_alloc(context->ctx, d->id, NULL, size, (cl_uint)align, &err);
        else
            p = e->shared_alloc(context->ctx, d->id, NULL, size, (cl_uint)align, &err);
        if (!p)
            return sxo_fail(err, type == SX_USM_TYPE_HOST     ? "clHostMemAllocINTEL"
                                 : type == SX_USM_TYPE_DEVICE ? "clDeviceMemAllocINTEL"
                                                              : "clSharedMemAllocINTEL",
                            "for %zu bytes", size);
        break;
    }
    case SXO_USM_SVM: {
        /* Device USM is coarse-grained SVM (host reaches it by copies
         * only, as with device USM); host and shared need fine grain. */
        cl_svm_mem_flags flags = CL_MEM_READ_WRITE;
        if (type != SX_USM_TYPE_DEVICE) {
            for (uint32_t i = 0; i < context->num_devices; i++)
                if (!(context->devices[i]->svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER))
                    return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE,
                                     "opencl: '%s' has no fine-grained SVM for %s USM",
                                     context->devices[i]->name,
                                     type == SX_USM_TYPE_HOST ? "host" : "shared");
            flags |= CL_MEM_SVM_FINE_GRAIN_BUFFER;
        }
        p = sxo_cl.clSVMAlloc(context->ctx, flags, size, (cl_uint)align);
        if (!p && align > 128 && size <= SIZE_MAX - align) {
            /* Drivers cap clSVMAlloc's alignment at their largest type
             * (PoCL: 128); USM promises any power of two: over-allocate
             * and remember the base for free. */
            sxo_aligned *a = malloc(sizeof *a);
            void *base = a ? sxo_cl.clSVMAlloc(context->ctx, flags, size + align, 0) : NULL;
            if (!base) {
                free(a);
            } else {
                a->base = base;
                a->ptr = p = (void *)(((uintptr_t)base + align - 1) & ~(uintptr_t)(align - 1));
                pthread_mutex_lock(&context->lock);
                a->next = context->aligned;
                context->aligned = a;
                pthread_mutex_unlock(&context->lock);
            }
        }
        if (!p)
            return sxo_error(SX_ERROR_OUT_OF_DEVICE_MEMORY,
                             "clSVMAlloc: NULL for %zu bytes (alignment %zu) on '%s'", size, align,
                             d->name);
        break;
    }
    default:
        return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "opencl: '%s' (OpenCL %d.%d) has neither cl_intel_unified_shared_memory "
                         "nor SVM: no USM allocation",
                         d->name, d->version / 10, d->version % 10);
    }
    *out = p;
    return SX_SUCCESS;
}

_Atomic unsigned long sxo_usm_frees;

static sx_result usm_free(sxa_context context, void *ptr)
{
    if (!context)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!ptr)
        return SX_SUCCESS;
    /* Before the free: a launch that gets this address back from a later
     * allocation sees the count moved and sets its pointer arguments again. */
    atomic_fetch_add(&sxo_usm_frees, 1);
    switch (sxo_context_usm(context)) {
    case SXO_USM_INTEL: {
        /* Blocking: the memory may still be used by enqueued commands. */
        cl_int err = context->devices[0]->platform->ext.blocking_free(context->ctx, ptr);
        if (err != CL_SUCCESS)
            return sxo_fail(err, "clMemBlockingFreeINTEL", "for %p", ptr);
        return SX_SUCCESS;
    }
    case SXO_USM_SVM: {
        void *base = ptr;
        pthread_mutex_lock(&context->lock);
        for (sxo_aligned **a = &context->aligned; *a; a = &(*a)->next)
            if ((*a)->ptr == ptr) {
                sxo_aligned *dead = *a;
                base = dead->base;
                *a = dead->next;
                free(dead);
                break;
            }
        pthread_mutex_unlock(&context->lock);
        sxo_cl.clSVMFree(context->ctx, base);
        return SX_SUCCESS;
    }
    default:
        return sxo_error(SX_ERROR_INVALID_VALUE, "opencl: %p was not allocated here (no USM)",
                         ptr);
    }
}

const sxa_usm_table sxo_usm_table = {
    .size = sizeof(sxa_usm_table),
    .alloc = usm_alloc,
    .free = usm_free,
};

/* ---- enqueue: copies, fills, barrier ---- */

sx_result sxo_usm_memcpy(sxa_queue queue, int blocking, void *dst, const void *src, size_t size,
                         uint32_t num_events, const sxa_event *wait_list, sxa_event *out_event)
{
    if (!queue)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (out_event)
        *out_event = NULL;
    if (size && (!dst || !src))
        return SX_ERROR_INVALID_NULL_POINTER;
    uintptr_t d0 = (uintptr_t)dst, s0 = (uintptr_t)src;
    if (size && d0 < s0 + size && s0 < d0 + size)
        return sxo_error(SX_ERROR_INVALID_VALUE, "opencl: memcpy of %zu bytes between "
                         "overlapping %p and %p", size, dst, src);
    cl_event buf[16], *list, ev = NULL;
    sx_result rc = sxo_wait_list(num_events, wait_list, buf, SXO_ARRAY_SIZE(buf), &list);
    if (rc != SX_SUCCESS)
        return rc;
    /* a blocking empty copy still waits for its wait list */
    cl_event *evp = out_event || (blocking && size == 0) ? &ev : NULL;
    cl_int err;
    const char *call;
    struct sxa_device_s *d = queue->device;
    if (size == 0) {
        call = "clEnqueueMarkerWithWaitList";
        err = sxo_cl.clEnqueueMarkerWithWaitList(queue->q, num_events, list, evp);
        if (err == CL_SUCCESS && blocking && ev)
            sxo_cl.clWaitForEvents(1, &ev);
    } else if (d->usm == SXO_USM_INTEL) {
        call = "clEnqueueMemcpyINTEL";
        err = d->platform->ext.memcpy(queue->q, blocking ? CL_TRUE : CL_FALSE, dst, src, size,
                                      num_events, list, evp);
    } else if (d->usm == SXO_USM_SVM) {
        call = "clEnqueueSVMMemcpy";
        err = sxo_cl.clEnqueueSVMMemcpy(queue->q, blocking ? CL_TRUE : CL_FALSE, dst, src, size,
                                        num_events, list, evp);
    } else {
        sxo_wait_list_free(list, buf);
        return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "opencl: '%s' has no USM or SVM: no USM copies", d->name);
    }
    sxo_wait_list_free(list, buf);
    if (err != CL_SUCCESS)
        return sxo_fail(err, call, "of %zu bytes from %p to %p", size, src, dst);
    return sxo_event_out(ev, out_event);
}

sx_result sxo_usm_fill(sxa_queue queue, void *ptr, size_t pattern_size, const void *pattern,
                       size_t size, uint32_t num_events, const sxa_event *wait_list,
                       sxa_event *out_event)
{
    if (!queue)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (out_event)
        *out_event = NULL;
    if (!pattern || (size && !ptr))
        return SX_ERROR_INVALID_NULL_POINTER;
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)))
        return sxo_error(SX_ERROR_INVALID_VALUE,
                         "opencl: fill pattern of %zu bytes (1, 2, 4, ... 128 allowed)",
                         pattern_size);
    if (size % pattern_size)
        return sxo_error(SX_ERROR_INVALID_SIZE,
                         "opencl: fill of %zu bytes is not a multiple of its %zu-byte pattern",
                         size, pattern_size);
    if ((uintptr_t)ptr % pattern_size)
        return sxo_error(SX_ERROR_INVALID_VALUE,
                         "opencl: fill at %p is not aligned to its %zu-byte pattern", ptr,
                         pattern_size);
    cl_event buf[16], *list, ev = NULL;
    sx_result rc = sxo_wait_list(num_events, wait_list, buf, SXO_ARRAY_SIZE(buf), &list);
    if (rc != SX_SUCCESS)
        return rc;
    cl_event *evp = out_event ? &ev : NULL;
    cl_int err;
    const char *call;
    struct sxa_device_s *d = queue->device;
    if (size == 0) {
        call = "clEnqueueMarkerWithWaitList";
        err = sxo_cl.clEnqueueMarkerWithWaitList(queue->q, num_events, list, evp);
    } else if (d->usm == SXO_USM_INTEL) {
        call = "clEnqueueMemFillINTEL";
        err = d->platform->ext.fill(queue->q, ptr, pattern, pattern_size, size, num_events, list,
                                    evp);
    } else if (d->usm == SXO_USM_SVM) {
        call = "clEnqueueSVMMemFill";
        err = sxo_cl.clEnqueueSVMMemFill(queue->q, ptr, pattern, pattern_size, size, num_events,
                                         list, evp);
    } else {
        sxo_wait_list_free(list, buf);
        return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "opencl: '%s' has no USM or SVM: no USM fills", d->name);
    }
    sxo_wait_list_free(list, buf);
    if (err != CL_SUCCESS)
        return sxo_fail(err, call, "of %zu bytes at %p (pattern %zu bytes)", size, ptr,
                        pattern_size);
    return sxo_event_out(ev, out_event);
}

sx_result sxo_barrier(sxa_queue queue, uint32_t num_events, const sxa_event *wait_list,
                      sxa_event *out_event)
{
    if (!queue)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (out_event)
        *out_event = NULL;
    cl_event buf[16], *list, ev = NULL;
    sx_result rc = sxo_wait_list(num_events, wait_list, buf, SXO_ARRAY_SIZE(buf), &list);
    if (rc != SX_SUCCESS)
        return rc;
    cl_int err = sxo_cl.clEnqueueBarrierWithWaitList(queue->q, num_events, list,
                                                     out_event ? &ev : NULL);
    sxo_wait_list_free(list, buf);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clEnqueueBarrierWithWaitList", "on queue %p with %u events",
                        (void *)queue, num_events);
    return sxo_event_out(ev, out_event);
}
