/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* launch.c: the one launch path. Checks the shape and the arguments
 * against the kernel's signature, finds the cached slot with one lock-free
 * scan, and hands the argument array to the adapter unchanged. */
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

/* Names what is wrong with a shape shape_ok refused. */
static SXI_COLD sx_result check_shape(const struct sx_kernel_s *k, const struct sx_device_s *d,
                                                             uint32_t dims, const size_t *global, const size_t *local)
{
    if (dims < 1 || dims > 3)
        return sxi_error(SX_ERROR_INVALID_WORK_DIMENSION, "launch of '%s': %u dimensions were given; a launch has 1, 2 or 3.", k->name, dims);
    size_t total = 1;
    for (uint32_t i = 0; i < dims; i++) {
        if (global[i] == 0)
            return sxi_error(SX_ERROR_INVALID_VALUE, "launch of '%s': global size is 0 in dimension %u", k->name, i);
        if (!local)
            continue;
        if (local[i] == 0)
            return sxi_error(SX_ERROR_INVALID_WORK_GROUP_SIZE, "launch of '%s': local size is 0 in dimension %u",
                             k->name, i);
        if (local[i] > d->max_work_item_sizes[i])
            return sxi_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                             "launch of '%s': local size %zu in dimension %u exceeds %s's limit of %zu", k->name,
                             local[i], i, d->name, d->max_work_item_sizes[i]);
        /* SYCL's nd_range: the local size divides the global size, on
         * every backend (OpenCL 2.0 devices would take non-uniform groups). */
        if (global[i] % local[i])
            return sxi_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                             "launch of '%s': local size %zu does not divide global size %zu in dimension %u", k->name,
                             local[i], global[i], i);
        total *= local[i];
    }
    if (local && total > d->max_work_group_size)
        return sxi_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                         "launch of '%s': work-group of %zu work-items exceeds %s's limit of %zu", k->name, total,
                         d->name, d->max_work_group_size);
    return SX_SUCCESS;
}

/* The shape test of every launch, without the messages: no division when
 * the local size is a power of two (the usual case). */
static inline bool shape_ok(const struct sx_device_s *d, uint32_t dims, const size_t *global, const size_t *local)
{
    if (dims - 1 > 2)
        return false;
    size_t total = 1;
    for (uint32_t i = 0; i < dims; i++) {
        size_t g = global[i];
        if (g == 0)
            return false;
        if (!local)
            continue;
        size_t l = local[i];
        if (l == 0 || l > d->max_work_item_sizes[i])
            return false;
        if ((l & (l - 1)) == 0 ? g & (l - 1) : g % l)
            return false;
        total *= l;
    }
    return !local || total <= d->max_work_group_size;
}

/* Every backend parameter given exactly once, with the kind and size the
 * signature says. Kernels without a signature are left to the adapter.
 * Names what is wrong (args_ok is the test of every launch). */
static SXI_COLD sx_result check_args(const struct sx_kernel_s *k, const sxi_signature *sig, uint32_t n, const sx_arg *args)
{
    if (!sig->known)
        return SX_SUCCESS;
    uint64_t seen_small[4] = {0}, *seen = seen_small;
    if (sig->num_params > 256 && !(seen = calloc((sig->num_params + 63) / 64, sizeof(uint64_t))))
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    sx_result r = SX_SUCCESS;
    for (uint32_t i = 0; i < n && r == SX_SUCCESS; i++) {
        const sx_arg *a = &args[i];
        if (a->index >= sig->num_params) {
            r = sxi_error(SX_ERROR_INVALID_ARGUMENT_INDEX, "launch of '%s': argument index %u is past its %u parameters",
                          k->name, a->index, sig->num_params);
            break;
        }
        if (seen[a->index / 64] & (1ull << (a->index % 64))) {
            r = sxi_error(SX_ERROR_INVALID_ARGUMENT_INDEX, "launch of '%s': argument %u is given twice", k->name, a->index);
            break;
        }
        seen[a->index / 64] |= 1ull << (a->index % 64);
        const sxa_kernel_param *p = &sig->params[a->index];
        switch (a->type) {
        case SX_ARG_VALUE:
            if (p->kind != SX_PARAM_VALUE && p->kind != SX_PARAM_STRUCT)
                r = sxi_error(SX_ERROR_INVALID_KERNEL_ARGS, "launch of '%s': argument %u is a value but the parameter is a %s",
                              k->name, a->index, p->kind == SX_PARAM_LOCAL ? "local pointer" : "pointer");
            else if (a->size != p->size)
                r = sxi_error(SX_ERROR_INVALID_ARGUMENT_SIZE, "launch of '%s': argument %u has %zu bytes, its parameter %u",
                              k->name, a->index, a->size, p->size);
            else if (!a->value)
                r = sxi_error(SX_ERROR_INVALID_NULL_POINTER, "launch of '%s': value of argument %u is NULL", k->name,
                              a->index);
            break;
        case SX_ARG_POINTER:
            if (p->kind != SX_PARAM_POINTER)
                r = sxi_error(SX_ERROR_INVALID_KERNEL_ARGS, "launch of '%s': argument %u is a pointer but the parameter is not a global pointer",
                              k->name, a->index);
            else if (a->size != sizeof(void *) && a->size != 0)
                r = sxi_error(SX_ERROR_INVALID_ARGUMENT_SIZE, "launch of '%s': pointer argument %u has size %zu, not that of a pointer (%zu).",
                              k->name, a->index, a->size, sizeof(void *));
            break;
        case SX_ARG_LOCAL:
            if (p->kind != SX_PARAM_LOCAL)
                r = sxi_error(SX_ERROR_INVALID_KERNEL_ARGS, "launch of '%s': argument %u is local memory but the parameter is not a local pointer",
                              k->name, a->index);
            else if (a->size == 0)
                r = sxi_error(SX_ERROR_INVALID_ARGUMENT_SIZE, "launch of '%s': local argument %u has size 0", k->name,
                              a->index);
            break;
        default:
            r = sxi_error(SX_ERROR_INVALID_ENUMERATION, "launch of '%s': argument %u has unknown type %u", k->name,
                          a->index, a->type);
        }
    }
    if (r == SX_SUCCESS && n != sig->num_params) {
        uint32_t missing = 0;
        while (seen[missing / 64] & (1ull << (missing % 64)))
            missing++;
        r = sxi_error(SX_ERROR_INVALID_KERNEL_ARGS, "launch of '%s': argument %u is not set (%u of %u given)", k->name,
                      missing, n, sig->num_params);
    }
    if (seen != seen_small)
        free(seen);
    return r;
}

/* check_args's test without the messages, for up to 64 parameters. */
static inline bool args_ok(const sxi_signature *sig, uint32_t n, const sx_arg *args)
{
    if (!sig->known)
        return true;
    if (n != sig->num_params || n > 64)
        return false;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < n; i++) {
        const sx_arg *a = &args[i];
        if (a->index >= n || (seen & (1ull << a->index)))
            return false;
        seen |= 1ull << a->index;
        const sxa_kernel_param *p = &sig->params[a->index];
        switch (a->type) {
        case SX_ARG_VALUE:
            if ((p->kind != SX_PARAM_VALUE && p->kind != SX_PARAM_STRUCT) || a->size != p->size || !a->value)
                return false;
            break;
        case SX_ARG_POINTER:
            if (p->kind != SX_PARAM_POINTER || (a->size != sizeof(void *) && a->size != 0))
                return false;
            break;
        case SX_ARG_LOCAL:
            if (p->kind != SX_PARAM_LOCAL || a->size == 0)
                return false;
            break;
        default:
            return false;
        }
    }
    return true;
}

/* The launch once the slot is known; inlined into the cached launch
 * (sx_queue_launch) so that it is one function down to the adapter call. */
static inline __attribute__((always_inline)) sx_result
launch_slot(struct sx_queue_s *q, struct sx_kernel_s *k, sxi_kernel_slot *s, uint32_t dims, const size_t *offset,
            const size_t *global, const size_t *local, uint32_t num_args, const sx_arg *args, bool args_checked,
            uint32_t num_events, const sx_event *wait_list, sx_event *event)
{
    sx_result r;
    if (SXI_UNLIKELY(!shape_ok(q->device, dims, global, local)) &&
        (r = check_shape(k, q->device, dims, global, local)) != SX_SUCCESS)
        return r;
    if (!args_checked && SXI_UNLIKELY(!args_ok(s->sig, num_args, args)) &&
        (r = check_args(k, s->sig, num_args, args)) != SX_SUCCESS)
        return r;
    sxa_event stack[16], *waits = NULL, out = NULL;
    uint32_t nwaits = 0;
    if (num_events && (r = sxi_wait_list(q->adapter, num_events, wait_list, stack, &waits, &nwaits)) != SX_SUCCESS)
        return r;
    /* The event exists before the command: after it, only the handle is stored. */
    struct sx_event_s *e = NULL;
    if (event && !(e = sxi_event_prepare(q))) {
        sxi_wait_list_free(q->adapter, num_events, wait_list, waits, stack);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "launch of '%s': out of memory for its event", k->name);
    }
    r = SXA_CALL(q->adapter, enqueue, kernel_launch, q->handle, s->handle, dims, offset, global, local, num_args, args,
                 nwaits, waits, event ? &out : NULL);
    if (SXI_UNLIKELY(waits != NULL))
        sxi_wait_list_free(q->adapter, num_events, wait_list, waits, stack);
    if (SXI_UNLIKELY(r != SX_SUCCESS)) {
        if (e)
            sxi_event_abandon(e);
        sxi_error_prefix("launch of '%s' on %s", k->name, q->device->name);
        return r;
    }
    return e ? sxi_event_publish(e, out, event) : SX_SUCCESS;
}

/* sxi_slot_for's miss: the slot is built outside the section (it takes
 * locks), then looked up again; a slot dropped meanwhile is built again
 * or reported unsupported. */
SXI_COLD sx_result sxi_slot_build(struct sx_queue_s *q, struct sx_kernel_s *h, sxi_section *sec,
                                  sxi_kernel_slot **out)
{
    sxi_kernel *k = h->k;
    for (;;) {
        if (!atomic_load_explicit(&sxi_initialized_flag, memory_order_relaxed)) {
            *out = NULL;
            return sxi_error(SX_ERROR_UNINITIALIZED, "launch of '%s': sx_fini released everything", k->name);
        }
        if (sxi_tag_of(&q->tag) != SXI_TAG_QUEUE || sxi_tag_of(&h->tag) != SXI_TAG_KERNEL) {
            *out = NULL;
            return sxi_launch_dead(q, h);
        }
        sxi_kernel_slot *s = sxi_slot_scan(k, q);
        if (s != NULL) {
            *out = s;
            return SX_SUCCESS;
        }
        /* Out of the section to build: the context is held (it is alive
         * now: the queue's release waits for this section before it drops
         * its reference) and let go outside the section, since a last
         * release tears down and waits for grace periods. The kernel is
         * checked again under the registry lock (sxi_kernel_slot_get). */
        struct sx_context_s *c = q->context;
        atomic_fetch_add(&c->refs, 1);
        uint64_t t0 = sxi_tl_begin();
        sxi_tl_args a;
        if (SXI_UNLIKELY(t0)) {
            /* the names now, inside the section: sx_fini may free them
             * while it is left */
            a.len = 0;
            a.buf[0] = 0;
            sxi_tl_arg_str(&a, "kernel", k->name);
            sxi_tl_arg_str(&a, "device", q->device->name);
        }
        sxi_read_unlock(*sec);
        sx_result r = sxi_kernel_slot_get(h, q);
        if (SXI_UNLIKELY(t0)) {
            sxi_tl_arg_str(&a, "result", sx_result_name(r));
            sxi_tl_end(t0, "first launch: program and kernel", &a);
        }
        sxi_context_release(c);
        *sec = sxi_read_lock();
        if (r != SX_SUCCESS)
            return r;
    }
}

SXI_COLD sx_result sxi_launch_dead(const struct sx_queue_s *q, const struct sx_kernel_s *h)
{
    if (sxi_tag_of(&q->tag) != SXI_TAG_QUEUE)
        return sxi_error(SX_ERROR_INVALID_HANDLE, "launch: queue %p was released (by another thread) during the call",
                         (const void *)q);
    return sxi_error(SX_ERROR_INVALID_HANDLE, "launch: kernel %p was released (by another thread) during the call",
                     (const void *)h);
}

sx_result sxi_launch_slot(struct sx_queue_s *q, struct sx_kernel_s *k, sxi_kernel_slot *s, uint32_t dims,
                          const size_t *offset, const size_t *global, const size_t *local, uint32_t num_args,
                          const sx_arg *args, bool args_checked, uint32_t num_events, const sx_event *wait_list,
                          sx_event *event)
{
    return launch_slot(q, k, s, dims, offset, global, local, num_args, args, args_checked, num_events, wait_list,
                       event);
}

/* t0: the timeline's start of this launch (0: off, the cached launch;
 * the span is written inside the reader section, where the kernel's and
 * the device's names stay valid whatever sx_fini does meanwhile). */
static inline __attribute__((always_inline)) sx_result
queue_launch(sx_queue q, sx_kernel k, uint32_t dims, const size_t *offset, const size_t *global, const size_t *local,
             uint32_t num_args, const sx_arg *args, uint32_t num_events, const sx_event *wait_list, sx_event *event,
             uint64_t t0)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    SXI_CHECK_HANDLE(k, SXI_TAG_KERNEL, "kernel");
    SXI_CHECK_PTR(global, "global_size");
    if (num_args && !args)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_queue_launch(%s): args is NULL with %u arguments", k->name,
                         num_args);
    sxi_kernel_slot *s;
    if (event)
        sxi_handle_prefetch(sizeof(struct sx_event_s));
    /* The slot and its adapter kernel stay valid until the section ends,
     * whatever other threads unregister or release meanwhile. */
    sxi_section sec = sxi_read_lock();
    sx_result r = sxi_slot_for(q, k, &sec, &s);
    if (SXI_LIKELY(r == SX_SUCCESS)) {
        /* without a wait list the inlined launch has no list code at all */
        if (SXI_LIKELY(num_events == 0))
            r = launch_slot(q, k, s, dims, offset, global, local, num_args, args, false, 0, NULL, event);
        else
            r = sxi_launch_slot(q, k, s, dims, offset, global, local, num_args, args, false, num_events, wait_list,
                                event);
    }
    if (t0) {
        /* Inside the section, with sx_fini not begun, the names are valid
         * (a launch that built its slot left the section meanwhile). */
        bool live = r == SX_SUCCESS || atomic_load_explicit(&sxi_initialized_flag, memory_order_seq_cst);
        sxi_tl_launch(t0, live ? k->name : "?", live ? q->device->name : "?", dims, global, local, num_args, (int)r);
    }
    sxi_read_unlock(sec);
    return r;
}

/* SX_TRACE=FILE.json: the launch as a span (timeline.c). */
static SXI_COLD __attribute__((noinline)) sx_result
launch_traced(sx_queue q, sx_kernel k, uint32_t dims, const size_t *offset, const size_t *global, const size_t *local,
              uint32_t num_args, const sx_arg *args, uint32_t num_events, const sx_event *wait_list, sx_event *event)
{
    return queue_launch(q, k, dims, offset, global, local, num_args, args, num_events, wait_list, event,
                        sxi_tl_begin());
}

SX_API SXI_HOT sx_result sx_queue_launch(sx_queue q, sx_kernel k, uint32_t dims, const size_t *offset, const size_t *global,
                                 const size_t *local, uint32_t num_args, const sx_arg *args, uint32_t num_events,
                                 const sx_event *wait_list, sx_event *event)
{
    if (SXI_UNLIKELY(SXI_TL_ON()))
        return launch_traced(q, k, dims, offset, global, local, num_args, args, num_events, wait_list, event);
    return queue_launch(q, k, dims, offset, global, local, num_args, args, num_events, wait_list, event, 0);
}
