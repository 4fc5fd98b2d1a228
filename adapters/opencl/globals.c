/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* globals.c: program-scope variable (device global) read/write/size/bind, by extension or accessor kernels; buffer instances without USM.
 *
 * OpenCL has no core way to reach a program-scope variable from the host.
 * Two ways are used, in this order:
 *
 * 1. cl_intel_global_variable_access (clEnqueueRead/WriteGlobalVariableINTEL)
 *    and cl_intel_global_variable_pointers (clGetDeviceGlobalVariablePointerINTEL)
 *    when the device lists them. Written from the extension texts; no
 *    driver on the test machines has them, so this path is UNTESTED.
 *
 * 2. Accessor kernels in the program itself, found by name. For a
 *    variable <name> the program carries either one kernel, which fits
 *    the one entry name per variable of "SX/device global accessors":
 *
 *      kernel void __sx_dg_access_<name>(global uchar *buf, ulong offset,
 *                                        ulong count, uint op)
 *          -- op 0: ((global ulong *)buf)[0] = sizeof(<name>)
 *          -- op 1: buf[i] = ((uchar *)&<name>)[offset + i], i < count
 *          -- op 2: ((uchar *)&<name>)[offset + i] = buf[i], i < count
 *          -- op 3: *(global uchar *global *)&<name> = buf (bind; below)
 *
 *    or three (the first convention; tests/kernels/ocl-globals.cl writes
 *    both forms by hand):
 *
 *      kernel void __sx_dg_size_<name>(global ulong *out)
 *          -- out[0] = sizeof(<name>)
 *      kernel void __sx_dg_read_<name>(global uchar *dst, ulong offset, ulong count)
 *          -- dst[i] = ((uchar *)&<name>)[offset + i], i < count
 *      kernel void __sx_dg_write_<name>(global const uchar *src, ulong offset, ulong count)
 *          -- ((uchar *)&<name>)[offset + i] = src[i], i < count
 *
 *    Each runs as one work-item. The host side is always a cl_mem buffer
 *    (never an SVM pointer): that works on OpenCL 1.2 (Oclgrind) and 3.0
 *    alike, and a write copies `src` into the buffer before returning, so
 *    a non-blocking write never reads the caller's memory late. The size
 *    kernel runs once per (program, variable) and gives the bound that
 *    every read and write is checked against (offset + count > size is
 *    SX_ERROR_INVALID_VALUE); a variable whose size kernel, read kernel or
 *    write kernel is missing is SX_ERROR_INVALID_GLOBAL_NAME.
 *
 *    Accessor kernels only work where the kernels of one program share
 *    its variables. PoCL 3.1 keeps a copy per kernel, so the write
 *    kernel's copy is not the one the user's kernels see: a probe (write
 *    through one kernel, read through another, once per device) detects
 *    it and read/write then answer SX_ERROR_UNSUPPORTED_FEATURE with what
 *    the probe saw. The size query still works there.
 *
 * When the core passes the accessor names of "SX/device global accessors"
 * (a later ABI minor), they replace the name convention above. */
#include "opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SXO_DG_ACCESS "__sx_dg_access_"
#define SXO_DG_SIZE "__sx_dg_size_"
#define SXO_DG_READ "__sx_dg_read_"
#define SXO_DG_WRITE "__sx_dg_write_"
#define SXO_DG_NAME_MAX 1024

void sxo_globals_free(struct sxa_program_s *prog)
{
    sxo_global *g = atomic_load_explicit(&prog->globals, memory_order_relaxed);
    while (g) {
        sxo_global *next = g->next;
        if (g->read)
            sxo_cl.clReleaseKernel(g->read);
        if (g->write && !g->single)
            sxo_cl.clReleaseKernel(g->write);
        pthread_mutex_destroy(&g->lock);
        free(g->name);
        free(g);
        g = next;
    }
    atomic_store_explicit(&prog->globals, NULL, memory_order_relaxed);
}

static sx_result accessor_kernel(struct sxa_program_s *p, const char *prefix, const char *name,
                                 cl_kernel *out)
{
    char entry[sizeof SXO_DG_ACCESS + SXO_DG_NAME_MAX];
    snprintf(entry, sizeof entry, "%s%s", prefix, name);
    cl_int err;
    *out = sxo_cl.clCreateKernel(p->prog, entry, &err);
    if (*out)
        return SX_SUCCESS;
    if (err == CL_INVALID_KERNEL_NAME)
        return sxo_svc->error(SX_ERROR_INVALID_GLOBAL_NAME,
                              "opencl: program %p has no device global '%s' (no accessor kernel "
                              "'%s': clCreateKernel: CL_INVALID_KERNEL_NAME (-46))",
                              (void *)p, name, entry);
    return sxo_fail(err, "clCreateKernel", "for accessor '%s' of program %p", entry, (void *)p);
}

/* Run the size accessor once on queue `q` (or a queue of our own): `single`
 * is the one-kernel form (op 0), else __sx_dg_size_<name>. */
static sx_result accessor_size(struct sxa_program_s *p, const char *name, cl_kernel single,
                               cl_command_queue q, size_t *size)
{
    cl_kernel k = single;
    sx_result rc = single ? SX_SUCCESS : accessor_kernel(p, SXO_DG_SIZE, name, &k);
    if (rc != SX_SUCCESS)
        return rc;
    cl_int err = CL_SUCCESS;
    cl_command_queue own = NULL;
    cl_mem buf = NULL;
    cl_event ran = NULL;
    const char *call = "clCreateCommandQueue";
    if (!q) {
        own = q = sxo_create_cl_queue(p->context, p->device, 0, &err);
        if (!own)
            goto out;
    }
    cl_ulong value = 0;
    call = "clCreateBuffer";
    buf = sxo_cl.clCreateBuffer(p->context->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                sizeof value, &value, &err);
    if (!buf)
        goto out;
    size_t one = 1;
    call = "clSetKernelArg";
    cl_ulong zero = 0;
    cl_uint op = 0;
    if ((err = sxo_cl.clSetKernelArg(k, 0, sizeof buf, &buf)) != CL_SUCCESS ||
        (single && ((err = sxo_cl.clSetKernelArg(k, 1, sizeof zero, &zero)) != CL_SUCCESS ||
                    (err = sxo_cl.clSetKernelArg(k, 2, sizeof zero, &zero)) != CL_SUCCESS ||
                    (err = sxo_cl.clSetKernelArg(k, 3, sizeof op, &op)) != CL_SUCCESS)))
        goto out;
    call = "clEnqueueNDRangeKernel";
    if ((err = sxo_cl.clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, &ran)) !=
        CL_SUCCESS)
        goto out;
    /* Chained by the event: the caller's queue may be out of order. */
    call = "clEnqueueReadBuffer";
    err = sxo_cl.clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof value, &value, 1, &ran, NULL);
    if (err == CL_SUCCESS) {
        if (value == 0 || value > SIZE_MAX / 2)
            rc = sxo_error(SX_ERROR_INVALID_BINARY, "opencl: the size accessor of '%s' says "
                           "%llu bytes", name, (unsigned long long)value);
        *size = (size_t)value;
    }
out:
    if (err != CL_SUCCESS)
        rc = sxo_fail(err, call, "while sizing device global '%s' of program %p", name,
                      (void *)p);
    if (ran)
        sxo_cl.clReleaseEvent(ran);
    if (buf)
        sxo_cl.clReleaseMemObject(buf);
    if (own)
        sxo_cl.clReleaseCommandQueue(own);
    if (!single)
        sxo_cl.clReleaseKernel(k);
    return rc;
}

/* The record of `name` in `p`, made on first use. */
static sx_result find_global(struct sxa_program_s *p, const char *name, cl_command_queue q,
                             sxo_global **out)
{
    size_t len = strlen(name);
    if (len == 0 || len > SXO_DG_NAME_MAX)
        return sxo_error(SX_ERROR_INVALID_GLOBAL_NAME, "opencl: device global name of %zu "
                         "characters", len);
    /* The copy path: the record is there (a published record never changes). */
    for (sxo_global *g = atomic_load_explicit(&p->globals, memory_order_acquire); g; g = g->next)
        if (strcmp(g->name, name) == 0) {
            *out = g;
            return SX_SUCCESS;
        }
    pthread_mutex_lock(&p->lock);
    for (sxo_global *g = atomic_load_explicit(&p->globals, memory_order_relaxed); g; g = g->next)
        if (strcmp(g->name, name) == 0) {
            pthread_mutex_unlock(&p->lock);
            *out = g;
            return SX_SUCCESS;
        }
    sx_result rc = SX_SUCCESS;
    sxo_global *g = calloc(1, sizeof *g);
    if (!g || !(g->name = strdup(name))) {
        free(g);
        pthread_mutex_unlock(&p->lock);
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: device global record");
    }
    pthread_mutex_init(&g->lock, NULL);
    struct sxa_device_s *d = p->device;
    const sxo_ext *e = &d->platform->ext;
    if (d->global_access) {
        g->size = SIZE_MAX;  /* unknown: the driver checks the bounds */
        if (e->global_pointer) {
            void *ptr = NULL;
            cl_int err = e->global_pointer(d->id, p->prog, name, &g->size, &ptr);
            g->ptr = err == CL_SUCCESS ? ptr : NULL;
            if (err != CL_SUCCESS)
                rc = err == CL_INVALID_ARG_VALUE
                         ? sxo_svc->error(SX_ERROR_INVALID_GLOBAL_NAME,
                                          "clGetDeviceGlobalVariablePointerINTEL: "
                                          "CL_INVALID_ARG_VALUE (-50): program %p has no '%s'",
                                          (void *)p, name)
                         : sxo_fail(err, "clGetDeviceGlobalVariablePointerINTEL", "for '%s'", name);
        }
    } else {
        /* The one-kernel form first; else the three kernels. */
        cl_kernel one = NULL;
        if (accessor_kernel(p, SXO_DG_ACCESS, name, &one) == SX_SUCCESS) {
            g->read = g->write = one;
            g->single = 1;
            rc = accessor_size(p, name, one, q, &g->size);
        } else {
            rc = accessor_size(p, name, NULL, q, &g->size);
            if (rc == SX_SUCCESS)
                rc = accessor_kernel(p, SXO_DG_READ, name, &g->read);
            if (rc == SX_SUCCESS)
                rc = accessor_kernel(p, SXO_DG_WRITE, name, &g->write);
        }
    }
    if (rc != SX_SUCCESS) {
        if (g->read)
            sxo_cl.clReleaseKernel(g->read);
        if (g->write && !g->single)
            sxo_cl.clReleaseKernel(g->write);
        pthread_mutex_destroy(&g->lock);
        free(g->name);
        free(g);
        pthread_mutex_unlock(&p->lock);
        return rc;
    }
    g->next = atomic_load_explicit(&p->globals, memory_order_relaxed);
    atomic_store_explicit(&p->globals, g, memory_order_release);
    pthread_mutex_unlock(&p->lock);
    *out = g;
    return SX_SUCCESS;
}

sx_result sxo_get_global(sxa_program program, const char *name, size_t *size, void **ptr)
{
    if (!program)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!name)
        return SX_ERROR_INVALID_NULL_POINTER;
    struct sxa_device_s *d = program->device;
    const sxo_ext *e = &d->platform->ext;
    if (d->global_access && e->global_pointer) {
        size_t s = 0;
        void *p = NULL;
        cl_int err = e->global_pointer(d->id, program->prog, name, &s, &p);
        if (err == CL_INVALID_ARG_VALUE)
            return sxo_svc->error(SX_ERROR_INVALID_GLOBAL_NAME,
                                  "clGetDeviceGlobalVariablePointerINTEL: CL_INVALID_ARG_VALUE "
                                  "(-50): program %p has no '%s'", (void *)program, name);
        if (err != CL_SUCCESS)
            return sxo_fail(err, "clGetDeviceGlobalVariablePointerINTEL", "for '%s'", name);
        if (size)
            *size = s;
        if (ptr)
            *ptr = p;
        return SX_SUCCESS;
    }
    sxo_global *g;
    sx_result rc = find_global(program, name, NULL, &g);
    if (rc != SX_SUCCESS)
        return rc;
    if (size)
        *size = g->size;
    /* Without the pointers extension OpenCL gives no address. */
    if (ptr)
        *ptr = NULL;
    return SX_SUCCESS;
}

/* Common checks of read and write; *g is the variable's record. */
static sx_result prepare(sxa_queue queue, sxa_program program, const char *name, size_t count,
                         size_t offset, const void *host, const char *what, sxo_global **g)
{
    if (!queue || !program)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!name || (count && !host))
        return SX_ERROR_INVALID_NULL_POINTER;
    struct sxa_device_s *d = queue->device;
    if (program->device != d || program->context != queue->context)
        return sxo_error(SX_ERROR_INVALID_DEVICE,
                         "opencl: program %p is for '%s', the queue is on '%s'", (void *)program,
                         program->device->name, d->name);
    if (!d->global_access && !sxo_device_shares_globals(d))
        return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "opencl: cannot %s device global '%s' on '%s': it has no "
                         "cl_intel_global_variable_access and %s, so accessor kernels would "
                         "reach a copy no other kernel sees",
                         what, name, d->name, d->dg_note);
    sx_result rc = find_global(program, name, queue->q, g);
    if (rc != SX_SUCCESS)
        return rc;
    size_t size = (*g)->size;
    if (offset > size || count > size - offset)
        return sxo_error(SX_ERROR_INVALID_VALUE,
                         "opencl: device global '%s': %s of %zu bytes at offset %zu overruns its "
                         "%zu bytes", name, what, count, offset, size);
    return SX_SUCCESS;
}

/* An empty copy: order only; blocking ones wait for the wait list. */
static sx_result empty_copy(sxa_queue queue, int blocking, uint32_t n, const cl_event *list,
                            sxa_event *out_event)
{
    cl_event ev = NULL;
    cl_int err = sxo_cl.clEnqueueMarkerWithWaitList(queue->q, n, list,
                                                    out_event || blocking ? &ev : NULL);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clEnqueueMarkerWithWaitList", "for an empty device-global copy");
    if (blocking && ev)
        sxo_cl.clWaitForEvents(1, &ev);
    return sxo_event_out(ev, out_event);
}

/* Launch accessor `k` with (buf, offset, count[, op]) under the record's
 * lock; `op` (1 read, 2 write) only for the one-kernel form. */
static cl_int run_accessor(sxo_global *g, cl_kernel k, cl_uint op, cl_command_queue q, cl_mem buf,
                           size_t offset, size_t count, uint32_t n, const cl_event *list,
                           cl_event *ev)
{
    cl_ulong off = offset, cnt = count;
    size_t one = 1;
    cl_int err;
    pthread_mutex_lock(&g->lock);
    if ((err = sxo_cl.clSetKernelArg(k, 0, sizeof buf, &buf)) == CL_SUCCESS &&
        (err = sxo_cl.clSetKernelArg(k, 1, sizeof off, &off)) == CL_SUCCESS &&
        (err = sxo_cl.clSetKernelArg(k, 2, sizeof cnt, &cnt)) == CL_SUCCESS &&
        (!g->single || (err = sxo_cl.clSetKernelArg(k, 3, sizeof op, &op)) == CL_SUCCESS))
        err = sxo_cl.clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, n, list, ev);
    pthread_mutex_unlock(&g->lock);
    return err;
}

static void CL_CALLBACK free_staging(cl_event ev, cl_int status, void *copy)
{
    (void)ev;
    (void)status;
    free(copy);
}

/* A blocking copy on a CPU device whose memory is the host's, of a
 * variable whose address the driver gave: clEnqueueSVMMemcpy between two
 * host addresses, ordered in the queue like any command. Intel's CPU
 * runtime runs clEnqueueWrite/ReadGlobalVariableINTEL as a task on a worker
 * thread (2.1-3.2 us for 4 bytes here), and a blocking SVM copy in the
 * calling thread (0.9-1.2 us). -1: not this way. */
static cl_int host_copy(sxa_queue queue, const sxo_global *g, int blocking, int write,
                        size_t offset, size_t count, void *host, uint32_t n, const cl_event *list,
                        cl_event *evp)
{
    if (!blocking || !g->ptr || !queue->device->host_copies)
        return -1;
    char *var = (char *)g->ptr + offset;
    /* Commands before it (the kernel that wrote the variable) finish first
     * in clFinish, where the calling thread helps run them; the blocking
     * copy alone would sleep until a worker ran them (0.1 ms to wake). */
    if (atomic_load_explicit(&queue->kernels_pending, memory_order_relaxed)) {
        cl_int err = sxo_cl.clFinish(queue->q);
        if (err != CL_SUCCESS)
            return err;
        atomic_store_explicit(&queue->kernels_pending, 0, memory_order_relaxed);
    }
    return sxo_cl.clEnqueueSVMMemcpy(queue->q, CL_TRUE, write ? var : host, write ? host : var,
                                     count, n, list, evp);
}

/* clEnqueueWriteGlobalVariableINTEL reads `src` when the copy runs; the
 * ABI lets the caller reuse it once the call returns, so a non-blocking
 * write goes from a copy, freed when the command completes. */
static cl_int write_by_extension(sxa_queue queue, sxa_program program, const char *name,
                                 int blocking, size_t count, size_t offset, const void *src,
                                 uint32_t n, const cl_event *list, cl_event *evp)
{
    sxo_write_global_fn write = queue->device->platform->ext.write_global;
    if (blocking)
        return write(queue->q, program->prog, name, CL_TRUE, count, offset, src, n, list, evp);
    void *copy = malloc(count);
    if (!copy)
        return CL_OUT_OF_HOST_MEMORY;
    memcpy(copy, src, count);
    cl_event ev = NULL;
    cl_int err = write(queue->q, program->prog, name, CL_FALSE, count, offset, copy, n, list, &ev);
    if (err == CL_SUCCESS)
        err = sxo_cl.clSetEventCallback(ev, CL_COMPLETE, free_staging, copy);
    else
        free(copy);
    if (err != CL_SUCCESS && ev) {
        /* No callback: wait, so the copy is not freed under the command. */
        sxo_cl.clWaitForEvents(1, &ev);
        free(copy);
        err = CL_SUCCESS;
    }
    if (evp)
        *evp = ev;
    else if (ev)
        sxo_cl.clReleaseEvent(ev);
    return err;
}

/* The write's copy once its wait list is ready; *call names the OpenCL
 * call that failed. */
static cl_int write_copy(sxa_queue queue, sxa_program program, sxo_global *g, const char *name,
                         int blocking, size_t count, size_t offset, const void *src, uint32_t n,
                         const cl_event *list, cl_event *evp, const char **call)
{
    cl_int err;
    if (!g->write) {
        *call = "clEnqueueSVMMemcpy";
        err = host_copy(queue, g, blocking, 1, offset, count, (void *)src, n, list, evp);
        if (err == -1) {
            *call = "clEnqueueWriteGlobalVariableINTEL";
            err = write_by_extension(queue, program, name, blocking, count, offset, src, n, list,
                                     evp);
        }
        return err;
    }
    /* The buffer takes a copy of src now: a non-blocking write never reads
     * the caller's memory later. OpenCL frees the buffer once the accessor
     * that uses it has run. */
    *call = "clCreateBuffer";
    cl_mem mem = sxo_cl.clCreateBuffer(queue->context->ctx,
                                       CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, count,
                                       (void *)src, &err);
    if (!mem)
        return err;
    cl_event ev = NULL;
    *call = "clEnqueueNDRangeKernel";
    err = run_accessor(g, g->write, 2, queue->q, mem, offset, count, n, list,
                       evp || blocking ? &ev : NULL);
    sxo_cl.clReleaseMemObject(mem);
    if (err == CL_SUCCESS && blocking) {
        *call = "clWaitForEvents";
        err = sxo_cl.clWaitForEvents(1, &ev);
    }
    if (evp)
        *evp = ev;
    else if (ev)
        sxo_cl.clReleaseEvent(ev);
    return err;
}

/* The read's copy once its wait list is ready (as write_copy). */
static cl_int read_copy(sxa_queue queue, sxa_program program, sxo_global *g, const char *name,
                        int blocking, size_t count, size_t offset, void *dst, uint32_t n,
                        const cl_event *list, cl_event *evp, const char **call)
{
    cl_int err;
    if (!g->read) {
        *call = "clEnqueueSVMMemcpy";
        err = host_copy(queue, g, blocking, 0, offset, count, dst, n, list, evp);
        if (err == -1) {
            *call = "clEnqueueReadGlobalVariableINTEL";
            err = queue->device->platform->ext.read_global(queue->q, program->prog, name,
                                                            blocking ? CL_TRUE : CL_FALSE, count,
                                                            offset, dst, n, list, evp);
        }
        return err;
    }
    *call = "clCreateBuffer";
    cl_mem mem = sxo_cl.clCreateBuffer(queue->context->ctx, CL_MEM_READ_WRITE, count, NULL, &err);
    if (!mem)
        return err;
    cl_event ran = NULL;
    *call = "clEnqueueNDRangeKernel";
    err = run_accessor(g, g->read, 1, queue->q, mem, offset, count, n, list, &ran);
    if (err == CL_SUCCESS) {
        *call = "clEnqueueReadBuffer";
        err = sxo_cl.clEnqueueReadBuffer(queue->q, mem, blocking ? CL_TRUE : CL_FALSE, 0, count,
                                         dst, 1, &ran, evp);
        sxo_cl.clReleaseEvent(ran);
    }
    sxo_cl.clReleaseMemObject(mem);
    return err;
}

/* What read and write share: the checks, the wait list, the empty copy
 * and the error; `host` is the source of a write, the destination of a
 * read. */
static sx_result global_copy(sxa_queue queue, sxa_program program, const char *name, int write,
                             int blocking, size_t count, size_t offset, void *host,
                             uint32_t num_events, const sxa_event *wait_list,
                             sxa_event *out_event)
{
    if (out_event)
        *out_event = NULL;
    sxo_global *g;
    sx_result rc = prepare(queue, program, name, count, offset, host, write ? "write" : "read", &g);
    if (rc != SX_SUCCESS)
        return rc;
    cl_event buf[16], *list, ev = NULL;
    rc = sxo_wait_list(num_events, wait_list, buf, SXO_ARRAY_SIZE(buf), &list);
    if (rc != SX_SUCCESS)
        return rc;
    if (count == 0) {
        rc = empty_copy(queue, blocking, num_events, list, out_event);
        sxo_wait_list_free(list, buf);
        return rc;
    }
    const char *call = NULL;
    cl_int err = write ? write_copy(queue, program, g, name, blocking, count, offset, host,
                                    num_events, list, out_event ? &ev : NULL, &call)
                       : read_copy(queue, program, g, name, blocking, count, offset, host,
                                   num_events, list, out_event ? &ev : NULL, &call);
    sxo_wait_list_free(list, buf);
    if (err != CL_SUCCESS) {
        if (ev)
            sxo_cl.clReleaseEvent(ev);
        return sxo_fail(err, call, "%s %zu bytes at offset %zu of device global '%s'",
                        write ? "writing" : "reading", count, offset, name);
    }
    return sxo_event_out(ev, out_event);
}

sx_result sxo_global_write(sxa_queue queue, sxa_program program, const char *name, int blocking,
                           size_t count, size_t offset, const void *src, uint32_t num_events,
                           const sxa_event *wait_list, sxa_event *out_event)
{
    return global_copy(queue, program, name, 1, blocking, count, offset, (void *)src, num_events,
                       wait_list, out_event);
}

sx_result sxo_global_read(sxa_queue queue, sxa_program program, const char *name, int blocking,
                          size_t count, size_t offset, void *dst, uint32_t num_events,
                          const sxa_event *wait_list, sxa_event *out_event)
{
    return global_copy(queue, program, name, 0, blocking, count, offset, dst, num_events,
                       wait_list, out_event);
}

/* ---- device-global instances without USM (ABI 1.1 global table) ----
 *
 * On a device with neither cl_intel_unified_shared_memory nor SVM
 * (Oclgrind), the instance of an ordinary device global is a cl_mem
 * buffer, and a program's pointer variable is bound to it by the
 * accessor kernel's op 3, which stores its buffer argument's address into
 * the variable (chipStar does the same): OpenCL 1.2 gives the host no
 * device address of a buffer, but a kernel sees one. This relies on a
 * buffer staying where it is for its lifetime, which OpenCL does not
 * promise in words but every implementation that shares program-scope
 * variables does (a driver that moved it would break chipStar too). */

#define SXO_INSTANCE_MAGIC 0x73786f69u  /* "sxoi" */

typedef struct sxo_instance {
    uint32_t magic;
    struct sxa_context_s *context;
    cl_mem mem;
    size_t size;
} sxo_instance;

static sxo_instance *instance_of(void *instance)
{
    sxo_instance *in = instance;
    return in && in->magic == SXO_INSTANCE_MAGIC ? in : NULL;
}

sx_result sxo_instance_create(sxa_context context, sxa_device device, size_t size, void **instance)
{
    if (!context || !device)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!instance)
        return SX_ERROR_INVALID_NULL_POINTER;
    *instance = NULL;
    if (!sxo_context_has(context, device))
        return sxo_error(SX_ERROR_INVALID_DEVICE, "opencl: device '%s' is not in context %p",
                         device->name, (void *)context);
    /* Where USM works, instances are USM allocations: the core asks here
     * only after usm.alloc said no, and so does this. */
    enum sxo_usm_mode m = sxo_context_usm(context);
    if (m != SXO_USM_NONE)
        return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "opencl: context %p has %s: device-global instances are USM "
                         "allocations there, not buffers", (void *)context,
                         m == SXO_USM_INTEL ? "cl_intel_unified_shared_memory" : "SVM");
    if (size == 0 || size > (size_t)1 << 40)
        return sxo_error(SX_ERROR_INVALID_SIZE, "opencl: device-global instance of %zu bytes",
                         size);
    sxo_instance *in = calloc(1, sizeof *in);
    void *zeros = calloc(1, size);
    if (!in || !zeros) {
        free(in);
        free(zeros);
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: device-global instance of %zu "
                         "bytes", size);
    }
    /* Zero-filled by the copy at creation: no queue needed, and OpenCL 1.2
     * has no fill entry point this adapter resolves. */
    cl_int err;
    in->mem = sxo_cl.clCreateBuffer(context->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, size,
                                    zeros, &err);
    free(zeros);
    if (!in->mem) {
        free(in);
        return sxo_fail(err, "clCreateBuffer", "for a device-global instance of %zu bytes on "
                        "'%s'", size, device->name);
    }
    in->magic = SXO_INSTANCE_MAGIC;
    in->context = context;
    in->size = size;
    *instance = in;
    return SX_SUCCESS;
}

sx_result sxo_instance_release(sxa_context context, void *instance)
{
    if (!context)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!instance)
        return SX_SUCCESS;
    sxo_instance *in = instance_of(instance);
    if (!in || in->context != context)
        return sxo_error(SX_ERROR_INVALID_VALUE, "opencl: %p is not a device-global instance of "
                         "context %p", instance, (void *)context);
    in->magic = 0;
    cl_int err = sxo_cl.clReleaseMemObject(in->mem);
    free(in);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clReleaseMemObject", "for a device-global instance");
    return SX_SUCCESS;
}

sx_result sxo_instance_copy(sxa_queue queue, void *instance, int write, size_t offset, size_t count,
                            void *host, int blocking, uint32_t num_events,
                            const sxa_event *wait_list, sxa_event *out_event)
{
    if (out_event)
        *out_event = NULL;
    if (!queue)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!instance || (count && !host))
        return SX_ERROR_INVALID_NULL_POINTER;
    sxo_instance *in = instance_of(instance);
    if (!in || in->context != queue->context)
        return sxo_error(SX_ERROR_INVALID_VALUE, "opencl: %p is not a device-global instance of "
                         "the queue's context %p", instance, (void *)queue->context);
    if (offset > in->size || count > in->size - offset)
        return sxo_error(SX_ERROR_INVALID_VALUE, "opencl: device-global instance: %s of %zu bytes "
                         "at offset %zu overruns its %zu bytes", write ? "write" : "read", count,
                         offset, in->size);
    cl_event buf[16], *list, ev = NULL;
    sx_result rc = sxo_wait_list(num_events, wait_list, buf, SXO_ARRAY_SIZE(buf), &list);
    if (rc != SX_SUCCESS)
        return rc;
    if (count == 0) {
        rc = empty_copy(queue, blocking, num_events, list, out_event);
        sxo_wait_list_free(list, buf);
        return rc;
    }
    cl_bool b = blocking ? CL_TRUE : CL_FALSE;
    cl_int err = write ? sxo_cl.clEnqueueWriteBuffer(queue->q, in->mem, b, offset, count, host,
                                                     num_events, list, out_event ? &ev : NULL)
                       : sxo_cl.clEnqueueReadBuffer(queue->q, in->mem, b, offset, count, host,
                                                    num_events, list, out_event ? &ev : NULL);
    sxo_wait_list_free(list, buf);
    if (err != CL_SUCCESS)
        return sxo_fail(err, write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer",
                        "%s %zu bytes at offset %zu of a device-global instance",
                        write ? "writing" : "reading", count, offset);
    return sxo_event_out(ev, out_event);
}

sx_result sxo_global_bind(sxa_queue queue, sxa_program program, const char *name, void *instance)
{
    if (!queue || !program)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!name || !instance)
        return SX_ERROR_INVALID_NULL_POINTER;
    sxo_instance *in = instance_of(instance);
    if (!in || in->context != queue->context)
        return sxo_error(SX_ERROR_INVALID_VALUE, "opencl: %p is not a device-global instance of "
                         "the queue's context %p", instance, (void *)queue->context);
    sxo_global *g;
    sx_result rc = prepare(queue, program, name, 0, 0, NULL, "bind", &g);
    if (rc != SX_SUCCESS)
        return rc;
    if (!g->single)
        return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "opencl: cannot bind device global '%s' of program %p to a buffer: only "
                         "the one-kernel accessor __sx_dg_access_%s (proptool "
                         "--device-global-accessors) has the bind operation", name,
                         (void *)program, name);
    if (g->size != 4 && g->size != 8)
        return sxo_error(SX_ERROR_INVALID_VALUE, "opencl: device global '%s' of program %p is "
                         "%zu bytes, not a pointer variable to bind", name, (void *)program,
                         g->size);
    /* Bind (op 3), then read the variable back (op 1): an accessor without
     * op 3 (an image from an older proptool) leaves it NULL, and kernels
     * would then fault instead of this saying why. */
    cl_int err;
    const char *call = "clCreateBuffer";
    cl_event bound = NULL, readback = NULL;
    unsigned char slot[8] = {0};
    cl_mem back = sxo_cl.clCreateBuffer(queue->context->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                        g->size, slot, &err);
    if (back) {
        /* Chained by events: right on an out-of-order queue too. */
        call = "clEnqueueNDRangeKernel";
        err = run_accessor(g, g->write, 3, queue->q, in->mem, 0, 0, 0, NULL, &bound);
        if (err == CL_SUCCESS)
            err = run_accessor(g, g->read, 1, queue->q, back, 0, g->size, 1, &bound, &readback);
        if (err == CL_SUCCESS) {
            call = "clEnqueueReadBuffer";
            err = sxo_cl.clEnqueueReadBuffer(queue->q, back, CL_TRUE, 0, g->size, slot, 1,
                                             &readback, NULL);
        }
        if (bound)
            sxo_cl.clReleaseEvent(bound);
        if (readback)
            sxo_cl.clReleaseEvent(readback);
        sxo_cl.clReleaseMemObject(back);
    }
    if (err != CL_SUCCESS)
        return sxo_fail(err, call, "binding device global '%s' of program %p to its buffer",
                        name, (void *)program);
    static const unsigned char null_slot[8];
    if (!memcmp(slot, null_slot, g->size))
        return sxo_error(SX_ERROR_INVALID_BINARY,
                         "opencl: the accessor __sx_dg_access_%s of program %p did not bind the "
                         "variable (still NULL after op 3): make the image with a proptool that "
                         "has the bind operation", name, (void *)program);
    return SX_SUCCESS;
}
