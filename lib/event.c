/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* event.c: public events wrapping adapter events, and wait lists.
 *
 * Events take no lock (NEWS, "Events without locks"): the object's memory
 * waits in a per-thread quarantine after its release (handle.c), so a
 * stale handle reads a dead tag. The adapter event, though, is the
 * adapter's memory: a release racing a wait, a status query or a wait
 * list that read the handle while the event was live must not release
 * it under that call. So each such call holds the event for as long as
 * it uses the adapter event, in `users`, one word beside the tag:
 *
 * - wait lists (launches, copies, fills, barriers, device-global copies;
 *   maybe inside a reader section) count in the low bits and never
 *   destroy: the release waits for them (they last one adapter call);
 * - blocking calls outside any section (sx_event_wait, status, profiling)
 *   count in the middle bits, and the last one to leave after a release
 *   destroys the event, so a release never waits for a command to end;
 * - a hold adds to the count, then reads the tag again: a dead tag (the
 *   release killed it) and it backs out;
 * - the release kills the tag, then reads the count: 0 and nobody can
 *   use the adapter event any more, it goes at once; otherwise it sets
 *   RELEASED, and CLAIMED goes to the one caller that destroys (a
 *   compare-and-swap from "released, nobody holds it").
 *
 * A release nobody races costs one more load than before; a wait two
 * atomic additions on the event's own line; a cached launch without a
 * wait list touches nothing of this. */
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "sx-internal.h"

/* 64 bits: no count can overflow (a wait list has at most 2^32 - 1 entries) */
#define EV_SHORT 1ull                            /* a wait list's hold */
#define EV_SHORT_MASK 0x00000000ffffffffull
#define EV_WAITER 0x0000000100000000ull          /* a blocking call's hold */
#define EV_WAITER_MASK 0x3fffffff00000000ull
#define EV_CLAIMED 0x4000000000000000ull
#define EV_RELEASED 0x8000000000000000ull

static inline __attribute__((always_inline)) sx_result event_destroy(struct sx_event_s *e)
{
    sx_result r = SX_SUCCESS;
    if (e->handle && (r = SXA_CALL(e->adapter, event, release, e->handle)) != SX_SUCCESS)
        sxi_error_prefix("releasing event %p (%s)", (void *)e, e->adapter->name);
    sxi_handle_free(e, sizeof(*e));
    return r;
}

static void wait_holds(struct sx_event_s *e, uint64_t mask)
{
    for (unsigned spins = 0; atomic_load_explicit(&e->users, memory_order_acquire) & mask; spins++) {
        if (spins < 64) {
            sched_yield();
        } else {
            struct timespec ts = {0, 20000};
            nanosleep(&ts, NULL);
        }
    }
}

/* After a release, or a blocking call's last hold left one (outside any
 * reader section: the destroy releases the context): destroy the event
 * when nobody holds it and nobody else did. SX_SUCCESS when another
 * caller destroys it, or the adapter's result. */
static SXI_COLD sx_result event_finish(struct sx_event_s *e, struct sx_context_s *c)
{
    for (;;) {
        uint64_t v = atomic_load_explicit(&e->users, memory_order_acquire);
        if (!(v & EV_RELEASED) || (v & EV_CLAIMED) || (v & EV_WAITER_MASK))
            return SX_SUCCESS; /* a blocking holder left will do it */
        if (v & EV_SHORT_MASK) {
            wait_holds(e, EV_SHORT_MASK); /* wait lists last one adapter call */
            continue;
        }
        if (atomic_compare_exchange_weak_explicit(&e->users, &v, v | EV_CLAIMED, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            sx_result r = event_destroy(e);
            sx_result r2 = sxi_context_release(c);
            return r != SX_SUCCESS ? r : r2;
        }
    }
}

/* A hold that found the event released backs out; a blocking caller's
 * may have been what kept the release from destroying it. */
static SXI_COLD __attribute__((noinline)) void event_back_out(struct sx_event_s *e, uint64_t unit)
{
    atomic_fetch_sub_explicit(&e->users, unit, memory_order_acq_rel);
    if (unit == EV_WAITER && event_finish(e, e->context) != SX_SUCCESS)
        SXI_LOG(SX_LOG_WARN, "event released by another thread during a call: %s", sx_last_error());
}

/* Hold a live event (false: released meanwhile; nothing is held). The
 * count goes up before the tag is read again, and the release kills the
 * tag before it reads the count (both sequentially consistent): either
 * the release sees the hold, or the hold sees the dead tag. */
static inline bool event_hold(struct sx_event_s *e, uint64_t unit)
{
    atomic_fetch_add_explicit(&e->users, unit, memory_order_seq_cst);
    if (SXI_LIKELY(atomic_load_explicit(&e->tag, memory_order_seq_cst) == SXI_TAG_EVENT))
        return true;
    event_back_out(e, unit);
    return false;
}

/* A blocking call's hold ends; the last after a release destroys. */
static inline void event_unhold_waiter(struct sx_event_s *e)
{
    uint64_t v = atomic_fetch_sub_explicit(&e->users, EV_WAITER, memory_order_acq_rel);
    if (SXI_UNLIKELY(v & EV_RELEASED)) {
        struct sx_context_s *c = e->context; /* unclaimed: still the event's */
        if (event_finish(e, c) != SX_SUCCESS)
            SXI_LOG(SX_LOG_WARN, "event released by another thread during a wait: %s", sx_last_error());
    }
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
    /* claimed here: the context goes with its teardown, not by a holder */
    if (atomic_fetch_or_explicit(&e->users, EV_RELEASED | EV_CLAIMED, memory_order_acq_rel) &
        (EV_SHORT_MASK | EV_WAITER_MASK))
        wait_holds(e, EV_SHORT_MASK | EV_WAITER_MASK);
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

/* Drop the holds of in[0..n) that the list took (same adapter, a handle). */
static void unhold_list(struct sx_adapter_s *a, uint32_t n, const sx_event *in)
{
    for (uint32_t i = 0; i < n; i++) {
        struct sx_event_s *e = in[i];
        if (e->adapter == a && e->handle)
            atomic_fetch_sub_explicit(&e->users, EV_SHORT, memory_order_release);
    }
}

/* The list handed to adapters is NULL when it has no events (OpenCL's rule);
 * then no event is held. */
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
    sx_result r = SX_SUCCESS;
    uint32_t i;
    for (i = 0; i < n; i++) {
        struct sx_event_s *e = in[i];
        if (!e || sxi_tag_of(&e->tag) != SXI_TAG_EVENT) {
            r = sxi_error(SX_ERROR_INVALID_EVENT_WAIT_LIST, "wait list entry %u (%p) is not a live event", i,
                          (const void *)e);
            break;
        }
        if (!e->handle)
            continue; /* complete, no adapter event */
        if (!event_hold(e, EV_SHORT)) {
            r = sxi_error(SX_ERROR_INVALID_EVENT_WAIT_LIST,
                          "wait list entry %u (%p) was released (by another thread) during the call", i, (void *)e);
            break;
        }
        if (e->adapter != a) {
            /* Another backend's event: wait for it here (cross-adapter dependency). */
            sx_result w = SXA_CALL(e->adapter, event, wait, 1, &e->handle);
            atomic_fetch_sub_explicit(&e->users, EV_SHORT, memory_order_release);
            if (w != SX_SUCCESS) {
                r = sxi_error(SX_ERROR_EVENT_FAILED, "wait list entry %u (%s event) failed", i, e->adapter->name);
                break;
            }
            continue;
        }
        list[k++] = e->handle;
    }
    if (r != SX_SUCCESS || k == 0) {
        if (k)
            unhold_list(a, i, in); /* the entries before the failing one */
        if (list != stack)
            free(list);
        return r;
    }
    *out = list;
    *count = k;
    return SX_SUCCESS;
}

void sxi_wait_list_free(struct sx_adapter_s *a, uint32_t n, const sx_event *in, sxa_event *list, sxa_event *stack)
{
    if (!list)
        return;
    unhold_list(a, n, in);
    if (list != stack)
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
        if (!event_hold(e, EV_WAITER))
            return sxi_error(SX_ERROR_INVALID_HANDLE, "sx_event_wait: event %u (%p) was released (by another thread) during the call",
                             i, (void *)e);
        sx_result r = SXA_CALL(e->adapter, event, wait, 1, &e->handle);
        if (r != SX_SUCCESS)
            sxi_error_prefix("sx_event_wait: event %u (%s)", i, e->adapter->name);
        event_unhold_waiter(e);
        if (r != SX_SUCCESS)
            return r;
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
    if (SXI_UNLIKELY(SXI_TL_ON()))
        return wait_traced(count, events);
    /* one live event of a command (the usual wait): one test, a hold, one call */
    struct sx_event_s *e;
    if (SXI_LIKELY(count == 1 && events && (e = events[0]) && sxi_initialized() &&
                   sxi_tag_of(&e->tag) == SXI_TAG_EVENT && e->handle && event_hold(e, EV_WAITER))) {
        sx_result r = SXA_CALL(e->adapter, event, wait, 1, &e->handle);
        if (SXI_UNLIKELY(r != SX_SUCCESS))
            sxi_error_prefix("sx_event_wait: event 0 (%s)", e->adapter->name);
        event_unhold_waiter(e);
        return r;
    }
    return wait_all(count, events);
}

/* A query on the adapter event, held (outside any reader section). */
#define EVENT_QUERY(e, what, call)                                                                              \
    do {                                                                                                        \
        if (!event_hold((e), EV_WAITER))                                                                        \
            return sxi_error(SX_ERROR_INVALID_HANDLE, what ": event %p was released (by another thread) during the call", \
                             (void *)(e));                                                                      \
        sx_result r_ = (call);                                                                                  \
        event_unhold_waiter(e);                                                                                 \
        return r_;                                                                                              \
    } while (0)

SX_API sx_result sx_event_get_status(sx_event e, sx_event_status *status)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(e, SXI_TAG_EVENT, "event");
    SXI_CHECK_PTR(status, "status");
    if (!e->handle) {
        *status = SX_EVENT_STATUS_COMPLETE;
        return SX_SUCCESS;
    }
    EVENT_QUERY(e, "sx_event_get_status", SXA_CALL(e->adapter, event, get_status, e->handle, status));
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
    EVENT_QUERY(e, "sx_event_get_profiling", SXA_CALL(e->adapter, event, get_profiling, e->handle, param, value));
}

/* The tag killed first (a second release, or a call that checks it, sees
 * a dead handle), then RELEASED: without holders the event goes now;
 * with wait lists using it, once they are done; with blocking calls
 * holding it, when the last of them leaves. */
SX_API SXI_HOT sx_result sx_event_release(sx_event e)
{
    if (!e)
        return sxi_error(SX_ERROR_INVALID_NULL_HANDLE, "sx_event_release: event is NULL");
    if (!sxi_handle_kill(&e->tag, SXI_TAG_EVENT))
        return SXI_DEAD_HANDLE(e, "event");
    struct sx_context_s *c = e->context;
    /* Nobody holds it (the usual case): a hold that comes now sees the
     * dead tag and backs out, so it is destroyed here without a write. */
    if (SXI_UNLIKELY(atomic_load_explicit(&e->users, memory_order_seq_cst) != 0)) {
        atomic_fetch_or_explicit(&e->users, EV_RELEASED, memory_order_acq_rel);
        return event_finish(e, c);
    }
    sx_result r = event_destroy(e);
    sx_result r2 = sxi_context_release(c);
    return r != SX_SUCCESS ? r : r2;
}
