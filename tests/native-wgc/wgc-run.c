/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* wgc-run.c: runs kernels of an image on the default device (pick it with
 * SX_ADAPTERS / SX_DEVICE_SELECTOR) with buffers made from a short spec and
 * writes every buffer afterwards as text, so that two devices (native and
 * Intel's CPU OpenCL runtime) can be compared with --compare.
 *
 *   wgc-run IMG.sximg OUT.txt GLOBAL LOCAL SPEC KERNEL...
 *   wgc-run --compare A.txt B.txt
 *   wgc-run --sub-group-sizes      (the default device's SX_DEVICE_INFO_SUB_GROUP_SIZES)
 *
 * GLOBAL, LOCAL: sizes per dimension, "256" or "20x6" (x first).
 * SPEC: the kernel's arguments, comma separated:
 *   o:N  int buffer of N elements, zeroed       i:N  int buffer, a fixed pattern
 *   f:N  float buffer, a fixed pattern          g:N  float buffer, zeroed
 *   n:V  int scalar V                           l:N  __local buffer of N bytes
 *   F:V  float scalar V
 * Every buffer is written after each kernel ("kernel NAME", then one line
 * per buffer: its letter and values). --compare: ints exactly, floats to a
 * relative 1e-4 (reductions may add in another order); exit 1 on the
 * first kernel that differs, naming it, the buffer and the index. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

#define MAX_ARGS 16

static int parse_sizes(const char *s, size_t *v)
{
    int n = 0;
    while (n < 3) {
        char *end;
        v[n++] = strtoul(s, &end, 10);
        if (*end != 'x')
            return *end ? 0 : n;
        s = end + 1;
    }
    return 0;
}

static int input_int(size_t i) { return (int)((i * 2654435761u) >> 7) % 1000 - 300; }
static float input_float(size_t i) { return (float)((i * 37) % 101) / 7.0f - 5.0f; }

static int run(int argc, char **argv)
{
    size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1};
    int dims = parse_sizes(argv[3], g);
    if (!dims || parse_sizes(argv[4], l) != dims) {
        fprintf(stderr, "wgc-run: bad sizes '%s' / '%s'\n", argv[3], argv[4]);
        return 2;
    }
    char kind[MAX_ARGS];
    long num[MAX_ARGS];
    double fnum[MAX_ARGS];
    int nargs = 0;
    for (const char *s = argv[5]; *s && nargs < MAX_ARGS;) {
        kind[nargs] = *s;
        if (s[1] != ':' || !strchr("oifgnFl", *s)) {
            fprintf(stderr, "wgc-run: bad argument spec at '%s'\n", s);
            return 2;
        }
        char *end;
        if (*s == 'F')
            fnum[nargs] = strtod(s + 2, &end);
        else
            num[nargs] = strtol(s + 2, &end, 10);
        nargs++;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',') {
            fprintf(stderr, "wgc-run: bad argument spec at '%s'\n", end);
            return 2;
        }
    }
    sx_image_file file;
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    if (sx_image_file_load(argv[1], &file) != SX_SUCCESS || sx_init(0) != SX_SUCCESS ||
        sx_device_get_default(&dev) != SX_SUCCESS || sx_context_create(1, &dev, &ctx) != SX_SUCCESS ||
        sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q) != SX_SUCCESS) {
        fprintf(stderr, "wgc-run: setup: %s\n", sx_last_error());
        return 1;
    }
    FILE *out = fopen(argv[2], "w");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    int failed = 0;
    for (int k = 6; k < argc; k++) {
        void *buf[MAX_ARGS] = {0};
        int ival[MAX_ARGS];
        float fval[MAX_ARGS];
        sx_arg a[MAX_ARGS];
        for (int i = 0; i < nargs; i++) {
            if (kind[i] == 'l') {
                a[i] = (sx_arg){SX_ARG_LOCAL, (uint32_t)i, (size_t)num[i], NULL};
                continue;
            }
            if (kind[i] == 'n' || kind[i] == 'F') {
                ival[i] = (int)num[i];
                fval[i] = (float)fnum[i];
                a[i] = (sx_arg){SX_ARG_VALUE, (uint32_t)i, 4, kind[i] == 'n' ? (void *)&ival[i] : (void *)&fval[i]};
                continue;
            }
            size_t n = (size_t)num[i];
            if (sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, n * 4 + 4, 64, &buf[i]) != SX_SUCCESS) {
                fprintf(stderr, "wgc-run: usm alloc: %s\n", sx_last_error());
                return 1;
            }
            for (size_t j = 0; j < n; j++) {
                if (kind[i] == 'f' || kind[i] == 'g')
                    ((float *)buf[i])[j] = kind[i] == 'f' ? input_float(j) : 0.0f;
                else
                    ((int *)buf[i])[j] = kind[i] == 'i' ? input_int(j) : 0;
            }
            a[i] = (sx_arg){SX_ARG_POINTER, (uint32_t)i, sizeof(void *), buf[i]};
        }
        sx_kernel kern;
        sx_result r = sx_kernel_get(argv[k], &kern);
        if (r == SX_SUCCESS) {
            r = sx_queue_launch(q, kern, (uint32_t)dims, NULL, g, l, (uint32_t)nargs, a, 0, NULL, NULL);
            if (r == SX_SUCCESS)
                r = sx_queue_wait(q);
            sx_kernel_release(kern);
        }
        fprintf(out, "kernel %s\n", argv[k]);
        if (r != SX_SUCCESS) {
            fprintf(out, "error %s\n", sx_result_name(r));
            fprintf(stderr, "wgc-run: %s: %s: %s\n", argv[k], sx_result_name(r), sx_last_error());
            failed = 1;
        }
        for (int i = 0; i < nargs; i++) {
            if (!buf[i])
                continue;
            fputc(kind[i] == 'g' ? 'f' : kind[i], out);
            for (long j = 0; j < num[i]; j++) {
                if (kind[i] == 'f' || kind[i] == 'g')
                    fprintf(out, " %.9g", ((float *)buf[i])[j]);
                else
                    fprintf(out, " %d", ((int *)buf[i])[j]);
            }
            fputc('\n', out);
            sx_usm_free(ctx, buf[i]);
        }
    }
    fclose(out);
    sx_queue_release(q);
    sx_context_release(ctx);
    sx_image_file_release(file);
    sx_fini();
    return failed;
}

static char *read_line(FILE *f)
{
    size_t cap = 0;
    char *line = NULL;
    if (getline(&line, &cap, f) < 0) {
        free(line);
        return NULL;
    }
    line[strcspn(line, "\n")] = 0;
    return line;
}

static int compare(const char *pa, const char *pb)
{
    FILE *fa = fopen(pa, "r"), *fb = fopen(pb, "r");
    if (!fa || !fb) {
        fprintf(stderr, "wgc-run: cannot open %s or %s\n", pa, pb);
        return 2;
    }
    char kernel[256] = "?";
    int bufno = 0, bad = 0, kernels = 0;
    for (;;) {
        char *a = read_line(fa), *b = read_line(fb);
        if (!a || !b) {
            if (a || b) {
                fprintf(stderr, "DIFF: %s: one output ends early\n", kernel);
                bad = 1;
            }
            free(a);
            free(b);
            break;
        }
        if (!strncmp(a, "kernel ", 7)) {
            snprintf(kernel, sizeof kernel, "%s", a + 7);
            bufno = 0;
            kernels++;
            if (strcmp(a, b)) {
                fprintf(stderr, "DIFF: kernels out of step: '%s' / '%s'\n", a, b);
                bad = 1;
            }
        } else if (!strncmp(a, "error", 5) || !strncmp(b, "error", 5)) {
            if (strcmp(a, b)) {
                fprintf(stderr, "DIFF: %s: '%s' / '%s'\n", kernel, a, b);
                bad = 1;
            }
        } else {
            char *sa = a + 1, *sb = b + 1;
            for (long j = 0;; j++) {
                char *ea, *eb;
                double va = strtod(sa, &ea), vb = strtod(sb, &eb);
                if (ea == sa || eb == sb) {
                    if ((ea == sa) != (eb == sb)) {
                        fprintf(stderr, "DIFF: %s: buffer %d lengths differ\n", kernel, bufno);
                        bad = 1;
                    }
                    break;
                }
                double tol = a[0] == 'f' ? 1e-4 * (1 + fabs(va)) : 0;
                if (fabs(va - vb) > tol && !(isnan(va) && isnan(vb))) {
                    fprintf(stderr, "DIFF: %s: buffer %d [%ld] = %.9g, the other device %.9g\n", kernel, bufno, j, va, vb);
                    bad = 1;
                    break;
                }
                sa = ea;
                sb = eb;
            }
            bufno++;
        }
        free(a);
        free(b);
    }
    fclose(fa);
    fclose(fb);
    if (!bad)
        printf("same: %d kernels\n", kernels);
    return bad;
}

static int sub_group_sizes(void)
{
    sx_device dev;
    size_t v[64], n = 0;
    if (sx_init(0) != SX_SUCCESS || sx_device_get_default(&dev) != SX_SUCCESS ||
        sx_device_get_info(dev, SX_DEVICE_INFO_SUB_GROUP_SIZES, sizeof v, v, &n) != SX_SUCCESS) {
        fprintf(stderr, "wgc-run: sub-group sizes: %s\n", sx_last_error());
        return 1;
    }
    for (size_t i = 0; i < n / sizeof v[0]; i++)
        printf("%s%zu", i ? " " : "", v[i]);
    printf("\n");
    sx_fini();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--sub-group-sizes"))
        return sub_group_sizes();
    if (argc == 4 && !strcmp(argv[1], "--compare"))
        return compare(argv[2], argv[3]);
    if (argc < 7) {
        fprintf(stderr, "usage: wgc-run IMG.sximg OUT.txt GLOBAL LOCAL SPEC KERNEL...\n"
                        "       wgc-run --compare A.txt B.txt\n");
        return 2;
    }
    return run(argc, argv);
}
