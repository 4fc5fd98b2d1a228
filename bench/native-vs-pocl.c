/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-vs-pocl.c: the native adapter against a CPU OpenCL driver (PoCL
 * by default) on the same kernels, in ONE process, alternating rounds;
 * every result of every round is checked; prints per kernel the median
 * per-round time ratio native / OpenCL and its range. The sides' order
 * turns each round; a side's time in a round is its best of three
 * launches where the kernel may run again on its own output (reduce,
 * matmul, expsin), of one elsewhere.
 *
 *   saxpy      y = a*x + y, 2^24 floats, the local size left to each side
 *   reduce     work-group tree reduction, barrier + local memory, wg 256, 2^22 floats
 *   matmul     tiled 512 x 512 float matrix multiply, 16 x 16 groups, local tiles
 *   smooth     barrier inside a loop whose trip count is an argument (16), wg 256, 2^20 floats
 *   expsin     math builtins in the work-item loop: exp(-x) sin(3x) + pow(x, w), 2^22 floats,
 *              checked against double precision within the OpenCL C bounds' reach
 *
 * Every side runs the kernels of bench/native-vs-pocl.cl. The OpenCL sides
 * build that source through libOpenCL: PoCL and, where the ICD loader sees
 * it, Intel's CPU runtime (tools/intel-opencl.sh puts it in the build tree,
 * where this program finds it), each a side of its own in every round. The native side runs compiled
 * work-group images (adapters/native/wg.h) through sx: by default
 * bench/native-vs-pocl.sximg, which `make` builds from the same source
 * (clang-14 -> SPIR-V -> proptool --native, proptool's work-group
 * compiler); --image FILE takes another image file, or an ELF image with
 * the same kernels such as bench/native-wg-bench.hso (the hand-written
 * work-group functions of tests/kernels/native-wg.c, -O3 -march=native).
 *
 *   bench/native-vs-pocl [--rounds N] [--platform NAME]... [--image FILE] [--only KERNEL] [--cl FILE.cl]
 *
 * NAME (or SX_BENCH_CL_PLATFORM) is a substring of an OpenCL platform's
 * name; each --platform adds a side; default "Portable Computing Language"
 * and "Intel(R) OpenCL" (a side whose platform is absent is left out).
 * OCL_ICD_VENDORS picks the drivers the ICD loader sees. Run from the
 * build tree (SX_TEST_BUILDDIR, SX_NATIVE_BUILTINS as make check sets). */
#include <math.h>
#include <pthread.h>
#include <unistd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/sx.h>

#include "../tests/util/sxt.h"
#include "bench.h"
#include "cl-sides.h"

#define DIE(...) cls_die(__VA_ARGS__)

static cl_side sides[CLS_MAX];
static int nsides;
static cl_program progs[CLS_MAX];

/* ---- native through sx */
static sx_context ctx;
static sx_device dev;
static sx_queue q;

static void *usm(size_t size)
{
    void *p;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, size, 0, &p));
    return p;
}

static double sx_run(sx_kernel k, uint32_t dims, const size_t *g, const size_t *l, uint32_t n, const sx_arg *a)
{
    double t0 = bench_now();
    CHECK(sx_queue_launch(q, k, dims, NULL, g, l, n, a, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    return bench_now() - t0;
}

static sx_arg aptr(uint32_t i, void *p)
{
    return (sx_arg){SX_ARG_POINTER, i, sizeof(void *), p};
}
static sx_arg aval(uint32_t i, const void *v, size_t n)
{
    return (sx_arg){SX_ARG_VALUE, i, n, v};
}
static sx_arg aloc(uint32_t i, size_t n)
{
    return (sx_arg){SX_ARG_LOCAL, i, n, NULL};
}

/* ---- rounds and ratios */
static int rounds = 15;

/* native / side ratio of each round: median and range, and the median times */
static double med_native, med_side[CLS_MAX];  /* of the last kernel, seconds */
static double stream_bw;                     /* bytes per second, 0 before it is measured */

static void report(const char *what, const double *tn, double tc[][256])
{
    double n[256];
    memcpy(n, tn, sizeof(double) * (size_t)rounds);
    qsort(n, (size_t)rounds, sizeof(double), bench_cmp_double);
    printf("%-8s native %9.3f ms", what, n[rounds / 2] * 1e3);
    med_native = n[rounds / 2];
    for (int s = 0; s < nsides; s++) {
        double r[256], c[256];
        for (int i = 0; i < rounds; i++) {
            r[i] = tn[i] / tc[s][i];
            c[i] = tc[s][i];
        }
        qsort(r, (size_t)rounds, sizeof(double), bench_cmp_double);
        qsort(c, (size_t)rounds, sizeof(double), bench_cmp_double);
        med_side[s] = c[rounds / 2];
        printf("  | %s %9.3f ms  native/%s %6.3f [%.3f .. %.3f]", sides[s].label, c[rounds / 2] * 1e3,
               sides[s].label, r[rounds / 2], r[0], r[rounds - 1]);
    }
    printf("\n");
    fflush(stdout);
}

/* Exact, or within tol (|want| + 1) where tol is not 0 (math builtins:
 * each side rounds within the OpenCL C bounds, not alike). */
static void check_floats(const char *what, const char *side, int round, const float *got, const float *want, size_t n,
                         float tol)
{
    for (size_t i = 0; i < n; i++)
        if (tol ? !(fabsf(got[i] - want[i]) <= tol * (fabsf(want[i]) + 1.0f)) : got[i] != want[i])
            DIE("%s: %s round %d: element %zu is %g, expected %g", what, side, round, i, got[i], want[i]);
}

/* One kernel's rounds: before each, `reset` prepares every side's data and
 * the expected result; after each, every result is checked. */
typedef struct bcase bcase;
struct bcase {
    const char *name;
    sx_kernel k;
    cl_kernel ck[CLS_MAX];
    uint32_t dims;
    size_t g[2];
    const size_t *l;   /* NULL: each side picks */
    uint32_t nargs;
    sx_arg args[4];
    float *out, *want;         /* the native result, and what every result must be */
    float *cout[CLS_MAX];      /* each OpenCL side's result */
    cl_mem cbuf[CLS_MAX];      /* over cout */
    size_t n_out;
    void (*reset)(const bcase *c, int round);
    void *data;                /* for reset */
    float tol;                 /* check_floats */
    int reps;                  /* launches per side and round (0: one) */
};

/* The host's own work between rounds (resetting data, computing and
 * checking results) runs on a thread of its own: the launching thread
 * stays idle between launches, as OpenCL's worker threads do, so the
 * scheduler treats the sides alike. */
typedef struct {
    const bcase *c;
    int round;
    bool check;
} host_work;

static void *host_work_run(void *arg)
{
    const host_work *w = arg;
    const bcase *c = w->c;
    if (w->check) {
        check_floats(c->name, "native", w->round, c->out, c->want, c->n_out, c->tol);
        for (int s = 0; s < nsides; s++) {
            cls_sync(&sides[s], c->cbuf[s], c->n_out * 4);
            check_floats(c->name, sides[s].label, w->round, c->cout[s], c->want, c->n_out, c->tol);
        }
    } else {
        c->reset(c, w->round);
    }
    return NULL;
}

static void on_host_thread(const bcase *c, int round, bool check)
{
    host_work w = {c, round, check};
    pthread_t t;
    if (pthread_create(&t, NULL, host_work_run, &w) != 0)
        DIE("pthread_create failed");
    pthread_join(t, NULL);
}

/* A side's time in a round: the best of c->reps launches back to back
 * (one launch of a few milliseconds on a shared machine is mostly noise);
 * only kernels whose result does not depend on their output's old value
 * run more than once. */
static double side_time(const bcase *c, int side)
{
    double best = 0;
    for (int i = 0; i < (c->reps > 1 ? c->reps : 1); i++) {
        double t = side < 0 ? sx_run(c->k, c->dims, c->g, c->l, c->nargs, c->args)
                            : cls_run(&sides[side], c->ck[side], c->dims, c->g, c->l);
        if (i == 0 || t < best)
            best = t;
    }
    return best;
}

static void run_rounds(const bcase *c)
{
    static double tn[256], tc[CLS_MAX][256];
    for (int r = -1; r < rounds; r++) {  /* round -1 warms every side up (PoCL compiles at first launch) */
        on_host_thread(c, r, false);
        /* The order of the sides turns each round: none always runs
         * right after another runtime's worker threads went idle. */
        for (int i = 0; i <= nsides; i++) {
            int s = (i + (r < 0 ? 0 : r)) % (nsides + 1) - 1;  /* -1: native */
            double t = side_time(c, s);
            if (r >= 0)
                *(s < 0 ? &tn[r] : &tc[s][r]) = t;
        }
        on_host_thread(c, r, true);
    }
    report(c->name, tn, tc);
}

/* Each side's copy of `n` host arrays (the native one first, USM): side
 * s's array j is at host[s][j], its buffer at buf[s][j]. */
typedef struct {
    void *host[CLS_MAX][4];
    cl_mem buf[CLS_MAX][4];
    int n;
} side_data;

static void side_data_make(side_data *d, int n, const size_t *sizes, void *const *native)
{
    d->n = n;
    for (int s = 0; s < nsides; s++)
        for (int j = 0; j < n; j++) {
            d->host[s][j] = cls_host_alloc(sizes[j]);
            memcpy(d->host[s][j], native[j], sizes[j]);
            d->buf[s][j] = cls_buffer(&sides[s], d->host[s][j], sizes[j]);
        }
}

static void side_data_free(side_data *d)
{
    for (int s = 0; s < nsides; s++)
        for (int j = 0; j < d->n; j++) {
            p_clReleaseMemObject(d->buf[s][j]);
            free(d->host[s][j]);
        }
}

static void set_cl_buffers(const bcase *c, const side_data *d, const int *argno, int n)
{
    for (int s = 0; s < nsides; s++)
        for (int j = 0; j < n; j++)
            CLS(clSetKernelArg(c->ck[s], (cl_uint)argno[j], sizeof(cl_mem), &d->buf[s][j]));
}

static void set_cl_value(const bcase *c, cl_uint i, size_t size, const void *v)
{
    for (int s = 0; s < nsides; s++)
        CLS(clSetKernelArg(c->ck[s], i, size, v));
}

static void outputs_of(bcase *c, const side_data *d, int j)
{
    for (int s = 0; s < nsides; s++) {
        c->cout[s] = d->host[s][j];
        c->cbuf[s] = d->buf[s][j];
    }
}

/* saxpy works in place: after round r, y = y0 + (r + 2) a x */
static void saxpy_reset(const bcase *c, int r)
{
    float a = *(const float *)c->args[0].value;
    for (size_t i = 0; i < c->n_out; i++)
        c->want[i] = (float)(i % 777) + (float)(r + 2) * a * (float)(i % 1000);
}

static void zero_outputs(const bcase *c, int r)
{
    (void)r;
    memset(c->out, 0, c->n_out * 4);
    for (int s = 0; s < nsides; s++)
        memset(c->cout[s], 0, c->n_out * 4);
}

static void restore_inputs(const bcase *c, int r)
{
    (void)r;
    memcpy(c->out, c->data, c->n_out * 4);
    for (int s = 0; s < nsides; s++)
        memcpy(c->cout[s], c->data, c->n_out * 4);
}

static void bench_saxpy(bcase *c)
{
    size_t n = (size_t)1 << 24;
    float *x = usm(n * 4), *y = usm(n * 4);
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(i % 1000);
        y[i] = (float)(i % 777);
    }
    static float a = 2.0f;
    side_data d;
    side_data_make(&d, 2, (size_t[]){n * 4, n * 4}, (void *[]){x, y});
    set_cl_value(c, 0, sizeof(a), &a);
    set_cl_buffers(c, &d, (int[]){1, 2}, 2);
    c->dims = 1;
    c->g[0] = n;
    c->nargs = 3;
    c->args[0] = aval(0, &a, 4);
    c->args[1] = aptr(1, x);
    c->args[2] = aptr(2, y);
    c->out = y;
    c->want = malloc(n * 4);
    c->n_out = n;
    c->reset = saxpy_reset;
    outputs_of(c, &d, 1);
    run_rounds(c);
    side_data_free(&d);
    CHECK(sx_usm_free(ctx, x));
    CHECK(sx_usm_free(ctx, y));
    free(c->want);
}

static void bench_reduce(bcase *c)
{
    static const size_t l = 256;
    size_t n = (size_t)1 << 22, ng = n / l;
    float *in = usm(n * 4), *out = usm(ng * 4);
    float *want = calloc(ng, 4);
    for (size_t i = 0; i < n; i++) {
        in[i] = (float)((i * 7) % 13);
        want[i / l] += in[i];
    }
    side_data d;
    side_data_make(&d, 2, (size_t[]){n * 4, ng * 4}, (void *[]){in, out});
    set_cl_buffers(c, &d, (int[]){0, 1}, 2);
    set_cl_value(c, 2, l * 4, NULL);
    c->dims = 1;
    c->g[0] = n;
    c->l = &l;
    c->nargs = 3;
    c->args[0] = aptr(0, in);
    c->args[1] = aptr(1, out);
    c->args[2] = aloc(2, l * 4);
    c->out = out;
    c->want = want;
    c->n_out = ng;
    c->reset = zero_outputs;
    c->reps = 3;
    outputs_of(c, &d, 1);
    run_rounds(c);
    if (stream_bw > 0) {
        printf("%-8s reads %.1f MB: native %.1f GB/s (%.0f%% of the triad's %.1f GB/s)", "", n * 4 / 1e6,
               n * 4 / med_native / 1e9, 100.0 * n * 4 / med_native / stream_bw, stream_bw / 1e9);
        for (int s = 0; s < nsides; s++)
            printf(", %s %.1f GB/s (%.0f%%)", sides[s].label, n * 4 / med_side[s] / 1e9,
                   100.0 * n * 4 / med_side[s] / stream_bw);
        printf("\n");
    }
    side_data_free(&d);
    CHECK(sx_usm_free(ctx, in));
    CHECK(sx_usm_free(ctx, out));
    free(want);
}

static void bench_matmul(bcase *c)
{
    static const size_t l[2] = {16, 16};
    static int N = 512;
    size_t nn = (size_t)N * N;
    float *A = usm(nn * 4), *B = usm(nn * 4), *C = usm(nn * 4), *want = calloc(nn, 4);
    for (size_t i = 0; i < nn; i++) {
        A[i] = (float)(i % 5);
        B[i] = (float)(i % 3) - 1.0f;
        C[i] = 0;
    }
    for (int r = 0; r < N; r++)
        for (int i = 0; i < N; i++)
            for (int col = 0; col < N; col++)
                want[(size_t)r * N + col] += A[(size_t)r * N + i] * B[(size_t)i * N + col];
    side_data d;
    side_data_make(&d, 3, (size_t[]){nn * 4, nn * 4, nn * 4}, (void *[]){A, B, C});
    set_cl_buffers(c, &d, (int[]){0, 1, 2}, 3);
    set_cl_value(c, 3, sizeof(int), &N);
    c->dims = 2;
    c->g[0] = c->g[1] = (size_t)N;
    c->l = l;
    c->nargs = 4;
    c->args[0] = aptr(0, A);
    c->args[1] = aptr(1, B);
    c->args[2] = aptr(2, C);
    c->args[3] = aval(3, &N, 4);
    c->out = C;
    c->want = want;
    c->n_out = nn;
    c->reset = zero_outputs;
    c->reps = 3;
    outputs_of(c, &d, 2);
    run_rounds(c);
    side_data_free(&d);
    CHECK(sx_usm_free(ctx, A));
    CHECK(sx_usm_free(ctx, B));
    CHECK(sx_usm_free(ctx, C));
    free(want);
}

static void bench_smooth(bcase *c)
{
    static const size_t l = 256;
    size_t n = (size_t)1 << 20;
    static int iters = 16;
    float *dd = usm(n * 4), *init = malloc(n * 4), *want = malloc(n * 4);
    float tmp[256];
    for (size_t i = 0; i < n; i++)
        dd[i] = init[i] = want[i] = (float)((i * 37) % 11);
    for (size_t g = 0; g < n / l; g++)
        for (int it = 0; it < iters; it++) {
            memcpy(tmp, want + g * l, sizeof(tmp));
            for (size_t i = 0; i < l; i++)
                want[g * l + i] = 0.5f * (tmp[i] + tmp[(i + 1) % l]);
        }
    side_data d;
    side_data_make(&d, 1, (size_t[]){n * 4}, (void *[]){dd});
    set_cl_buffers(c, &d, (int[]){0}, 1);
    set_cl_value(c, 1, sizeof(int), &iters);
    set_cl_value(c, 2, l * 4, NULL);
    c->dims = 1;
    c->g[0] = n;
    c->l = &l;
    c->nargs = 3;
    c->args[0] = aptr(0, dd);
    c->args[1] = aval(1, &iters, 4);
    c->args[2] = aloc(2, l * 4);
    c->out = dd;
    c->want = want;
    c->n_out = n;
    c->reset = restore_inputs;
    c->data = init;
    outputs_of(c, &d, 0);
    run_rounds(c);
    side_data_free(&d);
    CHECK(sx_usm_free(ctx, dd));
    free(init);
    free(want);
}

static void bench_expsin(bcase *c)
{
    size_t n = (size_t)1 << 22;
    float *x = usm(n * 4), *w = usm(n * 4), *y = usm(n * 4), *want = malloc(n * 4);
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)(i % 4001) * 0.001f;
        w[i] = 0.5f + (float)(i % 1499) * 0.001f;
        want[i] = (float)(exp(-(double)x[i]) * sin(3.0 * x[i]) + pow(x[i], w[i]));
    }
    side_data d;
    side_data_make(&d, 3, (size_t[]){n * 4, n * 4, n * 4}, (void *[]){x, w, y});
    set_cl_buffers(c, &d, (int[]){0, 1, 2}, 3);
    c->dims = 1;
    c->g[0] = n;
    c->nargs = 3;
    c->args[0] = aptr(0, x);
    c->args[1] = aptr(1, w);
    c->args[2] = aptr(2, y);
    c->out = y;
    c->want = want;
    c->n_out = n;
    c->tol = 1e-5f;
    c->reset = zero_outputs;
    c->reps = 3;
    outputs_of(c, &d, 2);
    run_rounds(c);
    side_data_free(&d);
    CHECK(sx_usm_free(ctx, x));
    CHECK(sx_usm_free(ctx, w));
    CHECK(sx_usm_free(ctx, y));
    free(want);
}

/* The machine's streaming bandwidth: a STREAM-triad-like loop a[i] = b[i]
 * + s c[i] over 3 x 64 MiB on every CPU (one thread per CPU, as the native
 * device runs), best of `rounds`, counted as STREAM does (3 arrays moved). */
typedef struct {
    double *a, *b, *c;
    size_t lo, hi;
} triad_part;

static void *triad_run(void *arg)
{
    triad_part *t = arg;
    for (size_t i = t->lo; i < t->hi; i++)
        t->a[i] = t->b[i] + 3.0 * t->c[i];
    return NULL;
}

static double stream_triad(void)
{
    size_t n = (size_t)8 << 20;
    double *a = cls_host_alloc(n * 8), *b = cls_host_alloc(n * 8), *c = cls_host_alloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        a[i] = 0;
        b[i] = (double)(i % 100);
        c[i] = 1.0;
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1 || ncpu > 256)
        ncpu = 1;
    double best = 0;
    for (int r = 0; r < rounds; r++) {
        pthread_t th[256];
        triad_part p[256];
        double t0 = bench_now();
        for (long i = 0; i < ncpu; i++) {
            p[i] = (triad_part){a, b, c, n * (size_t)i / (size_t)ncpu, n * (size_t)(i + 1) / (size_t)ncpu};
            if (pthread_create(&th[i], NULL, triad_run, &p[i]) != 0)
                DIE("pthread_create failed");
        }
        for (long i = 0; i < ncpu; i++)
            pthread_join(th[i], NULL);
        double bw = 3.0 * (double)n * 8 / (bench_now() - t0);
        if (bw > best)
            best = bw;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i] + 3.0)
            DIE("stream triad: element %zu is %g", i, a[i]);
    free(a);
    free(b);
    free(c);
    return best;
}

/* An ELF image of work-group functions, described and registered here. */
static sx_device_binaries *elf_binaries(const void *bytes, size_t size)
{
    sxt_image *im = sxt_image_new(SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE, bytes, size);
    sxa_kernel_param ps[] = {SXT_PARAM_VALUE(SX_SCALAR_F32, 4), SXT_PARAM_POINTER(), SXT_PARAM_POINTER()};
    sxa_kernel_param pr[] = {SXT_PARAM_POINTER(), SXT_PARAM_POINTER(), SXT_PARAM_LOCAL()};
    sxa_kernel_param pm[] = {SXT_PARAM_POINTER(), SXT_PARAM_POINTER(), SXT_PARAM_POINTER(),
                             SXT_PARAM_VALUE(SX_SCALAR_I32, 4)};
    sxa_kernel_param pl[] = {SXT_PARAM_POINTER(), SXT_PARAM_VALUE(SX_SCALAR_I32, 4), SXT_PARAM_LOCAL()};
    if (!im || sxt_image_add_kernel(im, "saxpy", SX_KERNEL_KIND_ND_RANGE, 1, 3, 3, ps, NULL) ||
        sxt_image_add_kernel(im, "reduce", SX_KERNEL_KIND_ND_RANGE, 1, 3, 3, pr, NULL) ||
        sxt_image_add_kernel(im, "matmul", SX_KERNEL_KIND_ND_RANGE, 2, 4, 4, pm, NULL) ||
        sxt_image_add_kernel(im, "smooth", SX_KERNEL_KIND_ND_RANGE, 1, 3, 3, pl, NULL))
        DIE("cannot describe the native image");
    sx_device_binaries *bin = sxt_binaries(&im, 1);
    CHECK(sx_register_images(bin));
    return bin;
}

int main(int argc, char **argv)
{
    const char *wants[CLS_MAX];
    int nwants = 0;
    const char *image = NULL, *only = NULL, *cl_path = NVP_CL_SOURCE;
    const char *env = getenv("SX_BENCH_CL_PLATFORM");
    if (env && *env)
        wants[nwants++] = env;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (strcmp(argv[i], "--platform") == 0 && i + 1 < argc && nwants < CLS_MAX)
            wants[nwants++] = argv[++i];
        else if (strcmp(argv[i], "--image") == 0 && i + 1 < argc)
            image = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--cl") == 0 && i + 1 < argc)
            cl_path = argv[++i];
        else
            DIE("usage: %s [--rounds N] [--platform NAME]... [--image FILE] [--only KERNEL] [--cl FILE.cl]", argv[0]);
    }
    if (!nwants) {
        wants[nwants++] = "Portable Computing Language";
        wants[nwants++] = "Intel(R) OpenCL";
    }
    if (rounds < 1 || rounds > 256)
        DIE("--rounds: 1 to 256");
    char *path = NULL;
    if (image) {
        path = strdup(image);
    } else {
        const char *dir = getenv("SX_TEST_BUILDDIR");
        size_t len = strlen(dir ? dir : ".") + 64;
        path = malloc(len);
        snprintf(path, len, "%s/bench/native-vs-pocl.sximg", dir ? dir : ".");
    }
    size_t size;
    void *bytes = sxt_read_file(path, &size);
    if (!bytes)
        DIE("cannot read the native image %s (build it with make, or pass --image)", path);
    size_t cl_size;
    char *cl_source = sxt_read_file(cl_path, &cl_size);
    if (!cl_source)
        DIE("cannot read the OpenCL C source %s (--cl FILE)", cl_path);

    nsides = cls_open(wants, nwants, sides);
    for (int s = 0; s < nsides; s++)
        progs[s] = cls_build(&sides[s], cl_source, "");

    CHECK(sx_init(SX_INIT_DEFAULT));
    sx_image_file file = NULL;
    sx_device_binaries *bin = NULL;
    if (size >= 4 && memcmp(bytes, "\177ELF", 4) == 0) {
        bin = elf_binaries(bytes, size);
    } else {
        CHECK(sx_image_file_load_memory(bytes, size, &file));
    }
    dev = bench_native_device();
    if (!dev)
        DIE("no native device");
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));

    printf("native (%s, %s, table %s)", path, getenv("SX_NATIVE_THREADS") ? getenv("SX_NATIVE_THREADS") : "all CPUs",
           getenv("SX_NATIVE_WG_TABLE") ? getenv("SX_NATIVE_WG_TABLE") : "the CPU's best");
    for (int s = 0; s < nsides; s++)
        printf(" vs %s (%s: %s)", sides[s].label, sides[s].platform, sides[s].device);
    printf(", %d alternating rounds per kernel, every result checked; ratios: median of per-round ratios "
           "[range]\n", rounds);
    stream_bw = stream_triad();
    printf("stream triad (3 x 64 MiB, every CPU): %.1f GB/s\n", stream_bw / 1e9);
    static const char *names[] = {"saxpy", "reduce", "matmul", "smooth", "expsin"};
    static void (*const fns[])(bcase *) = {bench_saxpy, bench_reduce, bench_matmul, bench_smooth, bench_expsin};
    for (int i = 0; i < 5; i++) {
        if (only && strcmp(only, names[i]) != 0)
            continue;
        bcase c;
        memset(&c, 0, sizeof c);
        c.name = names[i];
        if (bin && i == 4) {  /* not among the hand-written ELF image's kernels */
            printf("%-8s not in %s: left out\n", names[i], path);
            continue;
        }
        CHECK(sx_kernel_get(names[i], &c.k));
        for (int s = 0; s < nsides; s++)
            c.ck[s] = cls_kernel(progs[s], names[i]);
        fns[i](&c);
        CHECK(sx_kernel_release(c.k));
        for (int s = 0; s < nsides; s++)
            p_clReleaseKernel(c.ck[s]);
    }
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    if (bin)
        CHECK(sx_unregister_images(bin));
    if (file)
        CHECK(sx_image_file_release(file));
    CHECK(sx_fini());
    if (bin)
        sxt_binaries_free(bin);
    for (int s = 0; s < nsides; s++) {
        p_clReleaseProgram(progs[s]);
        cls_close(&sides[s]);
    }
    free(cl_source);
    free(bytes);
    free(path);
    return 0;
}
