/* opencl-launch.c: launch overhead of sx_queue_launch vs clEnqueueNDRangeKernel on PoCL, as a ratio.
 *
 * Same kernel (ocl_axpb of tests/kernels/ocl-basic), same arguments, one
 * work-item; N launches then one finish, best of several rounds. The
 * direct side sets the four arguments and enqueues, as any OpenCL program
 * must when arguments can change between launches; the sx side passes the
 * argument array. Run from the build tree after `make check` built the
 * kernels:  bench/opencl-launch [N]   (OCL_ICD_VENDORS picks the driver). */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sycl-ext/sx.h>

#define DIE(...)                                                                     \
    do {                                                                             \
        fprintf(stderr, __VA_ARGS__);                                                \
        fputc('\n', stderr);                                                         \
        exit(1);                                                                     \
    } while (0)
#define SX(expr)                                                                     \
    do {                                                                             \
        sx_result r_ = (expr);                                                       \
        if (r_ != SX_SUCCESS)                                                        \
            DIE("%s: %s: %s", #expr, sx_result_name(r_), sx_last_error());           \
    } while (0)

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        DIE("cannot open %s (run make check first to build the kernels)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *d = malloc((size_t)n);
    if (!d || fread(d, 1, (size_t)n, f) != (size_t)n)
        DIE("cannot read %s", path);
    fclose(f);
    *size = (size_t)n;
    return d;
}

/* The OpenCL entry points the direct side uses, from the same loader. */
#define CL_FNS(X)                                                                    \
    X(clGetPlatformIDs) X(clGetDeviceIDs) X(clCreateContext) X(clCreateCommandQueue)  \
    X(clCreateProgramWithBinary) X(clBuildProgram) X(clCreateKernel) X(clSetKernelArg) \
    X(clSetKernelArgSVMPointer) X(clSVMAlloc) X(clSVMFree) X(clEnqueueNDRangeKernel)  \
    X(clFinish) X(clReleaseKernel) X(clReleaseProgram) X(clReleaseCommandQueue)      \
    X(clReleaseContext)
#define CL_DECL(name) static __typeof__(&name) p_##name;
CL_FNS(CL_DECL)

static double direct(const unsigned char *bc, size_t bc_size, int n, int rounds)
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
    cl_context ctx = p_clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue q = p_clCreateCommandQueue(ctx, dev, 0, &err);
    cl_program prog = p_clCreateProgramWithBinary(ctx, 1, &dev, &bc_size, &bc, NULL, &err);
    if (!prog || p_clBuildProgram(prog, 1, &dev, "-x spir -spir-std=1.2", NULL, NULL))
        DIE("build failed");
    cl_kernel k = p_clCreateKernel(prog, "ocl_axpb", &err);
    int *in = p_clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0);
    int *out = p_clSVMAlloc(ctx, CL_MEM_READ_WRITE, 64, 0);
    if (!k || !in || !out)
        DIE("setup failed (SVM needed)");
    int scale = 2;
    long bias = 1;
    size_t one = 1;
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int i = 0; i < n; i++) {
            p_clSetKernelArgSVMPointer(k, 0, in);
            p_clSetKernelArgSVMPointer(k, 1, out);
            p_clSetKernelArg(k, 2, sizeof scale, &scale);
            p_clSetKernelArg(k, 3, sizeof bias, &bias);
            if (p_clEnqueueNDRangeKernel(q, k, 1, NULL, &one, NULL, 0, NULL, NULL))
                DIE("enqueue failed");
        }
        p_clFinish(q);
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    p_clSVMFree(ctx, in);
    p_clSVMFree(ctx, out);
    p_clReleaseKernel(k);
    p_clReleaseProgram(prog);
    p_clReleaseCommandQueue(q);
    p_clReleaseContext(ctx);
    return best;
}

static double through_sx(unsigned char *bc, size_t bc_size, int n, int rounds)
{
    static sx_offload_entry entry = {.name = (char *)"ocl_axpb"};
    sx_device_binary bin = {
        .version = SX_DEVICE_BINARY_VERSION,
        .kind = SX_OFFLOAD_KIND_SYCL,
        .format = SX_BINARY_FORMAT_LLVMIR_BITCODE,
        .device_target_spec = SX_TARGET_SPIRV64,
        .binary_start = bc,
        .binary_end = bc + bc_size,
        .entries_begin = &entry,
        .entries_end = &entry + 1,
    };
    sx_device_binaries desc = {SX_DEVICE_BINARIES_VERSION, 1, &bin, NULL, NULL};
    SX(sx_register_images(&desc));
    SX(sx_init(SX_INIT_DEFAULT));
    sx_device dev;
    uint32_t nd = 0;
    SX(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 1, &dev, &nd));
    sx_context ctx;
    sx_queue q;
    SX(sx_context_create(1, &dev, &ctx));
    SX(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    sx_kernel k;
    SX(sx_kernel_get("ocl_axpb", &k));
    void *in, *out;
    SX(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, 64, 0, &in));
    SX(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, 64, 0, &out));
    int scale = 2;
    long bias = 1;
    sx_arg args[] = {{SX_ARG_POINTER, 0, sizeof(void *), in},
                     {SX_ARG_POINTER, 1, sizeof(void *), out},
                     {SX_ARG_VALUE, 2, sizeof scale, &scale},
                     {SX_ARG_VALUE, 3, sizeof bias, &bias}};
    size_t one = 1;
    SX(sx_queue_launch(q, k, 1, NULL, &one, NULL, 4, args, 0, NULL, NULL)); /* builds */
    SX(sx_queue_wait(q));
    double best = 1e30;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        for (int i = 0; i < n; i++)
            SX(sx_queue_launch(q, k, 1, NULL, &one, NULL, 4, args, 0, NULL, NULL));
        SX(sx_queue_wait(q));
        double t = now() - t0;
        if (t < best)
            best = t;
    }
    SX(sx_usm_free(ctx, in));
    SX(sx_usm_free(ctx, out));
    SX(sx_kernel_release(k));
    SX(sx_queue_release(q));
    SX(sx_context_release(ctx));
    SX(sx_fini());
    SX(sx_unregister_images(&desc));
    return best;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20000;
    int rounds = 5;
    if (n <= 0)
        DIE("usage: %s [launches]", argv[0]);
    const char *b = getenv("SX_TEST_BUILDDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/kernels/ocl-basic.bc", b ? b : ".");
    size_t size;
    unsigned char *bc = slurp(path, &size);
    if (!getenv("SX_ADAPTERS")) {
        /* Only the OpenCL adapter of this build tree. */
        snprintf(path, sizeof path, "%s/adapters/opencl/.libs/sx-adapter-opencl.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
    double sx = through_sx(bc, size, n, rounds);
    double cl = direct(bc, size, n, rounds);
    printf("opencl launch overhead, %d launches of 1 work-item then finish (best of %d):\n", n,
           rounds);
    printf("  clEnqueueNDRangeKernel (4 x clSetKernelArg*): %8.3f us/launch\n", cl / n * 1e6);
    printf("  sx_queue_launch:                              %8.3f us/launch\n", sx / n * 1e6);
    printf("  ratio sx/direct: %.3f\n", sx / cl);
    free(bc);
    return 0;
}
