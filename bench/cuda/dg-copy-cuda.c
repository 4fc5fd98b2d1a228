/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dg-copy-cuda.c: device_global copies through the core on the CUDA adapter
 * against the raw driver, and the driver's other ways to move 4 bytes, in
 * one process: alternating rounds (the order flips each round), per-round
 * time ratios against raw cuMemcpyHtoD / cuMemcpyDtoH of the same bytes,
 * median and range. Every round's values are checked, and a kernel reads
 * what the writes left (dg_bump adds 1 and 2, read back through the core).
 *
 *   dg-copy-cuda [COPIES-PER-ROUND] [ROUNDS]   (SX_TEST_BUILDDIR, SXC_TEST_DATA
 *                                               as for bench-cuda-core)
 * SX_CUDA_SMALL_WRITES=copy makes the adapter copy 1-4 byte writes instead
 * of writing them as memsets: run both to compare. Not in make check. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

/* Internals, only to reach the CUstream and CUmodule the core uses. */
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

#define CU(x)                                                                       \
    do {                                                                            \
        CUresult e_ = (x);                                                          \
        if (e_ != CUDA_SUCCESS) {                                                   \
            fprintf(stderr, "%s: CUresult %d\n", #x, (int)e_);                      \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

static struct {
    __typeof__(cuMemcpyHtoD_v2) *htod;
    __typeof__(cuMemcpyHtoD_v2) *htod_ptds;
    __typeof__(cuMemcpyDtoH_v2) *dtoh;
    __typeof__(cuMemcpyHtoDAsync_v2) *htod_async;
    __typeof__(cuStreamSynchronize) *sync;
    __typeof__(cuStreamQuery) *query;
    __typeof__(cuPointerGetAttribute) *attr;
    __typeof__(cuMemsetD32Async) *memset32;
    __typeof__(cuEventRecord) *record;
    __typeof__(cuEventSynchronize) *event_sync;
    __typeof__(cuEventCreate) *event_create;
    __typeof__(cuModuleGetGlobal_v2) *get_global;
} cu;

static CUstream stream;
static CUevent event;
static CUdeviceptr usm_inst, scope_ptr;
static sx_queue q;
static void *usm_plain; /* a 4-byte device USM allocation of our own */
static int value;       /* what this round writes */
static long n_ops = 1000;

typedef void (*way_fn)(void);
static void w_raw(void) { for (long i = 0; i < n_ops; i++) CU(cu.htod(usm_inst, &value, 4)); }
static void w_raw_scope(void) { for (long i = 0; i < n_ops; i++) CU(cu.htod(scope_ptr, &value, 4)); }
static void w_ptds(void) { for (long i = 0; i < n_ops; i++) CU(cu.htod_ptds(usm_inst, &value, 4)); }
static void w_async_sync(void)
{
    for (long i = 0; i < n_ops; i++) {
        CU(cu.htod_async(usm_inst, &value, 4, stream));
        CU(cu.sync(stream));
    }
}
static void w_async_event(void)
{
    for (long i = 0; i < n_ops; i++) {
        CU(cu.htod_async(usm_inst, &value, 4, stream));
        CU(cu.record(event, stream));
        CU(cu.event_sync(event));
    }
}
/* a memset after asking the driver whether the source is host memory */
static void w_attr_memset_sync(void)
{
    for (long i = 0; i < n_ops; i++) {
        unsigned mt = 0;
        if (cu.attr(&mt, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (CUdeviceptr)(uintptr_t)&value) != CUDA_ERROR_INVALID_VALUE)
            exit(1);
        CU(cu.memset32(usm_inst, (unsigned)value, 1, stream));
        CU(cu.sync(stream));
    }
}
static void w_spin(void)
{
    for (long i = 0; i < n_ops; i++) {
        CU(cu.memset32(usm_inst, (unsigned)value, 1, stream));
        CUresult r;
        while ((r = cu.query(stream)) == CUDA_ERROR_NOT_READY)
            ;
        CU(r);
    }
}
static void w_memset_sync(void)
{
    for (long i = 0; i < n_ops; i++) {
        CU(cu.memset32(usm_inst, (unsigned)value, 1, stream));
        CU(cu.sync(stream));
    }
}
/* The source on the caller's stack, as in `int v = ...; q.copy(&v, dg)`. */
static void w_sx_usm(void)
{
    int v = value;
    for (long i = 0; i < n_ops; i++)
        CHECK(sx_queue_device_global_write(q, &hg_usm, &v, 4, 0, 1, 0, NULL, NULL));
}
static void w_sx_scope(void)
{
    int v = value;
    for (long i = 0; i < n_ops; i++)
        CHECK(sx_queue_device_global_write(q, &hg_scope, &v, 4, 0, 1, 0, NULL, NULL));
}
/* The adapter's own blocking memcpy, past the core (the core's share is
 * the difference to w_sx_usm). */
static void w_adapter_usm(void)
{
    int v = value;
    for (long i = 0; i < n_ops; i++)
        if (q->adapter->dispatch.enqueue.usm_memcpy(q->handle, 1, (void *)(uintptr_t)usm_inst, &v, 4, 0, NULL, NULL) !=
            SX_SUCCESS)
            exit(1);
}
static void w_sx_memcpy(void)
{
    int v = value;
    for (long i = 0; i < n_ops; i++)
        CHECK(sx_queue_memcpy(q, 1, usm_plain, &v, 4, 0, NULL, NULL));
}
/* The source elsewhere (a global): the adapter copies. */
static void w_sx_usm_global(void)
{
    for (long i = 0; i < n_ops; i++)
        CHECK(sx_queue_device_global_write(q, &hg_usm, &value, 4, 0, 1, 0, NULL, NULL));
}
static int back;
static void r_raw(void) { for (long i = 0; i < n_ops; i++) CU(cu.dtoh(&back, usm_inst, 4)); }
static void r_sx_usm(void)
{
    for (long i = 0; i < n_ops; i++)
        CHECK(sx_queue_device_global_read(q, &back, &hg_usm, 4, 0, 1, 0, NULL, NULL));
}

typedef struct {
    const char *what;
    way_fn run;
    int ref; /* index of the raw way it is compared with, or -1 */
} way;

#define MAX_ROUNDS 201

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    n_ops = argc > 1 ? atol(argv[1]) : 1000;
    int rounds = argc > 2 ? atoi(argv[2]) : 31;
    if (n_ops < 1 || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: dg-copy-cuda [COPIES-PER-ROUND] [ROUNDS <= %d]\n", MAX_ROUNDS);
        return 2;
    }
    const char *b = getenv("SX_TEST_BUILDDIR");
    char path[4096];
    if (!getenv("SX_ADAPTERS")) {
        snprintf(path, sizeof(path), "%s/adapters/cuda/.libs/sx-adapter-cuda.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
    const char *data = getenv("SXC_TEST_DATA");
    snprintf(path, sizeof(path), "%s/kernels.ptx", data ? data : "tests/cuda");
    CHECK(sx_device_global_add(&hg_usm, "uid_usm", sizeof(hg_usm.value), 0, SX_HOST_ACCESS_READ_WRITE));
    CHECK(sx_device_global_add(&hg_scope, "dg_scope", sizeof(hg_scope.value), SX_DEVICE_GLOBAL_IMAGE_SCOPE,
                               SX_HOST_ACCESS_READ_WRITE));
    CHECK(sx_init(0));
    sx_device dev;
    uint32_t nd = 0;
    if (sx_device_get(NULL, SX_DEVICE_TYPE_GPU, 1, &dev, &nd) != SX_SUCCESS || !nd) {
        printf("SKIP: no CUDA GPU\n");
        return 77;
    }
    size_t n;
    static char ptx[1 << 20];
    FILE *f = fopen(path, "rb");
    if (!f || (n = fread(ptx, 1, sizeof(ptx), f)) == 0) {
        printf("SKIP: no %s\n", path);
        return 77;
    }
    fclose(f);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
#define SYM(field, name) cu.field = (__typeof__(cu.field))dlsym(lib, name)
    SYM(htod, "cuMemcpyHtoD_v2");
    SYM(htod_ptds, "cuMemcpyHtoD_v2_ptds");
    SYM(dtoh, "cuMemcpyDtoH_v2");
    SYM(htod_async, "cuMemcpyHtoDAsync_v2");
    SYM(sync, "cuStreamSynchronize");
    SYM(query, "cuStreamQuery");
    SYM(attr, "cuPointerGetAttribute");
    SYM(memset32, "cuMemsetD32Async");
    SYM(record, "cuEventRecord");
    SYM(event_sync, "cuEventSynchronize");
    SYM(event_create, "cuEventCreate");
    SYM(get_global, "cuModuleGetGlobal_v2");
    if (!cu.htod || !cu.dtoh || !cu.htod_async || !cu.sync || !cu.query || !cu.attr || !cu.memset32 ||
        !cu.record || !cu.event_sync || !cu.event_create || !cu.get_global) {
        fprintf(stderr, "libcuda.so.1 lacks an entry this bench calls\n");
        return 1;
    }
    char name[256];
    sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL);
    int drv = 0;
    __typeof__(cuDriverGetVersion) *version = (__typeof__(version))dlsym(lib, "cuDriverGetVersion");
    if (version)
        version(&drv);
    cuda_image ci;
    cuda_image_init(&ci, ptx, n);
    CHECK(sx_register_images(&ci.desc));
    sx_context ctx;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, 0, &q));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, 4, 0, &usm_plain));
    sx_kernel bump, rd;
    CHECK(sx_kernel_get("dg_bump", &bump));
    CHECK(sx_kernel_get("dg_read", &rd));
    size_t four = 4;
    CHECK(sx_queue_launch(q, bump, 1, NULL, &four, &four, 0, NULL, 0, NULL, NULL)); /* builds, binds */
    CHECK(sx_queue_wait(q));
    stream = ((sxc_queue_t *)q->handle)->stream;
    sxi_kernel_slot *slot = atomic_load(&bump->k->slots);
    CUmodule mod = ((sxc_program_t *)slot->program->handle)->module;
    CUdeviceptr usm_var = 0;
    size_t gs = 0;
    CU(cu.get_global(&scope_ptr, &gs, mod, "dg_scope"));
    CU(cu.get_global(&usm_var, &gs, mod, "dg_usm_ptr"));
    CU(cu.dtoh(&usm_inst, usm_var, sizeof(usm_inst)));
    CU(cu.event_create(&event, CU_EVENT_DISABLE_TIMING));

    const way ways[] = {
        {"raw cuMemcpyHtoD (legacy stream)", w_raw, -1},
        {"sx device_global write, USM instance", w_sx_usm, 0},
        {"raw cuMemcpyHtoD, to the image-scope variable", w_raw_scope, -1},
        {"sx device_global write, image scope", w_sx_scope, 2},
        {"sx_queue_memcpy 4 B to device USM", w_sx_memcpy, 0},
        {"sx device_global write, USM, from a global", w_sx_usm_global, 0},
        {"raw HtoDAsync + cuStreamSynchronize", w_async_sync, 0},
        {"raw HtoDAsync + cuEventRecord/Synchronize", w_async_event, 0},
        {"raw cuMemsetD32Async + cuStreamSynchronize", w_memset_sync, 0},
        {"raw cuPointerGetAttribute + that memset", w_attr_memset_sync, 0},
        {"raw cuMemsetD32Async + cuStreamQuery spin", w_spin, 0},
        {"adapter usm_memcpy, past the core", w_adapter_usm, 0},
        {"raw cuMemcpyHtoD_ptds (per-thread stream)", cu.htod_ptds ? w_ptds : NULL, 0},
        {"raw cuMemcpyDtoH", r_raw, -1},
        {"sx device_global read, USM instance", r_sx_usm, 13},
    };
    enum { NW = sizeof(ways) / sizeof(ways[0]) };
    static double t[NW][MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        value = 1000 + r;
        for (int k = 0; k < NW; k++) {
            int i = r % 2 ? NW - 1 - k : k;
            if (!ways[i].run)
                continue;
            double t0 = bench_now();
            ways[i].run();
            t[i][r] = bench_now() - t0;
        }
        /* the round's value everywhere, and a kernel that sees it */
        int got[2] = {0, 0}, want = value;
        CU(cu.dtoh(&got[0], usm_inst, 4));
        CU(cu.dtoh(&got[1], scope_ptr, 4));
        if (got[0] != want || got[1] != want || back != want) {
            fprintf(stderr, "round %d: read %d, %d and %d, want %d\n", r, got[0], got[1], back, want);
            return 1;
        }
        int nb = value; /* non-blocking, from the stack: the memset way */
        CHECK(sx_queue_device_global_write(q, &hg_usm, &nb, 4, 0, 0, 0, NULL, NULL));
        nb = -1;
        CHECK(sx_queue_launch(q, bump, 1, NULL, &four, &four, 0, NULL, 0, NULL, NULL));
        int u = 0, s = 0;
        CHECK(sx_queue_device_global_read(q, &u, &hg_usm, 4, 0, 1, 0, NULL, NULL));
        CHECK(sx_queue_device_global_read(q, &s, &hg_scope, 4, 0, 1, 0, NULL, NULL));
        if (u != want + 1 || s != want + 2) {
            fprintf(stderr, "round %d: the kernel saw %d and %d, want %d and %d\n", r, u - 1, s - 2, want, want);
            return 1;
        }
        int m = 0;
        CHECK(sx_queue_memcpy(q, 1, &m, usm_plain, 4, 0, NULL, NULL));
        if (m != want) {
            fprintf(stderr, "round %d: USM memcpy read %d, want %d\n", r, m, want);
            return 1;
        }
    }
    const char *small = getenv("SX_CUDA_SMALL_WRITES");
    printf("GPU: %s, driver %d.%d; 4-byte blocking copies, %d alternating rounds of %ld; adapter 1-4 byte "
           "writes as %s\n",
           name, drv / 1000, drv % 1000 / 10, rounds, n_ops,
           small && !strcmp(small, "copy") ? "copies (SX_CUDA_SMALL_WRITES=copy)" : "memsets");
    for (int i = 0; i < NW; i++) {
        if (!ways[i].run)
            continue;
        double per[MAX_ROUNDS], ratio[MAX_ROUNDS];
        for (int r = 0; r < rounds; r++) {
            per[r] = t[i][r] / n_ops * 1e6;
            if (ways[i].ref >= 0)
                ratio[r] = t[i][r] / t[ways[i].ref][r];
        }
        printf("  %-48s %7.2f us", ways[i].what, bench_median(per, rounds));
        if (ways[i].ref >= 0)
            bench_print_ratio(";", ratio, rounds);
        else
            printf("\n");
    }
    CHECK(sx_kernel_release(bump));
    CHECK(sx_kernel_release(rd));
    CHECK(sx_usm_free(ctx, usm_plain));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_unregister_images(&ci.desc));
    CHECK(sx_fini());
    CHECK(sx_device_global_remove(&hg_usm));
    CHECK(sx_device_global_remove(&hg_scope));
    return 0;
}
