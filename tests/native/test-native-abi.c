/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-native-abi.c: the native adapter through the adapter ABI alone
 * (its built-in entry point, no core): handshake, device, USM, programs
 * from ELF bytes, kernels with every argument kind, barriers, atomics,
 * program variables, argument errors and concurrent launches. */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../adapters/native/native.h"
#include "nt.h"

#include "nt-abi.h"


static const sxa_param_member pod_members[] = {
    {SX_SCALAR_I32, 0}, {SX_SCALAR_F32, 4}, {SX_SCALAR_F64, 8}, {SX_SCALAR_I8, 16}};
static const sxa_param_member pair_members[] = {{SX_SCALAR_F32, 0}, {SX_SCALAR_F32, 4}};

static const ksig basic_sigs[] = {
    {"empty", 0, {{0}}},
    {"fill", 2, {PTR, V(SX_SCALAR_I32, 4)}},
    {"ids", 1, {PTR}},
    {"scalars", 11, {PTR, V(SX_SCALAR_I32, 4), V(SX_SCALAR_F32, 4), V(SX_SCALAR_F64, 8),
                     V(SX_SCALAR_I64, 8), V(SX_SCALAR_U32, 4), V(SX_SCALAR_I16, 2),
                     V(SX_SCALAR_I8, 1), V(SX_SCALAR_U64, 8), V(SX_SCALAR_F32, 4),
                     V(SX_SCALAR_F64, 8)}},
    {"bystruct", 5, {PTR, V(SX_SCALAR_I32, 4), SXT_PARAM_STRUCT(24, 8, 4, pod_members),
                     SXT_PARAM_STRUCT(8, 4, 2, pair_members), V(SX_SCALAR_F32, 4)}},
    {"axpy", 3, {PTR, PTR, V(SX_SCALAR_F32, 4)}},
    {"mathf", 2, {PTR, PTR}},
    {"bump", 1, {PTR}},
    {"geometric", 1, {PTR}},
};
#define NBASIC (sizeof(basic_sigs) / sizeof(basic_sigs[0]))

static const ksig barrier_sigs[] = {
    {"reduce", 3, {PTR, PTR, LOC}},
    {"reverse", 3, {PTR, LOC, LOC}},
    {"colsum", 3, {PTR, PTR, LOC}},
};

static const ksig atomic_sigs[] = {
    {"count", 4, {PTR, PTR, PTR, LOC}},
};


/* ------------------------------------------------------------ tests */

START_TEST(handshake)
{
    sxa_adapter_table t = {.size = sizeof(t)};
    ck_assert_int_eq(sxn_get_proc_table(SXA_MAKE_VERSION(2, 0), SXA_TABLE_ADAPTER, &t),
                     SX_ERROR_UNSUPPORTED_VERSION);
    ck_assert_int_eq(sxn_get_proc_table(SXA_MAKE_VERSION(1, 7), SXA_TABLE_ADAPTER, &t), SX_SUCCESS);
    ck_assert_ptr_nonnull(t.init);
    char big[512] = {0};
    *(uint32_t *)big = sizeof(big);
    ck_assert_int_eq(sxn_get_proc_table(SXA_ABI_VERSION, 99, big), SX_ERROR_INVALID_ENUMERATION);
    /* An older core with a shorter table gets only what fits. */
    struct {
        uint32_t size;
        void *init;
        void *canary;
    } small = {offsetof(sxa_adapter_table, fini), NULL, (void *)0x1};
    ck_assert_int_eq(sxn_get_proc_table(SXA_ABI_VERSION, SXA_TABLE_ADAPTER, &small), SX_SUCCESS);
    ck_assert_ptr_nonnull(small.init);
    ck_assert_ptr_eq(small.canary, (void *)0x1);
}
END_TEST

START_TEST(device_info)
{
    char name[256];
    OK(P.get_info(platform, SX_PLATFORM_INFO_NAME, sizeof(name), name, NULL));
    ck_assert_str_eq(name, "libsycl-ext native");
    sx_backend b;
    OK(P.get_info(platform, SX_PLATFORM_INFO_BACKEND, sizeof(b), &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_NATIVE);
    size_t n;
    OK(D.get_info(device, SX_DEVICE_INFO_NAME, 0, NULL, &n));
    ck_assert_uint_gt(n, 1);
    OK(D.get_info(device, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    FAILS(SX_ERROR_INVALID_SIZE, D.get_info(device, SX_DEVICE_INFO_NAME, 1, name, NULL));
    sx_device_type t;
    OK(D.get_info(device, SX_DEVICE_INFO_TYPE, sizeof(t), &t, NULL));
    ck_assert_uint_eq(t, SX_DEVICE_TYPE_CPU);
    size_t wg, wis[3];
    OK(D.get_info(device, SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL));
    ck_assert_uint_ge(wg, 256);
    OK(D.get_info(device, SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES, sizeof(wis), wis, NULL));
    uint64_t lm, gm;
    OK(D.get_info(device, SX_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof(lm), &lm, NULL));
    ck_assert_uint_ge(lm, 32768);
    OK(D.get_info(device, SX_DEVICE_INFO_GLOBAL_MEM_SIZE, sizeof(gm), &gm, NULL));
    ck_assert_uint_gt(gm, 0);
    uint32_t cu;
    OK(D.get_info(device, SX_DEVICE_INFO_MAX_COMPUTE_UNITS, sizeof(cu), &cu, NULL));
    ck_assert_uint_ge(cu, 1);
    sx_aspect_set as;
    OK(D.get_info(device, SX_DEVICE_INFO_ASPECTS, sizeof(as), &as, NULL));
    ck_assert(as & SX_ASPECT_BIT(SX_ASPECT_CPU));
    ck_assert(as & SX_ASPECT_BIT(SX_ASPECT_FP64));
    ck_assert(as & SX_ASPECT_BIT(SX_ASPECT_USM_SHARED_ALLOCATIONS));
    ck_assert(!(as & SX_ASPECT_BIT(SX_ASPECT_GPU)));
    sx_image_kind kinds[8];
    OK(D.get_info(device, SX_DEVICE_INFO_IMAGE_KINDS, sizeof(kinds), kinds, &n));
    ck_assert_uint_eq(n, sizeof(sx_image_kind));
    ck_assert_uint_eq(kinds[0], SX_IMAGE_KIND_HOST_ELF);
    sxa_platform pp;
    OK(D.get_info(device, SX_DEVICE_INFO_PLATFORM, sizeof(pp), &pp, NULL));
    ck_assert_ptr_eq(pp, platform);
    FAILS(SX_ERROR_INVALID_ENUMERATION, D.get_info(device, 999, sizeof(as), &as, NULL));
    uint32_t nd = 7;
    OK(D.get(platform, SX_DEVICE_TYPE_GPU, 0, NULL, &nd));
    ck_assert_uint_eq(nd, 0);
    /* Every object starts with the dispatch pointer given at init. */
    ck_assert_ptr_eq(((sxa_object *)device)->dispatch, services.dispatch);
    ck_assert_ptr_eq(((sxa_object *)queue)->dispatch, services.dispatch);
}
END_TEST

START_TEST(hide_aspects)
{
    OK(A.fini(adapter));
    setenv("SX_NATIVE_HIDE_ASPECTS", "fp64, 28,nonsense", 1);
    OK(A.init(&services, &adapter));
    sx_aspect_set as;
    OK(D.get_info(device, SX_DEVICE_INFO_ASPECTS, sizeof(as), &as, NULL));
    ck_assert(!(as & SX_ASPECT_BIT(SX_ASPECT_FP64)));
    ck_assert(!(as & SX_ASPECT_BIT(SX_ASPECT_ATOMIC64)));
    ck_assert(as & SX_ASPECT_BIT(SX_ASPECT_CPU));
    unsetenv("SX_NATIVE_HIDE_ASPECTS");
}
END_TEST

START_TEST(usm_and_copies)
{
    void *h, *d;
    OK(U.alloc(context, NULL, SX_USM_TYPE_HOST, 100, 0, &h));
    OK(U.alloc(context, device, SX_USM_TYPE_DEVICE, 100, 4096, &d));
    ck_assert_uint_eq((uintptr_t)d % 4096, 0);
    FAILS(SX_ERROR_INVALID_VALUE, U.alloc(context, device, SX_USM_TYPE_DEVICE, 100, 3, &d));
    FAILS(SX_ERROR_INVALID_SIZE, U.alloc(context, device, SX_USM_TYPE_DEVICE, 0, 0, &d));
    uint32_t pat = 0xdeadbeef;
    sxa_event ev;
    OK(E.usm_fill(queue, h, 4, &pat, 100, 0, NULL, &ev));
    sx_event_status st;
    OK(EV.get_status(ev, &st));
    ck_assert_int_eq(st, SX_EVENT_STATUS_COMPLETE);
    uint64_t t0, t1;
    OK(EV.get_profiling(ev, SXA_PROFILING_START, &t0));
    OK(EV.get_profiling(ev, SXA_PROFILING_END, &t1));
    ck_assert_uint_ge(t1, t0);
    OK(EV.wait(1, &ev));
    OK(EV.release(ev));
    ck_assert_uint_eq(((uint32_t *)h)[24], 0xdeadbeef);
    FAILS(SX_ERROR_INVALID_SIZE, E.usm_fill(queue, h, 4, &pat, 99, 0, NULL, NULL));
    FAILS(SX_ERROR_INVALID_VALUE, E.usm_fill(queue, h, 3, &pat, 99, 0, NULL, NULL));
    OK(E.usm_memcpy(queue, 1, d, h, 100, 0, NULL, NULL));
    ck_assert_int_eq(memcmp(d, h, 100), 0);
    FAILS(SX_ERROR_INVALID_EVENT_WAIT_LIST, E.usm_memcpy(queue, 1, d, h, 100, 1, NULL, NULL));
    OK(E.barrier(queue, 0, NULL, &ev));
    OK(EV.release(ev));
    /* freeing what we never allocated is an error, not a crash */
    int local;
    FAILS(SX_ERROR_INVALID_VALUE, U.free(context, &local));
    FAILS(SX_ERROR_INVALID_VALUE, U.free(context, (char *)h + 1));
    OK(U.free(context, h));
    FAILS(SX_ERROR_INVALID_VALUE, U.free(context, h));
    OK(U.free(context, d));
    /* many allocations: the table grows */
    void *ps[500];
    for (int i = 0; i < 500; i++)
        OK(U.alloc(context, device, SX_USM_TYPE_SHARED, 16 + i, 0, &ps[i]));
    for (int i = 0; i < 500; i += 2)
        OK(U.free(context, ps[i]));
    for (int i = 1; i < 500; i += 2)
        OK(U.free(context, ps[i]));
}
END_TEST

START_TEST(bad_binaries)
{
    sxa_program prog;
    unsigned char junk[256] = "not an elf at all";
    FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, junk, sizeof(junk), NULL, &prog));
    FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, junk, 10, NULL, &prog));
    FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_SPIRV, junk, sizeof(junk), NULL, &prog));
    size_t size;
    unsigned char *good = nt_kernel_bytes("native-basic.hso", &size);
    ck_assert_ptr_nonnull(good);
    /* 32-bit class, wrong machine, not a shared object, truncated */
    unsigned char *b = malloc(size);
    memcpy(b, good, size);
    b[4] = 1;
    FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, b, size, NULL, &prog));
    memcpy(b, good, size);
    b[18] = 183;  /* EM_AARCH64 */
    b[19] = 0;
    FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, b, size, NULL, &prog));
    memcpy(b, good, size);
    b[16] = 2;  /* ET_EXEC */
    FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, b, size, NULL, &prog));
    FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, good, 200, NULL, &prog));
    /* section header table pointing past the end */
    memcpy(b, good, size);
    uint64_t far = size * 4;
    memcpy(b + 0x28, &far, 8);
    FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, b, size, NULL, &prog));
    free(b);
    /* the intact image still loads */
    OK(PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, good, size, NULL, &prog));
    OK(PR.build(prog, NULL));
    OK(PR.build(prog, NULL));  /* building twice is harmless */
    size_t n;
    sx_image_kind kind;
    OK(PR.get_binary(prog, &kind, 0, NULL, &n));
    ck_assert_uint_eq(n, size);
    ck_assert_uint_eq(kind, SX_IMAGE_KIND_HOST_ELF);
    OK(PR.release(prog));
    free(good);
}
END_TEST

START_TEST(no_file_left_behind)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    /* the image is not mapped from any file on disk */
    FILE *f = fopen("/proc/self/maps", "r");
    ck_assert_ptr_nonnull(f);
    char line[1024];
    int memfd = 0;
    while (fgets(line, sizeof(line), f)) {
        ck_assert_msg(!strstr(line, "native-basic.hso"), "image mapped from disk: %s", line);
        if (strstr(line, "memfd:sx-native-program"))
            memfd++;
    }
    fclose(f);
    ck_assert_int_gt(memfd, 0);
    OK(PR.release(prog));
}
END_TEST

START_TEST(two_programs_same_image)
{
    /* Two loads of one image are separate: their variables differ. */
    sxa_program a = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_program b = program_of("native-basic.hso", basic_sigs, NBASIC);
    void *pa, *pb;
    size_t sa, sb;
    OK(PR.get_global(a, "counter", &sa, &pa));
    OK(PR.get_global(b, "counter", &sb, &pb));
    ck_assert_ptr_ne(pa, pb);
    ck_assert_uint_eq(sa, 4);
    /* release one, load a third (fd numbers get reused): still distinct */
    OK(PR.release(a));
    sxa_program c = program_of("native-basic.hso", basic_sigs, NBASIC);
    void *pc;
    OK(PR.get_global(c, "counter", &sa, &pc));
    ck_assert_ptr_ne(pc, pb);
    *(int *)pc = 77;
    ck_assert_int_eq(*(int *)pb, 5);
    OK(PR.release(b));
    OK(PR.release(c));
}
END_TEST

START_TEST(kernel_names)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_kernel k;
    FAILS(SX_ERROR_INVALID_KERNEL_NAME, K.create(prog, "nope", &k));
    FAILS(SX_ERROR_INVALID_KERNEL_NAME, K.create(prog, "counter", &k));   /* a variable */
    FAILS(SX_ERROR_INVALID_KERNEL_NAME, K.create(prog, "_Z13get_global_idj", &k));  /* a builtin */
    FAILS(SX_ERROR_INVALID_KERNEL_NAME, K.create(prog, "memcpy", &k));
    OK(K.create(prog, "fill", &k));
    uint32_t na;
    OK(K.get_info(k, SXA_KERNEL_INFO_NUM_ARGS, sizeof(na), &na, NULL));
    ck_assert_uint_eq(na, 2);
    /* the kernel keeps its program alive */
    OK(PR.release(prog));
    int *out = usm(64 * sizeof(int));
    int v = 100;
    sx_arg args[] = {aptr(0, out), aval(1, &v, 4)};
    size_t g = 64;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, args, 0, NULL, NULL));
    ck_assert_int_eq(out[63], 163);
    OK(K.release(k));
    OK(U.free(context, out));
}
END_TEST

static void check_ids(uint32_t dims, const size_t *gs, const size_t *ls, const size_t *off)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_kernel k;
    OK(K.create(prog, "ids", &k));
    size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1}, o[3] = {0, 0, 0};
    for (uint32_t d = 0; d < dims; d++) {
        g[d] = gs[d];
        l[d] = ls ? ls[d] : 0;
        o[d] = off ? off[d] : 0;
    }
    size_t total = g[0] * g[1] * g[2];
    uint32_t *out = usm(total * 8 * sizeof(uint32_t));
    sx_arg arg = aptr(0, out);
    sxa_event ev = NULL;
    OK(E.kernel_launch(queue, k, dims, off, gs, ls, 1, &arg, 0, NULL, &ev));
    OK(EV.wait(1, &ev));
    OK(EV.release(ev));
    /* when the adapter picked the local size, read it back from item 0 */
    if (!ls)
        for (uint32_t d = 0; d < 3; d++)
            l[d] = (out[5] >> (10 * d)) & 1023;
    for (size_t z = 0; z < g[2]; z++)
        for (size_t y = 0; y < g[1]; y++)
            for (size_t x = 0; x < g[0]; x++) {
                size_t lin = (z * g[1] + y) * g[0] + x;
                const uint32_t *r = out + lin * 8;
                size_t id[3] = {x, y, z};
                for (int d = 0; d < 3; d++) {
                    ck_assert_uint_eq(r[d], id[d] + o[d]);
                    ck_assert_uint_eq((r[3] >> (10 * d)) & 1023, id[d] % l[d]);
                    ck_assert_uint_eq((r[4] >> (10 * d)) & 1023, id[d] / l[d]);
                    ck_assert_uint_eq((r[5] >> (10 * d)) & 1023, l[d]);
                    ck_assert_uint_eq((r[6] >> (10 * d)) & 1023, g[d] / l[d]);
                }
                ck_assert_uint_eq(r[7] & 0xff, dims);
                ck_assert_uint_eq((r[7] >> 8) & 0xff, l[0]);
                ck_assert_uint_eq(r[7] >> 16, lin);
            }
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, out));
}

START_TEST(ids_1d)
{
    size_t g = 1000, l = 8, o = 5;
    check_ids(1, &g, &l, &o);
    check_ids(1, &g, NULL, NULL);
    size_t one = 1;
    check_ids(1, &one, NULL, NULL);
}
END_TEST

START_TEST(ids_2d)
{
    size_t g[2] = {24, 10}, l[2] = {6, 5}, o[2] = {1, 2};
    check_ids(2, g, l, o);
    check_ids(2, g, NULL, NULL);
}
END_TEST

START_TEST(ids_3d)
{
    size_t g[3] = {8, 6, 4}, l[3] = {2, 3, 2}, o[3] = {3, 2, 1};
    check_ids(3, g, l, o);
    size_t l1[3] = {1, 1, 1};
    check_ids(3, g, l1, NULL);
}
END_TEST

START_TEST(scalars)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_kernel k;
    OK(K.create(prog, "scalars", &k));
    double *out = usm(16 * sizeof(double));
    int32_t i = -7;
    float f = 2.5f, f2 = -0.125f;
    double d = 1e100, d2 = -3.75;
    int64_t l = -(1ll << 40);
    uint32_t u = 4000000000u;
    int16_t s = -300;
    int8_t c = -5;
    uint64_t ul = 1ull << 52;
    sx_arg args[] = {aval(10, &d2, 8), aptr(0, out), aval(1, &i, 4), aval(2, &f, 4), aval(3, &d, 8),
                     aval(4, &l, 8), aval(5, &u, 4), aval(6, &s, 2), aval(7, &c, 1),
                     aval(8, &ul, 8), aval(9, &f2, 4)};
    size_t g = 1;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 11, args, 0, NULL, NULL));
    ck_assert_double_eq(out[0], -7);
    ck_assert_double_eq(out[1], 2.5);
    ck_assert_double_eq(out[2], 1e100);
    ck_assert_double_eq(out[3], -(double)(1ll << 40));
    ck_assert_double_eq(out[4], 4000000000.0);
    ck_assert_double_eq(out[5], -300);
    ck_assert_double_eq(out[6], -5);
    ck_assert_double_eq(out[7], (double)(1ull << 52));
    ck_assert_double_eq(out[8], -0.125);
    ck_assert_double_eq(out[9], -3.75);
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, out));
}
END_TEST

START_TEST(structs)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_kernel k;
    OK(K.create(prog, "bystruct", &k));
    double *out = usm(8 * sizeof(double));
    struct {
        int32_t a;
        float b;
        double c;
        int8_t d;
    } pod = {42, 1.5f, -2.25, 9};
    struct {
        float x, y;
    } pair = {3.5f, -4.5f};
    ck_assert_uint_eq(sizeof(pod), 24);
    int before = 11;
    float after = 0.5f;
    sx_arg args[] = {aptr(0, out), aval(1, &before, 4), aval(2, &pod, 24), aval(3, &pair, 8),
                     aval(4, &after, 4)};
    size_t g = 4;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 5, args, 0, NULL, NULL));
    double want[] = {11, 42, 1.5, -2.25, 9, 3.5, -4.5, 0.5};
    for (int i = 0; i < 8; i++)
        ck_assert_msg(out[i] == want[i], "out[%d] = %g, want %g", i, out[i], want[i]);
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, out));
}
END_TEST

START_TEST(struct_layout_mismatch)
{
    /* a member offset the C layout does not give is refused at kernel create */
    static const sxa_param_member bad_members[] = {
        {SX_SCALAR_I32, 0}, {SX_SCALAR_F32, 8}, {SX_SCALAR_F64, 16}, {SX_SCALAR_I8, 24}};
    ksig sigs[] = {{"bystruct", 5, {PTR, V(SX_SCALAR_I32, 4), SXT_PARAM_STRUCT(32, 8, 4, bad_members),
                                    SXT_PARAM_STRUCT(8, 4, 2, pair_members), V(SX_SCALAR_F32, 4)}},
                   {"fill", 2, {PTR, V(SX_SCALAR_I32, 3)}}};
    sxa_program prog = program_of("native-basic.hso", sigs, 2);
    sxa_kernel k;
    FAILS(SX_ERROR_INVALID_BINARY, K.create(prog, "bystruct", &k));
    ck_assert_ptr_nonnull(strstr(last_error, "bystruct"));
    FAILS(SX_ERROR_INVALID_BINARY, K.create(prog, "fill", &k));
    OK(PR.release(prog));
}
END_TEST

START_TEST(arg_errors)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_kernel k;
    OK(K.create(prog, "fill", &k));
    int *out = usm(16 * sizeof(int));
    int v = 1;
    int64_t v8 = 1;
    size_t g = 16, l;
    sx_arg good[] = {aptr(0, out), aval(1, &v, 4)};
    sx_arg a1[] = {aptr(0, out)};
    FAILS(SX_ERROR_INVALID_KERNEL_ARGS, E.kernel_launch(queue, k, 1, NULL, &g, NULL, 1, a1, 0, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(last_error, "fill"));
    sx_arg a2[] = {aptr(0, out), aval(1, &v8, 8)};
    FAILS(SX_ERROR_INVALID_ARGUMENT_SIZE, E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, a2, 0, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(last_error, "argument 1"));
    sx_arg a3[] = {aptr(0, out), aval(5, &v, 4)};
    FAILS(SX_ERROR_INVALID_ARGUMENT_INDEX, E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, a3, 0, NULL, NULL));
    sx_arg a4[] = {aptr(0, out), aptr(0, out)};
    FAILS(SX_ERROR_INVALID_ARGUMENT_INDEX, E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, a4, 0, NULL, NULL));
    sx_arg a5[] = {aptr(0, out), aptr(1, out)};
    FAILS(SX_ERROR_INVALID_KERNEL_ARGS, E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, a5, 0, NULL, NULL));
    sx_arg a6[] = {aptr(0, out), aloc(1, 4)};
    FAILS(SX_ERROR_INVALID_KERNEL_ARGS, E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, a6, 0, NULL, NULL));
    sx_arg a7[] = {aptr(0, out), aval(1, NULL, 4)};
    FAILS(SX_ERROR_INVALID_NULL_POINTER, E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, a7, 0, NULL, NULL));
    /* a pointer passed as its value bytes is accepted */
    sx_arg a8[] = {aval(0, &out, sizeof(out)), aval(1, &v, 4)};
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, a8, 0, NULL, NULL));
    ck_assert_int_eq(out[15], 16);
    /* work sizes */
    l = 5;
    FAILS(SX_ERROR_INVALID_WORK_GROUP_SIZE, E.kernel_launch(queue, k, 1, NULL, &g, &l, 2, good, 0, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(last_error, "5"));
    size_t big = 2048, lb = 2048;
    FAILS(SX_ERROR_INVALID_WORK_GROUP_SIZE, E.kernel_launch(queue, k, 1, NULL, &big, &lb, 2, good, 0, NULL, NULL));
    FAILS(SX_ERROR_INVALID_WORK_DIMENSION, E.kernel_launch(queue, k, 4, NULL, &g, NULL, 2, good, 0, NULL, NULL));
    FAILS(SX_ERROR_INVALID_WORK_DIMENSION, E.kernel_launch(queue, k, 0, NULL, &g, NULL, 2, good, 0, NULL, NULL));
    size_t zero = 0;
    FAILS(SX_ERROR_INVALID_VALUE, E.kernel_launch(queue, k, 1, NULL, &zero, NULL, 2, good, 0, NULL, NULL));
    size_t g3[3] = {64, 64, 1}, l3[3] = {64, 32, 1};
    FAILS(SX_ERROR_INVALID_WORK_GROUP_SIZE, E.kernel_launch(queue, k, 3, NULL, g3, l3, 2, good, 0, NULL, NULL));
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, good, 0, NULL, NULL));
    ck_assert_int_eq(out[15], 16);
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, out));
}
END_TEST

START_TEST(no_signature)
{
    /* Without a signature the first launch's integers and pointers are used. */
    sxa_program prog = program_of("native-basic.hso", NULL, 0);
    sxa_kernel k;
    OK(K.create(prog, "fill", &k));
    uint32_t na;
    FAILS(SX_ERROR_UNSUPPORTED_FEATURE, K.get_info(k, SXA_KERNEL_INFO_NUM_ARGS, sizeof(na), &na, NULL));
    int *out = usm(8 * sizeof(int));
    int v = 3;
    sx_arg args[] = {aval(1, &v, 4), aptr(0, out)};
    size_t g = 8;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, args, 0, NULL, NULL));
    ck_assert_int_eq(out[7], 10);
    OK(K.get_info(k, SXA_KERNEL_INFO_NUM_ARGS, sizeof(na), &na, NULL));
    ck_assert_uint_eq(na, 2);
    /* later launches must match the first */
    int64_t v8 = 1;
    sx_arg bad[] = {aval(1, &v8, 8), aptr(0, out)};
    FAILS(SX_ERROR_INVALID_ARGUMENT_SIZE, E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, bad, 0, NULL, NULL));
    sxa_kernel k2;
    OK(K.create(prog, "bystruct", &k2));
    char pod[24] = {0};
    sx_arg sargs[] = {aptr(0, out), aval(1, &v, 4), aval(2, pod, 24), aval(3, pod, 8), aval(4, &v, 4)};
    FAILS(SX_ERROR_INVALID_ARGUMENT_SIZE, E.kernel_launch(queue, k2, 1, NULL, &g, NULL, 5, sargs, 0, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(last_error, "signature"));
    OK(K.release(k2));
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, out));
}
END_TEST

START_TEST(axpy_many_groups)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_kernel k;
    OK(K.create(prog, "axpy", &k));
    size_t n = 1 << 16;
    float *x = usm(n * sizeof(float)), *y = usm(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)i;
        y[i] = 1.0f;
    }
    float a = 2.0f;
    sx_arg args[] = {aptr(0, y), aptr(1, x), aval(2, &a, 4)};
    size_t l = 64;
    OK(E.kernel_launch(queue, k, 1, NULL, &n, &l, 3, args, 0, NULL, NULL));
    for (size_t i = 0; i < n; i++)
        ck_assert_float_eq(y[i], 2.0f * (float)i + 1.0f);
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, x));
    OK(U.free(context, y));
}
END_TEST

START_TEST(math)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_kernel k;
    OK(K.create(prog, "mathf", &k));
    float *f = usm(8 * sizeof(float));
    double *d = usm(8 * sizeof(double));
    float fi[] = {0, 16, -2, 1, 3, 2.5f};
    double di[] = {0, 16, -2, 1, 3, 2.5};
    memcpy(f, fi, sizeof(fi));
    memcpy(d, di, sizeof(di));
    sx_arg args[] = {aptr(0, f), aptr(1, d)};
    size_t g = 1;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 2, args, 0, NULL, NULL));
    ck_assert_float_eq_tol(f[0], 4 + 2 + 1 + 3 + 2 + 3, 1e-5);
    ck_assert_float_eq_tol(f[6], 1 + 0 + 8 + 0 + 1 + 7 + 7, 1e-5);
    ck_assert_double_eq_tol(d[0], 4 + 2 + 1 + 3 + 2 + 3, 1e-12);
    ck_assert_double_eq_tol(d[6], 1 + 0 + 8 + 0 + 1 + 7 + 7, 1e-12);
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, f));
    OK(U.free(context, d));
}
END_TEST

START_TEST(geometric)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_kernel k;
    OK(K.create(prog, "geometric", &k));
    float *out = usm(16 * sizeof(float));
    sx_arg a = aptr(0, out);
    size_t g = 1;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 1, &a, 0, NULL, NULL));
    /* a3 = (1,2,2), b3 = (0,1,0); a4 = (1,1,1,1), b4 = (1,2,3,4) */
    float want[] = {5, 2, 3, 10, sqrtf(0 + 1 + 4 + 9), 1.0f / 3, -2, 1, -2, 0.8f};
    for (int i = 0; i < 10; i++)
        ck_assert_msg(fabsf(out[i] - want[i]) < 1e-5f, "out[%d] = %g, want %g", i, out[i], want[i]);
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, out));
}
END_TEST

START_TEST(barrier_reduce)
{
    sxa_program prog = program_of("native-barrier.hso", barrier_sigs, 3);
    sxa_kernel k;
    OK(K.create(prog, "reduce", &k));
    size_t n = 4096, l = 256;
    int *in = usm(n * sizeof(int)), *out = usm(n / l * sizeof(int));
    for (size_t i = 0; i < n; i++)
        in[i] = (int)(i * 7 % 13);
    sx_arg args[] = {aptr(0, in), aptr(1, out), aloc(2, l * sizeof(int))};
    OK(E.kernel_launch(queue, k, 1, NULL, &n, &l, 3, args, 0, NULL, NULL));
    for (size_t gi = 0; gi < n / l; gi++) {
        int s = 0;
        for (size_t i = gi * l; i < (gi + 1) * l; i++)
            s += in[i];
        ck_assert_int_eq(out[gi], s);
    }
    /* the largest group the device allows */
    size_t l2 = 1024;
    OK(E.kernel_launch(queue, k, 1, NULL, &n, &l2, 3, args, 0, NULL, NULL));
    long total = 0;
    for (size_t i = 0; i < 1024; i++)
        total += in[i];
    ck_assert_int_eq(out[0], total);
    OK(K.release(k));

    OK(K.create(prog, "reverse", &k));
    for (size_t i = 0; i < n; i++)
        in[i] = (int)i;
    size_t l3 = 128;
    sx_arg rargs[] = {aptr(0, in), aloc(1, l3 * sizeof(int)), aloc(2, l3 * sizeof(int))};
    OK(E.kernel_launch(queue, k, 1, NULL, &n, &l3, 3, rargs, 0, NULL, NULL));
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(in[i], (int)((i / l3) * l3 + (l3 - 1 - i % l3)));
    OK(K.release(k));

    OK(K.create(prog, "colsum", &k));
    size_t g2[2] = {32, 16}, l2d[2] = {8, 4};
    int *m = usm(32 * 16 * sizeof(int)), *cs = usm(32 * 16 * sizeof(int));
    for (int i = 0; i < 32 * 16; i++)
        m[i] = i;
    sx_arg cargs[] = {aptr(0, m), aptr(1, cs), aloc(2, 8 * 4 * sizeof(int))};
    OK(E.kernel_launch(queue, k, 2, NULL, g2, l2d, 3, cargs, 0, NULL, NULL));
    for (int gy = 0; gy < 4; gy++)
        for (int x = 0; x < 32; x++) {
            int s = 0;
            for (int y = gy * 4; y < gy * 4 + 4; y++)
                s += m[y * 32 + x];
            ck_assert_int_eq(cs[gy * 32 + x], s);
        }
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, in));
    OK(U.free(context, out));
    OK(U.free(context, m));
    OK(U.free(context, cs));
}
END_TEST

START_TEST(local_limits)
{
    sxa_program prog = program_of("native-barrier.hso", barrier_sigs, 3);
    sxa_kernel k;
    OK(K.create(prog, "reduce", &k));
    int *in = usm(64 * sizeof(int)), *out = usm(64 * sizeof(int));
    size_t n = 64, l = 64;
    sx_arg a1[] = {aptr(0, in), aptr(1, out), aloc(2, 1 << 20)};
    FAILS(SX_ERROR_OUT_OF_RESOURCES, E.kernel_launch(queue, k, 1, NULL, &n, &l, 3, a1, 0, NULL, NULL));
    sx_arg a2[] = {aptr(0, in), aptr(1, out), aloc(2, 0)};
    FAILS(SX_ERROR_INVALID_ARGUMENT_SIZE, E.kernel_launch(queue, k, 1, NULL, &n, &l, 3, a2, 0, NULL, NULL));
    sx_arg a3[] = {aptr(0, in), aptr(1, out), {SX_ARG_LOCAL, 2, 64, in}};
    FAILS(SX_ERROR_INVALID_VALUE, E.kernel_launch(queue, k, 1, NULL, &n, &l, 3, a3, 0, NULL, NULL));
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, in));
    OK(U.free(context, out));
}
END_TEST

START_TEST(atomics)
{
    sxa_program prog = program_of("native-atomics.hso", atomic_sigs, 1);
    sxa_kernel k;
    OK(K.create(prog, "count", &k));
    int *c = usm(16 * sizeof(int));
    uint32_t *u = usm(4 * sizeof(uint32_t));
    int64_t *l = usm(4 * sizeof(int64_t));
    c[4] = 1 << 30;
    c[7] = -1;
    size_t n = 2048, ls = 64;
    sx_arg args[] = {aptr(0, c), aptr(1, u), aptr(2, l), aloc(3, sizeof(int))};
    OK(E.kernel_launch(queue, k, 1, NULL, &n, &ls, 4, args, 0, NULL, NULL));
    ck_assert_int_eq(c[0], 2048);
    ck_assert_int_eq(c[1], 4096);
    ck_assert_int_eq(c[2], -2048);
    ck_assert_int_eq(c[3], 2047);
    ck_assert_int_eq(c[4], 0);
    ck_assert_int_eq(c[5], 0x7fffffff);
    ck_assert_int_eq(c[6], 0);
    ck_assert_int_eq(c[7], (int)0xffffff00);
    ck_assert_int_gt(c[8], 0);
    ck_assert_int_eq(c[9], -2048);
    ck_assert_int_eq(c[10], 7);
    ck_assert_int_eq(c[11], 2048);
    ck_assert_int_eq(c[12], 4096);
    ck_assert_int_eq(c[13], 2048);
    ck_assert_uint_eq(u[0], 3 * 2048);
    ck_assert_uint_eq(u[1], 2047);
    ck_assert_int_eq(l[0], 2048ll << 33);
    ck_assert_int_eq(l[1], 2048);
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, c));
    OK(U.free(context, u));
    OK(U.free(context, l));
}
END_TEST

START_TEST(program_variables)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    size_t size;
    void *addr;
    OK(PR.get_global(prog, "counter", &size, &addr));
    ck_assert_uint_eq(size, sizeof(int));
    ck_assert_int_eq(*(int *)addr, 5);
    OK(PR.get_global(prog, "table", &size, NULL));
    ck_assert_uint_eq(size, 16 * sizeof(float));
    FAILS(SX_ERROR_INVALID_GLOBAL_NAME, PR.get_global(prog, "nope", &size, &addr));
    FAILS(SX_ERROR_INVALID_GLOBAL_NAME, PR.get_global(prog, "fill", &size, &addr));  /* a function */
    ck_assert_ptr_nonnull(strstr(last_error, "fill"));
    FAILS(SX_ERROR_INVALID_GLOBAL_NAME, PR.get_global(prog, "stdout", &size, &addr));

    int v = 40;
    OK(E.global_write(queue, prog, "counter", 1, sizeof(v), 0, &v, 0, NULL, NULL));
    float t = 9.0f;
    sxa_event ev;
    OK(E.global_write(queue, prog, "table", 1, sizeof(t), 2 * sizeof(float), &t, 0, NULL, &ev));
    OK(EV.release(ev));
    sxa_kernel k;
    OK(K.create(prog, "bump", &k));
    int *out = usm(2 * sizeof(int));
    sx_arg arg = aptr(0, out);
    size_t g = 1;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 1, &arg, 0, NULL, NULL));
    ck_assert_int_eq(out[0], 41);
    ck_assert_int_eq(out[1], 9);
    int back = 0;
    OK(E.global_read(queue, prog, "counter", 1, sizeof(back), 0, &back, 0, NULL, NULL));
    ck_assert_int_eq(back, 41);
    float tb[16];
    OK(E.global_read(queue, prog, "table", 1, sizeof(tb), 0, tb, 0, NULL, NULL));
    ck_assert_float_eq(tb[0], 1.0f);
    ck_assert_float_eq(tb[2], 9.0f);
    /* bounds */
    FAILS(SX_ERROR_INVALID_VALUE, E.global_read(queue, prog, "counter", 1, 8, 0, tb, 0, NULL, NULL));
    ck_assert_ptr_nonnull(strstr(last_error, "counter"));
    FAILS(SX_ERROR_INVALID_VALUE, E.global_write(queue, prog, "table", 1, 4, 64, &t, 0, NULL, NULL));
    FAILS(SX_ERROR_INVALID_VALUE, E.global_write(queue, prog, "table", 1, SIZE_MAX, 4, &t, 0, NULL, NULL));
    FAILS(SX_ERROR_INVALID_VALUE, E.global_write(queue, prog, "table", 1, 4, SIZE_MAX, &t, 0, NULL, NULL));
    OK(E.global_write(queue, prog, "table", 1, 4, 60, &t, 0, NULL, NULL));
    OK(E.global_write(queue, prog, "table", 1, 0, 64, &t, 0, NULL, NULL));
    FAILS(SX_ERROR_INVALID_GLOBAL_NAME, E.global_read(queue, prog, "missing", 1, 4, 0, tb, 0, NULL, NULL));
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, out));
}
END_TEST

/* ---- many threads launching one kernel with their own arguments */
struct worker_arg {
    sxa_kernel fill, reduce;
    int id;
    int ok;
};

static void *launcher(void *p)
{
    struct worker_arg *w = p;
    int *out = NULL, *in = NULL, *sums = NULL;
    w->ok = 0;
    if (U.alloc(context, device, SX_USM_TYPE_SHARED, 512 * sizeof(int), 0, (void **)&out) ||
        U.alloc(context, device, SX_USM_TYPE_SHARED, 512 * sizeof(int), 0, (void **)&in) ||
        U.alloc(context, device, SX_USM_TYPE_SHARED, 8 * sizeof(int), 0, (void **)&sums))
        return NULL;
    for (int i = 0; i < 512; i++)
        in[i] = w->id;
    int good = 1;
    for (int rep = 0; rep < 50 && good; rep++) {
        int v = w->id * 1000 + rep;
        sx_arg args[] = {aptr(0, out), aval(1, &v, 4)};
        size_t g = 512, l = 16;
        if (E.kernel_launch(queue, w->fill, 1, NULL, &g, &l, 2, args, 0, NULL, NULL))
            good = 0;
        for (int i = 0; i < 512 && good; i++)
            if (out[i] != v + i)
                good = 0;
        size_t one = 1;
        if (E.kernel_launch(queue, w->fill, 1, NULL, &one, NULL, 2, args, 0, NULL, NULL) || out[0] != v)
            good = 0;
        sx_arg rargs[] = {aptr(0, in), aptr(1, sums), aloc(2, 64 * sizeof(int))};
        size_t lr = 64;
        if (E.kernel_launch(queue, w->reduce, 1, NULL, &g, &lr, 3, rargs, 0, NULL, NULL))
            good = 0;
        for (int i = 0; i < 8 && good; i++)
            if (sums[i] != 64 * w->id)
                good = 0;
    }
    U.free(context, out);
    U.free(context, in);
    U.free(context, sums);
    w->ok = good;
    return NULL;
}

START_TEST(concurrent_launches)
{
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_program bprog = program_of("native-barrier.hso", barrier_sigs, 3);
    sxa_kernel fill, reduce;
    OK(K.create(prog, "fill", &fill));
    OK(K.create(bprog, "reduce", &reduce));
    enum { N = 8 };
    pthread_t th[N];
    struct worker_arg w[N];
    for (int i = 0; i < N; i++) {
        w[i] = (struct worker_arg){fill, reduce, i + 1, 0};
        ck_assert_int_eq(pthread_create(&th[i], NULL, launcher, &w[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        ck_assert_msg(w[i].ok, "thread %d saw wrong results", i);
    }
    OK(K.release(fill));
    OK(K.release(reduce));
    OK(PR.release(prog));
    OK(PR.release(bprog));
}
END_TEST



static const ksig link_sigs[] = {{"linked", 1, {PTR}}};

static void run_linked(sxa_program linked, int shared_val, int scale)
{
    sxa_kernel k;
    OK(K.create(linked, "linked", &k));
    int *out = usm(16 * sizeof(int));
    sx_arg a = aptr(0, out);
    size_t g = 16;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, NULL, 1, &a, 0, NULL, NULL));
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(out[i], (i + shared_val) * 10 * scale);
    OK(K.release(k));
    OK(U.free(context, out));
}

START_TEST(link_programs)
{
    ck_assert_ptr_nonnull(PR.compile);
    ck_assert_ptr_nonnull(PR.link);
    sxa_program a = compiled("native-link-a.hso", link_sigs, 1);
    sxa_program b = compiled("native-link-b.hso", NULL, 0);
    /* alone, a cannot resolve helper() */
    sxa_program alone = compiled("native-link-a.hso", link_sigs, 1);
    FAILS(SX_ERROR_BUILD_FAILURE, PR.build(alone, NULL));
    ck_assert_msg(strstr(last_error, "undefined symbol"), "%s", last_error);
    OK(PR.release(alone));

    sxa_program ab[] = {a, b}, l1, l2;
    OK(PR.link(context, device, 2, ab, NULL, &l1));
    run_linked(l1, 3, 2);
    /* a second link of the same images is a separate program */
    sxa_program ba[] = {b, a};
    OK(PR.link(context, device, 2, ba, NULL, &l2));
    int v = 5;
    OK(E.global_write(queue, l2, "scale", 1, sizeof(v), 0, &v, 0, NULL, NULL));
    OK(E.global_write(queue, l2, "shared_val", 1, sizeof(v), 0, &v, 0, NULL, NULL));
    run_linked(l2, 5, 5);
    run_linked(l1, 3, 2);
    size_t size;
    void *addr;
    OK(PR.get_global(l1, "scale", &size, &addr));
    ck_assert_uint_eq(size, sizeof(int));
    ck_assert_int_eq(*(int *)addr, 2);
    FAILS(SX_ERROR_INVALID_GLOBAL_NAME, PR.get_global(l1, "helper", &size, &addr));
    FAILS(SX_ERROR_INVALID_GLOBAL_NAME, PR.get_global(l1, "sxn_builtins_abi", &size, &addr));
    sxa_kernel k;
    FAILS(SX_ERROR_INVALID_KERNEL_NAME, K.create(l1, "_Z13get_global_idj", &k));
    /* a linked program's binary is the container of its images (test-native-wg) */
    sx_image_kind kind;
    OK(PR.get_binary(l1, &kind, 0, NULL, &size));
    ck_assert_uint_gt(size, 16);
    /* the inputs stay the caller's: release them first */
    OK(PR.release(a));
    OK(PR.release(b));
    run_linked(l1, 3, 2);
    OK(PR.release(l1));
    OK(PR.release(l2));
}
END_TEST

START_TEST(link_failures)
{
    sxa_program a = compiled("native-link-a.hso", link_sigs, 1);
    sxa_program c = compiled("native-link-c.hso", NULL, 0);
    sxa_program ac[] = {a, c}, out;
    FAILS(SX_ERROR_LINK_FAILURE, PR.link(context, device, 2, ac, NULL, &out));
    ck_assert_msg(strstr(last_error, "undefined symbol"), "%s", last_error);
    FAILS(SX_ERROR_INVALID_VALUE, PR.link(context, device, 0, ac, NULL, &out));
    OK(PR.release(a));
    OK(PR.release(c));
}
END_TEST

START_TEST(link_many)
{
    /* namespaces are given back when a linked program is released */
    sxa_program a = compiled("native-link-a.hso", link_sigs, 1);
    sxa_program b = compiled("native-link-b.hso", NULL, 0);
    sxa_program ab[] = {a, b};
    for (int i = 0; i < 40; i++) {
        sxa_program l;
        OK(PR.link(context, device, 2, ab, NULL, &l));
        if (i % 10 == 0)
            run_linked(l, 3, 2);
        OK(PR.release(l));
    }
    /* and how many can live at once */
    sxa_program live[32];
    int n = 0;
    while (n < 32 && PR.link(context, device, 2, ab, NULL, &live[n]) == SX_SUCCESS)
        n++;
    fprintf(stderr, "link_many: %d linked programs alive at once (%s)\n", n, n < 32 ? last_error : "");
    ck_assert_int_ge(n, 3);
    run_linked(live[n - 1], 3, 2);
    for (int i = 0; i < n; i++)
        OK(PR.release(live[i]));
    sxa_program l;
    OK(PR.link(context, device, 2, ab, NULL, &l));
    OK(PR.release(l));
    OK(PR.release(a));
    OK(PR.release(b));
}
END_TEST

START_TEST(plain_c_kernel)
{
    ksig sig[] = {{"csquare", 2, {PTR, V(SX_SCALAR_I32, 4)}}};
    sxa_program prog = program_of("native-plain.hso", sig, 1);
    sxa_kernel k;
    OK(K.create(prog, "csquare", &k));
    int *out = usm(100 * sizeof(int));
    int n = 7;
    sx_arg args[] = {aptr(0, out), aval(1, &n, 4)};
    size_t g = 100, l = 10;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, &l, 2, args, 0, NULL, NULL));
    for (int i = 0; i < 100; i++)
        ck_assert_int_eq(out[i], i * i + 7);
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, out));
}
END_TEST

START_TEST(one_thread_small_stacks)
{
    /* no pool threads: the caller runs every group; small fiber stacks */
    OK(A.fini(adapter));
    setenv("SX_NATIVE_THREADS", "1", 1);
    setenv("SX_NATIVE_STACK_SIZE", "16384", 1);
    OK(A.init(&services, &adapter));
    sxa_program prog = program_of("native-barrier.hso", barrier_sigs, 3);
    sxa_kernel k;
    OK(K.create(prog, "reduce", &k));
    size_t n = 8192, l = 512;
    int *in = usm(n * sizeof(int)), *out = usm(n / l * sizeof(int));
    for (size_t i = 0; i < n; i++)
        in[i] = 1;
    sx_arg args[] = {aptr(0, in), aptr(1, out), aloc(2, l * sizeof(int))};
    OK(E.kernel_launch(queue, k, 1, NULL, &n, &l, 3, args, 0, NULL, NULL));
    for (size_t i = 0; i < n / l; i++)
        ck_assert_int_eq(out[i], 512);
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, in));
    OK(U.free(context, out));
    unsetenv("SX_NATIVE_THREADS");
    unsetenv("SX_NATIVE_STACK_SIZE");
}
END_TEST

START_TEST(reinit)
{
    /* fini releases the pool, the per-thread scratch and the builtins;
     * a new init starts clean */
    for (int round = 0; round < 3; round++) {
        sxa_program prog = program_of("native-barrier.hso", barrier_sigs, 3);
        sxa_kernel k;
        OK(K.create(prog, "reduce", &k));
        size_t n = 1024, l = 64;
        int *in = usm(n * sizeof(int)), *out = usm(n / l * sizeof(int));
        for (size_t i = 0; i < n; i++)
            in[i] = round;
        sx_arg args[] = {aptr(0, in), aptr(1, out), aloc(2, l * sizeof(int))};
        OK(E.kernel_launch(queue, k, 1, NULL, &n, &l, 3, args, 0, NULL, NULL));
        ck_assert_int_eq(out[15], 64 * round);
        OK(K.release(k));
        OK(PR.release(prog));
        OK(U.free(context, in));
        OK(U.free(context, out));
        OK(Q.release(queue));
        OK(C.release(context));
        OK(A.fini(adapter));
        OK(A.init(&services, &adapter));
        OK(C.create(1, &device, &context));
        OK(Q.create(context, device, 0, &queue));
    }
}
END_TEST

START_TEST(after_fork)
{
    /* the pool is rebuilt in a child process */
    sxa_program prog = program_of("native-basic.hso", basic_sigs, NBASIC);
    sxa_kernel k;
    OK(K.create(prog, "fill", &k));
    int *out = usm(4096 * sizeof(int));
    int v = 1;
    sx_arg args[] = {aptr(0, out), aval(1, &v, 4)};
    size_t g = 4096, l = 16;
    OK(E.kernel_launch(queue, k, 1, NULL, &g, &l, 2, args, 0, NULL, NULL));
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        v = 2;
        int rc = E.kernel_launch(queue, k, 1, NULL, &g, &l, 2, args, 0, NULL, NULL);
        _exit(rc == SX_SUCCESS && out[4095] == 4097 ? 0 : 1);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
    ck_assert_int_eq(out[4095], 4096);  /* the parent's memory is its own */
    OK(E.kernel_launch(queue, k, 1, NULL, &g, &l, 2, args, 0, NULL, NULL));
    OK(K.release(k));
    OK(PR.release(prog));
    OK(U.free(context, out));
}
END_TEST

START_TEST(module_build)
{
    /* The same adapter as a loadable module exports only the entry point. */
    const char *dir = getenv("SX_TEST_BUILDDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/adapters/native/.libs/sx-adapter-native.so", dir ? dir : ".");
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(dl != NULL, "%s", dlerror());
    sxa_get_proc_table_fn fn = (sxa_get_proc_table_fn)dlsym(dl, SXA_ENTRY_SYMBOL);
    ck_assert_ptr_nonnull(fn);
    ck_assert_ptr_null(dlsym(dl, "sxn_get_proc_table"));
    ck_assert_ptr_null(dlsym(dl, "sxn_kernel_launch"));
    sxa_adapter_table ta = {.size = sizeof(ta)};
    sxa_platform_table tp = {.size = sizeof(tp)};
    ck_assert_int_eq(fn(SXA_ABI_VERSION, SXA_TABLE_ADAPTER, &ta), SX_SUCCESS);
    ck_assert_int_eq(fn(SXA_ABI_VERSION, SXA_TABLE_PLATFORM, &tp), SX_SUCCESS);
    ck_assert_int_eq(fn(SXA_MAKE_VERSION(0, 9), SXA_TABLE_ADAPTER, &ta), SX_ERROR_UNSUPPORTED_VERSION);
    sxa_adapter a2;
    ck_assert_int_eq(ta.init(&services, &a2), SX_SUCCESS);
    uint32_t n = 0;
    ck_assert_int_eq(tp.get(a2, 0, NULL, &n), SX_SUCCESS);
    ck_assert_uint_eq(n, 1);
    ck_assert_int_eq(ta.fini(a2), SX_SUCCESS);
    dlclose(dl);
}
END_TEST

START_TEST(missing_builtins)
{
    OK(A.fini(adapter));
    setenv("SX_NATIVE_BUILTINS", "/nonexistent/sx-native-builtins.so", 1);
    OK(A.init(&services, &adapter));
    size_t size;
    void *bytes = nt_kernel_bytes("native-basic.hso", &size);
    sxa_program prog;
    OK(PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, bytes, size, NULL, &prog));
    free(bytes);
    FAILS(SX_ERROR_OUT_OF_RESOURCES, PR.build(prog, NULL));
    ck_assert_ptr_nonnull(strstr(last_error, "SX_NATIVE_BUILTINS"));
    OK(PR.release(prog));
}
END_TEST

int main(void)
{
    nt_require_kernels();
    Suite *s = suite_create("native-abi");
    /* NT_ONLY=name runs one test (with CK_FORK=no under a debugger);
     * NT_SKIP=a,b leaves tests out. */
    const char *only = getenv("NT_ONLY");
#define ADD(t) \
    if ((!only || strcmp(only, #t) == 0) && !nt_skipped(#t)) \
    tcase_add_test(tc, t)
    TCase *tc = tcase_create("abi");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    ADD(handshake);
    ADD(device_info);
    ADD(hide_aspects);
    ADD(usm_and_copies);
    ADD(bad_binaries);
    ADD(no_file_left_behind);
    ADD(two_programs_same_image);
    ADD(kernel_names);
    ADD(ids_1d);
    ADD(ids_2d);
    ADD(ids_3d);
    ADD(scalars);
    ADD(structs);
    ADD(struct_layout_mismatch);
    ADD(arg_errors);
    ADD(no_signature);
    ADD(axpy_many_groups);
    ADD(math);
    ADD(geometric);
    ADD(barrier_reduce);
    ADD(local_limits);
    ADD(atomics);
    ADD(program_variables);
    ADD(concurrent_launches);
    ADD(link_programs);
    ADD(link_failures);
    ADD(link_many);
    ADD(plain_c_kernel);
    ADD(one_thread_small_stacks);
    ADD(reinit);
    ADD(after_fork);
    ADD(module_build);
    ADD(missing_builtins);
    suite_add_tcase(s, tc);
    return nt_run(s);
}
