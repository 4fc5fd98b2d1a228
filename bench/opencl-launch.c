/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* opencl-launch.c: launch overhead of sx_queue_launch vs clEnqueueNDRangeKernel (PoCL, or the driver OCL_ICD_VENDORS names), as a ratio.
 *
 * Same kernel (ocl_axpb of tests/kernels/ocl-basic), same arguments, one
 * work-item; N launches then one finish, in paired rounds. The
 * direct side sets the four arguments and enqueues, as any OpenCL program
 * must when arguments can change between launches; the sx side passes the
 * argument array. Then the same from 4 threads with their own queues:
 * direct with a clCloneKernel'd kernel per thread (no lock needed), sx
 * with one shared kernel (the adapter gives each thread that launches it
 * at once a cl_kernel of its own). Run from the build tree after `make check` built the
 * kernels:  bench/opencl-launch [N [ROUNDS]]   (OCL_ICD_VENDORS picks the driver).
 * The two sides alternate round by round (which goes first too), so load
 * from elsewhere on the machine hits both alike; the median of the
 * per-round ratios and their range are reported. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sycl-ext/sx.h>

#include "bench-file.h"

#define SX(expr)                                                                     \
    do {                                                                             \
        sx_result r_ = (expr);                                                       \
        if (r_ != SX_SUCCESS)                                                        \
            DIE("%s: %s: %s", #expr, sx_result_name(r_), sx_last_error());           \
    } while (0)

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The OpenCL entry points the direct side uses, from the same loader. */
#define CL_FNS(X)                                                                    \
    X(clGetPlatformIDs) X(clGetDeviceIDs) X(clGetDeviceInfo) X(clCreateContext) X(clCreateCommandQueue)  \
    X(clCreateProgramWithBinary) X(clBuildProgram) X(clCreateKernel) X(clSetKernelArg) \
    X(clSetKernelArgSVMPointer) X(clSVMAlloc) X(clSVMFree) X(clEnqueueNDRangeKernel)  \
    X(clFinish) X(clReleaseKernel) X(clReleaseProgram) X(clReleaseCommandQueue)      \
    X(clReleaseContext) X(clCloneKernel) X(clGetExtensionFunctionAddressForPlatform)
#define CL_DECL(name) static __typeof__(&name) p_##name;
CL_FNS(CL_DECL)

/* The direct side's memory is what the adapter uses on the device, so both
 * sides do the same work: Intel USM where the platform has it (the driver's
 * launches cost more with USM pointers than with SVM ones), else SVM. */
static clDeviceMemAllocINTEL_fn p_device_alloc;
static clMemBlockingFreeINTEL_fn p_usm_free;
static clSetKernelArgMemPointerINTEL_fn p_set_usm_arg;

static cl_int set_pointer_arg(cl_kernel k, cl_uint index, const void *ptr)
{
    return p_set_usm_arg ? p_set_usm_arg(k, index, ptr) : p_clSetKernelArgSVMPointer(k, index, ptr);
}

enum { THREADS = 4 };

/* One launcher: a queue and a kernel of either side. Threads have their
 * own queue and, on the direct side, their own clCloneKernel'd kernel (no
 * lock needed); on the sx side they share one kernel (the adapter's pool
 * of cl_kernels). */
typedef struct worker {
    pthread_t th;
    int n;
    cl_command_queue q;
    cl_kernel k;
    void *in, *out;
    sx_queue sq;
    sx_kernel sk;
    const sx_arg *args;
} worker;

static void *direct_run(void *arg)
{
    worker *w = arg;
    int scale = 2;
    long bias = 1;
    size_t one = 1;
    for (int i = 0; i < w->n; i++) {
        set_pointer_arg(w->k, 0, w->in);
        set_pointer_arg(w->k, 1, w->out);
        p_clSetKernelArg(w->k, 2, sizeof scale, &scale);
        p_clSetKernelArg(w->k, 3, sizeof bias, &bias);
        if (p_clEnqueueNDRangeKernel(w->q, w->k, 1, NULL, &one, NULL, 0, NULL, NULL))
            DIE("clEnqueueNDRangeKernel failed");
    }
    p_clFinish(w->q);
    return NULL;
}

static void *sx_run(void *arg)
{
    worker *w = arg;
    size_t one = 1;
    for (int i = 0; i < w->n; i++)
        SX(sx_queue_launch(w->sq, w->sk, 1, NULL, &one, NULL, 4, w->args, 0, NULL, NULL));
    SX(sx_queue_wait(w->sq));
    return NULL;
}

/* Time `nw` workers running `fn` at once (1: in this thread). */
static double timed(void *(*fn)(void *), worker *w, int nw)
{
    double t0 = now();
    if (nw == 1) {
        fn(w);
    } else {
        for (int i = 0; i < nw; i++)
            pthread_create(&w[i].th, NULL, fn, &w[i]);
        for (int i = 0; i < nw; i++)
            pthread_join(w[i].th, NULL);
    }
    return now() - t0;
}

/* ---- the direct side ---- */
static cl_context d_ctx;
static cl_program d_prog;
static worker d_one, d_many[THREADS];

static void direct_setup(const unsigned char *bc, size_t bc_size, int n)
{
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        DIE("libOpenCL.so.1: %s", dlerror());
#define CL_LOAD(name)                                                                \
    if (!(*(void **)&p_##name = dlsym(lib, #name)))                                   \
        DIE("no %s", #name);
    CL_FNS(CL_LOAD)
    cl_platform_id pl;
    cl_device_id dev;
    cl_int err;
    if (p_clGetPlatformIDs(1, &pl, NULL) || p_clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
        DIE("no OpenCL device");
    d_ctx = p_clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    d_prog = p_clCreateProgramWithBinary(d_ctx, 1, &dev, &bc_size, &bc, NULL, &err);
    if (!d_prog || p_clBuildProgram(d_prog, 1, &dev, "-x spir -spir-std=1.2", NULL, NULL))
        DIE("build failed");
    d_one.n = n;
    d_one.q = p_clCreateCommandQueue(d_ctx, dev, 0, &err);
    d_one.k = p_clCreateKernel(d_prog, "ocl_axpb", &err);
    char ext[16384] = "";
    p_clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    if (strstr(ext, "cl_intel_unified_shared_memory")) {
        p_device_alloc = (clDeviceMemAllocINTEL_fn)p_clGetExtensionFunctionAddressForPlatform(
            pl, "clDeviceMemAllocINTEL");
        p_usm_free = (clMemBlockingFreeINTEL_fn)p_clGetExtensionFunctionAddressForPlatform(
            pl, "clMemBlockingFreeINTEL");
        p_set_usm_arg = (clSetKernelArgMemPointerINTEL_fn)p_clGetExtensionFunctionAddressForPlatform(
            pl, "clSetKernelArgMemPointerINTEL");
        if (!p_device_alloc || !p_usm_free || !p_set_usm_arg)
            DIE("cl_intel_unified_shared_memory listed but not resolved");
        d_one.in = p_device_alloc(d_ctx, dev, NULL, 64, 0, &err);
        d_one.out = p_device_alloc(d_ctx, dev, NULL, 64, 0, &err);
    } else {
        d_one.in = p_clSVMAlloc(d_ctx, CL_MEM_READ_WRITE, 64, 0);
        d_one.out = p_clSVMAlloc(d_ctx, CL_MEM_READ_WRITE, 64, 0);
    }
    if (!d_one.q || !d_one.k || !d_one.in || !d_one.out)
        DIE("setup failed (Intel USM or SVM needed)");
    for (int i = 0; i < THREADS; i++) {
        d_many[i] = d_one;
        d_many[i].n = n / THREADS;
        d_many[i].q = p_clCreateCommandQueue(d_ctx, dev, 0, &err);
        d_many[i].k = p_clCloneKernel(d_one.k, &err);
        if (!d_many[i].q || !d_many[i].k)
            DIE("clCloneKernel (OpenCL 2.1) or a queue failed");
    }
}

static void direct_teardown(void)
{
    for (int i = 0; i < THREADS; i++) {
        p_clReleaseKernel(d_many[i].k);
        p_clReleaseCommandQueue(d_many[i].q);
    }
    if (p_usm_free) {
        p_usm_free(d_ctx, d_one.in);
        p_usm_free(d_ctx, d_one.out);
    } else {
        p_clSVMFree(d_ctx, d_one.in);
        p_clSVMFree(d_ctx, d_one.out);
    }
    p_clReleaseKernel(d_one.k);
    p_clReleaseCommandQueue(d_one.q);
    p_clReleaseProgram(d_prog);
    p_clReleaseContext(d_ctx);
}

/* ---- the sx side ---- */
static sx_offload_entry s_entry = {.name = (char *)"ocl_axpb"};
static sx_device_binary s_bin;
static sx_device_binaries s_desc;
static sx_context s_ctx;
static sx_kernel s_kernel;
static int s_scale = 2;
static long s_bias = 1;
static sx_arg s_args[4];
static worker s_one, s_many[THREADS];

static void sx_setup(unsigned char *bc, size_t bc_size, int n)
{
    s_bin = (sx_device_binary){
        .version = SX_DEVICE_BINARY_VERSION,
        .kind = SX_OFFLOAD_KIND_SYCL,
        .format = SX_BINARY_FORMAT_LLVMIR_BITCODE,
        .device_target_spec = SX_TARGET_SPIRV64,
        .binary_start = bc,
        .binary_end = bc + bc_size,
        .entries_begin = &s_entry,
        .entries_end = &s_entry + 1,
    };
    s_desc = (sx_device_binaries){SX_DEVICE_BINARIES_VERSION, 1, &s_bin, NULL, NULL};
    SX(sx_register_images(&s_desc));
    SX(sx_init(SX_INIT_DEFAULT));
    sx_device dev;
    uint32_t nd = 0;
    SX(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 1, &dev, &nd));
    SX(sx_context_create(1, &dev, &s_ctx));
    SX(sx_kernel_get("ocl_axpb", &s_kernel));
    void *in, *out;
    SX(sx_usm_alloc(s_ctx, dev, SX_USM_TYPE_DEVICE, 64, 0, &in));
    SX(sx_usm_alloc(s_ctx, dev, SX_USM_TYPE_DEVICE, 64, 0, &out));
    s_args[0] = (sx_arg){SX_ARG_POINTER, 0, sizeof(void *), in};
    s_args[1] = (sx_arg){SX_ARG_POINTER, 1, sizeof(void *), out};
    s_args[2] = (sx_arg){SX_ARG_VALUE, 2, sizeof s_scale, &s_scale};
    s_args[3] = (sx_arg){SX_ARG_VALUE, 3, sizeof s_bias, &s_bias};
    s_one = (worker){.n = n, .sk = s_kernel, .args = s_args, .in = in, .out = out};
    SX(sx_queue_create(s_ctx, dev, SX_QUEUE_IN_ORDER, &s_one.sq));
    for (int i = 0; i < THREADS; i++) {
        s_many[i] = s_one;
        s_many[i].n = n / THREADS;
        SX(sx_queue_create(s_ctx, dev, SX_QUEUE_IN_ORDER, &s_many[i].sq));
    }
    /* The first launch builds the program: not part of the timing. */
    s_one.n = 1;
    sx_run(&s_one);
    s_one.n = n;
}

static void sx_teardown(void)
{
    for (int i = 0; i < THREADS; i++)
        SX(sx_queue_release(s_many[i].sq));
    SX(sx_queue_release(s_one.sq));
    SX(sx_usm_free(s_ctx, s_one.in));
    SX(sx_usm_free(s_ctx, s_one.out));
    SX(sx_kernel_release(s_kernel));
    SX(sx_context_release(s_ctx));
    SX(sx_fini());
    SX(sx_unregister_images(&s_desc));
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    int rounds = argc > 2 ? atoi(argv[2]) : 21;
    if (rounds < 1)
        DIE("usage: %s [launches] [rounds]", argv[0]);
    if (n < THREADS)
        DIE("usage: %s [launches >= %d]", argv[0], THREADS);
    n = n / THREADS * THREADS;
    const char *b = getenv("SX_TEST_BUILDDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/kernels/ocl-basic.bc", b ? b : ".");
    size_t size;
    unsigned char *bc = bench_read_file(path, &size);
    if (!getenv("SX_ADAPTERS")) {
        /* Only the OpenCL adapter of this build tree. */
        snprintf(path, sizeof path, "%s/adapters/opencl/.libs/sx-adapter-opencl.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
    sx_setup(bc, size, n);
    direct_setup(bc, size, n);
    /* Paired rounds, which side goes first alternating; each thread count
     * gets the median of its per-round ratios sx/direct and their range. */
    double *r1 = calloc((size_t)rounds, sizeof(double)), *rn = calloc((size_t)rounds, sizeof(double));
    double cl1 = 1e30, sx1 = 1e30, cln = 1e30, sxn = 1e30;
    if (!r1 || !rn)
        DIE("out of memory");
    for (int r = 0; r < rounds; r++) {
        double d1, s1, dn, sn;
        if (r & 1) {
            s1 = timed(sx_run, &s_one, 1);
            d1 = timed(direct_run, &d_one, 1);
            sn = timed(sx_run, s_many, THREADS);
            dn = timed(direct_run, d_many, THREADS);
        } else {
            d1 = timed(direct_run, &d_one, 1);
            s1 = timed(sx_run, &s_one, 1);
            dn = timed(direct_run, d_many, THREADS);
            sn = timed(sx_run, s_many, THREADS);
        }
        r1[r] = s1 / d1;
        rn[r] = sn / dn;
        cl1 = d1 < cl1 ? d1 : cl1;
        sx1 = s1 < sx1 ? s1 : sx1;
        cln = dn < cln ? dn : cln;
        sxn = sn < sxn ? sn : sxn;
    }
    direct_teardown();
    sx_teardown();
    qsort(r1, (size_t)rounds, sizeof(double), cmp_double);
    qsort(rn, (size_t)rounds, sizeof(double), cmp_double);
    printf("opencl launch overhead: %d launches of 1 work-item, then finish, %d rounds (best round's "
           "times; ratios: median of per-round ratios [range])\n", n, rounds);
    printf("  one thread:\n");
    printf("    clEnqueueNDRangeKernel + 4 clSetKernelArg*: %8.3f us/launch\n", cl1 / n * 1e6);
    printf("    sx_queue_launch:                            %8.3f us/launch\n", sx1 / n * 1e6);
    printf("    ratio sx/direct: %.3f [%.3f..%.3f]\n", r1[rounds / 2], r1[0], r1[rounds - 1]);
    printf("  %d threads, a queue each:\n", THREADS);
    printf("    direct, a clCloneKernel'd kernel per thread: %8.3f us/launch\n", cln / n * 1e6);
    printf("    sx, one kernel shared (a cl_kernel a thread): %8.3f us/launch\n", sxn / n * 1e6);
    printf("    ratio sx/direct: %.3f [%.3f..%.3f]\n", rn[rounds / 2], rn[0], rn[rounds - 1]);
    free(r1);
    free(rn);
    free(bc);
    return 0;
}
