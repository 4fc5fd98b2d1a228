/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-enqueue.c: kernel launches, USM copy/fill, program-variable copies and barriers on immediate command lists.
 *
 * Ordering: an in-order queue appends a barrier (no events) before a
 * command whenever an earlier command is still unordered, since Level Zero
 * 1.4 lists only order commands across barriers. An out-of-order queue
 * relies on the wait lists alone.
 *
 * Blocking commands and non-blocking program-variable writes (whose
 * source the caller may reuse at once) signal an event and wait for it
 * before returning. */
#include "ze-adapter.h"

#include <stdlib.h>
#include <string.h>

#define SMALL_WAIT 16

/* The wait list as ze handles, in `buf` when it fits. */
static sx_result wait_handles(uint32_t n, const sxa_event *list, ze_event_handle_t *buf,
                              ze_event_handle_t **out)
{
    *out = NULL;
    if (n == 0)
        return SX_SUCCESS;
    if (!list)
        return sxz_error(SX_ERROR_INVALID_EVENT_WAIT_LIST,
                         "level_zero: wait list of %u events is NULL", n);
    ze_event_handle_t *h = n <= SMALL_WAIT ? buf : malloc(n * sizeof(*h));
    if (!h)
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory");
    for (uint32_t i = 0; i < n; i++) {
        if (!list[i]) {
            if (h != buf)
                free(h);
            return sxz_error(SX_ERROR_INVALID_EVENT_WAIT_LIST,
                             "level_zero: event %u of the wait list is NULL", i);
        }
        h[i] = ((struct sxa_event_s *)list[i])->ev;
    }
    *out = h;
    return SX_SUCCESS;
}

/* State of one command being appended. */
typedef struct cmd {
    struct sxa_queue_s *q;
    ze_event_handle_t buf[SMALL_WAIT];
    ze_event_handle_t *wait;
    uint32_t nwait;
    struct sxa_event_s *ev;  /* signalled by the command, or NULL */
    int sync;                /* wait for it before returning */
} cmd;

static sx_result cmd_begin(cmd *c, struct sxa_queue_s *q, uint32_t nwait, const sxa_event *list,
                           sxa_event *out_event, int sync)
{
    memset(c, 0, sizeof(*c));
    c->q = q;
    c->nwait = nwait;
    c->sync = sync;
    if (out_event)
        *out_event = NULL;
    sx_result r = wait_handles(nwait, list, c->buf, &c->wait);
    if (r != SX_SUCCESS)
        return r;
    if (out_event || sync) {
        r = sxz_event_new(q->context, q->device, (q->flags & SXA_QUEUE_PROFILING) != 0, &c->ev);
        if (r != SX_SUCCESS) {
            if (c->wait != c->buf)
                free(c->wait);
            return r;
        }
    }
    return SX_SUCCESS;
}

/* Called with the queue locked, before the append. */
static ze_result_t cmd_order(cmd *c)
{
    struct sxa_queue_s *q = c->q;
    if (!(q->flags & SXA_QUEUE_OUT_OF_ORDER) && q->pending) {
        ze_result_t rc = sxz_ze.zeCommandListAppendBarrier(q->list, NULL, 0, NULL);
        if (rc != ZE_RESULT_SUCCESS)
            return rc;
    }
    q->pending = 1;
    return ZE_RESULT_SUCCESS;
}

/* Finish a command whose append returned `rc` (SX_SUCCESS path only
 * when rc is success): wait if asked, hand out or free the event. */
static sx_result cmd_end(cmd *c, const char *fn, ze_result_t rc, sxa_event *out_event)
{
    sx_result r = SX_SUCCESS;
    if (c->wait && c->wait != c->buf)
        free(c->wait);
    if (rc != ZE_RESULT_SUCCESS) {
        r = sxz_fail(fn, rc, " on queue %p", (void *)c->q);
    } else if (c->sync) {
        ze_result_t wrc = sxz_ze.zeEventHostSynchronize(c->ev->ev, UINT64_MAX);
        if (wrc != ZE_RESULT_SUCCESS)
            r = sxz_fail("zeEventHostSynchronize", wrc, " after %s on queue %p", fn,
                         (void *)c->q);
    }
    if (r == SX_SUCCESS && out_event)
        *out_event = (sxa_event)c->ev;
    else
        sxz_event_free(c->ev);
    return r;
}

static ze_event_handle_t cmd_signal(const cmd *c)
{
    return c->ev ? c->ev->ev : NULL;
}

static sx_result set_args(struct sxa_kernel_s *k, uint32_t num_args, const sx_arg *args)
{
    if (num_args != k->num_args)
        return sxz_error(num_args < k->num_args ? SX_ERROR_INVALID_KERNEL_ARGS
                                                : SX_ERROR_INVALID_ARGUMENT_INDEX,
                         "level_zero: kernel '%s' takes %u arguments, launch gave %u", k->name,
                         k->num_args, num_args);
    if (num_args && !args)
        return SX_ERROR_INVALID_NULL_POINTER;
    uint8_t seen_small[64];
    uint8_t *seen = num_args <= sizeof(seen_small) ? seen_small : calloc(num_args, 1);
    if (!seen)
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory");
    memset(seen, 0, num_args <= sizeof(seen_small) ? sizeof(seen_small) : 0);
    sx_result r = SX_SUCCESS;
    for (uint32_t i = 0; i < num_args && r == SX_SUCCESS; i++) {
        const sx_arg *a = &args[i];
        ze_result_t rc;
        if (a->index >= k->num_args) {
            r = sxz_error(SX_ERROR_INVALID_ARGUMENT_INDEX,
                          "level_zero: kernel '%s' argument index %u past its %u arguments",
                          k->name, a->index, k->num_args);
            break;
        }
        if (seen[a->index]) {
            r = sxz_error(SX_ERROR_INVALID_VALUE,
                          "level_zero: kernel '%s' argument %u given twice", k->name, a->index);
            break;
        }
        seen[a->index] = 1;
        switch (a->type) {
        case SX_ARG_VALUE:
            if (!a->value || a->size == 0) {
                r = sxz_error(SX_ERROR_INVALID_ARGUMENT_SIZE,
                              "level_zero: kernel '%s' value argument %u has size %zu%s",
                              k->name, a->index, a->size, a->value ? "" : " and no value");
                continue;
            }
            rc = sxz_ze.zeKernelSetArgumentValue(k->kernel, a->index, a->size, a->value);
            break;
        case SX_ARG_POINTER: {
            /* sx_arg carries the pointer value; Level Zero wants its address. */
            const void *ptr = a->value;
            rc = sxz_ze.zeKernelSetArgumentValue(k->kernel, a->index, sizeof(ptr), &ptr);
            break;
        }
        case SX_ARG_LOCAL:
            if (a->value || a->size == 0) {
                r = sxz_error(SX_ERROR_INVALID_VALUE,
                              "level_zero: kernel '%s' local argument %u needs a size and a NULL "
                              "value (size %zu)", k->name, a->index, a->size);
                continue;
            }
            rc = sxz_ze.zeKernelSetArgumentValue(k->kernel, a->index, a->size, NULL);
            break;
        default:
            r = sxz_error(SX_ERROR_INVALID_ENUMERATION,
                          "level_zero: kernel '%s' argument %u has type %u", k->name, a->index,
                          (unsigned)a->type);
            continue;
        }
        if (rc != ZE_RESULT_SUCCESS)
            r = sxz_fail("zeKernelSetArgumentValue", rc, " for kernel '%s' argument %u (%zu bytes)",
                         k->name, a->index, a->type == SX_ARG_POINTER ? sizeof(void *) : a->size);
    }
    if (seen != seen_small)
        free(seen);
    return r;
}

/* A kernel that may reach USM no argument names (a device_global's
 * instance, pointers inside a struct argument): Intel's GPU drivers make
 * only the allocations a kernel is given resident unless told, so declare
 * indirect access for the kinds the context has allocated (once each).
 * Called with the kernel's lock. */
static sx_result declare_indirect(struct sxa_kernel_s *k, struct sxa_context_s *c)
{
    static const ze_kernel_indirect_access_flags_t flag[4] = {
        [SX_USM_TYPE_HOST] = ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST,
        [SX_USM_TYPE_DEVICE] = ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE,
        [SX_USM_TYPE_SHARED] = ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED,
    };
    uint32_t kinds = atomic_load_explicit(&c->usm_kinds, memory_order_acquire);
    if (!k->indirect || !(kinds & ~k->indirect_kinds))
        return SX_SUCCESS;
    ze_kernel_indirect_access_flags_t f = 0;
    for (uint32_t t = SX_USM_TYPE_HOST; t <= SX_USM_TYPE_SHARED; t++)
        if (kinds & (1u << t))
            f |= flag[t];
    ze_result_t rc = sxz_ze.zeKernelSetIndirectAccess(k->kernel, f);
    if (rc != ZE_RESULT_SUCCESS)
        return sxz_fail("zeKernelSetIndirectAccess", rc, " (flags 0x%x) for kernel '%s'", (unsigned)f, k->name);
    k->indirect_kinds = kinds;
    return SX_SUCCESS;
}

/* Group size and count for the launch; NULL local = the driver suggests. */
static sx_result shape(struct sxa_kernel_s *k, uint32_t dim, const size_t *global,
                       const size_t *local, uint32_t group[3], ze_group_count_t *count)
{
    uint32_t g[3] = {1, 1, 1};
    for (uint32_t i = 0; i < dim; i++) {
        if (global[i] == 0 || global[i] > UINT32_MAX)
            return sxz_error(SX_ERROR_INVALID_VALUE,
                             "level_zero: kernel '%s' global size %zu in dimension %u", k->name,
                             global[i], i);
        g[i] = (uint32_t)global[i];
    }
    if (local) {
        for (uint32_t i = 0; i < dim; i++)
            if (local[i] == 0 || local[i] > UINT32_MAX || global[i] % local[i] != 0)
                return sxz_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                                 "level_zero: kernel '%s' local size %zu does not divide global "
                                 "size %zu in dimension %u",
                                 k->name, local[i], global[i], i);
        group[0] = (uint32_t)local[0];
        group[1] = dim > 1 ? (uint32_t)local[1] : 1;
        group[2] = dim > 2 ? (uint32_t)local[2] : 1;
    } else {
        ze_result_t rc = sxz_ze.zeKernelSuggestGroupSize(k->kernel, g[0], g[1], g[2], &group[0],
                                                         &group[1], &group[2]);
        if (rc != ZE_RESULT_SUCCESS)
            return sxz_fail("zeKernelSuggestGroupSize", rc, " for kernel '%s'", k->name);
        for (int i = 0; i < 3; i++)
            if (group[i] == 0 || g[i] % group[i] != 0)
                return sxz_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                                 "zeKernelSuggestGroupSize for kernel '%s' gave %u, which does not "
                                 "divide %u in dimension %d", k->name, group[i], g[i], i);
    }
    size_t max = k->program->device->compute.maxTotalGroupSize;
    if ((uint64_t)group[0] * group[1] * group[2] > max)
        return sxz_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                         "level_zero: kernel '%s' work-group of %u x %u x %u passes the device's "
                         "%zu", k->name, group[0], group[1], group[2], max);
    count->groupCountX = g[0] / group[0];
    count->groupCountY = g[1] / group[1];
    count->groupCountZ = g[2] / group[2];
    return SX_SUCCESS;
}

static sx_result kernel_launch(sxa_queue queue, sxa_kernel kernel, uint32_t work_dim,
                               const size_t *global_offset, const size_t *global_size,
                               const size_t *local_size, uint32_t num_args, const sx_arg *args,
                               uint32_t num_events, const sxa_event *wait_list,
                               sxa_event *out_event)
{
    struct sxa_queue_s *q = (struct sxa_queue_s *)queue;
    struct sxa_kernel_s *k = (struct sxa_kernel_s *)kernel;
    if (!q || !k)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!global_size)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (work_dim < 1 || work_dim > 3)
        return sxz_error(SX_ERROR_INVALID_WORK_DIMENSION,
                         "level_zero: work dimension %u is not 1, 2 or 3", work_dim);
    if (k->program->device != q->device)
        return sxz_error(SX_ERROR_INVALID_DEVICE,
                         "level_zero: kernel '%s' was built for another device than queue %p's",
                         k->name, (void *)q);
    uint32_t off[3] = {0, 0, 0};
    int has_offset = 0;
    for (uint32_t i = 0; global_offset && i < work_dim; i++) {
        if (global_offset[i] > UINT32_MAX)
            return sxz_error(SX_ERROR_INVALID_VALUE, "level_zero: global offset %zu too large",
                             global_offset[i]);
        off[i] = (uint32_t)global_offset[i];
        has_offset |= off[i] != 0;
    }
    if (has_offset && !sxz_ze.zeKernelSetGlobalOffsetExp)
        return sxz_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "level_zero: global offsets need zeKernelSetGlobalOffsetExp, which the "
                         "loader lacks");
    cmd c;
    sx_result r = cmd_begin(&c, q, num_events, wait_list, out_event, 0);
    if (r != SX_SUCCESS)
        return r;
    uint32_t group[3];
    ze_group_count_t count;
    ze_result_t rc = ZE_RESULT_SUCCESS;
    const char *fn = "zeCommandListAppendLaunchKernel";
    /* The ze kernel's argument and group state is shared: hold the kernel
     * from the first setter until the append has captured it. */
    pthread_mutex_lock(&k->lock);
    r = set_args(k, num_args, args);
    if (r == SX_SUCCESS)
        r = declare_indirect(k, q->context);
    if (r == SX_SUCCESS)
        r = shape(k, work_dim, global_size, local_size, group, &count);
    if (r == SX_SUCCESS && memcmp(group, k->group, sizeof(group)) != 0) {
        rc = sxz_ze.zeKernelSetGroupSize(k->kernel, group[0], group[1], group[2]);
        if (rc == ZE_RESULT_SUCCESS)
            memcpy(k->group, group, sizeof(group));
        else
            fn = "zeKernelSetGroupSize";
    }
    if (r == SX_SUCCESS && rc == ZE_RESULT_SUCCESS && (has_offset || k->offset_set)) {
        rc = sxz_ze.zeKernelSetGlobalOffsetExp(k->kernel, off[0], off[1], off[2]);
        if (rc == ZE_RESULT_SUCCESS)
            k->offset_set = has_offset;
        else
            fn = "zeKernelSetGlobalOffsetExp";
    }
    if (r == SX_SUCCESS && rc == ZE_RESULT_SUCCESS) {
        pthread_mutex_lock(&q->lock);
        rc = cmd_order(&c);
        if (rc == ZE_RESULT_SUCCESS)
            rc = sxz_ze.zeCommandListAppendLaunchKernel(q->list, k->kernel, &count, cmd_signal(&c),
                                                        c.nwait, c.wait);
        else
            fn = "zeCommandListAppendBarrier";
        pthread_mutex_unlock(&q->lock);
    }
    pthread_mutex_unlock(&k->lock);
    if (r != SX_SUCCESS) {
        if (c.wait && c.wait != c.buf)
            free(c.wait);
        sxz_event_free(c.ev);
        return r;
    }
    return cmd_end(&c, fn, rc, out_event);
}

/* A copy of `size` bytes; the common body of memcpy and variable copies. */
static sx_result copy(struct sxa_queue_s *q, int blocking, void *dst, const void *src,
                      size_t size, uint32_t num_events, const sxa_event *wait_list,
                      sxa_event *out_event)
{
    cmd c;
    sx_result r = cmd_begin(&c, q, num_events, wait_list, out_event, blocking);
    if (r != SX_SUCCESS)
        return r;
    const char *fn = "zeCommandListAppendMemoryCopy";
    pthread_mutex_lock(&q->lock);
    ze_result_t rc = cmd_order(&c);
    if (rc == ZE_RESULT_SUCCESS)
        rc = sxz_ze.zeCommandListAppendMemoryCopy(q->list, dst, src, size, cmd_signal(&c), c.nwait,
                                                  c.wait);
    else
        fn = "zeCommandListAppendBarrier";
    pthread_mutex_unlock(&q->lock);
    return cmd_end(&c, fn, rc, out_event);
}

static sx_result usm_memcpy(sxa_queue queue, int blocking, void *dst, const void *src,
                            size_t size, uint32_t num_events, const sxa_event *wait_list,
                            sxa_event *out_event)
{
    struct sxa_queue_s *q = (struct sxa_queue_s *)queue;
    if (!q)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!dst || !src)
        return SX_ERROR_INVALID_NULL_POINTER;
    if ((const char *)dst < (const char *)src + size && (const char *)src < (const char *)dst + size &&
        size)
        return sxz_error(SX_ERROR_INVALID_VALUE,
                         "level_zero: copy of %zu bytes between overlapping ranges", size);
    return copy(q, blocking, dst, src, size, num_events, wait_list, out_event);
}

static sx_result usm_fill(sxa_queue queue, void *ptr, size_t pattern_size, const void *pattern,
                          size_t size, uint32_t num_events, const sxa_event *wait_list,
                          sxa_event *out_event)
{
    struct sxa_queue_s *q = (struct sxa_queue_s *)queue;
    if (!q)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!ptr || !pattern)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (pattern_size == 0 || pattern_size > 128 || (pattern_size & (pattern_size - 1)))
        return sxz_error(SX_ERROR_INVALID_VALUE,
                         "level_zero: fill pattern of %zu bytes (1, 2, 4, ... 128 allowed)",
                         pattern_size);
    if (size % pattern_size != 0)
        return sxz_error(SX_ERROR_INVALID_SIZE,
                         "level_zero: fill of %zu bytes is not a multiple of the %zu-byte pattern",
                         size, pattern_size);
    cmd c;
    sx_result r = cmd_begin(&c, q, num_events, wait_list, out_event, 0);
    if (r != SX_SUCCESS)
        return r;
    const char *fn = "zeCommandListAppendMemoryFill";
    pthread_mutex_lock(&q->lock);
    ze_result_t rc = cmd_order(&c);
    if (rc == ZE_RESULT_SUCCESS)
        rc = sxz_ze.zeCommandListAppendMemoryFill(q->list, ptr, pattern, pattern_size, size,
                                                  cmd_signal(&c), c.nwait, c.wait);
    else
        fn = "zeCommandListAppendBarrier";
    pthread_mutex_unlock(&q->lock);
    return cmd_end(&c, fn, rc, out_event);
}

/* Address of bytes [offset, offset + count) of variable `name`, checked. */
static sx_result global_range(struct sxa_queue_s *q, struct sxa_program_s *p, const char *name,
                              size_t count, size_t offset, const char *what, char **addr)
{
    if (!q || !p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!name)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (p->device != q->device)
        return sxz_error(SX_ERROR_INVALID_DEVICE,
                         "level_zero: program %p was built for another device than queue %p's",
                         (void *)p, (void *)q);
    size_t size = 0;
    void *base = NULL;
    sx_result r = sxz_program_global(p, name, &size, &base);
    if (r != SX_SUCCESS)
        return r;
    if (offset > size || count > size - offset)
        return sxz_error(SX_ERROR_INVALID_VALUE,
                         "level_zero: %s of %zu bytes at offset %zu of variable '%s' overruns "
                         "its %zu bytes",
                         what, count, offset, name, size);
    *addr = (char *)base + offset;
    return SX_SUCCESS;
}

static sx_result global_write(sxa_queue queue, sxa_program program, const char *name,
                              int blocking, size_t count, size_t offset, const void *src,
                              uint32_t num_events, const sxa_event *wait_list,
                              sxa_event *out_event)
{
    struct sxa_queue_s *q = (struct sxa_queue_s *)queue;
    char *addr;
    sx_result r = global_range(q, (struct sxa_program_s *)program, name, count, offset, "write",
                               &addr);
    if (r != SX_SUCCESS)
        return r;
    if (!src && count)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (count == 0)
        return copy(q, blocking, addr, addr, 0, num_events, wait_list, out_event);
    /* The caller may reuse `src` as soon as we return: always wait. */
    (void)blocking;
    return copy(q, 1, addr, src, count, num_events, wait_list, out_event);
}

static sx_result global_read(sxa_queue queue, sxa_program program, const char *name, int blocking,
                             size_t count, size_t offset, void *dst, uint32_t num_events,
                             const sxa_event *wait_list, sxa_event *out_event)
{
    struct sxa_queue_s *q = (struct sxa_queue_s *)queue;
    char *addr;
    sx_result r = global_range(q, (struct sxa_program_s *)program, name, count, offset, "read",
                               &addr);
    if (r != SX_SUCCESS)
        return r;
    if (!dst && count)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (count == 0)
        return copy(q, blocking, addr, addr, 0, num_events, wait_list, out_event);
    return copy(q, blocking, dst, addr, count, num_events, wait_list, out_event);
}

static sx_result barrier(sxa_queue queue, uint32_t num_events, const sxa_event *wait_list,
                         sxa_event *out_event)
{
    struct sxa_queue_s *q = (struct sxa_queue_s *)queue;
    if (!q)
        return SX_ERROR_INVALID_NULL_HANDLE;
    cmd c;
    sx_result r = cmd_begin(&c, q, num_events, wait_list, out_event, 0);
    if (r != SX_SUCCESS)
        return r;
    pthread_mutex_lock(&q->lock);
    ze_result_t rc = sxz_ze.zeCommandListAppendBarrier(q->list, cmd_signal(&c), c.nwait, c.wait);
    /* A barrier with no wait list orders everything before it. */
    if (c.nwait == 0)
        q->pending = 0;
    pthread_mutex_unlock(&q->lock);
    return cmd_end(&c, "zeCommandListAppendBarrier", rc, out_event);
}

const sxa_enqueue_table sxz_enqueue_table = {
    .size = sizeof(sxa_enqueue_table),
    .kernel_launch = kernel_launch,
    .usm_memcpy = usm_memcpy,
    .usm_fill = usm_fill,
    .global_write = global_write,
    .global_read = global_read,
    .barrier = barrier,
};
