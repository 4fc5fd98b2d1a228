/* queue.c: queues and the commands that are not launches (memcpy, fill,
 * barrier). */
#include <stdlib.h>

#include "sx-internal.h"

SX_API sx_result sx_queue_create(sx_context c, sx_device d, uint32_t flags, sx_queue *out)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(c, SXI_TAG_CONTEXT, "context");
    SXI_CHECK_HANDLE(d, SXI_TAG_DEVICE, "device");
    SXI_CHECK_PTR(out, "queue");
    const uint32_t known = SX_QUEUE_OUT_OF_ORDER | SX_QUEUE_PROFILING;
    if (flags & ~known)
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_queue_create: unknown flags 0x%x", flags & ~known);
    if (!sxi_context_has_device(c, d))
        return sxi_error(SX_ERROR_INVALID_DEVICE, "sx_queue_create: device %s is not in the context", d->name);
    struct sx_queue_s *q = calloc(1, sizeof(*q));
    if (!q)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_queue_create: out of memory");
    uint32_t aflags = (flags & SX_QUEUE_OUT_OF_ORDER ? SXA_QUEUE_OUT_OF_ORDER : 0) |
                      (flags & SX_QUEUE_PROFILING ? SXA_QUEUE_PROFILING : 0);
    sx_result r = SXA_CALL(c->adapter, queue, create, c->handle, d->handle, aflags, &q->handle);
    if (r != SX_SUCCESS) {
        free(q);
        sxi_error_prefix("sx_queue_create(%s)", d->name);
        return r;
    }
    q->tag = SXI_TAG_QUEUE;
    q->context = c;
    q->device = d;
    q->adapter = c->adapter;
    q->flags = flags;
    atomic_fetch_add(&c->refs, 1);
    pthread_mutex_lock(&c->lock);
    q->next = c->queues;
    if (c->queues)
        c->queues->prev = q;
    c->queues = q;
    pthread_mutex_unlock(&c->lock);
    *out = q;
    return SX_SUCCESS;
}

void sxi_queue_destroy(struct sx_queue_s *q)
{
    struct sx_context_s *c = q->context;
    pthread_mutex_lock(&c->lock);
    if (q->prev)
        q->prev->next = q->next;
    else
        c->queues = q->next;
    if (q->next)
        q->next->prev = q->prev;
    pthread_mutex_unlock(&c->lock);
    SXA_CALL(q->adapter, queue, finish, q->handle);
    SXA_CALL(q->adapter, queue, release, q->handle);
    q->tag = SXI_TAG_DEAD;
    free(q);
}

SX_API sx_result sx_queue_release(sx_queue q)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    struct sx_context_s *c = q->context;
    sxi_queue_destroy(q);
    return sxi_context_release(c);
}

SX_API sx_result sx_queue_wait(sx_queue q)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    sx_result r = SXA_CALL(q->adapter, queue, finish, q->handle);
    if (r != SX_SUCCESS)
        sxi_error_prefix("sx_queue_wait(%s)", q->device->name);
    return r;
}

/* Common tail of every command: translate the wait list, call, wrap the event. */
#define QUEUE_COMMAND(q, nw, wl, ev, what, call)                                    \
    do {                                                                            \
        sxa_event stack_[16], *waits_;                                              \
        sxa_event out_ = NULL;                                                      \
        uint32_t nwaits_;                                                           \
        sx_result r_ = sxi_wait_list((q)->adapter, (nw), (wl), stack_, &waits_, &nwaits_); \
        if (r_ != SX_SUCCESS)                                                       \
            return r_;                                                              \
        sxa_event *outp_ = (ev) ? &out_ : NULL;                                     \
        (void)outp_;                                                                \
        r_ = (call);                                                                \
        sxi_wait_list_free(waits_, stack_);                                         \
        if (r_ != SX_SUCCESS) {                                                     \
            sxi_error_prefix("%s(%s)", what, (q)->device->name);                    \
            return r_;                                                              \
        }                                                                           \
        return (ev) ? sxi_event_wrap((q), out_, (ev)) : SX_SUCCESS;        \
    } while (0)

SX_API sx_result sx_queue_memcpy(sx_queue q, int blocking, void *dst, const void *src, size_t size,
                                 uint32_t nw, const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    if (size == 0 && nw == 0 && !ev)
        return SX_SUCCESS;
    if (size && (!dst || !src))
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_queue_memcpy: %s is NULL for a copy of %zu bytes",
                         dst ? "src" : "dst", size);
    if (size && (const char *)dst < (const char *)src + size && (const char *)src < (const char *)dst + size)
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_queue_memcpy: source %p and destination %p overlap in %zu bytes",
                         src, dst, size);
    QUEUE_COMMAND(q, nw, wl, ev, "sx_queue_memcpy",
                  SXA_CALL(q->adapter, enqueue, usm_memcpy, q->handle, blocking, dst, src, size, nwaits_, waits_, outp_));
}

SX_API sx_result sx_queue_fill(sx_queue q, void *ptr, const void *pattern, size_t pattern_size, size_t size,
                               uint32_t nw, const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    SXI_CHECK_PTR(pattern, "pattern");
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)))
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_queue_fill: pattern size %zu is not a power of two up to 128",
                         pattern_size);
    if (size % pattern_size)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_queue_fill: size %zu is not a multiple of the pattern size %zu",
                         size, pattern_size);
    if (size && !ptr)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_queue_fill: ptr is NULL for %zu bytes", size);
    QUEUE_COMMAND(q, nw, wl, ev, "sx_queue_fill",
                  SXA_CALL(q->adapter, enqueue, usm_fill, q->handle, ptr, pattern_size, pattern, size, nwaits_, waits_,
                           outp_));
}

SX_API sx_result sx_queue_barrier(sx_queue q, uint32_t nw, const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    QUEUE_COMMAND(q, nw, wl, ev, "sx_queue_barrier",
                  SXA_CALL(q->adapter, enqueue, barrier, q->handle, nwaits_, waits_, outp_));
}
