/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* wgc-e2e.c: the kernels of wgc.cl (and vecabi.cl) on the native device,
 * from the native variant proptool made from SPIR-V (compiled work-group
 * functions), each compared with a host reference.
 * Usage: wgc-e2e FILE.sximg [TEST]... (default: every test of wgc.cl) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

#define E2E_NAME "wgc-e2e"
#include "e2e.h"

static void t_saxpy(void)
{
    size_t n = 1u << 16, l = 64;
    float *x = alloc(n * 4), *y = alloc(n * 4), *want = malloc(n * 4), a = 1.5f;
    for (size_t i = 0; i < n; i++) {
        x[i] = (float)i;
        y[i] = (float)(i % 7);
        want[i] = a * x[i] + y[i];
    }
    sx_arg args[] = {val(0, &a, 4), ptr(1, x), ptr(2, y)};
    if (launch("saxpy", 1, NULL, &n, &l, 3, args))
        check_float("saxpy", y, want, n, 1e-6f);
    sx_usm_free(ctx, x);
    sx_usm_free(ctx, y);
    free(want);
}

static void t_reduce(void)
{
    size_t n = 1u << 14, l = 256, groups = n / l;
    float *in = alloc(n * 4), *out = alloc(groups * 4), *want = calloc(groups, 4);
    for (size_t i = 0; i < n; i++) {
        in[i] = (float)(i % 13);
        want[i / l] += in[i];
    }
    sx_arg args[] = {ptr(0, in), ptr(1, out)};
    if (launch("reduce", 1, NULL, &n, &l, 2, args))
        check_float("reduce (barrier in a loop, kernel-scope local)", out, want, groups, 1e-6f);
    sx_usm_free(ctx, in);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_loop_barrier(int steps)
{
    size_t n = 512, l = 32;
    int *in = alloc(n * 4), *out = alloc(n * 4), *want = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        in[i] = (int)(i * 7 % 11);
    for (size_t g = 0; g < n / l; g++) {
        int tmp[32], v[32], acc[32] = {0}, h[32][4] = {{0}};
        for (size_t i = 0; i < l; i++)
            tmp[i] = in[g * l + i];
        for (int s = 0; s < steps; s++) {
            for (size_t i = 0; i < l; i++) {
                v[i] = tmp[(i + 1) % l];
                acc[i] += v[i] * (s + 1);
                h[i][s & 3] += v[i];
            }
            for (size_t i = 0; i < l; i++)
                tmp[i] = v[i] + 1;
        }
        for (size_t i = 0; i < l; i++)
            want[g * l + i] = acc[i] + h[i][0] - h[i][1] + 2 * h[i][2] - 3 * h[i][3];
    }
    sx_arg args[] = {ptr(0, in), ptr(1, out), val(2, &steps, 4), {SX_ARG_LOCAL, 3, l * 4, NULL}};
    char name[96];
    snprintf(name, sizeof name, "loop_barrier (barrier in a loop of %d steps, private array across it)", steps);
    if (launch("loop_barrier", 1, NULL, &n, &l, 4, args))
        check_int(name, out, want, n);
    sx_usm_free(ctx, in);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_branch_nested(int mode, int inner)
{
    size_t n = 320, l = 64;
    int *out = alloc(n * 4), *want = malloc(n * 4);
    for (size_t g = 0; g < n / l; g++) {
        int lm[64], t[64];
        for (size_t i = 0; i < l; i++)
            lm[i] = (int)(g * l + i);
        if (mode > 0) {
            for (size_t i = 0; i < l; i++)
                t[i] = lm[l - 1 - i];
            for (size_t i = 0; i < l; i++)
                lm[i] = t[i] * 2;
        }
        for (int o = 0; o < (int)(g % 3) + 1; o++)
            for (int k = 0; k < inner; k++) {
                for (size_t i = 0; i < l; i++)
                    t[i] = lm[(i + (size_t)o + (size_t)k) % l];
                for (size_t i = 0; i < l; i++)
                    lm[i] = t[i] + o - k;
            }
        for (size_t i = 0; i < l; i++)
            want[g * l + i] = lm[i] + (int)(g * l + i);
    }
    sx_arg args[] = {ptr(0, out), val(1, &mode, 4), val(2, &inner, 4)};
    char name[96];
    snprintf(name, sizeof name, "branch_nested (mode %d, inner %d)", mode, inner);
    if (launch("branch_nested", 1, NULL, &n, &l, 3, args))
        check_int(name, out, want, n);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_matmul(void)
{
    int n = 64;
    size_t g[2] = {(size_t)n, (size_t)n}, l[2] = {16, 16}, nn = (size_t)n * (size_t)n;
    float *A = alloc(nn * 4), *B = alloc(nn * 4), *C = alloc(nn * 4), *want = malloc(nn * 4);
    for (size_t i = 0; i < nn; i++) {
        A[i] = (float)(i % 5) - 2.0f;
        B[i] = (float)(i % 7) * 0.5f;
    }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            float s = 0;
            for (int k = 0; k < n; k++)
                s += A[r * n + k] * B[k * n + c];
            want[r * n + c] = s;
        }
    sx_arg args[] = {ptr(0, A), ptr(1, B), ptr(2, C), val(3, &n, 4)};
    if (launch("matmul", 2, NULL, g, l, 4, args))
        check_float("matmul (2-D, 16x16 local tiles)", C, want, nn, 1e-5f);
    sx_usm_free(ctx, A);
    sx_usm_free(ctx, B);
    sx_usm_free(ctx, C);
    free(want);
}

/* groups whose width 16 does and does not divide, heights 1 to 8 */
static void t_syrk(void)
{
    static const size_t shapes[][2] = {{16, 8}, {20, 3}, {12, 1}, {32, 5}};
    int n = 40;
    size_t nn = (size_t)n * (size_t)n;
    float *a = alloc(nn * 4), *c = alloc(nn * 4), *want = malloc(nn * 4);
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        const size_t *l = shapes[s];
        size_t g[2] = {(n + l[0] - 1) / l[0] * l[0], (n + l[1] - 1) / l[1] * l[1]};
        for (size_t i = 0; i < nn; i++) {
            a[i] = (float)(i % 11) * 0.25f - 1.0f;
            c[i] = want[i] = (float)(i % 5);
        }
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                want[i * n + j] *= 0.5f;
                for (int k = 0; k < n; k++)
                    want[i * n + j] += 1.5f * a[i * n + k] * a[j * n + k];
            }
        char what[64];
        snprintf(what, sizeof what, "syrk (rows sharing a gather, group %zux%zu)", l[0], l[1]);
        sx_arg args[] = {ptr(0, a), ptr(1, c), val(2, &n, 4)};
        if (launch("syrk", 2, NULL, g, l, 3, args))
            check_float(what, c, want, nn, 1e-5f);
    }
    sx_usm_free(ctx, a);
    sx_usm_free(ctx, c);
    free(want);
}

static void t_local_copies(void)
{
    size_t n = 32 * 256, l = 32;
    int *out = alloc(n * 4), *want = calloc(n, 4);
    memset(out, 0xff, n * 4);
    sx_arg args[] = {ptr(0, out)};
    if (launch("local_copies", 1, NULL, &n, &l, 1, args))
        check_int("local_copies (each work-group its own __local copy)", out, want, n);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_ids3(void)
{
    size_t off[3] = {1, 2, 3}, g[3] = {8, 4, 2}, l[3] = {4, 2, 1}, n = 8 * 4 * 2;
    int *out = alloc(n * 16), *want = malloc(n * 16);
    for (size_t z = 0; z < g[2]; z++)
        for (size_t y = 0; y < g[1]; y++)
            for (size_t x = 0; x < g[0]; x++) {
                size_t lin = (z * g[1] + y) * g[0] + x, lx = x % l[0], ly = y % l[1], lz = z % l[2];
                int *w = &want[lin * 4];
                w[0] = (int)((x + off[0]) + 10 * (y + off[1]) + 100 * (z + off[2]));
                w[1] = (int)(lx + 10 * ly + 100 * lz);
                w[2] = (int)(x / l[0] + 10 * (y / l[1]) + 100 * (z / l[2]));
                w[3] = (int)(3 + 10 * (g[2] / l[2]) + 100 * ((lz * l[1] + ly) * l[0] + lx));
            }
    sx_arg args[] = {ptr(0, out)};
    if (launch("ids3", 3, off, g, l, 1, args))
        check_int("ids3 (work-item functions, 3-D with offset)", out, want, n * 4);
    sx_usm_free(ctx, out);
    free(want);
}

static int depth(int k, int lid) { return k <= 0 ? lid : depth(k - 1, lid) + depth(k - 2, lid) + 1; }

static void t_fallback(void)
{
    size_t n = 256, l = 64;
    int k = 5;
    int *out = alloc(n * 4), *want = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        want[i] = depth(k, (int)(l - 1 - i % l));
    sx_arg args[] = {ptr(0, out), val(1, &k, 4)};
    if (launch("fallback", 1, NULL, &n, &l, 2, args))
        check_int("fallback (fibers: recursion reaches get_local_id)", out, want, n);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_if_device(void)
{
    size_t n = 1;
    int *p = alloc(8), want[2] = {7, 0};
    p[0] = p[1] = 0;
    sx_arg args[] = {ptr(0, p)};
    if (launch("if_device", 1, NULL, &n, NULL, 1, args))
        check_int("if_device (the sycl-call-if-on-host body does not run)", p, want, 2);
    sx_usm_free(ctx, p);
}

static void t_vec_abi(void)
{
    size_t n = 4;
    float *in = alloc(64 * 4), *out = alloc(80 * 4), want[80];
    signed char *c = alloc(128);
    for (int i = 0; i < 64; i++)
        in[i] = (float)((i * 37) % 11) - 3.0f;
    for (int i = 0; i < 64; i++)
        c[i] = (signed char)(i * 29 - 70);
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < 8; k++) {
            float a = in[8 * i + k], b = in[8 * (i + 1) + k];
            want[8 * i + k] = fmaxf(a, b) + fminf(fmaxf(a, 1.0f), 4.0f);
        }
        want[64 + i] = (float)(abs(c[2 * i]) + 5);
    }
    sx_arg args[] = {ptr(0, in), ptr(1, out), ptr(2, c)};
    if (launch("vec_abi", 1, NULL, &n, NULL, 3, args)) {
        int bad = 0;
        for (size_t i = 0; i < n; i++) {
            bad |= (unsigned char)c[64 + 2 * i] != (unsigned char)abs(c[2 * i] - 3);
            bad |= (unsigned char)c[64 + 2 * i + 1] != (unsigned char)abs(c[2 * i + 1] + 3);
        }
        if (bad) {
            fprintf(stderr, "wgc-e2e: FAIL vec_abi: abs_diff on char2\n");
            failures++;
        }
        float got[80];
        memcpy(got, out, 32 * 4);
        memcpy(got + 64, out + 64, n * 4);
        memcpy(got + 32, want + 32, 32 * 4);
        check_float("vec_abi (builtins with 2-, 8- and 32-byte vectors)", got, want, 64 + n, 0);
    }
    sx_usm_free(ctx, in);
    sx_usm_free(ctx, out);
    sx_usm_free(ctx, c);
}

static void t_atomics(void)
{
    size_t n = 1024, l = 64;
    int *count = alloc(4), want = (int)n;
    *count = 0;
    sx_arg args[] = {ptr(0, count)};
    if (launch("atomics", 1, NULL, &n, &l, 1, args))
        check_int("atomics (global and local atomic_add)", count, &want, 1);
    sx_usm_free(ctx, count);
}

static void t_fract_ptr(void)
{
    size_t n = 1024;
    float *fr = alloc(n * 4), *want = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        want[i] = (float)i * 0.25f;
    sx_arg args[] = {ptr(0, fr)};
    if (launch("fract_ptr", 1, NULL, &n, NULL, 1, args))
        check_float("fract with a pointer argument", fr, want, n, 0);
    sx_usm_free(ctx, fr);
    free(want);
}

/* tests/kernels/native-link-{a,b}.cl: helper() and `scale` come from the
 * other image, base() and `shared_val` from this one. */
static void t_linked(void)
{
    size_t n = 64;
    int *out = alloc(n * 4), *want = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        want[i] = ((int)i + 3) * 10 * 2;
    sx_arg args[] = {ptr(0, out)};
    if (launch("linked", 1, NULL, &n, NULL, 1, args))
        check_int("linked (imports through __sx_wg_imports, both ways)", out, want, n);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_by_value(void)
{
    struct { int a; float b; long c; } p = {5, 0.5f, 1000};
    float v[4] = {1, 2, 3, 4};
    size_t n = 256, l = 32;
    float *out = alloc(n * 4), *want = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        want[i] = (float)(5 + (int)i) + 0.5f * 2.0f + 1000.0f + 4.0f;
    sx_arg args[] = {val(0, &p, sizeof p), val(1, v, sizeof v), ptr(2, out)};
    if (launch("by_value", 1, NULL, &n, &l, 3, args))
        check_float("by_value (a struct and a float4 by value)", out, want, n, 0);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_divergent(void)
{
    size_t n = 128, l = 32;
    int arg = 2, *out = alloc(n * 4), *want = malloc(n * 4);
    for (size_t i = 0; i < n; i++)
        want[i] = (int)(i % l) * arg * 100 + (i % l % 3 == 0 ? 7 : arg);
    sx_arg args[] = {ptr(0, out), val(1, &arg, 4)};
    if (launch("divergent", 1, NULL, &n, &l, 2, args))
        check_int("divergent (values from a local-id loop and branch across a barrier)", out, want, n);
    sx_usm_free(ctx, out);
    free(want);
}

static void t_loop_barriers(void)
{
    t_loop_barrier(0);
    t_loop_barrier(1);
    t_loop_barrier(6);
}

static void t_branches(void)
{
    t_branch_nested(0, 0);
    t_branch_nested(1, 3);
    t_branch_nested(1, 2);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: wgc-e2e FILE.sximg [TEST]...\n");
        return 2;
    }
    if (!e2e_setup(argv[1]))
        return 1;
    static const struct { const char *name; void (*fn)(void); } tests[] = {
        {"saxpy", t_saxpy}, {"reduce", t_reduce}, {"loop_barrier", t_loop_barriers}, {"branch_nested", t_branches},
        {"matmul", t_matmul}, {"syrk", t_syrk}, {"local_copies", t_local_copies}, {"ids3", t_ids3}, {"fallback", t_fallback},
        {"if_device", t_if_device}, {"atomics", t_atomics}, {"by_value", t_by_value}, {"divergent", t_divergent}, {"vec_abi", t_vec_abi},
        {"fract_ptr", t_fract_ptr}, {"linked", t_linked},
    };
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        int run = argc == 2 && strcmp(tests[i].name, "vec_abi") && strcmp(tests[i].name, "fract_ptr") &&
                  strcmp(tests[i].name, "linked");
        for (int a = 2; a < argc; a++)
            run |= !strcmp(argv[a], tests[i].name);
        if (run)
            tests[i].fn();
    }
    return e2e_finish();
}
