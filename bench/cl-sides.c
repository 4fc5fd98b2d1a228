/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* cl-sides.c: the OpenCL sides of the native benchmarks (cl-sides.h). */
#include "cl-sides.h"

#include <dirent.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define CLS_DEF(name) __typeof__(&name) p_##name;
CLS_FNS(CLS_DEF)

void cls_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

/* OCL_ICD_VENDORS unset and Intel's runtime in the build tree: a vendors
 * directory of our own with the system's .icd files and Intel's. */
static void show_intel(void)
{
    const char *b = getenv("SX_TEST_BUILDDIR");
    if (getenv("OCL_ICD_VENDORS") || !b)
        return;
    char icd[4096], dir[64];
    snprintf(icd, sizeof icd, "%s/intel-opencl/vendors/intel-cpu.icd", b);
    if (access(icd, R_OK) != 0)
        return;
    snprintf(dir, sizeof dir, "/tmp/sx-bench-icd-XXXXXX");
    if (!mkdtemp(dir))
        return;
    char link[4200];
    snprintf(link, sizeof link, "%s/intel-cpu.icd", dir);
    if (symlink(icd, link) != 0)
        return;
    DIR *d = opendir("/etc/OpenCL/vendors");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".icd") != 0 || strcmp(e->d_name, "intel-cpu.icd") == 0)
            continue;
        char from[600], to[600];
        snprintf(from, sizeof from, "/etc/OpenCL/vendors/%s", e->d_name);
        snprintf(to, sizeof to, "%s/%s", dir, e->d_name);
        if (symlink(from, to) != 0)
            fprintf(stderr, "note: cannot show %s to the ICD loader\n", from);
    }
    if (d)
        closedir(d);
    setenv("OCL_ICD_VENDORS", dir, 1);
}

int cls_open(const char *const *wants, int n, cl_side *sides)
{
    show_intel();
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "SKIP: no libOpenCL.so.1 (%s)\n", dlerror());
        exit(77);
    }
#define CLS_LOAD(name)                                                                              \
    if (!(*(void **)&p_##name = dlsym(lib, #name)))                                                 \
        cls_die("libOpenCL has no %s", #name);
    CLS_FNS(CLS_LOAD)
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (p_clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0) {
        fprintf(stderr, "SKIP: no OpenCL platform\n");
        exit(77);
    }
    int opened = 0;
    for (int w = 0; w < n && opened < CLS_MAX; w++) {
        cl_side *s = &sides[opened];
        memset(s, 0, sizeof *s);
        cl_platform_id plat = NULL;
        for (cl_uint i = 0; i < np && i < 16 && !plat; i++) {
            char name[256] = "";
            p_clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
            if (strstr(name, wants[w])) {
                plat = plats[i];
                snprintf(s->platform, sizeof(s->platform), "%s", name);
            }
        }
        if (!plat || p_clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &s->dev, NULL) != CL_SUCCESS) {
            fprintf(stderr, "note: no OpenCL CPU platform named like '%s': that side is left out\n", wants[w]);
            continue;
        }
        s->label = strstr(s->platform, "Portable") ? "pocl" : strstr(s->platform, "Intel") ? "intel" : wants[w];
        p_clGetDeviceInfo(s->dev, CL_DEVICE_NAME, sizeof(s->device), s->device, NULL);
        cl_int e;
        s->ctx = p_clCreateContext(NULL, 1, &s->dev, NULL, NULL, &e);
        if (!s->ctx)
            cls_die("%s: clCreateContext: %d", s->platform, e);
        s->q = p_clCreateCommandQueue(s->ctx, s->dev, 0, &e);
        if (!s->q)
            cls_die("%s: clCreateCommandQueue: %d", s->platform, e);
        opened++;
    }
    if (!opened) {
        fprintf(stderr, "SKIP: none of the wanted OpenCL platforms is there\n");
        exit(77);
    }
    return opened;
}

cl_program cls_build(cl_side *s, const char *source, const char *options)
{
    cl_int e;
    size_t len = strlen(source);
    cl_program p = p_clCreateProgramWithSource(s->ctx, 1, &source, &len, &e);
    if (!p)
        cls_die("%s: clCreateProgramWithSource: %d", s->platform, e);
    if (p_clBuildProgram(p, 1, &s->dev, options ? options : "", NULL, NULL) != CL_SUCCESS) {
        char log[8192] = "";
        p_clGetProgramBuildInfo(p, s->dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        cls_die("%s: clBuildProgram failed:\n%s", s->platform, log);
    }
    return p;
}

cl_kernel cls_kernel(cl_program p, const char *name)
{
    cl_int e;
    cl_kernel k = p_clCreateKernel(p, name, &e);
    if (!k)
        cls_die("clCreateKernel %s: %d", name, e);
    return k;
}

cl_mem cls_buffer(cl_side *s, void *host, size_t size)
{
    cl_int e;
    cl_mem m = p_clCreateBuffer(s->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, host, &e);
    if (!m)
        cls_die("%s: clCreateBuffer: %d", s->platform, e);
    return m;
}

void cls_sync(cl_side *s, cl_mem m, size_t size)
{
    cl_int e;
    void *p = p_clEnqueueMapBuffer(s->q, m, CL_TRUE, CL_MAP_READ, 0, size, 0, NULL, NULL, &e);
    if (!p)
        cls_die("%s: clEnqueueMapBuffer: %d", s->platform, e);
    CLS(clEnqueueUnmapMemObject(s->q, m, p, 0, NULL, NULL));
    CLS(clFinish(s->q));
}

double cls_run(cl_side *s, cl_kernel k, cl_uint dims, const size_t *g, const size_t *l)
{
    double t0 = bench_now();
    CLS(clEnqueueNDRangeKernel(s->q, k, dims, NULL, g, l, 0, NULL, NULL));
    CLS(clFinish(s->q));
    return bench_now() - t0;
}

void cls_close(cl_side *s)
{
    if (s->q)
        p_clReleaseCommandQueue(s->q);
    if (s->ctx)
        p_clReleaseContext(s->ctx);
    memset(s, 0, sizeof *s);
}

void *cls_host_alloc(size_t size)
{
    void *p = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
    if (!p)
        cls_die("out of memory (%zu bytes)", size);
    return p;
}
