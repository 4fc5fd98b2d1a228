/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* abi.c: the OpenCL adapter's own unit suite, through the adapter ABI alone, on whichever ICD OCL_ICD_VENDORS names. */
#include "abi-util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static probe P;

static sxa_kernel make_kernel(sxa_program p, const char *name)
{
    sxa_kernel k = NULL;
    CK_SX(T_k.create(p, name, &k));
    return k;
}

static void *usm(sx_usm_type type, size_t size)
{
    void *ptr = NULL;
    CK_SX(T_usm.alloc(E.context, type == SX_USM_TYPE_HOST ? NULL : E.device, type, size, 0, &ptr));
    ck_assert_ptr_nonnull(ptr);
    return ptr;
}

static sx_arg ptr_arg(uint32_t index, const void *p)
{
    return (sx_arg){SX_ARG_POINTER, index, sizeof(void *), p};
}

static sx_arg val_arg(uint32_t index, const void *p, size_t size)
{
    return (sx_arg){SX_ARG_VALUE, index, size, p};
}

/* ------------------------------------------------------------ tables, info */

START_TEST(t_proc_table)
{
    sxa_adapter_table t = {sizeof t};
    CK_SX_IS(get_proc_table(SXA_MAKE_VERSION(2, 0), SXA_TABLE_ADAPTER, &t),
             SX_ERROR_UNSUPPORTED_VERSION);
    CK_SX_IS(get_proc_table(SXA_ABI_VERSION, 99, &t), SX_ERROR_INVALID_ENUMERATION);
    /* A later minor is spoken; a shorter (older) table gets only its prefix. */
    CK_SX(get_proc_table(SXA_MAKE_VERSION(1, 7), SXA_TABLE_ADAPTER, &t));
    ck_assert_ptr_nonnull(t.fini);
    sxa_event_table ev;
    memset(&ev, 0, sizeof ev);
    ev.size = offsetof(sxa_event_table, get_status);
    CK_SX(get_proc_table(SXA_ABI_VERSION, SXA_TABLE_EVENT, &ev));
    ck_assert_ptr_nonnull(ev.wait);
    ck_assert_ptr_null(ev.get_status);
    ck_assert_ptr_null(ev.release);
}
END_TEST

/* No loader (or no ICD): init succeeds with 0 platforms and says why. */
START_TEST(t_no_loader)
{
    setenv("SX_OPENCL_LOADER", "/nonexistent/libOpenCL.so.1", 1);
    sxa_adapter a = NULL;
    CK_SX(T_ad.init(&services, &a));
    uint32_t n = 7;
    CK_SX(T_pl.get(a, 0, NULL, &n));
    ck_assert_uint_eq(n, 0);
    char s[256];
    CK_SX(T_ad.get_info(a, SXA_ADAPTER_INFO_STATUS, sizeof s, s, NULL));
    ck_assert_msg(strstr(s, "/nonexistent/libOpenCL.so.1 not found") && strstr(s, "0 platforms"),
                  "status: %s", s);
    CK_SX(T_ad.fini(a));
    unsetenv("SX_OPENCL_LOADER");
    /* an ICD directory without ICDs: the loader finds no platform */
    setenv("OCL_ICD_VENDORS", "/nonexistent-vendors-dir", 1);
    CK_SX(T_ad.init(&services, &a));
    CK_SX(T_pl.get(a, 0, NULL, &n));
    ck_assert_uint_eq(n, 0);
    CK_SX(T_ad.get_info(a, SXA_ADAPTER_INFO_STATUS, sizeof s, s, NULL));
    ck_assert_msg(strstr(s, "0 platforms"), "status: %s", s);
    CK_SX(T_ad.fini(a));
}
END_TEST

/* SX_OPENCL_PLATFORM keeps the platforms whose name contains it (any case). */
START_TEST(t_platform_filter)
{
    sxa_adapter a = NULL;
    uint32_t all = 0, n = 7;
    CK_SX(T_ad.init(&services, &a));
    CK_SX(T_pl.get(a, 0, NULL, &all));
    ck_assert_uint_ge(all, 1);
    sxa_platform p;
    CK_SX(T_pl.get(a, 1, &p, NULL));
    char name[256], upper[256];
    CK_SX(T_pl.get_info(p, SX_PLATFORM_INFO_NAME, sizeof name, name, NULL));
    CK_SX(T_ad.fini(a));
    size_t i = 0;
    for (; name[i] && i < 5; i++)
        upper[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
    upper[i] = 0;
    setenv("SX_OPENCL_PLATFORM", upper, 1);
    CK_SX(T_ad.init(&services, &a));
    CK_SX(T_pl.get(a, 0, NULL, &n));
    ck_assert_msg(n >= 1, "SX_OPENCL_PLATFORM=%s dropped '%s'", upper, name);
    CK_SX(T_ad.fini(a));
    setenv("SX_OPENCL_PLATFORM", "no platform is called this", 1);
    CK_SX(T_ad.init(&services, &a));
    CK_SX(T_pl.get(a, 0, NULL, &n));
    ck_assert_uint_eq(n, 0);
    CK_SX(T_ad.fini(a));
    unsetenv("SX_OPENCL_PLATFORM");
}
END_TEST

START_TEST(t_info)
{
    env_up(0);
    char s[512];
    size_t n = 0;
    CK_SX(T_ad.get_info(E.adapter, SXA_ADAPTER_INFO_NAME, sizeof s, s, NULL));
    ck_assert_str_eq(s, "opencl");
    CK_SX(T_ad.get_info(E.adapter, SXA_ADAPTER_INFO_STATUS, sizeof s, s, NULL));
    ck_assert_msg(strstr(s, "platform") != NULL, "status: %s", s);
    sx_backend b = 0;
    CK_SX(T_ad.get_info(E.adapter, SXA_ADAPTER_INFO_BACKEND, sizeof b, &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_OPENCL);
    CK_SX_IS(T_ad.get_info(E.adapter, 77, sizeof s, s, NULL), SX_ERROR_INVALID_ENUMERATION);

    CK_SX(T_pl.get_info(E.platform, SX_PLATFORM_INFO_NAME, 0, NULL, &n));
    ck_assert_uint_gt(n, 1);
    CK_SX_IS(T_pl.get_info(E.platform, SX_PLATFORM_INFO_NAME, 1, s, NULL), SX_ERROR_INVALID_SIZE);
    CK_SX(T_pl.get_info(E.platform, SX_PLATFORM_INFO_VERSION, sizeof s, s, NULL));
    ck_assert_msg(strncmp(s, "OpenCL ", 7) == 0, "version %s", s);
    CK_SX(T_pl.get_info(E.platform, SX_PLATFORM_INFO_BACKEND, sizeof b, &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_OPENCL);

    sx_device_type type = 0;
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_TYPE, sizeof type, &type, NULL));
    ck_assert_msg(type && !(type & (type - 1)), "one type bit: 0x%x", type);
    size_t wg = 0, items[3] = {0};
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    ck_assert_uint_gt(wg, 0);
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES, sizeof items, items, NULL));
    ck_assert_uint_gt(items[2], 0);
    uint64_t lm = 0, gm = 0;
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL));
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_GLOBAL_MEM_SIZE, sizeof gm, &gm, NULL));
    ck_assert_uint_gt(lm, 0);
    ck_assert_uint_gt(gm, lm);
    uint32_t cu = 0, nu = 7;
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL));
    ck_assert_uint_gt(cu, 0);
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS, sizeof nu, &nu, NULL));
    ck_assert_uint_le(nu, 1);
    sxa_platform pl = NULL;
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_PLATFORM, sizeof pl, &pl, NULL));
    ck_assert_ptr_eq(pl, E.platform);
    for (sx_device_info i = SX_DEVICE_INFO_NAME; i <= SX_DEVICE_INFO_DRIVER_VERSION; i++) {
        if (i == SX_DEVICE_INFO_VENDOR || i == SX_DEVICE_INFO_NAME ||
            i == SX_DEVICE_INFO_DRIVER_VERSION) {
            CK_SX(T_dev.get_info(E.device, i, 0, NULL, &n));
            ck_assert_uint_gt(n, 1);
        }
    }
    /* Every object starts with the dispatch pointer the core gave. */
    ck_assert_ptr_eq(((sxa_object *)E.adapter)->dispatch, services.dispatch);
    ck_assert_ptr_eq(((sxa_object *)E.platform)->dispatch, services.dispatch);
    ck_assert_ptr_eq(((sxa_object *)E.device)->dispatch, services.dispatch);
    ck_assert_ptr_eq(((sxa_object *)E.context)->dispatch, services.dispatch);
    ck_assert_ptr_eq(((sxa_object *)E.queue)->dispatch, services.dispatch);

    /* The CPU type filter matches; a GPU-only filter finds what it finds. */
    uint32_t all = 0, cpu = 0, gpu = 0;
    CK_SX(T_dev.get(E.platform, SX_DEVICE_TYPE_ALL, 0, NULL, &all));
    CK_SX(T_dev.get(E.platform, SX_DEVICE_TYPE_CPU, 0, NULL, &cpu));
    CK_SX(T_dev.get(E.platform, SX_DEVICE_TYPE_GPU, 0, NULL, &gpu));
    ck_assert_uint_eq(cpu + gpu <= all, 1);
    CK_SX_IS(T_dev.get_info(E.device, 999, sizeof s, s, NULL), SX_ERROR_INVALID_ENUMERATION);

    /* Aspects agree with the USM answer. */
    void *p = NULL;
    sx_result rc = T_usm.alloc(E.context, E.device, SX_USM_TYPE_DEVICE, 64, 0, &p);
    if (HAS_USM(E.aspects)) {
        CK_SX(rc);
        CK_SX(T_usm.free(E.context, p));
    } else {
        CK_SX_IS(rc, SX_ERROR_UNSUPPORTED_FEATURE);
        ck_assert_msg(strstr(last_error, "SVM") != NULL, "says why: %s", last_error);
    }
    env_down();
}
END_TEST

/* ------------------------------------------------------------ programs */

START_TEST(t_program_errors)
{
    env_up(0);
    static const unsigned char junk[64] = {1, 2, 3};
    sxa_program p = NULL;
    CK_SX_IS(T_prog.create(E.context, E.device, E.kind, junk, sizeof junk, NULL, &p),
             SX_ERROR_INVALID_BINARY);
    CK_SX_IS(T_prog.create(E.context, E.device, SX_IMAGE_KIND_PTX, junk, sizeof junk, NULL, &p),
             SX_ERROR_INVALID_BINARY);
    CK_SX_IS(T_prog.create(E.context, E.device, E.kind, junk, 0, NULL, &p), SX_ERROR_INVALID_SIZE);
    CK_SX_IS(T_prog.create(E.context, E.device, E.kind, NULL, 4, NULL, &p),
             SX_ERROR_INVALID_NULL_POINTER);

    /* A program whose function is nowhere: the build fails with the log,
     * or (Oclgrind builds lazily) the kernel cannot be made. */
    size_t size;
    void *data = read_kernel("ocl-bad", E.kind, &size);
    CK_SX(T_prog.create(E.context, E.device, E.kind, data, size, NULL, &p));
    free(data);
    sx_result rc = T_prog.build(p, NULL);
    if (rc != SX_SUCCESS) {
        CK_SX_IS(rc, SX_ERROR_BUILD_FAILURE);
        ck_assert_msg(strstr(last_error, "clBuildProgram: CL_BUILD_PROGRAM_FAILURE (-11)") &&
                          strstr(last_error, "ocl_missing_function"),
                      "the message names the call, code and log: %s", last_error);
    } else {
        sxa_kernel k;
        CK_SX_IS(T_k.create(p, "ocl_bad", &k), SX_ERROR_INVALID_KERNEL_NAME);
    }
    CK_SX(T_prog.release(p));

    p = build_program("ocl-basic");
    sxa_kernel k = NULL;
    CK_SX_IS(T_k.create(p, "no_such_kernel", &k), SX_ERROR_INVALID_KERNEL_NAME);
    ck_assert_msg(strstr(last_error, "no_such_kernel") != NULL, "%s", last_error);
    k = make_kernel(p, "ocl_axpb");
    uint32_t nargs = 0;
    CK_SX(T_k.get_info(k, SXA_KERNEL_INFO_NUM_ARGS, sizeof nargs, &nargs, NULL));
    ck_assert_uint_eq(nargs, 4);
    size_t wg = 0;
    CK_SX(T_k.get_info(k, SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL));
    ck_assert_uint_gt(wg, 0);
    uint64_t lm = 1;
    CK_SX(T_k.get_info(k, SXA_KERNEL_INFO_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL));
    CK_SX(T_k.release(k));

    /* The built program round-trips through its binary. */
    size_t bsize = 0;
    sx_image_kind bkind = 0;
    CK_SX(T_prog.get_binary(p, &bkind, 0, NULL, &bsize));
    ck_assert_uint_eq(bkind, SX_IMAGE_KIND_NATIVE);
    ck_assert_uint_gt(bsize, 0);
    void *bin = malloc(bsize);
    CK_SX_IS(T_prog.get_binary(p, &bkind, bsize - 1, bin, NULL), SX_ERROR_INVALID_SIZE);
    CK_SX(T_prog.get_binary(p, &bkind, bsize, bin, NULL));
    sxa_program p2 = NULL;
    CK_SX(T_prog.create(E.context, E.device, bkind, bin, bsize, NULL, &p2));
    free(bin);
    CK_SX(T_prog.build(p2, NULL));
    k = make_kernel(p2, "ocl_ids2");
    CK_SX(T_k.release(k));
    CK_SX(T_prog.release(p2));
    CK_SX(T_prog.release(p));
    env_down();
}
END_TEST

/* ------------------------------------------------------------ USM */

START_TEST(t_usm)
{
    env_up(0);
    enum { N = 256 };
    int host[N], back[N];
    for (int i = 0; i < N; i++)
        host[i] = i * 7 - 3;
    sx_usm_type types[] = {SX_USM_TYPE_DEVICE, SX_USM_TYPE_HOST, SX_USM_TYPE_SHARED};
    for (size_t t = 0; t < 3; t++) {
        if (types[t] != SX_USM_TYPE_DEVICE &&
            !(E.aspects & SX_ASPECT_BIT(SX_ASPECT_USM_HOST_ALLOCATIONS)))
            continue;
        int *d = usm(types[t], sizeof host);
        CK_SX(T_enq.usm_memcpy(E.queue, 1, d, host, sizeof host, 0, NULL, NULL));
        memset(back, 0, sizeof back);
        CK_SX(T_enq.usm_memcpy(E.queue, 1, back, d, sizeof back, 0, NULL, NULL));
        ck_assert_mem_eq(back, host, sizeof host);
        /* fills of 1, 4 and 16-byte patterns, then a non-blocking copy back */
        uint8_t b = 0xab;
        CK_SX(T_enq.usm_fill(E.queue, d, 1, &b, sizeof host, 0, NULL, NULL));
        uint32_t w = 0x01020304;
        sxa_event ev = NULL;
        CK_SX(T_enq.usm_fill(E.queue, d, 4, &w, 64, 0, NULL, &ev));
        uint32_t q[4] = {9, 8, 7, 6};
        CK_SX(T_enq.usm_fill(E.queue, (char *)d + 128, 16, q, 32, 1, &ev, NULL));
        sxa_event done = NULL;
        CK_SX(T_enq.usm_memcpy(E.queue, 0, back, d, sizeof back, 0, NULL, &done));
        CK_SX(T_ev.wait(1, &done));
        sx_event_status st = SX_EVENT_STATUS_QUEUED;
        CK_SX(T_ev.get_status(done, &st));
        ck_assert_int_eq(st, SX_EVENT_STATUS_COMPLETE);
        CK_SX(T_ev.release(done));
        CK_SX(T_ev.release(ev));
        const uint32_t *u = (const uint32_t *)back;
        ck_assert_uint_eq(u[0], 0x01020304);
        ck_assert_uint_eq(u[15], 0x01020304);
        ck_assert_uint_eq(u[16], 0xabababab);
        ck_assert_uint_eq(u[32], 9);
        ck_assert_uint_eq(u[35], 6);
        ck_assert_uint_eq(u[36], 9);
        ck_assert_uint_eq(u[40], 0xabababab);
        /* fill rules */
        CK_SX_IS(T_enq.usm_fill(E.queue, d, 3, &w, 12, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
        CK_SX_IS(T_enq.usm_fill(E.queue, (char *)d + 2, 4, &w, 8, 0, NULL, NULL),
                 SX_ERROR_INVALID_VALUE);
        CK_SX_IS(T_enq.usm_fill(E.queue, d, 4, &w, 6, 0, NULL, NULL), SX_ERROR_INVALID_SIZE);
        CK_SX_IS(T_enq.usm_memcpy(E.queue, 1, d, (char *)d + 4, 16, 0, NULL, NULL),
                 SX_ERROR_INVALID_VALUE);
        CK_SX(T_enq.usm_memcpy(E.queue, 1, d, host, 0, 0, NULL, NULL));
        CK_SX(T_usm.free(E.context, d));
    }
    void *p = NULL;
    CK_SX_IS(T_usm.alloc(E.context, E.device, SX_USM_TYPE_DEVICE, 0, 0, &p), SX_ERROR_INVALID_SIZE);
    CK_SX_IS(T_usm.alloc(E.context, E.device, SX_USM_TYPE_DEVICE, 8, 3, &p), SX_ERROR_INVALID_VALUE);
    CK_SX_IS(T_usm.alloc(E.context, E.device, 9, 8, 0, &p), SX_ERROR_INVALID_ENUMERATION);
    CK_SX(T_usm.alloc(E.context, E.device, SX_USM_TYPE_DEVICE, 100, 4096, &p));
    ck_assert_uint_eq((uintptr_t)p % 4096, 0);
    CK_SX(T_usm.free(E.context, p));
    env_down();
}
END_TEST

/* No USM (Oclgrind): allocations, copies and pointer arguments say so. */
START_TEST(t_no_usm)
{
    env_up(0);
    void *p = NULL;
    CK_SX_IS(T_usm.alloc(E.context, E.device, SX_USM_TYPE_DEVICE, 64, 0, &p),
             SX_ERROR_UNSUPPORTED_FEATURE);
    CK_SX_IS(T_usm.alloc(E.context, NULL, SX_USM_TYPE_HOST, 64, 0, &p),
             SX_ERROR_UNSUPPORTED_FEATURE);
    int a = 1, b = 2;
    CK_SX_IS(T_enq.usm_memcpy(E.queue, 1, &a, &b, sizeof a, 0, NULL, NULL),
             SX_ERROR_UNSUPPORTED_FEATURE);
    sxa_program prog = build_program("ocl-basic");
    sxa_kernel k = make_kernel(prog, "ocl_count");
    size_t g = 1;
    sx_arg arg = ptr_arg(0, &a);
    CK_SX_IS(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 1, &arg, 0, NULL, NULL),
             SX_ERROR_UNSUPPORTED_FEATURE);
    ck_assert_msg(strstr(last_error, "pointer argument 0") != NULL, "%s", last_error);
    CK_SX(T_k.release(k));
    CK_SX(T_prog.release(prog));
    env_down();
}
END_TEST

/* ------------------------------------------------------------ launches */

START_TEST(t_launch_1d)
{
    env_up(SXA_QUEUE_PROFILING);
    enum { N = 64 };
    sxa_program prog = build_program("ocl-basic");
    sxa_kernel k = make_kernel(prog, "ocl_axpb");
    int host[N];
    for (int i = 0; i < N; i++)
        host[i] = i;
    int *in = usm(SX_USM_TYPE_DEVICE, sizeof host), *out = usm(SX_USM_TYPE_DEVICE, sizeof host);
    CK_SX(T_enq.usm_memcpy(E.queue, 1, in, host, sizeof host, 0, NULL, NULL));
    int zero = 0;
    CK_SX(T_enq.usm_fill(E.queue, out, 4, &zero, sizeof host, 0, NULL, NULL));
    int scale = 3;
    int64_t bias = -5;
    /* arguments in any order */
    sx_arg args[] = {val_arg(3, &bias, sizeof bias), ptr_arg(1, out), val_arg(2, &scale, sizeof scale),
                     ptr_arg(0, in)};
    size_t off = 8, g = N - 16, l = 8;
    sxa_event ev = NULL;
    CK_SX(T_enq.kernel_launch(E.queue, k, 1, &off, &g, &l, 4, args, 0, NULL, &ev));
    sxa_event copied = NULL;
    CK_SX(T_enq.usm_memcpy(E.queue, 0, host, out, sizeof host, 1, &ev, &copied));
    CK_SX(T_ev.wait(1, &copied));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(host[i], i >= 8 && i < N - 8 ? i * 3 - 5 : 0);
    uint64_t t[4];
    for (int i = 0; i < 4; i++)
        CK_SX(T_ev.get_profiling(ev, SXA_PROFILING_QUEUED + i, &t[i]));
    ck_assert_msg(t[0] <= t[1] && t[1] <= t[2] && t[2] <= t[3], "%llu %llu %llu %llu",
                  (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
                  (unsigned long long)t[3]);
    CK_SX_IS(T_ev.get_profiling(ev, 99, &t[0]), SX_ERROR_INVALID_ENUMERATION);
    sxa_event bar = NULL;
    CK_SX(T_enq.barrier(E.queue, 1, &copied, &bar));
    CK_SX(T_ev.wait(1, &bar));
    CK_SX(T_ev.release(bar));
    CK_SX(T_ev.release(copied));
    CK_SX(T_ev.release(ev));

    /* The adapter sets only arguments that changed: a value changed in
     * place (same address), then every argument as before. */
    scale = 4;
    for (int round = 0; round < 2; round++) {
        CK_SX(T_enq.usm_fill(E.queue, out, 4, &zero, sizeof host, 0, NULL, NULL));
        CK_SX(T_enq.kernel_launch(E.queue, k, 1, &off, &g, &l, 4, args, 0, NULL, NULL));
        CK_SX(T_enq.usm_memcpy(E.queue, 1, host, out, sizeof host, 0, NULL, NULL));
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(host[i], i >= 8 && i < N - 8 ? i * 4 - 5 : 0);
    }

    /* argument errors */
    CK_SX_IS(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 3, args, 0, NULL, NULL),
             SX_ERROR_INVALID_KERNEL_ARGS);
    sx_arg dup[] = {args[0], args[0], args[1], args[2]};
    CK_SX_IS(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 4, dup, 0, NULL, NULL),
             SX_ERROR_INVALID_KERNEL_ARGS);
    sx_arg far[] = {args[0], args[1], args[2], ptr_arg(9, in)};
    CK_SX_IS(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 4, far, 0, NULL, NULL),
             SX_ERROR_INVALID_ARGUMENT_INDEX);
    sx_arg badsize[] = {val_arg(3, &bias, 3), args[1], args[2], args[3]};
    CK_SX_IS(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 4, badsize, 0, NULL, NULL),
             SX_ERROR_INVALID_ARGUMENT_SIZE);
    ck_assert_msg(strstr(last_error, "clSetKernelArg: CL_INVALID_ARG_SIZE (-51)"), "%s", last_error);
    sx_arg loc[] = {args[0], args[1], args[2], {SX_ARG_LOCAL, 0, 16, in}};
    CK_SX_IS(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 4, loc, 0, NULL, NULL),
             SX_ERROR_INVALID_VALUE);
    CK_SX_IS(T_enq.kernel_launch(E.queue, k, 0, NULL, &g, NULL, 4, args, 0, NULL, NULL),
             SX_ERROR_INVALID_WORK_DIMENSION);
    CK_SX_IS(T_enq.kernel_launch(E.queue, k, 4, NULL, &g, NULL, 4, args, 0, NULL, NULL),
             SX_ERROR_INVALID_WORK_DIMENSION);
    /* an empty range runs nothing and succeeds */
    size_t none = 0;
    CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &none, NULL, 4, args, 0, NULL, NULL));
    /* after the failed ones, a launch sets what they may have left behind */
    bias = 7;
    sx_arg swapped[] = {ptr_arg(0, out), ptr_arg(1, in), args[2], args[0]};
    CK_SX(T_enq.kernel_launch(E.queue, k, 1, &off, &g, &l, 4, swapped, 0, NULL, NULL));
    CK_SX(T_enq.usm_memcpy(E.queue, 1, host, in, sizeof host, 0, NULL, NULL));
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(host[i], i >= 8 && i < N - 8 ? (i * 4 - 5) * 4 + 7 : i);

    CK_SX(T_k.release(k));
    CK_SX(T_prog.release(prog));
    CK_SX(T_q.finish(E.queue));
    CK_SX(T_usm.free(E.context, in));
    CK_SX(T_usm.free(E.context, out));
    env_down();
}
END_TEST

START_TEST(t_launch_2d_3d)
{
    env_up(0);
    sxa_program prog = build_program("ocl-basic");
    sxa_kernel k2 = make_kernel(prog, "ocl_ids2"), k3 = make_kernel(prog, "ocl_ids3");
    enum { X = 8, Y = 6, Z = 4 };
    uint32_t *d = usm(SX_USM_TYPE_DEVICE, X * Y * Z * sizeof(uint32_t));
    uint32_t host[X * Y * Z];
    sx_arg a = ptr_arg(0, d);
    size_t g2[2] = {X, Y}, l2[2] = {4, 2};
    CK_SX(T_enq.kernel_launch(E.queue, k2, 2, NULL, g2, l2, 1, &a, 0, NULL, NULL));
    CK_SX(T_enq.usm_memcpy(E.queue, 1, host, d, X * Y * sizeof(uint32_t), 0, NULL, NULL));
    for (uint32_t y = 0; y < Y; y++)
        for (uint32_t x = 0; x < X; x++)
            ck_assert_uint_eq(host[y * X + x], y * 1000 + x);
    size_t g3[3] = {X, Y, Z};
    CK_SX(T_enq.kernel_launch(E.queue, k3, 3, NULL, g3, NULL, 1, &a, 0, NULL, NULL));
    CK_SX(T_enq.usm_memcpy(E.queue, 1, host, d, sizeof host, 0, NULL, NULL));
    for (uint32_t z = 0; z < Z; z++)
        for (uint32_t y = 0; y < Y; y++)
            for (uint32_t x = 0; x < X; x++)
                ck_assert_uint_eq(host[(z * Y + y) * X + x], x + 100 * y + 10000 * z);
    CK_SX(T_k.release(k2));
    CK_SX(T_k.release(k3));
    CK_SX(T_prog.release(prog));
    CK_SX(T_usm.free(E.context, d));
    env_down();
}
END_TEST

START_TEST(t_local_struct_nonuniform)
{
    env_up(0);
    sxa_program prog = build_program("ocl-basic");
    enum { N = 64, L = 16 };
    int host[N], sums[N / L];
    for (int i = 0; i < N; i++)
        host[i] = i + 1;
    int *in = usm(SX_USM_TYPE_DEVICE, sizeof host), *out = usm(SX_USM_TYPE_DEVICE, sizeof host);
    CK_SX(T_enq.usm_memcpy(E.queue, 1, in, host, sizeof host, 0, NULL, NULL));
    sxa_kernel k = make_kernel(prog, "ocl_group_sum");
    sx_arg args[] = {ptr_arg(0, in), ptr_arg(1, out), {SX_ARG_LOCAL, 2, L * sizeof(int), NULL}};
    size_t g = N, l = L;
    CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, &l, 3, args, 0, NULL, NULL));
    CK_SX(T_enq.usm_memcpy(E.queue, 1, sums, out, sizeof sums, 0, NULL, NULL));
    for (int grp = 0; grp < N / L; grp++) {
        int want = 0;
        for (int i = 0; i < L; i++)
            want += grp * L + i + 1;
        ck_assert_int_eq(sums[grp], want);
    }
    CK_SX(T_k.release(k));

    /* a struct by value */
    struct { int32_t a; float b; int64_t c; } pod = {-7, 2.5f, 1ll << 40};
    int64_t res[3] = {0};
    k = make_kernel(prog, "ocl_struct");
    sx_arg sargs[] = {ptr_arg(0, out), val_arg(1, &pod, sizeof pod)};
    size_t one = 1;
    CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &one, NULL, 2, sargs, 0, NULL, NULL));
    CK_SX(T_enq.usm_memcpy(E.queue, 1, res, out, sizeof res, 0, NULL, NULL));
    ck_assert_int_eq(res[0], -7);
    ck_assert_int_eq(res[1], 10);
    ck_assert_int_eq(res[2], 1ll << 40);
    CK_SX(T_k.release(k));

    /* 10 items in groups of 4: runs all 10 where non-uniform groups exist */
    uint32_t nu = 0;
    CK_SX(T_dev.get_info(E.device, SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS, sizeof nu, &nu, NULL));
    k = make_kernel(prog, "ocl_count");
    int zero = 0, count = -1;
    CK_SX(T_enq.usm_memcpy(E.queue, 1, out, &zero, sizeof zero, 0, NULL, NULL));
    sx_arg carg = ptr_arg(0, out);
    size_t g10 = 10, l4 = 4;
    sx_result rc = T_enq.kernel_launch(E.queue, k, 1, NULL, &g10, &l4, 1, &carg, 0, NULL, NULL);
    if (nu) {
        CK_SX(rc);
        CK_SX(T_enq.usm_memcpy(E.queue, 1, &count, out, sizeof count, 0, NULL, NULL));
        ck_assert_int_eq(count, 10);
    } else {
        CK_SX_IS(rc, SX_ERROR_INVALID_WORK_GROUP_SIZE);
    }
    CK_SX(T_k.release(k));
    CK_SX(T_prog.release(prog));
    CK_SX(T_usm.free(E.context, in));
    CK_SX(T_usm.free(E.context, out));
    env_down();
}
END_TEST

/* A pointer argument whose memory was freed and whose address came back
 * from a new allocation is set again (the adapter skips unchanged
 * arguments; Intel's runtime refused such a launch, or crashed). */
START_TEST(t_pointer_reused)
{
    env_up(0);
    enum { N = 16, TRIES = 64 };
    sxa_program prog = build_program("ocl-basic");
    sxa_kernel k = make_kernel(prog, "ocl_axpb");
    int *in = usm(SX_USM_TYPE_SHARED, N * sizeof(int));
    for (int i = 0; i < N; i++)
        in[i] = i;
    size_t g = N;
    int64_t bias = 1;
    int scale = 2;
    int *first = usm(SX_USM_TYPE_SHARED, N * sizeof(int));
    sx_arg args[] = {ptr_arg(0, in), ptr_arg(1, first), val_arg(2, &scale, sizeof scale),
                     val_arg(3, &bias, sizeof bias)};
    CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 4, args, 0, NULL, NULL));
    CK_SX(T_q.finish(E.queue));
    CK_SX(T_usm.free(E.context, first));
    /* allocate until the driver gives the freed address back */
    int *held[TRIES], *again = NULL;
    int n = 0;
    while (n < TRIES && !again) {
        int *p = usm(SX_USM_TYPE_SHARED, N * sizeof(int));
        if (p == first)
            again = p;
        else
            held[n++] = p;
    }
    if (again) {
        scale = 3;
        for (int i = 0; i < N; i++)
            again[i] = -1;
        CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 4, args, 0, NULL, NULL));
        CK_SX(T_q.finish(E.queue));
        for (int i = 0; i < N; i++)
            ck_assert_int_eq(again[i], i * 3 + 1);
        CK_SX(T_usm.free(E.context, again));
    } else {
        fprintf(stderr, "t_pointer_reused: the driver never gave the address back (nothing to catch)\n");
    }
    for (int i = 0; i < n; i++)
        CK_SX(T_usm.free(E.context, held[i]));
    CK_SX(T_k.release(k));
    CK_SX(T_prog.release(prog));
    CK_SX(T_usm.free(E.context, in));
    env_down();
}
END_TEST

/* Many threads launch one kernel with their own arguments at once. */
enum { THREADS = 4, ROUNDS = 100, TN = 32 };
static sxa_kernel shared_kernel;
static int *thread_in;

static void *launcher(void *arg)
{
    int id = (int)(intptr_t)arg;
    int *out = NULL;
    if (T_usm.alloc(E.context, E.device, SX_USM_TYPE_SHARED, TN * sizeof(int), 0,
                    (void **)&out) != SX_SUCCESS)
        return (void *)1;
    intptr_t bad = 0;
    for (int r = 0; r < ROUNDS && !bad; r++) {
        int scale = id + 1;
        int64_t bias = r;
        sx_arg args[] = {ptr_arg(0, thread_in), ptr_arg(1, out), val_arg(2, &scale, sizeof scale),
                         val_arg(3, &bias, sizeof bias)};
        size_t g = TN;
        sxa_event ev = NULL;
        sx_result rc = T_enq.kernel_launch(E.queue, shared_kernel, 1, NULL, &g, NULL, 4, args, 0, NULL, &ev);
        const char *what = "launch";
        if (rc == SX_SUCCESS) {
            rc = T_ev.wait(1, &ev);
            what = "wait";
        }
        if (rc != SX_SUCCESS) {
            /* last_error is this thread's: say it here */
            fprintf(stderr, "thread %d round %d: %s -> %d: %s\n", id, r, what, rc, last_error);
            bad = 2;
        }
        if (ev)
            T_ev.release(ev);
        for (int i = 0; i < TN && !bad; i++)
            if (out[i] != i * scale + r)
                bad = 3;
    }
    T_usm.free(E.context, out);
    return (void *)bad;
}

START_TEST(t_threads)
{
    env_up(SXA_QUEUE_OUT_OF_ORDER);
    sxa_program prog = build_program("ocl-basic");
    shared_kernel = make_kernel(prog, "ocl_axpb");
    thread_in = usm(SX_USM_TYPE_SHARED, TN * sizeof(int));
    for (int i = 0; i < TN; i++)
        thread_in[i] = i;
    pthread_t th[THREADS];
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, launcher, (void *)(intptr_t)i), 0);
    for (int i = 0; i < THREADS; i++) {
        void *r;
        pthread_join(th[i], &r);
        ck_assert_msg(r == NULL, "thread %d failed (%ld): %s", i, (long)(intptr_t)r, last_error);
    }
    CK_SX(T_k.release(shared_kernel));
    CK_SX(T_prog.release(prog));
    CK_SX(T_usm.free(E.context, thread_in));
    env_down();
}
END_TEST

/* A launch held inside the driver (the interposer holds its
 * clSetKernelArg) does not stop another thread launching the same kernel:
 * that one gets a cl_kernel of its own (before, it waited on the kernel's
 * one lock), and each launch computes with its own arguments. (t_threads
 * runs 4 threads on what may be fewer cl_kernels: the waiting path.) */
enum { HOLD_SCALE = 0x5eed01, HOLD_SECONDS = 30 };
typedef struct {
    sxa_kernel kernel;
    const int *in;
    int *out;
    int scale;
    sx_result rc;
    atomic_int done;
    char error[512];
} held_launch;

static void *held_launcher(void *arg)
{
    held_launch *h = arg;
    int64_t bias = 3;
    sx_arg args[] = {ptr_arg(0, h->in), ptr_arg(1, h->out), val_arg(2, &h->scale, sizeof h->scale),
                     val_arg(3, &bias, sizeof bias)};
    size_t g = TN;
    sxa_event ev = NULL;
    h->rc = T_enq.kernel_launch(E.queue, h->kernel, 1, NULL, &g, NULL, 4, args, 0, NULL, &ev);
    if (h->rc == SX_SUCCESS)
        h->rc = T_ev.wait(1, &ev);
    if (ev)
        T_ev.release(ev);
    snprintf(h->error, sizeof h->error, "%.500s", h->rc == SX_SUCCESS ? "" : last_error);
    atomic_store(&h->done, 1);
    return NULL;
}

START_TEST(t_threads_not_serialised)
{
    /* The adapter gives a kernel at most a cl_kernel per processor. */
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        printf("skipped: threads not serialised: one processor\n");
        return;
    }
    void *lib = load_interposer();
    ck_assert_ptr_nonnull(lib);
    void (*arm)(int) = (void (*)(int))dlsym(lib, "sxt_hold_arm");
    int (*wait_held)(int) = (int (*)(int))dlsym(lib, "sxt_hold_wait_held");
    void (*release)(void) = (void (*)(void))dlsym(lib, "sxt_hold_release");
    ck_assert(arm && wait_held && release);
    env_up(SXA_QUEUE_OUT_OF_ORDER);
    sxa_program prog = build_program("ocl-basic");
    sxa_kernel k = make_kernel(prog, "ocl_axpb");
    int *in = usm(SX_USM_TYPE_SHARED, TN * sizeof(int));
    for (int i = 0; i < TN; i++)
        in[i] = i;
    held_launch a = {k, in, usm(SX_USM_TYPE_SHARED, TN * sizeof(int)), HOLD_SCALE, 0, 0, ""};
    held_launch o = {k, in, usm(SX_USM_TYPE_SHARED, TN * sizeof(int)), 2, 0, 0, ""};
    pthread_t ta, to;
    arm(HOLD_SCALE);
    ck_assert_int_eq(pthread_create(&ta, NULL, held_launcher, &a), 0);
    int held = wait_held(HOLD_SECONDS);
    int other_done = 0;
    if (held) {
        ck_assert_int_eq(pthread_create(&to, NULL, held_launcher, &o), 0);
        for (int i = 0; i < HOLD_SECONDS * 100 && !(other_done = atomic_load(&o.done)); i++)
            usleep(10000);
    }
    release();
    pthread_join(ta, NULL);
    if (held)
        pthread_join(to, NULL);
    ck_assert_msg(held, "the interposer never saw the held launch's clSetKernelArg");
    ck_assert_msg(other_done, "a launch of the same kernel waited for another thread's launch held "
                              "inside clSetKernelArg (%d s)", HOLD_SECONDS);
    ck_assert_msg(a.rc == SX_SUCCESS && o.rc == SX_SUCCESS, "launches: %d (%s), %d (%s)", a.rc,
                  a.error, o.rc, o.error);
    for (int i = 0; i < TN; i++) {
        ck_assert_int_eq(a.out[i], i * HOLD_SCALE + 3);
        ck_assert_int_eq(o.out[i], i * 2 + 3);
    }
    /* Both cl_kernels keep their arguments: again, each from another thread. */
    a.scale = 5, o.scale = 7;
    memset(a.out, 0, TN * sizeof(int));
    memset(o.out, 0, TN * sizeof(int));
    held_launcher(&o);
    ck_assert_int_eq(pthread_create(&ta, NULL, held_launcher, &a), 0);
    pthread_join(ta, NULL);
    ck_assert_msg(a.rc == SX_SUCCESS && o.rc == SX_SUCCESS, "%s %s", a.error, o.error);
    for (int i = 0; i < TN; i++) {
        ck_assert_int_eq(a.out[i], i * 5 + 3);
        ck_assert_int_eq(o.out[i], i * 7 + 3);
    }
    CK_SX(T_k.release(k));
    CK_SX(T_prog.release(prog));
    CK_SX(T_usm.free(E.context, a.out));
    CK_SX(T_usm.free(E.context, o.out));
    CK_SX(T_usm.free(E.context, in));
    env_down();
    unsetenv("SX_OPENCL_LOADER");
}
END_TEST

/* ------------------------------------------------------------ link */

/* Indirect USM access (issue 29, point 8): a kernel that may reach USM no
 * argument names (its program has a USM device global, a struct argument
 * may hold pointers, or its signature is unknown) declares it for every
 * kind the context allocated, once per kind (the interposer counts
 * clSetKernelExecInfo); one whose signature shows plain pointers only
 * does not. Intel's USM extension only (others have no such parameter). */
START_TEST(t_indirect_access)
{
    void *lib = load_interposer();
    ck_assert_ptr_nonnull(lib);
    int (*calls)(int) = (int (*)(int))dlsym(lib, "sxt_indirect_calls");
    void (*reset)(void) = (void (*)(void))dlsym(lib, "sxt_indirect_reset");
    ck_assert(calls && reset);
    env_up(0);
    char vendor[256] = "";
    T_dev.get_info(E.device, SX_DEVICE_INFO_VENDOR, sizeof vendor, vendor, NULL);
    if (!strstr(vendor, "Intel")) {
        printf("skipped: indirect access: '%s' (%s) has no Intel USM extension\n", E.name, vendor);
        env_down();
        unsetenv("SX_OPENCL_LOADER");
        return;
    }
    size_t size;
    void *data = read_kernel_raw("ocl-basic", E.kind, &size);
    ck_assert_ptr_nonnull(data);
    /* ocl_count(global int *): described as it is, then with a struct by
     * value holding a pointer (the decision reads only the signature). */
    sxa_kernel_param plain = {SX_PARAM_POINTER, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, NULL};
    sxa_param_member ptr_member = {SX_SCALAR_PTR, 0};
    sxa_kernel_param holder = {SX_PARAM_STRUCT, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_PRIVATE, 1, &ptr_member};
    sxa_kernel_signature sig_plain = {"ocl_count", 1, &plain}, sig_holder = {"ocl_count", 1, &holder};
    struct { const sxa_kernel_signature *sig; uint32_t flags; int want; const char *what; } cases[] = {
        {&sig_plain, 0, 0, "plain pointer arguments"},
        {&sig_plain, SXA_PROGRAM_INDIRECT_USM, 1, "a program with a USM device global"},
        {&sig_holder, 0, 1, "a struct argument holding a pointer"},
        {NULL, 0, 1, "no signature"},
    };
    int *counter = usm(SX_USM_TYPE_SHARED, sizeof(int));
    *counter = 0;
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        sxa_program_desc desc = {sizeof desc, cases[c].sig ? 1 : 0, cases[c].sig, NULL, NULL, cases[c].flags};
        sxa_program prog;
        CK_SX(T_prog.create(E.context, E.device, E.kind, data, size, &desc, &prog));
        CK_SX(T_prog.build(prog, NULL));
        sxa_kernel k = make_kernel(prog, "ocl_count");
        sx_arg a = ptr_arg(0, counter);
        size_t g = 4;
        reset();
        CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 1, &a, 0, NULL, NULL));
        CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 1, &a, 0, NULL, NULL));
        /* Kinds the context has allocated: shared only until case 1 adds host and device. */
        int others = c > 1 ? cases[c].want : 0;
        ck_assert_msg(calls(2) == cases[c].want && calls(0) == others && calls(1) == others,
                      "%s: shared %d host %d device %d declarations, expected %d, %d and %d", cases[c].what,
                      calls(2), calls(0), calls(1), cases[c].want, others, others);
        if (c == 1) {
            /* A kind allocated later is declared at the next launch, once. */
            void *h = usm(SX_USM_TYPE_HOST, 64), *d = usm(SX_USM_TYPE_DEVICE, 64);
            CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 1, &a, 0, NULL, NULL));
            CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 1, &a, 0, NULL, NULL));
            ck_assert_msg(calls(0) == 1 && calls(1) == 1 && calls(2) == 1, "after host and device allocations: "
                          "host %d device %d shared %d", calls(0), calls(1), calls(2));
            CK_SX(T_usm.free(E.context, h));
            CK_SX(T_usm.free(E.context, d));
        }
        CK_SX(T_q.finish(E.queue));
        CK_SX(T_k.release(k));
        CK_SX(T_prog.release(prog));
    }
    ck_assert_int_eq(*counter, 4 * 2 * 4 + 4 * 2);
    free(data);
    CK_SX(T_usm.free(E.context, counter));
    env_down();
    unsetenv("SX_OPENCL_LOADER");
}
END_TEST

START_TEST(t_link)
{
    env_up(0);
    size_t sa, sb;
    void *da = read_kernel("ocl-link-a", E.kind, &sa), *db = read_kernel("ocl-link-b", E.kind, &sb);
    sxa_program pa, pb, linked = NULL;
    CK_SX(T_prog.create(E.context, E.device, E.kind, da, sa, NULL, &pa));
    CK_SX(T_prog.create(E.context, E.device, E.kind, db, sb, NULL, &pb));
    free(da);
    free(db);
    CK_SX(T_prog.compile(pa, NULL));
    CK_SX(T_prog.compile(pb, NULL));
    sxa_program both[2] = {pa, pb};
    CK_SX(T_prog.link(E.context, E.device, 2, both, NULL, &linked));
    /* the inputs stay the caller's */
    CK_SX(T_prog.release(pa));
    CK_SX(T_prog.release(pb));
    if (HAS_USM(E.aspects)) {
        sxa_kernel k = make_kernel(linked, "ocl_link_use");
        int host[4] = {1, 2, 3, 4};
        int *d = usm(SX_USM_TYPE_DEVICE, sizeof host);
        CK_SX(T_enq.usm_memcpy(E.queue, 1, d, host, sizeof host, 0, NULL, NULL));
        sx_arg a = ptr_arg(0, d);
        size_t g = 4;
        CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 1, &a, 0, NULL, NULL));
        CK_SX(T_enq.usm_memcpy(E.queue, 1, host, d, sizeof host, 0, NULL, NULL));
        ck_assert_int_eq(host[0], 4);
        ck_assert_int_eq(host[3], 13);
        CK_SX(T_k.release(k));
        CK_SX(T_usm.free(E.context, d));
    } else {
        /* no USM: the result comes back through a program variable */
        sxa_kernel k = make_kernel(linked, "ocl_link_use_value");
        int x = 5, r = 0;
        sx_arg a = val_arg(0, &x, sizeof x);
        size_t g = 1;
        CK_SX(T_enq.kernel_launch(E.queue, k, 1, NULL, &g, NULL, 1, &a, 0, NULL, NULL));
        CK_SX(T_enq.global_read(E.queue, linked, "ocl_link_result", 1, sizeof r, 0, &r, 0, NULL,
                                NULL));
        ck_assert_int_eq(r, 16);
        CK_SX(T_k.release(k));
    }
    CK_SX(T_prog.release(linked));
    env_down();
}
END_TEST

/* A driver that cannot compile our images says so plainly (PoCL). */
START_TEST(t_link_refused)
{
    env_up(0);
    size_t sa;
    void *da = read_kernel("ocl-link-a", E.kind, &sa);
    sxa_program pa, linked = NULL;
    CK_SX(T_prog.create(E.context, E.device, E.kind, da, sa, NULL, &pa));
    free(da);
    CK_SX_IS(T_prog.compile(pa, NULL), SX_ERROR_UNSUPPORTED_FEATURE);
    ck_assert_msg(strstr(last_error, "clCompileProgram: CL_INVALID_OPERATION (-59)"), "%s",
                  last_error);
    CK_SX_IS(T_prog.link(E.context, E.device, 1, &pa, NULL, &linked), SX_ERROR_UNSUPPORTED_FEATURE);
    ck_assert_ptr_null(linked);
    CK_SX(T_prog.release(pa));
    env_down();
}
END_TEST

/* A driver with per-kernel variables refuses device-global copies (PoCL). */
START_TEST(t_globals_refused)
{
    env_up(0);
    sxa_program prog = build_program("ocl-globals");
    int v = 1;
    CK_SX_IS(T_enq.global_write(E.queue, prog, "ocl_dg_counter", 1, sizeof v, 0, &v, 0, NULL, NULL),
             SX_ERROR_UNSUPPORTED_FEATURE);
    ck_assert_msg(strstr(last_error, "per kernel") != NULL, "says why: %s", last_error);
    size_t size = 0;
    void *ptr = (void *)1;
    CK_SX(T_prog.get_global(prog, "ocl_dg_vec", &size, &ptr));
    ck_assert_uint_eq(size, 16);
    ck_assert_ptr_null(ptr);
    CK_SX(T_prog.release(prog));
    env_down();
}
END_TEST

int main(void)
{
    load_module();
    P = probe_driver(1);
    if (!P.platforms) {
        printf("SKIP: no OpenCL platform: %s\n", P.status);
        return 77;
    }
    printf("device '%s' (%s)\n", P.device, P.status);
    Suite *s = suite_create("opencl-abi");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, t_proc_table);
    tcase_add_test(tc, t_no_loader);
    tcase_add_test(tc, t_platform_filter);
    tcase_add_test(tc, t_info);
    tcase_add_test(tc, t_program_errors);
    if (HAS_USM(P.aspects)) {
        tcase_add_test(tc, t_usm);
        tcase_add_test(tc, t_launch_1d);
        tcase_add_test(tc, t_launch_2d_3d);
        tcase_add_test(tc, t_local_struct_nonuniform);
        tcase_add_test(tc, t_threads);
        tcase_add_test(tc, t_threads_not_serialised);
        tcase_add_test(tc, t_pointer_reused);
        tcase_add_test(tc, t_indirect_access);
    } else {
        printf("skipped: USM tests (usm, launch 1/2/3-D, local, struct, threads): '%s' has no "
               "USM or SVM\n", P.device);
        tcase_add_test(tc, t_no_usm);
    }
    if (P.compile_ok) {
        tcase_add_test(tc, t_link);
    } else {
        printf("skipped: link: %s\n", P.why);
        tcase_add_test(tc, t_link_refused);
    }
    if (!P.globals_ok)
        tcase_add_test(tc, t_globals_refused);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
