/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* cl-sides.h: the OpenCL sides of the native benchmarks (native-vs-pocl,
 * corpus): one or more CPU OpenCL platforms (PoCL, Intel's CPU runtime)
 * through one dlopen'd ICD loader, in the benchmark's own process. */
#ifndef SX_BENCH_CL_SIDES_H
#define SX_BENCH_CL_SIDES_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <stddef.h>

#define CLS_FNS(X)                                                                                  \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clCreateContext)                   \
    X(clCreateCommandQueue) X(clCreateProgramWithSource) X(clBuildProgram) X(clGetProgramBuildInfo) \
    X(clCreateKernel) X(clSetKernelArg) X(clEnqueueNDRangeKernel) X(clFinish) X(clCreateBuffer)     \
    X(clEnqueueMapBuffer) X(clEnqueueUnmapMemObject) X(clReleaseMemObject) X(clReleaseKernel)       \
    X(clReleaseProgram) X(clReleaseCommandQueue) X(clReleaseContext) X(clGetDeviceInfo) X(clCreateProgramWithIL)
#define CLS_DECL(name) extern __typeof__(&name) p_##name;
CLS_FNS(CLS_DECL)
#undef CLS_DECL

/* Dies (exit 1) with the failing call's name and error. */
#define CLS(call)                                                                                   \
    do {                                                                                            \
        cl_int e_ = p_##call;                                                                       \
        if (e_ != CL_SUCCESS)                                                                       \
            cls_die("%s: OpenCL error %d", #call, e_);                                              \
    } while (0)

#define CLS_MAX 4

typedef struct cl_side {
    const char *label;          /* short name in reports: "pocl", "intel", or the wanted substring */
    char platform[256], device[256];
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
} cl_side;

void cls_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Page-aligned host memory of `size` bytes rounded up to pages (dies when
 * there is none): both sides' buffers start on a page. */
void *cls_host_alloc(size_t size);

/* Open every platform whose name contains one of `wants` (n of them; a CPU
 * device each) into sides[], in that order; returns how many opened. A
 * wanted platform that is absent is reported on stderr and skipped. When
 * OCL_ICD_VENDORS is unset and the build tree has Intel's runtime
 * (tools/intel-opencl.sh), the loader is shown it beside the system's
 * drivers. Exits 77 when none opens. */
int cls_open(const char *const *wants, int n, cl_side *sides);
/* Build `source` for the side; dies with the build log on failure. */
cl_program cls_build(cl_side *s, const char *source, const char *options);
cl_kernel cls_kernel(cl_program p, const char *name);
/* A buffer over host memory (zero-copy on a CPU driver). */
cl_mem cls_buffer(cl_side *s, void *host, size_t size);
/* Make the device's writes visible in host memory (map + unmap). */
void cls_sync(cl_side *s, cl_mem m, size_t size);
/* Launch and wait; the seconds it took. */
double cls_run(cl_side *s, cl_kernel k, cl_uint dims, const size_t *g, const size_t *l);
void cls_close(cl_side *s);

#endif
