/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-wg.c: compiled work-group functions written by hand in C, the way
 * proptool's SPIR-V compiler emits them (adapters/native/wg.h): one call
 * runs a whole work-group, the work-item loops are plain C loops, regions
 * between barriers are separate loops, values kept across a barrier live
 * in ctx->private_mem. The same kernels in OpenCL C are in
 * tests/kernels/native-wg.cl (PoCL runs those in bench/native-vs-pocl). */
#include <stddef.h>
#include <stdint.h>

#include "../../adapters/native/wg.h"

#define PTR(T, i) (*(T *const *)ctx->args[i])
#define VAL(T, i) (*(const T *)ctx->args[i])
#define LSIZE(d) (ctx->geo->local_size[d])
#define GBASE(d) (ctx->group_id[d] * ctx->geo->local_size[d] + ctx->geo->global_offset[d])

/* builtins of the fiber fallback */
size_t _Z12get_local_idj(unsigned dim);
size_t _Z13get_global_idj(unsigned dim);
size_t _Z14get_local_sizej(unsigned dim);
void _Z7barrierj(unsigned flags);

const uint32_t __sx_wg_abi = SXN_WG_ABI;

/* a program-scope variable (found by name, one copy per program) */
int wg_counter = 7;

static void empty(const sxn_wg_ctx *ctx)
{
    (void)ctx;
}

/* y = a * x + y */
static void saxpy(const sxn_wg_ctx *ctx)
{
    float a = VAL(float, 0);
    const float *restrict x = PTR(const float, 1);
    float *restrict y = PTR(float, 2);
    size_t base = GBASE(0), n = LSIZE(0);
    for (size_t i = base; i < base + n; i++)
        y[i] = a * x[i] + y[i];
}

/* Tree reduction of each group's slice in local memory: every barrier
 * splits the work-item loop. */
static void reduce(const sxn_wg_ctx *ctx)
{
    const float *restrict in = PTR(const float, 0);
    float *restrict out = PTR(float, 1);
    float *restrict tmp = PTR(float, 2);
    size_t n = LSIZE(0), base = GBASE(0);
    for (size_t l = 0; l < n; l++)
        tmp[l] = in[base + l];
    for (size_t s = n / 2; s > 0; s >>= 1)
        for (size_t l = 0; l < s; l++)
            tmp[l] += tmp[l + s];
    out[ctx->group_id[0]] = tmp[0];
}

/* C = A * B, N x N, 16 x 16 groups, tiles in kernel-scope local memory,
 * each work-item's sum kept across the barriers in private memory. */
#define TILE 16
static void matmul(const sxn_wg_ctx *ctx)
{
    const float *restrict A = PTR(const float, 0);
    const float *restrict B = PTR(const float, 1);
    float *restrict C = PTR(float, 2);
    int N = VAL(int, 3);
    float (*restrict ta)[TILE] = (float (*)[TILE])ctx->local_mem;
    float (*restrict tb)[TILE] = (float (*)[TILE])(ctx->local_mem + TILE * TILE * sizeof(float));
    float (*restrict acc)[TILE] = (float (*)[TILE])ctx->private_mem;
    size_t gx = GBASE(0), gy = GBASE(1);
    for (int y = 0; y < TILE; y++)
        for (int x = 0; x < TILE; x++)
            acc[y][x] = 0;
    for (int t = 0; t < N / TILE; t++) {
        for (int y = 0; y < TILE; y++)
            for (int x = 0; x < TILE; x++) {
                ta[y][x] = A[(gy + y) * N + t * TILE + x];
                tb[y][x] = B[(size_t)(t * TILE + y) * N + gx + x];
            }
        for (int y = 0; y < TILE; y++)
            for (int k = 0; k < TILE; k++)
                for (int x = 0; x < TILE; x++)
                    acc[y][x] += ta[y][k] * tb[k][x];
    }
    for (int y = 0; y < TILE; y++)
        for (int x = 0; x < TILE; x++)
            C[(gy + y) * N + gx + x] = acc[y][x];
}

/* A barrier inside a loop whose trip count is an argument: each round
 * every work-item averages itself with its right neighbour in the group. */
static void smooth(const sxn_wg_ctx *ctx)
{
    float *restrict data = PTR(float, 0);
    int iters = VAL(int, 1);
    float *restrict tmp = PTR(float, 2);
    size_t n = LSIZE(0), base = GBASE(0);
    for (int it = 0; it < iters; it++) {
        for (size_t l = 0; l < n; l++)
            tmp[l] = data[base + l];
        for (size_t l = 0; l < n; l++)
            data[base + l] = 0.5f * (tmp[l] + tmp[l + 1 == n ? 0 : l + 1]);
    }
}

/* Every work-item's ids in three dimensions, packed x | y << 10 | z << 20,
 * at its linear global index (offsets included). */
static void ids(const sxn_wg_ctx *ctx)
{
    int *out = PTR(int, 0);
    const sxn_geometry *g = ctx->geo;
    for (size_t z = 0; z < LSIZE(2); z++)
        for (size_t y = 0; y < LSIZE(1); y++)
            for (size_t x = 0; x < LSIZE(0); x++) {
                size_t gx = GBASE(0) + x - g->global_offset[0];
                size_t gy = GBASE(1) + y - g->global_offset[1];
                size_t gz = GBASE(2) + z - g->global_offset[2];
                out[(gz * g->global_size[1] + gy) * g->global_size[0] + gx] =
                    (int)((GBASE(0) + x) | (GBASE(1) + y) << 10 | (GBASE(2) + z) << 20);
            }
}

/* Fallback: one work-item per call, run as fibers; ids and the barrier go
 * through the builtins. Reverses each group's slice. */
static void fiber_reverse(const sxn_wg_ctx *ctx)
{
    int *data = PTR(int, 0);
    int *tmp = PTR(int, 1);
    size_t l = _Z12get_local_idj(0), n = _Z14get_local_sizej(0), g = _Z13get_global_idj(0);
    if (l != ctx->local_id[0])
        data[g] = -1000000;  /* the context and the builtins disagree */
    tmp[l] = data[g];
    _Z7barrierj(1);
    data[g] = tmp[n - 1 - l];
}

/* Reads and bumps the program-scope variable (single work-item). */
static void bump(const sxn_wg_ctx *ctx)
{
    int *out = PTR(int, 0);
    out[0] = wg_counter++;
}

/* Kernel-scope local memory and private memory that must hold across the
 * group: out[g] = sum of in over the group, computed twice through local. */
static void scratch(const sxn_wg_ctx *ctx)
{
    const int *in = PTR(const int, 0);
    int *out = PTR(int, 1);
    int *loc = (int *)ctx->local_mem;
    int *priv = (int *)ctx->private_mem;
    size_t n = LSIZE(0), base = GBASE(0);
    for (size_t l = 0; l < n; l++) {
        priv[l] = in[base + l] * 2;
        loc[l] = in[base + l];
    }
    for (size_t l = 0; l < n; l++) {
        int s = 0;
        for (size_t k = 0; k < n; k++)
            s += loc[k];
        out[base + l] = s + priv[l] / 2 - in[base + l];
    }
}

/* Which table runs: 0 from the baseline table, 3 from the x86-64-v3 one. */
static void which_table(const sxn_wg_ctx *ctx)
{
    PTR(int, 0)[0] = 0;
}

__attribute__((target("avx2,fma,bmi2"))) static void which_table_v3(const sxn_wg_ctx *ctx)
{
    PTR(int, 0)[0] = 3;
}

#define WG_TABLE(which)                                                                         \
    {"empty", empty, 0, 0, 0, 0},                                                               \
    {"saxpy", saxpy, 0, 0, 0, 0},                                                               \
    {"reduce", reduce, 0, 0, SXN_WG_BARRIER, 0},                                                \
    {"matmul", matmul, 2 * TILE * TILE * sizeof(float), sizeof(float), SXN_WG_BARRIER, 0},     \
    {"smooth", smooth, 0, 0, SXN_WG_BARRIER, 0},                                                \
    {"ids", ids, 0, 0, 0, 0},                                                                   \
    {"fiber_reverse", fiber_reverse, 0, 0, SXN_WG_FIBER | SXN_WG_BARRIER, 0},                   \
    {"bump", bump, 0, 0, 0, 0},                                                                 \
    {"scratch", scratch, 1024 * sizeof(int), sizeof(int), 0, 0},                                \
    {"which_table", which, 0, 0, 0, 0},                                                         \
    {NULL, NULL, 0, 0, 0, 0}

/* the same kernels twice: the x86-64-v3 table differs in which_table only */
const sxn_wg_entry __sx_wg_table[] = {WG_TABLE(which_table)};
const sxn_wg_entry __sx_wg_table_x86_64_v3[] = {WG_TABLE(which_table_v3)};

