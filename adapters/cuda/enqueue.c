/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* enqueue.c: kernel launches, USM copy and fill, program-variable copies, barriers. */
#include <stdlib.h>

#include "sxc.h"

/* Arguments up to this count live on the stack; more (rare) take the heap. */
#define STACK_ARGS 64
/* Non-blocking device-global writes up to this size are staged on the stack. */
#define SMALL_WRITE 1024

static size_t pick_local(size_t g, size_t limit)
{
    if (g <= limit)
        return g;
    if (g % limit == 0)
        return limit;
    for (size_t l = limit; l > 1; l--)
        if (g % l == 0)
            return l;
    return 1;
}

/* Raise the function's dynamic shared memory cap to at least `need`. The
 * cap only grows, under the kernel's lock, so a launch that checked it
 * can never see it lowered by another thread. */
static sx_result raise_dyn_smem(sxc_kernel_t *k, int need)
{
    sx_result rc = SX_SUCCESS;
    pthread_mutex_lock(&k->lock);
    if (atomic_load_explicit(&k->dyn_smem_limit, memory_order_relaxed) < need) {
        CUresult r = sxc_cu.cuFuncSetAttribute(k->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                               need);
        if (r == CUDA_SUCCESS)
            atomic_store_explicit(&k->dyn_smem_limit, need, memory_order_release);
        else
            rc = sxc_error(SX_ERROR_OUT_OF_RESOURCES, r,
                           "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES, %d) for kernel '%s'",
                           need, k->name);
    }
    pthread_mutex_unlock(&k->lock);
    return rc;
}

static sx_result too_many_threads(const sxc_kernel_t *k, size_t threads)
{
    return sxc_services->error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                               "kernel '%s': work-group of %zu items, the kernel allows %d", k->name,
                               threads, k->max_threads);
}

/* Grid and block for a launch; `max_threads` is the kernel's limit, 0 when
 * not asked yet (then a picked block stays within 256 and the driver
 * judges a given one). */
static sx_result geometry(const sxc_kernel_t *k, const sxc_device_t *d, uint32_t work_dim,
                          const size_t *global_offset, const size_t *global_size,
                          const size_t *local_size, int max_threads, unsigned grid[3],
                          unsigned block[3], size_t *threads_out)
{
    size_t budget = max_threads > 0 && max_threads < 256 ? (size_t)max_threads : 256;
    size_t threads = 1;
    for (uint32_t i = 0; i < 3; i++)
        grid[i] = block[i] = 1;
    for (uint32_t i = 0; i < work_dim; i++) {
        if (global_offset && global_offset[i])
            return sxc_services->error(SX_ERROR_UNSUPPORTED_FEATURE,
                                       "kernel '%s': CUDA has no global offset (dimension %u: %zu)",
                                       k->name, i, global_offset[i]);
        size_t g = global_size[i], l;
        if (local_size) {
            l = local_size[i];
        } else {
            size_t lim = budget < (size_t)d->max_block[i] ? budget : (size_t)d->max_block[i];
            l = pick_local(g, lim ? lim : 1);
            budget = budget / (l ? l : 1);
            if (!budget)
                budget = 1;
        }
        if (!g || !l || g % l || l > (size_t)d->max_block[i])
            return sxc_services->error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                                       "kernel '%s': dimension %u: global %zu, local %zu (must divide "
                                       "it, at most %d)",
                                       k->name, i, g, l, d->max_block[i]);
        if (g / l > (size_t)d->max_grid[i])
            return sxc_services->error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                                       "kernel '%s': dimension %u: %zu groups, the grid allows %d",
                                       k->name, i, g / l, d->max_grid[i]);
        grid[i] = (unsigned)(g / l);
        block[i] = (unsigned)l;
        threads *= l;
    }
    *threads_out = threads;
    if (max_threads > 0 && threads > (size_t)max_threads)
        return too_many_threads(k, threads);
    return SX_SUCCESS;
}

static sx_result kernel_launch(sxa_queue queue, sxa_kernel kernel, uint32_t work_dim,
                               const size_t *global_offset, const size_t *global_size,
                               const size_t *local_size, uint32_t num_args, const sx_arg *args,
                               uint32_t num_events, const sxa_event *wait_list,
                               sxa_event *out_event)
{
    sxc_queue_t *q = (sxc_queue_t *)queue;
    sxc_kernel_t *k = (sxc_kernel_t *)kernel;
    const sxc_device_t *d = q->device;
    if (k->program->device != d)
        return sxc_services->error(SX_ERROR_INVALID_DEVICE,
                                   "kernel '%s' is built for %s, the queue is on %s", k->name,
                                   k->program->device->name, d->name);
    if (work_dim < 1 || work_dim > 3)
        return sxc_services->error(SX_ERROR_INVALID_WORK_DIMENSION, "kernel '%s': %u dimensions",
                                   k->name, work_dim);
    if (!global_size)
        return sxc_services->error(SX_ERROR_INVALID_NULL_POINTER, "kernel '%s': no global size",
                                   k->name);

    /* ---- geometry ---- */
    /* The kernel's own thread limit is asked only when known already or
     * needed (the driver refused): asking before the first launch is dear. */
    unsigned grid[3], block[3];
    size_t threads;
    int known = atomic_load_explicit(&k->attrs_known, memory_order_acquire);
    sx_result grc = geometry(k, d, work_dim, global_offset, global_size, local_size,
                             known ? k->max_threads : 0, grid, block, &threads);
    if (grc != SX_SUCCESS)
        return grc;

    /* ---- arguments: kernelParams on the stack ---- */
    uint32_t nparams = k->num_params == UINT32_MAX ? num_args : k->num_params;
    if (num_args != nparams)
        return sxc_services->error(SX_ERROR_INVALID_KERNEL_ARGS,
                                   "kernel '%s' takes %u arguments, %u given", k->name, nparams,
                                   num_args);
    void *stack_params[STACK_ARGS];
    uint64_t stack_locals[STACK_ARGS];
    void **params = stack_params;
    uint64_t *locals = stack_locals;
    if (nparams > STACK_ARGS) {
        params = malloc(nparams * (sizeof(void *) + sizeof(uint64_t)));
        if (!params)
            return SX_ERROR_OUT_OF_HOST_MEMORY;
        locals = (uint64_t *)(params + nparams);
    }
    memset(params, 0, nparams * sizeof(void *));
    sx_result rc = SX_SUCCESS;
    size_t dyn = 0;
    for (uint32_t i = 0; i < num_args; i++) {
        const sx_arg *a = &args[i];
        uint32_t idx = a->index;
        if (idx >= nparams) {
            rc = sxc_services->error(SX_ERROR_INVALID_ARGUMENT_INDEX,
                                     "kernel '%s': argument index %u, it has %u", k->name, idx,
                                     nparams);
            goto out;
        }
        if (params[idx]) {
            rc = sxc_services->error(SX_ERROR_INVALID_KERNEL_ARGS,
                                     "kernel '%s': argument %u given twice", k->name, idx);
            goto out;
        }
        uint32_t want = k->param_size ? k->param_size[idx] : 0;
        switch (a->type) {
        case SX_ARG_VALUE:
            if (!a->value || (want && a->size != want)) {
                rc = sxc_services->error(SX_ERROR_INVALID_ARGUMENT_SIZE,
                                         "kernel '%s': argument %u: %zu bytes at %p, the kernel "
                                         "takes %u",
                                         k->name, idx, a->size, a->value, want);
                goto out;
            }
            params[idx] = (void *)a->value;
            break;
        case SX_ARG_POINTER:
            if (want && want != sizeof(void *)) {
                rc = sxc_services->error(SX_ERROR_INVALID_ARGUMENT_SIZE,
                                         "kernel '%s': argument %u is a pointer, the kernel takes %u "
                                         "bytes",
                                         k->name, idx, want);
                goto out;
            }
            /* The driver copies the bytes at launch; the sx_arg holds them. */
            params[idx] = (void *)&a->value;
            break;
        case SX_ARG_LOCAL: {
            /* Work-group memory becomes an offset into dynamic shared
             * memory, passed as the kernel's 4- or 8-byte integer
             * parameter (a little-endian u64 serves both). Each block is
             * aligned to its size's power of two, at most 128. */
            size_t align = 1;
            while (align < a->size && align < 128)
                align <<= 1;
            if (want != 0 && want != 4 && want != 8) {
                rc = sxc_services->error(SX_ERROR_INVALID_ARGUMENT_SIZE,
                                         "kernel '%s': local argument %u: the kernel parameter has "
                                         "%u bytes, an offset needs 4 or 8",
                                         k->name, idx, want);
                goto out;
            }
            dyn = (dyn + align - 1) & ~(align - 1);
            locals[idx] = dyn;
            params[idx] = &locals[idx];
            dyn += a->size;
            if (dyn > (size_t)d->smem_optin) {
                rc = sxc_services->error(SX_ERROR_OUT_OF_RESOURCES,
                                         "kernel '%s': %zu bytes of local memory, %s allows %d",
                                         k->name, dyn, d->name, d->smem_optin);
                goto out;
            }
            break;
        }
        default:
            rc = sxc_services->error(SX_ERROR_INVALID_VALUE, "kernel '%s': argument %u of type %u",
                                     k->name, idx, a->type);
            goto out;
        }
    }
    for (uint32_t i = 0; i < nparams; i++) {
        if (!params[i]) {
            rc = sxc_services->error(SX_ERROR_INVALID_KERNEL_ARGS, "kernel '%s': argument %u not set",
                                     k->name, i);
            goto out;
        }
    }
    if (dyn) {
        sxc_kernel_attrs(k);
        if ((size_t)k->static_smem + dyn > (size_t)d->smem_optin) {
            rc = sxc_services->error(SX_ERROR_OUT_OF_RESOURCES,
                                     "kernel '%s': %d bytes static + %zu local exceed the %d of %s",
                                     k->name, k->static_smem, dyn, d->smem_optin, d->name);
            goto out;
        }
        if ((int)dyn > atomic_load_explicit(&k->dyn_smem_limit, memory_order_acquire)) {
            rc = raise_dyn_smem(k, (int)dyn);
            if (rc != SX_SUCCESS)
                goto out;
        }
    }

    /* ---- submit ---- */
    CUresult r = sxc_make_current(q->cuctx);
    if (r != CUDA_SUCCESS) {
        rc = sxc_error(SX_SUCCESS, r, "cuCtxSetCurrent for queue %p", (void *)q);
        goto out;
    }
    if (num_events && (rc = sxc_wait_list(q, num_events, wait_list)) != SX_SUCCESS)
        goto out;
    sxc_event_t *ev = NULL;
    if (out_event && (rc = sxc_event_begin(q, out_event, &ev)) != SX_SUCCESS)
        goto out;
    r = sxc_cu.cuLaunchKernel(k->fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                              (unsigned)dyn, q->stream, params, NULL);
    if ((r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) && !known) {
        /* The block was sized without the kernel's limit: a given one is
         * too big (say so as before), a picked one is picked again. */
        sxc_kernel_attrs(k);
        if (k->max_threads > 0 && threads > (size_t)k->max_threads) {
            rc = local_size ? too_many_threads(k, threads)
                            : geometry(k, d, work_dim, global_offset, global_size, local_size,
                                       k->max_threads, grid, block, &threads);
            if (rc != SX_SUCCESS) {
                sxc_event_discard(ev);
                goto out;
            }
            r = sxc_cu.cuLaunchKernel(k->fn, grid[0], grid[1], grid[2], block[0], block[1],
                                      block[2], (unsigned)dyn, q->stream, params, NULL);
        }
    }
    if (r != CUDA_SUCCESS) {
        sxc_event_discard(ev);
        rc = sxc_error(r == CUDA_ERROR_INVALID_VALUE ? SX_ERROR_INVALID_WORK_GROUP_SIZE : SX_SUCCESS,
                       r, "cuLaunchKernel of '%s' (grid %ux%ux%u, block %ux%ux%u, %zu bytes shared)",
                       k->name, grid[0], grid[1], grid[2], block[0], block[1], block[2], dyn);
        goto out;
    }
    if (ev)
        rc = sxc_event_end(q, ev, out_event);
out:
    if (params != stack_params)
        free(params);
    return rc;
}

/* Common head and tail of the copy-like commands. */
static sx_result begin_cmd(sxc_queue_t *q, uint32_t num_events, const sxa_event *wait_list,
                           sxa_event *out_event, sxc_event_t **ev)
{
    *ev = NULL;
    CUresult r = sxc_make_current(q->cuctx);
    if (r != CUDA_SUCCESS)
        return sxc_error(SX_SUCCESS, r, "cuCtxSetCurrent for queue %p", (void *)q);
    sx_result rc = num_events ? sxc_wait_list(q, num_events, wait_list) : SX_SUCCESS;
    if (rc == SX_SUCCESS && out_event)
        rc = sxc_event_begin(q, out_event, ev);
    return rc;
}

static sx_result end_cmd(sxc_queue_t *q, int blocking, sxc_event_t *ev, sxa_event *out_event,
                         const char *what)
{
    sx_result rc = ev ? sxc_event_end(q, ev, out_event) : SX_SUCCESS;
    if (rc == SX_SUCCESS && blocking) {
        CUresult r = sxc_cu.cuStreamSynchronize(q->stream);
        if (r != CUDA_SUCCESS)
            rc = sxc_error(SX_SUCCESS, r, "cuStreamSynchronize after %s on queue %p", what,
                           (void *)q);
    }
    return rc;
}

/* Is [p, p + n) inside a live frame of this thread's stack, between this
 * function's frame and the top of the stack glibc reports? Then it is
 * mapped host memory the host may read, and no driver call has to say so
 * (cuPointerGetAttribute costs 1.3 us per call on an H100 with driver 580:
 * more than the memset below saves). A caller on another stack (a fiber,
 * a signal stack) gets 0. */
static int on_my_stack(const void *p, size_t n)
{
    static __thread uintptr_t lo, top;
    if (!top) {
        pthread_attr_t attr;
        void *base;
        size_t size;
        top = 1; /* unknown: never */
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            if (pthread_attr_getstack(&attr, &base, &size) == 0) {
                lo = (uintptr_t)base;
                top = lo + size;
            }
            pthread_attr_destroy(&attr);
        }
    }
    uintptr_t here = (uintptr_t)__builtin_frame_address(0), a = (uintptr_t)p;
    return here >= lo && here < top && a >= here && a < top && n <= top - a;
}

/* A 1-, 2- or 4-byte aligned write of host bytes into device memory as one
 * cuMemsetD8/16/32Async of that value. Why: the value travels inside the
 * command, so there is no staging copy and no pageable-copy path; measured
 * on an H100 (driver 580) a 4-byte memset + cuStreamSynchronize took 5.6-6.0
 * us where cuMemcpyHtoDAsync + cuStreamSynchronize took 6.0-6.6 (and
 * cuStreamWriteValue32, tried first, 6.2). It is ordered on the queue's
 * stream like the copy it replaces, the caller's bytes are read before this
 * returns (blocking or not), and a blocking write still waits for it
 * (end_cmd). Only when `src` is on the caller's stack (the usual `T v = ...;
 * copy(&v, ...)`): anything else might be device memory the host cannot
 * read, and asking the driver costs more than the memset saves. A
 * destination the driver cannot memset (host memory) answers
 * CUDA_ERROR_INVALID_VALUE before anything is enqueued and takes the copy
 * way. 1: enqueued; 0: not applicable; -1: the driver failed (*r says how).
 * Not the driver's synchronous cuMemcpyHtoD, though cheaper still: from
 * pageable memory it returns before the copy lands and is ordered only on
 * the legacy (or per-thread) stream, which our non-blocking stream does
 * not wait for; from pinned memory it is synchronous and slower (see
 * bench/cuda/RESULTS.md). */
static int write_value(sxc_queue_t *q, CUdeviceptr dp, const void *src, size_t count, CUresult *r)
{
    if ((count != 1 && count != 2 && count != 4) || (dp & (count - 1)) ||
        atomic_load_explicit(&q->device->small_copy, memory_order_relaxed) || !on_my_stack(src, count))
        return 0;
    if (count == 4) {
        unsigned int v;
        memcpy(&v, src, 4);
        *r = sxc_cu.cuMemsetD32Async(dp, v, 1, q->stream);
    } else if (count == 2) {
        unsigned short v;
        memcpy(&v, src, 2);
        *r = sxc_cu.cuMemsetD16Async(dp, v, 1, q->stream);
    } else {
        *r = sxc_cu.cuMemsetD8Async(dp, *(const unsigned char *)src, 1, q->stream);
    }
    if (*r == CUDA_ERROR_INVALID_VALUE)
        return 0;
    return *r == CUDA_SUCCESS ? 1 : -1;
}

static sx_result usm_memcpy(sxa_queue queue, int blocking, void *dst, const void *src, size_t size,
                            uint32_t num_events, const sxa_event *wait_list, sxa_event *out_event)
{
    sxc_queue_t *q = (sxc_queue_t *)queue;
    if (size && (!dst || !src))
        return sxc_services->error(SX_ERROR_INVALID_NULL_POINTER, "memcpy of %zu bytes from %p to %p",
                                   size, src, dst);
    sxc_event_t *ev;
    sx_result rc = begin_cmd(q, num_events, wait_list, out_event, &ev);
    if (rc != SX_SUCCESS)
        return rc;
    CUresult vr = CUDA_SUCCESS;
    int small = size ? write_value(q, (CUdeviceptr)(uintptr_t)dst, src, size, &vr) : 0;
    if (small < 0) {
        sxc_event_discard(ev);
        return sxc_error(SX_SUCCESS, vr, "cuMemsetAsync of the %zu bytes to %p", size, dst);
    }
    if (size && !small) {
        /* Unified addressing: the driver tells host from device pointers. */
        CUresult r = sxc_cu.cuMemcpyAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src,
                                          size, q->stream);
        if (r != CUDA_SUCCESS) {
            sxc_event_discard(ev);
            return sxc_error(SX_SUCCESS, r, "cuMemcpyAsync of %zu bytes from %p to %p", size, src,
                             dst);
        }
    }
    return end_cmd(q, blocking, ev, out_event, "memcpy");
}

static sx_result usm_fill(sxa_queue queue, void *ptr, size_t ps, const void *pattern, size_t size,
                          uint32_t num_events, const sxa_event *wait_list, sxa_event *out_event)
{
    sxc_queue_t *q = (sxc_queue_t *)queue;
    if (!ps || ps > 128 || (ps & (ps - 1)))
        return sxc_services->error(SX_ERROR_INVALID_VALUE,
                                   "fill pattern of %zu bytes (1, 2, 4 ... 128 allowed)", ps);
    if (size % ps)
        return sxc_services->error(SX_ERROR_INVALID_SIZE,
                                   "fill of %zu bytes is not a multiple of the %zu-byte pattern", size,
                                   ps);
    if (size && (!ptr || !pattern))
        return sxc_services->error(SX_ERROR_INVALID_NULL_POINTER, "fill of %zu bytes at %p", size,
                                   ptr);
    sxc_event_t *ev;
    sx_result rc = begin_cmd(q, num_events, wait_list, out_event, &ev);
    if (rc != SX_SUCCESS)
        return rc;
    CUresult r = CUDA_SUCCESS;
    CUdeviceptr dp = (CUdeviceptr)(uintptr_t)ptr;
    const unsigned char *pb = pattern;
    if (size) {
        /* Narrow the pattern where it repeats: one memset beats several. */
        size_t eff = ps;
        while (eff > 1 && !memcmp(pb, pb + eff / 2, eff / 2))
            eff /= 2;
        uint16_t v16;
        uint32_t v32;
        if (eff == 1) {
            r = sxc_cu.cuMemsetD8Async(dp, pb[0], size, q->stream);
        } else if (eff == 2 && !(dp & 1)) {
            memcpy(&v16, pb, 2);
            r = sxc_cu.cuMemsetD16Async(dp, v16, size / 2, q->stream);
        } else if (eff == 4 && !(dp & 3)) {
            memcpy(&v32, pb, 4);
            r = sxc_cu.cuMemsetD32Async(dp, v32, size / 4, q->stream);
        } else if (eff >= 4 && !(dp & 3)) {
            /* Wider patterns: one strided 2-D memset per 32-bit word of
             * the pattern (pitch = pattern size, one element per row). */
            for (size_t w = 0; w < eff / 4 && r == CUDA_SUCCESS; w++) {
                memcpy(&v32, pb + 4 * w, 4);
                r = sxc_cu.cuMemsetD2D32Async(dp + 4 * w, eff, v32, 1, size / eff, q->stream);
            }
        } else {
            /* Misaligned: the same, a byte at a time. */
            for (size_t b = 0; b < eff && r == CUDA_SUCCESS; b++)
                r = sxc_cu.cuMemsetD2D8Async(dp + b, eff, pb[b], 1, size / eff, q->stream);
        }
    }
    if (r != CUDA_SUCCESS) {
        sxc_event_discard(ev);
        return sxc_error(SX_SUCCESS, r, "cuMemsetAsync of %zu bytes (pattern of %zu) at %p", size, ps,
                         ptr);
    }
    return end_cmd(q, 0, ev, out_event, "fill");
}

static sx_result global_range(sxc_queue_t *q, sxc_program_t *p, const char *name, size_t count,
                              size_t offset, CUdeviceptr *dp)
{
    if (p->device != q->device)
        return sxc_services->error(SX_ERROR_INVALID_DEVICE,
                                   "program %p is built for %s, the queue is on %s", (void *)p,
                                   p->device->name, q->device->name);
    size_t size;
    sx_result rc = sxc_program_global(p, name, dp, &size);
    if (rc != SX_SUCCESS)
        return rc;
    if (offset > size || count > size - offset)
        return sxc_services->error(SX_ERROR_INVALID_VALUE,
                                   "variable '%s': %zu bytes at offset %zu overrun its %zu bytes",
                                   name, count, offset, size);
    *dp += offset;
    return SX_SUCCESS;
}

static sx_result global_write(sxa_queue queue, sxa_program program, const char *name, int blocking,
                              size_t count, size_t offset, const void *src, uint32_t num_events,
                              const sxa_event *wait_list, sxa_event *out_event)
{
    sxc_queue_t *q = (sxc_queue_t *)queue;
    CUdeviceptr dp;
    sx_result rc = global_range(q, (sxc_program_t *)program, name, count, offset, &dp);
    if (rc != SX_SUCCESS)
        return rc;
    if (count && !src)
        return sxc_services->error(SX_ERROR_INVALID_NULL_POINTER, "write of '%s' from NULL", name);
    sxc_event_t *ev;
    rc = begin_cmd(q, num_events, wait_list, out_event, &ev);
    if (rc != SX_SUCCESS)
        return rc;
    CUresult vr = CUDA_SUCCESS;
    int small = count ? write_value(q, dp, src, count, &vr) : 0;
    if (small < 0) {
        sxc_event_discard(ev);
        return sxc_error(SX_SUCCESS, vr, "cuMemsetAsync of the %zu bytes to '%s'+%zu", count, name,
                         offset);
    }
    if (count && !small) {
        /* From pageable memory the driver stages the bytes before it
         * returns; from pinned or managed memory it reads them later. So a
         * small non-blocking write goes through a pageable copy on the
         * stack, and a larger one from driver-known memory waits, to honour
         * "src may go once the call returns". */
        unsigned char staged[SMALL_WRITE];
        const void *from = src;
        if (!blocking && count <= sizeof(staged)) {
            memcpy(staged, src, count);
            from = staged;
        } else if (!blocking) {
            unsigned int mt = 0;
            if (sxc_cu.cuPointerGetAttribute(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                             (CUdeviceptr)(uintptr_t)src) == CUDA_SUCCESS)
                blocking = 1;
        }
        CUresult r = sxc_cu.cuMemcpyHtoDAsync_v2(dp, from, count, q->stream);
        if (r != CUDA_SUCCESS) {
            sxc_event_discard(ev);
            return sxc_error(SX_SUCCESS, r, "cuMemcpyHtoDAsync of %zu bytes to '%s'+%zu", count, name,
                             offset);
        }
    }
    return end_cmd(q, blocking, ev, out_event, "device-global write");
}

static sx_result global_read(sxa_queue queue, sxa_program program, const char *name, int blocking,
                             size_t count, size_t offset, void *dst, uint32_t num_events,
                             const sxa_event *wait_list, sxa_event *out_event)
{
    sxc_queue_t *q = (sxc_queue_t *)queue;
    CUdeviceptr dp;
    sx_result rc = global_range(q, (sxc_program_t *)program, name, count, offset, &dp);
    if (rc != SX_SUCCESS)
        return rc;
    if (count && !dst)
        return sxc_services->error(SX_ERROR_INVALID_NULL_POINTER, "read of '%s' into NULL", name);
    sxc_event_t *ev;
    rc = begin_cmd(q, num_events, wait_list, out_event, &ev);
    if (rc != SX_SUCCESS)
        return rc;
    if (count) {
        CUresult r = sxc_cu.cuMemcpyDtoHAsync_v2(dst, dp, count, q->stream);
        if (r != CUDA_SUCCESS) {
            sxc_event_discard(ev);
            return sxc_error(SX_SUCCESS, r, "cuMemcpyDtoHAsync of %zu bytes from '%s'+%zu", count,
                             name, offset);
        }
    }
    return end_cmd(q, blocking, ev, out_event, "device-global read");
}

static sx_result barrier(sxa_queue queue, uint32_t num_events, const sxa_event *wait_list,
                         sxa_event *out_event)
{
    sxc_queue_t *q = (sxc_queue_t *)queue;
    /* The stream is in order: with no wait list, an event recorded now
     * completes after every earlier command. */
    sxc_event_t *ev;
    sx_result rc = begin_cmd(q, num_events, wait_list, out_event, &ev);
    if (rc != SX_SUCCESS)
        return rc;
    return end_cmd(q, 0, ev, out_event, "barrier");
}

const sxa_enqueue_table sxc_enqueue_table = {
    .size = sizeof(sxa_enqueue_table),
    .kernel_launch = kernel_launch,
    .usm_memcpy = usm_memcpy,
    .usm_fill = usm_fill,
    .global_write = global_write,
    .global_read = global_read,
    .barrier = barrier,
};
