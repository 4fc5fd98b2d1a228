/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* two-devices.c: see two-devices.h. */
#include "two-devices.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/sxt.h"

/* ------------------------------------------------------------------- PoCL */

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef void *cl_id;
static struct {
    cl_int (*GetPlatformIDs)(cl_uint, cl_id *, cl_uint *);
    cl_int (*GetPlatformInfo)(cl_id, cl_uint, size_t, void *, size_t *);
    cl_int (*GetDeviceIDs)(cl_id, uint64_t, cl_uint, cl_id *, cl_uint *);
    cl_id (*CreateContext)(const intptr_t *, cl_uint, const cl_id *, void *, void *, cl_int *);
    cl_id (*CreateCommandQueue)(cl_id, cl_id, uint64_t, cl_int *);
    cl_id (*CreateProgramWithSource)(cl_id, cl_uint, const char **, const size_t *, cl_int *);
    cl_int (*BuildProgram)(cl_id, cl_uint, const cl_id *, const char *, void *, void *);
    cl_int (*GetProgramBuildInfo)(cl_id, cl_id, cl_uint, size_t, void *, size_t *);
    cl_id (*CreateKernel)(cl_id, const char *, cl_int *);
    cl_id (*CreateBuffer)(cl_id, uint64_t, size_t, void *, cl_int *);
    cl_int (*SetKernelArg)(cl_id, cl_uint, size_t, const void *);
    cl_int (*EnqueueNDRangeKernel)(cl_id, cl_id, cl_uint, const size_t *, const size_t *, const size_t *,
                                   cl_uint, const void *, void *);
    cl_int (*EnqueueReadBuffer)(cl_id, cl_id, cl_uint, size_t, size_t, void *, cl_uint, const void *, void *);
    cl_int (*Finish)(cl_id);
    cl_int (*ReleaseMemObject)(cl_id);
    cl_int (*ReleaseKernel)(cl_id);
    cl_int (*ReleaseProgram)(cl_id);
    cl_int (*ReleaseCommandQueue)(cl_id);
    cl_int (*ReleaseContext)(cl_id);
} cl;
static void *cl_lib;
static cl_id cl_ctx, cl_q, cl_prog;

int td_pocl_open(const char *src_path, const char *options)
{
    cl_lib = dlopen("libOpenCL.so.1", RTLD_NOW);
    if (!cl_lib)
        return 0;
#define SYM(n)                                   \
    *(void **)&cl.n = dlsym(cl_lib, "cl" #n);    \
    if (!cl.n)                                   \
        return 0
    SYM(GetPlatformIDs); SYM(GetPlatformInfo); SYM(GetDeviceIDs); SYM(CreateContext);
    SYM(CreateCommandQueue); SYM(CreateProgramWithSource); SYM(BuildProgram);
    SYM(GetProgramBuildInfo); SYM(CreateKernel); SYM(CreateBuffer); SYM(SetKernelArg);
    SYM(EnqueueNDRangeKernel); SYM(EnqueueReadBuffer); SYM(Finish); SYM(ReleaseMemObject);
    SYM(ReleaseKernel); SYM(ReleaseProgram); SYM(ReleaseCommandQueue); SYM(ReleaseContext);
#undef SYM
    cl_id plats[8];
    cl_uint np = 0;
    if (cl.GetPlatformIDs(8, plats, &np) != 0)
        return 0;
    for (cl_uint i = 0; i < np && i < 8; i++) {
        char name[128] = "";
        cl.GetPlatformInfo(plats[i], 0x0902 /* CL_PLATFORM_NAME */, sizeof(name), name, NULL);
        if (!strstr(name, "Portable Computing Language"))
            continue;
        cl_id dev;
        cl_int e;
        if (cl.GetDeviceIDs(plats[i], 0xFFFFFFFF, 1, &dev, NULL) != 0)
            return 0;
        cl_ctx = cl.CreateContext(NULL, 1, &dev, NULL, NULL, &e);
        cl_q = cl_ctx ? cl.CreateCommandQueue(cl_ctx, dev, 0, &e) : NULL;
        size_t size;
        char *src = sxt_read_file(src_path, &size);
        if (!cl_q || !src) {
            free(src);
            return 0;
        }
        char *s0 = malloc(size + 1);
        if (!s0)
            return 0;
        memcpy(s0, src, size);
        s0[size] = 0;
        free(src);
        const char *srcs[] = {s0};
        cl_prog = cl.CreateProgramWithSource(cl_ctx, 1, srcs, NULL, &e);
        free(s0);
        if (!cl_prog || cl.BuildProgram(cl_prog, 1, &dev, options, NULL, NULL) != 0) {
            static char log[65536];
            if (cl_prog)
                cl.GetProgramBuildInfo(cl_prog, dev, 0x1183 /* BUILD_LOG */, sizeof(log), log, NULL);
            fprintf(stderr, "PoCL build of %s failed:\n%s\n", src_path, log);
            exit(1);
        }
        return 1;
    }
    return 0;
}

int td_pocl_run(const char *kernel, unsigned nargs, const td_arg *args, unsigned dims, const size_t *global,
                const size_t *local)
{
    cl_int e;
    cl_id k = cl.CreateKernel(cl_prog, kernel, &e);
    cl_id bufs[16] = {0};
    int rc = 0;
    if (!k || nargs > 16) {
        fprintf(stderr, "PoCL: kernel %s: error %d\n", kernel, e);
        return 1;
    }
    for (unsigned i = 0; i < nargs && !rc; i++) {
        const td_arg *a = &args[i];
        if (a->kind == TD_BUFFER) {
            bufs[i] = cl.CreateBuffer(cl_ctx, (1 << 0) | (1 << 5) /* READ_WRITE | COPY_HOST_PTR */, a->size,
                                      a->host, &e);
            rc = !bufs[i] || cl.SetKernelArg(k, i, sizeof(cl_id), &bufs[i]) != 0;
        } else {
            rc = cl.SetKernelArg(k, i, a->size, a->kind == TD_LOCAL ? NULL : a->host) != 0;
        }
    }
    if (!rc)
        rc = cl.EnqueueNDRangeKernel(cl_q, k, dims, NULL, global, local, 0, NULL, NULL) != 0;
    for (unsigned i = 0; i < nargs; i++)
        if (bufs[i]) {
            if (!rc)
                rc = cl.EnqueueReadBuffer(cl_q, bufs[i], 1, 0, args[i].size, args[i].host, 0, NULL, NULL) != 0;
            cl.ReleaseMemObject(bufs[i]);
        }
    cl.Finish(cl_q);
    cl.ReleaseKernel(k);
    if (rc)
        fprintf(stderr, "PoCL: running %s failed\n", kernel);
    return rc;
}

void td_pocl_close(void)
{
    if (cl_prog)
        cl.ReleaseProgram(cl_prog);
    if (cl_q)
        cl.ReleaseCommandQueue(cl_q);
    if (cl_ctx)
        cl.ReleaseContext(cl_ctx);
    cl_prog = cl_q = cl_ctx = NULL;
}

/* ----------------------------------------------------------------- native */

static sx_device dev;
static sx_context ctx;
static sx_queue q;

sx_device_binaries *td_native_image(const char *file, unsigned nkernels, const char *const *names,
                                    const char *const *params)
{
    size_t size;
    char *path = sxt_kernel_path(file);
    void *bytes = path ? sxt_read_file(path, &size) : NULL;
    free(path);
    if (!bytes)
        return NULL;
    sxt_image *im = sxt_image_new(SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE, bytes, size);
    free(bytes);
    if (!im)
        return NULL;
    for (unsigned k = 0; k < nkernels; k++) {
        sxa_kernel_param ps[16];
        unsigned n = 0;
        for (const char *c = params[k]; *c && n < 16; c++)
            ps[n++] = *c == 'p' ? SXT_PARAM_POINTER() : *c == 'l' ? SXT_PARAM_LOCAL()
                                                                   : SXT_PARAM_VALUE(SX_SCALAR_I32, 4);
        if (sxt_image_add_kernel(im, names[k], SX_KERNEL_KIND_PLAIN, 0, n, n, ps, NULL) != 0)
            return NULL;
    }
    return sxt_binaries(&im, 1);
}

int td_native_open(void)
{
    if (sx_init(SX_INIT_DEFAULT) != SX_SUCCESS)
        return 0;
    sx_device devs[8];
    uint32_t nd = 0;
    sx_device_get(NULL, SX_DEVICE_TYPE_CPU, 8, devs, &nd);
    for (uint32_t i = 0; i < nd && i < 8; i++) {
        sx_backend be;
        sx_device_get_info(devs[i], SX_DEVICE_INFO_BACKEND, sizeof(be), &be, NULL);
        if (be == SX_BACKEND_NATIVE)
            dev = devs[i];
    }
    return dev && sx_context_create(1, &dev, &ctx) == SX_SUCCESS &&
           sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q) == SX_SUCCESS;
}

int td_native_run(const char *kernel, unsigned nargs, const td_arg *args, unsigned dims, const size_t *global,
                  const size_t *local)
{
    sx_kernel k;
    sx_arg a[16];
    void *usm[16] = {0};
    int rc = 0;
    if (nargs > 16 || sx_kernel_get(kernel, &k) != SX_SUCCESS) {
        fprintf(stderr, "native: kernel %s: %s\n", kernel, sx_last_error());
        return 1;
    }
    for (unsigned i = 0; i < nargs && !rc; i++) {
        const td_arg *t = &args[i];
        if (t->kind == TD_BUFFER) {
            rc = sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, t->size, 0, &usm[i]) != SX_SUCCESS;
            if (!rc)
                memcpy(usm[i], t->host, t->size);
            a[i] = (sx_arg){SX_ARG_POINTER, i, sizeof(void *), usm[i]};
        } else if (t->kind == TD_LOCAL) {
            a[i] = (sx_arg){SX_ARG_LOCAL, i, t->size, NULL};
        } else {
            a[i] = (sx_arg){SX_ARG_VALUE, i, t->size, t->host};
        }
    }
    if (!rc && (sx_queue_launch(q, k, dims, NULL, global, local, nargs, a, 0, NULL, NULL) != SX_SUCCESS ||
                sx_queue_wait(q) != SX_SUCCESS)) {
        fprintf(stderr, "native: running %s: %s\n", kernel, sx_last_error());
        rc = 1;
    }
    for (unsigned i = 0; i < nargs; i++)
        if (usm[i]) {
            if (!rc)
                memcpy(args[i].host, usm[i], args[i].size);
            sx_usm_free(ctx, usm[i]);
        }
    sx_kernel_release(k);
    return rc;
}

void td_native_close(void)
{
    if (q)
        sx_queue_release(q);
    if (ctx)
        sx_context_release(ctx);
    q = NULL;
    ctx = NULL;
    sx_fini();
}
