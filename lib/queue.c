/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* queue.c: queues and the commands that are not launches (memcpy, fill,
 * barrier). */
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sx-internal.h"

static void queue_destroy_dep(sxi_dep *d);

SX_API sx_result sx_queue_create(sx_context c, sx_device d, uint32_t flags, sx_queue *out)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(c, SXI_TAG_CONTEXT, "context");
    SXI_CHECK_HANDLE(d, SXI_TAG_DEVICE, "device");
    SXI_CHECK_PTR(out, "queue");
    const uint32_t known = SX_QUEUE_OUT_OF_ORDER | SX_QUEUE_PROFILING;
    if (flags & ~known)
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_queue_create: flags 0x%x are unknown.", flags & ~known);
    if (!sxi_context_has_device(c, d))
        return sxi_error(SX_ERROR_INVALID_DEVICE, "sx_queue_create: device %s is not in the context", d->name);
    struct sx_queue_s *q = sxi_handle_new(sizeof(*q));
    if (!q)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_queue_create: out of memory");
    uint32_t aflags = (flags & SX_QUEUE_OUT_OF_ORDER ? SXA_QUEUE_OUT_OF_ORDER : 0) |
                      (flags & SX_QUEUE_PROFILING ? SXA_QUEUE_PROFILING : 0);
    sx_result r = SXA_CALL(c->adapter, queue, create, c->handle, d->handle, aflags, &q->handle);
    if (r == SX_SUCCESS && !q->handle)
        r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter '%s' returned a NULL queue and success", c->adapter->name);
    if (r != SX_SUCCESS) {
        sxi_handle_free(q, sizeof(*q));
        sxi_error_prefix("sx_queue_create(%s)", d->name);
        return r;
    }
    q->context = c;
    q->device = d;
    q->adapter = c->adapter;
    q->flags = flags;
    q->dep.destroy = queue_destroy_dep;
    q->dep.order = SXI_DEP_COMMANDS;
    atomic_fetch_add(&c->refs, 1);
    sxi_context_dep_add(c, &q->dep);
    atomic_store(&q->tag, (uint32_t)SXI_TAG_QUEUE);
    *out = q;
    return SX_SUCCESS;
}

/* Release the adapter queue and the memory (tag already dead). */
static sx_result queue_destroy(struct sx_queue_s *q)
{
    sx_result r = SXA_CALL(q->adapter, queue, finish, q->handle);
    sx_result r2 = SXA_CALL(q->adapter, queue, release, q->handle);
    if (r == SX_SUCCESS && r2 != SX_SUCCESS)
        r = r2;
    if (r != SX_SUCCESS)
        sxi_error_prefix("releasing queue %p on %s", (void *)q, q->device->name);
    sxi_handle_free(q, sizeof(*q));
    return r;
}

/* After the tag died: wait for the launches (a grace period) and the
 * other commands (the count) that saw it live. */
static void queue_quiesce(struct sx_queue_s *q)
{
    sxi_epoch_synchronize();
    for (unsigned spins = 0; atomic_load_explicit(&q->users, memory_order_seq_cst) != 0; spins++) {
        if (spins < 64) {
            sched_yield();
        } else {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        }
    }
}

static void queue_destroy_dep(sxi_dep *d)
{
    struct sx_queue_s *q = (struct sx_queue_s *)((char *)d - offsetof(struct sx_queue_s, dep));
    atomic_store(&q->tag, (uint32_t)SXI_TAG_DEAD);
    queue_quiesce(q);
    if (queue_destroy(q) != SX_SUCCESS)
        SXI_LOG(SX_LOG_WARN, "context teardown: %s", sx_last_error());
}

SX_API sx_result sx_queue_release(sx_queue q)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    if (!sxi_handle_kill(&q->tag, SXI_TAG_QUEUE))
        return SXI_DEAD_HANDLE(q, "queue");
    struct sx_context_s *c = q->context;
    queue_quiesce(q);
    sxi_context_dep_remove(c, &q->dep);
    sx_result r = queue_destroy(q);
    sx_result r2 = sxi_context_release(c);
    return r != SX_SUCCESS ? r : r2;
}

static sx_result wait_held(sx_queue q)
{
    sx_result r = SXA_CALL(q->adapter, queue, finish, q->handle);
    if (r != SX_SUCCESS)
        sxi_error_prefix("sx_queue_wait(%s)", q->device->name);
    return r;
}

SX_API sx_result sx_queue_wait(sx_queue q)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    if (!sxi_queue_enter(q))
        return SXI_DEAD_HANDLE(q, "queue");
    uint64_t t0 = sxi_tl_begin();
    sx_result r = wait_held(q);
    if (SXI_UNLIKELY(t0))
        sxi_tl_simple(t0, "queue wait", "device", q->device->name);
    sxi_queue_leave(q);
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
        sxi_wait_list_free((q)->adapter, (nw), (wl), waits_, stack_);              \
        if (r_ != SX_SUCCESS) {                                                     \
            sxi_error_prefix("%s(%s)", what, (q)->device->name);                    \
            return r_;                                                              \
        }                                                                           \
        return (ev) ? sxi_event_wrap((q), out_, (ev)) : SX_SUCCESS;        \
    } while (0)

static sx_result memcpy_held(sx_queue q, int blocking, void *dst, const void *src, size_t size,
                             uint32_t nw, const sx_event *wl, sx_event *ev)
{
    if (size == 0 && nw == 0 && !ev)
        return SX_SUCCESS;
    if (size && (!dst || !src))
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_queue_memcpy: %s is NULL for a copy of %zu bytes",
                         dst ? "src" : "dst", size);
    if (size && (const char *)dst < (const char *)src + size && (const char *)src < (const char *)dst + size)
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_queue_memcpy: source %p and destination %p overlap in %zu bytes",
                         src, dst, size);
    sx_result rc;
    if ((rc = sxi_usm_check_range(q->context, dst, size, "sx_queue_memcpy", "dst")) != SX_SUCCESS ||
        (rc = sxi_usm_check_range(q->context, src, size, "sx_queue_memcpy", "src")) != SX_SUCCESS)
        return rc;
    QUEUE_COMMAND(q, nw, wl, ev, "sx_queue_memcpy",
                  SXA_CALL(q->adapter, enqueue, usm_memcpy, q->handle, blocking, dst, src, size, nwaits_, waits_, outp_));
}

SX_API sx_result sx_queue_memcpy(sx_queue q, int blocking, void *dst, const void *src, size_t size,
                                 uint32_t nw, const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    if (!sxi_queue_enter(q))
        return SXI_DEAD_HANDLE(q, "queue");
    uint64_t t0 = sxi_tl_begin();
    sx_result r = memcpy_held(q, blocking, dst, src, size, nw, wl, ev);
    if (SXI_UNLIKELY(t0))
        sxi_tl_copy(t0, "copy", q->device->name, size, blocking, (int)r);
    sxi_queue_leave(q);
    return r;
}

static sx_result fill_held(sx_queue q, void *ptr, const void *pattern, size_t pattern_size, size_t size,
                           uint32_t nw, const sx_event *wl, sx_event *ev)
{
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)))
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_queue_fill: pattern size %zu is not a power of two up to 128",
                         pattern_size);
    if (size % pattern_size)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_queue_fill: size %zu is not a multiple of the pattern size %zu",
                         size, pattern_size);
    if (size && !ptr)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_queue_fill: ptr is NULL for %zu bytes", size);
    sx_result rc = sxi_usm_check_range(q->context, ptr, size, "sx_queue_fill", "ptr");
    if (rc != SX_SUCCESS)
        return rc;
    QUEUE_COMMAND(q, nw, wl, ev, "sx_queue_fill",
                  SXA_CALL(q->adapter, enqueue, usm_fill, q->handle, ptr, pattern_size, pattern, size, nwaits_, waits_,
                           outp_));
}

SX_API sx_result sx_queue_fill(sx_queue q, void *ptr, const void *pattern, size_t pattern_size, size_t size,
                               uint32_t nw, const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    SXI_CHECK_PTR(pattern, "pattern");
    if (!sxi_queue_enter(q))
        return SXI_DEAD_HANDLE(q, "queue");
    sx_result r = fill_held(q, ptr, pattern, pattern_size, size, nw, wl, ev);
    sxi_queue_leave(q);
    return r;
}

static sx_result barrier_held(sx_queue q, uint32_t nw, const sx_event *wl, sx_event *ev)
{
    QUEUE_COMMAND(q, nw, wl, ev, "sx_queue_barrier",
                  SXA_CALL(q->adapter, enqueue, barrier, q->handle, nwaits_, waits_, outp_));
}

SX_API sx_result sx_queue_barrier(sx_queue q, uint32_t nw, const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    if (!sxi_queue_enter(q))
        return SXI_DEAD_HANDLE(q, "queue");
    sx_result r = barrier_held(q, nw, wl, ev);
    sxi_queue_leave(q);
    return r;
}
