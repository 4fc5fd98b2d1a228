/* bench-cuda-core.c: sx_queue_launch on the CUDA adapter against raw cuLaunchKernel, same stream and function. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sycl-ext/sx.h>

/* Internals, only to reach the very CUstream and CUfunction the launch uses. */
#include "sx-internal.h"
#include "sxc.h"

#include "cuda-image.h"

/* device globals of kernels.cu, as in test-cuda-core.c */
static struct {
    void *usm;
    int value[4];
} hg_usm;
static struct {
    int value[4];
} hg_scope;

#define ROUNDS 15
#define BATCH 2000
#define SMALL 200

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

static double median(double *v)
{
    qsort(v, ROUNDS, sizeof(double), cmp_d);
    return v[ROUNDS / 2];
}

#define OK(x)                                                                      \
    do {                                                                           \
        sx_result r_ = (x);                                                        \
        if (r_) {                                                                  \
            fprintf(stderr, "%s: %s [%s]\n", #x, sx_result_name(r_), sx_last_error()); \
            exit(1);                                                               \
        }                                                                          \
    } while (0)

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *b = getenv("SX_TEST_BUILDDIR");
    char path[4096];
    if (!getenv("SX_ADAPTERS")) {
        snprintf(path, sizeof(path), "%s/adapters/cuda/.libs/sx-adapter-cuda.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
    const char *data = getenv("SXC_TEST_DATA");
    char ptxpath[4096];
    snprintf(ptxpath, sizeof(ptxpath), "%s/kernels.ptx", data ? data : "tests/cuda");
    OK(sx_device_global_add(&hg_usm, "uid_usm", sizeof(hg_usm.value), 0, SX_HOST_ACCESS_READ_WRITE));
    OK(sx_device_global_add(&hg_scope, "dg_scope", sizeof(hg_scope.value), SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                            SX_HOST_ACCESS_READ_WRITE));
    OK(sx_init(0));
    sx_device dev;
    uint32_t nd = 0;
    if (sx_device_get(NULL, SX_DEVICE_TYPE_GPU, 1, &dev, &nd) != SX_SUCCESS || !nd) {
        printf("SKIP: no CUDA GPU\n");
        return 77;
    }
    FILE *f = fopen(ptxpath, "rb");
    if (!f) {
        printf("SKIP: no %s\n", ptxpath);
        return 77;
    }
    static char ptx[1 << 20];
    size_t n = fread(ptx, 1, sizeof(ptx), f);
    fclose(f);
    void *cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    __typeof__(cuLaunchKernel) *raw_launch = (__typeof__(raw_launch))dlsym(cu, "cuLaunchKernel");
    __typeof__(cuStreamSynchronize) *raw_sync = (__typeof__(raw_sync))dlsym(cu, "cuStreamSynchronize");

    char name[256];
    sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL);
    printf("GPU: %s (through libsycl-ext's core)\n", name);
    cuda_image ci;
    cuda_image_init(&ci, ptx, n);
    OK(sx_register_images(&ci.desc));
    sx_context ctx;
    sx_queue q;
    OK(sx_context_create(1, &dev, &ctx));
    OK(sx_queue_create(ctx, dev, 0, &q));
    if (getenv("SXC_TEST_VIRTUAL")) {
        /* linked program (virtual-functions resolver + cuLink*): first
         * launch, cached launch; run twice with one cache directory for the
         * second-process figure */
        char pa[4096], pb[4096];
        snprintf(pa, sizeof(pa), "%s/link_a.ptx", data ? data : "tests/cuda");
        snprintf(pb, sizeof(pb), "%s/link_b.ptx", data ? data : "tests/cuda");
        static char la[1 << 16], lb[1 << 16];
        FILE *fa = fopen(pa, "rb"), *fb = fopen(pb, "rb");
        if (!fa || !fb) {
            printf("no %s or %s\n", pa, pb);
            return 1;
        }
        size_t an = fread(la, 1, sizeof(la), fa), bn = fread(lb, 1, sizeof(lb), fb);
        fclose(fa);
        fclose(fb);
        static cuda_vf_images vf;
        cuda_vf_init(&vf, la, an, lb, bn);
        OK(sx_register_images(&vf.desc));
        sx_kernel kv;
        OK(sx_kernel_get("link_kernel", &kv));
        int *vo;
        OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, 32 * sizeof(int), 0, (void **)&vo));
        sx_arg va = {SX_ARG_POINTER, 0, sizeof(void *), vo};
        size_t g32 = 32;
        double v0 = now_s();
        OK(sx_queue_launch(q, kv, 1, NULL, &g32, &g32, 1, &va, 0, NULL, NULL));
        OK(sx_queue_wait(q));
        double v1 = now_s();
        OK(sx_queue_launch(q, kv, 1, NULL, &g32, &g32, 1, &va, 0, NULL, NULL));
        OK(sx_queue_wait(q));
        double v2 = now_s();
        printf("linked kernel (link_a + link_b through the resolver), this process (%s): first launch %.2f ms, "
               "second %.3f ms\n", getenv("SXC_BENCH_PASS") ? getenv("SXC_BENCH_PASS") : "1", (v1 - v0) * 1e3,
               (v2 - v1) * 1e3);
        sx_usm_free(ctx, vo);
        sx_kernel_release(kv);
        OK(sx_unregister_images(&vf.desc));
        if (getenv("SXC_BENCH_VF_ONLY")) {
            sx_queue_release(q);
            sx_context_release(ctx);
            sx_unregister_images(&ci.desc);
            sx_fini();
            return 0;
        }
    }
    sx_kernel k;
    OK(sx_kernel_get("empty_kernel", &k));
    size_t one = 1;
    double t0 = now_s();
    OK(sx_queue_launch(q, k, 1, NULL, &one, &one, 0, NULL, 0, NULL, NULL));
    OK(sx_queue_wait(q));
    double cold = now_s() - t0;
    t0 = now_s();
    OK(sx_queue_launch(q, k, 1, NULL, &one, &one, 0, NULL, 0, NULL, NULL));
    OK(sx_queue_wait(q));
    double cached = now_s() - t0;
    printf("first sx_queue_launch (program JIT/link + launch + wait): %.2f ms; second (cached): %.3f ms\n",
           cold * 1e3, cached * 1e3);

    CUstream stream = ((sxc_queue_t *)q->handle)->stream;
    sxi_kernel_slot *slot = atomic_load(&k->k->slots);
    CUfunction fn = ((sxc_kernel_t *)slot->handle)->fn;

    double raw[ROUNDS], sx[ROUNDS], raw_h[ROUNDS], sx_h[ROUNDS];
    for (int i = 0; i < BATCH; i++) {
        raw_launch(fn, 1, 1, 1, 1, 1, 1, 0, stream, NULL, NULL);
        sx_queue_launch(q, k, 1, NULL, &one, &one, 0, NULL, 0, NULL, NULL);
    }
    raw_sync(stream);
    for (int r = 0; r < ROUNDS; r++) {
        double s = now_s();
        for (int i = 0; i < BATCH; i++)
            raw_launch(fn, 1, 1, 1, 1, 1, 1, 0, stream, NULL, NULL);
        raw_sync(stream);
        raw[r] = BATCH / (now_s() - s);
        s = now_s();
        for (int i = 0; i < BATCH; i++)
            sx_queue_launch(q, k, 1, NULL, &one, &one, 0, NULL, 0, NULL, NULL);
        raw_sync(stream);
        sx[r] = BATCH / (now_s() - s);
        /* host cost alone: a batch short enough not to fill the launch queue */
        s = now_s();
        for (int i = 0; i < SMALL; i++)
            raw_launch(fn, 1, 1, 1, 1, 1, 1, 0, stream, NULL, NULL);
        raw_h[r] = SMALL / (now_s() - s);
        raw_sync(stream);
        s = now_s();
        for (int i = 0; i < SMALL; i++)
            sx_queue_launch(q, k, 1, NULL, &one, &one, 0, NULL, 0, NULL, NULL);
        sx_h[r] = SMALL / (now_s() - s);
        raw_sync(stream);
    }
    double mr = median(raw), ms = median(sx), mrh = median(raw_h), msh = median(sx_h);
    printf("empty kernel, launches/s (median of %d rounds):\n", ROUNDS);
    printf("  raw cuLaunchKernel, %d + sync      %10.0f\n", BATCH, mr);
    printf("  sx_queue_launch,    %d + sync      %10.0f   ratio sx/raw %.3f\n", BATCH, ms, ms / mr);
    printf("  raw cuLaunchKernel, %d enqueue only %10.0f  (%.2f us each)\n", SMALL, mrh, 1e6 / mrh);
    printf("  sx_queue_launch,    %d enqueue only %10.0f  (%.2f us each)   ratio sx/raw %.3f\n", SMALL,
           msh, 1e6 / msh, msh / mrh);

    /* device-global writes through the core vs cuMemcpyHtoD to the same place */
    __typeof__(cuMemcpyHtoD_v2) *raw_htod = (__typeof__(raw_htod))dlsym(cu, "cuMemcpyHtoD_v2");
    __typeof__(cuMemcpyDtoH_v2) *raw_dtoh = (__typeof__(raw_dtoh))dlsym(cu, "cuMemcpyDtoH_v2");
    __typeof__(cuModuleGetGlobal_v2) *raw_getglobal = (__typeof__(raw_getglobal))dlsym(cu, "cuModuleGetGlobal_v2");
    CUmodule mod = ((sxc_program_t *)slot->program->handle)->module;
    CUdeviceptr scope_ptr = 0, usm_var = 0, usm_inst = 0;
    size_t gs_ = 0;
    if (raw_getglobal(&scope_ptr, &gs_, mod, "dg_scope") || raw_getglobal(&usm_var, &gs_, mod, "dg_usm_ptr") ||
        raw_dtoh(&usm_inst, usm_var, sizeof(usm_inst))) {
        fprintf(stderr, "cannot find the device globals\n");
        return 1;
    }
    enum { WB = 1000 };
    double w_sx_s[ROUNDS], w_raw_s[ROUNDS], w_sx_u[ROUNDS], w_raw_u[ROUNDS];
    int v = 3;
    for (int r = 0; r < ROUNDS; r++) {
        double s = now_s();
        for (int i = 0; i < WB; i++)
            sx_queue_device_global_write(q, &hg_scope, &v, sizeof(v), 0, 1, 0, NULL, NULL);
        w_sx_s[r] = WB / (now_s() - s);
        s = now_s();
        for (int i = 0; i < WB; i++)
            raw_htod(scope_ptr, &v, sizeof(v));
        w_raw_s[r] = WB / (now_s() - s);
        s = now_s();
        for (int i = 0; i < WB; i++)
            sx_queue_device_global_write(q, &hg_usm, &v, sizeof(v), 0, 1, 0, NULL, NULL);
        w_sx_u[r] = WB / (now_s() - s);
        s = now_s();
        for (int i = 0; i < WB; i++)
            raw_htod(usm_inst, &v, sizeof(v));
        w_raw_u[r] = WB / (now_s() - s);
    }
    double a1 = median(w_sx_s), a2 = median(w_raw_s), a3 = median(w_sx_u), a4 = median(w_raw_u);
    printf("device_global writes of 4 bytes, blocking, per second (median of %d rounds of %d):\n", ROUNDS, WB);
    printf("  image scope (program variable): sx_queue_device_global_write %9.0f, cuMemcpyHtoD %9.0f, ratio %.3f\n",
           a1, a2, a1 / a2);
    printf("  USM instance:                   sx_queue_device_global_write %9.0f, cuMemcpyHtoD %9.0f, ratio %.3f\n",
           a3, a4, a3 / a4);

    OK(sx_kernel_release(k));
    OK(sx_queue_release(q));
    OK(sx_context_release(ctx));
    OK(sx_unregister_images(&ci.desc));
    OK(sx_fini());
    sx_device_global_remove(&hg_usm);
    sx_device_global_remove(&hg_scope);
    return 0;
}
