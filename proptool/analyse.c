/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* analyse.c: what the runtime needs from a module: kernels and signatures,
 * device globals, aspects, virtual-function sets, symbols, if_device marks. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/types.h>
#include <spirv/unified1/spirv.h>

#include "proptool.h"

/* SPV_INTEL_global_variable_host_access (the standard numbers) and the
 * older SPV_INTEL_global_variable_decorations DPC++'s sycl-post-link
 * emits: HostAccessINTEL is (access, name) in both, with different access
 * encodings (see host_access_of). */
#define SXP_DECORATION_HOST_ACCESS_INTEL 6188u
#define SXP_DECORATION_HOST_ACCESS_INTEL_LEGACY 6147u
#define SXP_DECORATION_INIT_MODE_INTEL_LEGACY 6148u
#define SXP_DECORATION_IMPLEMENT_IN_CSR_INTEL 6149u
#define SXP_DECORATION_INIT_MODE_INTEL 6190u
#define SXP_DECORATION_IMPLEMENT_IN_REGISTER_MAP_INTEL 6191u
#define FREE_FUNCTION_PREFIX "__sycl_kernel_"
#define MAX_DEPTH 64
#define MAX_LEAVES 4096
/* DPC++'s name of the default ("void") virtual-function set. */
#define DEFAULT_VF_SET "_ZTSv"

typedef struct layout {
    uint32_t size, align;
    sxp_member *leaves;
    uint32_t nleaves;
    size_t cap;
} layout;

/* Bounds on the work one layout may take: hostile modules can nest types
 * in cycles or wide trees. */
#define MAX_VISITS 100000
static unsigned layout_visits;
static uint8_t *layout_busy;  /* per id: being laid out (a cycle if met again) */

static const sxp_inst *type_inst(const sxp_module *m, uint32_t id)
{
    return sxp_module_def(m, id);
}

static uint32_t word(const sxp_module *m, const sxp_inst *in, uint32_t k)
{
    return k < in->wc ? m->words[in->off + k] : 0;
}

static bool has_decor(const sxp_module *m, uint32_t id, uint32_t dec)
{
    uint32_t it = 0;
    return sxp_module_decor(m, id, dec, &it) != NULL;
}

static uint32_t ptr_size(const sxp_module *m)
{
    return m->addressing == SpvAddressingModelPhysical32 ? 4 : 8;
}

static void add_leaf(layout *l, uint32_t scalar, uint64_t offset)
{
    if (l->nleaves >= MAX_LEAVES)
        return;
    sxp_grow(&l->leaves, &l->cap, l->nleaves, sizeof *l->leaves);
    l->leaves[l->nleaves++] = (sxp_member){scalar, (uint32_t)offset};
}

static uint32_t int_scalar(uint32_t width, bool is_signed)
{
    switch (width) {
    case 8: return is_signed ? SX_SCALAR_I8 : SX_SCALAR_U8;
    case 16: return is_signed ? SX_SCALAR_I16 : SX_SCALAR_U16;
    case 32: return is_signed ? SX_SCALAR_I32 : SX_SCALAR_U32;
    case 64: return is_signed ? SX_SCALAR_I64 : SX_SCALAR_U64;
    default: return SXP_NONE;
    }
}

/* Size, alignment and scalar leaves (at `base`) of a type, with OpenCL C's
 * layout rules (natural alignment, 3-vectors as 4, CPacked structs packed). */
static bool type_layout_in(const sxp_module *m, const sxp_inst *in, uint32_t id, uint64_t base, int depth,
                           layout *l, uint32_t *scalar_out, bool is_signed);

static bool type_layout(const sxp_module *m, uint32_t id, uint64_t base, int depth, layout *l, uint32_t *scalar_out,
                        bool is_signed)
{
    const sxp_inst *in = type_inst(m, id);
    if (!in) {
        sxp_error(m->path, SXP_NONE, "type %%%u is not defined", id);
        return false;
    }
    if (depth > MAX_DEPTH) {
        sxp_error(m->path, in->off, "type %%%u nests deeper than %d levels", id, MAX_DEPTH);
        return false;
    }
    if (depth == 0)
        layout_visits = 0;
    if (++layout_visits > MAX_VISITS) {
        sxp_error(m->path, in->off, "type %%%u is too complex to lay out", id);
        return false;
    }
    if (!layout_busy)
        layout_busy = sxp_xcalloc(m->nids, 1);
    if (layout_busy[id]) {
        sxp_error(m->path, in->off, "type %%%u contains itself", id);
        return false;
    }
    layout_busy[id] = 1;
    bool ok = type_layout_in(m, in, id, base, depth, l, scalar_out, is_signed);
    layout_busy[id] = 0;
    if (depth == 0) {
        free(layout_busy);
        layout_busy = NULL;
    }
    return ok;
}

static bool type_layout_in(const sxp_module *m, const sxp_inst *in, uint32_t id, uint64_t base, int depth,
                           layout *l, uint32_t *scalar_out, bool is_signed)
{
    uint32_t sc = SXP_NONE;
    switch (in->op) {
    case SpvOpTypeInt:
        sc = int_scalar(word(m, in, 2), is_signed);
        if (sc == SXP_NONE) {
            sxp_error(m->path, in->off, "OpTypeInt of width %u is not a kernel scalar", word(m, in, 2));
            return false;
        }
        break;
    case SpvOpTypeFloat:
        sc = word(m, in, 2) == 16 ? SX_SCALAR_F16 : word(m, in, 2) == 32 ? SX_SCALAR_F32
           : word(m, in, 2) == 64 ? SX_SCALAR_F64 : SXP_NONE;
        if (sc == SXP_NONE) {
            sxp_error(m->path, in->off, "OpTypeFloat of width %u is not a kernel scalar", word(m, in, 2));
            return false;
        }
        break;
    case SpvOpTypeBool:
        sc = SX_SCALAR_U8;
        break;
    case SpvOpTypePointer:
        l->size = l->align = ptr_size(m);
        add_leaf(l, SX_SCALAR_PTR, base);
        if (scalar_out)
            *scalar_out = SX_SCALAR_PTR;
        return true;
    case SpvOpTypeVector: {
        uint32_t n = word(m, in, 3);
        layout e = {0};
        if (n < 2 || n > 16) {
            sxp_error(m->path, in->off, "OpTypeVector of %u components", n);
            return false;
        }
        if (!type_layout(m, word(m, in, 2), 0, depth + 1, &e, scalar_out, is_signed)) {
            free(e.leaves);
            return false;
        }
        uint32_t slots = n == 3 ? 4 : n;
        for (uint32_t i = 0; i < n; i++)
            add_leaf(l, e.nleaves ? e.leaves[0].scalar : SX_SCALAR_NONE, base + (uint64_t)i * e.size);
        l->size = l->align = slots * e.size;
        free(e.leaves);
        return true;
    }
    case SpvOpTypeArray: {
        const sxp_inst *len = type_inst(m, word(m, in, 3));
        if (!len || len->op != SpvOpConstant || len->wc < 4) {
            sxp_error(m->path, in->off, "OpTypeArray %%%u: length is not an OpConstant", id);
            return false;
        }
        uint64_t n = word(m, len, 3) | (len->wc > 4 ? (uint64_t)word(m, len, 4) << 32 : 0);
        layout e = {0};
        if (!type_layout(m, word(m, in, 2), 0, depth + 1, &e, NULL, is_signed)) {
            free(e.leaves);
            return false;
        }
        uint64_t total = n * e.size;
        if (e.size && (total / e.size != n || total > UINT32_MAX)) {
            sxp_error(m->path, in->off, "OpTypeArray %%%u: size overflows", id);
            free(e.leaves);
            return false;
        }
        for (uint64_t i = 0; e.nleaves && i < n && l->nleaves < MAX_LEAVES; i++)
            for (uint32_t j = 0; j < e.nleaves; j++)
                add_leaf(l, e.leaves[j].scalar, base + i * e.size + e.leaves[j].offset);
        l->size = (uint32_t)total;
        l->align = e.align ? e.align : 1;
        free(e.leaves);
        return true;
    }
    case SpvOpTypeStruct: {
        bool packed = has_decor(m, id, SpvDecorationCPacked);
        uint64_t off = 0;
        uint32_t align = 1;
        for (uint32_t k = 2; k < in->wc; k++) {
            layout e = {0};
            /* Members: C's plain types, signed (x86-64 char is signed). */
            if (!type_layout(m, word(m, in, k), 0, depth + 1, &e, NULL, true)) {
                free(e.leaves);
                return false;
            }
            uint32_t a = packed ? 1 : (e.align ? e.align : 1);
            off = (off + a - 1) / a * a;
            for (uint32_t j = 0; j < e.nleaves; j++)
                add_leaf(l, e.leaves[j].scalar, base + off + e.leaves[j].offset);
            off += e.size;
            if (a > align)
                align = a;
            free(e.leaves);
            if (off > UINT32_MAX) {
                sxp_error(m->path, in->off, "OpTypeStruct %%%u: size overflows", id);
                return false;
            }
        }
        off = (off + align - 1) / align * align;
        l->size = (uint32_t)off;
        l->align = align;
        return true;
    }
    default:
        sxp_error(m->path, in->off, "%%%u (%s) has no memory layout proptool knows", id, sxp_op_name(in->op));
        return false;
    }
    l->size = l->align = sxp_scalar_size(sc) ? sxp_scalar_size(sc) : 1;
    if (in->op == SpvOpTypeBool)
        l->size = l->align = 1;
    add_leaf(l, sc, base);
    if (scalar_out)
        *scalar_out = sc;
    return true;
}

static bool param_attr(const sxp_module *m, uint32_t id, uint32_t attr)
{
    uint32_t it = 0;
    const sxp_decor *d;
    while ((d = sxp_module_decor(m, id, SpvDecorationFuncParamAttr, &it)))
        if (m->words[d->lit] == attr)
            return true;
    return false;
}

static uint32_t storage_to_as(uint32_t sc)
{
    switch (sc) {
    case SpvStorageClassCrossWorkgroup: return SX_ADDRESS_SPACE_GLOBAL;
    case SpvStorageClassUniformConstant: return SX_ADDRESS_SPACE_CONSTANT;
    case SpvStorageClassWorkgroup: return SX_ADDRESS_SPACE_LOCAL;
    case SpvStorageClassGeneric: return SX_ADDRESS_SPACE_GENERIC;
    default: return SX_ADDRESS_SPACE_PRIVATE;
    }
}

/* One backend parameter of a kernel from its OpFunctionParameter. */
static bool param_record(const sxp_module *m, const char *kname, uint32_t pid, uint32_t alt_pid, uint32_t index,
                         sxp_param *p)
{
    const sxp_inst *pin = sxp_module_def(m, pid);
    uint32_t tid = word(m, pin, 1);
    const sxp_inst *t = type_inst(m, tid);
    memset(p, 0, sizeof *p);
    p->source_index = index;
    if (!t) {
        sxp_error(m->path, pin->off, "kernel '%s' parameter %u: type %%%u is not defined", kname, index, tid);
        return false;
    }
    bool byval = param_attr(m, pid, SpvFunctionParameterAttributeByVal) ||
                 (alt_pid && param_attr(m, alt_pid, SpvFunctionParameterAttributeByVal));
    bool sext = param_attr(m, pid, SpvFunctionParameterAttributeSext) ||
                (alt_pid && param_attr(m, alt_pid, SpvFunctionParameterAttributeSext));
    bool zext = param_attr(m, pid, SpvFunctionParameterAttributeZext) ||
                (alt_pid && param_attr(m, alt_pid, SpvFunctionParameterAttributeZext));
    if (t->op == SpvOpTypePointer && !byval) {
        uint32_t as = storage_to_as(word(m, t, 2));
        p->kind = as == SX_ADDRESS_SPACE_LOCAL ? SX_PARAM_LOCAL : SX_PARAM_POINTER;
        p->size = p->align = ptr_size(m);
        p->address_space = as;
        return true;
    }
    uint32_t vt = tid;
    if (byval) {
        if (t->op != SpvOpTypePointer) {
            sxp_error(m->path, pin->off, "kernel '%s' parameter %u is ByVal but not a pointer", kname, index);
            return false;
        }
        vt = word(m, t, 3);
    }
    const sxp_inst *v = type_inst(m, vt);
    layout l = {0};
    uint32_t scalar = SX_SCALAR_NONE;
    /* Without an extension attribute, a 32/64-bit integer is taken as
     * signed (C's int/long); narrower ones follow Sext/Zext. */
    bool is_signed = sext || (!zext && v && v->op == SpvOpTypeInt && word(m, v, 2) >= 32);
    if (!type_layout(m, vt, 0, 0, &l, &scalar, is_signed)) {
        sxp_error(m->path, pin->off, "kernel '%s' parameter %u: unsupported type", kname, index);
        free(l.leaves);
        return false;
    }
    if (l.nleaves >= MAX_LEAVES) {
        sxp_error(m->path, pin->off, "kernel '%s' parameter %u has more than %d scalar members", kname, index,
                  MAX_LEAVES);
        free(l.leaves);
        return false;
    }
    p->size = l.size;
    p->align = l.align;
    if (byval || (v && (v->op == SpvOpTypeStruct || v->op == SpvOpTypeArray))) {
        uint32_t it = 0;
        const sxp_decor *al = sxp_module_decor(m, pid, SpvDecorationAlignment, &it);
        p->kind = SX_PARAM_STRUCT;
        p->scalar = SX_SCALAR_NONE;
        p->address_space = SX_ADDRESS_SPACE_PRIVATE;
        if (al && m->words[al->lit] > p->align && m->words[al->lit] <= 4096)
            p->align = m->words[al->lit];
        p->nmembers = l.nleaves;
        p->members = l.leaves;
        return true;
    }
    /* A scalar or a vector: a vector is a VALUE whose size is a multiple
     * of its element scalar. */
    p->kind = SX_PARAM_VALUE;
    p->scalar = l.nleaves ? l.leaves[0].scalar : scalar;
    free(l.leaves);
    return true;
}

/* ----------------------------------------------------------- small lists */

static void list_add_unique(char ***list, uint32_t *n, const char *s)
{
    for (uint32_t i = 0; i < *n; i++)
        if (!strcmp((*list)[i], s))
            return;
    *list = sxp_xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = sxp_xstrdup(s);
}

static void list_add_csv(char ***list, uint32_t *n, const char *csv)
{
    const char *p = csv;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        while (len && *p == ' ')
            p++, len--;
        while (len && p[len - 1] == ' ')
            len--;
        if (len) {
            char *s = sxp_xstrndup(p, len);
            list_add_unique(list, n, s);
            free(s);
        }
        p = c ? c + 1 : p + strlen(p);
    }
}

static void list_free(char **list, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

static void aspect_add(sxp_analysis *a, uint32_t asp)
{
    for (uint32_t i = 0; i < a->naspects; i++)
        if (a->aspects[i] == asp)
            return;
    a->aspects = sxp_xrealloc(a->aspects, (a->naspects + 1) * sizeof *a->aspects);
    a->aspects[a->naspects++] = asp;
}

static bool bool_value(const sxp_module *m, const sxp_annot *an, bool *out)
{
    if (!an->value || !strcmp(an->value, "true") || !strcmp(an->value, "1")) {
        *out = true;
        return true;
    }
    if (!strcmp(an->value, "false") || !strcmp(an->value, "0")) {
        *out = false;
        return true;
    }
    sxp_error(m->path, an->word, "'%s' takes no value, true/false or 1/0, not '%s'", an->key, an->value);
    return false;
}

static bool parse_u32(const char *s, uint32_t *v)
{
    char *end;
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (*end || errno || x > UINT32_MAX)
        return false;
    *v = (uint32_t)x;
    return true;
}

/* -------------------------------------------------------------- analysis */

/* The function that carries a kernel's annotations: the entry function
 * itself, or the real function an llvm-spirv wrapper entry point calls. */
uint32_t sxp_kernel_body_fn(const sxp_module *m, const sxp_entry *e)
{
    const sxp_function *f = &m->fns[m->fn_of_id[e->fn]];
    if (m->nannots[e->fn] || f->ncallees != 1)
        return e->fn;
    uint32_t callee = f->callees[0];
    const char *lname = NULL;
    const char *nm = sxp_module_name(m, callee);
    sxp_module_linkage(m, callee, &lname, NULL);
    if ((nm && !strcmp(nm, e->name)) || (lname && !strcmp(lname, e->name)))
        return callee;
    return e->fn;
}

static bool is_kernel_fn(const sxp_module *m, uint32_t id, const uint32_t *kfns, uint32_t nk)
{
    for (uint32_t i = 0; i < nk; i++)
        if (kfns[i] == id)
            return true;
    (void)m;
    return false;
}

/* The work-group scratch argument (get_work_group_scratch_memory): the
 * kernel's `sycl-work-group-scratch` key (a parameter index; no value: the
 * last parameter) or the "SYCL/implicit local arg" of the .prop given with
 * the module. It must be a local pointer; it belongs to no source
 * parameter, and the runtime passes it the launch's scratch size. */
static bool scratch_param(const sxp_module *m, const sxp_options *opt, const sxp_entry *e, uint32_t body,
                          sxp_kernel *k)
{
    const sxp_annot *an = sxp_module_annot(m, body, "sycl-work-group-scratch");
    const sxp_propset *ps = opt && opt->prop ? sxp_image_find_set(opt->prop, SX_PROP_SET_IMPLICIT_LOCAL_ARG) : NULL;
    const sxp_prop *pp = ps ? sxp_set_find(ps, e->name) : NULL;
    uint32_t idx = SXP_NONE, from_prop = SXP_NONE;
    if (an) {
        if (!an->value || !*an->value) {
            if (!k->nparams) {
                sxp_error(m->path, an->word, "kernel '%s': sycl-work-group-scratch names its last parameter, but it "
                          "has none", e->name);
                return false;
            }
            idx = k->nparams - 1;
        } else if (!parse_u32(an->value, &idx)) {
            sxp_error(m->path, an->word, "kernel '%s': sycl-work-group-scratch takes a parameter index, not '%s'",
                      e->name, an->value);
            return false;
        }
    }
    if (pp) {
        if (pp->type != SX_PROPERTY_TYPE_UINT32) {
            sxp_error(m->path, SXP_NONE, "kernel '%s': the .prop's \"%s\" is not a UINT32", e->name,
                      SX_PROP_SET_IMPLICIT_LOCAL_ARG);
            return false;
        }
        from_prop = (uint32_t)pp->u32;
        if (idx != SXP_NONE && idx != from_prop) {
            sxp_error(m->path, an->word, "kernel '%s': sycl-work-group-scratch names parameter %u, the .prop's \"%s\" "
                      "parameter %u", e->name, idx, SX_PROP_SET_IMPLICIT_LOCAL_ARG, from_prop);
            return false;
        }
        idx = from_prop;
    }
    if (idx == SXP_NONE)
        return true;
    const char *who = an ? "sycl-work-group-scratch" : "the .prop's \"" SX_PROP_SET_IMPLICIT_LOCAL_ARG "\"";
    if (idx >= k->nparams) {
        sxp_error(m->path, an ? an->word : SXP_NONE, "kernel '%s': %s names parameter %u, but it has %u", e->name,
                  who, idx, k->nparams);
        return false;
    }
    if (k->params[idx].kind != SX_PARAM_LOCAL) {
        sxp_error(m->path, an ? an->word : SXP_NONE, "kernel '%s': %s names parameter %u, which is not a local "
                  "(Workgroup) pointer: the scratch argument must be one", e->name, who, idx);
        return false;
    }
    k->params[idx].source_index = SX_SOURCE_INDEX_NONE;
    for (uint32_t i = idx + 1; i < k->nparams; i++)
        k->params[i].source_index--;
    k->num_source_params--;
    k->scratch_param = idx;
    k->has_scratch = true;
    return true;
}

static bool analyse_kernel(sxp_module *m, const sxp_options *opt, const sxp_entry *e, uint32_t body, sxp_analysis *a,
                           sxp_kernel *k)
{
    const sxp_function *f = &m->fns[m->fn_of_id[e->fn]];
    const sxp_function *bf = &m->fns[m->fn_of_id[body]];
    bool ok = true;
    memset(k, 0, sizeof *k);
    k->name = sxp_xstrdup(e->name);
    k->kind = SX_KERNEL_KIND_PLAIN;
    const sxp_annot *nd = sxp_module_annot(m, body, "sycl-nd-range-kernel");
    const sxp_annot *st = sxp_module_annot(m, body, "sycl-single-task-kernel");
    if (nd && st) {
        sxp_error(m->path, st->word, "kernel '%s': conflicting keys sycl-nd-range-kernel and sycl-single-task-kernel",
                  e->name);
        ok = false;
    } else if (nd) {
        uint32_t dims = 0;
        if (!parse_u32(nd->value, &dims) || dims < 1 || dims > 3) {
            sxp_error(m->path, nd->word, "kernel '%s': sycl-nd-range-kernel needs dimensions 1, 2 or 3, not '%s'",
                      e->name, nd->value ? nd->value : "(none)");
            ok = false;
        }
        k->kind = SX_KERNEL_KIND_ND_RANGE;
        k->dims = dims;
    } else if (st) {
        /* DPC++'s headers write "sycl-single-task-kernel"="0": the value
         * is unused, the key's presence makes the kernel single_task. */
        k->kind = SX_KERNEL_KIND_SINGLE_TASK;
    }
    bool prefixed = sxp_free_function_name(e->name);
    if (k->kind != SX_KERNEL_KIND_PLAIN && !prefixed)
        sxp_warn(m->path, e->word, "kernel '%s' is a free-function kernel but lacks the '%s' prefix", e->name,
                 FREE_FUNCTION_PREFIX);
    if (k->kind == SX_KERNEL_KIND_PLAIN && prefixed)
        sxp_warn(m->path, e->word, "kernel '%s' has the free-function prefix but neither sycl-nd-range-kernel nor "
                 "sycl-single-task-kernel; recorded as a plain kernel", e->name);

    k->nparams = f->nparams;
    k->num_source_params = f->nparams;
    k->params = sxp_xcalloc(f->nparams, sizeof *k->params);
    for (uint32_t i = 0; i < f->nparams && ok; i++) {
        uint32_t alt = bf != f && i < bf->nparams ? bf->params[i] : 0;
        if (!param_record(m, e->name, f->params[i], alt, i, &k->params[i]))
            ok = false;
    }
    if (ok && !scratch_param(m, opt, e, body, k))
        ok = false;
    /* Keys that only make sense on kernels, put on a kernel. */
    const sxp_annot *an;
    /* Without a value: the default set, as for indirectly-callable
     * (DPC++'s calls_indirectly<> names the void set). */
    if ((an = sxp_module_annot(m, body, "calls-indirectly")))
        list_add_csv(&a->vf_called_sets, &a->nvf_called, an->value && *an->value ? an->value : DEFAULT_VF_SET);
    if ((an = sxp_module_annot(m, body, "creates-indirectly")))
        list_add_csv(&a->vf_created_sets, &a->nvf_created, an->value && *an->value ? an->value : DEFAULT_VF_SET);
    /* reqd_work_group_size from OpExecutionMode LocalSize. */
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op == SpvOpExecutionMode && in->wc >= 6 && word(m, in, 1) == e->fn &&
            word(m, in, 2) == SpvExecutionModeLocalSize) {
            k->has_reqd_wg = true;
            k->reqd_wg_dims = 3;
            for (int d = 0; d < 3; d++)
                k->reqd_wg[d] = word(m, in, 3 + (uint32_t)d);
        }
        if (in->op == SpvOpExecutionMode && in->wc >= 4 && word(m, in, 1) == e->fn &&
            word(m, in, 2) == SpvExecutionModeSubgroupSize)
            k->reqd_sg = word(m, in, 3);  /* intel_reqd_sub_group_size */
    }
    /* DPC++'s sycl-work-group-size (SYCL order, slowest dimension first):
     * how many values the source gave, which LocalSize (always three)
     * cannot say; written reversed, as sycl-post-link does. */
    if ((an = sxp_module_annot(m, body, "sycl-work-group-size"))) {
        uint32_t v[3] = {1, 1, 1}, n = 0;
        const char *p = an->value ? an->value : "";
        bool good = *p != 0;
        while (good && *p) {
            char *end;
            unsigned long x = strtoul(p, &end, 10);
            good = end != p && x > 0 && x <= UINT32_MAX && n < 3 && (*end == ',' || !*end);
            if (good)
                v[n++] = (uint32_t)x;
            p = *end ? end + 1 : end;
        }
        if (!good || !n) {
            sxp_error(m->path, an->word, "kernel '%s': sycl-work-group-size needs 1 to 3 positive numbers, not '%s'",
                      e->name, an->value ? an->value : "(none)");
            return false;
        }
        uint32_t wg[3] = {1, 1, 1};
        for (uint32_t d = 0; d < n; d++)
            wg[d] = v[n - 1 - d];
        if (k->has_reqd_wg && memcmp(wg, k->reqd_wg, sizeof wg)) {
            sxp_error(m->path, an->word, "kernel '%s': sycl-work-group-size '%s' disagrees with LocalSize %u %u %u",
                      e->name, an->value, k->reqd_wg[0], k->reqd_wg[1], k->reqd_wg[2]);
            return false;
        }
        memcpy(k->reqd_wg, wg, sizeof wg);
        k->has_reqd_wg = true;
        k->reqd_wg_dims = n;
    }
    return ok;
}

/* HostAccessINTEL's access operand in "SX/host access" order (DPC++'s
 * host_access_enum: 0 read, 1 write, 2 read_write, 3 none). The legacy
 * decoration 6147 carries that enum as is (sycl-post-link writes the
 * sycl-host-access value, default 2); the standard 6188 uses
 * HostAccessQualifier: 0 none, 1 read, 2 write, 3 read_write. */
static uint32_t host_access_of(uint32_t decoration, uint32_t access)
{
    static const uint32_t from_standard[4] = {3, 0, 1, 2};
    if (access > 3)
        return SXP_NONE;
    return decoration == SXP_DECORATION_HOST_ACCESS_INTEL ? from_standard[access] : access;
}

/* The one HostAccessINTEL of a variable, either number; NULL if none. */
static const sxp_decor *host_access_decor(const sxp_module *m, uint32_t var)
{
    uint32_t it = 0;
    const sxp_decor *d = sxp_module_decor(m, var, SXP_DECORATION_HOST_ACCESS_INTEL, &it);
    if (d)
        return d;
    it = 0;
    return sxp_module_decor(m, var, SXP_DECORATION_HOST_ACCESS_INTEL_LEGACY, &it);
}

/* A device global's entry in the DPC++ .prop given with the module
 * (--table or --prop): size and device_image_scope; false if none. */
static bool prop_global(const sxp_options *opt, const char *uid, uint32_t *size, bool *scope)
{
    const sxp_propset *s = opt && opt->prop && uid ? sxp_image_find_set(opt->prop, SX_PROP_SET_DEVICE_GLOBALS) : NULL;
    const sxp_prop *p = s ? sxp_set_find(s, uid) : NULL;
    if (!p || p->type != SX_PROPERTY_TYPE_BYTE_ARRAY || p->size < 8 + 5)
        return false;
    const uint8_t *v = p->bytes + 8;
    *size = (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24;
    *scope = v[4] != 0;
    return true;
}

/* The type T a variable that is not device_image_scope points to: its
 * own type is a pointer, or a struct whose first member is one (DPC++'s
 * device_global<T> is { T addrspace(4)* }). 0 if neither. */
static uint32_t usm_pointee(const sxp_module *m, const sxp_inst *vti)
{
    if (vti && vti->op == SpvOpTypeStruct && vti->wc > 2)
        vti = type_inst(m, word(m, vti, 2));
    return vti && vti->op == SpvOpTypePointer ? word(m, vti, 3) : 0;
}

static bool analyse_global(sxp_module *m, const sxp_options *opt, uint32_t var, const sxp_inst *vin, sxp_analysis *a)
{
    const sxp_annot *uid = sxp_module_annot(m, var, "sycl-unique-id");
    const sxp_annot *sz = sxp_module_annot(m, var, "sycl-device-global-size");
    const sxp_annot *scope = sxp_module_annot(m, var, "device_image_scope");
    const sxp_annot *scope2 = sxp_module_annot(m, var, "sycl-device-image-scope");
    const sxp_annot *ha = sxp_module_annot(m, var, "host_access");
    const sxp_annot *ha2 = sxp_module_annot(m, var, "sycl-host-access");
    const sxp_decor *hai = host_access_decor(m, var);
    const char *hai_name = hai ? sxp_module_string(m, hai->lit + 1) : NULL;
    uint32_t prop_size = 0;
    bool prop_scope = false;
    bool in_prop = prop_global(opt, uid && uid->value ? uid->value : hai_name, &prop_size, &prop_scope);

    const char *lname = NULL;
    uint32_t ltype = SXP_NONE;
    sxp_module_linkage(m, var, &lname, &ltype);
    const char *oname = sxp_module_name(m, var);
    const char *shown = lname ? lname : oname ? oname : "(unnamed)";
    /* DPC++'s rule: a device global is a variable with
     * sycl-device-global-size. Its SPIR-V has no such attribute, so the
     * marks sycl-post-link leaves count too: HostAccessINTEL, which it puts
     * on device globals only, and an entry in the image's .prop. */
    if (!sz && !hai && !in_prop) {
        if (uid || scope || scope2 || ha || ha2)
            sxp_warn(m->path, vin->off,
                     "variable '%s' has device-global keys but no sycl-device-global-size or HostAccessINTEL: not a "
                     "device global (DPC++'s rule)", shown);
        return true;  /* an ordinary program-scope variable */
    }
    if (ltype == SpvLinkageTypeImport)
        return true;  /* declared here, defined (and recorded) where it is exported */
    bool ok = true;
    sxp_global g = {0};
    g.var = var;
    g.word = vin->off;
    g.symbol = lname ? sxp_xstrdup(lname) : oname ? sxp_xstrdup(oname) : NULL;

    if (uid && (!uid->value || !*uid->value)) {
        sxp_error(m->path, uid->word, "device global '%s': sycl-unique-id needs a value", shown);
        ok = false;
    } else if (uid && hai_name && strcmp(uid->value, hai_name)) {
        sxp_error(m->path, uid->word, "device global '%s': sycl-unique-id '%s' conflicts with HostAccessINTEL name '%s'",
                  shown, uid->value, hai_name);
        ok = false;
    }
    if (uid && uid->value && *uid->value)
        g.uid = sxp_xstrdup(uid->value);
    else if (hai_name && *hai_name)
        g.uid = sxp_xstrdup(hai_name);
    else if (lname || oname) {
        sxp_warn(m->path, vin->off, "device global '%s' has no sycl-unique-id; using its name as the id", shown);
        g.uid = sxp_xstrdup(shown);
    } else {
        sxp_error(m->path, vin->off, "device global %%%u has no sycl-unique-id and no name", var);
        ok = false;
    }

    bool sc1 = false, sc2 = false;
    if (scope && !bool_value(m, scope, &sc1))
        ok = false;
    if (scope2 && !bool_value(m, scope2, &sc2))
        ok = false;
    if (scope && scope2 && sc1 != sc2) {
        sxp_error(m->path, scope2->word, "device global '%s': conflicting device_image_scope and sycl-device-image-scope",
                  shown);
        ok = false;
    }
    g.image_scope = sc1 || sc2;
    if (!scope && !scope2 && !sz && !in_prop) {
        /* Only HostAccessINTEL says it is a device global (sycl-post-link's
         * SPIR-V as it is): the type tells the kind. DPC++ lowers
         * device_global<T> to { T addrspace(4)* } and, with
         * device_image_scope, to { T }. */
        const sxp_inst *t0 = type_inst(m, word(m, vin, 1));
        const sxp_inst *ti = t0 && t0->op == SpvOpTypePointer ? type_inst(m, word(m, t0, 3)) : NULL;
        g.image_scope = !usm_pointee(m, ti);
    }
    if (in_prop) {
        if ((scope || scope2) && g.image_scope != prop_scope) {
            sxp_error(m->path, vin->off, "device global '%s': device_image_scope %d here but %d in the .prop", shown,
                      g.image_scope, prop_scope);
            ok = false;
        }
        g.image_scope = prop_scope;
    }

    g.host_access = 2; /* read_write unless told */
    uint32_t h1 = SXP_NONE, h2 = SXP_NONE, h3 = SXP_NONE;
    if (ha && !sxp_host_access_parse(ha->value ? ha->value : "", &h1)) {
        sxp_error(m->path, ha->word, "device global '%s': host_access must be read, write, read_write or none, not '%s'",
                  shown, ha->value ? ha->value : "(none)");
        ok = false;
    }
    if (ha2 && !sxp_host_access_parse(ha2->value ? ha2->value : "", &h2)) {
        sxp_error(m->path, ha2->word, "device global '%s': sycl-host-access must be 0..3 or a name, not '%s'", shown,
                  ha2->value ? ha2->value : "(none)");
        ok = false;
    }
    if (hai) {
        uint32_t acc = m->words[hai->lit];
        h3 = host_access_of(hai->decoration, acc);
        if (h3 == SXP_NONE) {
            sxp_error(m->path, m->insts[hai->inst].off, "device global '%s': HostAccessINTEL (%u) access %u is not 0..3",
                      shown, hai->decoration, acc);
            ok = false;
        }
    }
    uint32_t hs[3] = {h1, h2, h3};
    uint32_t chosen = SXP_NONE;
    for (int i = 0; i < 3; i++)
        if (hs[i] != SXP_NONE) {
            if (chosen != SXP_NONE && chosen != hs[i]) {
                sxp_error(m->path, vin->off, "device global '%s': conflicting host access %s and %s", shown,
                          sxp_host_access_name(chosen), sxp_host_access_name(hs[i]));
                ok = false;
            }
            chosen = hs[i];
        }
    if (chosen != SXP_NONE)
        g.host_access = chosen;

    /* Size: sycl-device-global-size, else the .prop's, else what the type
     * says: the variable's own type for image scope (it is the storage),
     * the pointee of its USM pointer otherwise. */
    uint32_t keysize = 0;
    /* The key without a value (sycl-ext/device.h writes it so): a device
     * global whose size its type says. */
    if (sz && (!sz->value || !*sz->value))
        sz = NULL;
    else if (sz && (!parse_u32(sz->value, &keysize) || !keysize)) {
        sxp_error(m->path, sz->word, "device global '%s': sycl-device-global-size must be a positive number, not '%s'",
                  shown, sz->value ? sz->value : "(none)");
        ok = false;
        sz = NULL;
    }
    if (in_prop) {
        if (sz && keysize != prop_size) {
            sxp_error(m->path, sz->word, "device global '%s': sycl-device-global-size %u but %u in the .prop", shown,
                      keysize, prop_size);
            ok = false;
        }
        keysize = prop_size;
    }
    bool have_size = sz || in_prop;
    const sxp_inst *pt = type_inst(m, word(m, vin, 1));
    uint32_t vt = pt && pt->op == SpvOpTypePointer ? word(m, pt, 3) : 0;
    const sxp_inst *vti = vt ? type_inst(m, vt) : NULL;
    if (g.image_scope) {
        layout l = {0};
        if (!vti || !type_layout(m, vt, 0, 0, &l, NULL, true)) {
            sxp_error(m->path, vin->off, "device global '%s': cannot size its type", shown);
            ok = false;
        } else if (have_size && keysize != l.size) {
            sxp_error(m->path, sz ? sz->word : vin->off,
                      "device global '%s': sycl-device-global-size %u conflicts with its type's size %u", shown,
                      keysize, l.size);
            ok = false;
        }
        g.size = g.var_size = l.size;
        free(l.leaves);
    } else {
        uint32_t pointee = usm_pointee(m, vti);
        if (!pointee)
            sxp_warn(m->path, vin->off,
                     "device global '%s' without device_image_scope should hold a pointer (its USM instance)", shown);
        if (!have_size) {
            layout l = {0};
            if (pointee && type_layout(m, pointee, 0, 0, &l, NULL, true) && l.size)
                keysize = l.size;
            else if (ok) {
                sxp_error(m->path, vin->off,
                          "device global '%s' without device_image_scope: no sycl-device-global-size, and its type "
                          "does not say the size of T (its variable should hold a T pointer)", shown);
                ok = false;
            }
            free(l.leaves);
        }
        g.size = keysize;
        layout l = {0};
        g.var_size = vti && type_layout(m, vt, 0, 0, &l, NULL, true) ? l.size : ptr_size(m);
        free(l.leaves);
    }
    for (uint32_t i = 0; ok && i < a->nglobals; i++)
        if (g.uid && !strcmp(a->globals[i].uid, g.uid)) {
            sxp_error(m->path, vin->off, "device global id '%s' used by two variables (the other at word %u)", g.uid,
                      a->globals[i].word);
            ok = false;
        }
    if (!ok) {
        free(g.uid);
        free(g.symbol);
        return false;
    }
    a->globals = sxp_xrealloc(a->globals, (a->nglobals + 1) * sizeof *a->globals);
    a->globals[a->nglobals++] = g;
    return true;
}

/* Decorations proptool interprets, or knows to carry no SYCL property,
 * among those of the extension range (>= 4096) a variable may carry;
 * any other is kept in the SPIR-V but warned about, never dropped silently. */
static bool known_variable_decoration(uint32_t d)
{
    switch (d) {
    case SpvDecorationUserSemantic:
    case SXP_DECORATION_HOST_ACCESS_INTEL:
    case SXP_DECORATION_HOST_ACCESS_INTEL_LEGACY:
    case SXP_DECORATION_INIT_MODE_INTEL:          /* FPGA initialisation: no runtime meaning */
    case SXP_DECORATION_INIT_MODE_INTEL_LEGACY:
    case SXP_DECORATION_IMPLEMENT_IN_CSR_INTEL:   /* FPGA register map: no runtime meaning */
    case SXP_DECORATION_IMPLEMENT_IN_REGISTER_MAP_INTEL:
        return true;
    default:
        return d < 4096;
    }
}

static void check_variable_decorations(const sxp_module *m)
{
    for (uint32_t i = 0; i < m->ndecors; i++) {
        const sxp_decor *d = &m->decors[i];
        const sxp_inst *in = known_variable_decoration(d->decoration) ? NULL : sxp_module_def(m, d->target);
        if (in && in->op == SpvOpVariable && (uint32_t)(in - m->insts) < m->first_fn_inst)
            sxp_warn(m->path, m->insts[d->inst].off,
                     "decoration %u on variable %s is not one proptool knows: kept in the SPIR-V, no property made "
                     "from it", d->decoration,
                     sxp_module_name(m, d->target) ? sxp_module_name(m, d->target) : "(unnamed)");
    }
}

static const struct {
    uint32_t cap, aspect;
} cap_aspects[] = {
    {SpvCapabilityFloat64, SX_ASPECT_FP64},
    {SpvCapabilityFloat16, SX_ASPECT_FP16},
    {SpvCapabilityInt64Atomics, SX_ASPECT_ATOMIC64},
    {SpvCapabilityImageBasic, SX_ASPECT_IMAGE},
};

static bool used_aspects(sxp_module *m, uint32_t id, sxp_analysis *a)
{
    const sxp_annot *an = sxp_module_annot(m, id, "sycl-used-aspects");
    if (!an)
        return true;
    char **names = NULL;
    uint32_t n = 0;
    bool ok = true;
    list_add_csv(&names, &n, an->value ? an->value : "");
    if (!n) {
        sxp_error(m->path, an->word, "sycl-used-aspects needs a list of aspects");
        ok = false;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t asp;
        if (!sxp_aspect_parse(names[i], &asp)) {
            sxp_error(m->path, an->word, "sycl-used-aspects: unknown aspect '%s'", names[i]);
            ok = false;
        } else
            aspect_add(a, asp);
    }
    list_free(names, n);
    return ok;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

bool sxp_analyse(sxp_module *m, const sxp_options *opt, sxp_analysis *a)
{
    bool ok = true;
    memset(a, 0, sizeof *a);

    /* Kernels. */
    uint32_t *kfns = sxp_xcalloc(m->nentries * 2 + 1, sizeof *kfns);
    uint32_t nk = 0;
    a->kernels = sxp_xcalloc(m->nentries + 1, sizeof *a->kernels);
    for (uint32_t i = 0; i < m->nentries; i++) {
        const sxp_entry *e = &m->entries[i];
        if (e->model != SpvExecutionModelKernel) {
            sxp_warn(m->path, e->word, "entry point '%s' is not a Kernel (execution model %u): ignored", e->name,
                     e->model);
            continue;
        }
        if (!e->name[0]) {
            sxp_error(m->path, e->word, "kernel entry point %%%u has an empty name", e->fn);
            ok = false;
            continue;
        }
        for (uint32_t j = 0; j < a->nkernels; j++)
            if (!strcmp(a->kernels[j].name, e->name)) {
                sxp_error(m->path, e->word, "duplicate kernel entry point '%s'", e->name);
                ok = false;
            }
        uint32_t body = sxp_kernel_body_fn(m, e);
        kfns[nk++] = e->fn;
        if (body != e->fn)
            kfns[nk++] = body;
        if (!analyse_kernel(m, opt, e, body, a, &a->kernels[a->nkernels]))
            ok = false;
        a->nkernels++;
    }

    /* Functions: if_device, virtual functions, aspects, symbols, and keys
     * that do not belong on functions. */
    bool module_ids = false;
    for (uint32_t f = 0; f < m->nfns && !module_ids; f++)
        module_ids = sxp_module_annot(m, m->fns[f].id, "sycl-module-id") != NULL;
    for (uint32_t f = 0; f < m->nfns; f++) {
        uint32_t id = m->fns[f].id;
        bool is_kernel = is_kernel_fn(m, id, kfns, nk);
        for (uint32_t j = 0; j < m->nannots[id]; j++) {
            const sxp_annot *an = &m->annots[id][j];
            int where = sxp_annot_key_where(an->key);
            if (where && !(where & SXP_ON_FUNCTION) && !((where & SXP_ON_KERNEL) && is_kernel) &&
                !sxp_annot_problem(m->path, an->word, "key '%s' on function %s does not belong there: it belongs on %s",
                                   an->key, sxp_module_name(m, id) ? sxp_module_name(m, id) : "(unnamed)",
                                   where & SXP_ON_KERNEL ? "kernels" : "variables"))
                ok = false;
        }
        const sxp_annot *h = sxp_module_annot(m, id, "sycl-call-if-on-host");
        const sxp_annot *d = sxp_module_annot(m, id, "sycl-call-if-on-device");
        bool hv = false, dv = false;
        if (h && !bool_value(m, h, &hv))
            ok = false;
        if (d && !bool_value(m, d, &dv))
            ok = false;
        if (hv && dv) {
            sxp_error(m->path, h->word, "function %s: conflicting keys sycl-call-if-on-host and sycl-call-if-on-device",
                      sxp_module_name(m, id) ? sxp_module_name(m, id) : "(unnamed)");
            ok = false;
        } else if (hv) {
            if (is_kernel) {
                sxp_error(m->path, h->word, "kernel function %s cannot be sycl-call-if-on-host",
                          sxp_module_name(m, id) ? sxp_module_name(m, id) : "(unnamed)");
                ok = false;
            }
            a->if_host_fns = sxp_xrealloc(a->if_host_fns, (a->nif_host + 1) * sizeof(uint32_t));
            a->if_host_fns[a->nif_host++] = id;
        } else if (dv) {
            a->if_device_fns = sxp_xrealloc(a->if_device_fns, (a->nif_device + 1) * sizeof(uint32_t));
            a->if_device_fns[a->nif_device++] = id;
        }
        if (!used_aspects(m, id, a))
            ok = false;

        const sxp_annot *vf = sxp_module_annot(m, id, "indirectly-callable");
        const char *lname = NULL;
        uint32_t ltype = SXP_NONE;
        sxp_module_linkage(m, id, &lname, &ltype);
        if (vf) {
            const char *set = vf->value && *vf->value ? vf->value : DEFAULT_VF_SET;
            a->vfuncs = sxp_xrealloc(a->vfuncs, (a->nvfuncs + 1) * sizeof *a->vfuncs);
            a->vfuncs[a->nvfuncs++] = (struct sxp_vfunc){id, sxp_xstrdup(set), m->fns[f].first_label != SXP_NONE};
            if (m->fns[f].first_label != SXP_NONE)
                list_add_unique(&a->vf_defined_sets, &a->nvf_defined, set);
            continue;  /* resolved through sets, not symbols (as DPC++) */
        }
        if (!lname || is_kernel)
            continue;
        /* DPC++'s rules (sycl-post-link -symbols): internals ("__" names,
         * also demangled: __itt_*, _Z8__insidev) are neither imported nor
         * exported; a module whose producer marks SYCL_EXTERNAL functions
         * with sycl-module-id exports only those. */
        if (sxp_internal_symbol(lname))
            continue;
        if (ltype == SpvLinkageTypeExport && (!module_ids || sxp_module_annot(m, id, "sycl-module-id")))
            list_add_unique(&a->exported, &a->nexported, lname);
        else if (ltype == SpvLinkageTypeImport)
            list_add_unique(&a->imported, &a->nimported, lname);
    }

    /* Function-pointer constants (vtables of C++ for OpenCL). */
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op != SpvOpConstantFunctionPointerINTEL || in->wc < 4)
            continue;
        uint32_t fn = word(m, in, 3);
        if (fn >= m->nids || m->fn_of_id[fn] == SXP_NONE) {
            sxp_error(m->path, in->off, "OpConstantFunctionPointerINTEL names %%%u, which is not a function", fn);
            ok = false;
            continue;
        }
        a->fnptrs = sxp_xrealloc(a->fnptrs, (a->nfnptrs + 1) * sizeof *a->fnptrs);
        a->fnptrs[a->nfnptrs++] = (struct sxp_fnptr){word(m, in, 2), fn};
    }

    /* Module-scope variables. */
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op != SpvOpVariable || in->wc < 4)
            continue;
        uint32_t var = word(m, in, 2);
        for (uint32_t j = 0; j < m->nannots[var]; j++) {
            const sxp_annot *an = &m->annots[var][j];
            int where = sxp_annot_key_where(an->key);
            if (where && !(where & SXP_ON_VARIABLE) &&
                !sxp_annot_problem(m->path, an->word, "key '%s' on variable %s does not belong there: it belongs on %s",
                                   an->key, sxp_module_name(m, var) ? sxp_module_name(m, var) : "(unnamed)",
                                   where & SXP_ON_KERNEL && !(where & SXP_ON_FUNCTION) ? "kernels" : "functions"))
                ok = false;
        }
        if (!analyse_global(m, opt, var, in, a))
            ok = false;
    }
    check_variable_decorations(m);
    /* Keys on things that are neither functions nor variables. */
    for (uint32_t id = 1; id < m->nids; id++) {
        if (!m->nannots[id] || m->fn_of_id[id] != SXP_NONE)
            continue;
        const sxp_inst *in = sxp_module_def(m, id);
        if (in && in->op != SpvOpVariable)
            sxp_warn(m->path, m->annots[id][0].word, "annotations on %%%u (%s) are ignored", id, sxp_op_name(in->op));
    }

    for (uint32_t i = 0; i < m->ncaps; i++)
        for (size_t j = 0; j < sizeof cap_aspects / sizeof *cap_aspects; j++)
            if (m->caps[i] == cap_aspects[j].cap)
                aspect_add(a, cap_aspects[j].aspect);
    if (a->naspects)
        qsort(a->aspects, a->naspects, sizeof *a->aspects, cmp_u32);
    if (a->nexported)
        qsort(a->exported, a->nexported, sizeof(char *), cmp_str);
    if (a->nimported)
        qsort(a->imported, a->nimported, sizeof(char *), cmp_str);
    free(kfns);
    return ok;
}

void sxp_analysis_free(sxp_analysis *a)
{
    for (uint32_t i = 0; i < a->nkernels; i++)
        sxp_kernel_free(&a->kernels[i]);
    free(a->kernels);
    for (uint32_t i = 0; i < a->nglobals; i++) {
        free(a->globals[i].uid);
        free(a->globals[i].symbol);
        if (a->accessors)
            free(a->accessors[i]);
    }
    free(a->accessors);
    free(a->globals);
    free(a->aspects);
    list_free(a->exported, a->nexported);
    list_free(a->imported, a->nimported);
    list_free(a->vf_defined_sets, a->nvf_defined);
    list_free(a->vf_called_sets, a->nvf_called);
    list_free(a->vf_created_sets, a->nvf_created);
    for (uint32_t i = 0; i < a->nvfuncs; i++)
        free(a->vfuncs[i].set);
    free(a->vfuncs);
    free(a->fnptrs);
    free(a->if_host_fns);
    free(a->if_device_fns);
    memset(a, 0, sizeof *a);
}

static char *join(char **list, uint32_t n);

static void put_u32s(uint8_t *out, const uint32_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        for (int j = 0; j < 4; j++)
            out[i * 4 + (uint32_t)j] = (uint8_t)(v[i] >> (8 * j));
}

/* DPC++'s runtime reads only uses-virtual-functions-set on a kernel
 * image: write it too, the union of the calls and creates lists, so a
 * DPC++ consumer links every set the image needs. Our resolver reads
 * calls/creates and ignores this copy when they are present. Not on set
 * images (DPC++ allows only one of virtual-functions-set and uses-). */
void sxp_vf_add_uses(sxp_image *img)
{
    const sxp_propset *vf = sxp_image_find_set(img, SX_PROP_SET_VIRTUAL_FUNCTIONS);
    if (!vf || sxp_set_find(vf, "virtual-functions-set") || sxp_set_find(vf, "uses-virtual-functions-set"))
        return;
    char **sets = NULL;
    uint32_t n = 0;
    static const char *const from[] = {"calls-virtual-functions-set", "creates-virtual-functions-set"};
    for (int k = 0; k < 2; k++) {
        const sxp_prop *p = sxp_set_find(vf, from[k]);
        if (p && p->type == SX_PROPERTY_TYPE_BYTE_ARRAY && p->size > 8) {
            char *s = sxp_xstrndup((const char *)p->bytes + 8, p->size - 8);
            list_add_csv(&sets, &n, s);
            free(s);
        }
    }
    if (n) {
        qsort(sets, n, sizeof *sets, cmp_str);
        char *s = join(sets, n);
        sxp_set_bytes_str(sxp_image_set(img, SX_PROP_SET_VIRTUAL_FUNCTIONS), "uses-virtual-functions-set", s, false);
        free(s);
    }
    list_free(sets, n);
}

static char *join(char **list, uint32_t n)
{
    sxp_buf b = {0};
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            sxp_buf_u8(&b, ',');
        sxp_buf_put(&b, list[i], strlen(list[i]));
    }
    sxp_buf_u8(&b, 0);
    return (char *)b.data;
}

/* A module-scope variable that is a symbol other images link against
 * (a vtable defined where its key function is, a program-scope variable
 * another module declares): it has linkage, is neither a device global
 * (shared by id, not by symbol) nor a built-in, nor an internal ("__") or
 * RTTI name (typeinfo goes from device code, vtables.c). */
bool sxp_data_symbol(const sxp_module *m, const sxp_analysis *a, uint32_t var, const char **name, uint32_t *type)
{
    const sxp_inst *in = sxp_module_def(m, var);
    const char *n = NULL;
    uint32_t lt = SXP_NONE, it = 0;
    if (!in || in->op != SpvOpVariable || m->drop[in - m->insts] || !sxp_module_linkage(m, var, &n, &lt) ||
        sxp_module_decor(m, var, SpvDecorationBuiltIn, &it) || sxp_internal_symbol(n) || !strncmp(n, "_ZTI", 4) ||
        !strncmp(n, "_ZTS", 4))
        return false;
    for (uint32_t g = 0; g < a->nglobals; g++)
        if (a->globals[g].var == var)
            return false;
    *name = n;
    *type = lt;
    return true;
}

void sxp_analyse_data_symbols(const sxp_module *m, sxp_analysis *a)
{
    bool any = false;
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        const char *n;
        uint32_t lt;
        if (in->op != SpvOpVariable || in->wc < 3 || !sxp_data_symbol(m, a, m->words[in->off + 2], &n, &lt))
            continue;
        if (lt == SpvLinkageTypeExport)
            list_add_unique(&a->exported, &a->nexported, n);
        else if (lt == SpvLinkageTypeImport)
            list_add_unique(&a->imported, &a->nimported, n);
        any = true;
    }
    if (any && a->nexported)
        qsort(a->exported, a->nexported, sizeof(char *), cmp_str);
    if (any && a->nimported)
        qsort(a->imported, a->nimported, sizeof(char *), cmp_str);
}

void sxp_analysis_to_image(const sxp_analysis *a, sxp_image *img, bool generated)
{
    for (uint32_t i = 0; i < a->nkernels; i++) {
        const sxp_kernel *k = &a->kernels[i];
        if (k->generated && !generated)
            continue;
        sxp_image_add_entry(img, k->name);
        sxp_buf b = {0};
        sxp_kernel_encode(k, &b);
        sxp_set_bytes(sxp_image_set(img, SX_PROP_SET_KERNEL_SIGNATURES), k->name, b.data, b.len);
        sxp_buf_free(&b);
        /* No pass here eliminates arguments: an empty mask says so. */
        sxp_set_bits(sxp_image_set(img, SX_PROP_SET_KERNEL_PARAM_OPT), k->name, NULL, 0);
        if (k->has_scratch)
            sxp_set_u32(sxp_image_set(img, SX_PROP_SET_IMPLICIT_LOCAL_ARG), k->name, k->scratch_param);
        if (k->has_reqd_wg) {
            uint8_t wg[12];
            put_u32s(wg, k->reqd_wg, k->reqd_wg_dims);
            char *name = sxp_xasprintf("%s@reqd_work_group_size", k->name);
            sxp_set_bytes(sxp_image_set(img, SX_PROP_SET_PROGRAM_METADATA), name, wg, k->reqd_wg_dims * 4);
            free(name);
        }
    }
    /* "SYCL/device requirements" reqd_work_group_size: the image's, when
     * all its kernels require the same (sycl-post-link splits by it). */
    const sxp_kernel *first = NULL;
    bool same = true;
    for (uint32_t i = 0; i < a->nkernels && same; i++) {
        const sxp_kernel *k = &a->kernels[i];
        if (k->generated)
            continue;
        same = k->has_reqd_wg && (!first || (k->reqd_wg_dims == first->reqd_wg_dims &&
                                             !memcmp(k->reqd_wg, first->reqd_wg, sizeof k->reqd_wg)));
        first = first ? first : k;
    }
    /* reqd_sub_group_size likewise (UINT32). */
    const sxp_kernel *sg = NULL;
    bool sg_same = true;
    for (uint32_t i = 0; i < a->nkernels && sg_same; i++) {
        const sxp_kernel *k = &a->kernels[i];
        if (k->generated)
            continue;
        sg_same = k->reqd_sg && (!sg || k->reqd_sg == sg->reqd_sg);
        sg = sg ? sg : k;
    }
    if (sg && sg_same)
        sxp_set_u32(sxp_image_set(img, SX_PROP_SET_DEVICE_REQUIREMENTS), "reqd_sub_group_size", sg->reqd_sg);
    if (first && same) {
        uint8_t wg[12];
        put_u32s(wg, first->reqd_wg, first->reqd_wg_dims);
        sxp_set_bytes(sxp_image_set(img, SX_PROP_SET_DEVICE_REQUIREMENTS), "reqd_work_group_size", wg,
                      first->reqd_wg_dims * 4);
    }
    for (uint32_t i = 0; i < a->nglobals; i++) {
        const sxp_global *g = &a->globals[i];
        uint8_t v[8];
        for (int j = 0; j < 4; j++) {
            v[j] = (uint8_t)(g->size >> (8 * j));
            v[4 + j] = (uint8_t)((g->image_scope ? 1u : 0u) >> (8 * j));
        }
        sxp_set_bytes(sxp_image_set(img, SX_PROP_SET_DEVICE_GLOBALS), g->uid, v, sizeof v);
        sxp_set_u32(sxp_image_set(img, SX_PROP_SET_HOST_ACCESS), g->uid, g->host_access);
        if (g->symbol) {
            char *name = sxp_xasprintf("%s@global_id_mapping", g->uid);
            sxp_set_bytes_str(sxp_image_set(img, SX_PROP_SET_PROGRAM_METADATA), name, g->symbol, false);
            free(name);
        }
        if (generated && a->accessors && a->accessors[i])
            sxp_set_string(sxp_image_set(img, SX_PROP_SET_GLOBAL_ACCESSORS), g->uid, a->accessors[i]);
    }
    /* As sycl-post-link: every image has its aspects, an empty list too. */
    uint8_t *v = sxp_xmalloc(a->naspects * 4 + 1);
    put_u32s(v, a->aspects, a->naspects);
    sxp_set_bytes(sxp_image_set(img, SX_PROP_SET_DEVICE_REQUIREMENTS), "aspects", v, a->naspects * 4);
    free(v);
    /* Set names as DPC++'s writer encodes them: no trailing NUL. */
    if (a->nvf_defined) {
        /* One set per image once the split pass (issue 6) outlines them;
         * until then the first defined set is recorded, as DPC++ does. */
        sxp_set_bytes_str(sxp_image_set(img, SX_PROP_SET_VIRTUAL_FUNCTIONS), "virtual-functions-set",
                          a->vf_defined_sets[0], false);
    }
    if (a->nvf_called) {
        char *s = join(a->vf_called_sets, a->nvf_called);
        sxp_set_bytes_str(sxp_image_set(img, SX_PROP_SET_VIRTUAL_FUNCTIONS), "calls-virtual-functions-set", s, false);
        free(s);
    }
    if (a->nvf_created) {
        char *s = join(a->vf_created_sets, a->nvf_created);
        sxp_set_bytes_str(sxp_image_set(img, SX_PROP_SET_VIRTUAL_FUNCTIONS), "creates-virtual-functions-set", s,
                          false);
        free(s);
    }
    sxp_vf_add_uses(img);
    for (uint32_t i = 0; i < a->nexported; i++)
        sxp_set_u32(sxp_image_set(img, SX_PROP_SET_EXPORTED_SYMBOLS), a->exported[i], 1);
    for (uint32_t i = 0; i < a->nimported; i++)
        sxp_set_u32(sxp_image_set(img, SX_PROP_SET_IMPORTED_SYMBOLS), a->imported[i], 1);
    sxp_image_sort(img);
}
