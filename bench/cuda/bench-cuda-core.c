/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
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
#include "../bench.h"

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
    /* Paired rounds, alternating; per-round time ratios ours/raw, their
     * median and range; every round's last value read back and checked. */
    __typeof__(cuMemcpyHtoDAsync_v2) *raw_htod_async =
        (__typeof__(raw_htod_async))dlsym(cu, "cuMemcpyHtoDAsync_v2");
    enum { WB = 500, WR = 31 };
    double rs[WR], ru[WR], rua[WR], rur[WR], t_s[2] = {0}, t_u[3] = {0}, t_r[2] = {0};
    for (int r = 0; r < WR; r++) {
        int v = 1000 + r, back = 0;
        double w0 = now_s();
        for (int i = 0; i < WB; i++)
            OK(sx_queue_device_global_write(q, &hg_scope, &v, sizeof(v), 0, 1, 0, NULL, NULL));
        double w1 = now_s();
        for (int i = 0; i < WB; i++)
            raw_htod(scope_ptr, &v, sizeof(v));
        double w2 = now_s();
        for (int i = 0; i < WB; i++)
            OK(sx_queue_device_global_write(q, &hg_usm, &v, sizeof(v), 0, 1, 0, NULL, NULL));
        double w3 = now_s();
        for (int i = 0; i < WB; i++)
            raw_htod(usm_inst, &v, sizeof(v));
        double w4 = now_s();
        for (int i = 0; i < WB; i++) {
            raw_htod_async(usm_inst, &v, sizeof(v), stream);
            raw_sync(stream);
        }
        double w5 = now_s();
        for (int i = 0; i < WB; i++)
            OK(sx_queue_device_global_read(q, &back, &hg_usm, sizeof(back), 0, 1, 0, NULL, NULL));
        double w6 = now_s();
        for (int i = 0; i < WB; i++)
            raw_dtoh(&back, usm_inst, sizeof(back));
        double w7 = now_s();
        int got_s = 0;
        raw_dtoh(&got_s, scope_ptr, sizeof(got_s));
        if (back != v || got_s != v) {
            fprintf(stderr, "device_global round %d: read %d and %d, want %d\n", r, back, got_s, v);
            return 1;
        }
        rs[r] = (w1 - w0) / (w2 - w1);
        ru[r] = (w3 - w2) / (w4 - w3);
        rua[r] = (w3 - w2) / (w5 - w4);
        rur[r] = (w6 - w5) / (w7 - w6);
        t_s[0] += w1 - w0, t_s[1] += w2 - w1;
        t_u[0] += w3 - w2, t_u[1] += w4 - w3, t_u[2] += w5 - w4;
        t_r[0] += w6 - w5, t_r[1] += w7 - w6;
    }
    double us = 1e6 / ((double)WB * WR);
    printf("device_global copies of 4 bytes, blocking (%d alternating rounds of %d; time ratios, lower is better):\n",
           WR, WB);
    printf("  write, image scope: sx %.2f us, cuMemcpyHtoD %.2f us;", t_s[0] * us, t_s[1] * us);
    bench_print_ratio("", rs, WR);
    printf("  write, USM instance: sx %.2f us, cuMemcpyHtoD %.2f us;", t_u[0] * us, t_u[1] * us);
    bench_print_ratio("", ru, WR);
    printf("  write, USM instance: sx %.2f us, HtoDAsync+StreamSynchronize on its stream %.2f us;", t_u[0] * us,
           t_u[2] * us);
    bench_print_ratio("", rua, WR);
    printf("  read,  USM instance: sx %.2f us, cuMemcpyDtoH %.2f us;", t_r[0] * us, t_r[1] * us);
    bench_print_ratio("", rur, WR);

    OK(sx_kernel_release(k));
    OK(sx_queue_release(q));
    OK(sx_context_release(ctx));
    OK(sx_unregister_images(&ci.desc));
    OK(sx_fini());
    sx_device_global_remove(&hg_usm);
    sx_device_global_remove(&hg_scope);
    return 0;
}
