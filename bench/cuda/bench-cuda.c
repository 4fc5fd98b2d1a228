/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench-cuda.c: CUDA adapter launch and device-global costs against the raw driver, same stream. */
#include <stdint.h>
#include <time.h>

#include "abi-util.h"
/* The adapter's internals, to reach the very stream and function it uses. */
#include "sxc.h"

#ifdef SXC_BENCH_CORE
#include <sycl-ext/sx.h>
#endif

static abi_tables T;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define ROUNDS 15
#define BATCH 2000
#define SMALL 200

/* Driver entry points, resolved by the bench itself. */
static __typeof__(cuLaunchKernel) *raw_launch;
static __typeof__(cuStreamSynchronize) *raw_sync;
static __typeof__(cuMemcpyHtoD_v2) *raw_htod;
static __typeof__(cuMemcpyHtoDAsync_v2) *raw_htod_async;
static __typeof__(cuCtxGetCurrent) *raw_getcur;
static __typeof__(cuEventCreate) *raw_evcreate;
static __typeof__(cuEventRecord) *raw_evrecord;
static __typeof__(cuEventDestroy_v2) *raw_evdestroy;

#define DIE(...)                                                                   \
    do {                                                                           \
        fprintf(stderr, __VA_ARGS__);                                              \
        fprintf(stderr, " [%s]\n", abi_last_error);                                \
        exit(1);                                                                   \
    } while (0)
#define OK(x)                                                                      \
    do {                                                                           \
        sx_result r_ = (x);                                                        \
        if (r_)                                                                    \
            DIE("%s: %d", #x, r_);                                                 \
    } while (0)

typedef struct {
    const char *name;
    double per_s[ROUNDS];
} series;

static double median(series *s)
{
    double v[ROUNDS];
    memcpy(v, s->per_s, sizeof(v));
    qsort(v, ROUNDS, sizeof(double), cmp_d);
    return v[ROUNDS / 2];
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (abi_load(&T) != 0)
        return 1;
    OK(T.adapter.init(&abi_services, &T.ad));
    uint32_t np = 0;
    T.platform.get(T.ad, 0, NULL, &np);
    if (!np) {
        char st[256] = "";
        T.adapter.get_info(T.ad, SXA_ADAPTER_INFO_STATUS, sizeof(st), st, NULL);
        printf("SKIP: no CUDA driver (%s)\n", st);
        return 77;
    }
    void *cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    raw_launch = (__typeof__(raw_launch))dlsym(cu, "cuLaunchKernel");
    raw_sync = (__typeof__(raw_sync))dlsym(cu, "cuStreamSynchronize");
    raw_htod = (__typeof__(raw_htod))dlsym(cu, "cuMemcpyHtoD_v2");
    raw_htod_async = (__typeof__(raw_htod_async))dlsym(cu, "cuMemcpyHtoDAsync_v2");
    raw_getcur = (__typeof__(raw_getcur))dlsym(cu, "cuCtxGetCurrent");
    raw_evcreate = (__typeof__(raw_evcreate))dlsym(cu, "cuEventCreate");
    raw_evrecord = (__typeof__(raw_evrecord))dlsym(cu, "cuEventRecord");
    raw_evdestroy = (__typeof__(raw_evdestroy))dlsym(cu, "cuEventDestroy_v2");

    sxa_platform pl;
    sxa_device dev;
    sxa_context ctx;
    sxa_queue q;
    OK(T.platform.get(T.ad, 1, &pl, NULL));
    OK(T.device.get(pl, SX_DEVICE_TYPE_GPU, 1, &dev, NULL));
    char devname[256];
    T.device.get_info(dev, SX_DEVICE_INFO_NAME, sizeof(devname), devname, NULL);
    char drv[64];
    T.device.get_info(dev, SX_DEVICE_INFO_DRIVER_VERSION, sizeof(drv), drv, NULL);
    printf("GPU: %s, driver %s\n", devname, drv);
    OK(T.context.create(1, &dev, &ctx));
    OK(T.queue.create(ctx, dev, 0, &q));
    CUstream stream = ((sxc_queue_t *)q)->stream;

    char path[4096];
    size_t sz;
    void *ptx = abi_read_file(abi_data_path("kernels.ptx", path, sizeof(path)), &sz);
    if (!ptx)
        return 1;
    sxa_program prog;
    double t0 = now_s();
    OK(T.program.create(ctx, dev, SX_IMAGE_KIND_PTX, ptx, sz, NULL, &prog));
    OK(T.program.build(prog, NULL));
    double cold = now_s() - t0;
    size_t bin_n = 0;
    sx_image_kind kind;
    OK(T.program.get_binary(prog, &kind, 0, NULL, &bin_n));
    void *bin = malloc(bin_n);
    OK(T.program.get_binary(prog, &kind, bin_n, bin, NULL));
    sxa_program prog2;
    t0 = now_s();
    OK(T.program.create(ctx, dev, SX_IMAGE_KIND_PTX, ptx, sz, NULL, &prog2));
    OK(T.program.build(prog2, NULL));
    double warm_jit = now_s() - t0;
    sxa_program prog3;
    sxa_kernel k3;
    t0 = now_s();
    OK(T.program.create(ctx, dev, SX_IMAGE_KIND_CUBIN, bin, bin_n, NULL, &prog3));
    OK(T.program.build(prog3, NULL));
    OK(T.kernel.create(prog3, "empty_kernel", &k3));
    size_t one = 1;
    OK(T.enqueue.kernel_launch(q, k3, 1, NULL, &one, &one, 0, NULL, 0, NULL, NULL));
    OK(T.queue.finish(q));
    double from_cubin = now_s() - t0;
    printf("program: PTX JIT+link (first in process) %.2f ms; PTX again (driver cache) %.2f ms; "
           "from linked cubin (get_binary) + kernel + first launch %.2f ms\n",
           cold * 1e3, warm_jit * 1e3, from_cubin * 1e3);
    T.kernel.release(k3);
    T.program.release(prog2);
    T.program.release(prog3);

    sxa_kernel ke, ka;
    OK(T.kernel.create(prog, "empty_kernel", &ke));
    OK(T.kernel.create(prog, "add_one", &ka));
    CUfunction fe = ((sxc_kernel_t *)ke)->fn, fa = ((sxc_kernel_t *)ka)->fn;
    int *dbuf;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, 1024 * sizeof(int), 0, (void **)&dbuf));
    int n = 32;

    /* warm up both paths */
    for (int i = 0; i < BATCH; i++) {
        raw_launch(fe, 1, 1, 1, 1, 1, 1, 0, stream, NULL, NULL);
        T.enqueue.kernel_launch(q, ke, 1, NULL, &one, &one, 0, NULL, 0, NULL, NULL);
    }
    raw_sync(stream);

    /* Rounds alternate between the paths so drift hits both alike. Each
     * round: BATCH launches, then a sync; launches/s over the whole. The
     * "enqueue" figure times the launch calls alone (host cost). */
    series raw_e = {"raw cuLaunchKernel, empty"}, sx_e = {"adapter kernel_launch, empty"};
    series raw_a = {"raw cuLaunchKernel, 2 args"}, sx_a = {"adapter kernel_launch, 2 args"};
    series raw_ev = {"raw launch + cuEventRecord"}, sx_ev = {"adapter launch + event + release"};
    CUevent rev;
    raw_evcreate(&rev, CU_EVENT_DISABLE_TIMING);
    series raw_eh = {"raw, 200 enqueued, no wait"}, sx_eh = {"adapter, 200 enqueued, no wait"};
    size_t g32 = 32;
    for (int r = 0; r < ROUNDS; r++) {
        double s = now_s();
        for (int i = 0; i < BATCH; i++)
            raw_launch(fe, 1, 1, 1, 1, 1, 1, 0, stream, NULL, NULL);
        raw_sync(stream);
        double e = now_s();
        raw_e.per_s[r] = BATCH / (e - s);

        s = now_s();
        for (int i = 0; i < BATCH; i++)
            T.enqueue.kernel_launch(q, ke, 1, NULL, &one, &one, 0, NULL, 0, NULL, NULL);
        raw_sync(stream);
        e = now_s();
        sx_e.per_s[r] = BATCH / (e - s);

        /* with an event per launch, as a SYCL queue returns one per submit */
        s = now_s();
        for (int i = 0; i < SMALL; i++) {
            raw_launch(fe, 1, 1, 1, 1, 1, 1, 0, stream, NULL, NULL);
            raw_evrecord(rev, stream);
        }
        raw_ev.per_s[r] = SMALL / (now_s() - s);
        raw_sync(stream);
        s = now_s();
        for (int i = 0; i < SMALL; i++) {
            sxa_event ev;
            T.enqueue.kernel_launch(q, ke, 1, NULL, &one, &one, 0, NULL, 0, NULL, &ev);
            T.event.release(ev);
        }
        sx_ev.per_s[r] = SMALL / (now_s() - s);
        raw_sync(stream);

        /* host cost alone: a batch short enough not to fill the launch queue */
        s = now_s();
        for (int i = 0; i < SMALL; i++)
            raw_launch(fe, 1, 1, 1, 1, 1, 1, 0, stream, NULL, NULL);
        raw_eh.per_s[r] = SMALL / (now_s() - s);
        raw_sync(stream);
        s = now_s();
        for (int i = 0; i < SMALL; i++)
            T.enqueue.kernel_launch(q, ke, 1, NULL, &one, &one, 0, NULL, 0, NULL, NULL);
        sx_eh.per_s[r] = SMALL / (now_s() - s);
        raw_sync(stream);

        void *pp = dbuf;
        void *params[2] = {&pp, &n};
        s = now_s();
        for (int i = 0; i < BATCH; i++)
            raw_launch(fa, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL);
        raw_sync(stream);
        e = now_s();
        raw_a.per_s[r] = BATCH / (e - s);

        sx_arg args[2] = {{SX_ARG_POINTER, 0, sizeof(void *), dbuf}, {SX_ARG_VALUE, 1, sizeof(n), &n}};
        s = now_s();
        for (int i = 0; i < BATCH; i++)
            T.enqueue.kernel_launch(q, ka, 1, NULL, &g32, &g32, 2, args, 0, NULL, NULL);
        raw_sync(stream);
        e = now_s();
        sx_a.per_s[r] = BATCH / (e - s);
    }
    printf("launches/s (median of %d rounds of %d, launch + sync):\n", ROUNDS, BATCH);
    printf("  %-34s %12.0f\n  %-34s %12.0f   ratio adapter/raw %.3f\n", raw_e.name, median(&raw_e),
           sx_e.name, median(&sx_e), median(&sx_e) / median(&raw_e));
    printf("  %-34s %12.0f\n  %-34s %12.0f   ratio adapter/raw %.3f\n", raw_a.name, median(&raw_a),
           sx_a.name, median(&sx_a), median(&sx_a) / median(&raw_a));
    printf("  %-34s %12.0f (%.2f us each)\n  %-34s %12.0f (%.2f us each)   ratio adapter/raw %.3f "
           "(host side only)\n",
           raw_eh.name, median(&raw_eh), 1e6 / median(&raw_eh), sx_eh.name, median(&sx_eh),
           1e6 / median(&sx_eh), median(&sx_eh) / median(&raw_eh));

    printf("  %-34s %12.0f (%.2f us each)\n  %-34s %12.0f (%.2f us each)   ratio adapter/raw %.3f "
           "(host side only)\n",
           raw_ev.name, median(&raw_ev), 1e6 / median(&raw_ev), sx_ev.name, median(&sx_ev),
           1e6 / median(&sx_ev), median(&sx_ev) / median(&raw_ev));
    raw_evdestroy(rev);

    /* the per-call current-context check */
    CUcontext cur;
    double s = now_s();
    for (int i = 0; i < 1000000; i++)
        raw_getcur(&cur);
    printf("cuCtxGetCurrent: %.1f ns per call (the adapter's per-call context check)\n",
           (now_s() - s) * 1e3);

    /* device-global write vs cuMemcpyHtoD to the same variable */
    size_t gsize;
    void *gptr;
    OK(T.program.get_global(prog, "dg_counter", &gsize, &gptr));
    int v = 5;
    series raw_w = {"raw cuMemcpyHtoD (sync)"}, sx_w = {"adapter global_write (blocking)"};
    series raw_ws = {"raw HtoDAsync + StreamSynchronize"};
    series raw_wa = {"raw cuMemcpyHtoDAsync"}, sx_wa = {"adapter global_write (non-blocking)"};
    enum { WB = 1000 };
    for (int r = 0; r < ROUNDS; r++) {
        s = now_s();
        for (int i = 0; i < WB; i++)
            raw_htod((CUdeviceptr)(uintptr_t)gptr, &v, sizeof(v));
        raw_w.per_s[r] = WB / (now_s() - s);
        s = now_s();
        for (int i = 0; i < WB; i++)
            T.enqueue.global_write(q, prog, "dg_counter", 1, sizeof(v), 0, &v, 0, NULL, NULL);
        sx_w.per_s[r] = WB / (now_s() - s);
        s = now_s();
        for (int i = 0; i < WB; i++) {
            raw_htod_async((CUdeviceptr)(uintptr_t)gptr, &v, sizeof(v), stream);
            raw_sync(stream);
        }
        raw_ws.per_s[r] = WB / (now_s() - s);
        s = now_s();
        for (int i = 0; i < WB; i++)
            raw_htod_async((CUdeviceptr)(uintptr_t)gptr, &v, sizeof(v), stream);
        raw_sync(stream);
        raw_wa.per_s[r] = WB / (now_s() - s);
        s = now_s();
        for (int i = 0; i < WB; i++)
            T.enqueue.global_write(q, prog, "dg_counter", 0, sizeof(v), 0, &v, 0, NULL, NULL);
        raw_sync(stream);
        sx_wa.per_s[r] = WB / (now_s() - s);
    }
    printf("device-global writes of 4 bytes per second (median of %d rounds of %d):\n", ROUNDS, WB);
    printf("  %-38s %10.0f\n  %-38s %10.0f   ratio %.3f\n", raw_w.name, median(&raw_w), sx_w.name,
           median(&sx_w), median(&sx_w) / median(&raw_w));
    printf("  %-38s %10.0f   (same stream as the adapter: ratio adapter/this %.3f)\n", raw_ws.name,
           median(&raw_ws), median(&sx_w) / median(&raw_ws));
    printf("  %-38s %10.0f\n  %-38s %10.0f   ratio %.3f\n", raw_wa.name, median(&raw_wa),
           sx_wa.name, median(&sx_wa), median(&sx_wa) / median(&raw_wa));

    T.usm.free(ctx, dbuf);
    T.kernel.release(ke);
    T.kernel.release(ka);
    T.program.release(prog);
    T.queue.release(q);
    T.context.release(ctx);
    T.adapter.fini(T.ad);
    free(bin);
    free(ptx);
    (void)argc;
    (void)argv;
    return 0;
}
