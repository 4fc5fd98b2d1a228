/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* kernel.c: kernels and the launch: argument array -> clSetKernelArg* on a cl_kernel this thread holds alone. */
#include "opencl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void slot_free(struct sxo_kernel_slot *s)
{
    if (!s)
        return;
    if (s->k)
        sxo_cl.clReleaseKernel(s->k);
    pthread_mutex_destroy(&s->lock);
    free(s->memo);
    free(s);
}

/* A slot holding `k` (taken over), with no argument known. */
static struct sxo_kernel_slot *slot_new(cl_kernel k, cl_uint num_args)
{
    struct sxo_kernel_slot *s = calloc(1, sizeof *s);
    if (s && num_args && !(s->memo = calloc(num_args, sizeof *s->memo))) {
        free(s);
        s = NULL;
    }
    if (!s) {
        sxo_cl.clReleaseKernel(k);
        return NULL;
    }
    s->k = k;
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

static sx_result kernel_create(sxa_program program, const char *name, sxa_kernel *out)
{
    if (!program)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!name || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    *out = NULL;
    cl_int err;
    cl_kernel k = sxo_cl.clCreateKernel(program->prog, name, &err);
    if (!k) {
        if (err == CL_INVALID_KERNEL_NAME)
            return sxo_svc->error(SX_ERROR_INVALID_KERNEL_NAME,
                                  "clCreateKernel: CL_INVALID_KERNEL_NAME (-46): program %p has no "
                                  "kernel '%s'", (void *)program, name);
        return sxo_fail(err, "clCreateKernel", "for '%s' of program %p", name, (void *)program);
    }
    cl_uint n = 0;
    err = sxo_cl.clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL);
    if (err != CL_SUCCESS) {
        sxo_cl.clReleaseKernel(k);
        return sxo_fail(err, "clGetKernelInfo", "(CL_KERNEL_NUM_ARGS) for '%s'", name);
    }
    struct sxa_kernel_s *kr = calloc(1, sizeof *kr);
    struct sxo_kernel_slot *s = slot_new(k, n); /* releases k when it fails */
    if (!kr || !s || !(kr->name = strdup(name))) {
        if (s)
            slot_free(s);
        free(kr);
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: kernel '%s'", name);
    }
    kr->base.dispatch = sxo_svc->dispatch;
    kr->program = program;
    kr->indirect = (program->usm_flags & SXA_PROGRAM_INDIRECT_USM) != 0;
    if (!kr->indirect) {
        kr->indirect = 1; /* no signature: arguments may hold pointers */
        for (uint32_t i = 0; i < program->num_direct_only; i++)
            if (!strcmp(program->direct_only[i], name))
                kr->indirect = 0;
    }
    kr->k = k;
    kr->num_args = n;
    pthread_mutex_init(&kr->grow, NULL);
    kr->slots[0] = s;
    atomic_init(&kr->num_slots, 1);
    *out = kr;
    return SX_SUCCESS;
}

static sx_result kernel_release(sxa_kernel kernel)
{
    if (!kernel)
        return SX_ERROR_INVALID_NULL_HANDLE;
    uint32_t n = atomic_load(&kernel->num_slots);
    for (uint32_t i = 0; i < n; i++)
        slot_free(kernel->slots[i]);
    pthread_mutex_destroy(&kernel->grow);
    free(kernel->name);
    free(kernel);
    return SX_SUCCESS;
}

static sx_result kernel_get_info(sxa_kernel kernel, sxa_kernel_info param, size_t size,
                                 void *value, size_t *size_ret)
{
    if (!kernel)
        return SX_ERROR_INVALID_NULL_HANDLE;
    cl_device_id dev = kernel->program->device->id;
    switch (param) {
    case SXA_KERNEL_INFO_NUM_ARGS: {
        uint32_t n = kernel->num_args;
        return sxa_info_copy(&n, sizeof n, size, value, size_ret);
    }
    case SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE: {
        size_t wg = 0;
        cl_int err = sxo_cl.clGetKernelWorkGroupInfo(kernel->k, dev, CL_KERNEL_WORK_GROUP_SIZE,
                                                     sizeof wg, &wg, NULL);
        if (err != CL_SUCCESS)
            return sxo_fail(err, "clGetKernelWorkGroupInfo", "(CL_KERNEL_WORK_GROUP_SIZE)");
        return sxa_info_copy(&wg, sizeof wg, size, value, size_ret);
    }
    case SXA_KERNEL_INFO_LOCAL_MEM_SIZE: {
        cl_ulong lm = 0;
        cl_int err = sxo_cl.clGetKernelWorkGroupInfo(kernel->k, dev, CL_KERNEL_LOCAL_MEM_SIZE,
                                                     sizeof lm, &lm, NULL);
        if (err != CL_SUCCESS)
            return sxo_fail(err, "clGetKernelWorkGroupInfo", "(CL_KERNEL_LOCAL_MEM_SIZE)");
        uint64_t v = lm;
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    default:
        return sxo_error(SX_ERROR_INVALID_ENUMERATION, "opencl: kernel info %u unknown", param);
    }
}

const sxa_kernel_table sxo_kernel_table = {
    .size = sizeof(sxa_kernel_table),
    .create = kernel_create,
    .release = kernel_release,
    .get_info = kernel_get_info,
};

/* Check the array before taking the lock: every argument exactly once.
 * Names what is wrong (args_ok is the test of every launch). */
static __attribute__((cold, noinline)) sx_result check_args(const struct sxa_kernel_s *k, uint32_t num_args, const sx_arg *args)
{
    if (num_args && !args)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (num_args != k->num_args)
        return sxo_error(num_args < k->num_args ? SX_ERROR_INVALID_KERNEL_ARGS
                                                : SX_ERROR_INVALID_ARGUMENT_INDEX,
                         "opencl: kernel %p takes %u arguments, %u given", (void *)k, k->num_args,
                         num_args);
    uint64_t stack[4] = {0};
    uint64_t *seen = k->num_args <= 256 ? stack : calloc((k->num_args + 63) / 64, sizeof *seen);
    if (!seen)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: argument check");
    sx_result rc = SX_SUCCESS;
    for (uint32_t i = 0; i < num_args && rc == SX_SUCCESS; i++) {
        const sx_arg *a = &args[i];
        uint32_t idx = a->index;
        if (idx >= k->num_args) {
            rc = sxo_error(SX_ERROR_INVALID_ARGUMENT_INDEX,
                           "opencl: argument index %u of a kernel with %u arguments", idx,
                           k->num_args);
        } else if (seen[idx / 64] & (1ull << (idx % 64))) {
            rc = sxo_error(SX_ERROR_INVALID_KERNEL_ARGS, "opencl: argument %u given twice", idx);
        } else if (a->type == SX_ARG_VALUE && (!a->value || a->size == 0)) {
            rc = sxo_error(a->value ? SX_ERROR_INVALID_ARGUMENT_SIZE : SX_ERROR_INVALID_NULL_POINTER,
                           "opencl: value argument %u with %zu bytes at %p", idx, a->size,
                           a->value);
        } else if (a->type == SX_ARG_LOCAL && (a->value || a->size == 0)) {
            rc = sxo_error(a->value ? SX_ERROR_INVALID_VALUE : SX_ERROR_INVALID_ARGUMENT_SIZE,
                           "opencl: local argument %u of %zu bytes with value %p (must be NULL)",
                           idx, a->size, a->value);
        } else if (a->type > SX_ARG_LOCAL) {
            rc = sxo_error(SX_ERROR_INVALID_ENUMERATION, "opencl: argument %u has type %u", idx,
                           a->type);
        }
        if (rc == SX_SUCCESS)
            seen[idx / 64] |= 1ull << (idx % 64);
    }
    if (seen != stack)
        free(seen);
    return rc;
}

/* Is argument `a` already set to this (memo), else remember it (bytes are
 * compared for values of up to SXO_MEMO_BYTES, pointers by value, local
 * memory by size). Called with the kernel's lock held. */
static int arg_unchanged(struct sxo_arg_memo *m, const sx_arg *a, unsigned long frees)
{
    const void *bytes = a->type == SX_ARG_VALUE ? a->value : a->type == SX_ARG_POINTER ? (const void *)&a->value : NULL;
    size_t n = a->type == SX_ARG_VALUE ? a->size : a->type == SX_ARG_POINTER ? sizeof(void *) : 0;
    if (n > SXO_MEMO_BYTES) {
        m->type = 0;
        return 0;
    }
    if (m->type == a->type + 1u && m->size == a->size && (n == 0 || memcmp(m->bytes, bytes, n) == 0) &&
        (a->type != SX_ARG_POINTER || m->frees == frees))
        return 1;
    m->type = a->type + 1u;
    m->size = (uint32_t)a->size;
    m->frees = frees;
    if (n)
        memcpy(m->bytes, bytes, n);
    return 0;
}

/* A kernel that may reach USM no argument names (a device_global's
 * instance, pointers inside a struct argument): Intel's drivers make only
 * the allocations a kernel is given resident unless told (compute-runtime
 * #631), so declare indirect access for every USM kind the context has
 * allocated, once per kind and cl_kernel. Called with the slot's lock. */
static sx_result declare_indirect(struct sxo_kernel_slot *s, const struct sxa_kernel_s *kernel,
                                  const struct sxa_context_s *c, const struct sxa_device_s *d)
{
    static const cl_kernel_exec_info param[4] = {
        [SX_USM_TYPE_HOST] = CL_KERNEL_EXEC_INFO_INDIRECT_HOST_ACCESS_INTEL,
        [SX_USM_TYPE_DEVICE] = CL_KERNEL_EXEC_INFO_INDIRECT_DEVICE_ACCESS_INTEL,
        [SX_USM_TYPE_SHARED] = CL_KERNEL_EXEC_INFO_INDIRECT_SHARED_ACCESS_INTEL,
    };
    static const char *const kind[4] = {"?", "HOST", "DEVICE", "SHARED"};
    uint32_t want = atomic_load_explicit(&c->usm_kinds, memory_order_acquire) & ~s->indirect_kinds;
    if (!kernel->indirect || !want || d->usm != SXO_USM_INTEL || !sxo_cl.clSetKernelExecInfo)
        return SX_SUCCESS;
    for (uint32_t t = SX_USM_TYPE_HOST; t <= SX_USM_TYPE_SHARED; t++) {
        if (!(want & (1u << t)))
            continue;
        cl_bool yes = CL_TRUE;
        cl_int err = sxo_cl.clSetKernelExecInfo(s->k, param[t], sizeof yes, &yes);
        if (err != CL_SUCCESS)
            return sxo_fail(err, "clSetKernelExecInfo", "(CL_KERNEL_EXEC_INFO_INDIRECT_%s_ACCESS_INTEL) for kernel "
                            "'%s' on '%s'", kind[t], kernel->name, d->name);
        s->indirect_kinds |= 1u << t;
    }
    return SX_SUCCESS;
}

/* Called with the slot's lock held. */
static sx_result set_args(struct sxo_kernel_slot *k, struct sxa_device_s *d, uint32_t num_args,
                          const sx_arg *args)
{
    unsigned long frees = atomic_load(&sxo_usm_frees);
    for (uint32_t i = 0; i < num_args; i++) {
        const sx_arg *a = &args[i];
        struct sxo_arg_memo *m = &k->memo[a->index];
        if (a->size <= UINT32_MAX && arg_unchanged(m, a, frees))
            continue;
        cl_int err;
        const char *call = "clSetKernelArg";
        switch (a->type) {
        case SX_ARG_VALUE:
            err = sxo_cl.clSetKernelArg(k->k, a->index, a->size, a->value);
            break;
        case SX_ARG_LOCAL:
            err = sxo_cl.clSetKernelArg(k->k, a->index, a->size, NULL);
            break;
        default: /* SX_ARG_POINTER: the value is the pointer */
            if (d->usm == SXO_USM_INTEL) {
                call = "clSetKernelArgMemPointerINTEL";
                err = d->platform->ext.set_arg_mem_pointer(k->k, a->index, a->value);
            } else if (d->usm == SXO_USM_SVM) {
                call = "clSetKernelArgSVMPointer";
                err = sxo_cl.clSetKernelArgSVMPointer(k->k, a->index, a->value);
            } else if (!a->value) {
                /* A NULL global pointer is a NULL buffer everywhere. */
                err = sxo_cl.clSetKernelArg(k->k, a->index, sizeof(cl_mem), NULL);
            } else {
                m->type = 0;
                return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE,
                                 "opencl: '%s' has no USM or SVM: pointer argument %u (%p) "
                                 "cannot be passed", d->name, a->index, a->value);
            }
            break;
        }
        if (err != CL_SUCCESS) {
            m->type = 0; /* what the kernel holds now is unknown */
            return sxo_fail(err, call, "for argument %u (%zu bytes, type %u) of cl_kernel %p",
                            a->index, a->size, a->type, (void *)k->k);
        }
    }
    return SX_SUCCESS;
}

/* How many cl_kernels one kernel may have: more threads enqueueing at once
 * than there are processors to run them only contend inside the driver
 * (Intel's runtime spins on its locks: 4 threads on 2 cores launched 25%
 * slower with a cl_kernel each than through one kernel's lock). */
static uint32_t sxo_kernel_slots_max(void)
{
    static _Atomic uint32_t max;
    uint32_t m = atomic_load_explicit(&max, memory_order_relaxed);
    if (!m) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        m = n < 1 ? 1 : n > SXO_KERNEL_SLOTS ? SXO_KERNEL_SLOTS : (uint32_t)n;
        atomic_store_explicit(&max, m, memory_order_relaxed);
    }
    return m;
}

/* Another slot for a thread that found every one busy, returned locked;
 * NULL when the kernel has all it may have or the driver cannot make one
 * (then the caller waits for a busy one). */
static struct sxo_kernel_slot *slot_add(struct sxa_kernel_s *kernel, uint32_t *index)
{
    struct sxo_kernel_slot *s = NULL;
    pthread_mutex_lock(&kernel->grow);
    uint32_t n = atomic_load_explicit(&kernel->num_slots, memory_order_relaxed);
    if (n < sxo_kernel_slots_max()) {
        /* Made from the program, not cloned: clCloneKernel would read the
         * arguments of a kernel another thread may be setting. */
        cl_int err;
        cl_kernel k = sxo_cl.clCreateKernel(kernel->program->prog, kernel->name, &err);
        if (k && (s = slot_new(k, kernel->num_args))) {
            pthread_mutex_lock(&s->lock);
            kernel->slots[n] = s;
            atomic_store_explicit(&kernel->num_slots, n + 1, memory_order_release);
            *index = n;
        } else if (!k) {
            sxo_svc->log(SX_LOG_INFO, "opencl: kernel '%s': clCreateKernel for a concurrent "
                         "launch failed (%s); waiting for a busy one instead", kernel->name,
                         sxo_cl_error_name(err));
        }
    }
    pthread_mutex_unlock(&kernel->grow);
    return s;
}

/* A slot of `kernel` for this thread, locked: the one it used last when
 * free, else any free one, else a new one, else it waits for its last. */
static struct sxo_kernel_slot *slot_take(struct sxa_kernel_s *kernel)
{
    static _Thread_local uint32_t last;
    uint32_t n = atomic_load_explicit(&kernel->num_slots, memory_order_acquire);
    uint32_t first = last < n ? last : 0;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t i = (first + j) % n;
        if (pthread_mutex_trylock(&kernel->slots[i]->lock) == 0) {
            last = i;
            return kernel->slots[i];
        }
    }
    struct sxo_kernel_slot *s = slot_add(kernel, &last);
    if (s)
        return s;
    last = first;
    s = kernel->slots[first];
    pthread_mutex_lock(&s->lock);
    return s;
}

/* check_args's test without the messages, for up to 64 arguments. */
static inline int args_ok(const struct sxa_kernel_s *k, uint32_t num_args, const sx_arg *args)
{
    if (num_args != k->num_args || num_args > 64 || (num_args && !args))
        return 0;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < num_args; i++) {
        const sx_arg *a = &args[i];
        if (a->index >= num_args || (seen & (1ull << a->index)) || a->type > SX_ARG_LOCAL ||
            (a->type == SX_ARG_VALUE && (!a->value || a->size == 0)) ||
            (a->type == SX_ARG_LOCAL && (a->value || a->size == 0)))
            return 0;
        seen |= 1ull << a->index;
    }
    return 1;
}

/* The shape checks of launch, with the messages. */
static __attribute__((cold, noinline)) sx_result check_shape(const struct sxa_device_s *d, uint32_t work_dim,
                                                             const size_t *global_size,
                                                             const size_t *local_size)
{
    if (work_dim < 1 || work_dim > 3)
        return sxo_error(SX_ERROR_INVALID_WORK_DIMENSION, "opencl: %u dimensions", work_dim);
    for (uint32_t i = 0; i < work_dim; i++) {
        if (local_size && local_size[i] == 0)
            return sxo_error(SX_ERROR_INVALID_WORK_GROUP_SIZE, "opencl: local size 0 in "
                             "dimension %u", i);
        if (local_size && !d->nonuniform && global_size[i] % local_size[i])
            return sxo_error(SX_ERROR_INVALID_WORK_GROUP_SIZE,
                             "opencl: '%s' needs uniform work-groups: global %zu is not a "
                             "multiple of local %zu in dimension %u",
                             d->name, global_size[i], local_size[i], i);
    }
    return SX_SUCCESS;
}

__attribute__((hot)) sx_result sxo_kernel_launch(sxa_queue queue, sxa_kernel kernel, uint32_t work_dim,
                                                const size_t *global_offset, const size_t *global_size,
                                                const size_t *local_size, uint32_t num_args,
                                                const sx_arg *args, uint32_t num_events,
                                                const sxa_event *wait_list, sxa_event *out_event)
{
    if (!queue || !kernel)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (out_event)
        *out_event = NULL;
    if (!global_size)
        return SX_ERROR_INVALID_NULL_POINTER;
    struct sxa_device_s *d = queue->device;
    if (__builtin_expect(kernel->program->device != d, 0))
        return sxo_error(SX_ERROR_INVALID_DEVICE,
                         "opencl: kernel %p was built for '%s', the queue is on '%s'",
                         (void *)kernel, kernel->program->device->name, d->name);
    sx_result rc;
    if (__builtin_expect(!args_ok(kernel, num_args, args), 0) &&
        (rc = check_args(kernel, num_args, args)) != SX_SUCCESS)
        return rc;
    /* the shape: a refused one is named by check_shape */
    int empty = 0, bad = work_dim - 1 > 2;
    for (uint32_t i = 0; i < work_dim && !bad; i++) {
        empty |= global_size[i] == 0;
        if (local_size)
            bad |= local_size[i] == 0 || (!d->nonuniform && global_size[i] % local_size[i]);
    }
    if (__builtin_expect(bad, 0))
        return check_shape(d, work_dim, global_size, local_size);
    cl_event buf[16], *list = NULL, ev = NULL;
    if (num_events && (rc = sxo_wait_list(num_events, wait_list, buf, SXO_ARRAY_SIZE(buf), &list)) != SX_SUCCESS)
        return rc;
    cl_event *evp = out_event ? &ev : NULL;
    cl_int err;
    /* The event's wrapper is made before the enqueue: after it, nothing
     * slow may delay the caller's wait (a CPU driver's worker then takes
     * the command, and the wait costs several times more). */
    struct sxa_event_s *w = NULL;
    if (out_event && !empty && !(w = malloc(sizeof *w))) {
        sxo_wait_list_free(list, buf);
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: event wrapper of a launch");
    }
    if (empty) {
        /* Nothing runs; OpenCL 1.2 would refuse a 0 size, so order only. */
        err = sxo_cl.clEnqueueMarkerWithWaitList(queue->q, num_events, list, evp);
        sxo_wait_list_free(list, buf);
        if (err != CL_SUCCESS)
            return sxo_fail(err, "clEnqueueMarkerWithWaitList", "for an empty launch");
        return sxo_event_out(ev, out_event);
    }
    /* Without arguments there is nothing to keep together with the
     * enqueue (clEnqueueNDRangeKernel itself is thread-safe). */
    struct sxo_kernel_slot *slot = num_args || kernel->indirect ? slot_take(kernel) : kernel->slots[0];
    rc = num_args ? set_args(slot, d, num_args, args) : SX_SUCCESS;
    if (rc == SX_SUCCESS)
        rc = declare_indirect(slot, kernel, queue->context, d);
    if (rc == SX_SUCCESS) {
        err = sxo_cl.clEnqueueNDRangeKernel(queue->q, slot->k, work_dim, global_offset,
                                            global_size, local_size, num_events, list, evp);
        if (err != CL_SUCCESS)
            rc = sxo_fail(err, "clEnqueueNDRangeKernel",
                          "for kernel %p on '%s' (%u-D, global %zu, local %zu)", (void *)kernel,
                          d->name, work_dim, global_size[0], local_size ? local_size[0] : 0);
    }
    if (num_args || kernel->indirect)
        pthread_mutex_unlock(&slot->lock);
    if (!atomic_load_explicit(&queue->kernels_pending, memory_order_relaxed))
        atomic_store_explicit(&queue->kernels_pending, 1, memory_order_relaxed);
    if (list)
        sxo_wait_list_free(list, buf);
    if (rc != SX_SUCCESS) {
        free(w);
        return rc;
    }
    if (w) {
        w->base.dispatch = sxo_svc->dispatch;
        w->ev = ev;
        *out_event = w;
    }
    return SX_SUCCESS;
}
