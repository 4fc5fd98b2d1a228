/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ur-vs-sx.c: the same work through libsycl-ext, through DPC++'s Unified
 * Runtime (its OpenCL adapter) and through OpenCL itself, on one OpenCL
 * driver (Intel's CPU runtime from tools/intel-opencl.sh), in one process,
 * alternating rounds; prints per-operation times and the median (range) of
 * the per-round ratios ours/UR and ours/raw OpenCL.
 *
 *   bench/ur-vs-sx [N]      from the build tree after `make check` built
 *                           bench/kernels/ur-bench.{spv,sximg}
 *   UR_VS_SX_ROUNDS=R       R rounds for the per-operation lines (default 15)
 *   UR_VS_SX_VF_ROUNDS=R    R rounds for the first-launch lines (default 15)
 *
 * Lines: empty-kernel launch + wait; enqueue only (N launches, one finish);
 * a 4-byte device_global write (blocking); the first launch of a kernel
 * linked with its virtual-function sets, cold and (in a second process that
 * this one starts) from each side's cache. Results are checked: every call
 * must succeed, ur_bench_add launches and the virtual calls' results are
 * read back through each side's device-global read. Each line prints the
 * wall time and this thread's CPU time per operation: the waits on the
 * driver's worker threads make wall times noisy on a shared machine; CPU
 * time is steadier, and for enqueue-only it is what each side itself
 * costs, but blocking calls also spin inside the driver. UR is found at $SX_UR_LOADER or
 * BUILD/intel-opencl/lib/libur_loader.so.0, its OpenCL adapter beside it;
 * the driver by OCL_ICD_VENDORS (default BUILD/intel-opencl/vendors). */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sycl-ext/sx.h>

#include "bench-file.h"
#include "bench.h"
#include "ur-api.h"

static const char *build = ".";

/* BUILD/rel, read whole */
static unsigned char *slurp(const char *rel, size_t *size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", build, rel);
    return bench_read_file(path, size);
}

/* ---------------------------------------------------------------- raw OpenCL */
#define CL_FNS(X)                                                                                  \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clCreateContext)                  \
    X(clCreateCommandQueueWithProperties) X(clCreateProgramWithIL) X(clBuildProgram)               \
    X(clCreateKernel) X(clSetKernelArg) X(clEnqueueNDRangeKernel) X(clFinish) X(clWaitForEvents)   \
    X(clReleaseEvent) X(clReleaseKernel) X(clReleaseProgram) X(clReleaseCommandQueue)              \
    X(clReleaseContext) X(clGetExtensionFunctionAddressForPlatform) X(clCompileProgram)           \
    X(clLinkProgram) X(clGetProgramInfo) X(clCreateProgramWithBinary)
#define CL_DECL(name) static __typeof__(&name) p_##name;
CL_FNS(CL_DECL)
typedef cl_int(CL_API_CALL *gv_write_fn)(cl_command_queue, cl_program, const char *, cl_bool,
                                         size_t, size_t, const void *, cl_uint, const cl_event *,
                                         cl_event *);
typedef cl_int(CL_API_CALL *gv_read_fn)(cl_command_queue, cl_program, const char *, cl_bool,
                                        size_t, size_t, void *, cl_uint, const cl_event *,
                                        cl_event *);
static struct {
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_program prog;
    cl_kernel empty, add;
    gv_write_fn write;
    gv_read_fn read;
} cl;

#define CLK(call)                                                                                  \
    do {                                                                                           \
        cl_int e_ = (call);                                                                        \
        if (e_ != CL_SUCCESS)                                                                      \
            DIE("%s: %d", #call, e_);                                                              \
    } while (0)

static void cl_setup(const unsigned char *spv, size_t size)
{
    /* RTLD_GLOBAL: UR's OpenCL adapter then binds to this same ICD loader. */
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        DIE("libOpenCL.so.1: %s", dlerror());
#define CL_LOAD(name)                                                                              \
    if (!(*(void **)&p_##name = dlsym(lib, #name)))                                                \
        DIE("no %s", #name);
    CL_FNS(CL_LOAD)
    cl_platform_id pl;
    cl_int err;
    CLK(p_clGetPlatformIDs(1, &pl, NULL));
    CLK(p_clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &cl.dev, NULL));
    cl_device_id dev = cl.dev;
    cl.ctx = p_clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    CLK(err);
    cl.q = p_clCreateCommandQueueWithProperties(cl.ctx, dev, NULL, &err);
    CLK(err);
    cl.prog = p_clCreateProgramWithIL(cl.ctx, spv, size, &err);
    CLK(err);
    CLK(p_clBuildProgram(cl.prog, 1, &dev, "", NULL, NULL));
    cl.empty = p_clCreateKernel(cl.prog, "ur_bench_empty", &err);
    CLK(err);
    cl.add = p_clCreateKernel(cl.prog, "ur_bench_add", &err);
    CLK(err);
    cl.write = (gv_write_fn)p_clGetExtensionFunctionAddressForPlatform(
        pl, "clEnqueueWriteGlobalVariableINTEL");
    cl.read = (gv_read_fn)p_clGetExtensionFunctionAddressForPlatform(
        pl, "clEnqueueReadGlobalVariableINTEL");
    if (!cl.write || !cl.read)
        DIE("the driver has no clEnqueueWrite/ReadGlobalVariableINTEL");
}

static void cl_teardown(void)
{
    p_clReleaseKernel(cl.empty);
    p_clReleaseKernel(cl.add);
    p_clReleaseProgram(cl.prog);
    p_clReleaseCommandQueue(cl.q);
    p_clReleaseContext(cl.ctx);
}

/* -------------------------------------------------------- Unified Runtime */
#define UR_DECL(name, params) static ur_result_t (*p_##name) params;
UR_ENTRIES(UR_DECL)
static struct {
    ur_context_handle_t ctx;
    ur_device_handle_t dev;
    ur_queue_handle_t q;
    ur_program_handle_t prog;
    ur_kernel_handle_t empty, add;
} ur;

#define URK(call)                                                                                  \
    do {                                                                                           \
        ur_result_t e_ = (call);                                                                   \
        if (e_ != UR_RESULT_SUCCESS)                                                               \
            DIE("%s: UR result %d", #call, (int)e_);                                               \
    } while (0)

static void ur_setup(const unsigned char *spv, size_t size)
{
    char path[4096];
    const char *loader = getenv("SX_UR_LOADER");
    if (!loader) {
        snprintf(path, sizeof path, "%s/intel-opencl/lib/libur_loader.so.0", build);
        loader = path;
    }
    void *lib = dlopen(loader, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        DIE("SKIP: no Unified Runtime loader (%s); tools/intel-opencl.sh installs it", dlerror());
#define UR_LOAD(name, params)                                                                      \
    if (!(*(void **)&p_##name = dlsym(lib, #name)))                                                \
        DIE("%s lacks %s", loader, #name);
    UR_ENTRIES(UR_LOAD)
    /* Only the OpenCL adapter, from beside the loader. */
    char adapter[4096];
    snprintf(adapter, sizeof adapter, "%.*s/libur_adapter_opencl.so.0",
             (int)(strrchr(loader, '/') ? strrchr(loader, '/') - loader : 1),
             strrchr(loader, '/') ? loader : ".");
    setenv("UR_ADAPTERS_FORCE_LOAD", adapter, 0);
    URK(p_urLoaderInit(0, NULL));
    ur_adapter_handle_t adapters[8];
    uint32_t na = 0;
    URK(p_urAdapterGet(8, adapters, &na));
    ur_platform_handle_t plat = NULL;
    for (uint32_t i = 0; i < na && !plat; i++) {
        uint32_t backend = 0, np = 0;
        URK(p_urAdapterGetInfo(adapters[i], UR_ADAPTER_INFO_BACKEND, sizeof backend, &backend,
                               NULL));
        if (backend == UR_ADAPTER_BACKEND_OPENCL)
            URK(p_urPlatformGet(adapters[i], 1, &plat, &np));
    }
    if (!plat)
        DIE("Unified Runtime found no OpenCL platform (%u adapters)", na);
    uint32_t nd = 0;
    URK(p_urDeviceGet(plat, UR_DEVICE_TYPE_ALL, 1, &ur.dev, &nd));
    URK(p_urContextCreate(1, &ur.dev, NULL, &ur.ctx));
    URK(p_urQueueCreate(ur.ctx, ur.dev, NULL, &ur.q));
    URK(p_urProgramCreateWithIL(ur.ctx, spv, size, NULL, &ur.prog));
    URK(p_urProgramBuild(ur.ctx, ur.prog, ""));
    URK(p_urKernelCreate(ur.prog, "ur_bench_empty", &ur.empty));
    URK(p_urKernelCreate(ur.prog, "ur_bench_add", &ur.add));
    /* The launch signature declared in ur-api.h: an event must come back. */
    size_t one = 1;
    ur_event_handle_t ev = NULL;
    URK(p_urEnqueueKernelLaunch(ur.q, ur.empty, 1, NULL, &one, NULL, NULL, 0, NULL, &ev));
    if (!ev)
        DIE("urEnqueueKernelLaunch gave no event: not the signature declared in ur-api.h");
    URK(p_urEventWait(1, &ev));
    URK(p_urEventRelease(ev));
}

static void ur_teardown(void)
{
    p_urKernelRelease(ur.empty);
    p_urKernelRelease(ur.add);
    p_urProgramRelease(ur.prog);
    p_urQueueRelease(ur.q);
    p_urContextRelease(ur.ctx);
}

/* ------------------------------------------------------------ libsycl-ext */
static int sx_value;  /* the device_image_scope host object: { int value; } */
static int sx_vf_result;  /* ur-bench-vf.clcpp's ur_vf_result */
static struct {
    sx_image_file file, vf_file;
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    sx_kernel empty, add, vf;
} sx;

static void sx_setup(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/bench/kernels/ur-bench.sximg", build);
    CHECK(sx_image_file_load(path, &sx.file));
    snprintf(path, sizeof path, "%s/bench/kernels/ur-bench-vf.sximg", build);
    CHECK(sx_image_file_load(path, &sx.vf_file));
    CHECK(sx_device_global_add(&sx_value, "ur_bench_value", sizeof sx_value,
                               SX_DEVICE_GLOBAL_IMAGE_SCOPE, SX_HOST_ACCESS_READ_WRITE));
    CHECK(sx_device_global_add(&sx_vf_result, "ur_vf_result", sizeof sx_vf_result,
                               SX_DEVICE_GLOBAL_IMAGE_SCOPE, SX_HOST_ACCESS_READ_WRITE));
    CHECK(sx_init(SX_INIT_DEFAULT));
    CHECK(sx_device_get_default(&sx.dev));
    CHECK(sx_context_create(1, &sx.dev, &sx.ctx));
    CHECK(sx_queue_create(sx.ctx, sx.dev, SX_QUEUE_IN_ORDER, &sx.q));
    CHECK(sx_kernel_get("ur_bench_empty", &sx.empty));
    CHECK(sx_kernel_get("ur_bench_add", &sx.add));
    CHECK(sx_kernel_get("ur_vf_run", &sx.vf));
    /* the first launch builds the program: not timed */
    size_t one = 1;
    CHECK(sx_queue_launch(sx.q, sx.empty, 1, NULL, &one, NULL, 0, NULL, 0, NULL, NULL));
    CHECK(sx_queue_wait(sx.q));
}

static void sx_teardown(void)
{
    CHECK(sx_kernel_release(sx.empty));
    CHECK(sx_kernel_release(sx.add));
    CHECK(sx_kernel_release(sx.vf));
    CHECK(sx_queue_release(sx.q));
    CHECK(sx_context_release(sx.ctx));
    CHECK(sx_fini());
    CHECK(sx_device_global_remove(&sx_value));
    CHECK(sx_device_global_remove(&sx_vf_result));
    CHECK(sx_image_file_release(sx.vf_file));
    CHECK(sx_image_file_release(sx.file));
}

/* ------------------------------------------------------------- the work */
enum { RAW, UR, SX, SIDES };
static const char *const side_name[SIDES] = {"OpenCL", "UR", "sx"};
static int n_ops = 2000;

static double launch_wait(int side)
{
    size_t one = 1;
    double t0 = bench_now();
    for (int i = 0; i < n_ops; i++) {
        if (side == RAW) {
            cl_event ev;
            CLK(p_clEnqueueNDRangeKernel(cl.q, cl.empty, 1, NULL, &one, NULL, 0, NULL, &ev));
            CLK(p_clWaitForEvents(1, &ev));
            p_clReleaseEvent(ev);
        } else if (side == UR) {
            ur_event_handle_t ev;
            URK(p_urEnqueueKernelLaunch(ur.q, ur.empty, 1, NULL, &one, NULL, NULL, 0, NULL, &ev));
            URK(p_urEventWait(1, &ev));
            p_urEventRelease(ev);
        } else {
            sx_event ev;
            CHECK(sx_queue_launch(sx.q, sx.empty, 1, NULL, &one, NULL, 0, NULL, 0, NULL, &ev));
            CHECK(sx_event_wait(1, &ev));
            CHECK(sx_event_release(ev));
        }
    }
    return (bench_now() - t0) / n_ops;
}

static double enqueue_only(int side)
{
    size_t one = 1;
    double t0 = bench_now();
    for (int i = 0; i < n_ops; i++) {
        if (side == RAW)
            CLK(p_clEnqueueNDRangeKernel(cl.q, cl.empty, 1, NULL, &one, NULL, 0, NULL, NULL));
        else if (side == UR)
            URK(p_urEnqueueKernelLaunch(ur.q, ur.empty, 1, NULL, &one, NULL, NULL, 0, NULL, NULL));
        else
            CHECK(sx_queue_launch(sx.q, sx.empty, 1, NULL, &one, NULL, 0, NULL, 0, NULL, NULL));
    }
    if (side == RAW)
        CLK(p_clFinish(cl.q));
    else if (side == UR)
        URK(p_urQueueFinish(ur.q));
    else
        CHECK(sx_queue_wait(sx.q));
    return (bench_now() - t0) / n_ops;
}

static int dg_read(int side)
{
    int v = -1;
    if (side == RAW)
        CLK(cl.read(cl.q, cl.prog, "ur_bench_value", CL_TRUE, sizeof v, 0, &v, 0, NULL, NULL));
    else if (side == UR)
        URK(p_urEnqueueDeviceGlobalVariableRead(ur.q, ur.prog, "ur_bench_value", true, sizeof v, 0,
                                                &v, 0, NULL, NULL));
    else
        CHECK(sx_queue_device_global_read(sx.q, &v, &sx_value, sizeof v, 0, 1, 0, NULL, NULL));
    return v;
}

/* A blocking 4-byte write, n_ops times; then ur_bench_add(5) and a read
 * back check that the write and the launch both reached the variable. */
static double dg_write(int side)
{
    double t0 = bench_now();
    int v = 0;
    for (int i = 0; i < n_ops; i++) {
        v = i;
        if (side == RAW)
            CLK(cl.write(cl.q, cl.prog, "ur_bench_value", CL_TRUE, sizeof v, 0, &v, 0, NULL, NULL));
        else if (side == UR)
            URK(p_urEnqueueDeviceGlobalVariableWrite(ur.q, ur.prog, "ur_bench_value", true,
                                                     sizeof v, 0, &v, 0, NULL, NULL));
        else
            CHECK(sx_queue_device_global_write(sx.q, &sx_value, &v, sizeof v, 0, 1, 0, NULL, NULL));
    }
    double t = (bench_now() - t0) / n_ops;
    int by = 5;
    size_t one = 1;
    if (side == RAW) {
        CLK(p_clSetKernelArg(cl.add, 0, sizeof by, &by));
        CLK(p_clEnqueueNDRangeKernel(cl.q, cl.add, 1, NULL, &one, NULL, 0, NULL, NULL));
    } else if (side == UR) {
        URK(p_urKernelSetArgValue(ur.add, 0, sizeof by, NULL, &by));
        URK(p_urEnqueueKernelLaunch(ur.q, ur.add, 1, NULL, &one, NULL, NULL, 0, NULL, NULL));
    } else {
        sx_arg a = {.type = SX_ARG_VALUE, .index = 0, .size = sizeof by, .value = &by};
        CHECK(sx_queue_launch(sx.q, sx.add, 1, NULL, &one, NULL, 1, &a, 0, NULL, NULL));
    }
    int back = dg_read(side);
    if (back != v + by)
        DIE("%s: device global reads %d after writing %d and adding %d", side_name[side], back, v,
            by);
    return t;
}

/* ---------------------------------------- first launch of a linked program
 *
 * ur-bench-vf.sximg: proptool's kernel image and the images of the sets it
 * calls (extracted to bench/kernels/ur-bench-vf/image<N>.spv: 0 the
 * kernel, 1 the default set, 2 set_fp64, 3 set_fp64's dummy). Cold: from
 * SPIR-V to the result of the first launch, each side on a fresh context
 * and fresh programs; ours resolves the sets itself and hands its
 * persistent cache entry (on by default) for a fresh directory each round
 * to its writer thread.
 * Cached (a second process): from each one's cache: ours from
 * SX_CACHE_DIR, UR and OpenCL from the linked binary the first process
 * saved (what DPC++'s persistent cache does over UR). */
enum { VF_IMAGES = 3, VF_X = 7, VF_WANT = 7 * 3 + 1 + (int)(7 * 2.5) + 1 };
static char tmpdir[256];
static int vf_round;
static unsigned char *vf_spv[VF_IMAGES];
static size_t vf_size[VF_IMAGES];

static void vf_load(void)
{
    for (int i = 0; i < VF_IMAGES; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "bench/kernels/ur-bench-vf/image%d.spv", i);
        vf_spv[i] = slurp(rel, &vf_size[i]);
    }
}

/* Every side's first launch runs on a context and queue made for it,
 * untimed: Intel's runtime links ~8% slower in a fresh context than in one
 * that has built before, and ours needs a fresh one (its programs are
 * cached per context), so the others get one too. */
static struct {
    cl_context ctx;
    cl_command_queue q;
} vf_cl;
static struct {
    ur_context_handle_t ctx;
    ur_queue_handle_t q;
} vf_ur;

static void vf_contexts_make(int side)
{
    if (side == RAW) {
        cl_int err;
        vf_cl.ctx = p_clCreateContext(NULL, 1, &cl.dev, NULL, NULL, &err);
        CLK(err);
        vf_cl.q = p_clCreateCommandQueueWithProperties(vf_cl.ctx, cl.dev, NULL, &err);
        CLK(err);
    } else if (side == UR) {
        URK(p_urContextCreate(1, &ur.dev, NULL, &vf_ur.ctx));
        URK(p_urQueueCreate(vf_ur.ctx, ur.dev, NULL, &vf_ur.q));
    }
}

static void vf_contexts_release(int side)
{
    if (side == RAW) {
        CLK(p_clReleaseCommandQueue(vf_cl.q));
        CLK(p_clReleaseContext(vf_cl.ctx));
    } else if (side == UR) {
        URK(p_urQueueRelease(vf_ur.q));
        URK(p_urContextRelease(vf_ur.ctx));
    }
}

/* A first launch is timed from its first call to its result, read back:
 * what comes after (saving a binary, releasing the program and kernel, the
 * context) is not, on any side. */
static double vf_t0, vf_c0, vf_wall, vf_cpu;

static void vf_start(void)
{
    vf_c0 = bench_cpu_now();
    vf_t0 = bench_now();
}

static void vf_stop(void)
{
    vf_wall = bench_now() - vf_t0;
    vf_cpu = bench_cpu_now() - vf_c0;
}

static void vf_check(int side, int v)
{
    if (v != VF_WANT)
        DIE("%s: ur_vf_run(%d) gave %d, not %d", side_name[side], VF_X, v, VF_WANT);
}

static void save(const char *name, const void *data, size_t size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        DIE("cannot write %s", path);
}

static void *load(const char *name, size_t *size)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return bench_read_file(path, size);
}

static void cl_vf_finish(cl_program linked, int cached)
{
    cl_int err;
    cl_kernel k = p_clCreateKernel(linked, "ur_vf_run", &err);
    CLK(err);
    int x = VF_X, v = -1;
    size_t one = 1;
    CLK(p_clSetKernelArg(k, 0, sizeof x, &x));
    CLK(p_clEnqueueNDRangeKernel(vf_cl.q, k, 1, NULL, &one, NULL, 0, NULL, NULL));
    CLK(cl.read(vf_cl.q, linked, "ur_vf_result", CL_TRUE, sizeof v, 0, &v, 0, NULL, NULL));
    vf_stop();
    vf_check(RAW, v);
    if (!cached && vf_round == 0) {
        size_t n = 0;
        CLK(p_clGetProgramInfo(linked, CL_PROGRAM_BINARY_SIZES, sizeof n, &n, NULL));
        unsigned char *bin = malloc(n), *bins[1] = {bin};
        CLK(p_clGetProgramInfo(linked, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL));
        save("cl.bin", bin, n);
        free(bin);
    }
    p_clReleaseKernel(k);
    p_clReleaseProgram(linked);
}

static void ur_vf_finish(ur_program_handle_t linked, int cached)
{
    ur_kernel_handle_t k;
    URK(p_urKernelCreate(linked, "ur_vf_run", &k));
    int x = VF_X, v = -1;
    size_t one = 1;
    URK(p_urKernelSetArgValue(k, 0, sizeof x, NULL, &x));
    URK(p_urEnqueueKernelLaunch(vf_ur.q, k, 1, NULL, &one, NULL, NULL, 0, NULL, NULL));
    URK(p_urEnqueueDeviceGlobalVariableRead(vf_ur.q, linked, "ur_vf_result", true, sizeof v, 0, &v,
                                            0, NULL, NULL));
    vf_stop();
    vf_check(UR, v);
    if (!cached && vf_round == 0) {
        size_t n = 0;
        URK(p_urProgramGetInfo(linked, UR_PROGRAM_INFO_BINARY_SIZES, sizeof n, &n, NULL));
        unsigned char *bin = malloc(n), *bins[1] = {bin};
        URK(p_urProgramGetInfo(linked, UR_PROGRAM_INFO_BINARIES, sizeof bins, bins, NULL));
        save("ur.bin", bin, n);
        free(bin);
    }
    p_urKernelRelease(k);
    p_urProgramRelease(linked);
}

/* Ours on a fresh context: the first launch resolves, links (or reads the
 * cache in SX_CACHE_DIR) and runs; the context's release drops it. */
static double sx_vf_first(const char *cache)
{
    setenv("SX_CACHE_DIR", cache, 1);
    sx_context c;
    sx_queue q;
    CHECK(sx_context_create(1, &sx.dev, &c));
    CHECK(sx_queue_create(c, sx.dev, SX_QUEUE_IN_ORDER, &q));
    int x = VF_X, v = -1;
    size_t one = 1;
    sx_arg a = {.type = SX_ARG_VALUE, .index = 0, .size = sizeof x, .value = &x};
    vf_start();
    CHECK(sx_queue_launch(q, sx.vf, 1, NULL, &one, NULL, 1, &a, 0, NULL, NULL));
    CHECK(sx_queue_device_global_read(q, &v, &sx_vf_result, sizeof v, 0, 1, 0, NULL, NULL));
    vf_stop();
    vf_check(SX, v);
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(c));
    return vf_wall;
}

static double vf_cold(int side)
{
    vf_contexts_make(side);
    if (side == RAW) {
        vf_start();
        cl_program p[VF_IMAGES];
        cl_int err;
        for (int i = 0; i < VF_IMAGES; i++) {
            p[i] = p_clCreateProgramWithIL(vf_cl.ctx, vf_spv[i], vf_size[i], &err);
            CLK(err);
            CLK(p_clCompileProgram(p[i], 1, &cl.dev, "", 0, NULL, NULL, NULL, NULL));
        }
        cl_program linked =
            p_clLinkProgram(vf_cl.ctx, 1, &cl.dev, "", VF_IMAGES, p, NULL, NULL, &err);
        CLK(err);
        for (int i = 0; i < VF_IMAGES; i++)
            p_clReleaseProgram(p[i]);
        cl_vf_finish(linked, 0);
    } else if (side == UR) {
        vf_start();
        ur_program_handle_t p[VF_IMAGES], linked;
        for (int i = 0; i < VF_IMAGES; i++) {
            URK(p_urProgramCreateWithIL(vf_ur.ctx, vf_spv[i], vf_size[i], NULL, &p[i]));
            URK(p_urProgramCompile(vf_ur.ctx, p[i], ""));
        }
        URK(p_urProgramLink(vf_ur.ctx, VF_IMAGES, p, "", &linked));
        for (int i = 0; i < VF_IMAGES; i++)
            p_urProgramRelease(p[i]);
        ur_vf_finish(linked, 0);
    } else {
        char cache[300];
        snprintf(cache, sizeof cache, "%s/sx-cache-%d", tmpdir, vf_round);
        sx_vf_first(cache); /* starts the clock after its context is made */
    }
    vf_contexts_release(side);
    return vf_wall;
}

static double vf_cached(int side)
{
    vf_contexts_make(side);
    if (side == RAW) {
        vf_start();
        size_t n;
        const unsigned char *bin = load("cl.bin", &n);
        cl_int err, st;
        cl_program p = p_clCreateProgramWithBinary(vf_cl.ctx, 1, &cl.dev, &n, &bin, &st, &err);
        CLK(err);
        CLK(p_clBuildProgram(p, 1, &cl.dev, "", NULL, NULL));
        cl_vf_finish(p, 1);
        free((void *)bin);
    } else if (side == UR) {
        vf_start();
        size_t n;
        const uint8_t *bin = load("ur.bin", &n);
        ur_program_handle_t p;
        URK(p_urProgramCreateWithBinary(vf_ur.ctx, 1, &ur.dev, &n, &bin, NULL, &p));
        URK(p_urProgramBuild(vf_ur.ctx, p, ""));
        ur_vf_finish(p, 1);
        free((void *)bin);
    } else {
        char cache[300];
        snprintf(cache, sizeof cache, "%s/sx-cache-0", tmpdir);
        sx_vf_first(cache); /* starts the clock after its context is made */
    }
    vf_contexts_release(side);
    return vf_wall;
}

typedef struct {
    const char *what;
    double (*run)(int side);  /* seconds per operation */
    int ops;                  /* operations in one run (for the CPU time) */
} bench_line;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Rounds of a line: UR_VS_SX_ROUNDS for the per-operation lines (a shared
 * machine needs many), UR_VS_SX_VF_ROUNDS for the first-launch lines (each
 * one a build). */
enum { MAX_ROUNDS = 2001 };
static int rounds = 15, op_rounds = 15, vf_rounds = 15;

/* CPU time of this thread: what each side itself costs, apart from the
 * waits on the driver's worker threads that make the wall times noisy on
 * a shared machine. */
static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_ratios(const char *what, const char *unit, double t[SIDES][MAX_ROUNDS], double scale)
{
    static double r_ur[MAX_ROUNDS], r_cl[MAX_ROUNDS];
    double m[SIDES];
    for (int r = 0; r < rounds; r++) {
        r_ur[r] = t[SX][r] / t[UR][r];
        r_cl[r] = t[SX][r] / t[RAW][r];
    }
    for (int s = 0; s < SIDES; s++)
        m[s] = median(t[s], rounds);
    double mu = median(r_ur, rounds), mc = median(r_cl, rounds);
    printf("%-30s %-4s OpenCL %9.2f  UR %9.2f  sx %9.2f %s   sx/UR %.3f [%.2f..%.2f]  "
           "sx/OpenCL %.3f [%.2f..%.2f]\n",
           what, unit, m[RAW] * scale, m[UR] * scale, m[SX] * scale, scale > 1e3 ? "us" : "ms",
           mu, r_ur[0], r_ur[rounds - 1], mc, r_cl[0], r_cl[rounds - 1]);
}

/* Rounds; each runs the three sides, in an order that rotates; wall time
 * per operation and this thread's CPU time per operation. */
static void measure(const bench_line *l)
{
    static double t[SIDES][MAX_ROUNDS], cpu[SIDES][MAX_ROUNDS];
    rounds = l->ops > 1 ? op_rounds : vf_rounds;
    vf_round = 0;
    for (int r = 0; r < rounds; r++) {
        /* All six orders in turn: each side follows each other side as
         * often (a rotation made one side always follow UR). */
        static const int order[6][SIDES] = {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {2, 1, 0}, {1, 0, 2}};
        for (int k = 0; k < SIDES; k++) {
            int side = order[r % 6][k];
            double c0 = thread_cpu();
            t[side][r] = l->run(side);
            /* a first launch times itself (vf_start, vf_stop) */
            cpu[side][r] = l->ops > 1 ? (thread_cpu() - c0) / l->ops : vf_cpu;
        }
        vf_round++;
    }
    double scale = l->ops > 1 ? 1e6 : 1e3;
    printf("%-30s (%d rounds)\n", l->what, rounds);
    print_ratios(l->what, "wall", t, scale);
    print_ratios("", "cpu", cpu, scale);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    /* ur-vs-sx [N] | ur-vs-sx --vf-cached DIR (the second process) */
    int cached = argc > 2 && strcmp(argv[1], "--vf-cached") == 0;
    if (argc > 1 && !cached)
        n_ops = atoi(argv[1]);
    if (n_ops < 1)
        DIE("usage: %s [operations per round]", argv[0]);
    if (getenv("UR_VS_SX_ROUNDS"))
        op_rounds = atoi(getenv("UR_VS_SX_ROUNDS"));
    if (getenv("UR_VS_SX_VF_ROUNDS"))
        vf_rounds = atoi(getenv("UR_VS_SX_VF_ROUNDS"));
    if (op_rounds < 1 || op_rounds > MAX_ROUNDS || vf_rounds < 1 || vf_rounds > MAX_ROUNDS)
        DIE("UR_VS_SX_ROUNDS and UR_VS_SX_VF_ROUNDS must be 1..%d", MAX_ROUNDS);
    const char *b = getenv("SX_TEST_BUILDDIR");
    if (b)
        build = b;
    char path[4096];
    snprintf(path, sizeof path, "%s/intel-opencl/vendors", build);
    setenv("OCL_ICD_VENDORS", path, 0);
    snprintf(path, sizeof path, "%s/adapters/opencl/.libs/sx-adapter-opencl.so", build);
    setenv("SX_ADAPTERS", path, 0);
    if (cached) {
        snprintf(tmpdir, sizeof tmpdir, "%s", argv[2]);
    } else {
        snprintf(tmpdir, sizeof tmpdir, "%s/ur-vs-sx.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(tmpdir))
            DIE("mkdtemp %s failed", tmpdir);
    }
    /* the launch lines' program goes into a cache of this run, not $HOME's */
    snprintf(path, sizeof path, "%s/sx-cache-main", tmpdir);
    setenv("SX_CACHE_DIR", path, 1);
    size_t size;
    unsigned char *spv = slurp("bench/kernels/ur-bench.spv", &size);
    vf_load();
    cl_setup(spv, size);
    ur_setup(spv, size);
    sx_setup();
    if (!cached) {
        printf("ur-vs-sx: %d operations per round, %d rounds (%d for first launches; all orders in turn), "
               "driver: OCL_ICD_VENDORS=%s\n", n_ops, op_rounds, vf_rounds, getenv("OCL_ICD_VENDORS"));
        const bench_line lines[] = {
            {"empty kernel launch + wait", launch_wait, n_ops},
            {"enqueue only (then finish)", enqueue_only, n_ops},
            {"device_global write 4 B", dg_write, n_ops},
            {"vf first launch, cold", vf_cold, 1},
        };
        /* UR_VS_SX_LINE=k: only line k (0-based), to look at one closely */
        const char *only = getenv("UR_VS_SX_LINE");
        for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
            if (!only || (size_t)atoi(only) == i)
                measure(&lines[i]);
        /* the cached line needs what the cold one saved */
        cached = !only || (size_t)atoi(only) == sizeof lines / sizeof lines[0] - 1 ? 0 : -1;
    } else {
        const bench_line cached_line = {"vf first launch, from cache", vf_cached, 1};
        measure(&cached_line);
    }
    sx_teardown();
    ur_teardown();
    cl_teardown();
    free(spv);
    for (int i = 0; i < VF_IMAGES; i++)
        free(vf_spv[i]);
    if (cached < 0) {
        snprintf(path, sizeof path, "rm -rf '%s'", tmpdir);
        if (system(path) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    } else if (!cached) {
        /* the second process: each side from its cache */
        fflush(stdout);
        char cmd[8192], self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0)
            DIE("readlink /proc/self/exe failed");
        self[n] = 0;
        snprintf(cmd, sizeof cmd, "'%s' --vf-cached '%s'", self, tmpdir);
        int rc = system(cmd);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
        if (rc != 0)
            DIE("the cached-launch process failed (%d)", rc);
    }
    return 0;
}
