/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-cuda-core.c: the CUDA adapter under the core: registered PTX, sx_queue_launch, USM, events (skips without a GPU). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

#include "cuda-image.h"

static int failures, checks;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        checks++;                                                                  \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                            \
            printf(__VA_ARGS__);                                                   \
            printf(" [%s]\n", sx_last_error());                                    \
        }                                                                          \
    } while (0)
#define CHECK_RC(expr, want)                                                       \
    do {                                                                           \
        sx_result rc_ = (expr);                                                    \
        CHECK(rc_ == (want), "%s: %s, wanted %s", #expr, sx_result_name(rc_),      \
              sx_result_name(want));                                               \
    } while (0)
#define OK(expr) CHECK_RC(expr, SX_SUCCESS)

/* host objects of the two device globals (DPC++ layouts) */
static struct {
    void *usm;
    int value[4];
} hg_usm = {0, {1, 2, 3, 4}};
static struct {
    int value[4];
} hg_scope;

static sx_context ctx;
static sx_device dev;
static sx_queue q;

static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = n > 0 ? malloc((size_t)n) : NULL;
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
        free(p);
        p = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

typedef struct {
    sx_kernel k;
    unsigned long long *counter;
    unsigned long long add;
    sx_result rc;
} thr_arg;

static void *thr_main(void *p)
{
    thr_arg *a = p;
    size_t g = 32, l = 32;
    for (int i = 0; i < 300 && a->rc == SX_SUCCESS; i++) {
        sx_arg args[2] = {{SX_ARG_VALUE, 1, sizeof(a->add), &a->add},
                          {SX_ARG_POINTER, 0, sizeof(void *), a->counter}};
        a->rc = sx_queue_launch(q, a->k, 1, NULL, &g, &l, 2, args, 0, NULL, NULL);
    }
    return NULL;
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *b = getenv("SX_TEST_BUILDDIR");
    char path[4096], ptxpath[4096];
    if (!getenv("SX_ADAPTERS")) {
        snprintf(path, sizeof(path), "%s/adapters/cuda/.libs/sx-adapter-cuda.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
    const char *data = getenv("SXC_TEST_DATA");
    if (data)
        snprintf(ptxpath, sizeof(ptxpath), "%s/kernels.ptx", data);
    else
        snprintf(ptxpath, sizeof(ptxpath), "%s/tests/cuda/kernels.ptx", b ? b : ".");
    sx_result rc = sx_init(0);
    CHECK(rc == SX_SUCCESS, "sx_init: %s", sx_result_name(rc));
    if (rc)
        return 1;
    uint32_t na = 0;
    sx_adapter ad[8];
    sx_adapter_get(8, ad, &na);
    char status[256] = "";
    if (na)
        sx_adapter_get_info(ad[0], SX_ADAPTER_INFO_STATUS_TEXT, sizeof(status), status, NULL);
    size_t ptx_size = 0;
    void *ptx = read_file(ptxpath, &ptx_size);
    if (!ptx) {
        printf("SKIP: no test kernels at %s\n", ptxpath);
        sx_fini();
        return 77;
    }
    OK(sx_device_global_add(&hg_usm, "uid_usm", sizeof(hg_usm.value), 0, SX_HOST_ACCESS_READ_WRITE));
    OK(sx_device_global_add(&hg_scope, "dg_scope", sizeof(hg_scope.value), SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                            SX_HOST_ACCESS_READ_WRITE));
    /* The descriptor is checked whether or not a GPU is there. */
    cuda_image ci;
    cuda_image_init(&ci, ptx, ptx_size);
    OK(sx_register_images(&ci.desc));
    {
        /* the linking descriptor must register (a GPU or not) */
        char pa[4096], pb[4096];
        snprintf(pa, sizeof(pa), "%.4000s", ptxpath);
        snprintf(pb, sizeof(pb), "%.4000s", ptxpath);
        strcpy(strrchr(pa, '/') + 1, "link_a.ptx");
        strcpy(strrchr(pb, '/') + 1, "link_b.ptx");
        size_t an = 0, bn = 0;
        void *a = read_file(pa, &an), *bb = read_file(pb, &bn);
        if (a && bb) {
            cuda_vf_images vf;
            cuda_vf_init(&vf, a, an, bb, bn);
            OK(sx_register_images(&vf.desc));
            OK(sx_unregister_images(&vf.desc));
        }
        free(a);
        free(bb);
    }
    sx_kernel probe = NULL;
    OK(sx_kernel_get_free_function("ff_scale", &probe));
    if (probe)
        sx_kernel_release(probe);
    uint32_t nd = 0;
    if (sx_device_get(NULL, SX_DEVICE_TYPE_GPU, 1, &dev, &nd) != SX_SUCCESS || !nd) {
        printf("SKIP: no CUDA driver or GPU (%s)\n", status);
        sx_unregister_images(&ci.desc);
        sx_device_global_remove(&hg_usm);
        sx_device_global_remove(&hg_scope);
        sx_fini();
        free(ptx);
        return failures ? 1 : 77;
    }
    char name[256] = "";
    sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL);
    sx_backend be = 0;
    sx_device_get_info(dev, SX_DEVICE_INFO_BACKEND, sizeof(be), &be, NULL);
    printf("# %s (%s)\n", name, status);
    CHECK(be == SX_BACKEND_CUDA, "backend %u", be);
    int has = 0;
    OK(sx_device_has_aspect(dev, SX_ASPECT_FP64, &has));
    CHECK(has, "fp64");

    OK(sx_context_create(1, &dev, &ctx));
    OK(sx_queue_create(ctx, dev, SX_QUEUE_PROFILING, &q));

    sx_kernel k = NULL, kl = NULL, ka = NULL;
    OK(sx_kernel_get("add_one", &k));
    OK(sx_kernel_get("local_reverse", &kl));
    OK(sx_kernel_get("atomic_add", &ka));
    int compat = 0;
    OK(sx_kernel_is_compatible(k, dev, &compat));
    CHECK(compat, "add_one compatible with %s", name);
    uint32_t nargs = 0;
    OK(sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_BACKEND_ARGS, sizeof(nargs), &nargs, NULL));
    CHECK(nargs == 2, "add_one: %u args", nargs);

    enum { N = 1 << 14 };
    int *d = NULL;
    OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, N * sizeof(int), 0, (void **)&d));
    int zero = 0;
    OK(sx_queue_fill(q, d, &zero, sizeof(zero), N * sizeof(int), 0, NULL, NULL));
    int n = N;
    sx_arg args[2] = {{SX_ARG_POINTER, 0, sizeof(void *), d}, {SX_ARG_VALUE, 1, sizeof(n), &n}};
    size_t gs = N, ls = 256;
    sx_event ev = NULL;
    OK(sx_queue_launch(q, k, 1, NULL, &gs, &ls, 2, args, 0, NULL, &ev)); /* builds */
    OK(sx_queue_launch(q, k, 1, NULL, &gs, NULL, 2, args, 1, &ev, NULL));
    OK(sx_event_wait(1, &ev));
    uint64_t t0 = 0, t1 = 0;
    OK(sx_event_get_profiling(ev, SX_PROFILING_START, &t0));
    OK(sx_event_get_profiling(ev, SX_PROFILING_END, &t1));
    CHECK(t0 && t1 >= t0, "profiling %llu..%llu", (unsigned long long)t0, (unsigned long long)t1);
    OK(sx_event_release(ev));
    int *host = malloc(N * sizeof(int));
    OK(sx_queue_memcpy(q, 1, host, d, N * sizeof(int), 0, NULL, NULL));
    int good = 1;
    for (int i = 0; i < N; i++)
        good &= host[i] == 2;
    CHECK(good, "add_one twice through sx_queue_launch: host[0]=%d", host[0]);
    CHECK_RC(sx_queue_launch(q, k, 1, NULL, &gs, &ls, 1, args, 0, NULL, NULL),
             SX_ERROR_INVALID_KERNEL_ARGS);

    /* work-group memory through the core */
    int *in = NULL;
    OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(int), 0, (void **)&in));
    for (int i = 0; i < N; i++)
        in[i] = i;
    unsigned scratch = 60000;
    size_t wg = 128;
    sx_arg largs[5] = {
        {SX_ARG_LOCAL, 3, scratch, NULL},
        {SX_ARG_POINTER, 0, sizeof(void *), d},
        {SX_ARG_LOCAL, 2, wg * sizeof(int), NULL},
        {SX_ARG_VALUE, 4, sizeof(scratch), &scratch},
        {SX_ARG_POINTER, 1, sizeof(void *), in},
    };
    OK(sx_queue_launch(q, kl, 1, NULL, &gs, &wg, 5, largs, 0, NULL, NULL));
    OK(sx_queue_memcpy(q, 1, host, d, N * sizeof(int), 0, NULL, NULL));
    good = 1;
    for (int i = 0; i < N; i++)
        good &= host[i] == (i / 128) * 128 + 127 - i % 128;
    CHECK(good, "local_reverse through the core: host[0]=%d", host[0]);

    /* a free-function kernel: set_arg by source index, work_group_memory
     * and the scratch argument both become dynamic shared memory */
    sx_kernel kf = NULL;
    OK(sx_kernel_get_free_function("ff_scale", &kf));
    if (kf) {
        float *fin = NULL, *fout = NULL;
        OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&fin));
        OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(float), 0, (void **)&fout));
        for (int i = 0; i < N; i++)
            fin[i] = (float)i;
        sx_args fa = NULL;
        OK(sx_args_create(kf, &fa));
        float factor = 0.5f;
        size_t fwg = 64;
        OK(sx_args_set_pointer(fa, 0, fout));
        OK(sx_args_set_pointer(fa, 1, fin));
        OK(sx_args_set_local(fa, 2, fwg * sizeof(float)));
        OK(sx_args_set(fa, 3, sizeof(factor), &factor));
        sx_launch_properties props = {sizeof(props), 0, fwg * sizeof(unsigned)};
        /* no scratch size: refused by the core before the adapter sees it */
        rc = sx_nd_launch(q, fa, 1, &gs, &fwg, NULL, 0, NULL, NULL);
        CHECK(rc != SX_SUCCESS && strstr(sx_last_error(), "scratch"), "launch without scratch size: %s",
              sx_result_name(rc));
        OK(sx_nd_launch(q, fa, 1, &gs, &fwg, &props, 0, NULL, NULL));
        OK(sx_queue_wait(q));
        good = 1;
        for (int i = 0; i < N; i++)
            good &= fout[i] == (float)((i / 64) * 64 + 63 - i % 64) * 0.5f;
        CHECK(good, "ff_scale through sx_nd_launch: out[0]=%g", fout[0]);
        OK(sx_args_release(fa));
        OK(sx_kernel_release(kf));
        OK(sx_usm_free(ctx, fin));
        OK(sx_usm_free(ctx, fout));
    }

    /* device globals: the USM kind (address written into the program by
     * the core through global_write) and the image-scope kind (the program
     * variable itself, by name) */
    sx_kernel kr = NULL, kb = NULL;
    OK(sx_kernel_get("dg_read", &kr));
    OK(sx_kernel_get("dg_bump", &kb));
    int *dout = NULL;
    OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 8 * sizeof(int), 0, (void **)&dout));
    if (kr && kb && dout) {
        size_t g4 = 4;
        sx_arg da = {SX_ARG_POINTER, 0, sizeof(void *), dout};
        OK(sx_queue_launch(q, kr, 1, NULL, &g4, &g4, 1, &da, 0, NULL, NULL));
        OK(sx_queue_wait(q));
        CHECK(dout[0] == 1 && dout[3] == 4, "initial value of uid_usm: %d %d", dout[0], dout[3]);
        int a[4] = {10, 20, 30, 40}, s4[4] = {5, 6, 7, 8};
        OK(sx_queue_device_global_write(q, &hg_usm, a, sizeof(a), 0, 1, 0, NULL, NULL));
        OK(sx_queue_device_global_write(q, &hg_scope, s4, sizeof(s4), 0, 1, 0, NULL, NULL));
        OK(sx_queue_launch(q, kb, 1, NULL, &g4, &g4, 0, NULL, 0, NULL, NULL));
        OK(sx_queue_launch(q, kr, 1, NULL, &g4, &g4, 1, &da, 0, NULL, NULL));
        OK(sx_queue_wait(q));
        static const int want[8] = {11, 21, 31, 41, 7, 8, 9, 10};
        CHECK(!memcmp(dout, want, sizeof(want)), "device globals seen by a kernel: %d %d %d %d / %d %d %d %d",
              dout[0], dout[1], dout[2], dout[3], dout[4], dout[5], dout[6], dout[7]);
        int back[3] = {0};
        OK(sx_queue_device_global_read(q, back, &hg_usm, sizeof(back), sizeof(int), 1, 0, NULL, NULL));
        CHECK(back[0] == 21 && back[2] == 41, "read uid_usm at offset 4: %d %d %d", back[0], back[1], back[2]);
        OK(sx_queue_device_global_read(q, back, &hg_scope, sizeof(back), sizeof(int), 1, 0, NULL, NULL));
        CHECK(back[0] == 8 && back[2] == 10, "read dg_scope at offset 4: %d %d %d", back[0], back[1], back[2]);
        CHECK_RC(sx_queue_device_global_write(q, &hg_scope, a, sizeof(a), 8, 1, 0, NULL, NULL),
                 SX_ERROR_INVALID_VALUE);
        CHECK_RC(sx_queue_device_global_write(q, &hg_usm, a, sizeof(a), 8, 1, 0, NULL, NULL),
                 SX_ERROR_INVALID_VALUE);
        /* 4- and 8-byte writes (the adapter writes 4 bytes as a memset,
         * unless SX_CUDA_SMALL_WRITES=copy), blocking and not, from the stack, from
         * pinned host memory and from device USM (which the host cannot
         * read: it must take the copy way): a kernel sees them all. */
        int v4 = 100, v8[2] = {200, 300}, *dsrc = NULL, *hsrc = NULL;
        OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, 2 * sizeof(int), 0, (void **)&dsrc));
        OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_HOST, 2 * sizeof(int), 0, (void **)&hsrc));
        if (dsrc && hsrc) {
            int d2[2] = {400, 500};
            OK(sx_queue_memcpy(q, 1, dsrc, d2, sizeof(d2), 0, NULL, NULL));
            hsrc[0] = 600;
            OK(sx_queue_device_global_write(q, &hg_usm, &v4, 4, 0, 1, 0, NULL, NULL));
            OK(sx_queue_device_global_write(q, &hg_usm, v8, 8, 8, 0, 0, NULL, NULL));
            v8[0] = v8[1] = -1; /* the non-blocking write took the values already */
            OK(sx_queue_device_global_write(q, &hg_scope, dsrc, 8, 0, 1, 0, NULL, NULL));
            OK(sx_queue_device_global_write(q, &hg_scope, hsrc, 4, 8, 0, 0, NULL, NULL));
            OK(sx_queue_device_global_write(q, &hg_scope, &v4, 4, 12, 0, 0, NULL, NULL));
            OK(sx_queue_launch(q, kr, 1, NULL, &g4, &g4, 1, &da, 0, NULL, NULL));
            OK(sx_queue_wait(q));
            static const int want2[8] = {100, 21, 200, 300, 400, 500, 600, 100};
            CHECK(!memcmp(dout, want2, sizeof(want2)),
                  "4- and 8-byte device-global writes seen by a kernel: %d %d %d %d / %d %d %d %d", dout[0],
                  dout[1], dout[2], dout[3], dout[4], dout[5], dout[6], dout[7]);
            /* and a plain USM memcpy of 4 and 8 bytes to device memory */
            int m8[2] = {7, 9}, mb[2] = {0, 0};
            OK(sx_queue_memcpy(q, 0, dsrc, m8, 8, 0, NULL, NULL));
            m8[0] = m8[1] = -1;
            OK(sx_queue_memcpy(q, 1, dsrc, &v4, 4, 0, NULL, NULL));
            OK(sx_queue_memcpy(q, 1, mb, dsrc, 8, 0, NULL, NULL));
            CHECK(mb[0] == 100 && mb[1] == 9, "USM memcpy of 8 then 4 bytes read back %d %d", mb[0], mb[1]);
        }
        OK(sx_usm_free(ctx, dsrc));
        OK(sx_usm_free(ctx, hsrc));
    }
    OK(sx_usm_free(ctx, dout));
    OK(sx_kernel_release(kr));
    OK(sx_kernel_release(kb));

    /* virtual functions: the core's resolver links link_a (calls "vf_set")
     * with link_b (provides it) through the adapter's compile + link. Only
     * where the core has the resolver (gpu-run.sh sets SXC_TEST_VIRTUAL). */
    if (getenv("SXC_TEST_VIRTUAL")) {
        char pa[4096], pb[4096];
        snprintf(pa, sizeof(pa), "%.4000s", ptxpath);
        snprintf(pb, sizeof(pb), "%.4000s", ptxpath);
        strcpy(strrchr(pa, '/') + 1, "link_a.ptx");
        strcpy(strrchr(pb, '/') + 1, "link_b.ptx");
        size_t an = 0, bn = 0;
        void *a = read_file(pa, &an), *bb = read_file(pb, &bn);
        CHECK(a && bb, "link test data %s, %s", pa, pb);
        cuda_vf_images vf;
        if (a && bb) {
            cuda_vf_init(&vf, a, an, bb, bn);
            OK(sx_register_images(&vf.desc));
            sx_kernel kv = NULL;
            OK(sx_kernel_get("link_kernel", &kv));
            int *vo = NULL;
            OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 32 * sizeof(int), 0, (void **)&vo));
            sx_arg va = {SX_ARG_POINTER, 0, sizeof(void *), vo};
            size_t g32 = 32;
            for (int round = 0; round < 2 && kv && vo; round++) {
                memset(vo, 0, 32 * sizeof(int));
                OK(sx_queue_launch(q, kv, 1, NULL, &g32, &g32, 1, &va, 0, NULL, NULL));
                OK(sx_queue_wait(q));
                good = 1;
                for (int i = 0; i < 32; i++)
                    good &= vo[i] == 3 * i + 1;
                CHECK(good, "linked kernel (round %d): vo[1]=%d", round, vo[1]);
            }
            OK(sx_usm_free(ctx, vo));
            OK(sx_kernel_release(kv));
            OK(sx_unregister_images(&vf.desc));
        }
        free(a);
        free(bb);
    }

    /* one kernel, many threads */
    enum { NT = 6 };
    unsigned long long *c = NULL;
    OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, NT * sizeof(*c), 0, (void **)&c));
    OK(sx_queue_fill(q, c, &zero, sizeof(zero), NT * sizeof(*c), 0, NULL, NULL));
    OK(sx_queue_wait(q));
    pthread_t th[NT];
    thr_arg ta[NT];
    for (int i = 0; i < NT; i++) {
        ta[i] = (thr_arg){ka, c + i, (unsigned long long)i + 1, SX_SUCCESS};
        pthread_create(&th[i], NULL, thr_main, &ta[i]);
    }
    for (int i = 0; i < NT; i++) {
        pthread_join(th[i], NULL);
        CHECK(ta[i].rc == SX_SUCCESS, "thread %d: %s", i, sx_result_name(ta[i].rc));
    }
    unsigned long long hc[NT];
    OK(sx_queue_memcpy(q, 1, hc, c, sizeof(hc), 0, NULL, NULL));
    for (int i = 0; i < NT; i++)
        CHECK(hc[i] == 300ull * 32 * (i + 1), "thread %d: %llu", i, hc[i]);

    OK(sx_usm_free(ctx, c));
    OK(sx_usm_free(ctx, in));
    OK(sx_usm_free(ctx, d));
    OK(sx_kernel_release(k));
    OK(sx_kernel_release(kl));
    OK(sx_kernel_release(ka));
    OK(sx_queue_release(q));
    OK(sx_context_release(ctx));
    OK(sx_unregister_images(&ci.desc));
    OK(sx_fini());
    OK(sx_device_global_remove(&hg_usm));
    OK(sx_device_global_remove(&hg_scope));
    free(host);
    free(ptx);
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
