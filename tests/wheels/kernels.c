/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* kernels.c: real DPC++ kernels from the dpctl/dpnp wheels, registered
 * through libsycl-ext-dpcpp.so (preloaded), found by their DPC++ names and
 * launched through the opencl adapter on Intel's CPU runtime, against raw
 * OpenCL running the same SPIR-V (read from the module file) with the same
 * arguments: every buffer must come out byte for byte the same. Each case's
 * arguments were written by reading the kernel's SPIR-V (OpEntryPoint's
 * function parameters); the test checks them against the SPIR-V signature
 * and "SYCL/kernel param opt" before launching (issue 27).
 * Usage: kernels LIBDIR (run by tests/wheels/kernels.sh). */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sycl-ext/binaries.h>
#include <sycl-ext/sx.h>

#include "dpcpp-elf.h"

/* ------------------------------------------------------------- cases */

/* bufs: "<type>x<count>[=v,v,...]" (types f16 f32 f64 i8 i16 i32 i64 b8);
 * without values a deterministic pattern fills it.
 * args: p<i> (buffer i), L<bytes> (local memory), <type>=<value> scalars,
 * S{field,...} a struct by value (fields like scalars or p<i>). */
typedef struct {
    const char *module, *name, *what, *bufs, *args;
    uint32_t dims;
    size_t global[3], local[3];
    int (*check)(void **bufs); /* host reference for some; 0 = right */
} kcase;

#define EW "_tensor_elementwise_impl.cpython-311-x86_64-linux-gnu.so"
#define TI "_tensor_impl.cpython-311-x86_64-linux-gnu.so"
#define RE "_tensor_reductions_impl.cpython-311-x86_64-linux-gnu.so"
#define SO "_tensor_sorting_impl.cpython-311-x86_64-linux-gnu.so"
#define AC "_tensor_accumulation_impl.cpython-311-x86_64-linux-gnu.so"
#define DC "libDPCTLSyclInterface.so"
#define SG_WRAP(ns, k) "_ZTSN4dpnp6tensor7kernels15alignment_utils33disabled_sg_loadstore_wrapper_krnINS1_" ns k "EEEE"

static int check_add(void **b)
{
    const float *x = b[0], *y = b[1], *o = b[2];
    for (int i = 0; i < 1000; i++)
        if (o[i] != x[i] + y[i])
            return i + 1;
    return 0;
}

static int check_cast(void **b)
{
    const float *x = b[0];
    const double *o = b[1];
    for (int i = 0; i < 1000; i++)
        if (o[i] != (double)x[i])
            return i + 1;
    return 0;
}

static int check_where(void **b)
{
    const int8_t *c = b[0];
    const float *x = b[1], *y = b[2], *o = b[3];
    for (int i = 0; i < 1000; i++)
        if (o[i] != (c[i] ? x[i] : y[i]))
            return i + 1;
    return 0;
}

/* Merge sort's base step with 16 rows of 16: each row of the input
 * (parameter 4) sorted into the output (parameter 3). */
static int check_sort16(void **b)
{
    const float *o = b[0], *in = b[1]; /* the SPIR-V's parameters: output first */
    for (int r = 0; r < 16; r++) {
        float si = 0, so = 0;
        for (int i = 0; i < 16; i++) {
            si += in[r * 16 + i];
            so += o[r * 16 + i];
            if (i && o[r * 16 + i - 1] > o[r * 16 + i])
                return r * 16 + i + 1;
        }
        if (si != so)
            return r * 16 + 1;
    }
    return 0;
}

/* One int8 -> int32 sum over 1024 elements, by work-group atomics. */
static int check_sum(void **b)
{
    const int8_t *in = b[0];
    const int32_t *o = b[1];
    int32_t s = 0;
    for (int i = 0; i < 1024; i++)
        s += in[i];
    return o[0] == s ? 0 : 1;
}

static const kcase cases[] = {
    {EW, "_ZTSN4dpnp6tensor7kernels3add17add_contig_kernelIfffLh2ELh2EEE", "elementwise add f32",
     "f32x1000 f32x1000 f32x1024", "p0 p1 p2 i64=1000", 1, {1024}, {64}, check_add},
    {EW, SG_WRAP("8multiply22", "multiply_contig_kernelIiiiLh4ELh2E"), "elementwise multiply i32",
     "i32x1000 i32x1000 i32x1024", "p0 p1 p2 i64=1000", 1, {1024}, {64}, NULL},
    {EW, SG_WRAP("8subtract22", "subtract_contig_kernelIdddLh4ELh2E"), "elementwise subtract f64",
     "f64x1000 f64x1000 f64x1024", "p0 p1 p2 i64=1000", 1, {1024}, {64}, NULL},
    {EW, SG_WRAP("4less18", "less_contig_kernelIffbLh4ELh2E"), "elementwise less f32 -> bool",
     "f32x1000 f32x1000 b8x1024", "p0 p1 p2 i64=1000", 1, {1024}, {64}, NULL},
    {EW, "_ZTSN4dpnp6tensor7kernels11logical_and25logical_and_contig_kernelIbbbLh4ELh2EEE",
     "elementwise logical_and bool", "b8x1000 b8x1000 b8x1024", "p0 p1 p2 i64=1000", 1, {1024}, {64}, NULL},
    {EW, SG_WRAP("4sqrt18", "sqrt_contig_kernelIffLh4ELh2E"), "elementwise sqrt f32", "f32x1000 f32x1024",
     "p0 p1 i64=1000", 1, {1024}, {64}, NULL},
    {EW, SG_WRAP("3exp17", "exp_contig_kernelIffLh4ELh2E"), "elementwise exp f32", "f32x1000 f32x1024",
     "p0 p1 i64=1000", 1, {1024}, {64}, NULL},
    {EW, SG_WRAP("3abs17", "abs_contig_kernelIiiLh4ELh2E"), "elementwise abs i32", "i32x1000 i32x1024",
     "p0 p1 i64=1000", 1, {1024}, {64}, NULL},
    {EW, SG_WRAP("7maximum21", "maximum_contig_kernelIiiiLh4ELh2E"), "elementwise maximum i32",
     "i32x1000 i32x1000 i32x1024", "p0 p1 p2 i64=1000", 1, {1024}, {64}, NULL},
    {TI, "_ZTSN4dpnp6tensor7kernels13copy_and_cast23copy_cast_contig_kernelIfdLh4ELh2EEE", "cast f32 -> f64",
     "f32x1000 f64x1024", "i64=1000 p0 p1", 1, {1024}, {64}, check_cast},
    {TI, "_ZTSN4dpnp6tensor7kernels13copy_and_cast23copy_cast_contig_kernelIifLh4ELh2EEE", "cast i32 -> f32",
     "i32x1000 f32x1024", "i64=1000 p0 p1", 1, {1024}, {64}, NULL},
    {TI, SG_WRAP("6search19", "where_contig_kernelIfbLh4ELh2E"), "where f32 (bool condition)",
     "b8x1000 f32x1000 f32x1000 f32x1024", "i64=1000 p0 p1 p2 p3", 1, {1024}, {64}, check_where},
    {TI, SG_WRAP("4clip18", "clip_contig_kernelIfLi4ELi2E"), "clip f32", "f32x1000 f32x1000 f32x1000 f32x1024",
     "i64=1000 p0 p1 p2 p3", 1, {1024}, {64}, NULL},
    {TI, "_ZTSN4dpnp6tensor7kernels12constructors27linear_sequence_step_kernelIfEE", "linspace (step) f32",
     "f32x1024", "p0 f32=0.5 f32=0.25", 1, {1024}, {0}, NULL},
    {TI, "_ZTSN4dpnp6tensor7kernels12constructors19full_strided_kernelIN4sycl3_V16detail9half_impl4halfEEE",
     "full (strided) f16", "f16x512 i64x2=256,2", "p0 S{f16=0x3c00} S{i32=1,i64=0,p1}", 1, {256}, {0}, NULL},
    {RE, "_ZTSN4dpnp6tensor7kernels17reduction_seq_krnIffNS0_10sycl_utils5HypotIfEENS0_12offset_utils25TwoOffsets_"
         "StridedIndexerENS6_14StridedIndexerEEE",
     "reduction (hypot, sequential) f32", "f32x1024 f32x16 i64x3=16,64,1 i64x2=64,1",
     "p0 p1 f32=0 S{i32=1,i64=0,i64=0,p2} S{i32=1,i64=0,p3} i64=64", 1, {16}, {0}, NULL},
    {DC, "_ZTSZN4sycl3_V17handler4fillIjEEvPvRKT_mEUlNS0_2idILi1EEEE_", "dpctl fill u32", "i32x1024", "p0 i32=7", 1,
     {1024}, {0}, NULL},
    {RE, "_ZTSN4dpnp6tensor7kernels37reduction_over_group_with_atomics_krnIaiSt4plusIiENS0_12offset_utils25TwoOffsets_"
         "StridedIndexerENS5_14StridedIndexerEEE",
     "reduction (sum, group atomics) i8 -> i32", "i8x1024 i32x16=0 i64x3=1,0,0 i64x2=1024,1",
     "p0 p1 i32=0 S{i32=1,i64=0,i64=0,p2} S{i32=1,i64=0,p3} i64=1024 i64=1 i64=4", 1, {256}, {64}, check_sum},
    {RE, "_ZTSN4dpnp6tensor7kernels21search_over_group_krnIllN4sycl3_V17maximumIlEENS4_7minimumIlEENS0_12offset_utils"
         "25TwoOffsets_StridedIndexerENS9_14StridedIndexerELb1ELb1EEE",
     "search (argmax, over group) i64", "i64x1024 i64x16=-1 i64x3=1,0,0 i64x2=1024,1",
     "p0 p1 i64=-9223372036854775807 i64=0 S{i32=1,i64=0,i64=0,p2} S{i32=1,i64=0,p3} i64=1024 i64=1 i64=4", 1, {256},
     {64}, NULL},
    {AC, "_ZTSN4dpnp6tensor7kernels12accumulators42inclusive_scan_iter_local_scan_blocked_krnIllLj4ENS0_12offset_utils"
         "22TwoZeroOffsets_IndexerENS4_11NoOpIndexerES6_NS2_15NoOpTransformerIlEESt10multipliesIlELb0EEE",
     "scan (inclusive, multiplies) i64", "i64x4096 i64x4096", "L2048 i64=1 i64=256 p0 i64=0 i64=1 i64=1 p1", 1, {64},
     {64}, NULL},
    {SO, "_ZTSN4dpnp6tensor7kernels17merge_sort_detail25sort_base_step_contig_krnIffNS0_16rich_comparisons6detail18"
         "ExtendedRealFPLessIfEEEE",
     "sort (merge sort base step) f32", "f32x1024 f32x1024", "i64=16 i64=16 i64=16 p0 p1", 1, {256}, {0},
     check_sort16},
};

/* ----------------------------------------------------- the arguments */

typedef struct {
    int kind; /* 'p' buffer, 'L' local, 'v' value bytes */
    size_t size;
    int buf;
    unsigned char bytes[64];
    int nptr, ptr_at[4], ptr_buf[4]; /* pointers inside a struct value */
} karg;

static size_t type_size(const char *t)
{
    if (!strncmp(t, "f16", 3) || !strncmp(t, "i16", 3))
        return 2;
    if (!strncmp(t, "f32", 3) || !strncmp(t, "i32", 3))
        return 4;
    if (!strncmp(t, "f64", 3) || !strncmp(t, "i64", 3))
        return 8;
    if (!strncmp(t, "i8", 2) || !strncmp(t, "b8", 2))
        return 1;
    return 0;
}

/* A scalar "<type>=<value>" into `out`; its size. */
static size_t scalar(const char *tok, unsigned char *out)
{
    size_t n = type_size(tok);
    const char *v = strchr(tok, '=');
    if (!n || !v)
        return 0;
    v++;
    if (tok[0] == 'f' && n == 4) {
        float f = strtof(v, NULL);
        memcpy(out, &f, 4);
    } else if (tok[0] == 'f' && n == 8) {
        double d = strtod(v, NULL);
        memcpy(out, &d, 8);
    } else {
        long long x = strtoll(v, NULL, 0); /* f16 as its bits */
        memcpy(out, &x, n);
    }
    return n;
}

static int parse_args(const char *spec, karg *a, int max)
{
    int n = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save), n++) {
        karg *k = &a[n];
        memset(k, 0, sizeof(*k));
        if (t[0] == 'p') {
            k->kind = 'p';
            k->buf = atoi(t + 1);
            k->size = sizeof(void *);
        } else if (t[0] == 'L') {
            k->kind = 'L';
            k->size = strtoul(t + 1, NULL, 10);
        } else if (t[0] == 'S') {
            /* C layout: each field at its alignment, the size rounded to the largest. */
            k->kind = 'v';
            size_t off = 0, maxal = 1;
            char *fs = strdup(t + 2), *fsave = NULL;
            fs[strlen(fs) - 1] = '\0';
            for (char *f = strtok_r(fs, ",", &fsave); f; f = strtok_r(NULL, ",", &fsave)) {
                size_t sz = f[0] == 'p' ? 8 : type_size(f);
                off = (off + sz - 1) / sz * sz;
                if (f[0] == 'p') {
                    k->ptr_at[k->nptr] = (int)off;
                    k->ptr_buf[k->nptr++] = atoi(f + 1);
                } else {
                    scalar(f, k->bytes + off);
                }
                off += sz;
                maxal = sz > maxal ? sz : maxal;
            }
            free(fs);
            k->size = (off + maxal - 1) / maxal * maxal;
        } else {
            k->kind = 'v';
            k->size = scalar(t, k->bytes);
        }
    }
    free(copy);
    return n;
}

typedef struct {
    size_t size;
    unsigned char *init;
} kbuf;

static int parse_bufs(const char *spec, kbuf *b, int max)
{
    int n = 0;
    char *copy = strdup(spec), *save = NULL;
    for (char *t = strtok_r(copy, " ", &save); t && n < max; t = strtok_r(NULL, " ", &save), n++) {
        size_t es = type_size(t);
        size_t count = strtoul(strchr(t, 'x') + 1, NULL, 10);
        b[n].size = es * count;
        b[n].init = malloc(b[n].size);
        char *vals = strchr(t, '=');
        long long last = 0;
        for (size_t i = 0; i < count; i++) {
            unsigned char *p = b[n].init + i * es;
            if (vals) {
                /* The listed values, the last one repeated to the end. */
                if (*vals == '=' || *vals == ',')
                    last = strtoll(vals + 1, &vals, 0);
                memcpy(p, &last, es);
            } else if (t[0] == 'f' && es == 4) {
                float f = (float)((i * 37 + (size_t)n * 11) % 101) * 0.25f - 7.0f;
                memcpy(p, &f, 4);
            } else if (t[0] == 'f' && es == 8) {
                double d = (double)((i * 37 + (size_t)n * 11) % 101) * 0.125 - 5.0;
                memcpy(p, &d, 8);
            } else if (t[0] == 'b') {
                *p = (unsigned char)((i + (size_t)n) % 3 == 0);
            } else {
                long long v = (long long)(((i + (size_t)n * 7) * 2654435761u) % 2001) - 1000;
                memcpy(p, &v, es);
            }
        }
    }
    free(copy);
    return n;
}

/* --------------------------------------- the SPIR-V signature, checked */

/* The parameter classes of entry point `name`: 'p' CrossWorkgroup pointer,
 * 'L' Workgroup pointer, 'S' ByVal struct, or the scalar's byte size. */
static int spirv_params(const uint32_t *w, size_t nw, const char *name, char *cls, int max)
{
    uint32_t fid = 0;
    for (size_t i = 5; i < nw;) {
        uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
        if (!len || i + len > nw)
            return -1;
        if (op == 15 && len > 3 && strcmp((const char *)&w[i + 3], name) == 0)
            fid = w[i + 2];
        i += len;
    }
    if (!fid)
        return -1;
    /* types: id -> (opcode, words) */
    int n = 0;
    bool in = false;
    for (size_t i = 5; i < nw;) {
        uint32_t op = w[i] & 0xffff, len = w[i] >> 16;
        if (op == 54 && w[i + 2] == fid)
            in = true;
        else if (in && op == 55 && n < max) {
            uint32_t ty = w[i + 1], pid = w[i + 2];
            char c = '?';
            for (size_t j = 5; j < nw;) {
                uint32_t o2 = w[j] & 0xffff, l2 = w[j] >> 16;
                if (o2 == 32 && w[j + 1] == ty)
                    c = w[j + 2] == 5 ? 'p' : w[j + 2] == 4 ? 'L' : w[j + 2] == 7 ? 'S' : '?';
                else if ((o2 == 21 || o2 == 22) && w[j + 1] == ty)
                    c = (char)(w[j + 2] / 8);
                j += l2;
            }
            (void)pid;
            cls[n++] = c;
        } else if (in && op != 55)
            break;
        i += len;
    }
    return n;
}

/* --------------------------------------------------------- raw OpenCL */

typedef void *(*shared_alloc_fn)(cl_context, cl_device_id, const cl_ulong *, size_t, cl_uint, cl_int *);
typedef cl_int (*mem_free_fn)(cl_context, void *);
typedef cl_int (*set_ptr_fn)(cl_kernel, cl_uint, const void *);

static struct {
    cl_platform_id plat;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    shared_alloc_fn alloc;
    mem_free_fn free;
    set_ptr_fn set_ptr;
} cl;

static int cl_setup(void)
{
    cl_uint n = 0;
    if (clGetPlatformIDs(1, &cl.plat, &n) != CL_SUCCESS || !n)
        return -1;
    if (clGetDeviceIDs(cl.plat, CL_DEVICE_TYPE_CPU, 1, &cl.dev, NULL) != CL_SUCCESS)
        return -1;
    cl_int e;
    cl.ctx = clCreateContext(NULL, 1, &cl.dev, NULL, NULL, &e);
    cl.q = clCreateCommandQueueWithProperties(cl.ctx, cl.dev, NULL, &e);
    cl.alloc = (shared_alloc_fn)clGetExtensionFunctionAddressForPlatform(cl.plat, "clSharedMemAllocINTEL");
    cl.free = (mem_free_fn)clGetExtensionFunctionAddressForPlatform(cl.plat, "clMemFreeINTEL");
    cl.set_ptr = (set_ptr_fn)clGetExtensionFunctionAddressForPlatform(cl.plat, "clSetKernelArgMemPointerINTEL");
    return cl.q && cl.alloc && cl.free && cl.set_ptr ? 0 : -1;
}

/* ------------------------------------------------------------ the run */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The image (statically read) holding kernel `name` in module `path`. */
static const sx_device_binary *find_image(sxp_elf *elf, const char *name)
{
    for (size_t d = 0; d < elf->num_descs; d++)
        for (uint16_t i = 0; i < elf->descs[d].desc.num_device_binaries; i++) {
            const sx_device_binary *b = &elf->descs[d].desc.device_binaries[i];
            for (const sx_offload_entry *e = b->entries_begin; e != b->entries_end; e++)
                if (!strcmp(e->name, name))
                    return b;
        }
    return NULL;
}

/* Zero bits of "SYCL/kernel param opt" for `name`: the parameters kept. */
static int kept_params(const sx_device_binary *b, const char *name, int *total)
{
    for (const sx_device_binary_property_set *s = b->property_sets_begin; s != b->property_sets_end; s++)
        if (!strcmp(s->name, SX_PROP_SET_KERNEL_PARAM_OPT))
            for (const sx_device_binary_property *p = s->properties_begin; p != s->properties_end; p++)
                if (!strcmp(p->name, name)) {
                    uint64_t bits;
                    memcpy(&bits, p->value_addr, 8);
                    const unsigned char *m = (const unsigned char *)p->value_addr + 8;
                    int kept = 0;
                    for (uint64_t i = 0; i < bits; i++)
                        kept += !(m[i / 8] >> (i % 8) & 1);
                    *total = (int)bits;
                    return kept;
                }
    *total = -1;
    return -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: kernels LIBDIR\n");
        return 2;
    }
    const char *dir = argv[1];
    if (!dlopen("libpython3.11.so.1", RTLD_NOW | RTLD_GLOBAL)) {
        printf("SKIP: %s\n", dlerror());
        return 77;
    }
    /* Load every module the cases use, through the bridge. */
    const char *mods[] = {EW, TI, RE, SO, AC, DC};
    void *handles[6];
    double t0 = now();
    for (int i = 0; i < 6; i++) {
        char p[4096];
        snprintf(p, sizeof(p), "%s/%s", dir, mods[i]);
        if (!(handles[i] = dlopen(p, RTLD_NOW | RTLD_LOCAL))) {
            fprintf(stderr, "FAIL: dlopen %s: %s\n", p, dlerror());
            return 1;
        }
    }
    printf("modules loaded and registered in %.1f ms\n", (now() - t0) * 1e3);
    if (cl_setup() != 0) {
        printf("SKIP: no OpenCL CPU device with USM (Intel's CPU runtime) through the ICD loader\n");
        return 77;
    }
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    if (sx_init(0) || sx_device_get_default(&dev) || sx_context_create(1, &dev, &ctx) ||
        sx_queue_create(ctx, dev, 0, &q)) {
        fprintf(stderr, "FAIL: no sx device: %s\n", sx_last_error());
        return 1;
    }
    int fail = 0, passed = 0;
    size_t ncases = sizeof(cases) / sizeof(cases[0]);
    for (size_t c = 0; c < ncases; c++) {
        const kcase *k = &cases[c];
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", dir, k->module);
        size_t fsize;
        uint8_t *file = sxp_read_file(path, &fsize);
        sxp_elf elf;
        if (!file || !sxp_elf_read(path, file, fsize, &elf)) {
            fprintf(stderr, "FAIL: cannot read %s\n", path);
            return 1;
        }
        const sx_device_binary *img = find_image(&elf, k->name);
        karg a[16];
        kbuf b[8];
        int na = parse_args(k->args, a, 16), nb = parse_bufs(k->bufs, b, 8);
        /* The arguments against the SPIR-V and the elimination mask. */
        char cls[32];
        int total, kept = img ? kept_params(img, k->name, &total) : -1;
        int np = img ? spirv_params((const uint32_t *)img->binary_start,
                                    (size_t)(img->binary_end - img->binary_start) / 4, k->name, cls, 32)
                     : -1;
        const char *bad = !img ? "no image holds it" : np < 0 ? "no such entry point in its SPIR-V"
                        : np != na ? "argument count differs from the SPIR-V's parameters"
                        : kept >= 0 && kept != np ? "kernel param opt's kept count differs from the SPIR-V" : NULL;
        for (int i = 0; !bad && i < na; i++)
            if ((a[i].kind == 'p' && cls[i] != 'p') || (a[i].kind == 'L' && cls[i] != 'L') ||
                (a[i].kind == 'v' && cls[i] != 'S' && (size_t)cls[i] != a[i].size))
                bad = "an argument's kind or size differs from its SPIR-V parameter";
        if (bad) {
            fprintf(stderr, "FAIL: case %zu (%s): %s\n", c, k->what, bad);
            fail = 1;
            sxp_elf_free(&elf);
            free(file);
            continue;
        }
        /* The same buffers on both sides. */
        void *sbuf[8], *cbuf[8];
        for (int i = 0; i < nb; i++) {
            cl_int e;
            if (sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, b[i].size, 64, &sbuf[i]) ||
                !(cbuf[i] = cl.alloc(cl.ctx, cl.dev, NULL, b[i].size, 64, &e))) {
                fprintf(stderr, "FAIL: USM: %s\n", sx_last_error());
                return 1;
            }
            memcpy(sbuf[i], b[i].init, b[i].size);
            memcpy(cbuf[i], b[i].init, b[i].size);
        }
        /* libsycl-ext: the kernel by its DPC++ name, the arguments as laid out. */
        sx_kernel sk = NULL;
        sx_arg sa[16];
        unsigned char svals[16][64];
        for (int i = 0; i < na; i++) {
            memcpy(svals[i], a[i].bytes, sizeof(a[i].bytes));
            for (int j = 0; j < a[i].nptr; j++)
                memcpy(svals[i] + a[i].ptr_at[j], &sbuf[a[i].ptr_buf[j]], 8);
            sa[i] = a[i].kind == 'p' ? (sx_arg){SX_ARG_POINTER, (uint32_t)i, sizeof(void *), sbuf[a[i].buf]}
                  : a[i].kind == 'L' ? (sx_arg){SX_ARG_LOCAL, (uint32_t)i, a[i].size, NULL}
                                     : (sx_arg){SX_ARG_VALUE, (uint32_t)i, a[i].size, svals[i]};
        }
        double s0 = now();
        sx_result r = sx_kernel_get(k->name, &sk);
        if (r == SX_SUCCESS)
            r = sx_queue_launch(q, sk, k->dims, NULL, k->global, k->local[0] ? k->local : NULL, (uint32_t)na, sa, 0,
                                NULL, NULL);
        if (r == SX_SUCCESS)
            r = sx_queue_wait(q);
        double s1 = now();
        if (r != SX_SUCCESS) {
            fprintf(stderr, "FAIL: case %zu (%s): libsycl-ext: %s: %s\n", c, k->what, sx_result_name(r),
                    sx_last_error());
            fail = 1;
        }
        /* Raw OpenCL: the image's SPIR-V, the same arguments. */
        cl_int e;
        double c0 = now();
        size_t len = (size_t)(img->binary_end - img->binary_start);
        cl_program prog = clCreateProgramWithIL(cl.ctx, img->binary_start, len, &e);
        if (e == CL_SUCCESS)
            e = clBuildProgram(prog, 1, &cl.dev, "", NULL, NULL);
        cl_kernel ck = e == CL_SUCCESS ? clCreateKernel(prog, k->name, &e) : NULL;
        for (int i = 0; e == CL_SUCCESS && i < na; i++) {
            if (a[i].kind == 'p')
                e = cl.set_ptr(ck, (cl_uint)i, cbuf[a[i].buf]);
            else if (a[i].kind == 'L')
                e = clSetKernelArg(ck, (cl_uint)i, a[i].size, NULL);
            else {
                unsigned char v[64];
                memcpy(v, a[i].bytes, sizeof(v));
                for (int j = 0; j < a[i].nptr; j++)
                    memcpy(v + a[i].ptr_at[j], &cbuf[a[i].ptr_buf[j]], 8);
                e = clSetKernelArg(ck, (cl_uint)i, a[i].size, v);
            }
        }
        if (e == CL_SUCCESS)
            e = clEnqueueNDRangeKernel(cl.q, ck, k->dims, NULL, k->global, k->local[0] ? k->local : NULL, 0, NULL,
                                       NULL);
        if (e == CL_SUCCESS)
            e = clFinish(cl.q);
        double c1 = now();
        if (e != CL_SUCCESS) {
            fprintf(stderr, "FAIL: case %zu (%s): raw OpenCL error %d\n", c, k->what, e);
            fail = 1;
        }
        /* Every buffer, byte for byte. */
        int same = r == SX_SUCCESS && e == CL_SUCCESS;
        for (int i = 0; same && i < nb; i++)
            if (memcmp(sbuf[i], cbuf[i], b[i].size) != 0) {
                size_t at = 0;
                while (((unsigned char *)sbuf[i])[at] == ((unsigned char *)cbuf[i])[at])
                    at++;
                fprintf(stderr, "FAIL: case %zu (%s): buffer %d differs at byte %zu\n", c, k->what, i, at);
                same = 0;
                fail = 1;
            }
        int changed = 0;
        for (int i = 0; same && i < nb; i++)
            changed |= memcmp(sbuf[i], b[i].init, b[i].size) != 0;
        int ref = same && k->check ? k->check(sbuf) : 0;
        if (same && !changed) {
            fprintf(stderr, "FAIL: case %zu (%s): the kernel wrote nothing\n", c, k->what);
            fail = 1;
        } else if (ref) {
            fprintf(stderr, "FAIL: case %zu (%s): the host reference differs at element %d\n", c, k->what, ref - 1);
            fail = 1;
        } else if (same) {
            passed++;
            printf("ok %2zu  %-36s %d params (%d before elimination)  first launch: sx %.1f ms, raw OpenCL %.1f ms%s\n",
                   c, k->what, np, total, (s1 - s0) * 1e3, (c1 - c0) * 1e3, k->check ? ", host reference agrees" : "");
        }
        if (ck)
            clReleaseKernel(ck);
        if (prog)
            clReleaseProgram(prog);
        if (sk)
            sx_kernel_release(sk);
        for (int i = 0; i < nb; i++) {
            sx_usm_free(ctx, sbuf[i]);
            cl.free(cl.ctx, cbuf[i]);
            free(b[i].init);
        }
        sxp_elf_free(&elf);
        free(file);
    }
    printf("%d of %zu kernels give raw OpenCL's results\n", passed, ncases);
    sx_queue_release(q);
    sx_context_release(ctx);
    sx_fini();
    for (int i = 5; i >= 0; i--)
        dlclose(handles[i]);
    return fail;
}
