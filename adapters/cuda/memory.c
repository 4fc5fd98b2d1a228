/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* memory.c: contexts, queues (streams), events and USM of the CUDA adapter. */
#include <stdlib.h>

#include "sxc.h"

/* ---- context: a list of devices; each uses its primary context ---- */

static sx_result context_create(uint32_t n, const sxa_device *devices, sxa_context *out)
{
    if (!n || !devices || !out)
        return sxc_services->error(SX_ERROR_INVALID_VALUE, "context of %u devices", n);
    sxc_context_t *c = calloc(1, sizeof(*c));
    if (c)
        c->devices = calloc(n, sizeof(*c->devices));
    if (!c || !c->devices) {
        free(c);
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    }
    c->base.dispatch = SXC_DISPATCH();
    c->num_devices = n;
    for (uint32_t i = 0; i < n; i++) {
        c->devices[i] = (sxc_device_t *)devices[i];
        CUcontext cu;
        sx_result rc = sxc_device_context(c->devices[i], &cu);
        if (rc != SX_SUCCESS) {
            free(c->devices);
            free(c);
            return rc;
        }
    }
    *out = (sxa_context)c;
    return SX_SUCCESS;
}

static sx_result context_release(sxa_context ctx)
{
    sxc_context_t *c = (sxc_context_t *)ctx;
    if (c) {
        free(c->devices);
        free(c);
    }
    return SX_SUCCESS;
}

const sxa_context_table sxc_context_table = {
    .size = sizeof(sxa_context_table),
    .create = context_create,
    .release = context_release,
};

/* ---- queue: one non-blocking stream (in order) ---- */

static sx_result queue_create(sxa_context ctx, sxa_device dev, uint32_t flags, sxa_queue *out)
{
    sxc_context_t *c = (sxc_context_t *)ctx;
    sxc_device_t *d = (sxc_device_t *)dev;
    uint32_t i;
    for (i = 0; i < c->num_devices && c->devices[i] != d; i++)
        ;
    if (i == c->num_devices)
        return sxc_services->error(SX_ERROR_INVALID_DEVICE, "queue: device %s is not in context %p",
                                   d->name, (void *)c);
    sxc_queue_t *q = calloc(1, sizeof(*q));
    if (!q)
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    q->base.dispatch = SXC_DISPATCH();
    q->context = c;
    q->device = d;
    sx_result rc = sxc_device_context(d, &q->cuctx);
    if (rc != SX_SUCCESS)
        goto fail;
    CUresult r = sxc_make_current(q->cuctx);
    /* Non-blocking: no implicit sync with the legacy default stream that
     * other code in the process may use. Out-of-order requests get an
     * in-order stream, which the ABI allows. */
    if (r == CUDA_SUCCESS)
        r = sxc_cu.cuStreamCreate(&q->stream, CU_STREAM_NON_BLOCKING);
    if (r != CUDA_SUCCESS) {
        rc = sxc_error(SX_SUCCESS, r, "cuStreamCreate for device %s", d->name);
        goto fail;
    }
    if (flags & SXA_QUEUE_PROFILING) {
        q->profiling = 1;
        pthread_mutex_lock(&d->lock);
        if (!d->base_event) {
            CUevent base = NULL;
            r = sxc_cu.cuEventCreate(&base, CU_EVENT_DEFAULT);
            if (r == CUDA_SUCCESS)
                r = sxc_cu.cuEventRecord(base, q->stream);
            if (r == CUDA_SUCCESS)
                r = sxc_cu.cuEventSynchronize(base);
            if (r == CUDA_SUCCESS) {
                d->base_ns = sxc_now_ns();
                d->base_event = base;
            } else if (base) {
                sxc_cu.cuEventDestroy_v2(base);
            }
        }
        pthread_mutex_unlock(&d->lock);
        if (r != CUDA_SUCCESS) {
            rc = sxc_error(SX_SUCCESS, r, "cuEventRecord of the profiling base for queue %p",
                           (void *)q);
            sxc_cu.cuStreamDestroy_v2(q->stream);
            goto fail;
        }
    }
    *out = (sxa_queue)q;
    return SX_SUCCESS;
fail:
    free(q);
    return rc;
}

static sx_result queue_finish(sxa_queue queue)
{
    sxc_queue_t *q = (sxc_queue_t *)queue;
    CUresult r = sxc_cu.cuStreamSynchronize(q->stream);
    if (r != CUDA_SUCCESS)
        return sxc_error(SX_SUCCESS, r, "cuStreamSynchronize for queue %p", (void *)q);
    return SX_SUCCESS;
}

static sx_result queue_flush(sxa_queue queue)
{
    return SX_SUCCESS; /* streams submit at once */
}

static sx_result queue_release(sxa_queue queue)
{
    sxc_queue_t *q = (sxc_queue_t *)queue;
    if (!q)
        return SX_SUCCESS;
    sxc_make_current(q->cuctx);
    CUresult r = sxc_cu.cuStreamDestroy_v2(q->stream);
    sx_result rc = SX_SUCCESS;
    if (r != CUDA_SUCCESS)
        rc = sxc_error(SX_SUCCESS, r, "cuStreamDestroy for queue %p", (void *)q);
    free(q);
    return rc;
}

const sxa_queue_table sxc_queue_table = {
    .size = sizeof(sxa_queue_table),
    .create = queue_create,
    .release = queue_release,
    .finish = queue_finish,
    .flush = queue_flush,
};

/* ---- events ---- */

sx_result sxc_wait_list(sxc_queue_t *q, uint32_t n, const sxa_event *list)
{
    if (n && !list)
        return sxc_services->error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "%u events but no list", n);
    for (uint32_t i = 0; i < n; i++) {
        const sxc_event_t *e = (const sxc_event_t *)list[i];
        if (!e)
            return sxc_services->error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "event %u of the wait list is NULL", i);
        /* Same stream: in order already. */
        if (e->queue == q)
            continue;
        CUresult r = sxc_cu.cuStreamWaitEvent(q->stream, e->ev, 0);
        if (r != CUDA_SUCCESS)
            return sxc_error(SX_SUCCESS, r, "cuStreamWaitEvent for queue %p, event %u of the wait list",
                             (void *)q, i);
    }
    return SX_SUCCESS;
}

sx_result sxc_event_begin(sxc_queue_t *q, sxa_event *out, sxc_event_t **evp)
{
    *evp = NULL;
    if (!out)
        return SX_SUCCESS;
    sxc_event_t *e = calloc(1, sizeof(*e));
    if (!e)
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    e->base.dispatch = SXC_DISPATCH();
    e->queue = q;
    e->device = q->device;
    CUresult r = CUDA_SUCCESS;
    if (q->profiling) {
        /* Timing costs: only profiling queues get timed events. */
        e->queued_ns = sxc_now_ns();
        r = sxc_cu.cuEventCreate(&e->ev, CU_EVENT_DEFAULT);
        if (r == CUDA_SUCCESS)
            r = sxc_cu.cuEventCreate(&e->start, CU_EVENT_DEFAULT);
        if (r == CUDA_SUCCESS)
            r = sxc_cu.cuEventRecord(e->start, q->stream);
    } else {
        sxc_device_t *d = q->device;
        pthread_mutex_lock(&d->pool_lock);
        if (d->pool_n)
            e->ev = d->pool[--d->pool_n];
        pthread_mutex_unlock(&d->pool_lock);
        if (!e->ev)
            r = sxc_cu.cuEventCreate(&e->ev, CU_EVENT_DISABLE_TIMING);
    }
    if (r != CUDA_SUCCESS) {
        sxc_event_discard(e);
        return sxc_error(SX_SUCCESS, r, "cuEventCreate for queue %p", (void *)q);
    }
    *evp = e;
    return SX_SUCCESS;
}

sx_result sxc_event_end(sxc_queue_t *q, sxc_event_t *e, sxa_event *out)
{
    if (!e)
        return SX_SUCCESS;
    CUresult r = sxc_cu.cuEventRecord(e->ev, q->stream);
    if (r != CUDA_SUCCESS) {
        sxc_event_discard(e);
        return sxc_error(SX_SUCCESS, r, "cuEventRecord for queue %p", (void *)q);
    }
    *out = (sxa_event)e;
    return SX_SUCCESS;
}

void sxc_event_discard(sxc_event_t *e)
{
    if (!e)
        return;
    if (e->ev && !e->start) {
        /* Untimed: back to the device's pool (the primary context, hence
         * the events, live until fini). */
        sxc_device_t *d = e->device;
        pthread_mutex_lock(&d->pool_lock);
        if (d->pool_n < SXC_EVENT_POOL) {
            d->pool[d->pool_n++] = e->ev;
            e->ev = NULL;
        }
        pthread_mutex_unlock(&d->pool_lock);
    }
    if (e->ev)
        sxc_cu.cuEventDestroy_v2(e->ev);
    if (e->start)
        sxc_cu.cuEventDestroy_v2(e->start);
    free(e);
}

void sxc_device_cleanup(sxc_device_t *d)
{
    CUcontext c = atomic_load(&d->ctx);
    if (!c || sxc_make_current(c) != CUDA_SUCCESS)
        return;
    for (uint32_t i = 0; i < d->pool_n; i++)
        sxc_cu.cuEventDestroy_v2(d->pool[i]);
    d->pool_n = 0;
    if (d->base_event)
        sxc_cu.cuEventDestroy_v2(d->base_event);
    d->base_event = NULL;
}

static sx_result event_wait(uint32_t n, const sxa_event *events)
{
    for (uint32_t i = 0; i < n; i++) {
        const sxc_event_t *e = (const sxc_event_t *)events[i];
        CUresult r = sxc_cu.cuEventSynchronize(e->ev);
        if (r != CUDA_SUCCESS)
            return sxc_error(SX_ERROR_EVENT_FAILED, r, "cuEventSynchronize for event %p",
                             (const void *)e);
    }
    return SX_SUCCESS;
}

static sx_result event_get_status(sxa_event event, sx_event_status *status)
{
    const sxc_event_t *e = (const sxc_event_t *)event;
    CUresult r = sxc_cu.cuEventQuery(e->ev);
    if (r == CUDA_SUCCESS)
        *status = SX_EVENT_STATUS_COMPLETE;
    else if (r == CUDA_ERROR_NOT_READY)
        *status = SX_EVENT_STATUS_SUBMITTED;
    else
        *status = SX_EVENT_STATUS_ERROR;
    return SX_SUCCESS;
}

static sx_result event_release(sxa_event event)
{
    sxc_event_discard((sxc_event_t *)event);
    return SX_SUCCESS;
}

static sx_result event_get_profiling(sxa_event event, sxa_profiling_info param, uint64_t *value)
{
    const sxc_event_t *e = (const sxc_event_t *)event;
    if (!e->start || !sxc_cu.elapsed || !e->device->base_event)
        return sxc_services->error(SX_ERROR_INVALID_OPERATION,
                                   "event %p: its queue was not created with profiling",
                                   (const void *)e);
    if (param == SXA_PROFILING_QUEUED || param == SXA_PROFILING_SUBMIT) {
        *value = e->queued_ns;
        return SX_SUCCESS;
    }
    if (param != SXA_PROFILING_START && param != SXA_PROFILING_END)
        return sxc_services->error(SX_ERROR_INVALID_ENUMERATION, "profiling info %u unknown", param);
    CUevent which = param == SXA_PROFILING_START ? e->start : e->ev;
    float ms = 0;
    /* Device times are relative to the queue's base event, whose host time
     * was taken when it completed; the sum keeps one clock for all four. */
    CUresult r = sxc_cu.elapsed(&ms, e->device->base_event, which);
    if (r != CUDA_SUCCESS)
        return sxc_error(r == CUDA_ERROR_NOT_READY ? SX_ERROR_INVALID_OPERATION : SX_SUCCESS, r,
                         "cuEventElapsedTime for event %p", (const void *)e);
    *value = e->device->base_ns + (uint64_t)((double)ms * 1e6);
    return SX_SUCCESS;
}

const sxa_event_table sxc_event_table = {
    .size = sizeof(sxa_event_table),
    .wait = event_wait,
    .get_status = event_get_status,
    .release = event_release,
    .get_profiling = event_get_profiling,
};

/* ---- USM ---- */

static sx_result usm_alloc(sxa_context ctx, sxa_device dev, sx_usm_type type, size_t size,
                           size_t align, void **out)
{
    sxc_context_t *c = (sxc_context_t *)ctx;
    sxc_device_t *d = dev ? (sxc_device_t *)dev : c->devices[0];
    if (!size)
        return sxc_services->error(SX_ERROR_INVALID_SIZE, "USM allocation of 0 bytes");
    if (align & (align - 1))
        return sxc_services->error(SX_ERROR_INVALID_VALUE,
                                   "USM alignment %zu is not a power of two", align);
    /* The driver aligns device and managed memory to 256 bytes and pinned
     * host memory to a page; more is not on offer. */
    size_t limit = type == SX_USM_TYPE_HOST ? 4096 : 256;
    if (align > limit)
        return sxc_services->error(SX_ERROR_UNSUPPORTED_FEATURE,
                                   "USM alignment %zu exceeds the %zu bytes CUDA guarantees", align,
                                   limit);
    CUcontext cu;
    sx_result rc = sxc_device_context(d, &cu);
    if (rc != SX_SUCCESS)
        return rc;
    CUresult r = sxc_make_current(cu);
    if (r != CUDA_SUCCESS)
        return sxc_error(SX_SUCCESS, r, "cuCtxSetCurrent for device %s", d->name);
    CUdeviceptr p = 0;
    switch (type) {
    case SX_USM_TYPE_DEVICE:
        r = sxc_cu.cuMemAlloc_v2(&p, size);
        if (r != CUDA_SUCCESS)
            return sxc_error(SX_SUCCESS, r, "cuMemAlloc of %zu bytes on %s", size, d->name);
        break;
    case SX_USM_TYPE_HOST: {
        void *h = NULL;
        /* Portable: usable from every context; device-mapped: kernels
         * may dereference it. */
        r = sxc_cu.cuMemHostAlloc(&h, size, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP);
        if (r != CUDA_SUCCESS)
            return sxc_error(r == CUDA_ERROR_OUT_OF_MEMORY ? SX_ERROR_OUT_OF_HOST_MEMORY : SX_SUCCESS,
                             r, "cuMemHostAlloc of %zu bytes", size);
        *out = h;
        return SX_SUCCESS;
    }
    case SX_USM_TYPE_SHARED: {
        if (!d->managed)
            return sxc_services->error(SX_ERROR_UNSUPPORTED_FEATURE,
                                       "device %s has no managed memory", d->name);
        /* Asking for more managed memory than the GPU has free can hang
         * it (not only this process): refuse first. */
        size_t free_b = 0, total_b = 0;
        r = sxc_cu.cuMemGetInfo_v2(&free_b, &total_b);
        if (r != CUDA_SUCCESS)
            return sxc_error(SX_SUCCESS, r, "cuMemGetInfo on %s", d->name);
        if (size > free_b)
            return sxc_services->error(SX_ERROR_OUT_OF_DEVICE_MEMORY,
                                       "shared USM of %zu bytes: %s has only %zu bytes free", size,
                                       d->name, free_b);
        r = sxc_cu.cuMemAllocManaged(&p, size, CU_MEM_ATTACH_GLOBAL);
        if (r != CUDA_SUCCESS)
            return sxc_error(SX_SUCCESS, r, "cuMemAllocManaged of %zu bytes on %s", size, d->name);
        break;
    }
    default:
        return sxc_services->error(SX_ERROR_INVALID_ENUMERATION, "USM type %u unknown", type);
    }
    *out = (void *)(uintptr_t)p;
    return SX_SUCCESS;
}

static sx_result usm_free(sxa_context ctx, void *ptr)
{
    if (!ptr)
        return SX_SUCCESS;
    sxc_context_t *c = (sxc_context_t *)ctx;
    CUdeviceptr dp = (CUdeviceptr)(uintptr_t)ptr;
    unsigned int mtype = 0;
    CUresult r = sxc_cu.cuPointerGetAttribute(&mtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dp);
    if (r != CUDA_SUCCESS)
        return sxc_error(SX_ERROR_INVALID_VALUE, r,
                         "cuPointerGetAttribute for %p: not a USM pointer of this adapter", ptr);
    /* Free from the owning device's context (the context's first device
     * for host memory, which belongs to none). */
    sxc_device_t *owner = c->devices[0];
    int ordinal = -1;
    if (mtype != CU_MEMORYTYPE_HOST &&
        sxc_cu.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, dp) == CUDA_SUCCESS)
        for (uint32_t i = 0; i < c->num_devices; i++)
            if (c->devices[i]->ordinal == ordinal)
                owner = c->devices[i];
    CUcontext cu;
    sx_result rc = sxc_device_context(owner, &cu);
    if (rc != SX_SUCCESS)
        return rc;
    sxc_make_current(cu);
    if (mtype == CU_MEMORYTYPE_HOST)
        r = sxc_cu.cuMemFreeHost(ptr);
    else
        r = sxc_cu.cuMemFree_v2(dp);
    if (r != CUDA_SUCCESS)
        return sxc_error(SX_SUCCESS, r, "cuMemFree of %p", ptr);
    return SX_SUCCESS;
}

const sxa_usm_table sxc_usm_table = {
    .size = sizeof(sxa_usm_table),
    .alloc = usm_alloc,
    .free = usm_free,
};
