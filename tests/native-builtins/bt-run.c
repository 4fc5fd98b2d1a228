/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bt-run.c: every OpenCL C builtin overload on the native device, compared
 * with PoCL. The kernels and the table of their inputs and outputs are
 * generated from the library's table of signatures
 * (tools/ocl-builtins-testgen.py -> bt-kernels.cl, bt-table.h). Each kernel
 * runs on BT_WI work-items (one per group) with inputs drawn per domain;
 * the native device runs the CL2.0 and the CL1.2 host builds of the
 * source, PoCL the source itself (OpenCL C 3.0: its 1.2 overloads plus
 * ctz). Results must match PoCL exactly, or within the specification's
 * ulp bound for the math functions (OpenCL C 1.2, 7.4).
 *
 * PoCL is a reference, not the oracle: where the OpenCL C specification
 * itself defines a result (frexp, ilogb, logb: exact, with the edge cases
 * of C99 Annex F and OpenCL C 3.0, 7.5.1), both devices are compared with
 * the specification's value computed here; the native device must give it
 * and a PoCL that differs is reported as wrong, not counted (PoCL 3.1 on
 * AVX-512 CPUs, pthread-skylake-avx512, gets double frexp wrong). Where the
 * specification leaves the value open (FP_ILOGB0 and FP_ILOGBNAN, float
 * subnormals a device may flush to zero) either allowed value passes.
 *
 * usage: bt-run [KERNEL-PREFIX]   (exit 77 when PoCL or the images are absent) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

#include "../util/sxt.h"
#include "two-devices.h"

typedef struct { int off, type, n, dom; } bt_in;
/* flag: 1 only a CL2.0 build calls it, 2 PoCL cannot (cl_khr_fp16 types):
 * then `copy` describes the async copy whose result the specification gives */
typedef struct { int in_off, esz, stride, gather, num; } bt_copy;
/* arg, arg_type: the input the call's first value argument comes from
 * (element e of the output from element e of it), -1 without one */
typedef struct { int off, type, n, tol, flag; const char *what; bt_copy copy; int arg, arg_type; } bt_out;
typedef struct { const char *name; int in_stride, out_stride, lm; const bt_in *ins; const bt_out *outs; } bt_kernel;
#include "bt-table.h"

#define BT_WI 4
#define NK (sizeof(bt_kernels) / sizeof(bt_kernels[0]))
static const int tsize[] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8, 2};

static int fail(const char *what)
{
    fprintf(stderr, "FAIL: %s\n", what);
    return 1;
}

/* ------------------------------------------------------------------ inputs */

static uint64_t rng;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static double uni(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) / 9007199254740992.0; }

static double fvalue(int dom, int type)
{
    static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 1e-40, -1e-310, 1e30,
                                     INFINITY, -INFINITY, NAN, 7.25, -0.75, 100.5};
    switch (dom) {
    case 1: return (rnd() & 1) ? special[rnd() % 16] : uni(-50, 50);
    case 2: return uni(-1, 1);
    case 3: return uni(0.01, 100);
    case 4: return uni(1, 100);
    case 6: return uni(-20, 20);
    case 7: return uni(0.1, 10);
    case 8: return (rnd() & 1 ? 1 : -1) * uni(0.5, 8);
    case 11: return uni(0, 1);
    case 12: return uni(-5, -1);
    case 13: return uni(1, 5);
    case 14: return uni(-5, 0);
    case 15: return uni(1, 5);
    case 17: /* saturating conversions: anything, out-of-range and NaN included */
        return (rnd() & 3) == 0 ? special[rnd() % 16] : uni(-1, 1) * ldexp(1.0, (int)(rnd() % 70));
    case 20: /* vstore_half: the half range, beyond it, and half subnormals */
        switch (rnd() % 4) {
        case 0: return uni(-70000, 70000);
        case 1: return uni(-1, 1) * 1e-6;
        case 2: return special[rnd() % 16];
        default: return uni(-10, 10);
        }
    case 21: return uni(-1, 1) * ldexp(1.0, (int)(rnd() % 100) - 50);
    case 23: return uni(-10, 10);
    default: break;
    }
    if (dom >= 100) { /* float -> integer without _sat: inside the destination's range */
        static const double lo[] = {-128, 0, -32768, 0, -2147483648.0, 0, -9.2e18, 0};
        static const double hi[] = {127, 255, 32767, 65535, 2147483647.0, 4294967295.0, 9.2e18, 1.8e19};
        int t = dom - 100;
        double v = uni(lo[t], hi[t]);
        if (type == 8 && fabs(v) > 1.6e7)
            return v;
        if (rnd() & 1)
            v = floor(v) + 0.5; /* ties, for the rounding modes */
        return fmax(lo[t], fmin(hi[t] - 1, v));
    }
    return uni(-10, 10);
}

static void put(unsigned char *p, int type, int dom)
{
    uint64_t bits = rnd();
    if (type <= 7) {
        int64_t v = (int64_t)bits;
        switch (dom) {
        case 9: v = (int64_t)(rnd() % 17) - 8; break;                      /* pown */
        case 10: v = (int64_t)(rnd() % 8) + 1; if (rnd() & 1) v = -v; break; /* rootn */
        case 12: v = (type & 1) ? (int64_t)(rnd() % 20) : -(int64_t)(rnd() % 50) - 1; break;
        case 13: v = (type & 1) ? 30 + (int64_t)(rnd() % 70) : (int64_t)(rnd() % 100) + 1; break;
        case 16: v = (type & 1) ? (int64_t)(rnd() & 0xffffff) : (int64_t)(rnd() & 0xffffff) - 0x800000; break;
        case 19: v = (int64_t)(rnd() % 2000) - 1000; if (type & 1) v = v < 0 ? -v : v; break;
        case 22: v = (int64_t)(rnd() % 41) - 20; break;                     /* ldexp */
        default: break;
        }
        memcpy(p, &v, tsize[type]);
    } else if (type == 8) {
        float f = dom == 18 ? 0 : (float)fvalue(dom, type);
        if (dom == 18)
            memcpy(&f, &bits, 4);
        memcpy(p, &f, 4);
    } else if (type == 9) {
        double d = fvalue(dom, type);
        if (dom == 18)
            memcpy(&d, &bits, 8);
        memcpy(p, &d, 8);
    } else {
        uint16_t h = (uint16_t)bits;
        memcpy(p, &h, 2);
    }
}

static void fill_inputs(const bt_kernel *k, unsigned char *in, unsigned ki)
{
    memset(in, 0, (size_t)k->in_stride * BT_WI);
    for (int w = 0; w < BT_WI; w++) {
        rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)ki << 20) ^ (uint64_t)(w + 1) * 0x12345;
        for (const bt_in *i = k->ins; i->type >= 0; i++)
            for (int e = 0; e < i->n; e++)
                put(in + (size_t)w * k->in_stride + i->off + (size_t)e * tsize[i->type], i->type, i->dom);
    }
}

/* ------------------------------------------------------------- comparing */

static int64_t ord(double v, int type)
{
    if (type == 8) {
        float f = (float)v;
        int32_t b;
        memcpy(&b, &f, 4);
        return b < 0 ? (int64_t)INT32_MIN - b : b;
    }
    int64_t b;
    memcpy(&b, &v, 8);
    return b < 0 ? INT64_MIN - b : b;
}

static double fget(const unsigned char *p, int type)
{
    if (type == 8) {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    double d;
    memcpy(&d, p, 8);
    return d;
}

/* 1 when native value a matches reference b under the output's tolerance */
static int same(const unsigned char *a, const unsigned char *b, const bt_out *o)
{
    if (o->type == 8 || o->type == 9) {
        double x = fget(a, o->type), y = fget(b, o->type);
        if (isnan(x) || isnan(y))
            return isnan(x) && isnan(y);
        if (x == y)
            return 1;
        if (o->tol < 0) /* implementation-defined accuracy: relative 1e-4 */
            return fabs(x - y) <= 1e-4 * fmax(1.0, fmax(fabs(x), fabs(y)));
        int64_t d = ord(x, o->type) - ord(y, o->type);
        return llabs(d) <= o->tol;
    }
    if (o->type == 10) {
        uint16_t x, y;
        memcpy(&x, a, 2);
        memcpy(&y, b, 2);
        if ((x & 0x7c00) == 0x7c00 && (x & 0x3ff) && (y & 0x7c00) == 0x7c00 && (y & 0x3ff))
            return 1;
        return x == y;
    }
    if (strstr(o->what, "remquo")) { /* the quotient's sign and its 7 low bits */
        int32_t x, y;
        memcpy(&x, a, 4);
        memcpy(&y, b, 4);
        x = x < 0 ? -(int32_t)((0u - (uint32_t)x) & 127) : x & 127;
        y = y < 0 ? -(int32_t)((0u - (uint32_t)y) & 127) : y & 127;
        return x == y;
    }
    return memcmp(a, b, tsize[o->type]) == 0;
}

/* ------------------------------------------------- the specification */

/* The values the OpenCL C specification allows for element e of output o
 * whose argument is x (a float when fl): up to two in want[]; returns how
 * many, 0 when it allows any value there, -1 when this test has no oracle
 * for the function (then PoCL is the reference). frexp, ilogb and logb are
 * exact (0 ulp, OpenCL C 1.2, 7.4); frexp of +-inf and NaN stores 0 and
 * returns x (OpenCL C 3.0, 7.5.1), of +-0 stores 0 (C99 F.9.3.4); ilogb of
 * +-inf is INT_MAX, of 0 and NaN FP_ILOGB0 and FP_ILOGBNAN, whose values
 * are the implementation's (C99 7.12.6.5); logb of +-0 is -inf, of +-inf
 * +inf (C99 F.9.3.11). A float subnormal may be flushed to zero (float
 * denormals are optional, CL_FP_DENORM; double ones are required), so the
 * result for a zero of its sign is allowed too. */
static int spec_values(const char *what, double x, int fl, double want[2])
{
    int n = 1;
    double xs[2] = {x, 0};
    if (fl && x != 0 && fabs(x) < 0x1p-126) { /* may be flushed */
        xs[1] = copysign(0.0, x);
        n = 2;
    }
    int out = strstr(what, "(out)") != NULL;
    if (!strncmp(what, "frexp", 5)) {
        for (int i = 0; i < n; i++) {
            int ex = 0;
            double m = isfinite(xs[i]) ? frexp(xs[i], &ex) : xs[i];
            want[i] = out ? (isfinite(xs[i]) ? ex : 0) : m;
        }
        return n;
    }
    if (!strcmp(what, "ilogb")) {
        if (x == 0 || isnan(x))
            return 0;
        for (int i = 0; i < n; i++)
            want[i] = isinf(xs[i]) ? 2147483647.0 : xs[i] == 0 ? NAN : ilogb(xs[i]);
        if (n == 2) /* flushed: FP_ILOGB0, any value */
            return 0;
        return 1;
    }
    if (!strcmp(what, "logb")) {
        for (int i = 0; i < n; i++)
            want[i] = isnan(xs[i]) ? NAN : isinf(xs[i]) ? INFINITY : xs[i] == 0 ? -INFINITY : logb(xs[i]);
        return n;
    }
    return -1;
}

static double value_of(const unsigned char *p, int type)
{
    if (type == 8 || type == 9)
        return fget(p, type);
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* 1 when the value at p is one of the n allowed (NaN allows any NaN) */
static int allowed(const unsigned char *p, int type, const double *want, int n)
{
    double v = value_of(p, type);
    for (int i = 0; i < n; i++)
        if ((isnan(want[i]) && isnan(v)) || (v == want[i] && signbit(v) == signbit(want[i])))
            return 1;
    return 0;
}

static long pocl_wrong;

static void show(char *buf, size_t n, const unsigned char *p, int type)
{
    if (type == 8 || type == 9)
        snprintf(buf, n, "%.17g", fget(p, type));
    else {
        int64_t v = 0;
        memcpy(&v, p, tsize[type]);
        if (type <= 7 && !(type & 1) && tsize[type] < 8)
            v = (v << (64 - 8 * tsize[type])) >> (64 - 8 * tsize[type]);
        snprintf(buf, n, "%lld (0x%llx)", (long long)v, (unsigned long long)v);
    }
}

static int compare(const bt_kernel *k, const unsigned char *nat, const unsigned char *ref,
                   const unsigned char *in, const char *img, long *checked)
{
    int bad = 0;
    for (int w = 0; w < BT_WI; w++)
        for (const bt_out *o = k->outs; o->type >= 0; o++) {
            if (o->flag == 1 && strstr(img, "1.2"))
                continue;
            if (o->flag == 2) { /* the copy as the specification says: bytes moved, gaps untouched */
                const bt_copy *c = &o->copy;
                const unsigned char *src = in + (size_t)w * k->in_stride + c->in_off;
                const unsigned char *dst = nat + (size_t)w * k->out_stride + o->off;
                for (int e = 0; e < c->num * c->stride * c->esz; e++) {
                    int j = e / c->esz, b = e % c->esz, want;
                    if (c->gather) /* global -> local: element j from src[j * stride] */
                        want = j < c->num ? src[(size_t)j * c->stride * c->esz + b] : 0;
                    else           /* local -> global: element j to dst[j * stride] */
                        want = j % c->stride ? 0 : src[(size_t)(j / c->stride) * c->esz + b];
                    ++*checked;
                    if (dst[e] != want && ++bad <= 12)
                        fprintf(stderr, "MISMATCH %s [%s] %s work-item %d byte %d: %d, want %d\n", k->name, img,
                                o->what, w, e, dst[e], want);
                }
                continue;
            }
            for (int e = 0; e < o->n; e++) {
                size_t at = (size_t)w * k->out_stride + o->off + (size_t)e * tsize[o->type];
                ++*checked;
                double want[2];
                int nw = -1;
                if (o->arg >= 0 && (o->arg_type == 8 || o->arg_type == 9))
                    nw = spec_values(o->what,
                                     fget(in + (size_t)w * k->in_stride + o->arg + (size_t)e * tsize[o->arg_type],
                                          o->arg_type),
                                     o->arg_type == 8, want);
                if (nw >= 0) { /* the specification decides; PoCL is checked too */
                    char x[64], y[64], a[64];
                    double arg = fget(in + (size_t)w * k->in_stride + o->arg + (size_t)e * tsize[o->arg_type],
                                      o->arg_type);
                    snprintf(a, sizeof(a), "%.17g", arg);
                    if (nw == 0)
                        continue;
                    show(x, sizeof(x), nat + at, o->type);
                    show(y, sizeof(y), ref + at, o->type);
                    if (!allowed(ref + at, o->type, want, nw) && ++pocl_wrong <= 6)
                        fprintf(stderr, "PoCL is wrong: %s [%s] %s of %s: PoCL %s, the OpenCL C specification %.17g%s"
                                        " (not counted)\n", k->name, img, o->what, a, y, want[0],
                                nw > 1 ? " or that of a flushed zero" : "");
                    if (allowed(nat + at, o->type, want, nw))
                        continue;
                    if (++bad <= 12)
                        fprintf(stderr, "WRONG %s [%s] %s work-item %d element %d of %s: native %s, the OpenCL C "
                                        "specification %.17g (PoCL %s)\n", k->name, img, o->what, w, e, a, x, want[0], y);
                    continue;
                }
                if (same(nat + at, ref + at, o))
                    continue;
                if (++bad <= 12) {
                    char x[64], y[64];
                    show(x, sizeof(x), nat + at, o->type);
                    show(y, sizeof(y), ref + at, o->type);
                    fprintf(stderr, "MISMATCH %s [%s] %s work-item %d element %d: native %s, PoCL %s\n",
                            k->name, img, o->what, w, e, x, y);
                }
            }
        }
    return bad;
}

/* Both devices run a kernel as (in, out, local scratch, in as __constant). */
static void args_of(const bt_kernel *k, unsigned char *in, unsigned char *out, td_arg *a)
{
    size_t isz = (size_t)k->in_stride * BT_WI, osz = (size_t)k->out_stride * BT_WI;
    a[0] = (td_arg){TD_BUFFER, isz, in};
    a[1] = (td_arg){TD_BUFFER, osz, out};
    a[2] = (td_arg){TD_LOCAL, (size_t)k->lm, NULL};
    a[3] = (td_arg){TD_BUFFER, isz, in};
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    const char *src = getenv("BT_SOURCE");
    if (!src) {
        printf("SKIP: BT_SOURCE (bt-kernels.cl) not set\n");
        return 77;
    }
    const char *names[NK], *params[NK];
    for (unsigned i = 0; i < NK; i++) {
        names[i] = bt_kernels[i].name;
        params[i] = "pplp";
    }
    sx_device_binaries *b20 = td_native_image("bt-cl20.hso", NK, names, params),
                       *b12 = td_native_image("bt-cl12.hso", NK, names, params);
    if (!b20 || !b12) {
        printf("SKIP: bt-cl20.hso / bt-cl12.hso were not built (no clang-14?)\n");
        return 77;
    }
    /* OpenCL C 3.0: PoCL's 1.2 overloads plus ctz */
    if (!td_pocl_open(src, "-cl-std=CL3.0 -DBT_POCL")) {
        printf("SKIP: no PoCL OpenCL platform (install pocl-opencl-icd)\n");
        return 77;
    }
    if (!td_native_open())
        return fail("native device, context or queue");
    size_t g = BT_WI, l = 1;
    td_arg a[4];

    /* reference results first (PoCL), then each native image */
    unsigned char **ref = calloc(NK, sizeof(*ref)), **ins = calloc(NK, sizeof(*ins));
    for (unsigned i = 0; i < NK; i++) {
        const bt_kernel *k = &bt_kernels[i];
        if (only && strncmp(k->name, only, strlen(only)) != 0)
            continue;
        ins[i] = malloc((size_t)k->in_stride * BT_WI);
        ref[i] = calloc((size_t)k->out_stride, BT_WI);
        fill_inputs(k, ins[i], i);
        unsigned char *in = malloc((size_t)k->in_stride * BT_WI);
        memcpy(in, ins[i], (size_t)k->in_stride * BT_WI);
        args_of(k, in, ref[i], a);
        int rc = td_pocl_run(k->name, 4, a, 1, &g, &l);
        free(in);
        if (rc)
            return 1;
    }
    long checked = 0, bad = 0;
    const char *imgs[] = {"CL2.0", "CL1.2"};
    sx_device_binaries *bins[] = {b20, b12};
    for (int m = 0; m < 2; m++) {
        if (sx_register_images(bins[m]) != SX_SUCCESS) {
            fprintf(stderr, "register %s: %s\n", imgs[m], sx_last_error());
            return 1;
        }
        for (unsigned i = 0; i < NK; i++) {
            const bt_kernel *k = &bt_kernels[i];
            if (!ref[i])
                continue;
            size_t isz = (size_t)k->in_stride * BT_WI, osz = (size_t)k->out_stride * BT_WI;
            unsigned char *in = malloc(isz), *out = calloc(osz, 1);
            if (!in || !out)
                return fail("memory");
            memcpy(in, ins[i], isz);
            args_of(k, in, out, a);
            if (td_native_run(k->name, 4, a, 1, &g, &l))
                return 1;
            bad += compare(k, out, ref[i], in, imgs[m], &checked);
            free(out);
            free(in);
        }
        sx_unregister_images(bins[m]);
    }
    printf("%ld values compared (%d work-items, 2 native images), %ld wrong: differ from PoCL or, where\n"
           "the OpenCL C specification defines the value (frexp, ilogb, logb; the cl_khr_fp16 async\n"
           "copies PoCL cannot run), from the specification\n", checked, BT_WI, bad);
    if (pocl_wrong)
        printf("%ld values where PoCL differs from the OpenCL C specification (PoCL is wrong there; not counted)\n",
               pocl_wrong);
    for (unsigned i = 0; i < NK; i++) {
        free(ref[i]);
        free(ins[i]);
    }
    free(ref);
    free(ins);
    td_native_close();
    td_pocl_close();
    sxt_binaries_free(b20);
    sxt_binaries_free(b12);
    return bad ? 1 : 0;
}
