/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dpnp.c: the native device against Intel's CPU OpenCL runtime on real
 * SYCL kernels: those of the DPC++-built dpnp 0.20.0 wheel (PyPI), as
 * SPIR-V modules extracted from its shared objects (one kernel each):
 *
 *   python3 tests/native-wgc/spirv-images.py dpnp-0.20.0-*.whl DIR
 *   bench/dpnp --images DIR [--rounds N] [--max K] [--elems N] [--ragged] [--only SUBSTRING]
 *
 * From every module's SPIR-V it reads each kernel's parameters and keeps
 * the contiguous element-wise kernels of dpctl's tensor library (dpnp's
 * ufuncs: `*_contig_kernel<T1, [T2,] R, vec, n_vecs>`, parameters global
 * pointers and the element count), one per operation, of plain numeric
 * element types (the types come from the kernel's mangled name). Each
 * buffer holds N elements of 16 bytes, filled with small values of the
 * first template type; the global size is N / (vec * n_vecs) work-items
 * in groups of 128, as dpctl launches them (N rounded down to whole
 * groups; with --ragged N as given and the last group partly past it, so
 * that its sub-groups branch differently: sx-wgc's per-work-item-state
 * copy runs there). The same SPIR-V goes to
 * Intel's runtime (clCreateProgramWithIL) and through proptool --native
 * (sx-wgc) to the native device, in one process, alternating rounds;
 * after each round every buffer of the two is compared (floats to a
 * relative 1e-5, NaN equal to NaN: Intel's math library and ours may
 * differ in the last bits; others byte for byte). Prints per kernel the
 * median of the per-round ratios native/Intel with their range, then the
 * geometric mean. Run from the build tree (SX_TEST_BUILDDIR and
 * SX_NATIVE_BUILTINS as make check sets). */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sycl-ext/sx.h>

#include "../tests/util/sxt.h"
#include "bench.h"
#include "cl-sides.h"

#define DIE(...) cls_die(__VA_ARGS__)
#define MAXP 8
#define MAXK 256
#define ELEM 16  /* bytes per element of every buffer: the widest type taken */

typedef struct {
    char name[512];     /* the kernel (a mangled _ZTS name) */
    char op[64];        /* the operation, for one kernel each */
    char path[4096];    /* its SPIR-V module */
    int np;
    char pk[MAXP];      /* 'p' global pointer, 'l' 64-bit integer (the element count) */
    char in, out;       /* the first and last template type codes */
    unsigned epw;       /* elements per work-item: vec * n_vecs */
} dkernel;

/* ---- the kernels of a SPIR-V module and their parameters */

typedef struct {
    uint32_t op, len;
    const uint32_t *w;
} spv_inst;

/* The kernels of module `w` (n words) whose parameters are global pointers
 * and 64-bit integers only, into ks (their names and parameter kinds). */
static int spv_kernels(const uint32_t *w, size_t n, const char *path, dkernel *ks, int max)
{
    if (n < 5 || w[0] != 0x07230203u)
        return 0;
    uint32_t bound = w[3];
    if (bound == 0 || bound > (1u << 22))
        return 0;
    char *kind = calloc(bound, 1);  /* per id: 'p' CrossWorkgroup pointer, 'l' i64, 'x' other type */
    uint32_t *entry = calloc(bound, sizeof(uint32_t));  /* function id -> 1 + index in names */
    const char *names[64];
    int nnames = 0, found = 0;
    if (!kind || !entry)
        DIE("out of memory");
    int cur = -1;  /* the kernel whose parameters follow */
    bool ok = true;
    for (size_t p = 5; p < n;) {
        uint32_t len = w[p] >> 16, op = w[p] & 0xffff;
        if (len == 0 || p + len > n)
            break;
        const uint32_t *a = w + p + 1;
        switch (op) {
        case 15:  /* OpEntryPoint model id name */
            if (len > 3 && a[0] == 6 && a[1] < bound && nnames < 64) {  /* Kernel */
                names[nnames] = (const char *)(a + 2);
                entry[a[1]] = (uint32_t)++nnames;
            }
            break;
        case 21:  /* OpTypeInt id width sign */
            if (len >= 3 && a[0] < bound)
                kind[a[0]] = a[1] == 64 ? 'l' : 'x';
            break;
        case 32:  /* OpTypePointer id class type */
            if (len >= 4 && a[0] < bound)
                kind[a[0]] = a[1] == 5 ? 'p' : 'x';
            break;
        case 54:  /* OpFunction type id ctl ftype */
            if (cur >= 0 && ok && ks[found].np > 0 && found < max)
                found++;
            cur = -1;
            if (len >= 5 && a[1] < bound && entry[a[1]] && found < max) {
                cur = (int)entry[a[1]] - 1;
                memset(&ks[found], 0, sizeof ks[found]);
                snprintf(ks[found].name, sizeof ks[found].name, "%s", names[cur]);
                snprintf(ks[found].path, sizeof ks[found].path, "%s", path);
                ok = true;
            }
            break;
        case 55:  /* OpFunctionParameter type id */
            if (cur >= 0) {
                char k = len >= 3 && a[0] < bound ? kind[a[0]] : 'x';
                if ((k != 'p' && k != 'l') || ks[found].np >= MAXP)
                    ok = false;
                else
                    ks[found].pk[ks[found].np++] = k;
            }
            break;
        case 56:  /* OpFunctionEnd */
            if (cur >= 0 && ok && ks[found].np > 0 && found < max)
                found++;
            cur = -1;
            break;
        default:
            break;
        }
        p += len;
    }
    free(kind);
    free(entry);
    return found;
}

/* dpctl's contiguous element-wise kernel: `...<len>NAME_contig_kernelI<types>Lh<vec>ELh<n>EEE`
 * with plain numeric types and parameters (pointer..., i64): fills op,
 * in, out and epw; false for anything else. */
static bool contig(dkernel *k)
{
    const char *c = strstr(k->name, "_contig_kernelI");
    if (!c || k->np < 3 || k->np > 5 || k->pk[k->np - 1] != 'l')
        return false;
    for (int i = 0; i < k->np - 1; i++)
        if (k->pk[i] != 'p')
            return false;
    /* the operation: <len>NAME_contig_kernel, the length counting to its end */
    const char *end = c + strlen("_contig_kernel"), *s = NULL;
    for (const char *t = c - 1; t > k->name && !s; t--) {
        if (t[-1] < '0' || t[-1] > '9')
            continue;
        const char *d = t - 1;
        while (d > k->name && d[-1] >= '0' && d[-1] <= '9')
            d--;
        if (strtol(d, NULL, 10) == end - t)
            s = t;
    }
    if (!s)
        return false;
    snprintf(k->op, sizeof k->op, "%.*s", (int)(c - s) < 63 ? (int)(c - s) : 63, s);
    if (strstr(k->name, "disabled_sg_loadstore"))
        strncat(k->op, " (no sg)", sizeof k->op - strlen(k->op) - 1);
    const char *t = c + strlen("_contig_kernelI");
    int nt = 0;
    for (; *t && *t != 'L' && *t != 'E'; t++) {
        if (!strchr("achstijlmxyfdb", *t))
            return false;  /* complex, half, ... */
        if (nt++ == 0)
            k->in = *t;
        k->out = *t;
    }
    unsigned v = 0, nv = 0;
    if (nt < 2 || sscanf(t, "Lh%uELh%uE", &v, &nv) != 2 || v == 0 || nv == 0 || v * nv > 64)
        return false;
    k->epw = v * nv;
    return k->in != 'b';
}

static size_t type_size(char t)
{
    switch (t) {
    case 'a': case 'c': case 'h': case 'b': return 1;
    case 's': case 't': return 2;
    case 'i': case 'j': case 'f': return 4;
    default: return 8;
    }
}

/* Element e of a buffer of type t: small values every operation takes
 * (positive, no zero divisor, shifts under the width). */
static void fill(unsigned char *buf, size_t n, char t, int salt)
{
    size_t sz = type_size(t), count = n * ELEM / sz;
    for (size_t e = 0; e < count; e++) {
        int v = 1 + (int)((e * 7 + (size_t)salt * 13) % 23);
        double f = 0.25 + (double)((e * 11 + (size_t)salt * 5) % 37) / 16.0;
        unsigned char *p = buf + e * sz;
        switch (t) {
        case 'f': { float x = (float)f; memcpy(p, &x, 4); break; }
        case 'd': memcpy(p, &f, 8); break;
        case 'a': case 'c': case 'h': *p = (unsigned char)v; break;
        case 's': case 't': { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
        case 'i': case 'j': { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
        default: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); break; }
        }
    }
}

/* The first difference between a (native) and b (Intel) as type t, or -1. */
static long differs(const unsigned char *a, const unsigned char *b, size_t bytes, char t)
{
    if (t == 'f' || t == 'd') {
        size_t sz = type_size(t);
        for (size_t e = 0; e < bytes / sz; e++) {
            double x, y;
            if (t == 'f') {
                float fx, fy;
                memcpy(&fx, a + e * 4, 4);
                memcpy(&fy, b + e * 4, 4);
                x = fx, y = fy;
            } else {
                memcpy(&x, a + e * 8, 8);
                memcpy(&y, b + e * 8, 8);
            }
            if (isnan(x) && isnan(y))
                continue;
            if (!(fabs(x - y) <= 1e-5 * fmax(fabs(x), fabs(y))) && x != y)
                return (long)e;
        }
        return -1;
    }
    for (size_t e = 0; e < bytes; e++)
        if (a[e] != b[e])
            return (long)e;
    return -1;
}

/* ---- the sides */
static cl_side intel;
static sx_context ctx;
static sx_device dev;
static sx_queue q;
static int rounds = 7;

/* The native variant of a module: built once into BUILDDIR/bench/dpnp-images. */
static char *native_image(const char *spv)
{
    const char *b = getenv("SX_TEST_BUILDDIR");
    char out[8400], cmd[16384], wgc[4096];
    const char *base = strrchr(spv, '/') ? strrchr(spv, '/') + 1 : spv;
    snprintf(out, sizeof out, "%s/bench/dpnp-images", b ? b : ".");
    mkdir(out, 0777);
    snprintf(out, sizeof out, "%s/bench/dpnp-images/%s.sximg", b ? b : ".", base);
    snprintf(wgc, sizeof wgc, "%s/proptool/sx-wgc", b ? b : ".");
    struct stat so, sw;
    if (stat(out, &so) == 0 && stat(wgc, &sw) == 0 && so.st_mtime > sw.st_mtime)
        return strdup(out);
    snprintf(cmd, sizeof cmd, "'%s/proptool/proptool' -q --native --no-ptx-variant -o '%s' '%s'", b ? b : ".", out,
             spv);
    if (system(cmd) != 0)
        DIE("cannot build the native variant of %s:\n  %s", spv, cmd);
    return strdup(out);
}

static double ratio[MAXK];
static bool ragged;  /* --ragged: N elements as given, the last group partly past them */

static bool run_kernel(const dkernel *k, size_t ki, size_t elems)
{
    size_t n = ragged ? elems : elems / k->epw / 128 * 128 * k->epw;  /* whole groups */
    size_t g = (n + k->epw * 128 - 1) / (k->epw * 128) * 128, l = 128, bytes = n * ELEM;
    int nb = k->np - 1;
    size_t spvlen;
    void *spv = sxt_read_file(k->path, &spvlen);
    if (!spv)
        DIE("cannot read %s", k->path);
    cl_int e;
    cl_program prog = p_clCreateProgramWithIL(intel.ctx, spv, spvlen, &e);
    if (!prog)
        DIE("%s: clCreateProgramWithIL: %d", k->path, e);
    if (p_clBuildProgram(prog, 1, &intel.dev, "", NULL, NULL) != CL_SUCCESS) {
        char log[4096] = "";
        p_clGetProgramBuildInfo(prog, intel.dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        DIE("%s: Intel's runtime cannot build it:\n%s", k->path, log);
    }
    cl_kernel ck = cls_kernel(prog, k->name);
    char *img = native_image(k->path);
    sx_image_file file;
    CHECK(sx_image_file_load(img, &file));
    sx_kernel sk;
    CHECK(sx_kernel_get(k->name, &sk));
    unsigned char *init[MAXP], *nat[MAXP], *cb[MAXP];
    cl_mem mem[MAXP];
    for (int i = 0; i < nb; i++) {
        init[i] = cls_host_alloc(bytes);
        fill(init[i], n, k->in, i);
        CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, bytes, 64, (void **)&nat[i]));
        cb[i] = cls_host_alloc(bytes);
        mem[i] = cls_buffer(&intel, cb[i], bytes);
    }
    uint64_t count = n;
    sx_arg sa[MAXP];
    for (int i = 0; i < k->np; i++) {
        if (i < nb) {
            sa[i] = (sx_arg){SX_ARG_POINTER, (uint32_t)i, sizeof(void *), nat[i]};
            CLS(clSetKernelArg(ck, (cl_uint)i, sizeof(cl_mem), &mem[i]));
        } else {
            sa[i] = (sx_arg){SX_ARG_VALUE, (uint32_t)i, 8, &count};
            CLS(clSetKernelArg(ck, (cl_uint)i, 8, &count));
        }
    }
    double tn[256], ti[256];
    bool good = true;
    for (int r = -1; r < rounds && good; r++) {  /* round -1 warms both up */
        for (int i = 0; i < nb; i++) {
            memcpy(nat[i], init[i], bytes);
            memcpy(cb[i], init[i], bytes);
        }
        double t0 = bench_now();
        CHECK(sx_queue_launch(q, sk, 1, NULL, &g, &l, (uint32_t)k->np, sa, 0, NULL, NULL));
        CHECK(sx_queue_wait(q));
        double t1 = bench_now() - t0;
        double t2 = cls_run(&intel, ck, 1, &g, &l);
        if (r >= 0) {
            tn[r] = t1;
            ti[r] = t2;
        }
        for (int i = 0; i < nb && good; i++) {
            cls_sync(&intel, mem[i], bytes);
            long d = differs(nat[i], cb[i], bytes, k->out);
            if (d >= 0) {
                size_t at = k->out == 'f' || k->out == 'd' ? (size_t)d * type_size(k->out) : (size_t)d;
                fprintf(stderr, "%s (%s): round %d: buffer %d differs from Intel's at byte %zu (type '%c'): "
                        "native %02x%02x%02x%02x, Intel %02x%02x%02x%02x\n", k->op, k->name, r, i, at, k->out,
                        nat[i][at], nat[i][at + 1], nat[i][at + 2], nat[i][at + 3], cb[i][at], cb[i][at + 1],
                        cb[i][at + 2], cb[i][at + 3]);
                good = false;
            }
        }
    }
    if (good) {
        double rr[256], nn[256], ii[256];
        for (int i = 0; i < rounds; i++) {
            rr[i] = tn[i] / ti[i];
            nn[i] = tn[i];
            ii[i] = ti[i];
        }
        qsort(rr, (size_t)rounds, sizeof(double), bench_cmp_double);
        qsort(nn, (size_t)rounds, sizeof(double), bench_cmp_double);
        qsort(ii, (size_t)rounds, sizeof(double), bench_cmp_double);
        ratio[ki] = rr[rounds / 2];
        printf("%-28s %c->%c %9.3f ms  intel %9.3f ms  native/intel %6.3f [%.3f .. %.3f]\n", k->op, k->in, k->out,
               nn[rounds / 2] * 1e3, ii[rounds / 2] * 1e3, rr[rounds / 2], rr[0], rr[rounds - 1]);
    } else {
        printf("%-28s %c->%c WRONG (see stderr)\n", k->op, k->in, k->out);
    }
    fflush(stdout);
    for (int i = 0; i < nb; i++) {
        CHECK(sx_usm_free(ctx, nat[i]));
        p_clReleaseMemObject(mem[i]);
        free(cb[i]);
        free(init[i]);
    }
    p_clReleaseKernel(ck);
    p_clReleaseProgram(prog);
    CHECK(sx_kernel_release(sk));
    CHECK(sx_image_file_release(file));
    free(img);
    free(spv);
    return good;
}

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
    const char *dir = getenv("SX_BENCH_DPNP_IMAGES"), *only = NULL;
    int max = 40;
    size_t elems = (size_t)1 << 20;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--images") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--max") == 0 && i + 1 < argc)
            max = atoi(argv[++i]);
        else if (strcmp(argv[i], "--elems") == 0 && i + 1 < argc)
            elems = strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--ragged") == 0)
            ragged = true;
        else
            DIE("usage: %s --images DIR [--rounds N] [--max K] [--elems N] [--ragged] [--only SUBSTRING]", argv[0]);
    }
    if (rounds < 1 || rounds > 256 || max < 1 || max > MAXK || elems < 128 * 64 || elems > ((size_t)1 << 26))
        DIE("--rounds: 1 to 256; --max: 1 to %d; --elems: 8192 to 2^26", MAXK);
    if (!dir) {
        fprintf(stderr, "SKIP: no directory of dpnp's SPIR-V modules (--images DIR or SX_BENCH_DPNP_IMAGES; "
                        "python3 tests/native-wgc/spirv-images.py dpnp-0.20.0-*.whl DIR makes one)\n");
        return 77;
    }
    /* the modules in name order, one kernel per operation */
    DIR *d = opendir(dir);
    if (!d)
        DIE("cannot open %s", dir);
    char **files = NULL;
    size_t nf = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".spv") != 0)
            continue;
        files = realloc(files, (nf + 1) * sizeof *files);
        if (!files || asprintf(&files[nf], "%s/%s", dir, de->d_name) < 0)
            DIE("out of memory");
        nf++;
    }
    closedir(d);
    qsort(files, nf, sizeof *files, by_path);
    static dkernel ks[MAXK], tmp[64];
    int nk = 0;
    size_t scanned = 0;
    for (size_t f = 0; f < nf; f++) {
        size_t len;
        uint32_t *w = sxt_read_file(files[f], &len);
        if (!w)
            continue;
        int m = spv_kernels(w, len / 4, files[f], tmp, 64);
        scanned += (size_t)m;
        free(w);
        for (int j = 0; j < m; j++) {
            if (!contig(&tmp[j]) || (only && !strstr(tmp[j].name, only) && !strstr(tmp[j].op, only)))
                continue;
            /* one per operation: float first, then double, int, the rest */
            static const char rank[] = "fdilmjstachxyb";
            int dup = -1;
            for (int i = 0; i < nk && dup < 0; i++)
                if (strcmp(ks[i].op, tmp[j].op) == 0)
                    dup = i;
            if (dup < 0 && nk < max)
                ks[nk++] = tmp[j];
            else if (dup >= 0 && strchr(rank, tmp[j].in) < strchr(rank, ks[dup].in))
                ks[dup] = tmp[j];
        }
    }
    for (size_t f = 0; f < nf; f++)
        free(files[f]);
    free(files);
    if (!nk)
        DIE("no contiguous element-wise kernel among the %zu modules of %s", nf, dir);

    const char *wants[1] = {"Intel(R) OpenCL"};
    if (cls_open(wants, 1, &intel) != 1)
        return 77;
    CHECK(sx_init(SX_INIT_DEFAULT));
    dev = bench_native_device();
    if (!dev)
        DIE("no native device");
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    printf("dpnp 0.20.0's element-wise kernels (%d of the %zu modules' kernels in %s), %zu elements: native "
           "(table %s) vs intel (%s: %s), %d alternating rounds, every buffer compared; median of per-round "
           "ratios [range]\n",
           nk, scanned, dir, elems, getenv("SX_NATIVE_WG_TABLE") ? getenv("SX_NATIVE_WG_TABLE") : "the CPU's best",
           intel.platform, intel.device, rounds);
    int ran = 0, wrong = 0;
    double lg = 0, worst = 0;
    const char *wk = "";
    for (int i = 0; i < nk; i++) {
        if (!run_kernel(&ks[i], (size_t)i, elems)) {
            wrong++;
            continue;
        }
        ran++;
        lg += log(ratio[i]);
        if (ratio[i] > worst) {
            worst = ratio[i];
            wk = ks[i].op;
        }
    }
    if (ran)
        printf("geomean native/intel over %d kernels: %.3f (highest %.3f, %s); %d wrong\n", ran, exp(lg / ran), worst,
               wk, wrong);
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    cls_close(&intel);
    return wrong ? 1 : 0;
}
