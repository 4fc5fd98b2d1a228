/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* wgc-gen.c: generates OpenCL C kernels for differential testing of the
 * work-group compiler (issue 28): private arrays, loops with barriers,
 * breaks, nested uniform branches, local-memory exchanges, divergent
 * branches without barriers, work-group and sub-group collectives.
 *
 *   wgc-gen SEED COUNT > gen.cl
 *
 * Every kernel is `kernel void gNNN(global uint *out, global const int *in,
 * int n)`, writes out[get_global_id(0)] only, and is defined for any
 * local size up to 64 (1-D) and any n >= 0: unsigned arithmetic (no
 * overflow), no division, array indices masked, barriers and collectives
 * only where the whole group takes the same path. Its output is a
 * function of the seed alone, so a failure is reproduced from the seed. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long state;

static unsigned rnd(unsigned n)
{
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(state >> 33) % n;
}

static int loops;  /* loop variables made so far (k0, k1, ...) */

static void ind(int d)
{
    for (int i = 0; i < d; i++)
        fputs("    ", stdout);
}

static void line(int d, const char *fmt, ...)
{
    va_list ap;
    ind(d);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

/* An expression of the work-item's values; `uni`: only uniform ones. */
static void expr(int uni, int depth, char *buf, size_t size)
{
    char a[1024], b[1024];
    unsigned c = rnd(uni ? 4 : 8);
    if (depth > 2)
        c %= 2;
    switch (c) {
    case 0: snprintf(buf, size, "%uu", rnd(50)); break;
    case 1: snprintf(buf, size, loops ? "k%u" : "(uint)n", loops ? rnd((unsigned)loops) : 0); break;
    case 2:
        expr(uni, depth + 1, a, sizeof a);
        snprintf(buf, size, "(uint)get_group_id(0) + %s", a);
        break;
    case 3:
        expr(uni, depth + 1, a, sizeof a);
        expr(uni, depth + 1, b, sizeof b);
        snprintf(buf, size, "(%s %s %s)", a, (const char *[]){"+", "*", "^", "-"}[rnd(4)], b);
        break;
    case 4: snprintf(buf, size, "v"); break;
    case 5: snprintf(buf, size, "p[(%s) & 15]", rnd(2) ? "v" : "lid"); break;
    case 6: snprintf(buf, size, "(uint)in[(lid + %u) %% 64]", rnd(64)); break;
    default:
        expr(uni, depth + 1, a, sizeof a);
        snprintf(buf, size, "(lid * %uu + %s)", rnd(7) + 1, a);
        break;
    }
}

/* Statements at nesting d; `div`: some work-items may not be here (no
 * barriers, no collectives). */
static void stmts(int d, int div, int budget);

static void stmt(int d, int div, int budget)
{
    char e[2048], f[2048];
    unsigned c = rnd(budget > 0 ? 10 : 3);
    switch (c) {
    case 0:
        expr(0, 0, e, sizeof e);
        line(d, "v = v * 3u + %s;", e);
        break;
    case 1:
        expr(0, 0, e, sizeof e);
        line(d, "p[(v + %uu) & 15] ^= %s;", rnd(16), e);
        break;
    case 2: /* zeroing loop (llvm.memset) */
        line(d, "for (int q = 0; q < 16; q++) p[q] = %uu;", rnd(3));
        break;
    case 3: /* local exchange */
        if (div) {
            line(d, "v += p[lid & 15];");
            break;
        }
        line(d, "loc[lid] = v;");
        line(d, "barrier(CLK_LOCAL_MEM_FENCE);");
        line(d, "v ^= loc[(lid + %uu) %% get_local_size(0)];", rnd(64));
        line(d, "barrier(CLK_LOCAL_MEM_FENCE);");
        break;
    case 4: { /* uniform loop, maybe with a uniform break */
        expr(1, 1, e, sizeof e);
        int k = loops++;
        line(d, "for (uint k%d = 0; k%d < (%s) %% 4u + 1u; k%d++) {", k, k, e, k);
        if (rnd(2)) {
            expr(1, 1, f, sizeof f);
            line(d + 1, "if (((%s) & 3u) == 1u) break;", f);
        }
        stmts(d + 1, div, budget - 2);
        line(d, "}");
        loops--;
        break;
    }
    case 5: /* uniform branch */
        expr(1, 1, e, sizeof e);
        line(d, "if ((%s) & 1u) {", e);
        stmts(d + 1, div, budget - 2);
        line(d, "} else {");
        stmts(d + 1, div, budget - 2);
        line(d, "}");
        break;
    case 6: /* divergent branch */
        line(d, "if ((lid + v) & %uu) {", rnd(3) + 1);
        stmts(d + 1, 1, budget - 2);
        line(d, "}");
        break;
    case 7: { /* divergent loop with a break */
        int k = loops++;
        line(d, "for (uint k%d = 0; k%d < (lid & 7u); k%d++) {", k, k, k);
        line(d + 1, "if (p[k%d & 15] == %uu) break;", k, rnd(5));
        stmts(d + 1, 1, budget - 3);
        line(d, "}");
        loops--;
        break;
    }
    case 8: /* a collective */
        if (div) {
            line(d, "v += lid;");
            break;
        }
        /* sub-group ones at the top only: jump threading can make a
         * uniform branch look divergent, and those fall back */
        switch (rnd(d == 1 ? 5 : 3)) {
        case 0: line(d, "v += work_group_reduce_add(v & 1023u);"); break;
        case 1: line(d, "v ^= work_group_scan_inclusive_max(v & 1023u);"); break;
        case 2: line(d, "v += work_group_broadcast(v, %uu %% get_local_size(0));", rnd(64)); break;
        case 3: line(d, "v += sub_group_scan_exclusive_add(p[v & 15] & 255u);"); break;
        default: line(d, "v += sub_group_reduce_max(v & 4095u) + (uint)work_group_any(v == 7u);"); break;
        }
        break;
    default: /* a private array write at a varying index */
        expr(0, 1, e, sizeof e);
        line(d, "p[lid & 15] += %s;", e);
        break;
    }
}

static void stmts(int d, int div, int budget)
{
    int n = 1 + (int)rnd(3);
    for (int i = 0; i < n; i++)
        stmt(d, div, budget);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: wgc-gen SEED COUNT > FILE.cl\n");
        return 2;
    }
    unsigned long long seed = strtoull(argv[1], NULL, 10);
    int count = atoi(argv[2]);
    printf("// generated by wgc-gen %llu %d\n#pragma OPENCL EXTENSION cl_khr_subgroups : enable\n", seed, count);
    for (int k = 0; k < count; k++) {
        state = seed * 1000003ull + (unsigned long long)k;
        rnd(2);
        printf("\n__attribute__((intel_reqd_sub_group_size(8)))\n"
               "kernel void g%03d(global uint *out, global const int *in, int n)\n{\n", k);
        line(1, "local uint loc[64];");
        line(1, "uint lid = get_local_id(0), v = (uint)in[lid %% 64u] + lid;");
        line(1, "uint p[16];");
        line(1, "for (int q = 0; q < 16; q++) p[q] = lid + (uint)q;");
        stmts(1, 0, 9);
        line(1, "out[get_global_id(0)] = v + p[v & 15] * 7u + p[3];");
        printf("}\n");
    }
    return 0;
}
