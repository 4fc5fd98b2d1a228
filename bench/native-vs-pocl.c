/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-vs-pocl.c: the native adapter against a CPU OpenCL driver (PoCL
 * by default) on the same kernels, in ONE process, alternating rounds;
 * every result of every round is checked; prints per kernel the median
 * per-round time ratio native / OpenCL and its range.
 *
 *   saxpy      y = a*x + y, 2^24 floats, the local size left to each side
 *   reduce     work-group tree reduction, barrier + local memory, wg 256, 2^22 floats
 *   matmul     tiled 512 x 512 float matrix multiply, 16 x 16 groups, local tiles
 *   smooth     barrier inside a loop whose trip count is an argument (16), wg 256, 2^20 floats
 *
 * Both sides run the kernels of bench/native-vs-pocl.cl. The OpenCL side
 * builds that source through libOpenCL. The native side runs compiled
 * work-group images (adapters/native/wg.h) through sx: by default
 * bench/native-vs-pocl.sximg, which `make` builds from the same source
 * (clang-14 -> SPIR-V -> proptool --native, proptool's work-group
 * compiler); --image FILE takes another image file, or an ELF image with
 * the same kernels such as bench/native-wg-bench.hso (the hand-written
 * work-group functions of tests/kernels/native-wg.c, -O3 -march=native).
 *
 *   bench/native-vs-pocl [--rounds N] [--platform NAME] [--image FILE] [--only KERNEL] [--cl FILE.cl]
 *
 * NAME (or SX_BENCH_CL_PLATFORM) is a substring of the OpenCL platform
 * name, default "Portable Computing Language"; OCL_ICD_VENDORS picks the
 * drivers the ICD loader sees (e.g. Intel's CPU runtime). Run from the
 * build tree (SX_TEST_BUILDDIR, SX_NATIVE_BUILTINS as make check sets). */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/sx.h>

#include "../tests/util/sxt.h"
#include "bench.h"

#define DIE(...)                                                                                    \
    do {                                                                                            \
        fprintf(stderr, __VA_ARGS__);                                                               \
        fputc('\n', stderr);                                                                        \
        exit(1);                                                                                    \
    } while (0)

/* ---- OpenCL through a dlopen'd ICD loader */
#define CL_FNS(X)                                                                                   \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clCreateContext)                   \
    X(clCreateCommandQueue) X(clCreateProgramWithSource) X(clBuildProgram) X(clGetProgramBuildInfo) \
    X(clCreateKernel) X(clSetKernelArg) X(clEnqueueNDRangeKernel) X(clFinish) X(clCreateBuffer)     \
    X(clEnqueueMapBuffer) X(clEnqueueUnmapMemObject) X(clReleaseMemObject) X(clReleaseKernel)       \
    X(clReleaseProgram) X(clReleaseCommandQueue) X(clReleaseContext) X(clGetDeviceInfo)
#define CL_DECL(name) static __typeof__(&name) p_##name;
CL_FNS(CL_DECL)
#define CL(call)                                                                                    \
    do {                                                                                            \
        cl_int e_ = p_##call;                                                                       \
        if (e_ != CL_SUCCESS)                                                                       \
            DIE("%s: OpenCL error %d", #call, e_);                                                  \
    } while (0)

static char *cl_source;

static cl_context cl_ctx;
static cl_command_queue cl_q;
static cl_program cl_prog;
static char cl_platform_name[256], cl_device_name[256];

static void cl_setup(const char *want, const char *cl_path)
{
    size_t cl_size;
    cl_source = sxt_read_file(cl_path, &cl_size);
    if (!cl_source)
        DIE("cannot read the OpenCL C source %s (--cl FILE)", cl_path);
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "SKIP: no libOpenCL.so.1 (%s)\n", dlerror());
        exit(77);
    }
#define CL_LOAD(name)                                                                               \
    if (!(*(void **)&p_##name = dlsym(lib, #name)))                                                 \
        DIE("libOpenCL has no %s", #name);
    CL_FNS(CL_LOAD)
    cl_platform_id plats[16];
    cl_uint np = 0;
    if (p_clGetPlatformIDs(16, plats, &np) != CL_SUCCESS || np == 0) {
        fprintf(stderr, "SKIP: no OpenCL platform\n");
        exit(77);
    }
    cl_platform_id plat = NULL;
    for (cl_uint i = 0; i < np && i < 16 && !plat; i++) {
        char name[256] = "";
        p_clGetPlatformInfo(plats[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (strstr(name, want)) {
            plat = plats[i];
            snprintf(cl_platform_name, sizeof(cl_platform_name), "%s", name);
        }
    }
    if (!plat) {
        fprintf(stderr, "SKIP: no OpenCL platform named like '%s'\n", want);
        exit(77);
    }
    cl_device_id dev;
    CL(clGetDeviceIDs(plat, CL_DEVICE_TYPE_CPU, 1, &dev, NULL));
    p_clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(cl_device_name), cl_device_name, NULL);
    cl_int e;
    cl_ctx = p_clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
    if (!cl_ctx)
        DIE("clCreateContext: %d", e);
    cl_q = p_clCreateCommandQueue(cl_ctx, dev, 0, &e);
    if (!cl_q)
        DIE("clCreateCommandQueue: %d", e);
    const char *src = cl_source;
    cl_prog = p_clCreateProgramWithSource(cl_ctx, 1, &src, &cl_size, &e);
    if (!cl_prog)
        DIE("clCreateProgramWithSource: %d", e);
    if (p_clBuildProgram(cl_prog, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
        char log[8192] = "";
        p_clGetProgramBuildInfo(cl_prog, dev, CL_PROGRAM_BUILD_LOG, sizeof(log), log, NULL);
        DIE("clBuildProgram failed:\n%s", log);
    }
}

static cl_kernel cl_kernel_of(const char *name)
{
    cl_int e;
    cl_kernel k = p_clCreateKernel(cl_prog, name, &e);
    if (!k)
        DIE("clCreateKernel %s: %d", name, e);
    return k;
}

/* An OpenCL buffer over host memory (zero-copy on a CPU driver). */
static cl_mem cl_buffer(void *host, size_t size)
{
    cl_int e;
    cl_mem m = p_clCreateBuffer(cl_ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, size, host, &e);
    if (!m)
        DIE("clCreateBuffer: %d", e);
    return m;
}

/* Make the device's writes visible in the host memory (map + unmap). */
static void cl_sync(cl_mem m, size_t size)
{
    cl_int e;
    void *p = p_clEnqueueMapBuffer(cl_q, m, CL_TRUE, CL_MAP_READ, 0, size, 0, NULL, NULL, &e);
    if (!p)
        DIE("clEnqueueMapBuffer: %d", e);
    CL(clEnqueueUnmapMemObject(cl_q, m, p, 0, NULL, NULL));
    CL(clFinish(cl_q));
}

static double cl_run(cl_kernel k, cl_uint dims, const size_t *g, const size_t *l)
{
    double t0 = bench_now();
    CL(clEnqueueNDRangeKernel(cl_q, k, dims, NULL, g, l, 0, NULL, NULL));
    CL(clFinish(cl_q));
    return bench_now() - t0;
}

/* ---- native through sx */
static sx_context ctx;
static sx_device dev;
static sx_queue q;

static void *host_alloc(size_t size)
{
    void *p = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
    if (!p)
        DIE("out of memory (%zu bytes)", size);
    return p;
}

static void *usm(size_t size)
{
    void *p;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, size, 0, &p));
    return p;
}

static double sx_run(sx_kernel k, uint32_t dims, const size_t *g, const size_t *l, uint32_t n, const sx_arg *a)
{
    double t0 = bench_now();
    CHECK(sx_queue_launch(q, k, dims, NULL, g, l, n, a, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    return bench_now() - t0;
}

static sx_arg aptr(uint32_t i, void *p)
{
    return (sx_arg){SX_ARG_POINTER, i, sizeof(void *), p};
}
static sx_arg aval(uint32_t i, const void *v, size_t n)
{
    return (sx_arg){SX_ARG_VALUE, i, n, v};
}
static sx_arg aloc(uint32_t i, size_t n)
{
    return (sx_arg){SX_ARG_LOCAL, i, n, NULL};
}

/* ---- rounds and ratios */
static int rounds = 15;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *what, const double *tn, const double *tc)
{
    double r[256], n[256], c[256];
    for (int i = 0; i < rounds; i++) {
        r[i] = tn[i] / tc[i];
        n[i] = tn[i];
        c[i] = tc[i];
    }
    qsort(r, (size_t)rounds, sizeof(double), cmp_double);
    qsort(n, (size_t)rounds, sizeof(double), cmp_double);
    qsort(c, (size_t)rounds, sizeof(double), cmp_double);
    printf("%-8s native %9.3f ms  opencl %9.3f ms  native/opencl median %6.3f  range [%.3f .. %.3f]%s\n", what,
           n[rounds / 2] * 1e3, c[rounds / 2] * 1e3, r[rounds / 2], r[0], r[rounds - 1],
           r[rounds / 2] <= 1.0 ? "  (native faster)" : "");
    fflush(stdout);
}

static void check_floats(const char *what, const char *side, int round, const float *got, const float *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i])
            DIE("%s: %s round %d: element %zu is %g, expected %g", what, side, round, i, got[i], want[i]);
}

/* One kernel's rounds: before each, `reset` prepares both sides' data and
 * the expected result; after each, both results are checked. */
typedef struct bcase bcase;
struct bcase {
    const char *name;
    sx_kernel k;
    cl_kernel ck;
    uint32_t dims;
    size_t g[2];
    const size_t *l;   /* NULL: each side picks */
    uint32_t nargs;
    sx_arg args[4];
    float *out, *cout, *want;  /* the native and OpenCL results, and what they must be */
    cl_mem cbuf;               /* over cout */
    size_t n_out;
    void (*reset)(const bcase *c, int round);
    void *data;                /* for reset */
};

/* The host's own work between rounds (resetting data, computing and
 * checking results) runs on a thread of its own: the launching thread
 * stays idle between launches, as OpenCL's worker threads do, so the
 * scheduler treats the two sides alike. */
typedef struct {
    const bcase *c;
    int round;
    bool check;
} host_work;

static void *host_work_run(void *arg)
{
    const host_work *w = arg;
    const bcase *c = w->c;
    if (w->check) {
        cl_sync(c->cbuf, c->n_out * 4);
        check_floats(c->name, "native", w->round, c->out, c->want, c->n_out);
        check_floats(c->name, "opencl", w->round, c->cout, c->want, c->n_out);
    } else {
        c->reset(c, w->round);
    }
    return NULL;
}

static void on_host_thread(const bcase *c, int round, bool check)
{
    host_work w = {c, round, check};
    pthread_t t;
    if (pthread_create(&t, NULL, host_work_run, &w) != 0)
        DIE("pthread_create failed");
    pthread_join(t, NULL);
}

static void run_rounds(const bcase *c)
{
    double tn[256], tc[256];
    for (int r = -1; r < rounds; r++) {  /* round -1 warms both up (PoCL compiles at first launch) */
        on_host_thread(c, r, false);
        double t1 = sx_run(c->k, c->dims, c->g, c->l, c->nargs, c->args);
        double t2 = cl_run(c->ck, c->dims, c->g, c->l);
        if (r >= 0) {
            tn[r] = t1;
            tc[r] = t2;
        }
        on_host_thread(c, r, true);
    }
    report(c->name, tn, tc);
}

static void set_cl_args(cl_kernel ck, unsigned n, const cl_mem *bufs)
{
    for (unsigned i = 0; i < n; i++)
        CL(clSetKernelArg(ck, i, sizeof(cl_mem), &bufs[i]));
}

/* saxpy works in place: after round r, y = y0 + (r + 2) a x */
static void saxpy_reset(const bcase *c, int r)
{
    float a = *(const float *)c->args[0].value;
    for (size_t i = 0; i < c->n_out; i++)
        c->want[i] = (float)(i % 777) + (float)(r + 2) * a * (float)(i % 1000);
}

static void zero_outputs(const bcase *c, int r)
{
    (void)r;
    memset(c->out, 0, c->n_out * 4);
    memset(c->cout, 0, c->n_out * 4);
}

static void restore_inputs(const bcase *c, int r)
{
    (void)r;
    memcpy(c->out, c->data, c->n_out * 4);
    memcpy(c->cout, c->data, c->n_out * 4);
}

static void bench_saxpy(sx_kernel k, cl_kernel ck)
{
    size_t n = (size_t)1 << 24;
    float *x = usm(n * 4), *y = usm(n * 4), *cx = host_alloc(n * 4), *cy = host_alloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        x[i] = cx[i] = (float)(i % 1000);
        y[i] = cy[i] = (float)(i % 777);
    }
    float a = 2.0f;
    cl_mem b[2] = {cl_buffer(cx, n * 4), cl_buffer(cy, n * 4)};
    CL(clSetKernelArg(ck, 0, sizeof(a), &a));
    CL(clSetKernelArg(ck, 1, sizeof(cl_mem), &b[0]));
    CL(clSetKernelArg(ck, 2, sizeof(cl_mem), &b[1]));
    bcase c = {"saxpy", k, ck, 1, {n, 1}, NULL, 3, {aval(0, &a, 4), aptr(1, x), aptr(2, y)},
               y, cy, malloc(n * 4), b[1], n, saxpy_reset, NULL};
    run_rounds(&c);
    p_clReleaseMemObject(b[0]);
    p_clReleaseMemObject(b[1]);
    CHECK(sx_usm_free(ctx, x));
    CHECK(sx_usm_free(ctx, y));
    free(cx);
    free(cy);
    free(c.want);
}

static void bench_reduce(sx_kernel k, cl_kernel ck)
{
    static const size_t l = 256;
    size_t n = (size_t)1 << 22, ng = n / l;
    float *in = usm(n * 4), *out = usm(ng * 4), *cin = host_alloc(n * 4), *cout = host_alloc(ng * 4);
    float *want = calloc(ng, 4);
    for (size_t i = 0; i < n; i++) {
        in[i] = cin[i] = (float)((i * 7) % 13);
        want[i / l] += in[i];
    }
    cl_mem b[2] = {cl_buffer(cin, n * 4), cl_buffer(cout, ng * 4)};
    set_cl_args(ck, 2, b);
    CL(clSetKernelArg(ck, 2, l * 4, NULL));
    bcase c = {"reduce", k, ck, 1, {n, 1}, &l, 3, {aptr(0, in), aptr(1, out), aloc(2, l * 4)},
               out, cout, want, b[1], ng, zero_outputs, NULL};
    run_rounds(&c);
    p_clReleaseMemObject(b[0]);
    p_clReleaseMemObject(b[1]);
    CHECK(sx_usm_free(ctx, in));
    CHECK(sx_usm_free(ctx, out));
    free(cin);
    free(cout);
    free(want);
}

static void bench_matmul(sx_kernel k, cl_kernel ck)
{
    static const size_t l[2] = {16, 16};
    int N = 512;
    size_t nn = (size_t)N * N;
    float *A = usm(nn * 4), *B = usm(nn * 4), *C = usm(nn * 4);
    float *cA = host_alloc(nn * 4), *cB = host_alloc(nn * 4), *cC = host_alloc(nn * 4), *want = calloc(nn, 4);
    for (size_t i = 0; i < nn; i++) {
        A[i] = cA[i] = (float)(i % 5);
        B[i] = cB[i] = (float)(i % 3) - 1.0f;
    }
    for (int r = 0; r < N; r++)
        for (int i = 0; i < N; i++)
            for (int col = 0; col < N; col++)
                want[(size_t)r * N + col] += A[(size_t)r * N + i] * B[(size_t)i * N + col];
    cl_mem b[3] = {cl_buffer(cA, nn * 4), cl_buffer(cB, nn * 4), cl_buffer(cC, nn * 4)};
    set_cl_args(ck, 3, b);
    CL(clSetKernelArg(ck, 3, sizeof(int), &N));
    bcase c = {"matmul", k, ck, 2, {(size_t)N, (size_t)N}, l, 4, {aptr(0, A), aptr(1, B), aptr(2, C), aval(3, &N, 4)},
               C, cC, want, b[2], nn, zero_outputs, NULL};
    run_rounds(&c);
    for (int i = 0; i < 3; i++)
        p_clReleaseMemObject(b[i]);
    CHECK(sx_usm_free(ctx, A));
    CHECK(sx_usm_free(ctx, B));
    CHECK(sx_usm_free(ctx, C));
    free(cA);
    free(cB);
    free(cC);
    free(want);
}

static void bench_smooth(sx_kernel k, cl_kernel ck)
{
    static const size_t l = 256;
    size_t n = (size_t)1 << 20;
    int iters = 16;
    float *d = usm(n * 4), *cd = host_alloc(n * 4), *init = malloc(n * 4), *want = malloc(n * 4);
    float tmp[256];
    for (size_t i = 0; i < n; i++)
        init[i] = want[i] = (float)((i * 37) % 11);
    for (size_t g = 0; g < n / l; g++)
        for (int it = 0; it < iters; it++) {
            memcpy(tmp, want + g * l, sizeof(tmp));
            for (size_t i = 0; i < l; i++)
                want[g * l + i] = 0.5f * (tmp[i] + tmp[(i + 1) % l]);
        }
    cl_mem bd = cl_buffer(cd, n * 4);
    set_cl_args(ck, 1, &bd);
    CL(clSetKernelArg(ck, 1, sizeof(int), &iters));
    CL(clSetKernelArg(ck, 2, l * 4, NULL));
    bcase c = {"smooth", k, ck, 1, {n, 1}, &l, 3, {aptr(0, d), aval(1, &iters, 4), aloc(2, l * 4)},
               d, cd, want, bd, n, restore_inputs, init};
    run_rounds(&c);
    p_clReleaseMemObject(bd);
    CHECK(sx_usm_free(ctx, d));
    free(cd);
    free(init);
    free(want);
}

/* An ELF image of work-group functions, described and registered here. */
static sx_device_binaries *elf_binaries(const void *bytes, size_t size)
{
    sxt_image *im = sxt_image_new(SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE, bytes, size);
    sxa_kernel_param ps[] = {SXT_PARAM_VALUE(SX_SCALAR_F32, 4), SXT_PARAM_POINTER(), SXT_PARAM_POINTER()};
    sxa_kernel_param pr[] = {SXT_PARAM_POINTER(), SXT_PARAM_POINTER(), SXT_PARAM_LOCAL()};
    sxa_kernel_param pm[] = {SXT_PARAM_POINTER(), SXT_PARAM_POINTER(), SXT_PARAM_POINTER(),
                             SXT_PARAM_VALUE(SX_SCALAR_I32, 4)};
    sxa_kernel_param pl[] = {SXT_PARAM_POINTER(), SXT_PARAM_VALUE(SX_SCALAR_I32, 4), SXT_PARAM_LOCAL()};
    if (!im || sxt_image_add_kernel(im, "saxpy", SX_KERNEL_KIND_ND_RANGE, 1, 3, 3, ps, NULL) ||
        sxt_image_add_kernel(im, "reduce", SX_KERNEL_KIND_ND_RANGE, 1, 3, 3, pr, NULL) ||
        sxt_image_add_kernel(im, "matmul", SX_KERNEL_KIND_ND_RANGE, 2, 4, 4, pm, NULL) ||
        sxt_image_add_kernel(im, "smooth", SX_KERNEL_KIND_ND_RANGE, 1, 3, 3, pl, NULL))
        DIE("cannot describe the native image");
    sx_device_binaries *bin = sxt_binaries(&im, 1);
    CHECK(sx_register_images(bin));
    return bin;
}

int main(int argc, char **argv)
{
    const char *platform = getenv("SX_BENCH_CL_PLATFORM");
    const char *image = NULL, *only = NULL, *cl_path = NVP_CL_SOURCE;
    if (!platform || !*platform)
        platform = "Portable Computing Language";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc)
            platform = argv[++i];
        else if (strcmp(argv[i], "--image") == 0 && i + 1 < argc)
            image = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--cl") == 0 && i + 1 < argc)
            cl_path = argv[++i];
        else
            DIE("usage: %s [--rounds N] [--platform NAME] [--image FILE] [--only KERNEL] [--cl FILE.cl]", argv[0]);
    }
    if (rounds < 1 || rounds > 256)
        DIE("--rounds: 1 to 256");
    char *path = NULL;
    if (image) {
        path = strdup(image);
    } else {
        const char *dir = getenv("SX_TEST_BUILDDIR");
        size_t len = strlen(dir ? dir : ".") + 64;
        path = malloc(len);
        snprintf(path, len, "%s/bench/native-vs-pocl.sximg", dir ? dir : ".");
    }
    size_t size;
    void *bytes = sxt_read_file(path, &size);
    if (!bytes)
        DIE("cannot read the native image %s (build it with make, or pass --image)", path);

    cl_setup(platform, cl_path);

    CHECK(sx_init(SX_INIT_DEFAULT));
    sx_image_file file = NULL;
    sx_device_binaries *bin = NULL;
    if (size >= 4 && memcmp(bytes, "\177ELF", 4) == 0) {
        bin = elf_binaries(bytes, size);
    } else {
        CHECK(sx_image_file_load_memory(bytes, size, &file));
    }
    sx_device devs[16];
    uint32_t nd = 0;
    CHECK(sx_device_get(NULL, SX_DEVICE_TYPE_CPU, 16, devs, &nd));
    dev = NULL;
    for (uint32_t i = 0; i < nd && i < 16; i++) {
        sx_backend b;
        CHECK(sx_device_get_info(devs[i], SX_DEVICE_INFO_BACKEND, sizeof(b), &b, NULL));
        if (b == SX_BACKEND_NATIVE)
            dev = devs[i];
    }
    if (!dev)
        DIE("no native device");
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));

    printf("native (%s, %s) vs %s (%s), %d alternating rounds per kernel, every result checked\n", path,
           getenv("SX_NATIVE_THREADS") ? getenv("SX_NATIVE_THREADS") : "all CPUs", cl_platform_name,
           cl_device_name, rounds);
    static const char *names[] = {"saxpy", "reduce", "matmul", "smooth"};
    static void (*const fns[])(sx_kernel, cl_kernel) = {bench_saxpy, bench_reduce, bench_matmul, bench_smooth};
    for (int i = 0; i < 4; i++) {
        if (only && strcmp(only, names[i]) != 0)
            continue;
        sx_kernel k;
        CHECK(sx_kernel_get(names[i], &k));
        cl_kernel ck = cl_kernel_of(names[i]);
        fns[i](k, ck);
        CHECK(sx_kernel_release(k));
        p_clReleaseKernel(ck);
    }
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    if (bin)
        CHECK(sx_unregister_images(bin));
    if (file)
        CHECK(sx_image_file_release(file));
    CHECK(sx_fini());
    if (bin)
        sxt_binaries_free(bin);
    p_clReleaseProgram(cl_prog);
    p_clReleaseCommandQueue(cl_q);
    p_clReleaseContext(cl_ctx);
    free(bytes);
    free(path);
    return 0;
}
