/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native.c: the native variant made from the processed SPIR-V (after the
 * if_device pass and the virtual-function split, so both apply to it):
 *     llvm-spirv -r IMAGE.spv            -> SPIR IR (OpenCL builtins)
 *     sx-wgc --import NAME... IR         -> host IR with work-group functions
 *     clang -O3 -fPIC -shared -nostdlib  -> the image (SX_TARGET_HOST, native)
 * sx-wgc and the LLVM 14 toolchain are build-time dependencies of proptool
 * only; without them the --host flow still works. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spirv/unified1/spirv.h>
#include <sycl-ext/sx.h>

#include "native.h"

#ifndef SXP_WGC_CLANG
#define SXP_WGC_CLANG "clang-14"
#endif
#ifndef SXP_WGC_LLVM_SPIRV
#define SXP_WGC_LLVM_SPIRV "llvm-spirv-14"
#endif

/* Failures are errors with --native, warnings when made by default (a
 * module the toolchain cannot take costs its native variant, not the run). */
static bool required;

#define fail(origin, ...) sxp_variant_fail(origin, required, "native", "the native device", __VA_ARGS__)

/* sx-wgc: $SX_WGC, else beside this proptool (build tree and install). */
static char *default_wgc(void)
{
    const char *env = getenv("SX_WGC");
    if (env && *env)
        return sxp_xstrdup(env);
    return sxp_beside_self("sx-wgc");
}

bool sxp_native_find(sxp_native_tools *t, char **why)
{
    static char *wgc;
    if (!t->wgc) {
        if (!wgc)
            wgc = default_wgc();
        t->wgc = wgc;
    }
    if (!t->wgc) {
#ifdef SXP_HAVE_WGC
        *why = sxp_xstrdup("sx-wgc is not installed beside proptool (give --wgc PATH or set SX_WGC)");
#else
        *why = sxp_xstrdup("proptool was built without sx-wgc: configure found no LLVM 14 "
                           "(install llvm-14-dev and reconfigure, or give --wgc PATH)");
#endif
        return false;
    }
    if (!t->clang) {
        const char *env = getenv("SX_WGC_CLANG");
        t->clang = env && *env ? env : SXP_WGC_CLANG;
    }
    if (!t->llvm_spirv) {
        const char *env = getenv("LLVM_SPIRV");
        t->llvm_spirv = env && *env ? env : SXP_WGC_LLVM_SPIRV;
    }
    const char *missing = !sxp_runnable(t->wgc) ? t->wgc : !sxp_runnable(t->clang) ? t->clang
                        : !sxp_runnable(t->llvm_spirv) ? t->llvm_spirv : NULL;
    if (missing) {
        *why = sxp_xasprintf("'%s' cannot be run (the native variant needs sx-wgc, clang-14 and llvm-spirv-14)",
                             missing);
        return false;
    }
    return true;
}

/* Runs a tool with its stderr in `log`; on failure the first lines of it
 * go into the diagnostic (sxp_tool_run), unless `quiet` (the caller tries
 * something else first). */
static bool run_tool(const char *origin, char *const argv[], const char *log, bool quiet)
{
    char *why = NULL;
    if (sxp_tool_run(argv, log, &why))
        return true;
    if (!quiet)
        fail(origin, "%s", why);
    free(why);
    return false;
}

static bool run(const char *origin, char *const argv[], const char *log)
{
    return run_tool(origin, argv, log, false);
}

/* Does the SPIR-V hold an OpControlBarrier of sub-group execution scope
 * (DPC++'s group_barrier(sub_group), in its sub-group loads and stores)?
 * llvm-spirv -r reads one as OpenCL 1.2's barrier(), a work-group barrier,
 * unless it writes OpenCL 2.0's builtins (sub_group_barrier). */
static bool has_sub_group_barrier(const uint8_t *data, size_t size)
{
    size_t n = size / 4;
    const uint8_t *w = data;
#define WORD(i) ((uint32_t)w[4 * (i)] | (uint32_t)w[4 * (i) + 1] << 8 | (uint32_t)w[4 * (i) + 2] << 16 | \
                 (uint32_t)w[4 * (i) + 3] << 24)
    if (n < 5 || WORD(0) != 0x07230203u)
        return false;
    uint32_t bound = WORD(3);
    if (bound == 0 || bound > (1u << 24))
        return false;
    uint8_t *three = calloc(bound, 1);  /* ids of 32-bit integer constants equal to 3 (Subgroup) */
    bool found = false;
    for (int pass = 0; pass < 2 && three && !found; pass++)
        for (size_t p = 5; p < n && !found;) {
            uint32_t len = WORD(p) >> 16, op = WORD(p) & 0xffff;
            if (len == 0 || p + len > n)
                break;
            if (pass == 0 && op == 43 && len == 4 && WORD(p + 2) < bound && WORD(p + 3) == 3)  /* OpConstant */
                three[WORD(p + 2)] = 1;
            else if (pass == 1 && op == 224 && len == 4 && WORD(p + 1) < bound && three[WORD(p + 1)])  /* OpControlBarrier */
                found = true;
            p += len;
        }
#undef WORD
    free(three);
    return found;
}

/* llvm-spirv -r of the image; where llvm-spirv-14 cannot read what newer
 * producers (DPC++) write (an extension it does not know, ...), the newer
 * reader $SX_WGC_LLVM_SPIRV_NEWER (default llvm-spirv-15, whose IR LLVM 14
 * still reads; "off": none) and a note naming the reason. */
static bool read_spirv(const sxp_native_tools *t, const char *origin, const char *spvp, const char *bc,
                       const char *log, bool cl20)
{
    char *env = cl20 ? "--spirv-target-env=CL2.0" : NULL;
    char *const a1[] = {(char *)t->llvm_spirv, "-r", (char *)spvp, "-o", (char *)bc, env, NULL};
    const char *newer = getenv("SX_WGC_LLVM_SPIRV_NEWER");
    if (!newer || !*newer)
        newer = "llvm-spirv-15";
    bool retry = strcmp(newer, "off") != 0 && strcmp(newer, t->llvm_spirv) != 0 && sxp_runnable(newer);
    if (run_tool(origin, a1, log, retry))
        return true;
    size_t n = 0;
    char *why = (char *)sxp_read_file(log, &n);
    size_t len = 0;
    while (why && len < n && why[len] != '\n' && len < 300)
        len++;
    char *const a2[] = {(char *)newer, "-r", (char *)spvp, "-o", (char *)bc, env, NULL};
    bool ok = run(origin, a2, log);
    if (ok)
        fprintf(stderr, "proptool: note: %s: %s cannot read the SPIR-V (%.*s); read with %s\n", origin,
                t->llvm_spirv, (int)len, why ? why : "no message", newer);
    free(why);
    return ok;
}

/* The report line of one kernel (sx-wgc --report) as the property's text. */
static void add_report(sxp_image *v, char *line)
{
    char *f[6] = {0};
    int n = 0;
    for (char *p = line; n < 6; n++) {
        f[n] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = 0;
        p = tab + 1;
    }
    if (n < 5)
        return;
    unsigned long flags = strtoul(f[1], NULL, 10);
    char *text = (flags & 1)
        ? sxp_xasprintf("fiber: %s", f[5])
        : sxp_xasprintf("regions: %s barrier%s, local %s bytes, private %s bytes per work-item%s%s", f[4],
                        strcmp(f[4], "1") ? "s" : "", f[2], f[3], f[5] && *f[5] ? "; " : "", f[5] ? f[5] : "");
    sxp_set_string(sxp_image_set(v, SXP_PROP_SET_NATIVE_WG), f[0], text);
    free(text);
}

/* The SPIR-V without UserSemantic (llvm-spirv would make them
 * llvm.global.annotations) and the names it imports. */
bool sxp_plain_spirv(const sxp_image *spv, sxp_buf *plain, char ***imports_out, size_t *nimports_out)
{
    sxp_module m;
    sxp_any_bound = true;
    bool parsed = sxp_module_parse(&m, spv->origin, spv->data, spv->size);
    sxp_any_bound = false;
    if (!parsed) {
        sxp_module_free(&m);
        return false;
    }
    char **imports = NULL;
    size_t nimports = 0;
    for (uint32_t d = 0; d < m.ndecors; d++) {
        const sxp_decor *dec = &m.decors[d];
        const char *name;
        uint32_t type;
        if (dec->decoration == SpvDecorationUserSemantic)
            m.drop[dec->inst] = 1;
        else if (dec->decoration == SpvDecorationLinkageAttributes &&
                 sxp_module_linkage(&m, dec->target, &name, &type) && type == SpvLinkageTypeImport) {
            imports = sxp_xrealloc(imports, (nimports + 1) * sizeof *imports);
            imports[nimports++] = sxp_xstrdup(name);
        }
    }
    sxp_module_write(&m, plain);
    sxp_module_free(&m);
    *imports_out = imports;
    *nimports_out = nimports;
    return true;
}

sxp_image *sxp_native_variant(const sxp_native_tools *t, const sxp_image *spv, bool must)
{
    required = must;
    char **imports = NULL;
    size_t nimports = 0;
    sxp_buf plain = {0};
    if (!sxp_plain_spirv(spv, &plain, &imports, &nimports))
        return NULL;

    sxp_scratch sc;
    char *why = NULL;
    sxp_image *v = NULL;
    bool ok = sxp_scratch_open(&sc, &why);
    if (!ok) {
        fail(spv->origin, "%s", why);
        free(why);
    }
    const char *spvp = NULL, *bc = NULL, *wg = NULL, *so = NULL, *rep = NULL, *log = NULL;
    if (ok) {
        spvp = sxp_scratch_path(&sc, "image.spv");
        bc = sxp_scratch_path(&sc, "image.bc");
        wg = sxp_scratch_path(&sc, "wg.bc");
        so = sxp_scratch_path(&sc, "image.so");
        rep = sxp_scratch_path(&sc, "report.txt");
        log = sxp_scratch_path(&sc, "stderr.txt");
        ok = sxp_write_file_atomic(spvp, plain.data, plain.len);
    }
    sxp_buf_free(&plain);
    if (ok)
        ok = read_spirv(t, spv->origin, spvp, bc, log, has_sub_group_barrier(spv->data, spv->size));
    if (ok) {
        char **a2 = sxp_xmalloc((8 + 2 * nimports) * sizeof *a2);
        size_t n = 0;
        a2[n++] = (char *)t->wgc;
        for (size_t i = 0; i < nimports; i++) {
            a2[n++] = "--import";
            a2[n++] = imports[i];
        }
        a2[n++] = "--report";
        a2[n++] = (char *)rep;
        a2[n++] = "-o";
        a2[n++] = (char *)wg;
        a2[n++] = (char *)bc;
        a2[n] = NULL;
        ok = run(spv->origin, a2, log);
        free(a2);
    }
    if (ok) {
        char *march = t->march ? sxp_xasprintf("-march=%s", t->march) : NULL;
        /* No loop versioned on a run-time stride being 1 (LLVM's
         * symbolic-stride speculation): in a work-item loop a stride that
         * is a kernel argument (a[j * n + k] over j) is a row length, never
         * 1, and the speculation left such loops scalar where a gather
         * vectorises them (issue 28: syrk). */
        char *const a3[] = {(char *)t->clang, "-O3", "-fPIC", "-shared", "-nostdlib", "-Wno-override-module",
                            "-mllvm", "-enable-mem-access-versioning=false",
                            "-target", "x86_64-unknown-linux-gnu", (char *)wg, "-o", (char *)so, march, NULL};
        ok = run(spv->origin, a3, log);
        free(march);
    }
    size_t n = 0, rn = 0;
    uint8_t *bytes = ok ? sxp_read_file(so, &n) : NULL;
    char *report = bytes ? (char *)sxp_read_file(rep, &rn) : NULL;
    if (report) {
        v = sxp_variant_image(spv, SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE, bytes, n);
        bytes = NULL;
        char *text = sxp_xmalloc(rn + 1);
        memcpy(text, report, rn);
        text[rn] = 0;
        for (char *line = text, *nl; line && *line; line = nl) {
            nl = strchr(line, '\n');
            if (nl)
                *nl++ = 0;
            add_report(v, line);
        }
        free(text);
    }
    free(bytes);
    free(report);
    sxp_scratch_close(&sc);
    for (size_t i = 0; i < nimports; i++)
        free(imports[i]);
    free(imports);
    return v;
}

/* How many leading operand words of instruction `in` are ids (the rest
 * are literals: memory operands, indices, loop controls, ...). */
static uint32_t id_words(const sxp_inst *in)
{
    switch (in->op) {
    case SpvOpLoad: return 4 < in->wc ? 4 : in->wc;
    case SpvOpStore: case SpvOpCopyMemory: case SpvOpLoopMerge: return 3 < in->wc ? 3 : in->wc;
    case SpvOpCopyMemorySized: return 4 < in->wc ? 4 : in->wc;
    case SpvOpCompositeExtract: return 4 < in->wc ? 4 : in->wc;
    case SpvOpCompositeInsert: case SpvOpVectorShuffle: return 5 < in->wc ? 5 : in->wc;
    case SpvOpSelectionMerge: case SpvOpLifetimeStart: case SpvOpLifetimeStop: return 2 < in->wc ? 2 : in->wc;
    case SpvOpBranchConditional: return 4 < in->wc ? 4 : in->wc;
    case SpvOpSwitch: return 3 < in->wc ? 3 : in->wc;
    case SpvOpVariable: return 3;  /* storage class, then the initializer (checked apart) */
    case SpvOpLine: case SpvOpNoLine: return 1;
    default: return in->wc;
    }
}

/* Does instruction `in` use id `var`? */
static bool inst_uses(const sxp_module *m, const sxp_inst *in, uint32_t var)
{
    uint32_t n = id_words(in);
    for (uint32_t w = 1; w < n; w++)
        if (in->op != SpvOpExtInst || w != 4)  /* OpExtInst: word 4 is the instruction number */
            if (m->words[in->off + w] == var)
                return true;
    if (in->op == SpvOpVariable && in->wc > 4 && m->words[in->off + 4] == var)
        return true;
    if (in->op == SpvOpSwitch)  /* the labels after each literal */
        for (uint32_t w = 4; w < in->wc; w += 2)
            if (m->words[in->off + w] == var)
                return true;
    return false;
}

/* Does function `f` (or one it calls) mention id `var`? Each function is
 * looked at once (`seen`), with a work list instead of recursion: a call
 * chain as long as the module costs no stack. */
static bool fn_uses(const sxp_module *m, uint32_t f, uint32_t var, uint8_t *seen, uint32_t *work)
{
    uint32_t nwork = 0;
    if (f == SXP_NONE)
        return false;
    seen[f] = 1;
    work[nwork++] = f;
    while (nwork) {
        const sxp_function *fn = &m->fns[work[--nwork]];
        for (uint32_t i = fn->first_inst; i <= fn->end_inst && i < m->ninsts; i++)
            if (inst_uses(m, &m->insts[i], var))
                return true;
        for (uint32_t c = 0; c < fn->ncallees; c++) {
            uint32_t g = fn->callees[c] < m->nids ? m->fn_of_id[fn->callees[c]] : SXP_NONE;
            if (g != SXP_NONE && !seen[g]) {
                seen[g] = 1;
                work[nwork++] = g;
            }
        }
    }
    return false;
}

void sxp_native_check_host_locals(const sxp_module *m, const char *host_path)
{
    uint8_t *seen = sxp_xmalloc(m->nfns ? m->nfns : 1);
    uint32_t *work = sxp_xmalloc((m->nfns ? m->nfns : 1) * sizeof *work);
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op != SpvOpVariable || in->wc < 4 || m->words[in->off + 3] != SpvStorageClassWorkgroup)
            continue;
        uint32_t var = m->words[in->off + 2];
        for (uint32_t e = 0; e < m->nentries; e++) {
            if (m->entries[e].model != SpvExecutionModelKernel || m->entries[e].fn >= m->nids)
                continue;
            memset(seen, 0, m->nfns ? m->nfns : 1);
            if (!fn_uses(m, m->fn_of_id[m->entries[e].fn], var, seen, work))
                continue;
            const char *vn = sxp_module_name(m, var);
            sxp_warn(host_path, SXP_NONE,
                     "kernel '%s' has the kernel-scope __local variable '%s': a --host object shares one copy "
                     "between all work-groups; let proptool make the native variant from the SPIR-V instead "
                     "(leave out --host)", m->entries[e].name, vn ? vn : "?");
        }
    }
    free(work);
    free(seen);
}
