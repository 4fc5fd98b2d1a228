/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* simd-e2e.c: the kernels of simd.cl (work-items in SIMD lanes) on the
 * native device, from the native variant proptool made from SPIR-V, each
 * against a host reference; local sizes that do not divide the loops'
 * vector widths, several groups. Exact where the kernel is exact; math
 * builtins within the OpenCL C ulp bounds (checked loosely here: 4 ulp-ish
 * relative error on sums of them).
 * Usage: simd-e2e FILE.sximg */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

#define E2E_NAME "simd-e2e"
#include "e2e.h"

static void t_mm(int guarded, size_t lx, size_t ly)
{
    int n = 48, m = 45;
    size_t g[2] = {(size_t)n, (size_t)n}, l[2] = {lx, ly};
    float *A = alloc((size_t)n * n * 4), *B = alloc((size_t)n * n * 4), *C = alloc((size_t)n * n * 4);
    float *want = calloc((size_t)n * n, 4);
    for (int i = 0; i < n * n; i++) {
        A[i] = (float)(i % 7) - 3.0f;
        B[i] = (float)(i % 5) * 0.5f;
    }
    int w = guarded ? m : n;
    for (int i = 0; i < w; i++)
        for (int j = 0; j < w; j++) {
            float acc = 0;
            for (int k = 0; k < n; k++)
                acc += A[i * n + k] * B[k * n + j];
            want[i * w + j] = acc;
        }
    char name[96];
    snprintf(name, sizeof name, "%s (local %zu x %zu)", guarded ? "mm_guarded" : "mm_uniform", lx, ly);
    sx_arg a[] = {ptr(0, A), ptr(1, B), ptr(2, C), val(3, &n, 4), val(4, &m, 4)};
    if (launch(guarded ? "mm_guarded" : "mm_uniform", 2, NULL, g, l, guarded ? 5 : 4, a))
        check_float(name, C, want, (size_t)n * n, 1e-6f);
    sx_usm_free(ctx, A);
    sx_usm_free(ctx, B);
    sx_usm_free(ctx, C);
    free(want);
}

static void t_nested(int n, int stop)
{
    size_t g = 120, l = 24;
    int *a = alloc(64 * 4), *c = alloc(g * 4), *want = malloc(g * 4);
    for (int i = 0; i < 64; i++)
        a[i] = i * 3 - 50;
    for (int i = 0; i < (int)g; i++) {
        int ci = 0;
        for (int p = 0; p < n; p++) {
            for (int qq = 0; qq < n; qq++) {
                if (qq == stop)
                    break;
                ci += a[(i + p * qq) % 64] * (p + 1);
            }
            if (n > 2)
                for (int r = 0; r < 3; r++)
                    ci ^= r << p;
        }
        want[i] = ci;
    }
    char name[64];
    snprintf(name, sizeof name, "nested (n %d, break at %d)", n, stop);
    sx_arg args[] = {ptr(0, a), ptr(1, c), val(2, &n, 4), val(3, &stop, 4)};
    if (launch("nested", 1, NULL, &g, &l, 4, args))
        check_int(name, c, want, g);
    sx_usm_free(ctx, a);
    sx_usm_free(ctx, c);
    free(want);
}

static void t_tri(void)
{
    size_t g = 100, l = 20;
    int n = 13, *out = alloc(g * 4), *want = malloc(g * 4);
    for (int i = 0; i < (int)g; i++) {
        int s = 0;
        for (int k = 0; k <= i % n; k++)
            s = s * 3 + k;
        want[i] = s;
    }
    sx_arg a[] = {ptr(0, out), val(1, &n, 4)};
    if (launch("tri", 1, NULL, &g, &l, 2, a))
        check_int("tri (trip count per work-item)", out, want, g);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_priv(void)
{
    size_t g = 99, l = 33;
    int n = 21, *out = alloc(g * 4), *want = malloc(g * 4);
    for (int i = 0; i < (int)g; i++) {
        int h[8];
        for (int qq = 0; qq < 8; qq++)
            h[qq] = i + qq;
        for (int t = 0; t < n; t++)
            h[t & 7] += h[(t + i) & 7];
        want[i] = h[0] + h[3] + h[7];
    }
    sx_arg a[] = {ptr(0, out), val(1, &n, 4)};
    if (launch("priv", 1, NULL, &g, &l, 2, a))
        check_int("priv (private array across a uniform loop)", out, want, g);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_early(void)
{
    size_t g = 96, l = 32;
    int n = 10, *a = alloc(64 * 4), *out = alloc(g * 4), *want = malloc(g * 4);
    for (int i = 0; i < 64; i++)
        a[i] = i % 17 == 5 ? -1 : i;
    for (int i = 0; i < (int)g; i++) {
        int s = 0, k;
        for (k = 0; k < n; k++) {
            if (a[(i + k) % 64] < 0)
                break;
            s += a[(i + k) % 64];
        }
        want[i] = k < n ? -s : s;
    }
    sx_arg args[] = {ptr(0, a), ptr(1, out), val(2, &n, 4)};
    if (launch("early", 1, NULL, &g, &l, 3, args))
        check_int("early (divergent return in a loop)", out, want, g);
    sx_usm_free(ctx, a);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_guard(int k)
{
    size_t g = 1000, l = 40;
    int n = 997;
    float *x = alloc(g * 4), *y = alloc(g * 4), *want = malloc(g * 4);
    int p = 1 << k;
    for (size_t i = 0; i < g; i++) {
        x[i] = (float)i * 0.25f;
        y[i] = -1.0f;
        want[i] = ((int)i % p != 1 && (int)i < n) ? x[i] * (float)p + (float)((int)i % p) : -1.0f;
    }
    char name[64];
    snprintf(name, sizeof name, "guard (store under a boundary test, p = 2^%d)", k);
    sx_arg a[] = {ptr(0, x), ptr(1, y), val(2, &n, 4), val(3, &k, 4)};
    if (launch("guard", 1, NULL, &g, &l, 4, a))
        check_float(name, y, want, g, 0);
    sx_usm_free(ctx, x);
    sx_usm_free(ctx, y);
    free(want);
}

static void t_vmath(void)
{
    size_t g = 200, l = 25;
    float *x = alloc(g * 4), *y = alloc(g * 4), *want = malloc(g * 4);
    double *d = alloc(g * 32), *e = alloc(g * 32), *dwant = malloc(g * 32);
    for (size_t i = 0; i < g; i++) {
        float v = (float)i * 0.037f - 1.0f;
        x[i] = v;
        want[i] = (float)(exp(v) + log(v + 2.0) + sin(v) + cos(v) + pow(v + 1.0, 1.5) + sqrt(v + 1.0));
        for (int c = 0; c < 4; c++) {
            double dv = (double)(i * 4 + c) * 0.0071 - 1.5;
            d[i * 4 + c] = dv;
            dwant[i * 4 + c] = exp(dv) + log(dv + 2.0) + sin(dv);
        }
    }
    sx_arg a[] = {ptr(0, x), ptr(1, y), ptr(2, d), ptr(3, e)};
    if (launch("vmath", 1, NULL, &g, &l, 4, a)) {
        check_float("vmath (float math builtins in the work-item loop)", y, want, g, 4e-6f);
        for (size_t i = 0; i < g * 4; i++)
            if (!(fabs(e[i] - dwant[i]) <= 1e-14 * (1.0 + fabs(dwant[i])))) {
                fprintf(stderr, "simd-e2e: FAIL vmath double4: [%zu] = %.17g, expected %.17g\n", i, e[i], dwant[i]);
                failures++;
                break;
            }
        printf("ok vmath (double4 exp, log, sin)\n");
    }
    sx_usm_free(ctx, x);
    sx_usm_free(ctx, y);
    sx_usm_free(ctx, d);
    sx_usm_free(ctx, e);
    free(want);
    free(dwant);
}

static void t_atom(void)
{
    size_t g = 90, l = 18;
    int n = 7, *count = alloc(5 * 4), *out = alloc(g * 4), want[5] = {0}, ones[90];
    for (int i = 0; i < (int)g; i++) {
        for (int k = 0; k < n; k++)
            if ((i + k) % 3 == 0)
                want[k & 3]++;
        ones[i] = 1;
    }
    want[4] = (int)g;
    sx_arg a[] = {ptr(0, count), ptr(1, out), val(2, &n, 4)};
    if (launch("atom", 1, NULL, &g, &l, 3, a)) {
        check_int("atom (atomic_inc in a uniform loop)", count, want, 5);
        check_int("atom (atomic_add's old values)", out, ones, g);
    }
    sx_usm_free(ctx, count);
    sx_usm_free(ctx, out);
}

static void t_atoms(void)
{
    size_t g = 100, l = 20;
    int *s = alloc(16 * 4), *olds = alloc(g * 4);
    unsigned *u = alloc(4 * 4);
    long long *lg = alloc(4 * 8);
    int want[9] = {1000, 5, 100, -100, -1, 0, 0, 0, 3};
    for (int k = 0; k < 9; k++)
        s[k] = want[k];
    u[0] = 1000;
    u[1] = 3;
    lg[0] = 5;
    lg[1] = 0;
    lg[2] = -1000;
    long long sumg = 0;
    for (int i = 0; i < (int)g; i++) {
        want[0] -= i;
        want[1]--;
        want[2] = want[2] < 50 - i ? want[2] : 50 - i;
        want[3] = want[3] > i - 50 ? want[3] : i - 50;
        want[4] &= ~(1 << (i & 31)) | (i & 1);
        want[5] |= 1 << (i & 15);
        want[6] ^= i;
        want[8] += 2;
        sumg += i;
    }
    sx_arg a[] = {ptr(0, s), ptr(1, u), ptr(2, lg), ptr(3, olds)};
    if (launch("atoms", 1, NULL, &g, &l, 4, a)) {
        int got[9];
        memcpy(got, s, sizeof got);
        long long sumo = s[7];  /* the xchg chain: the olds and the last value are 0 and every id */
        for (size_t i = 0; i < g; i++)
            sumo += olds[i];
        got[7] = sumo == sumg ? 0 : -1;
        check_int("atoms (sub, dec, min, max, and, or, xor, xchg, cmpxchg on int)", got, want, 9);
        unsigned uw[2] = {7, 0xfffffff7u};
        check_int("atoms (min, max on uint)", (const int *)u, (const int *)uw, 2);
        long long lw[3] = {5 + (sumg << 33), (long long)g, 0};
        if (lg[0] != lw[0] || lg[1] != lw[1] || lg[2] != lw[2]) {
            fprintf(stderr, "simd-e2e: FAIL atoms (long): %lld %lld %lld, expected %lld %lld %lld\n", lg[0], lg[1],
                    lg[2], lw[0], lw[1], lw[2]);
            failures++;
        } else {
            printf("ok atoms (atom_add, atom_inc, atom_max on long)\n");
        }
    }
    sx_usm_free(ctx, s);
    sx_usm_free(ctx, u);
    sx_usm_free(ctx, lg);
    sx_usm_free(ctx, olds);
}

static void t_tiles(void)
{
    size_t g = 84, l = 21;
    int reps = 3;
    float *in = alloc(g * 4), *out = alloc(g * 4), *want = malloc(g * 4);
    for (size_t i = 0; i < g; i++)
        in[i] = (float)(i % 9);
    for (size_t i = 0; i < g; i++) {
        size_t base = i / l * l, li = i % l;
        float acc = 0;
        for (int r = 0; r < reps; r++)
            for (size_t k = 0; k < l; k++)
                acc += in[base + (li + k) % l] * (float)(r + 1);
        want[i] = acc;
    }
    sx_arg a[] = {ptr(0, in), ptr(1, out), {SX_ARG_LOCAL, 2, l * 4, NULL}, val(3, &reps, 4)};
    if (launch("tiles", 1, NULL, &g, &l, 4, a))
        check_float("tiles (uniform loops after a barrier, local memory)", out, want, g, 0);
    sx_usm_free(ctx, in);
    sx_usm_free(ctx, out);
    free(want);
}

/* covtri: what it writes (sym[j1][j2] and sym[j2][j1] for j2 >= j1 + off),
   the rest left at -1; small integers, exact in float whatever the order */
static void t_covtri(size_t g, size_t l, int m, int n, int off)
{
    float *d = alloc((size_t)m * n * 4), *sym = alloc((size_t)m * m * 4), *want = malloc((size_t)m * m * 4);
    for (int i = 0; i < m * n; i++)
        d[i] = (float)((i * 7 + 3) % 5) - 2.0f;
    for (int i = 0; i < m * m; i++)
        sym[i] = want[i] = -1.0f;
    for (int j1 = 0; j1 < m && j1 < (int)g; j1++)
        for (int j2 = j1 + off; j2 < m; j2++) {
            float s = 0.0f;
            for (int i = 0; i < n; i++)
                s += d[i * m + j1] * d[i * m + j2];
            want[j1 * m + j2] = want[j2 * m + j1] = s;
        }
    sx_arg a[] = {ptr(0, sym), ptr(1, d), val(2, &m, 4), val(3, &n, 4), val(4, &off, 4)};
    char what[96];
    snprintf(what, sizeof what, "covtri (g %zu, l %zu, m %d, n %d, start j1 + %d)", g, l, m, n, off);
    if (launch("covtri", 1, NULL, &g, &l, 5, a))
        check_float(what, sym, want, (size_t)m * m, 0.0f);
    sx_usm_free(ctx, d);
    sx_usm_free(ctx, sym);
    free(want);
}

/* covtri2: out[g][j] for j from the local id to m inclusive, -1 elsewhere */
static void t_covtri2(size_t g, size_t l, int m, int n)
{
    int w = m + 1, *d = alloc((size_t)n * w * 4), *out = alloc(g * w * 4), *want = malloc(g * w * 4);
    for (int i = 0; i < n * w; i++)
        d[i] = (i * 13 + 5) % 23 - 7;
    for (size_t i = 0; i < g * w; i++)
        out[i] = want[i] = -1;
    for (int gi = 0; gi < (int)g; gi++) {
        int li = gi % (int)l;
        for (int j = li; j <= m; j++) {
            int s = 0;
            for (int i = 0; i < n; i++)
                s += d[i * w + j] / (i + 1);
            want[gi * w + j] = s + li;
        }
    }
    sx_arg a[] = {ptr(0, out), ptr(1, d), val(2, &m, 4), val(3, &n, 4)};
    char what[96];
    snprintf(what, sizeof what, "covtri2 (g %zu, l %zu, m %d, n %d)", g, l, m, n);
    if (launch("covtri2", 1, NULL, &g, &l, 4, a))
        check_int(what, out, want, g * w);
    sx_usm_free(ctx, d);
    sx_usm_free(ctx, out);
    free(want);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: simd-e2e FILE.sximg\n");
        return 2;
    }
    if (!e2e_setup(argv[1]))
        return 1;
    t_mm(0, 16, 4);
    t_mm(0, 48, 1);
    t_mm(1, 16, 4);
    t_mm(1, 12, 3);
    t_nested(5, 3);
    t_nested(5, 9);
    t_nested(2, 0);
    t_tri();
    t_priv();
    t_early();
    t_guard(0);
    t_guard(2);
    t_guard(4);
    t_vmath();
    t_atom();
    t_atoms();
    t_tiles();
    t_covtri(96, 32, 90, 7, 0);
    t_covtri(96, 32, 96, 5, 0);
    t_covtri(96, 16, 77, 3, 1);
    t_covtri(64, 64, 100, 4, 0);
    t_covtri2(48, 24, 30, 6);
    t_covtri2(40, 20, 9, 3);
    return e2e_finish();
}
