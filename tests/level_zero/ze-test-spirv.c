/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-test-spirv.c: the TEST DRIVER's minimal SPIR-V reader (kernels, globals, linkage). */
#include "ze-test-driver.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Opcodes and enums used here (spirv.h values, kept local so the TEST
 * DRIVER builds with no SPIR-V headers). */
enum {
    OP_ENTRY_POINT = 15, OP_TYPE_BOOL = 20, OP_TYPE_INT = 21, OP_TYPE_FLOAT = 22,
    OP_TYPE_VECTOR = 23, OP_TYPE_ARRAY = 28, OP_TYPE_STRUCT = 30, OP_TYPE_POINTER = 32,
    OP_TYPE_FUNCTION = 33, OP_CONSTANT = 43, OP_CONSTANT_COMPOSITE = 44, OP_CONSTANT_NULL = 46,
    OP_FUNCTION = 54, OP_VARIABLE = 59, OP_DECORATE = 71
};
enum { DEC_BUILTIN = 11, DEC_LINKAGE = 41, DEC_HOST_ACCESS_INTEL = 6188 };
enum { SC_UNIFORM_CONSTANT = 0, SC_WORKGROUP = 4, SC_CROSS_WORKGROUP = 5 };
enum { EXEC_KERNEL = 6 };
#define MAX_BOUND (1u << 22)
#define MAX_DEPTH 16

/* Per result id: what the reader learnt about it. */
typedef struct id_info {
    uint32_t op;          /* defining opcode, 0 if none seen */
    uint32_t first;       /* word index of the instruction */
    uint64_t size;        /* types: byte size */
    uint32_t storage;     /* pointers and variables: storage class */
    uint32_t pointee;     /* pointers: pointee type; variables: pointer type */
    uint32_t fn_type;     /* functions: OpTypeFunction id */
    uint32_t linkage;     /* 0 none, 1 export, 2 import */
    const char *link_name;
    const char *host_name;  /* HostAccessINTEL */
    int builtin;
} id_info;

typedef struct reader {
    const uint32_t *w;
    size_t n;
    uint32_t bound;
    id_info *ids;
    char *err;
    size_t err_size;
} reader;

static int fail(reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->err, r->err_size, fmt, ap);
    va_end(ap);
    return -1;
}

/* A literal string at word `at` of an instruction ending before `end`;
 * NULL unless NUL-terminated inside it. Sets *next past it. */
static const char *lit_string(reader *r, size_t at, size_t end, size_t *next)
{
    if (at >= end)
        return NULL;
    const char *s = (const char *)(r->w + at);
    size_t max = (end - at) * 4;
    size_t len = strnlen(s, max);
    if (len == max)
        return NULL;
    if (next)
        *next = at + len / 4 + 1;
    return s;
}

static id_info *id_at(reader *r, uint32_t id)
{
    return id && id < r->bound ? &r->ids[id] : NULL;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static uint64_t type_size(reader *r, uint32_t id)
{
    id_info *t = id_at(r, id);
    return t ? t->size : 0;
}

/* Write constant `cid` of type `tid` into buf (size bytes); depth-limited. */
static void write_constant(reader *r, uint32_t cid, unsigned char *buf, uint64_t size, int depth)
{
    id_info *c = id_at(r, cid);
    if (!c || depth > MAX_DEPTH)
        return;
    const uint32_t *in = r->w + c->first;
    uint32_t wc = in[0] >> 16;
    uint32_t tid = in[1];
    id_info *t = id_at(r, tid);
    if (!t)
        return;
    if (c->op == OP_CONSTANT) {
        uint64_t n = t->size < size ? t->size : size;
        if (n > (uint64_t)(wc - 3) * 4)
            n = (uint64_t)(wc - 3) * 4;
        memcpy(buf, in + 3, n);
    } else if (c->op == OP_CONSTANT_COMPOSITE) {
        const uint32_t *tin = r->w + t->first;
        uint32_t twc = tin[0] >> 16;
        uint64_t off = 0;
        for (uint32_t i = 3; i < wc; i++) {
            uint32_t member_t;
            if (t->op == OP_TYPE_STRUCT)
                member_t = (i - 3 + 2 < twc) ? tin[i - 3 + 2] : 0;
            else
                member_t = twc > 2 ? tin[2] : 0;
            uint64_t ms = type_size(r, member_t);
            if (t->op == OP_TYPE_STRUCT && ms && off % (ms > 8 ? 8 : ms))
                off += (ms > 8 ? 8 : ms) - off % (ms > 8 ? 8 : ms);
            if (off + ms > size)
                return;
            write_constant(r, in[i], buf + off, ms, depth + 1);
            off += ms;
        }
    }
    /* OpConstantNull and anything else: the buffer is already zero. */
}

/* Pass 1: record ids, types, decorations. */
static int scan(reader *r)
{
    for (size_t i = 5; i < r->n;) {
        uint32_t wc = r->w[i] >> 16, op = r->w[i] & 0xffff;
        if (wc == 0 || i + wc > r->n)
            return fail(r, "instruction at word %zu has word count %u past the end (%zu words)",
                        i, wc, r->n);
        const uint32_t *in = r->w + i;
        id_info *d = NULL;
        switch (op) {
        case OP_TYPE_BOOL: case OP_TYPE_INT: case OP_TYPE_FLOAT: case OP_TYPE_VECTOR:
        case OP_TYPE_ARRAY: case OP_TYPE_STRUCT: case OP_TYPE_POINTER: case OP_TYPE_FUNCTION:
            if (wc < 2 || !(d = id_at(r, in[1])))
                return fail(r, "type instruction at word %zu has a bad id", i);
            break;
        case OP_CONSTANT: case OP_CONSTANT_COMPOSITE: case OP_CONSTANT_NULL:
        case OP_FUNCTION: case OP_VARIABLE:
            if (wc < 3 || !(d = id_at(r, in[2])))
                return fail(r, "instruction at word %zu has a bad result id", i);
            break;
        default:
            break;
        }
        if (d) {
            d->op = op;
            d->first = (uint32_t)i;
        }
        switch (op) {
        case OP_TYPE_BOOL: d->size = 1; break;
        case OP_TYPE_INT: case OP_TYPE_FLOAT: d->size = wc > 2 ? in[2] / 8 : 0; break;
        case OP_TYPE_VECTOR: {
            uint32_t cnt = wc > 3 ? in[3] : 0;
            d->size = type_size(r, wc > 2 ? in[2] : 0) * (cnt == 3 ? 4 : cnt);
            break;
        }
        case OP_TYPE_ARRAY: {
            id_info *len = id_at(r, wc > 3 ? in[3] : 0);
            uint64_t n = 0;
            if (len && len->op == OP_CONSTANT && (r->w[len->first] >> 16) > 3) {
                const uint32_t *lin = r->w + len->first;
                n = lin[3];
                if ((lin[0] >> 16) > 4)
                    n |= (uint64_t)lin[4] << 32;
            }
            d->size = n < (1ull << 32) ? type_size(r, wc > 2 ? in[2] : 0) * n : 0;
            break;
        }
        case OP_TYPE_STRUCT: {
            uint64_t off = 0;
            for (uint32_t m = 2; m < wc; m++) {
                uint64_t ms = type_size(r, in[m]);
                uint64_t al = ms > 8 ? 8 : (ms ? ms : 1);
                off = (off + al - 1) / al * al + ms;
            }
            d->size = (off + 7) / 8 * 8;
            break;
        }
        case OP_TYPE_POINTER:
            d->size = 8;
            d->storage = wc > 2 ? in[2] : 0;
            d->pointee = wc > 3 ? in[3] : 0;
            break;
        case OP_FUNCTION:
            d->fn_type = wc > 4 ? in[4] : 0;
            break;
        case OP_VARIABLE:
            d->pointee = in[1];
            d->storage = wc > 3 ? in[3] : 0;
            break;
        case OP_DECORATE: {
            id_info *t = id_at(r, wc > 1 ? in[1] : 0);
            if (!t || wc < 3)
                break;
            if (in[2] == DEC_BUILTIN) {
                t->builtin = 1;
            } else if (in[2] == DEC_LINKAGE) {
                size_t next;
                const char *name = lit_string(r, i + 3, i + wc, &next);
                if (!name || next >= i + wc)
                    return fail(r, "LinkageAttributes at word %zu is malformed", i);
                t->link_name = name;
                t->linkage = r->w[next] == 0 ? 1 : 2;
            } else if (in[2] == DEC_HOST_ACCESS_INTEL) {
                /* HostAccessINTEL <access> "<name>" (SPV_INTEL_global_variable_decorations) */
                const char *name = lit_string(r, i + 4, i + wc, NULL);
                if (!name)
                    return fail(r, "HostAccessINTEL at word %zu is malformed", i);
                t->host_name = name;
            }
            break;
        }
        default:
            break;
        }
        i += wc;
    }
    return 0;
}

static int push_str(char ***arr, uint32_t *n, const char *s)
{
    char **na = realloc(*arr, (*n + 1) * sizeof(**arr));
    if (!na)
        return -1;
    *arr = na;
    if (!(na[*n] = dup_str(s)))
        return -1;
    (*n)++;
    return 0;
}

/* Pass 2: entry points, linkage and exported variables. */
static int collect(reader *r, ztd_module_info *out)
{
    for (uint32_t id = 1; id < r->bound; id++) {
        id_info *d = &r->ids[id];
        if (!d->linkage || d->builtin)
            continue;
        if (d->linkage == 2) {
            if (push_str(&out->imports, &out->num_imports, d->link_name))
                return fail(r, "out of memory");
            if (d->op == OP_VARIABLE) {
                id_info *pt = id_at(r, d->pointee);
                ztd_global_info *nv = realloc(out->import_vars,
                                              (out->num_import_vars + 1) * sizeof(*nv));
                if (!nv)
                    return fail(r, "out of memory");
                out->import_vars = nv;
                ztd_global_info *v = &nv[out->num_import_vars];
                memset(v, 0, sizeof(*v));
                v->size = pt ? type_size(r, pt->pointee) : 0;
                v->name = dup_str(d->link_name);
                v->host_name = d->host_name ? dup_str(d->host_name) : NULL;
                if (!v->name || (d->host_name && !v->host_name)) {
                    free(v->name);
                    free(v->host_name);
                    return fail(r, "out of memory");
                }
                out->num_import_vars++;
            }
        } else if (d->op == OP_FUNCTION) {
            if (push_str(&out->func_exports, &out->num_func_exports, d->link_name))
                return fail(r, "out of memory");
        } else if (d->op == OP_VARIABLE &&
                   (d->storage == SC_CROSS_WORKGROUP || d->storage == SC_UNIFORM_CONSTANT)) {
            id_info *pt = id_at(r, d->pointee);
            uint64_t size = pt ? type_size(r, pt->pointee) : 0;
            if (size == 0 || size > (1u << 30))
                return fail(r, "variable '%s' has an unsupported type", d->link_name);
            ztd_global_info *ng = realloc(out->globals, (out->num_globals + 1) * sizeof(*ng));
            if (!ng)
                return fail(r, "out of memory");
            out->globals = ng;
            ztd_global_info *g = &ng[out->num_globals];
            g->size = size;
            g->name = dup_str(d->link_name);
            g->host_name = d->host_name ? dup_str(d->host_name) : NULL;
            g->init = calloc(1, size);
            if (!g->name || !g->init || (d->host_name && !g->host_name)) {
                free(g->name);
                free(g->host_name);
                free(g->init);
                return fail(r, "out of memory");
            }
            out->num_globals++;
            const uint32_t *in = r->w + d->first;
            if ((in[0] >> 16) > 4)
                write_constant(r, in[4], g->init, size, 0);
        }
    }
    for (size_t i = 5; i < r->n; i += r->w[i] >> 16) {
        uint32_t wc = r->w[i] >> 16;
        if ((r->w[i] & 0xffff) != OP_ENTRY_POINT || wc < 4 || r->w[i + 1] != EXEC_KERNEL)
            continue;
        const char *name = lit_string(r, i + 3, i + wc, NULL);
        id_info *fn = id_at(r, r->w[i + 2]);
        if (!name || !fn || fn->op != OP_FUNCTION)
            return fail(r, "OpEntryPoint at word %zu is malformed", i);
        id_info *ft = id_at(r, fn->fn_type);
        if (!ft || ft->op != OP_TYPE_FUNCTION || (r->w[ft->first] >> 16) < 3)
            return fail(r, "entry point '%s' has no function type", name);
        const uint32_t *tin = r->w + ft->first;
        uint32_t np = (tin[0] >> 16) - 3;
        ztd_kernel_info *nk = realloc(out->kernels, (out->num_kernels + 1) * sizeof(*nk));
        if (!nk)
            return fail(r, "out of memory");
        out->kernels = nk;
        ztd_kernel_info *k = &nk[out->num_kernels];
        k->name = dup_str(name);
        k->num_params = np;
        k->params = calloc(np ? np : 1, sizeof(*k->params));
        if (!k->name || !k->params) {
            free(k->name);
            free(k->params);
            return fail(r, "out of memory");
        }
        out->num_kernels++;
        for (uint32_t p = 0; p < np; p++) {
            id_info *pt = id_at(r, tin[3 + p]);
            if (pt && pt->op == OP_TYPE_POINTER && pt->storage == SC_WORKGROUP)
                k->params[p].local = 1;
            k->params[p].size = (uint32_t)type_size(r, tin[3 + p]);
        }
    }
    return 0;
}

int ztd_spirv_parse(const void *data, size_t size, ztd_module_info *out, char *err,
                    size_t err_size)
{
    reader r = {.w = data, .n = size / 4, .err = err, .err_size = err_size};
    memset(out, 0, sizeof(*out));
    if (!data || size < 20 || size % 4)
        return fail(&r, "not a SPIR-V module: %zu bytes", size);
    if (r.w[0] != 0x07230203u)
        return fail(&r, "not a SPIR-V module: magic 0x%08x", r.w[0]);
    r.bound = r.w[3];
    if (r.bound == 0 || r.bound > MAX_BOUND)
        return fail(&r, "SPIR-V id bound %u out of range", r.bound);
    r.ids = calloc(r.bound, sizeof(*r.ids));
    if (!r.ids)
        return fail(&r, "out of memory");
    int rc = scan(&r);
    if (rc == 0)
        rc = collect(&r, out);
    free(r.ids);
    if (rc)
        ztd_module_info_free(out);
    return rc;
}

void ztd_module_info_free(ztd_module_info *info)
{
    for (uint32_t i = 0; i < info->num_kernels; i++) {
        free(info->kernels[i].name);
        free(info->kernels[i].params);
    }
    for (uint32_t i = 0; i < info->num_globals; i++) {
        free(info->globals[i].name);
        free(info->globals[i].host_name);
        free(info->globals[i].init);
    }
    for (uint32_t i = 0; i < info->num_import_vars; i++) {
        free(info->import_vars[i].name);
        free(info->import_vars[i].host_name);
    }
    free(info->import_vars);
    for (uint32_t i = 0; i < info->num_func_exports; i++)
        free(info->func_exports[i]);
    for (uint32_t i = 0; i < info->num_imports; i++)
        free(info->imports[i]);
    free(info->kernels);
    free(info->globals);
    free(info->func_exports);
    free(info->imports);
    memset(info, 0, sizeof(*info));
}
