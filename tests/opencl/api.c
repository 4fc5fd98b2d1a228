/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* api.c: the OpenCL adapter through the public sx API: listing, USM, copies, launches of registered SPIR-V/SPIR images. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

#define CK_SX(expr)                                                                          \
    do {                                                                                     \
        sx_result ck_rc_ = (expr);                                                           \
        ck_assert_msg(ck_rc_ == SX_SUCCESS, "%s -> %s: %s", #expr, sx_result_name(ck_rc_),   \
                      sx_last_error());                                                      \
    } while (0)
#define CK_SX_IS(expr, want)                                                                 \
    do {                                                                                     \
        sx_result ck_rc_ = (expr);                                                           \
        ck_assert_msg(ck_rc_ == (want), "%s -> %s, expected %s: %s", #expr,                  \
                      sx_result_name(ck_rc_), sx_result_name(want), sx_last_error());        \
    } while (0)

/* ---- one descriptor, two images of ocl-basic.cl: SPIR-V and SPIR bitcode ---- */

static unsigned char *spv, *bc;
static size_t spv_size, bc_size;
static sx_offload_entry entries[7];
static sx_device_binary bins[2];
static sx_device_binaries desc;
static const char *const kernel_names[7] = {"ocl_axpb",  "ocl_ids2",   "ocl_ids3",  "ocl_group_sum",
                                            "ocl_count", "ocl_struct", "ocl_values"};

static unsigned char *slurp(const char *ext, size_t *size)
{
    char path[4096];
    const char *b = getenv("SX_TEST_BUILDDIR");
    snprintf(path, sizeof path, "%s/tests/kernels/ocl-basic.%s", b ? b : ".", ext);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *d = malloc((size_t)n);
    if (d && fread(d, 1, (size_t)n, f) != (size_t)n) {
        free(d);
        d = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return d;
}

static void make_descriptor(void)
{
    for (int i = 0; i < 7; i++)
        entries[i].name = (char *)kernel_names[i];
    for (int i = 0; i < 2; i++) {
        bins[i].version = SX_DEVICE_BINARY_VERSION;
        bins[i].kind = SX_OFFLOAD_KIND_SYCL;
        bins[i].format = i == 0 ? SX_BINARY_FORMAT_SPIRV : SX_BINARY_FORMAT_LLVMIR_BITCODE;
        bins[i].device_target_spec = SX_TARGET_SPIRV64;
        bins[i].binary_start = i == 0 ? spv : bc;
        bins[i].binary_end = i == 0 ? spv + spv_size : bc + bc_size;
        bins[i].entries_begin = entries;
        bins[i].entries_end = entries + 7;
    }
    desc.version = SX_DEVICE_BINARIES_VERSION;
    desc.num_device_binaries = 2;
    desc.device_binaries = bins;
}

/* ---- per test: init, the first OpenCL device, a context and queue ---- */

static sx_device dev;
static sx_context ctx;
static sx_queue q;
static int has_usm;

static void up(void)
{
    CK_SX(sx_init(SX_INIT_DEFAULT));
    uint32_t n = 0;
    CK_SX(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 1, &dev, &n));
    CK_SX(sx_context_create(1, &dev, &ctx));
    CK_SX(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    CK_SX(sx_device_has_aspect(dev, SX_ASPECT_USM_DEVICE_ALLOCATIONS, &has_usm));
    CK_SX(sx_register_images(&desc));
}

static void down(void)
{
    CK_SX(sx_queue_release(q));
    CK_SX(sx_context_release(ctx));
    CK_SX(sx_unregister_images(&desc));
    CK_SX(sx_fini());
}

static sx_arg ptr_arg(uint32_t i, const void *p) { return (sx_arg){SX_ARG_POINTER, i, sizeof(void *), p}; }
static sx_arg val_arg(uint32_t i, const void *p, size_t n) { return (sx_arg){SX_ARG_VALUE, i, n, p}; }

START_TEST(t_listing)
{
    CK_SX(sx_init(SX_INIT_DEFAULT));
    uint32_t np = 0;
    CK_SX(sx_platform_get(0, NULL, &np));
    ck_assert_uint_ge(np, 1);
    sx_platform p;
    CK_SX(sx_platform_get(1, &p, NULL));
    sx_backend b = 0;
    CK_SX(sx_platform_get_info(p, SX_PLATFORM_INFO_BACKEND, sizeof b, &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_OPENCL);
    char name[256];
    CK_SX(sx_platform_get_info(p, SX_PLATFORM_INFO_NAME, sizeof name, name, NULL));
    uint32_t nd = 0;
    sx_device d;
    CK_SX(sx_device_get(p, SX_DEVICE_TYPE_ALL, 1, &d, &nd));
    ck_assert_uint_ge(nd, 1);
    CK_SX(sx_device_get_info(d, SX_DEVICE_INFO_BACKEND, sizeof b, &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_OPENCL);
    size_t wg = 0;
    uint64_t lm = 0;
    CK_SX(sx_device_get_info(d, SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    CK_SX(sx_device_get_info(d, SX_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL));
    ck_assert_uint_gt(wg, 0);
    ck_assert_uint_gt(lm, 0);
    int cpu = 0, fp64 = 0;
    CK_SX(sx_device_has_aspect(d, SX_ASPECT_CPU, &cpu));
    CK_SX(sx_device_has_aspect(d, SX_ASPECT_FP64, &fp64));
    ck_assert_int_eq(cpu, 1);   /* PoCL's pthread device and Oclgrind are CPUs */
    ck_assert_int_eq(fp64, 1);  /* both list cl_khr_fp64 */
    sx_device def;
    CK_SX(sx_device_get_default(&def));
    CK_SX(sx_fini());
}
END_TEST

START_TEST(t_usm_copies)
{
    up();
    void *p = NULL;
    if (!has_usm) {
        CK_SX_IS(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, 64, 0, &p), SX_ERROR_UNSUPPORTED_FEATURE);
        down();
        return;
    }
    int host[100], back[100];
    for (int i = 0; i < 100; i++)
        host[i] = i * i;
    CK_SX(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, sizeof host, 0, &p));
    CK_SX(sx_queue_memcpy(q, 1, p, host, sizeof host, 0, NULL, NULL));
    CK_SX(sx_queue_memcpy(q, 1, back, p, sizeof back, 0, NULL, NULL));
    ck_assert_mem_eq(back, host, sizeof host);
    short pat = 0x1234;
    sx_event ev;
    CK_SX(sx_queue_fill(q, p, &pat, sizeof pat, 40, 0, NULL, &ev));
    CK_SX(sx_queue_memcpy(q, 1, back, p, sizeof back, 1, &ev, NULL));
    CK_SX(sx_event_release(ev));
    ck_assert_int_eq(back[0], 0x12341234);
    ck_assert_int_eq(back[9], 0x12341234);
    ck_assert_int_eq(back[10], 100);
    CK_SX(sx_usm_free(ctx, p));
    down();
}
END_TEST

START_TEST(t_launch)
{
    up();
    sx_kernel k1, k2, k3, ks;
    CK_SX(sx_kernel_get("ocl_axpb", &k1));
    CK_SX(sx_kernel_get("ocl_ids2", &k2));
    CK_SX(sx_kernel_get("ocl_ids3", &k3));
    CK_SX(sx_kernel_get("ocl_group_sum", &ks));
    int compatible = 0;
    CK_SX(sx_kernel_is_compatible(k1, dev, &compatible));
    ck_assert_int_eq(compatible, 1);
    /* Value and local arguments work on every driver, USM or not. */
    sx_kernel kv;
    CK_SX(sx_kernel_get("ocl_values", &kv));
    int expect = 28 + 5;
    int64_t bias = 5;
    sx_arg vargs[] = {val_arg(0, &expect, sizeof expect), val_arg(1, &bias, sizeof bias),
                      {SX_ARG_LOCAL, 2, 8 * sizeof(int), NULL}};
    size_t g16 = 16, l8 = 8;
    sx_event vev;
    CK_SX(sx_queue_launch(q, kv, 1, NULL, &g16, &l8, 3, vargs, 0, NULL, &vev));
    CK_SX(sx_event_wait(1, &vev));
    CK_SX(sx_event_release(vev));
    CK_SX(sx_kernel_release(kv));
    if (!has_usm) {
        /* Without USM a pointer argument cannot be passed. */
        int v = 1, x;
        int64_t w = 2;
        sx_arg args[] = {ptr_arg(0, &x), ptr_arg(1, NULL), val_arg(2, &v, sizeof v),
                         val_arg(3, &w, sizeof w)};
        size_t one = 1;
        CK_SX_IS(sx_queue_launch(q, k1, 1, NULL, &one, NULL, 4, args, 0, NULL, NULL),
                 SX_ERROR_UNSUPPORTED_FEATURE);
    } else {
        enum { N = 48 };
        int in_h[N], out_h[N];
        for (int i = 0; i < N; i++)
            in_h[i] = i;
        int *in, *out;
        CK_SX(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, sizeof in_h, 0, (void **)&in));
        CK_SX(sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, sizeof out_h, 0, (void **)&out));
        CK_SX(sx_queue_memcpy(q, 1, in, in_h, sizeof in_h, 0, NULL, NULL));
        int scale = -2;
        bias = 9;
        sx_arg args[] = {ptr_arg(0, in), ptr_arg(1, out), val_arg(2, &scale, sizeof scale),
                         val_arg(3, &bias, sizeof bias)};
        size_t g = N;
        CK_SX(sx_queue_launch(q, k1, 1, NULL, &g, NULL, 4, args, 0, NULL, NULL));
        CK_SX(sx_queue_memcpy(q, 1, out_h, out, sizeof out_h, 0, NULL, NULL));
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(out_h[i], -2 * i + 9);

        /* 2-D and 3-D */
        sx_arg a = ptr_arg(0, out);
        size_t g2[2] = {8, 6};
        CK_SX(sx_queue_launch(q, k2, 2, NULL, g2, NULL, 1, &a, 0, NULL, NULL));
        CK_SX(sx_queue_memcpy(q, 1, out_h, out, 48 * sizeof(int), 0, NULL, NULL));
        ck_assert_int_eq(out_h[5 * 8 + 7], 5 * 1000 + 7);
        size_t g3[3] = {4, 3, 4};
        CK_SX(sx_queue_launch(q, k3, 3, NULL, g3, NULL, 1, &a, 0, NULL, NULL));
        CK_SX(sx_queue_memcpy(q, 1, out_h, out, 48 * sizeof(int), 0, NULL, NULL));
        ck_assert_int_eq(out_h[(3 * 3 + 2) * 4 + 1], 1 + 100 * 2 + 10000 * 3);

        /* local memory: sums of groups of 8 */
        sx_arg sargs[] = {ptr_arg(0, in), ptr_arg(1, out), {SX_ARG_LOCAL, 2, 8 * sizeof(int), NULL}};
        size_t l = 8;
        sx_event ev;
        CK_SX(sx_queue_launch(q, ks, 1, NULL, &g, &l, 3, sargs, 0, NULL, &ev));
        CK_SX(sx_event_wait(1, &ev));
        sx_event_status st;
        CK_SX(sx_event_get_status(ev, &st));
        ck_assert_int_eq(st, SX_EVENT_STATUS_COMPLETE);
        CK_SX(sx_event_release(ev));
        CK_SX(sx_queue_memcpy(q, 1, out_h, out, 6 * sizeof(int), 0, NULL, NULL));
        for (int grp = 0; grp < 6; grp++)
            ck_assert_int_eq(out_h[grp], 64 * grp + 28);
        CK_SX(sx_usm_free(ctx, in));
        CK_SX(sx_usm_free(ctx, out));
    }
    CK_SX(sx_queue_wait(q));
    CK_SX(sx_kernel_release(k1));
    CK_SX(sx_kernel_release(k2));
    CK_SX(sx_kernel_release(k3));
    CK_SX(sx_kernel_release(ks));
    down();
}
END_TEST

int main(void)
{
    spv = slurp("spv", &spv_size);
    bc = slurp("bc", &bc_size);
    const char *adapter = getenv("SXO_TEST_ADAPTER");
    if (!spv || !bc || !adapter) {
        printf("SKIP: %s\n", adapter ? "test kernels not built" : "SXO_TEST_ADAPTER not set");
        return 77;
    }
    /* Only the OpenCL adapter: the device under test is the default one. */
    setenv("SX_ADAPTERS", adapter, 1);
    make_descriptor();
    Suite *s = suite_create("opencl-api");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, t_listing);
    tcase_add_test(tc, t_usm_copies);
    tcase_add_test(tc, t_launch);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(spv);
    free(bc);
    return failed ? 1 : 0;
}
