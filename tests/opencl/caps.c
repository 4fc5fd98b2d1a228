/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* caps.c: measure what the OpenCL driver offers the adapter (IL, USM,
 * program-variable access, function pointers, linking, binaries), print it
 * as "key: value" lines (doc/intel-cpu-opencl.md is written from them), and
 * fail where a driver claims something that does not work.
 *
 * Plain OpenCL through the ICD loader (dlopen, as the adapter does), no
 * library of ours: what is measured is the driver. Run by run-drivers.sh
 * on each platform; the kernels are tests/kernels/ocl-*.spv. */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CL_FNS(X)                                                                                  \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo)                  \
    X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue) X(clReleaseCommandQueue)        \
    X(clCreateProgramWithBinary) X(clBuildProgram) X(clCompileProgram) X(clLinkProgram)            \
    X(clGetProgramInfo) X(clGetProgramBuildInfo) X(clReleaseProgram) X(clCreateKernel)             \
    X(clReleaseKernel) X(clSetKernelArg) X(clEnqueueNDRangeKernel) X(clFinish)                     \
    X(clGetExtensionFunctionAddressForPlatform)
#define CL_DECL(name) static __typeof__(&name) p_##name;
CL_FNS(CL_DECL)
static __typeof__(&clCreateProgramWithIL) p_clCreateProgramWithIL;

typedef cl_int(CL_API_CALL *gv_fn)(cl_command_queue, cl_program, const char *, cl_bool, size_t,
                                   size_t, void *, cl_uint, const cl_event *, cl_event *);
typedef cl_int(CL_API_CALL *gp_fn)(cl_device_id, cl_program, const char *, size_t *, void **);

static int failures;
#define CLAIM(ok, ...)                                                                             \
    do {                                                                                           \
        if (!(ok)) {                                                                               \
            printf("FAIL: ");                                                                      \
            printf(__VA_ARGS__);                                                                   \
            printf("\n");                                                                          \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static cl_platform_id plat;
static cl_device_id dev;
static cl_context ctx;
static cl_command_queue q;
static int version;  /* min(platform, device), major * 10 + minor */
static int il;       /* the device lists SPIR-V among its IL versions */

static char *dev_string(cl_device_info what)
{
    static char buf[8][16384];
    static int next;
    char *b = buf[next++ % 8];
    b[0] = 0;
    if (p_clGetDeviceInfo(dev, what, sizeof buf[0], b, NULL) != CL_SUCCESS)
        snprintf(b, sizeof buf[0], "(not answered)");
    return b;
}

static int has_ext(const char *name)
{
    const char *all = dev_string(CL_DEVICE_EXTENSIONS);
    size_t n = strlen(name);
    for (const char *p = strstr(all, name); p; p = strstr(p + 1, name))
        if ((p == all || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
            return 1;
    return 0;
}

static unsigned char *slurp(const char *name, size_t *size)
{
    char path[4096];
    const char *b = getenv("SX_TEST_BUILDDIR");
    snprintf(path, sizeof path, "%s/tests/kernels/%s", b ? b : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *d = malloc((size_t)n);
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return d;
}

static void print_log(cl_program p)
{
    char log[2048] = "";
    p_clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    for (char *c = log; *c; c++)
        if (*c == '\n')
            *c = ' ';
    printf("  log: %.300s\n", log);
}

/* A program from SPIR-V IL (only on 2.1+: ocl-icd spins on 1.2 ICDs). */
static cl_program from_il(const char *name, cl_int *err)
{
    size_t n;
    unsigned char *spv = slurp(name, &n);
    if (!spv) {
        *err = CL_INVALID_VALUE;
        return NULL;
    }
    cl_program p = p_clCreateProgramWithIL(ctx, spv, n, err);
    free(spv);
    return p;
}

/* Run kernel `name` of `p` as one work-item with an int argument. */
static cl_int run1(cl_program p, const char *name, int arg)
{
    cl_int err;
    cl_kernel k = p_clCreateKernel(p, name, &err);
    if (!k)
        return err;
    size_t one = 1;
    if ((err = p_clSetKernelArg(k, 0, sizeof arg, &arg)) == CL_SUCCESS &&
        (err = p_clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL)) == CL_SUCCESS)
        err = p_clFinish(q);
    p_clReleaseKernel(k);
    return err;
}

static void usm(void)
{
    int listed = has_ext("cl_intel_unified_shared_memory");
    printf("usm.cl_intel_unified_shared_memory: %s\n", listed ? "listed" : "not listed");
    if (!listed)
        return;
    static const struct {
        const char *what;
        cl_device_info param;
    } kinds[] = {
        {"host", CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL},
        {"device", CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL},
        {"shared_single_device", CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL},
        {"shared_cross_device", CL_DEVICE_CROSS_DEVICE_SHARED_MEM_CAPABILITIES_INTEL},
        {"shared_system", CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        cl_device_unified_shared_memory_capabilities_intel c = 0;
        p_clGetDeviceInfo(dev, kinds[i].param, sizeof c, &c, NULL);
        printf("usm.%s: 0x%llx (%s%s%s%s)\n", kinds[i].what, (unsigned long long)c,
               c & CL_UNIFIED_SHARED_MEMORY_ACCESS_INTEL ? "access " : "",
               c & CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL ? "atomic " : "",
               c & CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ACCESS_INTEL ? "concurrent " : "",
               c & CL_UNIFIED_SHARED_MEMORY_CONCURRENT_ATOMIC_ACCESS_INTEL ? "concurrent-atomic"
                                                                             : "");
    }
    const char *fns[] = {"clHostMemAllocINTEL", "clDeviceMemAllocINTEL", "clSharedMemAllocINTEL",
                         "clMemBlockingFreeINTEL", "clSetKernelArgMemPointerINTEL",
                         "clEnqueueMemcpyINTEL", "clEnqueueMemFillINTEL"};
    int all = 1;
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
        all &= p_clGetExtensionFunctionAddressForPlatform(plat, fns[i]) != NULL;
    printf("usm.entry_points: %s\n", all ? "all 7 resolve" : "some missing");
    CLAIM(all, "cl_intel_unified_shared_memory is listed but its entry points do not all resolve");
    clDeviceMemAllocINTEL_fn alloc =
        (clDeviceMemAllocINTEL_fn)p_clGetExtensionFunctionAddressForPlatform(plat, "clDeviceMemAllocINTEL");
    clMemBlockingFreeINTEL_fn fr =
        (clMemBlockingFreeINTEL_fn)p_clGetExtensionFunctionAddressForPlatform(plat, "clMemBlockingFreeINTEL");
    if (alloc && fr) {
        cl_int err;
        void *p = alloc(ctx, dev, NULL, 4096, 4096, &err);
        printf("usm.device_alloc_4k_aligned_4k: %s\n", p ? "works" : "fails");
        CLAIM(p && ((size_t)p & 4095) == 0, "clDeviceMemAllocINTEL(4096, align 4096): %d", err);
        if (p)
            fr(ctx, p);
    }
}

/* cl_intel_global_variable_access / _pointers: listed? exported? working? */
static void global_variables(void)
{
    printf("globals.cl_intel_global_variable_access: %s\n",
           has_ext("cl_intel_global_variable_access") ? "listed" : "not listed");
    printf("globals.cl_intel_global_variable_pointers: %s\n",
           has_ext("cl_intel_global_variable_pointers") ? "listed" : "not listed");
    gv_fn wr = (gv_fn)p_clGetExtensionFunctionAddressForPlatform(plat, "clEnqueueWriteGlobalVariableINTEL");
    gv_fn rd = (gv_fn)p_clGetExtensionFunctionAddressForPlatform(plat, "clEnqueueReadGlobalVariableINTEL");
    gp_fn gp = (gp_fn)p_clGetExtensionFunctionAddressForPlatform(plat, "clGetDeviceGlobalVariablePointerINTEL");
    printf("globals.entry_points: write %s, read %s, pointer %s\n", wr ? "yes" : "no",
           rd ? "yes" : "no", gp ? "yes" : "no");
    if (!wr || !rd || !il)
        return;
    cl_int err;
    cl_program p = from_il("ocl-globals.spv", &err);
    if (!p || p_clBuildProgram(p, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
        CLAIM(0, "ocl-globals.spv does not build (%d)", err);
        if (p)
            p_clReleaseProgram(p);
        return;
    }
    /* write the counter and the vector, let a kernel combine them, read back */
    int counter = 42, back = -1;
    unsigned vec[4] = {1, 2, 3, 4};
    err = wr(q, p, "ocl_dg_counter", CL_TRUE, sizeof counter, 0, &counter, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = wr(q, p, "ocl_dg_vec", CL_TRUE, sizeof vec, 0, vec, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = run1(p, "ocl_dg_accumulate", 2);
    if (err == CL_SUCCESS)
        err = rd(q, p, "ocl_dg_counter", CL_TRUE, sizeof back, 0, &back, 0, NULL, NULL);
    printf("globals.write_kernel_read: %s (42 + 2 * 10 -> %d)\n",
           err == CL_SUCCESS && back == 62 ? "works" : "fails", back);
    CLAIM(err == CL_SUCCESS && back == 62, "write/kernel/read of ocl_dg_counter: %d, %d", err, back);
    int v = 0;
    cl_int oob = rd(q, p, "ocl_dg_counter", CL_TRUE, sizeof v, 4, &v, 0, NULL, NULL);
    cl_int unknown = rd(q, p, "no_such_variable", CL_TRUE, sizeof v, 0, &v, 0, NULL, NULL);
    printf("globals.errors: past the end %d, unknown name %d\n", oob, unknown);
    CLAIM(oob != CL_SUCCESS && unknown != CL_SUCCESS, "bad reads were accepted");
    if (gp) {
        size_t size = 0;
        void *ptr = NULL;
        err = gp(dev, p, "ocl_dg_vec", &size, &ptr);
        printf("globals.pointer: %s (size %zu, address %s)\n", err == CL_SUCCESS ? "works" : "fails",
               size, ptr ? "non-NULL" : "NULL");
        CLAIM(err == CL_SUCCESS && size == 16 && ptr, "clGetDeviceGlobalVariablePointerINTEL: %d", err);
    }
    p_clReleaseProgram(p);
}

/* Separate compilation: ocl-link-a imports ocl_link_helper from ocl-link-b. */
static void linking(void)
{
    cl_bool linker = CL_FALSE;
    p_clGetDeviceInfo(dev, CL_DEVICE_LINKER_AVAILABLE, sizeof linker, &linker, NULL);
    printf("link.linker_available: %s\n", linker ? "yes" : "no");
    if (!il)
        return;
    cl_int err;
    cl_program in[2] = {from_il("ocl-link-a.spv", &err), from_il("ocl-link-b.spv", &err)};
    cl_int c0 = in[0] ? p_clCompileProgram(in[0], 1, &dev, "", 0, NULL, NULL, NULL, NULL) : err;
    cl_int c1 = in[1] ? p_clCompileProgram(in[1], 1, &dev, "", 0, NULL, NULL, NULL, NULL) : err;
    cl_program linked = NULL;
    if (c0 == CL_SUCCESS && c1 == CL_SUCCESS)
        linked = p_clLinkProgram(ctx, 1, &dev, "", 2, in, NULL, NULL, &err);
    int r = -1;
    gv_fn rd = (gv_fn)p_clGetExtensionFunctionAddressForPlatform(plat, "clEnqueueReadGlobalVariableINTEL");
    if (linked && run1(linked, "ocl_link_use_value", 5) == CL_SUCCESS && rd)
        rd(q, linked, "ocl_link_result", CL_TRUE, sizeof r, 0, &r, 0, NULL, NULL);
    printf("link.spirv_compile_link: compile %d/%d, link %d, result %d (want 16)\n", c0, c1,
           linked ? 0 : err, r);
    CLAIM(!linker || (linked && (!rd || r == 16)), "clCompileProgram/clLinkProgram of SPIR-V");
    /* an unresolved import: refused at link, or only when a kernel is made? */
    if (c0 == CL_SUCCESS) {
        cl_program alone = p_clLinkProgram(ctx, 1, &dev, "", 1, in, NULL, NULL, &err);
        printf("link.unresolved_import: %s (%d)\n",
               err == CL_SUCCESS ? "link succeeds (refused later)" : "refused by clLinkProgram",
               err);
        if (alone)
            p_clReleaseProgram(alone);
    }
    if (linked) {
        size_t n = 0;
        p_clGetProgramInfo(linked, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL);
        unsigned char *bin = n ? malloc(n) : NULL, *bins[1] = {bin};
        cl_program again = NULL;
        if (bin && p_clGetProgramInfo(linked, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == 0) {
            const unsigned char *cb = bin;
            again = p_clCreateProgramWithBinary(ctx, 1, &dev, &n, &cb, NULL, &err);
        }
        int ok = again && p_clBuildProgram(again, 1, &dev, "", NULL, NULL) == CL_SUCCESS &&
                 run1(again, "ocl_link_use_value", 6) == CL_SUCCESS;
        printf("binaries.linked_program_round_trip: %s (%zu bytes)\n", ok ? "works" : "fails", n);
        CLAIM(ok, "a linked program's binary does not build and run again");
        if (again)
            p_clReleaseProgram(again);
        free(bin);
        p_clReleaseProgram(linked);
    }
    for (int i = 0; i < 2; i++)
        if (in[i])
            p_clReleaseProgram(in[i]);
}

/* Function pointers: a table of them in a program variable, a call through it. */
static void function_pointers(void)
{
    printf("fptr.clGetDeviceFunctionPointerINTEL: %s\n",
           p_clGetExtensionFunctionAddressForPlatform(plat, "clGetDeviceFunctionPointerINTEL")
               ? "resolves" : "absent");
    if (!il)
        return;
    cl_int err;
    cl_program p = from_il("ocl-fptr.spv", &err);
    cl_int b = p ? p_clBuildProgram(p, 1, &dev, "", NULL, NULL) : err;
    int r = -1;
    gv_fn rd = (gv_fn)p_clGetExtensionFunctionAddressForPlatform(plat, "clEnqueueReadGlobalVariableINTEL");
    if (b == CL_SUCCESS && run1(p, "ocl_fptr_call", 20) == CL_SUCCESS && rd)
        rd(q, p, "ocl_fptr_result", CL_TRUE, sizeof r, 0, &r, 0, NULL, NULL);
    printf("fptr.table_call: build %d, result %d (want 41)\n", b, r);
    if (b != CL_SUCCESS && p)
        print_log(p);
    if (p)
        p_clReleaseProgram(p);
}

int main(void)
{
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("SKIP: no libOpenCL.so.1\n");
        return 77;
    }
#define CL_LOAD(name)                                                                              \
    if (!(*(void **)&p_##name = dlsym(lib, #name))) {                                              \
        printf("SKIP: the ICD loader lacks %s\n", #name);                                          \
        return 77;                                                                                 \
    }
    CL_FNS(CL_LOAD)
    *(void **)&p_clCreateProgramWithIL = dlsym(lib, "clCreateProgramWithIL");
    if (p_clGetPlatformIDs(1, &plat, NULL) != CL_SUCCESS ||
        p_clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) {
        printf("SKIP: no OpenCL device\n");
        return 77;
    }
    char pv[256] = "", pn[256] = "";
    p_clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof pv, pv, NULL);
    p_clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pn, pn, NULL);
    int pmaj = 1, pmin = 0, dmaj = 1, dmin = 0;
    sscanf(pv, "OpenCL %d.%d", &pmaj, &pmin);
    sscanf(dev_string(CL_DEVICE_VERSION), "OpenCL %d.%d", &dmaj, &dmin);
    version = pmaj * 10 + pmin < dmaj * 10 + dmin ? pmaj * 10 + pmin : dmaj * 10 + dmin;
    printf("platform: %s, %s\n", pn, pv);
    printf("device: %s, %s, driver %s\n", dev_string(CL_DEVICE_NAME), dev_string(CL_DEVICE_VERSION),
           dev_string(CL_DRIVER_VERSION));
    printf("extensions: %s\n", dev_string(CL_DEVICE_EXTENSIONS));
    printf("il.versions: %s\n", version >= 21 ? dev_string(CL_DEVICE_IL_VERSION)
                                              : "(OpenCL below 2.1: not asked)");
    printf("il.cl_khr_spir: %s\n", has_ext("cl_khr_spir") ? "listed" : "not listed");
    cl_device_svm_capabilities svm = 0;
    if (version >= 20)
        p_clGetDeviceInfo(dev, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL);
    printf("svm.capabilities: 0x%llx\n", (unsigned long long)svm);
    cl_int err;
    ctx = p_clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    q = ctx ? p_clCreateCommandQueue(ctx, dev, 0, &err) : NULL;
    if (!q) {
        printf("FAIL: no context/queue (%d)\n", err);
        return 1;
    }
    /* a device that lists SPIR-V must build it */
    il = version >= 21 && p_clCreateProgramWithIL &&
         strstr(dev_string(CL_DEVICE_IL_VERSION), "SPIR-V") != NULL;
    if (il) {
        cl_program p = from_il("ocl-basic.spv", &err);
        cl_int b = p ? p_clBuildProgram(p, 1, &dev, "", NULL, NULL) : err;
        printf("il.spirv_build: %s (%d)\n", b == CL_SUCCESS ? "works" : "fails", b);
        CLAIM(b == CL_SUCCESS, "the device lists SPIR-V but ocl-basic.spv does not build");
        if (p)
            p_clReleaseProgram(p);
    }
    usm();
    global_variables();
    linking();
    function_pointers();
    p_clReleaseCommandQueue(q);
    p_clReleaseContext(ctx);
    printf("%d failed claim%s\n", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
