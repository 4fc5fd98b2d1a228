/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-ze-program.c: Level Zero programs, linking, kernels, launches and program variables, through the real loader and the TEST DRIVER. */
#include <check.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ze-harness.h"

static unsigned char *prog_spv, *link_a_spv, *link_b_spv;
static size_t prog_size, link_a_size, link_b_size;

static void fixture_setup(void)
{
    zh_setup();
    prog_spv = zh_read_kernel("ze-prog.spv", &prog_size);
    link_a_spv = zh_read_kernel("ze-link-a.spv", &link_a_size);
    link_b_spv = zh_read_kernel("ze-link-b.spv", &link_b_size);
    ck_assert_msg(prog_spv && link_a_spv && link_b_spv, "test kernels not built");
}

static void fixture_teardown(void)
{
    free(prog_spv);
    free(link_a_spv);
    free(link_b_spv);
    zh_teardown();
}

static sxa_program built(const unsigned char *spv, size_t size)
{
    sxa_program p = NULL;
    ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, spv, size, NULL, &p));
    ZK_OK(ZT.program.build(p, "-ze-opt-level=2"));
    return p;
}

static int *device_ints(size_t n)
{
    int *p = NULL;
    ZK_OK(ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_DEVICE, n * sizeof(int), 0, (void **)&p));
    return p;
}

static void read_ints(int *dst, const int *src, size_t n)
{
    ZK_OK(ZT.enqueue.usm_memcpy(zh_queue, 1, dst, src, n * sizeof(int), 0, NULL, NULL));
}

START_TEST(test_program_from_spirv)
{
    sxa_program p = built(prog_spv, prog_size);
    ck_assert_ptr_eq(((sxa_object *)p)->dispatch, zh_services.dispatch);
    char want[64];
    snprintf(want, sizeof(want), "zeModuleCreate IL %zu bytes flags='-ze-opt-level=2'", prog_size);
    ZK_LOG_HAS(want);
    ZK_LOG_HAS("zeModuleCreate: kernel ze_vadd (3 params)");
    ZK_LOG_HAS("zeModuleCreate: global ze_dg (16 bytes)");
    ZK_LOG_HAS("zeModuleGetProperties");
    /* No imports: no dynamic link. */
    ck_assert_int_eq(zh_log_count("zeModuleDynamicLink"), 0);
    ZK_ERR(ZT.program.build(p, NULL), SX_ERROR_INVALID_OPERATION);

    /* The built program as a native binary, and a program from it. */
    size_t n = 0;
    sx_image_kind kind = 0;
    ZK_OK(ZT.program.get_binary(p, &kind, 0, NULL, &n));
    ck_assert_uint_eq(kind, SX_IMAGE_KIND_NATIVE);
    ck_assert_uint_eq(n, prog_size + 8);
    unsigned char *bin = malloc(n);
    ZK_ERR(ZT.program.get_binary(p, &kind, n - 1, bin, NULL), SX_ERROR_INVALID_SIZE);
    ZK_OK(ZT.program.get_binary(p, &kind, n, bin, NULL));
    sxa_program q;
    ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_NATIVE, bin, n, NULL, &q));
    ZK_OK(ZT.program.build(q, NULL));
    snprintf(want, sizeof(want), "zeModuleCreate NATIVE %zu bytes", n);
    ZK_LOG_HAS(want);
    sxa_kernel k;
    ZK_OK(ZT.kernel.create(q, "ze_vadd", &k));
    ZK_OK(ZT.kernel.release(k));
    ZK_OK(ZT.program.release(q));
    free(bin);
    ZK_OK(ZT.program.release(p));
    ZK_LOG_HAS("zeModuleDestroy");
}
END_TEST

START_TEST(test_build_failure_with_log)
{
    sxa_program p;
    ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, prog_spv, prog_size, NULL, &p));
    setenv("ZE_TEST_DRIVER_FAIL", "zeModuleCreate", 1);
    ZK_ERR(ZT.program.build(p, NULL), SX_ERROR_BUILD_FAILURE);
    ZK_MSG_HAS("zeModuleCreate: ZE_RESULT_ERROR_MODULE_BUILD_FAILURE (0x70000004) for program");
    /* The build log from zeModuleBuildLogGetString is in the message. */
    ZK_MSG_HAS("this build log comes from ZE_TEST_DRIVER_FAIL");
    unsetenv("ZE_TEST_DRIVER_FAIL");
    /* A failed build leaves the program buildable. */
    ZK_OK(ZT.program.build(p, NULL));
    ZK_OK(ZT.program.release(p));

    /* A damaged module: the TEST DRIVER's reader fails, its log comes back. */
    unsigned char *bad = malloc(prog_size);
    memcpy(bad, prog_spv, prog_size);
    uint32_t w = 0xffff0000u | 17;  /* first instruction claims 65535 words */
    memcpy(bad + 20, &w, 4);
    ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, bad, prog_size, NULL, &p));
    ZK_ERR(ZT.program.build(p, NULL), SX_ERROR_BUILD_FAILURE);
    ZK_MSG_HAS("word count 65535 past the end");
    ZK_OK(ZT.program.release(p));
    /* Not SPIR-V at all: refused before the driver. */
    memset(bad, 0x42, 64);
    ZK_ERR(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, bad, 64, NULL, &p),
           SX_ERROR_INVALID_BINARY);
    ZK_ERR(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, bad, 0, NULL, &p),
           SX_ERROR_INVALID_SIZE);
    ZK_ERR(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_PTX, bad, 64, NULL, &p),
           SX_ERROR_UNSUPPORTED_FEATURE);
    /* A native binary the driver does not know. */
    ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_NATIVE, bad, 64, NULL, &p));
    ZK_ERR(ZT.program.build(p, NULL), SX_ERROR_INVALID_BINARY);
    ZK_MSG_HAS("ZE_RESULT_ERROR_INVALID_NATIVE_BINARY");
    ZK_OK(ZT.program.release(p));
    free(bad);
}
END_TEST

START_TEST(test_build_unresolved_import)
{
    /* zeModuleCreate accepts a module with imports; build() checks. */
    sxa_program p;
    ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, link_a_spv, link_a_size,
                            NULL, &p));
    ZK_ERR(ZT.program.build(p, NULL), SX_ERROR_BUILD_FAILURE);
    ZK_MSG_HAS("zeModuleDynamicLink: ZE_RESULT_ERROR_MODULE_LINK_FAILURE (0x70000005)");
    ZK_MSG_HAS("unresolved imported symbol 'ze_helper'");
    ZK_LOG_HAS("zeModuleCreate: import ze_helper");
    ZK_LOG_HAS("zeModuleDynamicLink 1 modules");
    ZK_OK(ZT.program.release(p));
}
END_TEST

static sxa_program compiled(const unsigned char *spv, size_t size)
{
    sxa_program p;
    ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, spv, size, NULL, &p));
    ZK_OK(ZT.program.compile(p, "-g"));
    return p;
}

static void check_helper_kernel(sxa_program linked, int base)
{
    sxa_kernel k;
    ZK_OK(ZT.kernel.create(linked, "ze_use_helper", &k));
    int *out = device_ints(16), host[16];
    sx_arg arg = {SX_ARG_POINTER, 0, sizeof(void *), out};
    size_t global = 16;
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &global, NULL, 1, &arg, 0, NULL, NULL));
    read_ints(host, out, 16);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(host[i], 2 * i + base);
    ZK_OK(ZT.usm.free(zh_context, out));
    ZK_OK(ZT.kernel.release(k));
}

START_TEST(test_link)
{
    sxa_program a = compiled(link_a_spv, link_a_size);
    sxa_program b = compiled(link_b_spv, link_b_size);
    /* A compiled program is not executable. */
    sxa_kernel k;
    ZK_ERR(ZT.kernel.create(a, "ze_use_helper", &k), SX_ERROR_INVALID_PROGRAM);
    sxa_program l1, l2;
    ZK_OK(ZT.program.link(zh_context, zh_device, 2, (sxa_program[]){a, b}, NULL, &l1));
    check_helper_kernel(l1, 100);
    ZK_LOG_HAS("zeModuleDynamicLink 2 modules");
    ZK_LOG_HAS("zeModuleCreate IL");
    ck_assert_int_ge(zh_log_count("flags='-g'"), 4);  /* compile options reused by link */
    /* The inputs stay usable: link them again, in the other order. */
    ZK_OK(ZT.program.link(zh_context, zh_device, 2, (sxa_program[]){b, a}, "", &l2));
    check_helper_kernel(l2, 100);
    /* A linked program is several modules: no single native binary. */
    size_t n;
    ZK_ERR(ZT.program.get_binary(l1, NULL, 0, NULL, &n), SX_ERROR_UNSUPPORTED_FEATURE);
    ZK_OK(ZT.program.release(l1));
    ZK_OK(ZT.program.release(l2));
    ZK_OK(ZT.program.release(a));
    ZK_OK(ZT.program.release(b));
}
END_TEST

START_TEST(test_link_unresolved_import)
{
    sxa_program a = compiled(link_a_spv, link_a_size);
    sxa_program p = compiled(prog_spv, prog_size);
    sxa_program out = (sxa_program)1;
    ZK_ERR(ZT.program.link(zh_context, zh_device, 2, (sxa_program[]){a, p}, NULL, &out),
           SX_ERROR_LINK_FAILURE);
    ZK_MSG_HAS("zeModuleDynamicLink: ZE_RESULT_ERROR_MODULE_LINK_FAILURE (0x70000005)");
    ZK_MSG_HAS("unresolved imported symbol 'ze_helper'");
    ZK_MSG_HAS("2 modules");
    /* Fault injection: the link itself fails. */
    sxa_program b = compiled(link_b_spv, link_b_size);
    setenv("ZE_TEST_DRIVER_FAIL", "zeModuleDynamicLink", 1);
    ZK_ERR(ZT.program.link(zh_context, zh_device, 2, (sxa_program[]){a, b}, NULL, &out),
           SX_ERROR_LINK_FAILURE);
    unsetenv("ZE_TEST_DRIVER_FAIL");
    /* Bad inputs. */
    sxa_program exe = built(prog_spv, prog_size);
    ZK_ERR(ZT.program.link(zh_context, zh_device, 2, (sxa_program[]){a, exe}, NULL, &out),
           SX_ERROR_INVALID_OPERATION);
    ZK_MSG_HAS("built, not compiled");
    ZK_ERR(ZT.program.link(zh_context, zh_device, 0, (sxa_program[]){a}, NULL, &out),
           SX_ERROR_INVALID_SIZE);
    ZK_ERR(ZT.program.link(zh_context, zh_device, 1, (sxa_program[]){NULL}, NULL, &out),
           SX_ERROR_INVALID_NULL_HANDLE);
    ZK_ERR(ZT.program.compile(a, NULL), SX_ERROR_INVALID_OPERATION);
    ZK_OK(ZT.program.release(exe));
    ZK_OK(ZT.program.release(b));
    ZK_OK(ZT.program.release(a));
    ZK_OK(ZT.program.release(p));
}
END_TEST

START_TEST(test_kernel_create)
{
    sxa_program p = built(prog_spv, prog_size);
    sxa_kernel k;
    ZK_ERR(ZT.kernel.create(p, "no_such_kernel", &k), SX_ERROR_INVALID_KERNEL_NAME);
    ZK_MSG_HAS("ZE_RESULT_ERROR_INVALID_KERNEL_NAME");
    ZK_MSG_HAS("no kernel 'no_such_kernel'");
    ZK_ERR(ZT.kernel.create(p, NULL, &k), SX_ERROR_INVALID_NULL_POINTER);
    ZK_OK(ZT.kernel.create(p, "ze_args", &k));
    ck_assert_ptr_eq(((sxa_object *)k)->dispatch, zh_services.dispatch);
    uint32_t nargs = 0;
    ZK_OK(ZT.kernel.get_info(k, SXA_KERNEL_INFO_NUM_ARGS, sizeof(nargs), &nargs, NULL));
    ck_assert_uint_eq(nargs, 3);
    size_t wg = 0;
    ZK_OK(ZT.kernel.get_info(k, SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
    ck_assert_uint_eq(wg, 256);
    uint64_t lm = 1;
    ZK_OK(ZT.kernel.get_info(k, SXA_KERNEL_INFO_LOCAL_MEM_SIZE, sizeof(lm), &lm, NULL));
    ck_assert_uint_eq(lm, 0);
    ZK_ERR(ZT.kernel.get_info(k, 99, sizeof(lm), &lm, NULL), SX_ERROR_INVALID_ENUMERATION);
    ZK_OK(ZT.kernel.release(k));
    sxa_program raw;
    ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, prog_spv, prog_size, NULL, &raw));
    ZK_ERR(ZT.kernel.create(raw, "ze_args", &k), SX_ERROR_INVALID_PROGRAM);
    ZK_OK(ZT.program.release(raw));
    ZK_OK(ZT.program.release(p));
    ZK_LOG_HAS("zeKernelDestroy");
}
END_TEST

START_TEST(test_launch_vadd)
{
    sxa_program p = built(prog_spv, prog_size);
    sxa_kernel k;
    ZK_OK(ZT.kernel.create(p, "ze_vadd", &k));
    enum { N = 64 };
    int ha[N], hb[N], hc[N];
    for (int i = 0; i < N; i++) {
        ha[i] = i;
        hb[i] = 1000 * i;
    }
    int *a = device_ints(N), *b = device_ints(N), *c = device_ints(N);
    ZK_OK(ZT.enqueue.usm_memcpy(zh_queue, 0, a, ha, sizeof(ha), 0, NULL, NULL));
    ZK_OK(ZT.enqueue.usm_memcpy(zh_queue, 0, b, hb, sizeof(hb), 0, NULL, NULL));
    sx_arg args[3] = {{SX_ARG_POINTER, 2, sizeof(void *), c},
                      {SX_ARG_POINTER, 0, sizeof(void *), a},
                      {SX_ARG_POINTER, 1, sizeof(void *), b}};
    size_t global = N, local = 16;
    sxa_event ev;
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &global, &local, 3, args, 0, NULL, &ev));
    ZK_OK(ZT.event.wait(1, &ev));
    ZK_OK(ZT.event.release(ev));
    read_ints(hc, c, N);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(hc[i], 1001 * i);
    ZK_LOG_HAS("zeKernelSetGroupSize 16 1 1");
    ZK_LOG_HAS("zeCommandListAppendLaunchKernel ze_vadd groups=4,1,1 group=16,1,1");
    ZK_LOG_HAS("zeKernelSetArgumentValue ze_vadd 2 size=8");
    /* Same group size again: not set twice. */
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &global, &local, 3, args, 0, NULL, NULL));
    ck_assert_int_eq(zh_log_count("zeKernelSetGroupSize"), 1);
    /* A global offset: the second half only, through zeKernelSetGlobalOffsetExp. */
    ZK_OK(ZT.enqueue.usm_fill(zh_queue, c, sizeof(int), &(int){-5}, sizeof(hc), 0, NULL, NULL));
    size_t off = N / 2, half = N / 2;
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, &off, &half, &local, 3, args, 0, NULL, NULL));
    read_ints(hc, c, N);
    for (int i = 0; i < N; i++)
        ck_assert_int_eq(hc[i], i < N / 2 ? -5 : 1001 * i);
    ZK_LOG_HAS("zeKernelSetGlobalOffsetExp 32 0 0");
    /* The offset does not stick to later launches. */
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &global, &local, 3, args, 0, NULL, NULL));
    ZK_LOG_HAS("zeKernelSetGlobalOffsetExp 0 0 0");
    ZK_OK(ZT.usm.free(zh_context, a));
    ZK_OK(ZT.usm.free(zh_context, b));
    ZK_OK(ZT.usm.free(zh_context, c));
    ZK_OK(ZT.kernel.release(k));
    ZK_OK(ZT.program.release(p));
}
END_TEST

static void launch_args(sxa_kernel k, int *out, int scale, size_t local_bytes, size_t n,
                        const size_t *local)
{
    sx_arg args[3] = {{SX_ARG_POINTER, 0, sizeof(void *), out},
                      {SX_ARG_VALUE, 1, sizeof(int), &scale},
                      {SX_ARG_LOCAL, 2, local_bytes, NULL}};
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, local, 3, args, 0, NULL, NULL));
}

/* Indirect USM access (issue 29, point 8): declared with
 * zeKernelSetIndirectAccess for the kinds the context allocated, on a
 * kernel whose program has a USM device global, whose struct argument may
 * hold a pointer, or without a signature; not on one with plain pointers. */
START_TEST(test_indirect_access)
{
    sxa_kernel_param plain[3] = {{SX_PARAM_POINTER, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, NULL},
                                 {SX_PARAM_POINTER, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, NULL},
                                 {SX_PARAM_POINTER, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, NULL}};
    sxa_param_member ptr_member = {SX_SCALAR_PTR, 0};
    sxa_kernel_param holder[3] = {plain[0], plain[1], {SX_PARAM_STRUCT, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_PRIVATE,
                                                       1, &ptr_member}};
    sxa_kernel_signature sig_plain = {"ze_vadd", 3, plain}, sig_holder = {"ze_vadd", 3, holder};
    struct { const sxa_kernel_signature *sig; uint32_t flags; const char *want; } cases[] = {
        {&sig_plain, 0, NULL},
        {&sig_plain, SXA_PROGRAM_INDIRECT_USM, "zeKernelSetIndirectAccess ze_vadd flags=0x2"},
        {&sig_holder, 0, "zeKernelSetIndirectAccess ze_vadd flags=0x2"},
        {NULL, 0, "zeKernelSetIndirectAccess ze_vadd flags=0x2"},
    };
    enum { N = 64 };
    int *a = device_ints(N), *b = device_ints(N), *c = device_ints(N);
    sx_arg args[3] = {{SX_ARG_POINTER, 0, sizeof(void *), a}, {SX_ARG_POINTER, 1, sizeof(void *), b},
                      {SX_ARG_POINTER, 2, sizeof(void *), c}};
    size_t global = N;
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        sxa_program_desc desc = {sizeof(desc), cases[i].sig ? 1 : 0, cases[i].sig, NULL, NULL, cases[i].flags};
        sxa_program p;
        ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, prog_spv, prog_size, &desc, &p));
        ZK_OK(ZT.program.build(p, NULL));
        sxa_kernel k;
        ZK_OK(ZT.kernel.create(p, "ze_vadd", &k));
        int before = zh_log_count("zeKernelSetIndirectAccess");
        ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &global, NULL, 3, args, 0, NULL, NULL));
        ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &global, NULL, 3, args, 0, NULL, NULL));
        ck_assert_int_eq(zh_log_count("zeKernelSetIndirectAccess") - before, cases[i].want ? 1 : 0);
        if (cases[i].want)
            ZK_LOG_HAS(cases[i].want);
        if (i == 1) {
            /* host and shared allocated later: declared again with every kind, once */
            void *h, *sh;
            ZK_OK(ZT.usm.alloc(zh_context, NULL, SX_USM_TYPE_HOST, 64, 0, &h));
            ZK_OK(ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_SHARED, 64, 0, &sh));
            ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &global, NULL, 3, args, 0, NULL, NULL));
            ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &global, NULL, 3, args, 0, NULL, NULL));
            ck_assert_int_eq(zh_log_count("zeKernelSetIndirectAccess ze_vadd flags=0x7"), 1);
            ZK_OK(ZT.usm.free(zh_context, h));
            ZK_OK(ZT.usm.free(zh_context, sh));
            cases[2].want = cases[3].want = "zeKernelSetIndirectAccess ze_vadd flags=0x7";
        }
        ZK_OK(ZT.queue.finish(zh_queue));
        ZK_OK(ZT.kernel.release(k));
        ZK_OK(ZT.program.release(p));
    }
    ZK_OK(ZT.usm.free(zh_context, a));
    ZK_OK(ZT.usm.free(zh_context, b));
    ZK_OK(ZT.usm.free(zh_context, c));
}
END_TEST

START_TEST(test_launch_each_arg_kind)
{
    sxa_program p = built(prog_spv, prog_size);
    sxa_kernel k;
    ZK_OK(ZT.kernel.create(p, "ze_args", &k));
    int *out = device_ints(128), host[128];
    size_t local = 32;
    launch_args(k, out, 3, 32 * sizeof(int), 128, &local);
    read_ints(host, out, 128);
    for (int i = 0; i < 128; i++)
        ck_assert_msg(host[i] == 3 * i, "out[%d] = %d", i, host[i]);
    ZK_LOG_HAS("zeKernelSetArgumentValue ze_args 0 size=8");
    ZK_LOG_HAS("zeKernelSetArgumentValue ze_args 1 size=4");
    ZK_LOG_HAS("zeKernelSetArgumentValue ze_args 2 local size=128 value=NULL");
    /* No local size: the driver suggests one. */
    launch_args(k, out, 5, 64 * sizeof(int), 128, NULL);
    read_ints(host, out, 128);
    for (int i = 0; i < 128; i++)
        ck_assert_int_eq(host[i], 5 * i);
    ZK_LOG_HAS("zeKernelSuggestGroupSize 128 1 1");
    ZK_LOG_HAS("zeKernelSetGroupSize 64 1 1");
    /* 2-D launch. */
    size_t g2[2] = {8, 4}, l2[2] = {4, 2};
    int scale = 1;
    sx_arg args[3] = {{SX_ARG_POINTER, 0, sizeof(void *), out},
                      {SX_ARG_VALUE, 1, sizeof(int), &scale},
                      {SX_ARG_LOCAL, 2, 64, NULL}};
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 2, NULL, g2, l2, 3, args, 0, NULL, NULL));
    ZK_LOG_HAS("groups=2,2,1 group=4,2,1");
    ZK_OK(ZT.usm.free(zh_context, out));
    ZK_OK(ZT.kernel.release(k));
    ZK_OK(ZT.program.release(p));
}
END_TEST

START_TEST(test_launch_errors)
{
    sxa_program p = built(prog_spv, prog_size);
    sxa_kernel k;
    ZK_OK(ZT.kernel.create(p, "ze_args", &k));
    int *out = device_ints(64);
    int scale = 2;
    int64_t wide = 2;
    size_t n = 64, l = 16, bad_l = 12;
    sx_arg ok[3] = {{SX_ARG_POINTER, 0, sizeof(void *), out},
                    {SX_ARG_VALUE, 1, sizeof(int), &scale},
                    {SX_ARG_LOCAL, 2, 64, NULL}};
    sx_arg a[3];
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, &l, 2, ok, 0, NULL, NULL),
           SX_ERROR_INVALID_KERNEL_ARGS);
    ZK_MSG_HAS("takes 3 arguments, launch gave 2");
    memcpy(a, ok, sizeof(a));
    a[2].index = 7;
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, &l, 3, a, 0, NULL, NULL),
           SX_ERROR_INVALID_ARGUMENT_INDEX);
    memcpy(a, ok, sizeof(a));
    a[2].index = 1;
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, &l, 3, a, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    ZK_MSG_HAS("argument 1 given twice");
    memcpy(a, ok, sizeof(a));
    a[1].size = sizeof(wide);
    a[1].value = &wide;
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, &l, 3, a, 0, NULL, NULL),
           SX_ERROR_INVALID_ARGUMENT_SIZE);
    ZK_MSG_HAS("zeKernelSetArgumentValue: ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE");
    ZK_MSG_HAS("argument 1 (8 bytes)");
    memcpy(a, ok, sizeof(a));
    a[2].value = out;
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, &l, 3, a, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    memcpy(a, ok, sizeof(a));
    a[1].type = 9;
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, &l, 3, a, 0, NULL, NULL),
           SX_ERROR_INVALID_ENUMERATION);
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 4, NULL, &n, &l, 3, ok, 0, NULL, NULL),
           SX_ERROR_INVALID_WORK_DIMENSION);
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, &bad_l, 3, ok, 0, NULL, NULL),
           SX_ERROR_INVALID_WORK_GROUP_SIZE);
    ZK_MSG_HAS("local size 12 does not divide global size 64");
    size_t big = 512, bign = 1024;
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &bign, &big, 3, ok, 0, NULL, NULL),
           SX_ERROR_INVALID_WORK_GROUP_SIZE);
    size_t zero = 0;
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &zero, NULL, 3, ok, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, NULL, NULL, 3, ok, 0, NULL, NULL),
           SX_ERROR_INVALID_NULL_POINTER);
    setenv("ZE_TEST_DRIVER_FAIL", "zeCommandListAppendLaunchKernel", 1);
    sxa_event ev = (sxa_event)1;
    ZK_ERR(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, &l, 3, ok, 0, NULL, &ev),
           SX_ERROR_DEVICE_LOST);
    ZK_MSG_HAS("zeCommandListAppendLaunchKernel: ZE_RESULT_ERROR_DEVICE_LOST");
    ck_assert_ptr_null(ev);
    unsetenv("ZE_TEST_DRIVER_FAIL");
    /* After all that, a good launch still works. */
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, k, 1, NULL, &n, &l, 3, ok, 0, NULL, NULL));
    ZK_OK(ZT.usm.free(zh_context, out));
    ZK_OK(ZT.kernel.release(k));
    ZK_OK(ZT.program.release(p));
}
END_TEST

START_TEST(test_device_globals)
{
    sxa_program p = built(prog_spv, prog_size);
    size_t size = 0;
    void *addr = NULL;
    ZK_OK(ZT.program.get_global(p, "ze_dg", &size, &addr));
    ck_assert_uint_eq(size, 16);
    ck_assert_ptr_nonnull(addr);
    ZK_OK(ZT.program.get_global(p, "ze_scale_dg", &size, NULL));
    ck_assert_uint_eq(size, 8);
    int v[4] = {0};
    /* The initialiser from the SPIR-V module. */
    ZK_OK(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, sizeof(v), 0, v, 0, NULL, NULL));
    ck_assert(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4);
    int64_t scale = 0;
    ZK_OK(ZT.enqueue.global_read(zh_queue, p, "ze_scale_dg", 1, 8, 0, &scale, 0, NULL, NULL));
    ck_assert_int_eq(scale, 3);
    /* Write the middle two, non-blocking: src may be reused at once. */
    int w[2] = {10, 20};
    sxa_event ev;
    ZK_OK(ZT.enqueue.global_write(zh_queue, p, "ze_dg", 0, sizeof(w), 4, w, 0, NULL, &ev));
    w[0] = w[1] = -1;
    ZK_OK(ZT.event.wait(1, &ev));
    ZK_OK(ZT.event.release(ev));
    ZK_OK(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, sizeof(v), 0, v, 0, NULL, NULL));
    ck_assert(v[0] == 1 && v[1] == 10 && v[2] == 20 && v[3] == 4);
    ZK_LOG_HAS("zeModuleGetGlobalPointer ze_dg");
    /* A kernel sees the write... */
    sxa_kernel get, inc;
    ZK_OK(ZT.kernel.create(p, "ze_global_get", &get));
    ZK_OK(ZT.kernel.create(p, "ze_global_inc", &inc));
    int *out = device_ints(8), host[8];
    sx_arg arg = {SX_ARG_POINTER, 0, sizeof(void *), out};
    size_t n = 8;
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, get, 1, NULL, &n, NULL, 1, &arg, 0, NULL, NULL));
    read_ints(host, out, 8);
    ck_assert(host[0] == 1 && host[1] == 10 && host[2] == 20 && host[3] == 4 && host[5] == 10);
    /* ...and a read sees what a kernel did (8 work-items: each element +2). */
    ZK_OK(ZT.enqueue.kernel_launch(zh_queue, inc, 1, NULL, &n, NULL, 0, NULL, 0, NULL, NULL));
    ZK_OK(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, 4, 12, &v[0], 0, NULL, NULL));
    ck_assert_int_eq(v[0], 6);
    /* Through the pointer too: it is device-visible memory. */
    ZK_OK(ZT.enqueue.usm_memcpy(zh_queue, 1, v, addr, sizeof(v), 0, NULL, NULL));
    ck_assert(v[0] == 3 && v[1] == 12 && v[2] == 22 && v[3] == 6);
    ZK_OK(ZT.usm.free(zh_context, out));
    ZK_OK(ZT.kernel.release(get));
    ZK_OK(ZT.kernel.release(inc));
    ZK_OK(ZT.program.release(p));
}
END_TEST

START_TEST(test_device_global_bounds)
{
    sxa_program p = built(prog_spv, prog_size);
    char buf[32] = {0};
    ZK_ERR(ZT.enqueue.global_write(zh_queue, p, "ze_dg", 1, 8, 12, buf, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    ZK_MSG_HAS("write of 8 bytes at offset 12 of variable 'ze_dg' overruns its 16 bytes");
    ZK_ERR(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, 17, 0, buf, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    ZK_MSG_HAS("read of 17 bytes at offset 0 of variable 'ze_dg' overruns its 16 bytes");
    ZK_ERR(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, 0, 17, buf, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    /* Huge numbers do not wrap around. */
    ZK_ERR(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, 8, SIZE_MAX - 4, buf, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    /* Exactly to the end is fine; so is nothing at the end. */
    ZK_OK(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, 4, 12, buf, 0, NULL, NULL));
    ZK_OK(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, 0, 16, buf, 0, NULL, NULL));
    ZK_ERR(ZT.enqueue.global_write(zh_queue, p, "no_such_var", 1, 4, 0, buf, 0, NULL, NULL),
           SX_ERROR_INVALID_GLOBAL_NAME);
    ZK_MSG_HAS("ZE_RESULT_ERROR_INVALID_GLOBAL_NAME");
    ZK_MSG_HAS("no variable 'no_such_var'");
    size_t s;
    ZK_ERR(ZT.program.get_global(p, "nope", &s, NULL), SX_ERROR_INVALID_GLOBAL_NAME);
    ZK_ERR(ZT.enqueue.global_read(zh_queue, p, NULL, 1, 4, 0, buf, 0, NULL, NULL),
           SX_ERROR_INVALID_NULL_POINTER);
    ZK_ERR(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, 4, 0, NULL, 0, NULL, NULL),
           SX_ERROR_INVALID_NULL_POINTER);
    /* A variable of a program not built yet. */
    sxa_program raw;
    ZK_OK(ZT.program.create(zh_context, zh_device, SX_IMAGE_KIND_SPIRV, prog_spv, prog_size, NULL, &raw));
    ZK_ERR(ZT.program.get_global(raw, "ze_dg", &s, NULL), SX_ERROR_INVALID_PROGRAM);
    ZK_OK(ZT.program.release(raw));
    setenv("ZE_TEST_DRIVER_FAIL", "zeModuleGetGlobalPointer", 1);
    ZK_ERR(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, 4, 0, buf, 0, NULL, NULL),
           SX_ERROR_ADAPTER_SPECIFIC);
    ZK_MSG_HAS("zeModuleGetGlobalPointer: ZE_RESULT_ERROR_UNKNOWN");
    unsetenv("ZE_TEST_DRIVER_FAIL");
    ZK_OK(ZT.program.release(p));
}
END_TEST

START_TEST(test_imported_variable)
{
    /* ze-link-a imports ze_linked_base, ze-link-b exports it: one variable,
     * found through either module once linked, seen by the importer's kernel. */
    sxa_program a = compiled(link_a_spv, link_a_size);
    sxa_program b = compiled(link_b_spv, link_b_size);
    sxa_program l;
    ZK_OK(ZT.program.link(zh_context, zh_device, 2, (sxa_program[]){a, b}, NULL, &l));
    size_t size = 0;
    void *addr = NULL;
    ZK_OK(ZT.program.get_global(l, "ze_linked_base", &size, &addr));
    ck_assert_uint_eq(size, 4);
    int v = 0;
    ZK_OK(ZT.enqueue.global_read(zh_queue, l, "ze_linked_base", 1, 4, 0, &v, 0, NULL, NULL));
    ck_assert_int_eq(v, 100);
    v = 1000;
    ZK_OK(ZT.enqueue.global_write(zh_queue, l, "ze_linked_base", 1, 4, 0, &v, 0, NULL, NULL));
    check_helper_kernel(l, 1000);
    ZK_ERR(ZT.enqueue.global_write(zh_queue, l, "ze_linked_base", 1, 8, 0, &v, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    ZK_MSG_HAS("write of 8 bytes at offset 0 of variable 'ze_linked_base' overruns its 4 bytes");
    ZK_OK(ZT.program.release(l));
    ZK_OK(ZT.program.release(a));
    ZK_OK(ZT.program.release(b));
}
END_TEST

/* Insert `OpDecorate %<id of ze_dg> HostAccessINTEL 3 "<name>"` (decoration
 * 6188, SPV_INTEL_global_variable_decorations) before the first
 * OpDecorate: the name the device_global design note looks up first. */
static unsigned char *with_host_access(const unsigned char *spv, size_t size, const char *name,
                                       size_t *out_size)
{
    const uint32_t *w = (const uint32_t *)spv;
    size_t n = size / 4, first_dec = 0;
    uint32_t target = 0;
    for (size_t i = 5; i < n; i += w[i] >> 16) {
        if ((w[i] & 0xffff) != 71)
            continue;
        if (!first_dec)
            first_dec = i;
        if (w[i + 2] == 41 && strcmp((const char *)&w[i + 3], "ze_dg") == 0)
            target = w[i + 1];
    }
    ck_assert(first_dec && target);
    size_t slen = strlen(name) / 4 + 1, wc = 4 + slen;
    uint32_t *out = calloc(n + wc, 4);
    memcpy(out, w, first_dec * 4);
    out[first_dec] = (uint32_t)(wc << 16) | 71;
    out[first_dec + 1] = target;
    out[first_dec + 2] = 6188;
    out[first_dec + 3] = 3;  /* read_write */
    memcpy(&out[first_dec + 4], name, strlen(name));
    memcpy(out + first_dec + wc, w + first_dec, (n - first_dec) * 4);
    *out_size = (n + wc) * 4;
    return (unsigned char *)out;
}

START_TEST(test_host_access_name)
{
    size_t size;
    unsigned char *spv = with_host_access(prog_spv, prog_size, "uid__ze_dg_1234", &size);
    sxa_program p = built(spv, size);
    int v[4] = {0};
    ZK_OK(ZT.enqueue.global_read(zh_queue, p, "uid__ze_dg_1234", 1, sizeof(v), 0, v, 0, NULL, NULL));
    ck_assert(v[0] == 1 && v[3] == 4);
    int w = 77;
    ZK_OK(ZT.enqueue.global_write(zh_queue, p, "uid__ze_dg_1234", 1, 4, 8, &w, 0, NULL, NULL));
    ZK_OK(ZT.enqueue.global_read(zh_queue, p, "ze_dg", 1, sizeof(v), 0, v, 0, NULL, NULL));
    ck_assert_int_eq(v[2], 77);
    ZK_LOG_HAS("zeModuleGetGlobalPointer uid__ze_dg_1234");
    ZK_OK(ZT.program.release(p));
    free(spv);
}
END_TEST

START_TEST(test_globals_of_linked_program)
{
    /* The variable lives in the module that exports it. */
    sxa_program a = compiled(link_a_spv, link_a_size);
    sxa_program b = compiled(link_b_spv, link_b_size);
    sxa_program p = compiled(prog_spv, prog_size);
    sxa_program l;
    ZK_OK(ZT.program.link(zh_context, zh_device, 3, (sxa_program[]){a, b, p}, NULL, &l));
    int v[4] = {0};
    ZK_OK(ZT.enqueue.global_read(zh_queue, l, "ze_dg", 1, sizeof(v), 0, v, 0, NULL, NULL));
    ck_assert(v[0] == 1 && v[3] == 4);
    sxa_kernel k;
    ZK_OK(ZT.kernel.create(l, "ze_vadd", &k));
    ZK_OK(ZT.kernel.release(k));
    ZK_OK(ZT.program.release(l));
    ZK_OK(ZT.program.release(a));
    ZK_OK(ZT.program.release(b));
    ZK_OK(ZT.program.release(p));
}
END_TEST

typedef struct launcher {
    sxa_kernel k;
    int id;
    int ok;
    char why[256];
} launcher;

static void *launch_thread(void *arg)
{
    launcher *L = arg;
    int *out = NULL, host[64];
    L->ok = ZT.usm.alloc(zh_context, zh_device, SX_USM_TYPE_DEVICE, sizeof(host), 0,
                         (void **)&out) == SX_SUCCESS;
    for (int it = 0; L->ok && it < 40; it++) {
        int scale = L->id * 100 + it;
        sx_arg args[3] = {{SX_ARG_POINTER, 0, sizeof(void *), out},
                          {SX_ARG_VALUE, 1, sizeof(int), &scale},
                          {SX_ARG_LOCAL, 2, 64 * sizeof(int), NULL}};
        size_t n = 64, l = (it % 2) ? 16 : 32;
        if (ZT.enqueue.kernel_launch(zh_queue, L->k, 1, NULL, &n, &l, 3, args, 0, NULL, NULL) ||
            ZT.enqueue.usm_memcpy(zh_queue, 1, host, out, sizeof(host), 0, NULL, NULL)) {
            snprintf(L->why, sizeof(L->why), "%s", zh_last_error());
            L->ok = 0;
            break;
        }
        for (int i = 0; i < 64; i++)
            if (host[i] != scale * i) {
                snprintf(L->why, sizeof(L->why), "iteration %d: out[%d] = %d, want %d", it, i,
                         host[i], scale * i);
                L->ok = 0;
                break;
            }
    }
    if (out)
        ZT.usm.free(zh_context, out);
    return NULL;
}

START_TEST(test_concurrent_launches_of_one_kernel)
{
    /* One ze kernel's argument state, eight threads: every launch must
     * see its own arguments. */
    sxa_program p = built(prog_spv, prog_size);
    sxa_kernel k;
    ZK_OK(ZT.kernel.create(p, "ze_args", &k));
    pthread_t th[8];
    launcher L[8];
    for (int i = 0; i < 8; i++) {
        L[i] = (launcher){.k = k, .id = i + 1};
        pthread_create(&th[i], NULL, launch_thread, &L[i]);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(L[i].ok, "thread %d: %s", i, L[i].why);
    }
    ZK_OK(ZT.kernel.release(k));
    ZK_OK(ZT.program.release(p));
}
END_TEST

static Suite *ze_program_suite(void)
{
    Suite *s = suite_create("level_zero programs");
    TCase *tc = tcase_create("programs");
    tcase_add_checked_fixture(tc, fixture_setup, fixture_teardown);
    tcase_add_test(tc, test_program_from_spirv);
    tcase_add_test(tc, test_build_failure_with_log);
    tcase_add_test(tc, test_build_unresolved_import);
    tcase_add_test(tc, test_link);
    tcase_add_test(tc, test_link_unresolved_import);
    tcase_add_test(tc, test_kernel_create);
    tcase_add_test(tc, test_launch_vadd);
    tcase_add_test(tc, test_indirect_access);
    tcase_add_test(tc, test_launch_each_arg_kind);
    tcase_add_test(tc, test_launch_errors);
    tcase_add_test(tc, test_device_globals);
    tcase_add_test(tc, test_device_global_bounds);
    tcase_add_test(tc, test_globals_of_linked_program);
    tcase_add_test(tc, test_imported_variable);
    tcase_add_test(tc, test_host_access_name);
    tcase_add_test(tc, test_concurrent_launches_of_one_kernel);
    suite_add_tcase(s, tc);
    return s;
}

static int kernels_built(void)
{
    size_t n;
    unsigned char *b = zh_read_kernel("ze-prog.spv", &n);
    free(b);
    return b != NULL;
}

int main(void)
{
    int pre = zh_prerequisites();
    if (pre)
        return pre;
    if (!kernels_built()) {
        printf("SKIP: tests/level_zero/kernels/ze-prog.spv not built (clang-14 and llvm-spirv-14 needed)\n");
        return 77;
    }
    SRunner *sr = srunner_create(ze_program_suite());
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
