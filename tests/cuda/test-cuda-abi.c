/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-cuda-abi.c: the CUDA adapter through the adapter ABI alone, on a real GPU (skips without one). */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "abi-util.h"

static abi_tables T;
static int failures, checks;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        checks++;                                                                  \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                            \
            printf(__VA_ARGS__);                                                   \
            printf(" [last error: %s]\n", abi_last_error);                         \
        }                                                                          \
    } while (0)
#define CHECK_RC(expr, want)                                                       \
    do {                                                                           \
        sx_result rc_ = (expr);                                                    \
        CHECK(rc_ == (want), "%s returned %d, wanted %d", #expr, (int)rc_, (int)(want)); \
    } while (0)
#define OK(expr) CHECK_RC(expr, SX_SUCCESS)

static sxa_device dev;
static sxa_context ctx;
static sxa_queue q;

static sxa_program build_file(const char *name, sx_image_kind kind)
{
    char path[4096];
    size_t size;
    void *data = abi_read_file(abi_data_path(name, path, sizeof(path)), &size);
    if (!data) {
        CHECK(0, "test data %s missing", path);
        return NULL;
    }
    sxa_program p = NULL;
    sx_result rc = T.program.create(ctx, dev, kind, data, size, NULL, &p);
    free(data);
    CHECK(rc == SX_SUCCESS, "program create from %s: %d", name, rc);
    if (rc)
        return NULL;
    rc = T.program.build(p, NULL);
    CHECK(rc == SX_SUCCESS, "build of %s: %d", name, rc);
    if (rc) {
        T.program.release(p);
        return NULL;
    }
    return p;
}

static sxa_program object_file(const char *name, sx_image_kind kind)
{
    char path[4096];
    size_t size;
    void *data = abi_read_file(abi_data_path(name, path, sizeof(path)), &size);
    if (!data) {
        CHECK(0, "test data %s missing", path);
        return NULL;
    }
    sxa_program p = NULL;
    OK(T.program.create(ctx, dev, kind, data, size, NULL, &p));
    free(data);
    if (p)
        OK(T.program.compile(p, NULL));
    return p;
}

static void test_info(void)
{
    char name[256] = "";
    OK(T.device.get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    sx_aspect_set asp = 0;
    OK(T.device.get_info(dev, SX_DEVICE_INFO_ASPECTS, sizeof(asp), &asp, NULL));
    size_t wg = 0, items[3] = {0};
    uint64_t lmem = 0, gmem = 0;
    uint32_t cus = 0, nonuni = 7;
    OK(T.device.get_info(dev, SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
    OK(T.device.get_info(dev, SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES, sizeof(items), items, NULL));
    OK(T.device.get_info(dev, SX_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof(lmem), &lmem, NULL));
    OK(T.device.get_info(dev, SX_DEVICE_INFO_GLOBAL_MEM_SIZE, sizeof(gmem), &gmem, NULL));
    OK(T.device.get_info(dev, SX_DEVICE_INFO_MAX_COMPUTE_UNITS, sizeof(cus), &cus, NULL));
    OK(T.device.get_info(dev, SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS, sizeof(nonuni), &nonuni, NULL));
    size_t n = 0;
    OK(T.device.get_info(dev, SX_DEVICE_INFO_IMAGE_KINDS, 0, NULL, &n));
    sx_image_kind kinds[4] = {0};
    CHECK(n == 2 * sizeof(sx_image_kind), "image kinds size %zu", n);
    OK(T.device.get_info(dev, SX_DEVICE_INFO_IMAGE_KINDS, sizeof(kinds), kinds, NULL));
    CHECK(kinds[0] == SX_IMAGE_KIND_CUBIN && kinds[1] == SX_IMAGE_KIND_PTX, "image kinds %u %u",
          kinds[0], kinds[1]);
    char drv[64] = "";
    OK(T.device.get_info(dev, SX_DEVICE_INFO_DRIVER_VERSION, sizeof(drv), drv, NULL));
    printf("# device: %s, driver %s, %u SMs, %zu threads/block (%zu,%zu,%zu), %llu B local, %llu MiB\n",
           name, drv, cus, wg, items[0], items[1], items[2], (unsigned long long)lmem,
           (unsigned long long)(gmem >> 20));
    printf("# aspects: 0x%llx\n", (unsigned long long)asp);
    CHECK(wg >= 1024 && lmem >= 48 * 1024 && cus > 0 && gmem > 0, "limits");
    CHECK(nonuni == 0, "non-uniform groups %u", nonuni);
    CHECK(asp & SX_ASPECT_BIT(SX_ASPECT_GPU), "gpu aspect");
    CHECK(asp & SX_ASPECT_BIT(SX_ASPECT_FP64), "fp64 aspect");
    CHECK(asp & SX_ASPECT_BIT(SX_ASPECT_FP16), "fp16 aspect");
    CHECK(asp & SX_ASPECT_BIT(SX_ASPECT_ATOMIC64), "atomic64 aspect");
    CHECK(asp & SX_ASPECT_BIT(SX_ASPECT_USM_DEVICE_ALLOCATIONS), "usm device aspect");
    CHECK(asp & SX_ASPECT_BIT(SX_ASPECT_USM_SHARED_ALLOCATIONS), "usm shared aspect");
    sxa_platform pl = NULL;
    OK(T.device.get_info(dev, SX_DEVICE_INFO_PLATFORM, sizeof(pl), &pl, NULL));
    sx_backend b = 0;
    OK(T.platform.get_info(pl, SX_PLATFORM_INFO_BACKEND, sizeof(b), &b, NULL));
    CHECK(b == SX_BACKEND_CUDA, "backend %u", b);
    CHECK_RC(T.device.get_info(dev, 9999, sizeof(b), &b, NULL), SX_ERROR_INVALID_ENUMERATION);
}

static const char pat3[3] = {1, 2, 3};

static void test_usm(void)
{
    enum { N = 1 << 20 };
    void *d = NULL, *h = NULL, *s = NULL;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, N, 0, &d));
    OK(T.usm.alloc(ctx, NULL, SX_USM_TYPE_HOST, N, 0, &h));
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_SHARED, N, 0, &s));
    CHECK(d && h && s, "allocations");
    CHECK_RC(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, 0, 0, &d), SX_ERROR_INVALID_SIZE);
    /* Never more managed memory than is free: refused before the driver sees it. */
    void *huge = NULL;
    CHECK_RC(T.usm.alloc(ctx, dev, SX_USM_TYPE_SHARED, (size_t)1 << 50, 0, &huge),
             SX_ERROR_OUT_OF_DEVICE_MEMORY);
    if (!d || !h || !s)
        return;
    unsigned char *src = malloc(N), *dst = malloc(N);
    for (size_t i = 0; i < N; i++)
        src[i] = (unsigned char)(i * 7 + 3);
    /* pageable -> device -> shared -> host(pinned) -> pageable */
    OK(T.enqueue.usm_memcpy(q, 0, d, src, N, 0, NULL, NULL));
    OK(T.enqueue.usm_memcpy(q, 0, s, d, N, 0, NULL, NULL));
    OK(T.enqueue.usm_memcpy(q, 0, h, s, N, 0, NULL, NULL));
    OK(T.enqueue.usm_memcpy(q, 1, dst, h, N, 0, NULL, NULL));
    CHECK(!memcmp(src, dst, N), "memcpy round trip");

    /* fills of every pattern width, aligned and not */
    static const size_t widths[] = {1, 2, 4, 8, 16, 32, 64, 128};
    for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
        for (size_t misalign = 0; misalign < 2; misalign++) {
            size_t ps = widths[w];
            size_t off = misalign ? ps + 1 : 0;
            if (misalign && ps == 1)
                off = 3;
            size_t len = ps * 1000;
            unsigned char pat[128];
            for (size_t i = 0; i < ps; i++)
                pat[i] = (unsigned char)(0x11 * (i + 1) + w);
            OK(T.enqueue.usm_fill(q, d, 1, "\xee", N, 0, NULL, NULL));
            sx_result rc = T.enqueue.usm_fill(q, (char *)d + off, ps, pat, len, 0, NULL, NULL);
            CHECK(rc == SX_SUCCESS, "fill width %zu offset %zu: %d", ps, off, rc);
            OK(T.enqueue.usm_memcpy(q, 1, dst, d, off + len + 16, 0, NULL, NULL));
            int good = 1;
            for (size_t i = 0; i < off; i++)
                good &= dst[i] == 0xee;
            for (size_t i = 0; i < len; i++)
                good &= dst[off + i] == pat[i % ps];
            for (size_t i = 0; i < 16; i++)
                good &= dst[off + len + i] == 0xee;
            CHECK(good, "fill width %zu offset %zu content", ps, off);
        }
    }
    /* a repeating 8-byte pattern (narrowed to one memset) */
    uint64_t rep = 0x0102030401020304ull;
    OK(T.enqueue.usm_fill(q, d, 8, &rep, 4096, 0, NULL, NULL));
    OK(T.enqueue.usm_memcpy(q, 1, dst, d, 4096, 0, NULL, NULL));
    CHECK(!memcmp(dst, &rep, 8) && !memcmp(dst + 4088, &rep, 8), "repeating pattern");
    CHECK_RC(T.enqueue.usm_fill(q, d, 3, pat3, 9, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CHECK_RC(T.enqueue.usm_fill(q, d, 4, &rep, 10, 0, NULL, NULL), SX_ERROR_INVALID_SIZE);
    /* host USM: filled by the device, read on the host */
    OK(T.enqueue.usm_fill(q, h, 8, "\x10\x20\x30\x40\x50\x60\x70\x80", 4096, 0, NULL, NULL));
    OK(T.queue.finish(q));
    CHECK(((unsigned char *)h)[4093] == 0x60, "fill of host USM: %#x", ((unsigned char *)h)[4093]);
    /* shared memory is host-visible */
    OK(T.enqueue.usm_fill(q, s, 4, "\x01\x02\x03\x04", 64, 0, NULL, NULL));
    OK(T.queue.finish(q));
    CHECK(((unsigned char *)s)[5] == 0x02, "shared memory visible on host");

    OK(T.usm.free(ctx, d));
    OK(T.usm.free(ctx, h));
    OK(T.usm.free(ctx, s));
    int local;
    CHECK_RC(T.usm.free(ctx, &local), SX_ERROR_INVALID_VALUE);
    free(src);
    free(dst);
}
static void test_kernels(sxa_program p)
{
    sxa_kernel k = NULL, bad = NULL;
    CHECK_RC(T.kernel.create(p, "no_such_kernel", &bad), SX_ERROR_INVALID_KERNEL_NAME);
    CHECK(strstr(abi_last_error, "CUDA_ERROR_NOT_FOUND") != NULL, "error names the CUresult: %s",
          abi_last_error);
    OK(T.kernel.create(p, "add_one", &k));
    if (!k)
        return;
    uint32_t nargs = 0;
    OK(T.kernel.get_info(k, SXA_KERNEL_INFO_NUM_ARGS, sizeof(nargs), &nargs, NULL));
    CHECK(nargs == 2, "add_one has %u args", nargs);
    size_t kwg = 0;
    OK(T.kernel.get_info(k, SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE, sizeof(kwg), &kwg, NULL));
    CHECK(kwg >= 256, "kernel work-group limit %zu", kwg);

    enum { N = 4096 };
    int *d = NULL;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, N * sizeof(int), 0, (void **)&d));
    int host[N];
    for (int i = 0; i < N; i++)
        host[i] = i;
    OK(T.enqueue.usm_memcpy(q, 0, d, host, sizeof(host), 0, NULL, NULL));
    int n = N;
    /* arguments in any order */
    sx_arg args[2] = {{SX_ARG_VALUE, 1, sizeof(int), &n}, {SX_ARG_POINTER, 0, sizeof(void *), d}};
    size_t gs = N, ls = 128;
    OK(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, &ls, 2, args, 0, NULL, NULL));
    OK(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, NULL, 2, args, 0, NULL, NULL));
    OK(T.enqueue.usm_memcpy(q, 1, host, d, sizeof(host), 0, NULL, NULL));
    int good = 1;
    for (int i = 0; i < N; i++)
        good &= host[i] == i + 2;
    CHECK(good, "add_one result");

    /* argument errors never reach the driver */
    CHECK_RC(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, &ls, 1, args, 0, NULL, NULL),
             SX_ERROR_INVALID_KERNEL_ARGS);
    sx_arg twice[2] = {args[0], args[0]};
    CHECK_RC(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, &ls, 2, twice, 0, NULL, NULL),
             SX_ERROR_INVALID_KERNEL_ARGS);
    sx_arg badidx[2] = {args[1], {SX_ARG_VALUE, 5, sizeof(int), &n}};
    CHECK_RC(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, &ls, 2, badidx, 0, NULL, NULL),
             SX_ERROR_INVALID_ARGUMENT_INDEX);
    int64_t n64 = N;
    sx_arg badsize[2] = {args[1], {SX_ARG_VALUE, 1, sizeof(n64), &n64}};
    CHECK_RC(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, &ls, 2, badsize, 0, NULL, NULL),
             SX_ERROR_INVALID_ARGUMENT_SIZE);
    size_t odd = 100;
    CHECK_RC(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, &odd, 2, args, 0, NULL, NULL),
             SX_ERROR_INVALID_WORK_GROUP_SIZE);
    size_t big = 2048, gbig = 4096;
    CHECK_RC(T.enqueue.kernel_launch(q, k, 1, NULL, &gbig, &big, 2, args, 0, NULL, NULL),
             SX_ERROR_INVALID_WORK_GROUP_SIZE);
    size_t off = 4;
    CHECK_RC(T.enqueue.kernel_launch(q, k, 1, &off, &gs, &ls, 2, args, 0, NULL, NULL),
             SX_ERROR_UNSUPPORTED_FEATURE);
    CHECK_RC(T.enqueue.kernel_launch(q, k, 4, NULL, &gs, &ls, 2, args, 0, NULL, NULL),
             SX_ERROR_INVALID_WORK_DIMENSION);
    OK(T.kernel.release(k));

    /* scalar and struct values */
    sxa_kernel ks = NULL;
    OK(T.kernel.create(p, "struct_arg", &ks));
    double *dd = NULL;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, sizeof(double), 0, (void **)&dd));
    struct {
        int a;
        double b;
    } pr = {40, 2.5};
    sx_arg sargs[2] = {{SX_ARG_VALUE, 0, sizeof(pr), &pr}, {SX_ARG_POINTER, 1, sizeof(void *), dd}};
    size_t one = 1;
    OK(T.enqueue.kernel_launch(q, ks, 1, NULL, &one, &one, 2, sargs, 0, NULL, NULL));
    double got = 0;
    OK(T.enqueue.usm_memcpy(q, 1, &got, dd, sizeof(got), 0, NULL, NULL));
    CHECK(got == 42.5, "struct argument: %g", got);
    OK(T.kernel.release(ks));
    OK(T.usm.free(ctx, dd));

    /* local (work-group) memory: offsets into dynamic shared memory; the
     * second block is 100 KiB, past the 48 KiB default cap. */
    sxa_kernel kl = NULL;
    OK(T.kernel.create(p, "local_reverse", &kl));
    int *in = NULL, *out = NULL;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, N * sizeof(int), 0, (void **)&in));
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, N * sizeof(int), 0, (void **)&out));
    for (int i = 0; i < N; i++)
        host[i] = i * 3;
    OK(T.enqueue.usm_memcpy(q, 0, in, host, sizeof(host), 0, NULL, NULL));
    for (int round = 0; round < 2; round++) {
        unsigned scratch = round ? 100 * 1024 : 1000;
        size_t wg = 256;
        sx_arg largs[5] = {
            {SX_ARG_POINTER, 0, sizeof(void *), out},
            {SX_ARG_POINTER, 1, sizeof(void *), in},
            {SX_ARG_LOCAL, 2, wg * sizeof(int), NULL},
            {SX_ARG_LOCAL, 3, scratch, NULL},
            {SX_ARG_VALUE, 4, sizeof(scratch), &scratch},
        };
        sx_result rc = T.enqueue.kernel_launch(q, kl, 1, NULL, &gs, &wg, 5, largs, 0, NULL, NULL);
        CHECK(rc == SX_SUCCESS, "local launch with %u scratch bytes: %d", scratch, rc);
        memset(host, 0, sizeof(host));
        OK(T.enqueue.usm_memcpy(q, 1, host, out, sizeof(host), 0, NULL, NULL));
        good = 1;
        for (int i = 0; i < N; i++) {
            int g = i / 256, t = i % 256;
            good &= host[i] == (g * 256 + 255 - t) * 3;
        }
        CHECK(good, "local memory result (scratch %u): host[0]=%d", scratch, host[0]);
    }
    sx_arg toolarge[5] = {
        {SX_ARG_POINTER, 0, sizeof(void *), out},
        {SX_ARG_POINTER, 1, sizeof(void *), in},
        {SX_ARG_LOCAL, 2, 1024, NULL},
        {SX_ARG_LOCAL, 3, 16 << 20, NULL},
        {SX_ARG_VALUE, 4, sizeof(int), &n},
    };
    size_t wg = 256;
    CHECK_RC(T.enqueue.kernel_launch(q, kl, 1, NULL, &gs, &wg, 5, toolarge, 0, NULL, NULL),
             SX_ERROR_OUT_OF_RESOURCES);
    OK(T.kernel.release(kl));
    OK(T.usm.free(ctx, in));
    OK(T.usm.free(ctx, out));
    OK(T.usm.free(ctx, d));
}

static void test_dims(sxa_program p)
{
    sxa_kernel k = NULL;
    OK(T.kernel.create(p, "index_3d", &k));
    if (!k)
        return;
    enum { MAXN = 64 * 16 * 4 };
    int *d = NULL;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, MAXN * sizeof(int), 0, (void **)&d));
    static int host[MAXN];
    sx_arg a = {SX_ARG_POINTER, 0, sizeof(void *), d};
    static const struct {
        uint32_t dims;
        size_t g[3], l[3];
        int auto_local;
    } cases[] = {
        {2, {64, 16, 1}, {16, 4, 1}, 0},
        {2, {64, 16, 1}, {0}, 1},
        {3, {32, 8, 4}, {8, 2, 2}, 0},
        {3, {64, 16, 4}, {0}, 1},
    };
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        size_t total = 1;
        for (uint32_t i = 0; i < cases[c].dims; i++)
            total *= cases[c].g[i];
        OK(T.enqueue.usm_fill(q, d, 4, "\xff\xff\xff\xff", MAXN * sizeof(int), 0, NULL, NULL));
        sx_result rc = T.enqueue.kernel_launch(q, k, cases[c].dims, NULL, cases[c].g,
                                               cases[c].auto_local ? NULL : cases[c].l, 1, &a, 0,
                                               NULL, NULL);
        CHECK(rc == SX_SUCCESS, "%u-D launch case %zu: %d", cases[c].dims, c, rc);
        OK(T.enqueue.usm_memcpy(q, 1, host, d, total * sizeof(int), 0, NULL, NULL));
        size_t w = cases[c].g[0], h = cases[c].g[1], depth = cases[c].dims == 3 ? cases[c].g[2] : 1;
        int good = 1;
        for (size_t z = 0; z < depth; z++)
            for (size_t y = 0; y < h; y++)
                for (size_t x = 0; x < w; x++)
                    good &= host[(z * h + y) * w + x] == (int)((z << 20) | (y << 10) | x);
        CHECK(good, "%u-D launch case %zu: ids", cases[c].dims, c);
    }
    OK(T.usm.free(ctx, d));
    OK(T.kernel.release(k));
}

static void test_globals(sxa_program p)
{
    size_t size = 0;
    void *ptr = NULL;
    OK(T.program.get_global(p, "dg_array", &size, &ptr));
    CHECK(size == 64 && ptr, "dg_array: %zu bytes at %p", size, ptr);
    CHECK_RC(T.program.get_global(p, "no_such_global", &size, &ptr), SX_ERROR_INVALID_GLOBAL_NAME);
    int vals[16], out[16];
    for (int i = 0; i < 16; i++)
        vals[i] = 100 * i;
    OK(T.enqueue.global_write(q, p, "dg_array", 0, sizeof(vals), 0, vals, 0, NULL, NULL));
    int ten = 10;
    OK(T.enqueue.global_write(q, p, "dg_counter", 1, sizeof(int), 0, &ten, 0, NULL, NULL));
    /* part of the array, at an offset */
    int patch[2] = {-1, -2};
    OK(T.enqueue.global_write(q, p, "dg_array", 1, sizeof(patch), 4 * sizeof(int), patch, 0, NULL,
                              NULL));
    CHECK_RC(T.enqueue.global_write(q, p, "dg_array", 1, 8, 60, patch, 0, NULL, NULL),
             SX_ERROR_INVALID_VALUE);
    CHECK(strstr(abi_last_error, "60") && strstr(abi_last_error, "64"), "bounds message: %s",
          abi_last_error);
    CHECK_RC(T.enqueue.global_write(q, p, "dg_array", 1, 4, (size_t)-2, patch, 0, NULL, NULL),
             SX_ERROR_INVALID_VALUE);
    CHECK_RC(T.enqueue.global_read(q, p, "nope", 1, 4, 0, out, 0, NULL, NULL),
             SX_ERROR_INVALID_GLOBAL_NAME);

    sxa_kernel k = NULL, kb = NULL;
    OK(T.kernel.create(p, "read_globals", &k));
    OK(T.kernel.create(p, "bump_counter", &kb));
    int *d = NULL;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, sizeof(out), 0, (void **)&d));
    sx_arg a = {SX_ARG_POINTER, 0, sizeof(void *), d};
    size_t g16 = 16, g32 = 32;
    OK(T.enqueue.kernel_launch(q, k, 1, NULL, &g16, &g16, 1, &a, 0, NULL, NULL));
    OK(T.enqueue.usm_memcpy(q, 1, out, d, sizeof(out), 0, NULL, NULL));
    int good = 1;
    for (int i = 0; i < 16; i++)
        good &= out[i] == (i == 4 ? -1 : i == 5 ? -2 : 100 * i) + 10;
    CHECK(good, "kernel sees written globals: out[0]=%d out[4]=%d", out[0], out[4]);
    OK(T.enqueue.kernel_launch(q, kb, 1, NULL, &g32, NULL, 0, NULL, 0, NULL, NULL));
    int counter = 0;
    OK(T.enqueue.global_read(q, p, "dg_counter", 1, sizeof(int), 0, &counter, 0, NULL, NULL));
    CHECK(counter == 42, "counter after 32 bumps: %d", counter);
    int tail[2] = {0};
    OK(T.enqueue.global_read(q, p, "dg_array", 1, sizeof(tail), 14 * sizeof(int), tail, 0, NULL,
                             NULL));
    CHECK(tail[0] == 1400 && tail[1] == 1500, "read at offset: %d %d", tail[0], tail[1]);
    OK(T.kernel.release(k));
    OK(T.kernel.release(kb));
    OK(T.usm.free(ctx, d));
}

/* The adapter remembers each thread's last variable (program, name ->
 * address) so that a repeated write finds it without a lock: writes that
 * alternate between two programs' variables of one name, and a program
 * released and replaced by a new one (often at the same address), must
 * still land in the right module. Read back through the driver's own
 * address of each (get_global + a USM copy), not through the memo. */
static void test_global_memo(void)
{
    for (int round = 0; round < 4; round++) {
        sxa_program a = build_file("kernels.ptx", SX_IMAGE_KIND_PTX), b = build_file("kernels.ptx", SX_IMAGE_KIND_PTX);
        if (!a || !b)
            return;
        void *pa = NULL, *pb = NULL;
        size_t sa = 0, sb = 0;
        OK(T.program.get_global(a, "dg_counter", &sa, &pa));
        OK(T.program.get_global(b, "dg_counter", &sb, &pb));
        CHECK(pa && pb && pa != pb && sa == sizeof(int) && sb == sizeof(int), "two modules' dg_counter: %p %p", pa, pb);
        for (int i = 0; i < 6; i++) {
            int va = 1000 * round + 10 * i + 1, vb = 1000 * round + 10 * i + 2, got[2] = {0, 0};
            OK(T.enqueue.global_write(q, a, "dg_counter", 1, sizeof(int), 0, &va, 0, NULL, NULL));
            OK(T.enqueue.global_write(q, b, "dg_counter", 1, sizeof(int), 0, &vb, 0, NULL, NULL));
            OK(T.enqueue.usm_memcpy(q, 1, &got[0], pa, sizeof(int), 0, NULL, NULL));
            OK(T.enqueue.usm_memcpy(q, 1, &got[1], pb, sizeof(int), 0, NULL, NULL));
            CHECK(got[0] == va && got[1] == vb, "round %d write %d: a %d (want %d), b %d (want %d)", round, i, got[0],
                  va, got[1], vb);
        }
        /* b goes; its successor (maybe at b's address) has its own variable */
        OK(T.program.release(b));
        sxa_program c = build_file("kernels.ptx", SX_IMAGE_KIND_PTX);
        if (!c) {
            OK(T.program.release(a));
            return;
        }
        void *pc = NULL;
        OK(T.program.get_global(c, "dg_counter", &sb, &pc));
        int vc = -round - 5, zero = 0, got = 1;
        OK(T.enqueue.usm_memcpy(q, 1, pc, &zero, sizeof(int), 0, NULL, NULL));
        OK(T.enqueue.global_write(q, c, "dg_counter", 1, sizeof(int), 0, &vc, 0, NULL, NULL));
        OK(T.enqueue.usm_memcpy(q, 1, &got, pc, sizeof(int), 0, NULL, NULL));
        CHECK(got == vc, "round %d: the successor program's variable reads %d, want %d", round, got, vc);
        int ra = 0;
        OK(T.enqueue.global_read(q, a, "dg_counter", 1, sizeof(int), 0, &ra, 0, NULL, NULL));
        CHECK(ra == 1000 * round + 51, "round %d: a's variable reads %d after c's write", round, ra);
        OK(T.program.release(c));
        OK(T.program.release(a));
    }
}

static int run_link_kernel(sxa_program p, const char *what)
{
    sxa_kernel k = NULL;
    OK(T.kernel.create(p, "link_kernel", &k));
    if (!k)
        return 0;
    int *d = NULL;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, 32 * sizeof(int), 0, (void **)&d));
    int seven = 7;
    OK(T.enqueue.global_write(q, p, "link_value", 1, sizeof(int), 0, &seven, 0, NULL, NULL));
    sx_arg a = {SX_ARG_POINTER, 0, sizeof(void *), d};
    size_t g = 32;
    OK(T.enqueue.kernel_launch(q, k, 1, NULL, &g, &g, 1, &a, 0, NULL, NULL));
    int out[32];
    OK(T.enqueue.usm_memcpy(q, 1, out, d, sizeof(out), 0, NULL, NULL));
    int good = 1;
    for (int i = 0; i < 32; i++)
        good &= out[i] == 3 * i + 1 + 7;
    CHECK(good, "%s: linked kernel result out[1]=%d", what, out[1]);
    OK(T.kernel.release(k));
    OK(T.usm.free(ctx, d));
    return good;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void test_link(void)
{
    sxa_program a = object_file("link_a.ptx", SX_IMAGE_KIND_PTX);
    sxa_program b = object_file("link_b.ptx", SX_IMAGE_KIND_PTX);
    sxa_program bc = object_file("link_b.cubin", SX_IMAGE_KIND_CUBIN);
    if (!a || !b || !bc)
        return;
    sxa_program linked = NULL;
    sxa_program in[2] = {a, b};
    double t0 = now_ms();
    OK(T.program.link(ctx, dev, 2, in, "-O3 -lineinfo -cl-fast-relaxed-math", &linked));
    printf("# link of 2 PTX: %.2f ms\n", now_ms() - t0);
    if (linked)
        run_link_kernel(linked, "PTX + PTX");

    /* the linked cubin is what a persistent cache stores */
    sx_image_kind kind = 0;
    size_t n = 0;
    OK(T.program.get_binary(linked, &kind, 0, NULL, &n));
    unsigned char *bin = malloc(n);
    OK(T.program.get_binary(linked, &kind, n, bin, NULL));
    CHECK(kind == SX_IMAGE_KIND_CUBIN && n > 4 && !memcmp(bin, "\x7f" "ELF", 4),
          "get_binary: kind %u, %zu bytes", kind, n);
    sxa_program again = NULL;
    t0 = now_ms();
    OK(T.program.create(ctx, dev, SX_IMAGE_KIND_CUBIN, bin, n, NULL, &again));
    OK(T.program.build(again, NULL));
    printf("# program from the cached cubin: %.2f ms\n", now_ms() - t0);
    if (again)
        run_link_kernel(again, "from get_binary");
    free(bin);

    /* PTX + relocatable cubin */
    sxa_program mixed = NULL;
    sxa_program in2[2] = {a, bc};
    OK(T.program.link(ctx, dev, 2, in2, NULL, &mixed));
    if (mixed)
        run_link_kernel(mixed, "PTX + cubin");

    /* an unresolved import: a link failure whose message carries the log */
    sxa_program lonely = NULL;
    CHECK_RC(T.program.link(ctx, dev, 1, &a, NULL, &lonely), SX_ERROR_LINK_FAILURE);
    CHECK(strstr(abi_last_error, "link_helper") != NULL, "linker log in the message: %s",
          abi_last_error);
    /* building the importer alone fails the same way, as a build failure */
    sxa_program a2 = NULL;
    char path[4096];
    size_t sz;
    void *data = abi_read_file(abi_data_path("link_a.ptx", path, sizeof(path)), &sz);
    OK(T.program.create(ctx, dev, SX_IMAGE_KIND_PTX, data, sz, NULL, &a2));
    free(data);
    CHECK_RC(T.program.build(a2, NULL), SX_ERROR_BUILD_FAILURE);
    CHECK(strstr(abi_last_error, "link_helper") != NULL, "build log: %s", abi_last_error);
    T.program.release(a2);

    OK(T.program.release(linked));
    OK(T.program.release(again));
    if (mixed)
        OK(T.program.release(mixed));
    OK(T.program.release(a));
    OK(T.program.release(b));
    OK(T.program.release(bc));
}

static void test_bad_images(void)
{
    static const char bad_ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
                                  ".visible .entry broken() { this is not ptx; }\n";
    sxa_program p = NULL;
    OK(T.program.create(ctx, dev, SX_IMAGE_KIND_PTX, bad_ptx, sizeof(bad_ptx) - 1, NULL, &p));
    CHECK_RC(T.program.build(p, NULL), SX_ERROR_BUILD_FAILURE);
    CHECK(strstr(abi_last_error, "CUDA_ERROR_") != NULL && strstr(abi_last_error, "ptxas") != NULL,
          "JIT log in the message: %s", abi_last_error);
    printf("# bad PTX message: %.300s\n", abi_last_error);
    T.program.release(p);
    static const unsigned char junk[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    p = NULL;
    OK(T.program.create(ctx, dev, SX_IMAGE_KIND_CUBIN, junk, sizeof(junk), NULL, &p));
    sx_result rc = T.program.build(p, NULL);
    CHECK(rc == SX_ERROR_BUILD_FAILURE, "junk cubin build: %d", rc);
    T.program.release(p);
    CHECK_RC(T.program.create(ctx, dev, SX_IMAGE_KIND_SPIRV, junk, sizeof(junk), NULL, &p),
             SX_ERROR_INVALID_BINARY);
}

static void test_events(sxa_program p)
{
    sxa_kernel k = NULL;
    OK(T.kernel.create(p, "empty_kernel", &k));
    size_t one = 1;
    sxa_event e1 = NULL, e2 = NULL;
    OK(T.enqueue.kernel_launch(q, k, 1, NULL, &one, &one, 0, NULL, 0, NULL, &e1));
    OK(T.enqueue.barrier(q, 1, &e1, &e2));
    OK(T.event.wait(1, &e2));
    sx_event_status st = 99;
    OK(T.event.get_status(e1, &st));
    CHECK(st == SX_EVENT_STATUS_COMPLETE, "status %d", st);
    uint64_t v = 0;
    CHECK_RC(T.event.get_profiling(e1, SXA_PROFILING_START, &v), SX_ERROR_INVALID_OPERATION);
    OK(T.event.release(e1));
    OK(T.event.release(e2));

    /* a second queue waits on the first through an event */
    sxa_queue pq = NULL;
    OK(T.queue.create(ctx, dev, SXA_QUEUE_PROFILING, &pq));
    sxa_event pe = NULL;
    OK(T.enqueue.kernel_launch(pq, k, 1, NULL, &one, &one, 0, NULL, 0, NULL, &pe));
    OK(T.event.wait(1, &pe));
    /* the event outlives its queue */
    OK(T.queue.finish(pq));
    OK(T.queue.release(pq));
    uint64_t qd = 0, sb = 0, s = 0, e = 0;
    OK(T.event.get_profiling(pe, SXA_PROFILING_QUEUED, &qd));
    OK(T.event.get_profiling(pe, SXA_PROFILING_SUBMIT, &sb));
    OK(T.event.get_profiling(pe, SXA_PROFILING_START, &s));
    OK(T.event.get_profiling(pe, SXA_PROFILING_END, &e));
    printf("# profiling: queued %llu start +%lld ns end +%lld ns\n", (unsigned long long)qd,
           (long long)(s - qd), (long long)(e - s));
    CHECK(s <= e && e - s < 1000000000ull, "start %llu end %llu", (unsigned long long)s,
          (unsigned long long)e);
    sxa_event after = NULL;
    OK(T.enqueue.barrier(q, 1, &pe, &after));
    OK(T.event.wait(1, &after));
    OK(T.event.release(after));
    OK(T.event.release(pe));
    /* pooled events come back recorded afresh */
    for (int i = 0; i < 3; i++) {
        sxa_event x = NULL;
        OK(T.enqueue.kernel_launch(q, k, 1, NULL, &one, &one, 0, NULL, 0, NULL, &x));
        OK(T.event.wait(1, &x));
        st = 99;
        OK(T.event.get_status(x, &st));
        CHECK(st == SX_EVENT_STATUS_COMPLETE, "pooled event status %d", st);
        OK(T.event.release(x));
    }
    OK(T.kernel.release(k));
}

/* bounded_add allows 64 work-items a group (__launch_bounds__), fewer
 * than the device. The adapter does not ask a kernel's limit before its
 * first launch (the query is dear then), so the driver's refusal must
 * still give the clear error, and a block the adapter picks must fit. */
static void test_bounded(sxa_program p)
{
    enum { N = 1024 };
    int *d = NULL, n = N, zero = 0;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, N * sizeof(int), 0, (void **)&d));
    if (!d)
        return;
    OK(T.enqueue.usm_fill(q, d, sizeof(int), &zero, N * sizeof(int), 0, NULL, NULL));
    sx_arg args[2] = {{SX_ARG_POINTER, 0, sizeof(void *), d}, {SX_ARG_VALUE, 1, sizeof(int), &n}};
    size_t gs = N, ls = 128;
    sxa_kernel k = NULL;
    OK(T.kernel.create(p, "bounded_add", &k));
    CHECK_RC(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, &ls, 2, args, 0, NULL, NULL),
             SX_ERROR_INVALID_WORK_GROUP_SIZE);
    CHECK(strstr(abi_last_error, "work-group of 128 items, the kernel allows 64") != NULL,
          "too big a block for the kernel: %s", abi_last_error);
    OK(T.kernel.release(k));
    k = NULL;
    OK(T.kernel.create(p, "bounded_add", &k));
    if (!k)
        return;
    OK(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, NULL, 2, args, 0, NULL, NULL));
    ls = 64;
    OK(T.enqueue.kernel_launch(q, k, 1, NULL, &gs, &ls, 2, args, 0, NULL, NULL));
    size_t kwg = 0;
    OK(T.kernel.get_info(k, SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE, sizeof(kwg), &kwg, NULL));
    CHECK(kwg == 64, "bounded_add's work-group limit: %zu", kwg);
    int host[N];
    OK(T.enqueue.usm_memcpy(q, 1, host, d, sizeof(host), 0, NULL, NULL));
    int good = 1;
    for (int i = 0; i < N; i++)
        good &= host[i] == 2;
    CHECK(good, "bounded_add ran twice over all %d items", N);
    OK(T.kernel.release(k));
    OK(T.usm.free(ctx, d));
}

/* Many threads launch one kernel at once with their own arguments. */
typedef struct {
    sxa_kernel k;
    unsigned long long *counter;
    unsigned long long add;
    int rc;
} thr_arg;

static void *thr_main(void *p)
{
    thr_arg *a = p;
    sxa_queue tq = NULL;
    a->rc = T.queue.create(ctx, dev, 0, &tq);
    if (a->rc)
        return NULL;
    size_t g = 64, l = 64;
    for (int i = 0; i < 200 && !a->rc; i++) {
        sx_arg args[2] = {{SX_ARG_POINTER, 0, sizeof(void *), a->counter},
                          {SX_ARG_VALUE, 1, sizeof(a->add), &a->add}};
        a->rc = T.enqueue.kernel_launch(i % 2 ? tq : q, a->k, 1, NULL, &g, &l, 2, args, 0, NULL,
                                        NULL);
    }
    if (!a->rc)
        a->rc = T.queue.finish(tq);
    T.queue.release(tq);
    return NULL;
}

static void test_threads(sxa_program p)
{
    enum { NT = 8 };
    sxa_kernel k = NULL;
    OK(T.kernel.create(p, "atomic_add", &k));
    unsigned long long *c = NULL;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_DEVICE, NT * sizeof(*c), 0, (void **)&c));
    OK(T.enqueue.usm_fill(q, c, 1, "", NT * sizeof(*c), 0, NULL, NULL));
    OK(T.queue.finish(q));
    pthread_t th[NT];
    thr_arg args[NT];
    for (int i = 0; i < NT; i++) {
        args[i] = (thr_arg){k, c + i, (unsigned long long)i + 1, 0};
        pthread_create(&th[i], NULL, thr_main, &args[i]);
    }
    for (int i = 0; i < NT; i++) {
        pthread_join(th[i], NULL);
        CHECK(args[i].rc == SX_SUCCESS, "thread %d: %d", i, args[i].rc);
    }
    OK(T.queue.finish(q));
    unsigned long long host[NT];
    OK(T.enqueue.usm_memcpy(q, 1, host, c, sizeof(host), 0, NULL, NULL));
    for (int i = 0; i < NT; i++)
        CHECK(host[i] == 200ull * 64 * (i + 1), "thread %d counter %llu", i, host[i]);
    OK(T.usm.free(ctx, c));
    OK(T.kernel.release(k));
}

static void test_exec_cubin(void)
{
    sxa_program p = build_file("kernels.cubin", SX_IMAGE_KIND_CUBIN);
    if (!p)
        return;
    sxa_kernel k = NULL;
    OK(T.kernel.create(p, "add_one", &k));
    int *d = NULL;
    OK(T.usm.alloc(ctx, dev, SX_USM_TYPE_SHARED, 256 * sizeof(int), 0, (void **)&d));
    memset(d, 0, 256 * sizeof(int));
    int n = 256;
    sx_arg args[2] = {{SX_ARG_POINTER, 0, sizeof(void *), d}, {SX_ARG_VALUE, 1, sizeof(n), &n}};
    size_t g = 256;
    OK(T.enqueue.kernel_launch(q, k, 1, NULL, &g, NULL, 2, args, 0, NULL, NULL));
    OK(T.queue.finish(q));
    CHECK(d[0] == 1 && d[255] == 1, "cubin kernel on shared memory: %d %d", d[0], d[255]);
    /* an executable cubin cannot be an object for linking */
    sxa_program obj = NULL;
    char path[4096];
    size_t sz;
    void *data = abi_read_file(abi_data_path("kernels.cubin", path, sizeof(path)), &sz);
    OK(T.program.create(ctx, dev, SX_IMAGE_KIND_CUBIN, data, sz, NULL, &obj));
    free(data);
    CHECK_RC(T.program.compile(obj, NULL), SX_ERROR_INVALID_OPERATION);
    T.program.release(obj);
    OK(T.usm.free(ctx, d));
    OK(T.kernel.release(k));
    OK(T.program.release(p));
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (abi_load(&T) != 0)
        return 1;
    /* the handshake */
    sxa_adapter_table tmp = {.size = sizeof(tmp)};
    CHECK_RC(T.get(SXA_MAKE_VERSION(2, 0), SXA_TABLE_ADAPTER, &tmp), SX_ERROR_UNSUPPORTED_VERSION);
    CHECK_RC(T.get(SXA_ABI_VERSION, 99, &tmp), SX_ERROR_INVALID_ENUMERATION);
    OK(T.adapter.init(&abi_services, &T.ad));
    char status[256] = "";
    OK(T.adapter.get_info(T.ad, SXA_ADAPTER_INFO_STATUS, sizeof(status), status, NULL));
    printf("# status: %s\n", status);
    uint32_t np = 0;
    OK(T.platform.get(T.ad, 0, NULL, &np));
    if (np == 0) {
        printf("SKIP: no CUDA driver (%s)\n", status);
        T.adapter.fini(T.ad);
        return 77;
    }
    char probe[4096];
    FILE *f = fopen(abi_data_path("kernels.ptx", probe, sizeof(probe)), "rb");
    if (!f) {
        printf("SKIP: no test kernels at %s (nvcc missing at build time?)\n", probe);
        T.adapter.fini(T.ad);
        return 77;
    }
    fclose(f);
    sxa_platform pl;
    OK(T.platform.get(T.ad, 1, &pl, NULL));
    uint32_t nd = 0;
    OK(T.device.get(pl, SX_DEVICE_TYPE_GPU, 0, NULL, &nd));
    uint32_t ncpu = 5;
    OK(T.device.get(pl, SX_DEVICE_TYPE_CPU, 0, NULL, &ncpu));
    CHECK(nd >= 1 && ncpu == 0, "%u GPUs, %u CPUs", nd, ncpu);
    OK(T.device.get(pl, SX_DEVICE_TYPE_GPU, 1, &dev, NULL));
    printf("# %u GPU(s)\n", nd);
    OK(T.context.create(1, &dev, &ctx));
    OK(T.queue.create(ctx, dev, 0, &q));
    CHECK(*(const void **)dev == abi_dispatch_tag && *(const void **)ctx == abi_dispatch_tag &&
              *(const void **)q == abi_dispatch_tag,
          "dispatch pointer first in every object");

    printf("# -- test_info\n");

    test_info();
    printf("# -- test_usm\n");
    test_usm();
    double t0 = now_ms();
    sxa_program p = build_file("kernels.ptx", SX_IMAGE_KIND_PTX);
    printf("# build of kernels.ptx: %.2f ms\n", now_ms() - t0);
    if (p) {
        CHECK(*(const void **)p == abi_dispatch_tag, "program dispatch");
        printf("# -- test_kernels\n");
        test_kernels(p);
        printf("# -- test_bounded\n");
        test_bounded(p);
        printf("# -- test_dims\n");
        test_dims(p);
        printf("# -- test_globals\n");
        test_globals(p);
        printf("# -- test_global_memo\n");
        test_global_memo();
        printf("# -- test_events\n");
        test_events(p);
        printf("# -- test_threads\n");
        test_threads(p);
        CHECK_RC(T.program.build(p, NULL), SX_ERROR_INVALID_OPERATION);
        OK(T.program.release(p));
    }
    printf("# -- test_exec_cubin\n");
    test_exec_cubin();
    printf("# -- test_link\n");
    test_link();
    printf("# -- test_bad_images\n");
    test_bad_images();

    OK(T.queue.finish(q));
    OK(T.queue.release(q));
    OK(T.context.release(ctx));
    OK(T.adapter.fini(T.ad));
    printf("%d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
