/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-context.c: contexts, queues (immediate command lists), USM and events (from event pools). */
#include "ze-adapter.h"

#include <stdlib.h>
#include <string.h>

/* ---- contexts ---- */

static sx_result context_create(uint32_t num_devices, const sxa_device *devices, sxa_context *out)
{
    if (!devices || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (num_devices == 0)
        return sxz_error(SX_ERROR_INVALID_SIZE, "level_zero: a context needs at least one device");
    struct sxa_platform_s *plat = ((struct sxa_device_s *)devices[0])->platform;
    for (uint32_t i = 0; i < num_devices; i++) {
        if (!devices[i])
            return SX_ERROR_INVALID_NULL_HANDLE;
        if (((struct sxa_device_s *)devices[i])->platform != plat)
            return sxz_error(SX_ERROR_INVALID_DEVICE,
                             "level_zero: devices of one context must share a driver "
                             "(device %u is on another)", i);
    }
    struct sxa_context_s *c = calloc(1, sizeof(*c));
    if (c)
        c->devices = calloc(num_devices, sizeof(*c->devices));
    if (!c || !c->devices) {
        free(c);
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory for a context");
    }
    ze_context_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC};
    ze_result_t rc = sxz_ze.zeContextCreate(plat->driver, &desc, &c->ctx);
    if (rc != ZE_RESULT_SUCCESS) {
        free(c->devices);
        free(c);
        return sxz_fail("zeContextCreate", rc, " for driver %u", plat->index);
    }
    c->base.dispatch = sxz_services->dispatch;
    c->platform = plat;
    c->num_devices = num_devices;
    for (uint32_t i = 0; i < num_devices; i++)
        c->devices[i] = (struct sxa_device_s *)devices[i];
    pthread_mutex_init(&c->lock, NULL);
    *out = (sxa_context)c;
    return SX_SUCCESS;
}

static sx_result context_release(sxa_context context)
{
    struct sxa_context_s *c = (struct sxa_context_s *)context;
    if (!c)
        return SX_ERROR_INVALID_NULL_HANDLE;
    for (sxz_pool *p = c->pools; p; p = p->next)
        if (p->used_count)
            return sxz_error(SX_ERROR_HANDLE_IN_USE,
                             "level_zero: context %p still has %u events", (void *)c,
                             p->used_count);
    while (c->pools) {
        sxz_pool *p = c->pools;
        c->pools = p->next;
        sxz_ze.zeEventPoolDestroy(p->pool);
        free(p);
    }
    ze_result_t rc = sxz_ze.zeContextDestroy(c->ctx);
    sx_result r = rc == ZE_RESULT_SUCCESS
                      ? SX_SUCCESS
                      : sxz_fail("zeContextDestroy", rc, " for context %p", (void *)c);
    pthread_mutex_destroy(&c->lock);
    free(c->devices);
    free(c);
    return r;
}

static int context_has(const struct sxa_context_s *c, const struct sxa_device_s *d)
{
    for (uint32_t i = 0; i < c->num_devices; i++)
        if (c->devices[i] == d)
            return 1;
    return 0;
}

/* ---- events ---- */

sx_result sxz_event_new(struct sxa_context_s *c, struct sxa_device_s *dev, int timestamps,
                        struct sxa_event_s **out)
{
    struct sxa_event_s *e = calloc(1, sizeof(*e));
    if (!e)
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory for an event");
    pthread_mutex_lock(&c->lock);
    sxz_pool *p = c->pools;
    for (; p; p = p->next)
        if (p->timestamps == timestamps && p->used_count < SXZ_POOL_EVENTS)
            break;
    if (!p) {
        p = calloc(1, sizeof(*p));
        if (!p) {
            pthread_mutex_unlock(&c->lock);
            free(e);
            return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory for an event pool");
        }
        ze_event_pool_desc_t pd = {
            .stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC,
            .flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE |
                     (timestamps ? ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP : 0),
            .count = SXZ_POOL_EVENTS};
        ze_device_handle_t devs[1] = {dev ? dev->dev : NULL};
        ze_result_t rc = sxz_ze.zeEventPoolCreate(c->ctx, &pd, dev ? 1 : 0, dev ? devs : NULL,
                                                  &p->pool);
        if (rc != ZE_RESULT_SUCCESS) {
            pthread_mutex_unlock(&c->lock);
            free(p);
            free(e);
            return sxz_fail("zeEventPoolCreate", rc, " of %u events", SXZ_POOL_EVENTS);
        }
        p->timestamps = timestamps;
        p->next = c->pools;
        c->pools = p;
    }
    uint32_t slot = 0;
    while (p->used[slot])
        slot++;
    p->used[slot] = 1;
    p->used_count++;
    pthread_mutex_unlock(&c->lock);

    ze_event_desc_t ed = {.stype = ZE_STRUCTURE_TYPE_EVENT_DESC,
                          .index = slot,
                          .signal = ZE_EVENT_SCOPE_FLAG_HOST,
                          .wait = ZE_EVENT_SCOPE_FLAG_HOST};
    ze_result_t rc = sxz_ze.zeEventCreate(p->pool, &ed, &e->ev);
    if (rc != ZE_RESULT_SUCCESS) {
        pthread_mutex_lock(&c->lock);
        p->used[slot] = 0;
        p->used_count--;
        pthread_mutex_unlock(&c->lock);
        free(e);
        return sxz_fail("zeEventCreate", rc, " at slot %u", slot);
    }
    e->base.dispatch = sxz_services->dispatch;
    e->context = c;
    e->device = dev;
    e->pool = p;
    e->slot = slot;
    *out = e;
    return SX_SUCCESS;
}

void sxz_event_free(struct sxa_event_s *e)
{
    if (!e)
        return;
    sxz_ze.zeEventDestroy(e->ev);
    pthread_mutex_lock(&e->context->lock);
    e->pool->used[e->slot] = 0;
    e->pool->used_count--;
    pthread_mutex_unlock(&e->context->lock);
    free(e);
}

static sx_result event_wait(uint32_t count, const sxa_event *events)
{
    if (count && !events)
        return SX_ERROR_INVALID_NULL_POINTER;
    for (uint32_t i = 0; i < count; i++) {
        struct sxa_event_s *e = (struct sxa_event_s *)events[i];
        if (!e)
            return SX_ERROR_INVALID_NULL_HANDLE;
        ze_result_t rc = sxz_ze.zeEventHostSynchronize(e->ev, UINT64_MAX);
        if (rc != ZE_RESULT_SUCCESS)
            return sxz_fail("zeEventHostSynchronize", rc, " for event %p", (void *)e);
    }
    return SX_SUCCESS;
}

static sx_result event_get_status(sxa_event event, sx_event_status *status)
{
    struct sxa_event_s *e = (struct sxa_event_s *)event;
    if (!e)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!status)
        return SX_ERROR_INVALID_NULL_POINTER;
    ze_result_t rc = sxz_ze.zeEventQueryStatus(e->ev);
    /* Level Zero cannot tell queued from running: not ready is "submitted". */
    *status = rc == ZE_RESULT_SUCCESS     ? SX_EVENT_STATUS_COMPLETE
              : rc == ZE_RESULT_NOT_READY ? SX_EVENT_STATUS_SUBMITTED
                                          : SX_EVENT_STATUS_ERROR;
    return SX_SUCCESS;
}

static sx_result event_release(sxa_event event)
{
    if (!event)
        return SX_ERROR_INVALID_NULL_HANDLE;
    sxz_event_free((struct sxa_event_s *)event);
    return SX_SUCCESS;
}

/* Kernel timestamps in device ticks; timerResolution is nanoseconds per tick
 * for the ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES query made at discovery.
 * Level Zero has no queued/submitted times: they answer the start. */
static sx_result event_get_profiling(sxa_event event, sxa_profiling_info param, uint64_t *value)
{
    struct sxa_event_s *e = (struct sxa_event_s *)event;
    if (!e)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!value)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (param < SXA_PROFILING_QUEUED || param > SXA_PROFILING_END)
        return sxz_error(SX_ERROR_INVALID_ENUMERATION, "level_zero: profiling info %u unknown",
                         (unsigned)param);
    if (!e->pool->timestamps)
        return sxz_error(SX_ERROR_INVALID_OPERATION,
                         "level_zero: event %p comes from a queue without profiling", (void *)e);
    ze_kernel_timestamp_result_t ts;
    memset(&ts, 0, sizeof(ts));
    ze_result_t rc = sxz_ze.zeEventQueryKernelTimestamp(e->ev, &ts);
    if (rc == ZE_RESULT_NOT_READY)
        return sxz_error(SX_ERROR_INVALID_OPERATION,
                         "zeEventQueryKernelTimestamp: ZE_RESULT_NOT_READY (0x%x): event %p has "
                         "not completed", (unsigned)rc, (void *)e);
    if (rc != ZE_RESULT_SUCCESS)
        return sxz_fail("zeEventQueryKernelTimestamp", rc, " for event %p", (void *)e);
    uint64_t res = e->device && e->device->props.timerResolution
                       ? e->device->props.timerResolution : 1;
    uint64_t ticks = param == SXA_PROFILING_END ? ts.global.kernelEnd : ts.global.kernelStart;
    *value = ticks * res;
    return SX_SUCCESS;
}

/* ---- queues ---- */

static sx_result queue_create(sxa_context context, sxa_device device, uint32_t flags,
                              sxa_queue *out)
{
    struct sxa_context_s *c = (struct sxa_context_s *)context;
    struct sxa_device_s *d = (struct sxa_device_s *)device;
    if (!c || !d)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (flags & ~(uint32_t)(SXA_QUEUE_OUT_OF_ORDER | SXA_QUEUE_PROFILING))
        return sxz_error(SX_ERROR_INVALID_VALUE, "level_zero: queue flags 0x%x unknown",
                         (unsigned)flags);
    if (!context_has(c, d))
        return sxz_error(SX_ERROR_INVALID_DEVICE, "level_zero: device %p is not in context %p",
                         (void *)d, (void *)c);
    struct sxa_queue_s *q = calloc(1, sizeof(*q));
    if (!q)
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory for a queue");
    ze_command_queue_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                    .ordinal = d->compute_ordinal,
                                    .index = 0,
                                    .flags = 0,
                                    .mode = ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                    .priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
    ze_result_t rc = sxz_ze.zeCommandListCreateImmediate(c->ctx, d->dev, &desc, &q->list);
    if (rc != ZE_RESULT_SUCCESS) {
        free(q);
        return sxz_fail("zeCommandListCreateImmediate", rc, " on device %p ordinal %u",
                        (void *)d, d->compute_ordinal);
    }
    q->base.dispatch = sxz_services->dispatch;
    q->context = c;
    q->device = d;
    q->flags = flags;
    pthread_mutex_init(&q->lock, NULL);
    *out = (sxa_queue)q;
    return SX_SUCCESS;
}

static sx_result queue_finish(sxa_queue queue)
{
    struct sxa_queue_s *q = (struct sxa_queue_s *)queue;
    if (!q)
        return SX_ERROR_INVALID_NULL_HANDLE;
    /* The 1.4 API has no zeCommandListHostSynchronize: a barrier that
     * signals an event, then wait for that event. */
    struct sxa_event_s *e;
    sx_result r = sxz_event_new(q->context, q->device, 0, &e);
    if (r != SX_SUCCESS)
        return r;
    pthread_mutex_lock(&q->lock);
    ze_result_t rc = sxz_ze.zeCommandListAppendBarrier(q->list, e->ev, 0, NULL);
    q->pending = 0;
    pthread_mutex_unlock(&q->lock);
    if (rc == ZE_RESULT_SUCCESS)
        rc = sxz_ze.zeEventHostSynchronize(e->ev, UINT64_MAX);
    sxz_event_free(e);
    if (rc != ZE_RESULT_SUCCESS)
        return sxz_fail("zeEventHostSynchronize", rc, " finishing queue %p", (void *)q);
    return SX_SUCCESS;
}

static sx_result queue_flush(sxa_queue queue)
{
    /* Immediate command lists submit at append: nothing to flush. */
    return queue ? SX_SUCCESS : SX_ERROR_INVALID_NULL_HANDLE;
}

static sx_result queue_release(sxa_queue queue)
{
    struct sxa_queue_s *q = (struct sxa_queue_s *)queue;
    if (!q)
        return SX_ERROR_INVALID_NULL_HANDLE;
    ze_result_t rc = sxz_ze.zeCommandListDestroy(q->list);
    sx_result r = rc == ZE_RESULT_SUCCESS
                      ? SX_SUCCESS
                      : sxz_fail("zeCommandListDestroy", rc, " for queue %p", (void *)q);
    pthread_mutex_destroy(&q->lock);
    free(q);
    return r;
}

/* ---- USM ---- */

static sx_result usm_alloc(sxa_context context, sxa_device device, sx_usm_type type, size_t size,
                           size_t align, void **out)
{
    struct sxa_context_s *c = (struct sxa_context_s *)context;
    struct sxa_device_s *d = (struct sxa_device_s *)device;
    if (!c)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!out)
        return SX_ERROR_INVALID_NULL_POINTER;
    *out = NULL;
    if (size == 0)
        return sxz_error(SX_ERROR_INVALID_SIZE, "level_zero: USM allocation of 0 bytes");
    if (align & (align - 1))
        return sxz_error(SX_ERROR_INVALID_VALUE,
                         "level_zero: USM alignment %zu is not a power of two", align);
    if (type != SX_USM_TYPE_HOST) {
        if (!d)
            return sxz_error(SX_ERROR_INVALID_NULL_HANDLE,
                             "level_zero: a device or shared allocation needs a device");
        if (!context_has(c, d))
            return sxz_error(SX_ERROR_INVALID_DEVICE,
                             "level_zero: device %p is not in context %p", (void *)d, (void *)c);
    }
    ze_device_mem_alloc_desc_t dd = {.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC};
    ze_host_mem_alloc_desc_t hd = {.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC};
    ze_result_t rc;
    const char *fn;
    if (type >= SX_USM_TYPE_HOST && type <= SX_USM_TYPE_SHARED)
        atomic_fetch_or(&c->usm_kinds, 1u << type); /* before any kernel can be given the memory */
    switch (type) {
    case SX_USM_TYPE_HOST:
        fn = "zeMemAllocHost";
        rc = sxz_ze.zeMemAllocHost(c->ctx, &hd, size, align, out);
        break;
    case SX_USM_TYPE_DEVICE:
        fn = "zeMemAllocDevice";
        rc = sxz_ze.zeMemAllocDevice(c->ctx, &dd, size, align, d->dev, out);
        break;
    case SX_USM_TYPE_SHARED:
        fn = "zeMemAllocShared";
        rc = sxz_ze.zeMemAllocShared(c->ctx, &dd, &hd, size, align, d->dev, out);
        break;
    default:
        return sxz_error(SX_ERROR_INVALID_ENUMERATION, "level_zero: USM type %u unknown",
                         (unsigned)type);
    }
    if (rc != ZE_RESULT_SUCCESS) {
        *out = NULL;
        return sxz_fail(fn, rc, " for %zu bytes (alignment %zu)", size, align);
    }
    return SX_SUCCESS;
}

static sx_result usm_free(sxa_context context, void *ptr)
{
    struct sxa_context_s *c = (struct sxa_context_s *)context;
    if (!c)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!ptr)
        return SX_SUCCESS;
    ze_result_t rc = sxz_ze.zeMemFree(c->ctx, ptr);
    if (rc != ZE_RESULT_SUCCESS)
        return sxz_fail("zeMemFree", rc, " for %p", ptr);
    return SX_SUCCESS;
}

const sxa_context_table sxz_context_table = {
    .size = sizeof(sxa_context_table),
    .create = context_create,
    .release = context_release,
};

const sxa_queue_table sxz_queue_table = {
    .size = sizeof(sxa_queue_table),
    .create = queue_create,
    .release = queue_release,
    .finish = queue_finish,
    .flush = queue_flush,
};

const sxa_usm_table sxz_usm_table = {
    .size = sizeof(sxa_usm_table),
    .alloc = usm_alloc,
    .free = usm_free,
};

const sxa_event_table sxz_event_table = {
    .size = sizeof(sxa_event_table),
    .wait = event_wait,
    .get_status = event_get_status,
    .release = event_release,
    .get_profiling = event_get_profiling,
};
