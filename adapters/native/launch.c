/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* launch.c: kernel launch. Checks the argument array against the kernel's
 * parameters, lays out local memory, and runs the work-groups: inline for
 * a single group (no allocation, no hand-off), else on the thread pool.
 * A compiled work-group function (wg.h) is one call per group; an old
 * per-work-item kernel is one libffi call per work-item, as a plain loop
 * or as fibers when the image uses barrier(). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Build and publish the call interface of a kernel without a signature
 * from its first launch: integers of the value sizes, pointers otherwise. */
static sx_result fallback_get(sxa_kernel k, uint32_t num_args, const sx_arg *args,
                              struct sxn_fallback **out)
{
    struct sxn_fallback *fb = atomic_load_explicit(&k->fallback, memory_order_acquire);
    if (fb) {
        *out = fb;
        return SX_SUCCESS;
    }
    pthread_mutex_lock(&k->fallback_lock);
    fb = atomic_load_explicit(&k->fallback, memory_order_acquire);
    if (fb) {
        pthread_mutex_unlock(&k->fallback_lock);
        *out = fb;
        return SX_SUCCESS;
    }
    sx_result r = SX_SUCCESS;
    fb = calloc(1, sizeof(*fb));
    if (fb) {
        fb->types = calloc(num_args ? num_args : 1, sizeof(*fb->types));
        fb->arg_type = calloc(num_args ? num_args : 1, sizeof(*fb->arg_type));
        fb->size = calloc(num_args ? num_args : 1, sizeof(*fb->size));
    }
    if (!fb || !fb->types || !fb->arg_type || !fb->size) {
        r = sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for kernel %s", k->name);
        goto fail;
    }
    fb->num_params = num_args;
    for (uint32_t i = 0; i < num_args; i++) {
        const sx_arg *a = &args[i];
        if (a->index >= num_args || fb->types[a->index]) {
            r = sxn_error(SX_ERROR_INVALID_ARGUMENT_INDEX,
                          "native: kernel %s: argument index %u is out of range or given twice (%u arguments)",
                          k->name, a->index, num_args);
            goto fail;
        }
        ffi_type *t = NULL;
        if (a->type == SX_ARG_POINTER || a->type == SX_ARG_LOCAL) {
            t = &ffi_type_pointer;
        } else if (a->type == SX_ARG_VALUE) {
            switch (a->size) {
            case 1: t = &ffi_type_uint8; break;
            case 2: t = &ffi_type_uint16; break;
            case 4: t = &ffi_type_uint32; break;
            case 8: t = &ffi_type_uint64; break;
            default:
                r = sxn_error(SX_ERROR_INVALID_ARGUMENT_SIZE,
                              "native: kernel %s argument %u: a %zu-byte value needs the kernel's signature "
                              "(\"SX/kernel signatures\"); without one only 1, 2, 4 and 8-byte integers can be passed",
                              k->name, a->index, a->size);
                goto fail;
            }
        } else {
            r = sxn_error(SX_ERROR_INVALID_KERNEL_ARGS, "native: kernel %s argument %u: type %u unknown",
                          k->name, a->index, (unsigned)a->type);
            goto fail;
        }
        fb->types[a->index] = t;
        fb->arg_type[a->index] = a->type;
        fb->size[a->index] = a->size;
    }
    if (ffi_prep_cif(&fb->cif, FFI_DEFAULT_ABI, num_args, &ffi_type_void, fb->types) != FFI_OK) {
        r = sxn_error(SX_ERROR_INVALID_KERNEL_ARGS, "native: kernel %s: ffi_prep_cif failed", k->name);
        goto fail;
    }
    sxn_services->log(SX_LOG_DEBUG,
                      "native: kernel %s has no signature; calling it with %u integer/pointer arguments",
                      k->name, num_args);
    atomic_store_explicit(&k->fallback, fb, memory_order_release);
    pthread_mutex_unlock(&k->fallback_lock);
    *out = fb;
    return SX_SUCCESS;
fail:
    pthread_mutex_unlock(&k->fallback_lock);
    if (fb) {
        free(fb->types);
        free(fb->arg_type);
        free(fb->size);
        free(fb);
    }
    return r;
}

/* Validate the arguments and fill values[]: for VALUE the caller's bytes,
 * for POINTER a slot holding the pointer, for LOCAL the per-group offset. */
static sx_result args_bind(sxa_kernel k, uint32_t num_args, const sx_arg *args, void **values,
                           void **ptr_slots, uint32_t *local_index, size_t *local_offset,
                           uint32_t *num_local, size_t *local_total, ffi_cif **cif)
{
    uint32_t n;
    const struct sxn_fallback *fb = NULL;
    if (k->has_sig) {
        n = k->num_params;
        *cif = &k->cif;
    } else {
        struct sxn_fallback *f = NULL;
        sx_result r = fallback_get(k, num_args, args, &f);
        if (r != SX_SUCCESS)
            return r;
        fb = f;
        n = fb->num_params;
        *cif = &f->cif;
    }
    if (num_args != n)
        return sxn_error(SX_ERROR_INVALID_KERNEL_ARGS,
                         "native: kernel %s takes %u arguments, %u given", k->name, n, num_args);
    if (n && !args)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: kernel %s: the argument array is NULL",
                         k->name);
    for (uint32_t i = 0; i < n; i++)
        values[i] = NULL;
    uint32_t nl = 0;
    size_t total = 0;
    for (uint32_t i = 0; i < num_args; i++) {
        const sx_arg *a = &args[i];
        uint32_t x = a->index;
        if (x >= n)
            return sxn_error(SX_ERROR_INVALID_ARGUMENT_INDEX,
                             "native: kernel %s: argument index %u, the kernel has %u", k->name, x, n);
        if (values[x])
            return sxn_error(SX_ERROR_INVALID_ARGUMENT_INDEX,
                             "native: kernel %s: argument %u is given twice", k->name, x);
        uint32_t want_kind;
        size_t want_size;
        if (fb) {
            want_kind = fb->arg_type[x] == SX_ARG_VALUE ? SX_PARAM_VALUE
                        : fb->arg_type[x] == SX_ARG_POINTER ? SX_PARAM_POINTER : SX_PARAM_LOCAL;
            want_size = fb->size[x];
        } else {
            want_kind = k->params[x].kind;
            want_size = k->params[x].size;
        }
        switch (a->type) {
        case SX_ARG_VALUE:
            if (want_kind == SX_PARAM_LOCAL)
                return sxn_error(SX_ERROR_INVALID_KERNEL_ARGS,
                                 "native: kernel %s argument %u is local memory; a value was given", k->name, x);
            if (want_kind == SX_PARAM_POINTER)
                want_size = sizeof(void *);
            if (a->size != want_size)
                return sxn_error(SX_ERROR_INVALID_ARGUMENT_SIZE,
                                 "native: kernel %s argument %u: %zu bytes given, %zu expected",
                                 k->name, x, a->size, want_size);
            if (!a->value)
                return sxn_error(SX_ERROR_INVALID_NULL_POINTER,
                                 "native: kernel %s argument %u: value is NULL", k->name, x);
            values[x] = (void *)a->value;
            break;
        case SX_ARG_POINTER:
            if (want_kind != SX_PARAM_POINTER)
                return sxn_error(SX_ERROR_INVALID_KERNEL_ARGS,
                                 "native: kernel %s argument %u is not a pointer parameter (kind %u)",
                                 k->name, x, want_kind);
            if (a->size != sizeof(void *))
                return sxn_error(SX_ERROR_INVALID_ARGUMENT_SIZE,
                                 "native: kernel %s argument %u: pointer of %zu bytes given, %zu expected",
                                 k->name, x, a->size, sizeof(void *));
            ptr_slots[x] = (void *)a->value;
            values[x] = &ptr_slots[x];
            break;
        case SX_ARG_LOCAL:
            if (want_kind != SX_PARAM_LOCAL)
                return sxn_error(SX_ERROR_INVALID_KERNEL_ARGS,
                                 "native: kernel %s argument %u is not a local-memory parameter (kind %u)",
                                 k->name, x, want_kind);
            if (a->size == 0 || a->value)
                return sxn_error(a->size ? SX_ERROR_INVALID_VALUE : SX_ERROR_INVALID_ARGUMENT_SIZE,
                                 "native: kernel %s argument %u: local memory needs a size > 0 and a NULL value "
                                 "(size %zu, value %p)", k->name, x, a->size, a->value);
            if (a->size > SXN_LOCAL_MEM || total + ((a->size + 63) & ~(size_t)63) > SXN_LOCAL_MEM)
                return sxn_error(SX_ERROR_OUT_OF_RESOURCES,
                                 "native: kernel %s argument %u: %zu bytes of local memory pass the %u available",
                                 k->name, x, a->size + total, SXN_LOCAL_MEM);
            local_index[nl] = x;
            local_offset[nl] = total;
            nl++;
            total += (a->size + 63) & ~(size_t)63;
            /* a placeholder until each thread patches its buffer in */
            values[x] = &ptr_slots[x];
            ptr_slots[x] = NULL;
            break;
        default:
            return sxn_error(SX_ERROR_INVALID_KERNEL_ARGS, "native: kernel %s argument %u: type %u unknown",
                             k->name, x, (unsigned)a->type);
        }
    }
    *num_local = nl;
    *local_total = total;
    return SX_SUCCESS;
}

/* Groups [first, first + count) of a compiled work-group function: one
 * call each, with this thread's local and private memory (allocated once
 * per thread and grown when needed). */
static sx_result run_wg_groups(struct sxn_job *job, size_t first, size_t count)
{
    void *values[SXN_MAX_ARGS];
    void *locals[SXN_MAX_ARGS];
    struct sxn_tcache *tc = NULL;
    const sxn_geometry *g = &job->geo;
    sxn_wg_ctx ctx;
    ctx.geo = g;
    ctx.args = job->values;
    ctx.local_mem = NULL;
    ctx.private_mem = NULL;
    ctx.local_id[0] = ctx.local_id[1] = ctx.local_id[2] = 0;
    if (job->local_total || job->private_total || job->fibers) {
        tc = sxn_tcache_get();
        if (!tc)
            return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for a worker's scratch");
    }
    if (job->local_total) {
        char *buf = sxn_tcache_local(tc, job->local_total);
        if (!buf)
            return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for %zu bytes of local memory",
                             job->local_total);
        if (job->num_local) {
            memcpy(values, job->values, job->num_values * sizeof(void *));
            for (uint32_t i = 0; i < job->num_local; i++) {
                locals[i] = buf + job->local_offset[i];
                values[job->local_index[i]] = &locals[i];
            }
            ctx.args = values;
        }
        ctx.local_mem = buf + job->wg_local_offset;
    }
    if (job->private_total) {
        ctx.private_mem = sxn_tcache_private(tc, job->private_total);
        if (!ctx.private_mem)
            return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for %zu bytes of private memory",
                             job->private_total);
    }
    size_t rest = first;
    for (int d = 0; d < 3; d++) {
        ctx.group_id[d] = rest % g->num_groups[d];
        rest /= g->num_groups[d];
    }
    sxn_wg_fn fn = job->wg->fn;
    for (size_t n = 0; n < count; n++) {
        if (job->fibers) {
            /* SXN_WG_FIBER: one work-item per call, the builtins' item and barrier */
            sxn_item item;
            item.geo = g;
            item.yield = NULL;
            item.fiber = NULL;
            for (int d = 0; d < 3; d++) {
                item.group_id[d] = ctx.group_id[d];
                item.group_base[d] = ctx.group_id[d] * g->local_size[d] + g->global_offset[d];
                item.local_id[d] = 0;
            }
            sx_result r = sxn_fiber_group(tc, job, &item, NULL, &ctx);
            if (r != SX_SUCCESS)
                return r;
        } else {
            fn(&ctx);
        }
        if (++ctx.group_id[0] == g->num_groups[0]) {
            ctx.group_id[0] = 0;
            if (++ctx.group_id[1] == g->num_groups[1]) {
                ctx.group_id[1] = 0;
                ctx.group_id[2]++;
            }
        }
    }
    return SX_SUCCESS;
}

/* Run a range of a job's groups on this thread. */
sx_result sxn_run_groups(struct sxn_job *job, size_t first, size_t count)
{
    if (job->wg)
        return run_wg_groups(job, first, count);
    void *values[SXN_MAX_ARGS];
    void *locals[SXN_MAX_ARGS];
    struct sxn_tcache *tc = NULL;
    memcpy(values, job->values, job->num_values * sizeof(void *));
    if (job->num_local || job->fibers) {
        tc = sxn_tcache_get();
        if (!tc)
            return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for a worker's scratch");
    }
    if (job->num_local) {
        unsigned char *buf = sxn_tcache_local(tc, job->local_total);
        if (!buf)
            return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for %zu bytes of local memory",
                             job->local_total);
        for (uint32_t i = 0; i < job->num_local; i++) {
            locals[i] = buf + job->local_offset[i];
            values[job->local_index[i]] = &locals[i];
        }
    }
    const sxn_geometry *g = &job->geo;
    sxn_item item;
    item.geo = g;
    item.yield = NULL;
    item.fiber = NULL;
    void (*fn)(void) = job->kernel->fn;
    sx_result r = SX_SUCCESS;
    for (size_t gi = first; gi < first + count; gi++) {
        size_t rest = gi;
        for (int d = 0; d < 3; d++) {
            item.group_id[d] = rest % g->num_groups[d];
            rest /= g->num_groups[d];
            item.group_base[d] = item.group_id[d] * g->local_size[d] + g->global_offset[d];
        }
        if (job->fibers) {
            r = sxn_fiber_group(tc, job, &item, values, NULL);
            if (r != SX_SUCCESS)
                break;
            continue;
        }
        job->kernel->set_item(&item);
        for (size_t z = 0; z < g->local_size[2]; z++) {
            item.local_id[2] = z;
            for (size_t y = 0; y < g->local_size[1]; y++) {
                item.local_id[1] = y;
                for (size_t x = 0; x < g->local_size[0]; x++) {
                    item.local_id[0] = x;
                    ffi_call(job->cif, fn, NULL, values);
                }
            }
        }
    }
    return r;
}

/* A local size that divides the global size: the largest divisor of each
 * dimension within a budget of work-items per group (a compiled work-group
 * function gains from large groups: fewer calls, longer vector loops). */
static void pick_local(uint32_t dims, const size_t *global, size_t *local, size_t budget)
{
    for (uint32_t d = 0; d < dims; d++) {
        if (global[d] == 1 || budget == 1) {
            local[d] = 1;
            continue;
        }
        size_t best = 1;
        for (size_t c = budget < global[d] ? budget : global[d]; c >= 1; c--)
            if (global[d] % c == 0) {
                best = c;
                break;
            }
        local[d] = best;
        budget /= best;
        if (budget == 0)
            budget = 1;
    }
}

/* Everything but one work-item of a per-work-item kernel: a compiled
 * work-group function's launch (one group without scratch inline), or
 * groups on this thread or the pool. Out of line, so the one-work-item
 * path above stays short. */
static __attribute__((noinline)) sx_result run_job(struct sxn_job *job)
{
    const sxa_kernel k = (sxa_kernel)job->kernel;
    const sxn_wg_entry *wg = k->wg;
    size_t wg_local = 0, private_total = 0;
    if (wg) {
        wg_local = (wg->local_bytes + 63) & ~(uint64_t)63;
        if (SXN_UNLIKELY(job->local_total + wg_local > SXN_LOCAL_MEM))
            return sxn_error(SX_ERROR_OUT_OF_RESOURCES,
                             "native: kernel %s: %zu bytes of local-memory arguments and %llu of its own "
                             "pass the %u available", k->name, job->local_total,
                             (unsigned long long)wg->local_bytes, SXN_LOCAL_MEM);
        private_total = ((size_t)wg->private_bytes * job->group_items + 63) & ~(size_t)63;
        if (SXN_LIKELY(job->total_groups == 1 && !(job->local_total | wg_local | private_total) &&
                       !(wg->flags & SXN_WG_FIBER))) {
            /* One group without scratch: one call right here. */
            sxn_wg_ctx ctx;
            ctx.geo = &job->geo;
            for (int d = 0; d < 3; d++) {
                ctx.group_id[d] = 0;
                ctx.local_id[d] = 0;
            }
            ctx.args = job->values;
            ctx.local_mem = NULL;
            ctx.private_mem = NULL;
            wg->fn(&ctx);
            return SX_SUCCESS;
        }
    }
    job->wg_local_offset = job->local_total;
    job->local_total += wg_local;
    job->wg = wg;
    job->private_total = private_total;
    job->fibers = wg ? (wg->flags & SXN_WG_FIBER) != 0 : k->uses_barrier && job->group_items > 1;
    atomic_init(&job->next_group, 0);
    atomic_init(&job->error, SX_SUCCESS);
    job->next = NULL;
    job->queued = false;
    atomic_init(&job->users, 0);
    return job->total_groups == 1 ? sxn_run_groups(job, 0, 1) : sxn_pool_run(job);
}

sx_result sxn_kernel_launch(sxa_queue queue, sxa_kernel k, uint32_t work_dim,
                            const size_t *global_offset, const size_t *global_size,
                            const size_t *local_size, uint32_t num_args, const sx_arg *args,
                            uint32_t num_events, const sxa_event *wait_list,
                            sxa_event *out_event)
{
    if (SXN_UNLIKELY(!queue || !k))
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: kernel_launch: NULL %s",
                         queue ? "kernel" : "queue");
    if (SXN_UNLIKELY(work_dim < 1 || work_dim > 3))
        return sxn_error(SX_ERROR_INVALID_WORK_DIMENSION,
                         "native: kernel %s: work dimension %u is not 1, 2 or 3", k->name, work_dim);
    if (SXN_UNLIKELY(!global_size))
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: kernel %s: global size is NULL", k->name);
    if (SXN_UNLIKELY(num_events || wait_list)) {
        sx_result r = sxn_check_wait_list(num_events, wait_list);
        if (r != SX_SUCCESS)
            return r;
    }
    uint64_t t0 = (queue->flags & SXA_QUEUE_PROFILING) ? sxn_now_ns() : 0;

    struct sxn_job job;
    sxn_geometry *g = &job.geo;
    g->work_dim = work_dim;
    size_t local[3] = {1, 1, 1};
    if (local_size) {
        for (uint32_t d = 0; d < work_dim; d++)
            local[d] = local_size[d];
    } else {
        size_t budget = 256;
        if (k->wg && !(k->wg->flags & SXN_WG_FIBER)) {
            budget = SXN_MAX_WORK_GROUP;
            while (budget > 1 && k->wg->private_bytes * budget > SXN_PICK_PRIVATE)
                budget /= 2;
        }
        pick_local(work_dim, global_size, local, budget);
    }
    if (SXN_UNLIKELY(k->wg && (k->wg->flags & SXN_WG_FULL_SUB_GROUPS) && local[0] % k->wg->sub_group_size))
        return sxn_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                         "native: kernel %s was compiled for full sub-groups of %u work-items: local size %zu in x "
                         "is not a multiple of it", k->name, k->wg->sub_group_size, local[0]);
    size_t items = 1, groups = 1;
    for (uint32_t d = 0; d < 3; d++) {
        size_t gs = d < work_dim ? global_size[d] : 1;
        size_t ls = local[d], ng;
        if (SXN_UNLIKELY(gs == 0))
            return sxn_error(SX_ERROR_INVALID_VALUE, "native: kernel %s: global size %zu in dimension %u",
                             k->name, gs, d);
        /* the common shapes need no division (it shows in the launch cost) */
        if (ls == gs) {
            ng = 1;
        } else if (ls == 1) {
            ng = gs;
        } else {
            if (SXN_UNLIKELY(ls == 0 || gs % ls != 0))
                return sxn_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                                 "native: kernel %s: local size %zu does not divide global size %zu in dimension %u",
                                 k->name, ls, gs, d);
            ng = gs / ls;
        }
        if (SXN_UNLIKELY(ls > SXN_MAX_WORK_GROUP))
            return sxn_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                             "native: kernel %s: local size %zu in dimension %u passes the maximum %u",
                             k->name, ls, d, SXN_MAX_WORK_GROUP);
        g->global_size[d] = gs;
        g->local_size[d] = ls;
        g->num_groups[d] = ng;
        g->global_offset[d] = d < work_dim && global_offset ? global_offset[d] : 0;
        items *= ls;
        if (SXN_UNLIKELY(__builtin_mul_overflow(groups, ng, &groups)))
            return sxn_error(SX_ERROR_INVALID_VALUE, "native: kernel %s: too many work-groups", k->name);
    }
    if (SXN_UNLIKELY(items > SXN_MAX_WORK_GROUP))
        return sxn_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                         "native: kernel %s: work-group of %zu x %zu x %zu = %zu work-items passes the maximum %u",
                         k->name, local[0], local[1], local[2], items, SXN_MAX_WORK_GROUP);

    void *values[SXN_MAX_ARGS];
    void *ptr_slots[SXN_MAX_ARGS];
    uint32_t local_index[SXN_MAX_ARGS];
    size_t local_offset[SXN_MAX_ARGS];
    uint32_t num_local = 0;
    size_t local_total = 0;
    ffi_cif *cif;
    if (SXN_UNLIKELY(num_args > SXN_MAX_ARGS))
        return sxn_error(SX_ERROR_INVALID_KERNEL_ARGS, "native: kernel %s: %u arguments, at most %u",
                         k->name, num_args, SXN_MAX_ARGS);
    sx_result r = args_bind(k, num_args, args, values, ptr_slots, local_index, local_offset,
                            &num_local, &local_total, &cif);
    if (r != SX_SUCCESS)
        return r;

    if (SXN_LIKELY(items == 1 && groups == 1 && num_local == 0 && !k->compiled)) {
        /* One work-item: call it right here. */
        /* fields set one by one: a zeroing initialiser becomes `rep stos`,
         * which costs more than the rest of this path */
        sxn_item item;
        item.geo = g;
        item.yield = NULL;
        item.fiber = NULL;
        for (int d = 0; d < 3; d++) {
            item.group_id[d] = 0;
            item.local_id[d] = 0;
            item.group_base[d] = g->global_offset[d];
        }
        k->set_item(&item);
        ffi_call(cif, k->fn, NULL, values);
    } else {
        job.kernel = k;
        job.cif = cif;
        job.group_items = items;
        job.total_groups = groups;
        job.values = values;
        job.num_values = num_args;
        job.num_local = num_local;
        job.local_index = local_index;
        job.local_offset = local_offset;
        job.local_total = local_total;
        r = run_job(&job);
        if (r != SX_SUCCESS)
            return r;
    }
    if (out_event)
        return sxn_event_new(queue, t0, out_event);
    return SX_SUCCESS;
}
