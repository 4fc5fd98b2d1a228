/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-cuda-params.c: kernel parameter sizes read from PTX and cubin bytes
 * (adapters/cuda/params.c) match the kernels' declarations, damaged or
 * unknown bytes say "unknown" (never a wrong answer, never a crash), and,
 * where a GPU is present, they match what the driver says
 * (cuFuncGetParamInfo). The nvcc outputs come from tests/cuda/kernels.cu. */
#include <cuda.h>

#include "abi-util.h"
#include "sxc.h"

static int failures;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                            \
            printf(__VA_ARGS__);                                                   \
            printf("\n");                                                          \
        }                                                                          \
    } while (0)

/* From kernels.cu (sizes in bytes; -1 ends a list). */
static const struct {
    const char *name;
    int sizes[8];
} expect[] = {
    {"empty_kernel", {-1}},
    {"dg_read", {8, -1}},
    {"add_one", {8, 4, -1}},
    {"axpy", {8, 8, 4, 8, -1}},
    {"struct_arg", {16, 8, -1}},
    {"local_reverse", {8, 8, 8, 8, 4, -1}},
    {"bounded_add", {8, 4, -1}},
};

/* A hand-written PTX with what a reader can trip on (checked by ptxas);
 * with a block comment it is read token by token, without one through the
 * index of entries. */
#define TRICKY_HEAD                                                                \
    "// .entry in_line_comment(.param .u32 x)\n"                                   \
    ".version 7.0\n"                                                               \
    ".target sm_60\n"                                                              \
    ".address_size 64\n"
#define TRICKY_BODY                                                                \
    ".func helper(.param .u32 a)\n"                                                \
    "{\n"                                                                          \
    "  ret;\n"                                                                     \
    "}\n"                                                                          \
    "  // .entry tricky(.param .u32 commented_out)\n"                              \
    ".visible .entry tricky(\n"                                                    \
    "  .param .u64 .ptr.global.align 8 tricky_param_0,\n"                          \
    "  .param .align 16 .b8 tricky_param_1[48], // a struct\n"                     \
    "  .param .b16 tricky_param_2\n"                                               \
    ")\n"                                                                          \
    ".maxntid 64, 1, 1\n"                                                          \
    "{\n"                                                                          \
    "  ret;\n"                                                                     \
    "}\n"                                                                          \
    ".visible .entry noparams\n"                                                   \
    "{\n"                                                                          \
    "  ret;\n"                                                                     \
    "}\n"                                                                          \
    ".visible .entry emptyparams()\n"                                              \
    "{\n"                                                                          \
    "  ret;\n"                                                                     \
    "}\n"
static const char tricky_ptx[] = TRICKY_HEAD "/* .entry in_block_comment(\n"
                                             "   .param .u32 x) */\n" TRICKY_BODY;
static const char tricky_indexed[] = TRICKY_HEAD TRICKY_BODY;

static int parse(sx_image_kind kind, const void *data, size_t size, const char *name, uint32_t **sizes,
                 uint32_t *n)
{
    sxc_program_t p = {.kind = kind, .image = (unsigned char *)data, .image_size = size};
    pthread_mutex_init(&p.lock, NULL);
    *sizes = NULL;
    *n = 0;
    int got = sxc_params_from_image(&p, name, sizes, n);
    free(p.entries);
    pthread_mutex_destroy(&p.lock);
    return got;
}

static void expect_sizes(const char *what, sx_image_kind kind, const void *data, size_t size, const char *name,
                         const int *want)
{
    uint32_t *s, n, wn = 0;
    while (want[wn] >= 0)
        wn++;
    int got = parse(kind, data, size, name, &s, &n);
    CHECK(got == 1, "%s: '%s' not read (%d)", what, name, got);
    if (got == 1) {
        CHECK(n == wn, "%s: '%s' has %u parameters, want %u", what, name, n, wn);
        for (uint32_t i = 0; i < n && i < wn; i++)
            CHECK(s[i] == (uint32_t)want[i], "%s: '%s' parameter %u: %u bytes, want %d", what, name, i, s[i],
                  want[i]);
    }
    free(s);
}

static void expect_unknown(const char *what, sx_image_kind kind, const void *data, size_t size, const char *name)
{
    uint32_t *s, n;
    int got = parse(kind, data, size, name, &s, &n);
    CHECK(got == 0, "%s: '%s' gave %d (%u parameters), want unknown", what, name, got, n);
    if (got == 1)
        free(s);
}

/* The .nv.info.<name> section's offset in a cubin (0 if absent), for damaging it. */
static size_t info_offset(const unsigned char *b, size_t size, const char *name)
{
    uint64_t shoff;
    uint16_t ent, num, str;
    memcpy(&shoff, b + 0x28, 8);
    memcpy(&ent, b + 0x3a, 2);
    memcpy(&num, b + 0x3c, 2);
    memcpy(&str, b + 0x3e, 2);
    uint64_t stroff;
    memcpy(&stroff, b + shoff + (size_t)str * ent + 0x18, 8);
    char want[256];
    snprintf(want, sizeof(want), ".nv.info.%s", name);
    for (uint16_t i = 0; i < num; i++) {
        uint32_t nm;
        uint64_t off;
        memcpy(&nm, b + shoff + (size_t)i * ent, 4);
        memcpy(&off, b + shoff + (size_t)i * ent + 0x18, 8);
        if (stroff + nm < size && !strcmp((const char *)b + stroff + nm, want))
            return (size_t)off;
    }
    return 0;
}

/* Where a GPU is: the driver's own answer for every kernel of `data`. */
static void against_driver(const char *what, sx_image_kind kind, const void *data, size_t size,
                           const char *const *names, size_t count)
{
    void *cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cu) {
        printf("# %s: no libcuda.so.1: the driver comparison is skipped\n", what);
        return;
    }
#define SYM(name, real) __typeof__(real) *name = (__typeof__(real) *)dlsym(cu, #real)
    SYM(init, cuInit);
    SYM(dget, cuDeviceGet);
    SYM(retain, cuDevicePrimaryCtxRetain);
    SYM(setcur, cuCtxSetCurrent);
    SYM(load, cuModuleLoadData);
    SYM(unload, cuModuleUnload);
    SYM(getfn, cuModuleGetFunction);
    SYM(pinfo, cuFuncGetParamInfo);
    CUdevice dev;
    CUcontext ctx;
    CUmodule m;
    if (!init || !pinfo || init(0) != CUDA_SUCCESS || dget(&dev, 0) != CUDA_SUCCESS ||
        retain(&ctx, dev) != CUDA_SUCCESS || setcur(ctx) != CUDA_SUCCESS) {
        printf("# %s: no CUDA device (or no cuFuncGetParamInfo): the driver comparison is skipped\n", what);
        return;
    }
    if (load(&m, data) != CUDA_SUCCESS) {
        CHECK(0, "%s: cuModuleLoadData refused it", what);
        return;
    }
    printf("# %s: compared with cuFuncGetParamInfo\n", what);
    for (size_t i = 0; i < count; i++) {
        CUfunction fn;
        if (getfn(&fn, m, names[i]) != CUDA_SUCCESS) {
            CHECK(0, "%s: no kernel '%s'", what, names[i]);
            continue;
        }
        uint32_t *s, n;
        int got = parse(kind, data, size, names[i], &s, &n);
        if (got == 0 && kind == SX_IMAGE_KIND_CUBIN) {
            size_t off, sz;
            CHECK(pinfo(fn, 0, &off, &sz) != CUDA_SUCCESS, "%s: '%s' left to the driver, which has parameters",
                  what, names[i]);
            continue;
        }
        if (got != 1) {
            CHECK(0, "%s: '%s' not read", what, names[i]);
            continue;
        }
        uint32_t k = 0;
        size_t off, sz;
        for (; pinfo(fn, k, &off, &sz) == CUDA_SUCCESS; k++)
            CHECK(k < n && s[k] == sz, "%s: '%s' parameter %u: the driver says %zu bytes, the image %u", what,
                  names[i], k, sz, k < n ? s[k] : 0);
        CHECK(k == n, "%s: '%s': the driver says %u parameters, the image %u", what, names[i], k, n);
        free(s);
    }
    unload(m);
}

int main(void)
{
    char path[4096];
    size_t ptx_size = 0, cubin_size = 0;
    char *ptx = abi_read_file(abi_data_path("kernels.ptx", path, sizeof(path)), &ptx_size);
    unsigned char *cubin = abi_read_file(abi_data_path("kernels.cubin", path, sizeof(path)), &cubin_size);
    if (!ptx || !cubin) {
        printf("SKIP: the nvcc outputs are not built\n");
        return 77;
    }
    for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++) {
        expect_sizes("kernels.ptx", SX_IMAGE_KIND_PTX, ptx, ptx_size, expect[i].name, expect[i].sizes);
        /* A cubin kernel without parameter records is left to the driver:
         * it cannot be told from records of a format this does not know. */
        if (expect[i].sizes[0] >= 0)
            expect_sizes("kernels.cubin", SX_IMAGE_KIND_CUBIN, cubin, cubin_size, expect[i].name, expect[i].sizes);
        else
            expect_unknown("kernels.cubin", SX_IMAGE_KIND_CUBIN, cubin, cubin_size, expect[i].name);
    }
    expect_unknown("kernels.ptx", SX_IMAGE_KIND_PTX, ptx, ptx_size, "no_such_kernel");
    expect_unknown("kernels.cubin", SX_IMAGE_KIND_CUBIN, cubin, cubin_size, "no_such_kernel");
    /* a device function is no kernel */
    expect_unknown("kernels.ptx", SX_IMAGE_KIND_PTX, ptx, ptx_size, "twice");
    expect_unknown("kernels.cubin", SX_IMAGE_KIND_CUBIN, cubin, cubin_size, "twice");

    static const int tricky[] = {8, 48, 2, -1}, none[] = {-1};
    expect_sizes("tricky PTX", SX_IMAGE_KIND_PTX, tricky_ptx, sizeof(tricky_ptx), "tricky", tricky);
    expect_sizes("tricky PTX", SX_IMAGE_KIND_PTX, tricky_ptx, sizeof(tricky_ptx), "noparams", none);
    expect_sizes("tricky PTX", SX_IMAGE_KIND_PTX, tricky_ptx, sizeof(tricky_ptx), "emptyparams", none);
    expect_unknown("tricky PTX", SX_IMAGE_KIND_PTX, tricky_ptx, sizeof(tricky_ptx), "in_line_comment");
    expect_unknown("tricky PTX", SX_IMAGE_KIND_PTX, tricky_ptx, sizeof(tricky_ptx), "in_block_comment");
    expect_unknown("tricky PTX", SX_IMAGE_KIND_PTX, tricky_ptx, sizeof(tricky_ptx), "helper");
    expect_sizes("indexed PTX", SX_IMAGE_KIND_PTX, tricky_indexed, sizeof(tricky_indexed), "tricky", tricky);
    expect_sizes("indexed PTX", SX_IMAGE_KIND_PTX, tricky_indexed, sizeof(tricky_indexed), "noparams", none);
    expect_sizes("indexed PTX", SX_IMAGE_KIND_PTX, tricky_indexed, sizeof(tricky_indexed), "emptyparams", none);
    expect_unknown("indexed PTX", SX_IMAGE_KIND_PTX, tricky_indexed, sizeof(tricky_indexed), "in_line_comment");
    expect_unknown("indexed PTX", SX_IMAGE_KIND_PTX, tricky_indexed, sizeof(tricky_indexed), "helper");
    /* types and shapes it does not know: unknown, not guessed */
    static const char odd[] = ".entry k1(.param .s4 a)\n{ ret; }\n"
                              ".entry k2(.param .u32 a[)\n{ ret; }\n"
                              ".entry k3(.param .u32 .u32 a)\n{ ret; }\n"
                              ".entry k4(.param .u32 a b)\n{ ret; }\n"
                              ".entry k5(.param .u32 a\n";
    for (int i = 1; i <= 5; i++) {
        char name[8];
        snprintf(name, sizeof(name), "k%d", i);
        expect_unknown("odd PTX", SX_IMAGE_KIND_PTX, odd, sizeof(odd), name);
    }

    /* Damaged cubins: every prefix, a broken section table, an unknown
     * record format, a parameter record missing. */
    for (size_t n = 0; n < cubin_size; n += n < 256 ? 1 : 97) {
        uint32_t *s, cnt;
        int got = parse(SX_IMAGE_KIND_CUBIN, cubin, n, "axpy", &s, &cnt);
        if (got == 1) {
            CHECK(cnt == 4 && s[0] == 8 && s[2] == 4, "a %zu-byte prefix of the cubin gives %u parameters", n, cnt);
            free(s);
        }
    }
    unsigned char *bad = malloc(cubin_size);
    memcpy(bad, cubin, cubin_size);
    bad[0x28] ^= 0x40; /* section headers elsewhere */
    expect_unknown("cubin with a moved section table", SX_IMAGE_KIND_CUBIN, bad, cubin_size, "axpy");
    size_t info = info_offset(cubin, cubin_size, "axpy");
    CHECK(info != 0, "kernels.cubin has no .nv.info.axpy");
    if (info) {
        memcpy(bad, cubin, cubin_size);
        bad[info] = 7; /* a record format nobody knows */
        expect_unknown("cubin with an unknown record", SX_IMAGE_KIND_CUBIN, bad, cubin_size, "axpy");
        /* turn the first parameter record into another attribute */
        memcpy(bad, cubin, cubin_size);
        for (size_t i = info; i + 4 < cubin_size; i += 4)
            if (bad[i] == 4 && bad[i + 1] == 0x17) {
                bad[i + 1] = 0x7e;
                break;
            }
        expect_unknown("cubin missing a parameter record", SX_IMAGE_KIND_CUBIN, bad, cubin_size, "axpy");
    }
    free(bad);

    const char *names[sizeof(expect) / sizeof(expect[0])];
    for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
        names[i] = expect[i].name;
    against_driver("kernels.cubin", SX_IMAGE_KIND_CUBIN, cubin, cubin_size, names, sizeof(names) / sizeof(names[0]));
    static const char *const tricky_names[] = {"tricky", "noparams", "emptyparams"};
    against_driver("tricky PTX", SX_IMAGE_KIND_PTX, tricky_ptx, sizeof(tricky_ptx), tricky_names, 3);
    free(ptx);
    free(cubin);
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
