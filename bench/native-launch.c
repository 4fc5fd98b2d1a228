/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-launch.c: launch overhead of the native adapter. An empty kernel
 * of one work-item, launched through sx_queue_launch, against calling the
 * same function of the same image through a prepared libffi interface
 * directly; prints launches per second and their ratio.
 *
 *   bench/native-launch [image.hso] [launches]
 * (make bench builds it with the test kernels and runs it.) */
#include <dlfcn.h>
#include <ffi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/sx.h>

#include "../tests/util/sxt.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#define CHECK(call)                                                                  \
    do {                                                                             \
        sx_result r_ = (call);                                                       \
        if (r_ != SX_SUCCESS) {                                                      \
            fprintf(stderr, "%s: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

/* ---- the adapter alone, as a module through its ABI (no core) */
static char fake_dispatch[8];
static void svc_log(sx_log_level level, const char *fmt, ...) {}
static sx_result svc_error(sx_result code, const char *fmt, ...) { return code; }
static const char *svc_getenv(const char *name) { return getenv(name); }

/* Launches per second through the module's kernel_launch; 0 if unavailable. */
static double adapter_rate(const void *bytes, size_t size, long n)
{
    const char *dir = getenv("SX_TEST_BUILDDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/adapters/native/.libs/sx-adapter-native.so", dir ? dir : ".");
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    sxa_get_proc_table_fn get = dl ? (sxa_get_proc_table_fn)dlsym(dl, SXA_ENTRY_SYMBOL) : NULL;
    if (!get)
        return 0;
    static const sxa_services svc = {sizeof(sxa_services), SXA_ABI_VERSION,
                                     (const struct sxa_dispatch *)fake_dispatch, svc_log, svc_error,
                                     svc_getenv};
    sxa_adapter_table A = {sizeof(A)};
    sxa_platform_table P = {sizeof(P)};
    sxa_device_table D = {sizeof(D)};
    sxa_context_table C = {sizeof(C)};
    sxa_queue_table Q = {sizeof(Q)};
    sxa_program_table PR = {sizeof(PR)};
    sxa_kernel_table K = {sizeof(K)};
    sxa_enqueue_table E = {sizeof(E)};
    get(SXA_ABI_VERSION, SXA_TABLE_ADAPTER, &A);
    get(SXA_ABI_VERSION, SXA_TABLE_PLATFORM, &P);
    get(SXA_ABI_VERSION, SXA_TABLE_DEVICE, &D);
    get(SXA_ABI_VERSION, SXA_TABLE_CONTEXT, &C);
    get(SXA_ABI_VERSION, SXA_TABLE_QUEUE, &Q);
    get(SXA_ABI_VERSION, SXA_TABLE_PROGRAM, &PR);
    get(SXA_ABI_VERSION, SXA_TABLE_KERNEL, &K);
    get(SXA_ABI_VERSION, SXA_TABLE_ENQUEUE, &E);
    sxa_adapter a;
    sxa_platform p;
    sxa_device d;
    sxa_context c;
    sxa_queue q;
    sxa_program prog;
    sxa_kernel k;
    sxa_kernel_signature sig = {"empty", 0, NULL};
    sxa_program_desc desc = {sizeof(desc), 1, &sig, NULL, NULL};
    if (A.init(&svc, &a) || P.get(a, 1, &p, NULL) || D.get(p, SX_DEVICE_TYPE_CPU, 1, &d, NULL) ||
        C.create(1, &d, &c) || Q.create(c, d, 0, &q) ||
        PR.create(c, d, SX_IMAGE_KIND_HOST_ELF, bytes, size, &desc, &prog) || PR.build(prog, NULL) ||
        K.create(prog, "empty", &k))
        return 0;
    size_t one = 1;
    for (long i = 0; i < n / 10; i++)
        E.kernel_launch(q, k, 1, NULL, &one, NULL, 0, NULL, 0, NULL, NULL);
    double t0 = now();
    for (long i = 0; i < n; i++)
        E.kernel_launch(q, k, 1, NULL, &one, NULL, 0, NULL, 0, NULL, NULL);
    double t = now() - t0;
    K.release(k);
    PR.release(prog);
    Q.release(q);
    C.release(c);
    A.fini(a);
    dlclose(dl);
    return (double)n / t;
}

int main(int argc, char **argv)
{
    char *path = argc > 1 ? strdup(argv[1]) : sxt_kernel_path("native-basic.hso");
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 2000000;
    if (!path || n <= 0) {
        fprintf(stderr, "usage: %s [native-basic.hso] [launches]\n"
                        "(or set SX_TEST_BUILDDIR to the build tree)\n", argv[0]);
        return 77;
    }
    size_t size;
    void *bytes = sxt_read_file(path, &size);
    if (!bytes) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }

    /* direct: the same image's function through a prepared cif */
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_LAZY);
    void (*fn)(void) = dl ? (void (*)(void))dlsym(dl, "empty") : NULL;
    if (!fn) {
        fprintf(stderr, "cannot load 'empty' from %s: %s\n", path, dlerror());
        return 1;
    }
    ffi_cif cif;
    if (ffi_prep_cif(&cif, FFI_DEFAULT_ABI, 0, &ffi_type_void, NULL) != FFI_OK)
        return 1;
    for (long i = 0; i < n / 10; i++)
        ffi_call(&cif, fn, NULL, NULL);
    double t0 = now();
    for (long i = 0; i < n; i++)
        ffi_call(&cif, fn, NULL, NULL);
    double t_ffi = now() - t0;

    /* through the API */
    CHECK(sx_init(SX_INIT_DEFAULT));
    sxt_image *im = sxt_image_new(SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE, bytes, size);
    if (!im || sxt_image_add_kernel(im, "empty", SX_KERNEL_KIND_SINGLE_TASK, 0, 0, 0, NULL, NULL))
        return 1;
    sx_device_binaries *bin = sxt_binaries(&im, 1);
    CHECK(sx_register_images(bin));
    sx_device dev = NULL;
    sx_device devs[16];
    uint32_t nd = 0;
    CHECK(sx_device_get(NULL, SX_DEVICE_TYPE_CPU, 16, devs, &nd));
    for (uint32_t i = 0; i < nd && i < 16; i++) {
        sx_backend b;
        CHECK(sx_device_get_info(devs[i], SX_DEVICE_INFO_BACKEND, sizeof(b), &b, NULL));
        if (b == SX_BACKEND_NATIVE)
            dev = devs[i];
    }
    if (!dev) {
        fprintf(stderr, "no native device\n");
        return 77;
    }
    sx_context ctx;
    sx_queue q;
    sx_kernel k;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    CHECK(sx_kernel_get("empty", &k));
    size_t one = 1;
    for (long i = 0; i < n / 10; i++)
        CHECK(sx_queue_launch(q, k, 1, NULL, &one, NULL, 0, NULL, 0, NULL, NULL));
    t0 = now();
    for (long i = 0; i < n; i++)
        CHECK(sx_queue_launch(q, k, 1, NULL, &one, NULL, 0, NULL, 0, NULL, NULL));
    double t_api = now() - t0;
    CHECK(sx_queue_wait(q));

    double r_ffi = (double)n / t_ffi, r_api = (double)n / t_api;
    double r_abi = adapter_rate(bytes, size, n);
    printf("native launch overhead: empty kernel, 1 work-item, %ld launches\n", n);
    printf("  ffi_call (prepared cif):  %12.0f launches/s  %8.1f ns each\n", r_ffi, 1e9 / r_ffi);
    if (r_abi > 0)
        printf("  adapter kernel_launch:    %12.0f launches/s  %8.1f ns each (module, no core)\n",
               r_abi, 1e9 / r_abi);
    printf("  sx_queue_launch:          %12.0f launches/s  %8.1f ns each\n", r_api, 1e9 / r_api);
    printf("  ratio ffi_call / sx_queue_launch: %.2f (API costs %.1f ns more per launch)\n",
           r_ffi / r_api, 1e9 / r_api - 1e9 / r_ffi);

    /* Work-groups with barriers (one fiber per work-item) and without. */
    char *bpath = sxt_kernel_path("native-barrier.hso");
    size_t bsize = 0;
    void *bbytes = bpath ? sxt_read_file(bpath, &bsize) : NULL;
    if (bbytes) {
        sxt_image *bim = sxt_image_new(SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE, bbytes, bsize);
        sxa_kernel_param rp[] = {SXT_PARAM_POINTER(), SXT_PARAM_POINTER(), SXT_PARAM_LOCAL()};
        if (!bim || sxt_image_add_kernel(bim, "reduce", SX_KERNEL_KIND_PLAIN, 0, 3, 3, rp, NULL))
            return 1;
        sx_device_binaries *bbin = sxt_binaries(&bim, 1);
        CHECK(sx_register_images(bbin));
        sx_kernel rk;
        CHECK(sx_kernel_get("reduce", &rk));
        size_t items = 1 << 20, wg = 256;
        int *in, *out;
        CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, items * sizeof(int), 0, (void **)&in));
        CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, items / wg * sizeof(int), 0, (void **)&out));
        for (size_t i = 0; i < items; i++)
            in[i] = 1;
        sx_arg ra[] = {{SX_ARG_POINTER, 0, sizeof(void *), in}, {SX_ARG_POINTER, 1, sizeof(void *), out},
                       {SX_ARG_LOCAL, 2, wg * sizeof(int), NULL}};
        CHECK(sx_queue_launch(q, rk, 1, NULL, &items, &wg, 3, ra, 0, NULL, NULL));
        int reps = 5;
        t0 = now();
        for (int i = 0; i < reps; i++)
            CHECK(sx_queue_launch(q, rk, 1, NULL, &items, &wg, 3, ra, 0, NULL, NULL));
        double t_red = (now() - t0) / reps;
        int ok = out[0] == (int)wg;
        /* 9 barriers per work-item (1 + log2 256) */
        printf("  barrier reduction: %zu work-items in groups of %zu: %.1f ms/launch, %.0f ns per "
               "work-item (%s)\n", items, wg, t_red * 1e3, t_red * 1e9 / (double)items,
               ok ? "checked" : "WRONG RESULT");
        CHECK(sx_usm_free(ctx, in));
        CHECK(sx_usm_free(ctx, out));
        CHECK(sx_kernel_release(rk));
        CHECK(sx_unregister_images(bbin));
        sxt_binaries_free(bbin);
        free(bbytes);
    }
    free(bpath);

    CHECK(sx_kernel_release(k));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_unregister_images(bin));
    CHECK(sx_fini());
    sxt_binaries_free(bin);
    dlclose(dl);
    free(bytes);
    free(path);
    return 0;
}
