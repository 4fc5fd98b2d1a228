/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* event.c: public events wrapping adapter events, and wait lists. */
#include <stddef.h>
#include <stdlib.h>

#include "sx-internal.h"

static inline __attribute__((always_inline)) sx_result event_destroy(struct sx_event_s *e)
{
    sx_result r = SX_SUCCESS;
    if (e->handle && (r = SXA_CALL(e->adapter, event, release, e->handle)) != SX_SUCCESS)
        sxi_error_prefix("releasing event %p (%s)", (void *)e, e->adapter->name);
    sxi_handle_free(e, sizeof(*e));
    return r;
}

/* A context's teardown (sx_fini with events the application left): every
 * live event of it is released here, found among the handles' memory. */
static void event_drop_one(void *object, void *arg)
{
    struct sx_event_s *e = object;
    if (atomic_load_explicit(&e->tag, memory_order_acquire) != SXI_TAG_EVENT || e->context != arg)
        return;
    if (!sxi_handle_kill(&e->tag, SXI_TAG_EVENT))
        return; /* released meanwhile */
    if (event_destroy(e) != SX_SUCCESS)
        SXI_LOG(SX_LOG_WARN, "context teardown: %s", sx_last_error());
}

void sxi_events_drop_context(struct sx_context_s *c)
{
    sxi_handle_foreach(sizeof(struct sx_event_s), event_drop_one, c);
}

void sxi_event_abandon(struct sx_event_s *e)
{
    struct sx_context_s *c = e->context;
    sxi_handle_free(e, sizeof(*e));
    (void)sxi_context_release(c); /* a queue of it holds another reference */
}

sx_result sxi_event_wrap(struct sx_queue_s *q, sxa_event h, sx_event *out)
{
    struct sx_event_s *e = sxi_event_prepare(q);
    if (!e) {
        struct sx_adapter_s *a = q->adapter;
        if (h) {
            SXA_CALL(a, event, wait, 1, &h);
            SXA_CALL(a, event, release, h);
        }
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory for an event (the command was waited for)");
    }
    return sxi_event_publish(e, h, out);
}

/* The list handed to adapters is NULL when it has no events (OpenCL's rule). */
sx_result sxi_wait_list(struct sx_adapter_s *a, uint32_t n, const sx_event *in, sxa_event *stack, sxa_event **out,
                        uint32_t *count)
{
    *out = NULL;
    *count = 0;
    if (n == 0)
        return SX_SUCCESS;
    if (!in)
        return sxi_error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "wait list is NULL with %u events", n);
    sxa_event *list = n <= 16 ? stack : malloc(n * sizeof(*list));
    if (!list)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory for a wait list of %u events", n);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const struct sx_event_s *e = in[i];
        if (!e || sxi_tag_of(&e->tag) != SXI_TAG_EVENT) {
            if (list != stack)
                free(list);
            return sxi_error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "wait list entry %u (%p) is not a live event", i,
                             (const void *)e);
        }
        if (e->adapter != a) {
            /* Another backend's event: wait for it here (cross-adapter dependency). */
            if (e->handle && SXA_CALL(e->adapter, event, wait, 1, &e->handle) != SX_SUCCESS) {
                if (list != stack)
                    free(list);
                return sxi_error(SX_ERROR_EVENT_FAILED, "wait list entry %u (%s event) failed", i, e->adapter->name);
            }
            continue;
        }
        if (e->handle)
            list[k++] = e->handle;
    }
    if (k == 0) {
        if (list != stack)
            free(list);
        list = NULL;
    }
    *out = list;
    *count = k;
    return SX_SUCCESS;
}

void sxi_wait_list_free(sxa_event *list, sxa_event *stack)
{
    if (list && list != stack)
        free(list);
}

static SXI_COLD sx_result wait_all(uint32_t count, const sx_event *events)
{
    SXI_CHECK_INIT();
    if (count == 0)
        return SX_SUCCESS;
    SXI_CHECK_PTR(events, "events");
    for (uint32_t i = 0; i < count; i++)
        SXI_CHECK_HANDLE(events[i], SXI_TAG_EVENT, "event");
    for (uint32_t i = 0; i < count; i++) {
        struct sx_event_s *e = events[i];
        if (!e->handle)
            continue;
        sx_result r = SXA_CALL(e->adapter, event, wait, 1, &e->handle);
        if (r != SX_SUCCESS) {
            sxi_error_prefix("sx_event_wait: event %u (%s)", i, e->adapter->name);
            return r;
        }
    }
    return SX_SUCCESS;
}

static SXI_COLD __attribute__((noinline)) sx_result wait_traced(uint32_t count, const sx_event *events)
{
    uint64_t t0 = sxi_tl_begin();
    sx_result r = wait_all(count, events);
    sxi_tl_args a = {.len = 0};
    a.buf[0] = 0;
    sxi_tl_arg_u64(&a, "events", count);
    if (r != SX_SUCCESS)
        sxi_tl_arg_str(&a, "result", sx_result_name(r));
    sxi_tl_end(t0, "wait", &a);
    return r;
}

SX_API SXI_HOT sx_result sx_event_wait(uint32_t count, const sx_event *events)
{
    if (SXI_UNLIKELY(sxi_tl_on))
        return wait_traced(count, events);
    /* one live event of a command (the usual wait): one test, one call */
    struct sx_event_s *e;
    if (SXI_LIKELY(count == 1 && events && (e = events[0]) && sxi_initialized() &&
                   sxi_tag_of(&e->tag) == SXI_TAG_EVENT && e->handle)) {
        sx_result r = SXA_CALL(e->adapter, event, wait, 1, &e->handle);
        if (SXI_UNLIKELY(r != SX_SUCCESS))
            sxi_error_prefix("sx_event_wait: event 0 (%s)", e->adapter->name);
        return r;
    }
    return wait_all(count, events);
}

SX_API sx_result sx_event_get_status(sx_event e, sx_event_status *status)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(e, SXI_TAG_EVENT, "event");
    SXI_CHECK_PTR(status, "status");
    if (!e->handle) {
        *status = SX_EVENT_STATUS_COMPLETE;
        return SX_SUCCESS;
    }
    return SXA_CALL(e->adapter, event, get_status, e->handle, status);
}

SX_API sx_result sx_event_get_profiling(sx_event e, sx_profiling_info param, uint64_t *value)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(e, SXI_TAG_EVENT, "event");
    SXI_CHECK_PTR(value, "value");
    if (param < SX_PROFILING_QUEUED || param > SX_PROFILING_END)
        return sxi_error(SX_ERROR_INVALID_ENUMERATION, "sx_event_get_profiling: param %u is not an SX_PROFILING_* value.", param);
    if (!e->handle)
        return sxi_error(SX_ERROR_UNSUPPORTED_FEATURE, "sx_event_get_profiling: the event has no profiling data");
    return SXA_CALL(e->adapter, event, get_profiling, e->handle, param, value);
}

SX_API SXI_HOT sx_result sx_event_release(sx_event e)
{
    if (!e)
        return sxi_error(SX_ERROR_INVALID_NULL_HANDLE, "sx_event_release: event is NULL");
    if (!sxi_handle_kill(&e->tag, SXI_TAG_EVENT))
        return SXI_DEAD_HANDLE(e, "event");
    struct sx_context_s *c = e->context;
    sx_result r = event_destroy(e);
    sx_result r2 = sxi_context_release(c);
    return r != SX_SUCCESS ? r : r2;
}
