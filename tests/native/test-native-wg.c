/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-native-wg.c: compiled work-group images (adapters/native/wg.h)
 * through the adapter ABI: one call per group with every argument kind,
 * kernel-scope local and private memory, the fiber fallback, program
 * variables, damaged tables refused, linking through import slots (1000
 * linked programs alive at once), and the binary of a linked program
 * (a container) rebuilt without a link, hostile containers refused. */
#include <pthread.h>
#include <time.h>

#include "nt-abi.h"

static const ksig wg_sigs[] = {
    {"empty", 0, {{0}}},
    {"saxpy", 3, {V(SX_SCALAR_F32, 4), PTR, PTR}},
    {"reduce", 3, {PTR, PTR, LOC}},
    {"matmul", 4, {PTR, PTR, PTR, V(SX_SCALAR_I32, 4)}},
    {"smooth", 3, {PTR, V(SX_SCALAR_I32, 4), LOC}},
    {"ids", 1, {PTR}},
    {"fiber_reverse", 2, {PTR, LOC}},
    {"bump", 1, {PTR}},
    {"scratch", 2, {PTR, PTR}},
    {"which_table", 1, {PTR}},
};
#define NWG (sizeof(wg_sigs) / sizeof(wg_sigs[0]))

static sxa_kernel kernel_of(sxa_program p, const char *name)
{
    sxa_kernel k;
    OK(K.create(p, name, &k));
    return k;
}

static void launch(sxa_kernel k, uint32_t dims, const size_t *off, const size_t *g, const size_t *l, uint32_t n,
                   const sx_arg *a)
{
    OK(E.kernel_launch(queue, k, dims, off, g, l, n, a, 0, NULL, NULL));
}

START_TEST(wg_saxpy)
{
    sxa_program p = program_of("native-wg.hso", wg_sigs, NWG);
    sxa_kernel k = kernel_of(p, "saxpy");
    size_t n = 1 << 16;
    float *x = usm(n * sizeof(float)), *y = usm(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)i + 0.5f;
        y[i] = 1.0f;
    }
    float a = 2.0f;
    sx_arg args[] = {aval(0, &a, 4), aptr(1, x), aptr(2, y)};
    launch(k, 1, NULL, &n, NULL, 3, args);  /* the adapter picks the group size */
    size_t l = 64;
    launch(k, 1, NULL, &n, &l, 3, args);
    size_t one = 1;  /* one group of one: inline */
    launch(k, 1, NULL, &one, NULL, 3, args);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(y[i] == (i == 0 ? 4.0f : 1.0f + 4.0f * ((float)i + 0.5f)), "y[%zu] = %g", i, y[i]);
    /* argument checks as for any kernel */
    FAILS(SX_ERROR_INVALID_KERNEL_ARGS, E.kernel_launch(queue, k, 1, NULL, &n, NULL, 2, args, 0, NULL, NULL));
    sx_arg wrong[] = {aptr(0, x), aptr(1, x), aptr(2, y)};
    FAILS(SX_ERROR_INVALID_KERNEL_ARGS, E.kernel_launch(queue, k, 1, NULL, &n, NULL, 3, wrong, 0, NULL, NULL));
    OK(K.release(k));
    OK(U.free(context, x));
    OK(U.free(context, y));
    OK(PR.release(p));
}
END_TEST

START_TEST(wg_barrier_kernels)
{
    sxa_program p = program_of("native-wg.hso", wg_sigs, NWG);
    /* reduction: local-memory argument, many groups over the pool */
    sxa_kernel k = kernel_of(p, "reduce");
    size_t n = 1 << 16, l = 256, ng = n / l;
    float *in = usm(n * sizeof(float)), *out = usm(ng * sizeof(float));
    for (size_t i = 0; i < n; i++)
        in[i] = (float)(i % 7);
    sx_arg ra[] = {aptr(0, in), aptr(1, out), aloc(2, l * sizeof(float))};
    launch(k, 1, NULL, &n, &l, 3, ra);
    for (size_t g = 0; g < ng; g++) {
        float want = 0;
        for (size_t i = g * l; i < (g + 1) * l; i++)
            want += (float)(i % 7);
        ck_assert_msg(out[g] == want, "group %zu: %g, want %g", g, out[g], want);
    }
    OK(K.release(k));

    /* tiled matmul: 2-D groups, kernel-scope local tiles, private sums */
    k = kernel_of(p, "matmul");
    int N = 64;
    float *Am = usm(N * N * sizeof(float)), *B = usm(N * N * sizeof(float)), *Cm = usm(N * N * sizeof(float));
    for (int i = 0; i < N * N; i++) {
        Am[i] = (float)(i % 5);
        B[i] = (float)(i % 3) - 1;
    }
    sx_arg ma[] = {aptr(0, Am), aptr(1, B), aptr(2, Cm), aval(3, &N, 4)};
    size_t g2[2] = {(size_t)N, (size_t)N}, l2[2] = {16, 16};
    launch(k, 2, NULL, g2, l2, 4, ma);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            float want = 0;
            for (int i = 0; i < N; i++)
                want += Am[r * N + i] * B[i * N + c];
            ck_assert_msg(Cm[r * N + c] == want, "C[%d][%d] = %g, want %g", r, c, Cm[r * N + c], want);
        }
    uint64_t lm = 0;
    OK(K.get_info(k, SXA_KERNEL_INFO_LOCAL_MEM_SIZE, sizeof(lm), &lm, NULL));
    ck_assert_uint_eq(lm, 2 * 16 * 16 * sizeof(float));
    OK(K.release(k));

    /* a barrier in a loop whose trip count is an argument */
    k = kernel_of(p, "smooth");
    size_t sn = 1024, sl = 128;
    float *d = usm(sn * sizeof(float)), *want = malloc(sn * sizeof(float)), tmp[128];
    for (size_t i = 0; i < sn; i++)
        d[i] = want[i] = (float)((i * 37) % 11);
    int iters = 5;
    sx_arg sa[] = {aptr(0, d), aval(1, &iters, 4), aloc(2, sl * sizeof(float))};
    launch(k, 1, NULL, &sn, &sl, 3, sa);
    for (size_t g = 0; g < sn / sl; g++)
        for (int it = 0; it < iters; it++) {
            memcpy(tmp, want + g * sl, sizeof(tmp));
            for (size_t i = 0; i < sl; i++)
                want[g * sl + i] = 0.5f * (tmp[i] + tmp[(i + 1) % sl]);
        }
    for (size_t i = 0; i < sn; i++)
        ck_assert_msg(d[i] == want[i], "smooth[%zu] = %g, want %g", i, d[i], want[i]);
    free(want);
    OK(K.release(k));

    /* kernel-scope local memory and private memory sized by the table */
    k = kernel_of(p, "scratch");
    size_t cn = 4096, cl = 512;
    int *ci = usm(cn * sizeof(int)), *co = usm(cn * sizeof(int));
    for (size_t i = 0; i < cn; i++)
        ci[i] = (int)(i % 13);
    sx_arg ca[] = {aptr(0, ci), aptr(1, co)};
    launch(k, 1, NULL, &cn, &cl, 2, ca);
    for (size_t g = 0; g < cn / cl; g++) {
        int s = 0;
        for (size_t i = g * cl; i < (g + 1) * cl; i++)
            s += ci[i];
        for (size_t i = g * cl; i < (g + 1) * cl; i++)
            ck_assert_int_eq(co[i], s);
    }
    OK(K.release(k));
    OK(U.free(context, in));
    OK(U.free(context, out));
    OK(U.free(context, Am));
    OK(U.free(context, B));
    OK(U.free(context, Cm));
    OK(U.free(context, d));
    OK(U.free(context, ci));
    OK(U.free(context, co));
    OK(PR.release(p));
}
END_TEST

/* ids in 1, 2 and 3 dimensions with offsets: the context's geometry */
START_TEST(wg_ids)
{
    sxa_program p = program_of("native-wg.hso", wg_sigs, NWG);
    sxa_kernel k = kernel_of(p, "ids");
    size_t g[3] = {8, 6, 4}, l[3] = {4, 3, 2}, off[3] = {5, 7, 9};
    int *out = usm(8 * 6 * 4 * sizeof(int));
    sx_arg a = aptr(0, out);
    for (uint32_t dims = 1; dims <= 3; dims++) {
        memset(out, 0xff, 8 * 6 * 4 * sizeof(int));
        launch(k, dims, off, g, dims == 2 ? NULL : l, 1, &a);
        size_t gy = dims > 1 ? g[1] : 1, gz = dims > 2 ? g[2] : 1;
        for (size_t z = 0; z < gz; z++)
            for (size_t y = 0; y < gy; y++)
                for (size_t x = 0; x < g[0]; x++) {
                    size_t ox = x + off[0], oy = y + (dims > 1 ? off[1] : 0), oz = z + (dims > 2 ? off[2] : 0);
                    int want = (int)(ox | oy << 10 | oz << 20);
                    ck_assert_msg(out[(z * gy + y) * g[0] + x] == want, "dims %u (%zu,%zu,%zu): %x, want %x", dims,
                                  x, y, z, out[(z * gy + y) * g[0] + x], want);
                }
    }
    OK(K.release(k));
    OK(U.free(context, out));
    OK(PR.release(p));
}
END_TEST

/* SXN_WG_FIBER: one work-item per call, fibers and the builtins' barrier */
START_TEST(wg_fiber_fallback)
{
    sxa_program p = program_of("native-wg.hso", wg_sigs, NWG);
    sxa_kernel k = kernel_of(p, "fiber_reverse");
    size_t n = 1024, l = 64;
    int *d = usm(n * sizeof(int));
    for (size_t i = 0; i < n; i++)
        d[i] = (int)i;
    sx_arg a[] = {aptr(0, d), aloc(1, l * sizeof(int))};
    launch(k, 1, NULL, &n, &l, 2, a);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(d[i], (int)((i / l) * l + (l - 1 - i % l)));
    OK(K.release(k));
    OK(U.free(context, d));
    OK(PR.release(p));
}
END_TEST

/* program-scope variables by name, one copy per program */
START_TEST(wg_program_variables)
{
    sxa_program p1 = program_of("native-wg.hso", wg_sigs, NWG);
    sxa_program p2 = program_of("native-wg.hso", wg_sigs, NWG);
    sxa_kernel k1 = kernel_of(p1, "bump"), k2 = kernel_of(p2, "bump");
    int *out = usm(sizeof(int));
    sx_arg a = aptr(0, out);
    size_t one = 1;
    launch(k1, 1, NULL, &one, NULL, 1, &a);
    ck_assert_int_eq(*out, 7);
    launch(k1, 1, NULL, &one, NULL, 1, &a);
    ck_assert_int_eq(*out, 8);
    launch(k2, 1, NULL, &one, NULL, 1, &a);
    ck_assert_int_eq(*out, 7);
    size_t size;
    void *addr;
    OK(PR.get_global(p1, "wg_counter", &size, &addr));
    ck_assert_uint_eq(size, sizeof(int));
    ck_assert_int_eq(*(int *)addr, 9);
    FAILS(SX_ERROR_INVALID_GLOBAL_NAME, PR.get_global(p1, "__sx_wg_tablex", &size, &addr));
    sxa_kernel k;
    FAILS(SX_ERROR_INVALID_KERNEL_NAME, K.create(p1, "wg_counter", &k));
    FAILS(SX_ERROR_INVALID_KERNEL_NAME, K.create(p1, "nope", &k));
    OK(K.release(k1));
    OK(K.release(k2));
    OK(U.free(context, out));
    OK(PR.release(p1));
    OK(PR.release(p2));
}
END_TEST

START_TEST(wg_bad_tables)
{
    static const char *want[] = {"", "is 2; this adapter runs work-group ABI 1", "does not end with a NULL name",
                                 "flags 0x80", "not in the image's code", "are both 'good'",
                                 "bytes of local memory pass", "entry 0 of __sx_wg_table_x86_64_v3 ('good') does not match"};
    for (int bad = 1; bad <= 7; bad++) {
        char file[64];
        snprintf(file, sizeof(file), "native-wg-bad%d.hso", bad);
        size_t size;
        void *bytes = nt_kernel_bytes(file, &size);
        ck_assert_msg(bytes != NULL, "cannot read %s", file);
        sxa_program_desc desc = {.size = sizeof(desc)};
        sxa_program prog;
        OK(PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, bytes, size, &desc, &prog));
        free(bytes);
        FAILS(SX_ERROR_INVALID_BINARY, PR.build(prog, NULL));
        ck_assert_msg(strstr(last_error, want[bad]) && strstr(last_error, "compiled work-group image"),
                      "%s: %s", file, last_error);
        OK(PR.release(prog));
    }
}
END_TEST

/* The x86-64-v3 table runs where the CPU has AVX2, FMA and BMI2, unless
 * SX_NATIVE_WG_TABLE keeps the baseline (base) or allows a level below v3;
 * =x86-64-v3 picks it whatever higher level the CPU has. */
START_TEST(wg_v3_table)
{
    __builtin_cpu_init();
    int v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
    if (!v3)
        fprintf(stderr, "wg_v3_table: this CPU lacks AVX2, FMA or BMI2: only the baseline table can run here\n");
    static const struct { const char *env; int want_v3; } runs[] = {
        {NULL, 3}, {"auto", 3}, {"base", 0}, {"x86-64-v2", 0}, {"x86-64-v3", 3}, {"x86-64-v4", 3},
    };
    int *out = usm(sizeof(int));
    sx_arg a = aptr(0, out);
    size_t one = 1;
    for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
        if (runs[i].env)
            setenv("SX_NATIVE_WG_TABLE", runs[i].env, 1);
        else
            unsetenv("SX_NATIVE_WG_TABLE");
        sxa_program p = program_of("native-wg.hso", wg_sigs, NWG);
        sxa_kernel k = kernel_of(p, "which_table");
        *out = -1;
        launch(k, 1, NULL, &one, NULL, 1, &a);
        ck_assert_msg(*out == (v3 ? runs[i].want_v3 : 0), "SX_NATIVE_WG_TABLE=%s: table %d ran (want %d)",
                      runs[i].env ? runs[i].env : "(unset)", *out, v3 ? runs[i].want_v3 : 0);
        OK(K.release(k));
        OK(PR.release(p));
    }
    unsetenv("SX_NATIVE_WG_TABLE");
    OK(U.free(context, out));
}
END_TEST

/* ---- linking */

static sxa_program compiled_wg(const char *file)
{
    static const ksig sigs[] = {{"linked", 1, {PTR}}, {"plus", 1, {PTR}}};
    return compiled(file, sigs, 2);
}

static void run_wg_linked(sxa_program linked, int base, int scale)
{
    sxa_kernel k = kernel_of(linked, "linked");
    int *out = usm(16 * sizeof(int));
    sx_arg a = aptr(0, out);
    size_t g = 16, l = 4;
    launch(k, 1, NULL, &g, &l, 1, &a);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(out[i], (i + 1 + base) * scale);
    OK(K.release(k));
    OK(U.free(context, out));
}

START_TEST(wg_link)
{
    sxa_program a = compiled_wg("native-wg-link-a.hso"), b = compiled_wg("native-wg-link-b.hso");
    /* alone, a cannot fill its imports */
    sxa_program alone = compiled_wg("native-wg-link-a.hso");
    FAILS(SX_ERROR_BUILD_FAILURE, PR.build(alone, NULL));
    ck_assert_msg(strstr(last_error, "'wg_plus_one'"), "%s", last_error);
    OK(PR.release(alone));
    sxa_program ab[] = {a, b}, ba[] = {b, a}, l1, l2;
    OK(PR.link(context, device, 2, ab, NULL, &l1));
    OK(PR.link(context, device, 2, ba, NULL, &l2));
    run_wg_linked(l1, 3, 10);
    int v = 5;
    OK(E.global_write(queue, l2, "wg_base", 1, sizeof(v), 0, &v, 0, NULL, NULL));
    OK(E.global_write(queue, l2, "wg_scale", 1, sizeof(v), 0, &v, 0, NULL, NULL));
    run_wg_linked(l2, 5, 5);
    run_wg_linked(l1, 3, 10);
    /* the other image's kernel, through its own import */
    sxa_kernel k = kernel_of(l1, "plus");
    int *out = usm(8 * sizeof(int));
    sx_arg arg = aptr(0, out);
    size_t g = 8, one = 1;
    launch(k, 1, NULL, &g, &one, 1, &arg);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(out[i], i + 1);
    OK(K.release(k));
    OK(U.free(context, out));
    /* an exported function is not a kernel of a compiled image */
    FAILS(SX_ERROR_INVALID_KERNEL_NAME, K.create(l1, "wg_twice", &k));
    /* the inputs are the caller's */
    OK(PR.release(a));
    OK(PR.release(b));
    run_wg_linked(l1, 3, 10);
    OK(PR.release(l1));
    OK(PR.release(l2));
}
END_TEST

START_TEST(wg_link_failures)
{
    sxa_program a = compiled_wg("native-wg-link-a.hso"), m = compiled_wg("native-wg-link-missing.hso");
    sxa_program am[] = {a, m}, out;
    FAILS(SX_ERROR_LINK_FAILURE, PR.link(context, device, 2, am, NULL, &out));
    ck_assert_msg(strstr(last_error, "image 1 imports 'wg_nobody_exports_this'"), "%s", last_error);
    /* compiled and per-work-item images do not link together */
    static const ksig old_sigs[] = {{"linked", 1, {PTR}}};
    sxa_program old = compiled("native-link-b.hso", old_sigs, 0);
    sxa_program ao[] = {a, old};
    FAILS(SX_ERROR_LINK_FAILURE, PR.link(context, device, 2, ao, NULL, &out));
    ck_assert_msg(strstr(last_error, "do not link together"), "%s", last_error);
    OK(PR.release(a));
    OK(PR.release(m));
    OK(PR.release(old));
}
END_TEST

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* No namespaces, no static TLS: a thousand linked programs at once, each
 * with its own program-scope variables. */
START_TEST(wg_link_1000)
{
    enum { N = 1000 };
    sxa_program a = compiled_wg("native-wg-link-a.hso"), b = compiled_wg("native-wg-link-b.hso");
    sxa_program ab[] = {a, b};
    sxa_program *live = calloc(N, sizeof(*live));
    double t0 = now_s(), t10 = 0;
    for (int i = 0; i < N; i++) {
        OK(PR.link(context, device, 2, ab, NULL, &live[i]));
        if (i == 9)
            t10 = now_s() - t0;
    }
    double t = now_s() - t0;
    /* dlopen and dlclose walk every loaded object: the mean grows with N */
    fprintf(stderr, "wg_link_1000: %d linked programs alive; per link of 2 images: %.1f us for the first 10, "
                    "%.1f us on average\n", N, t10 / 10 * 1e6, t / N * 1e6);
    for (int i = 0; i < N; i += 111) {
        int v = i;
        OK(E.global_write(queue, live[i], "wg_base", 1, sizeof(v), 0, &v, 0, NULL, NULL));
    }
    for (int i = 0; i < N; i += 37)
        run_wg_linked(live[i], i % 111 == 0 ? i : 3, 10);
    for (int i = 0; i < N; i++)
        OK(PR.release(live[i]));
    free(live);
    OK(PR.release(a));
    OK(PR.release(b));
}
END_TEST

/* The binary of a linked program rebuilds it with create + build only. */
static sxa_program rebuilt(sxa_program linked, const ksig *sigs, uint32_t nsigs, void **bytes_out, size_t *size_out)
{
    sx_image_kind kind = SX_IMAGE_KIND_UNKNOWN;
    size_t size = 0;
    OK(PR.get_binary(linked, &kind, 0, NULL, &size));
    ck_assert_int_eq(kind, SX_IMAGE_KIND_HOST_ELF);
    void *bytes = malloc(size);
    OK(PR.get_binary(linked, &kind, size, bytes, NULL));
    sxa_kernel_signature ks[4];
    for (uint32_t i = 0; i < nsigs; i++)
        ks[i] = (sxa_kernel_signature){sigs[i].name, sigs[i].n, sigs[i].p};
    sxa_program_desc desc = {.size = sizeof(desc), .num_kernels = nsigs, .kernels = ks};
    sxa_program p;
    OK(PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, bytes, size, &desc, &p));
    OK(PR.build(p, NULL));
    *bytes_out = bytes;
    *size_out = size;
    return p;
}

START_TEST(linked_binary)
{
    static const ksig sigs[] = {{"linked", 1, {PTR}}, {"plus", 1, {PTR}}};
    sxa_program a = compiled_wg("native-wg-link-a.hso"), b = compiled_wg("native-wg-link-b.hso");
    sxa_program ab[] = {a, b}, l;
    OK(PR.link(context, device, 2, ab, NULL, &l));
    void *bytes;
    size_t size;
    sxa_program r = rebuilt(l, sigs, 2, &bytes, &size);
    run_wg_linked(r, 3, 10);
    /* its own binary is the same container */
    void *again;
    size_t again_size;
    sxa_program r2 = rebuilt(r, sigs, 2, &again, &again_size);
    ck_assert_uint_eq(size, again_size);
    ck_assert(memcmp(bytes, again, size) == 0);
    run_wg_linked(r2, 3, 10);
    OK(PR.release(r2));
    free(again);

    /* hostile containers: every truncation, and damaged lengths */
    sxa_program_desc desc = {.size = sizeof(desc)};
    sxa_program p;
    for (size_t cut = 0; cut < size; cut += cut < 64 ? 1 : 997) {
        sx_result rc = PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, bytes, cut, &desc, &p);
        ck_assert_msg(rc == SX_ERROR_INVALID_BINARY, "%zu of %zu bytes: %d", cut, size, rc);
    }
    unsigned char *bad = malloc(size);
    static const struct { size_t at, len; unsigned char v; const char *msg; } damage[] = {
        {8, 1, 2, "version 2"},      {12, 1, 0, "holds 0 images"}, {13, 1, 0x10, "holds 4098 images"},
        {16, 8, 0, "claims 0 bytes"}, {23, 1, 0x80, "claims"},      {24, 8, 0xff, "claims"},
        {0, 7, 'S', "not ELF"},
    };
    for (unsigned i = 0; i < sizeof(damage) / sizeof(damage[0]); i++) {
        memcpy(bad, bytes, size);
        memset(bad + damage[i].at, damage[i].v, damage[i].len);
        FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, bad, size, &desc, &p));
        ck_assert_msg(strstr(last_error, damage[i].msg), "damage %u: %s", i, last_error);
    }
    /* an image inside that is no ELF */
    memcpy(bad, bytes, size);
    memset(bad + 16 + 2 * 8, 'x', 4);
    FAILS(SX_ERROR_INVALID_BINARY, PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, bad, size, &desc, &p));
    free(bad);
    free(bytes);

    /* an old-style (per-work-item) linked program has a binary too */
    static const ksig old_sigs[] = {{"linked", 1, {PTR}}};
    sxa_program oa = compiled("native-link-a.hso", old_sigs, 1), ob = compiled("native-link-b.hso", NULL, 0);
    sxa_program oab[] = {oa, ob}, ol;
    OK(PR.link(context, device, 2, oab, NULL, &ol));
    sxa_program orb = rebuilt(ol, old_sigs, 1, &bytes, &size);
    sxa_kernel k = kernel_of(orb, "linked");
    int *out = usm(16 * sizeof(int));
    sx_arg arg = aptr(0, out);
    size_t g = 16;
    launch(k, 1, NULL, &g, NULL, 1, &arg);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(out[i], (i + 3) * 10 * 2);
    OK(K.release(k));
    OK(U.free(context, out));
    free(bytes);
    OK(PR.release(orb));
    OK(PR.release(ol));
    OK(PR.release(oa));
    OK(PR.release(ob));
    OK(PR.release(r));
    OK(PR.release(l));
    OK(PR.release(a));
    OK(PR.release(b));
}
END_TEST

/* several threads launching compiled kernels at once */
static sxa_kernel shared_saxpy;

static void *saxpy_thread(void *arg)
{
    (void)arg;
    size_t n = 1 << 14;
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = (float)i;
    }
    float a = 3.0f;
    sx_arg args[] = {aval(0, &a, 4), aptr(1, x), aptr(2, y)};
    size_t l = 128;
    int bad = 0;
    for (int it = 0; it < 50; it++)
        bad |= E.kernel_launch(queue, shared_saxpy, 1, NULL, &n, &l, 3, args, 0, NULL, NULL) != SX_SUCCESS;
    for (size_t i = 0; i < n; i++)
        bad |= y[i] != (float)i + 150.0f;
    free(x);
    free(y);
    return bad ? (void *)1 : NULL;
}

START_TEST(wg_concurrent_launches)
{
    sxa_program p = program_of("native-wg.hso", wg_sigs, NWG);
    shared_saxpy = kernel_of(p, "saxpy");
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, saxpy_thread, NULL), 0);
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        ck_assert_ptr_null(ret);
    }
    OK(K.release(shared_saxpy));
    OK(PR.release(p));
}
END_TEST

int main(void)
{
    char *p = sxt_kernel_path("native-wg.hso");
    if (!p) {
        printf("SKIP: test kernel native-wg.hso was not built\n");
        return 77;
    }
    free(p);
    Suite *s = suite_create("native-wg");
    const char *only = getenv("NT_ONLY");
#define ADD(t) \
    if ((!only || strcmp(only, #t) == 0) && !nt_skipped(#t)) \
    tcase_add_test(tc, t)
    TCase *tc = tcase_create("wg");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    ADD(wg_saxpy);
    ADD(wg_barrier_kernels);
    ADD(wg_ids);
    ADD(wg_fiber_fallback);
    ADD(wg_program_variables);
    ADD(wg_bad_tables);
    ADD(wg_v3_table);
    ADD(wg_link);
    ADD(wg_link_failures);
    ADD(wg_link_1000);
    ADD(linked_binary);
    ADD(wg_concurrent_launches);
    suite_add_tcase(s, tc);
    return nt_run(s);
}
