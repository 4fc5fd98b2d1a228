/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vfsplit.c: the virtual-functions split (issue 6): indirectly-callable
 * functions outlined per set (plus a dummy copy with empty bodies when the
 * set needs optional features), kernels grouped by their requirements,
 * and the AOT flow that keeps only the sets a target supports. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <sycl-ext/types.h>
#include <spirv/unified1/spirv.h>

#include "proptool.h"

/* Defined (out of line) in spv-read.c from spirv.h's utility code. */
extern void SpvHasResultAndType(SpvOp opcode, bool *hasResult, bool *hasResultType);

#define DEFAULT_VF_SET "_ZTSv"
typedef uint64_t aspects_t;  /* bit a: sycl::aspect a (all we read are < 64) */

/* How a function goes into one image. */
enum { FN_ABSENT, FN_DECL, FN_DEF, FN_EMPTY };
/* What one image is. */
enum { IMG_KERNELS, IMG_SET, IMG_DUMMY };

/* One image under construction: what is kept and what is rewritten. */
typedef struct build {
    sxp_module *m;
    const struct sxp_vf_plan *p;
    int kind;
    uint32_t set;          /* IMG_SET / IMG_DUMMY: the set */
    uint32_t group;        /* IMG_KERNELS: the group */
    bool aot;
    uint8_t *alive;        /* per instruction */
    uint8_t *fn_mode;      /* per function index */
    uint32_t *work;        /* instruction work list */
    uint32_t nwork;
    uint64_t *called, *pointed;  /* sets reached by OpFunctionCall / function-pointer constants */
    size_t setwords;
} build;

struct sxp_vf_plan {
    char **sets;           /* sorted */
    uint32_t nsets;
    uint32_t *fn_set;      /* per function index: set, or SXP_NONE */
    uint8_t *is_kernel_fn; /* per function index */
    uint32_t *kbody;       /* per kernel (analysis order): its entry function id */
    uint32_t *kentry;      /* per kernel: index into m->entries, SXP_NONE for generated ones */
    aspects_t *set_aspects;   /* closure over the sets it calls */
    uint64_t *set_calls;      /* per set: bitmap of sets it calls (direct calls) */
    bool *set_dummy;
    uint8_t **set_dg;      /* per set: per id, device-global variables it imports */
    uint32_t nkernels;     /* kernels when planned (accessor kernels come later) */
    uint32_t *kgroup;      /* per kernel: group */
    uint32_t ngroups;
    bool aot;
    aspects_t aot_supported;
    uint8_t *kdropped;     /* AOT: kernels that call unsupported sets */
    bool any_vf_def;
};

/* ------------------------------------------------------------ bitmaps */

static bool bit(const uint64_t *b, uint32_t i)
{
    return (b[i / 64] >> (i % 64)) & 1;
}

static void setbit(uint64_t *b, uint32_t i)
{
    b[i / 64] |= (uint64_t)1 << (i % 64);
}

static aspects_t aspect_bit(uint32_t a)
{
    return a < 64 ? (aspects_t)1 << a : 0;
}

static uint32_t set_index(const sxp_vf_plan *p, const char *name)
{
    for (uint32_t i = 0; i < p->nsets; i++)
        if (!strcmp(p->sets[i], name))
            return i;
    return SXP_NONE;
}

/* ------------------------------------------------------------ liveness */

static bool is_global(const sxp_module *m, uint32_t i)
{
    return i < m->first_fn_inst;
}

static void mark_inst(build *b, uint32_t i)
{
    if (b->alive[i])
        return;
    b->alive[i] = 1;
    b->work[b->nwork++] = i;
}

/* A reference from a kept instruction: only module-scope definitions are
 * followed here (functions are followed through ref_fn). */
static void ref(build *b, uint32_t id)
{
    const sxp_module *m = b->m;
    if (id >= m->nids || m->def[id] == SXP_NONE)
        return;
    uint32_t i = m->def[id];
    if (is_global(m, i))
        mark_inst(b, i);
}

static uint32_t fn_mode_for(build *b, uint32_t f)
{
    const sxp_vf_plan *p = b->p;
    const sxp_function *fn = &b->m->fns[f];
    uint32_t s = p->fn_set[f];
    if (fn->first_label == SXP_NONE)
        return FN_DECL;
    if (s == SXP_NONE)
        return FN_DEF;
    if (b->aot)
        return (p->set_aspects[s] & ~p->aot_supported) ? FN_EMPTY : FN_DEF;
    if (b->kind == IMG_SET && s == b->set)
        return FN_DEF;
    if (b->kind == IMG_DUMMY && s == b->set)
        return FN_EMPTY;
    return FN_DECL;
}

static void ref_fn(build *b, uint32_t id, bool call)
{
    const sxp_module *m = b->m;
    if (id >= m->nids || m->fn_of_id[id] == SXP_NONE)
        return;
    uint32_t f = m->fn_of_id[id];
    uint32_t s = b->p->fn_set[f];
    if (s != SXP_NONE && !((b->kind == IMG_SET || b->kind == IMG_DUMMY) && s == b->set))
        setbit(call ? b->called : b->pointed, s);
    if (b->fn_mode[f] != FN_ABSENT)
        return;
    uint32_t mode = fn_mode_for(b, f);
    b->fn_mode[f] = (uint8_t)mode;
    const sxp_function *fn = &m->fns[f];
    mark_inst(b, fn->first_inst);
    for (uint32_t i = fn->first_inst + 1; i < fn->end_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op == SpvOpFunctionParameter || (mode == FN_DEF && i >= fn->first_label) ||
            (mode == FN_EMPTY && i == fn->first_label))
            mark_inst(b, i);
    }
    mark_inst(b, fn->end_inst);
}

/* The operands of one instruction that may name ids (literals counted as
 * ids only keep a little more than needed). */
static void inst_refs(build *b, uint32_t i)
{
    const sxp_module *m = b->m;
    const sxp_inst *in = &m->insts[i];
    if (m->drop[i])
        return;  /* removed by an earlier pass: refers to nothing */
    const uint32_t *w = &m->words[in->off];
    uint32_t wc = in->wc;
    bool has_result, has_type;
    SpvHasResultAndType((SpvOp)in->op, &has_result, &has_type);
    if (has_type && wc > 1)
        ref(b, w[1]);
    uint32_t lo = 1 + (has_type ? 1 : 0) + (has_result ? 1 : 0), hi = wc;
    switch (in->op) {
    case SpvOpFunctionCall:
        if (wc > 3)
            ref_fn(b, w[3], true);
        lo = 4;
        break;
    case SpvOpConstantFunctionPointerINTEL:
        if (wc > 3)
            ref_fn(b, w[3], false);
        hi = 0;
        break;
    case SpvOpEntryPoint: {
        if (wc > 2)
            ref_fn(b, w[2], true);
        uint32_t k = 3;
        while (k < wc) {
            uint32_t v = w[k++];
            if (!(v & 0xff) || !(v & 0xff00) || !(v & 0xff0000) || !(v & 0xff000000))
                break;
        }
        lo = k;
        break;
    }
    case SpvOpExecutionModeId: lo = 3; break;
    case SpvOpFunction: lo = 4; break;
    case SpvOpTypePointer: lo = 3; break;
    case SpvOpTypeImage: hi = wc < 3 ? wc : 3; break;
    case SpvOpTypeForwardPointer: lo = 1; hi = wc < 2 ? wc : 2; break;
    case SpvOpSpecConstantOp: lo = 4; break;
    case SpvOpVariable: lo = 4; break;
    case SpvOpLoad: hi = wc < 4 ? wc : 4; break;
    case SpvOpStore: case SpvOpCopyMemory: hi = wc < 3 ? wc : 3; break;
    case SpvOpCopyMemorySized: hi = wc < 4 ? wc : 4; break;
    case SpvOpCompositeExtract: hi = wc < 4 ? wc : 4; break;
    case SpvOpCompositeInsert: case SpvOpVectorShuffle: hi = wc < 5 ? wc : 5; break;
    case SpvOpExtInst:
        if (wc > 3)
            ref(b, w[3]);
        lo = 5;
        break;
    case SpvOpSwitch: hi = wc < 3 ? wc : 3; break;
    case SpvOpBranchConditional: hi = wc < 4 ? wc : 4; break;
    case SpvOpSource: lo = 3; hi = wc < 4 ? wc : 4; break;
    case SpvOpLine: hi = wc < 2 ? wc : 2; break;
    case SpvOpExecutionMode: case SpvOpTypeInt: case SpvOpTypeFloat: case SpvOpConstant:
    case SpvOpSpecConstant: case SpvOpConstantSampler: case SpvOpString: case SpvOpName:
    case SpvOpMemberName: case SpvOpSourceExtension: case SpvOpSourceContinued: case SpvOpExtension:
    case SpvOpCapability: case SpvOpMemoryModel: case SpvOpExtInstImport: case SpvOpModuleProcessed:
    case SpvOpDecorationGroup: case SpvOpLoopMerge: case SpvOpSelectionMerge: case SpvOpNoLine:
        hi = 0;
        break;
    default:
        break;
    }
    for (uint32_t k = lo; k < hi; k++)
        ref(b, w[k]);
}

/* Words of inserted code (earlier passes): every word that names a
 * module-scope definition keeps it. */
static void buf_refs(build *b, const sxp_buf *buf)
{
    for (size_t k = 0; k + 4 <= buf->len; k += 4) {
        uint32_t v;
        memcpy(&v, buf->data + k, 4);
        ref(b, v);
    }
}

static bool is_annotation(uint32_t op)
{
    return op == SpvOpName || op == SpvOpMemberName || op == SpvOpDecorate || op == SpvOpDecorateId ||
           op == SpvOpDecorateString || op == SpvOpMemberDecorate || op == SpvOpMemberDecorateString ||
           op == SpvOpGroupDecorate || op == SpvOpGroupMemberDecorate;
}

static bool id_alive(const build *b, uint32_t id)
{
    const sxp_module *m = b->m;
    return id < m->nids && m->def[id] != SXP_NONE && b->alive[m->def[id]] && !m->drop[m->def[id]];
}

/* Keep-or-drop for the module-scope instructions that are not followed
 * through references. */
static void roots_common(build *b)
{
    sxp_module *m = b->m;
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        switch (m->insts[i].op) {
        case SpvOpCapability: case SpvOpExtension: case SpvOpExtInstImport: case SpvOpMemoryModel:
        case SpvOpSource: case SpvOpSourceExtension: case SpvOpSourceContinued: case SpvOpModuleProcessed:
        case SpvOpDecorationGroup:
            mark_inst(b, i);
            break;
        default:
            break;
        }
    }
    buf_refs(b, &m->global_extra);
    buf_refs(b, &m->fn_extra);
    if (m->after)
        for (uint32_t i = 0; i < m->ninsts; i++)
            buf_refs(b, &m->after[i]);
}

static void run(build *b)
{
    while (b->nwork)
        inst_refs(b, b->work[--b->nwork]);
}

/* The entry point of a kernel and its execution modes. */
static void root_kernel(build *b, uint32_t entry)
{
    sxp_module *m = b->m;
    const sxp_entry *e = &m->entries[entry];
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op == SpvOpEntryPoint && in->off == e->word)
            mark_inst(b, i);
    }
}

static void finish_modes(build *b)
{
    sxp_module *m = b->m;
    /* Functions whose entry point is kept, then their execution modes. */
    uint8_t *entry = sxp_xcalloc(m->nids + 1, 1);
    for (uint32_t j = 0; j < m->first_fn_inst; j++) {
        const sxp_inst *ej = &m->insts[j];
        if (ej->op == SpvOpEntryPoint && b->alive[j] && ej->wc > 2 && m->words[ej->off + 2] < m->nids)
            entry[m->words[ej->off + 2]] = 1;
    }
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if ((in->op == SpvOpExecutionMode || in->op == SpvOpExecutionModeId) && in->wc > 1 &&
            m->words[in->off + 1] < m->nids && entry[m->words[in->off + 1]])
            mark_inst(b, i);
    }
    free(entry);
    run(b);
}

static void build_init(build *b, sxp_module *m, const sxp_vf_plan *p, int kind)
{
    memset(b, 0, sizeof *b);
    b->m = m;
    b->p = p;
    b->kind = kind;
    b->aot = p->aot;
    b->alive = sxp_xcalloc(m->ninsts + 1, 1);
    b->work = sxp_xcalloc(m->ninsts + 1, sizeof *b->work);
    b->fn_mode = sxp_xcalloc(m->nfns + 1, 1);
    b->setwords = p->nsets / 64 + 1;
    b->called = sxp_xcalloc(b->setwords, sizeof *b->called);
    b->pointed = sxp_xcalloc(b->setwords, sizeof *b->pointed);
}

static void build_free(build *b)
{
    free(b->alive);
    free(b->work);
    free(b->fn_mode);
    free(b->called);
    free(b->pointed);
}

/* Module-scope variables with a linkage name that are device globals. */
static bool is_device_global(const sxp_analysis *a, uint32_t var)
{
    for (uint32_t i = 0; i < a->nglobals; i++)
        if (a->globals[i].var == var)
            return true;
    return false;
}

/* --------------------------------------------------------- capabilities */

static const sxp_inst *def_of(const sxp_module *m, uint32_t id)
{
    return sxp_module_def(m, id);
}

/* Is an alive type instruction a float of `width`? */
static bool alive_float(const build *b, uint32_t width)
{
    const sxp_module *m = b->m;
    for (uint32_t i = 0; i < m->first_fn_inst; i++)
        if (b->alive[i] && !m->drop[i] && m->insts[i].op == SpvOpTypeFloat && m->insts[i].wc > 2 &&
            m->words[m->insts[i].off + 2] == width)
            return true;
    return false;
}

static bool is_atomic(uint32_t op)
{
    return (op >= SpvOpAtomicLoad && op <= SpvOpAtomicXor) || op == SpvOpAtomicFlagTestAndSet ||
           op == SpvOpAtomicFlagClear || op == SpvOpAtomicFMinEXT || op == SpvOpAtomicFMaxEXT ||
           op == SpvOpAtomicFAddEXT;
}

static bool alive_atomic64(const build *b)
{
    const sxp_module *m = b->m;
    for (uint32_t i = m->first_fn_inst; i < m->ninsts; i++) {
        const sxp_inst *in = &m->insts[i];
        if (!b->alive[i] || m->drop[i] || !is_atomic(in->op))
            continue;
        bool has_result, has_type;
        SpvHasResultAndType((SpvOp)in->op, &has_result, &has_type);
        uint32_t ptrw = has_type ? 3 : 1;
        if (ptrw >= in->wc)
            continue;
        const sxp_inst *pv = def_of(m, m->words[in->off + ptrw]);
        bool pv_typed = false;
        if (pv) {
            bool r2, t2;
            SpvHasResultAndType((SpvOp)pv->op, &r2, &t2);
            pv_typed = t2;
        }
        const sxp_inst *pt = pv && pv_typed ? def_of(m, m->words[pv->off + 1]) : NULL;
        const sxp_inst *el = pt && pt->op == SpvOpTypePointer && pt->wc > 3 ? def_of(m, m->words[pt->off + 3]) : NULL;
        if (el && (el->op == SpvOpTypeInt || el->op == SpvOpTypeFloat) && el->wc > 2 && m->words[el->off + 2] == 64)
            return true;
    }
    return false;
}

static bool alive_op(const build *b, uint32_t op)
{
    const sxp_module *m = b->m;
    for (uint32_t i = 0; i < m->first_fn_inst; i++)
        if (b->alive[i] && !m->drop[i] && m->insts[i].op == op)
            return true;
    return false;
}

/* Capabilities behind aspects that the kept code no longer needs are
 * dropped (a kernel that only creates objects must not declare Float64
 * because a virtual function it does not carry uses double); the others
 * give the image's aspects. */
static aspects_t prune_caps(build *b)
{
    sxp_module *m = b->m;
    aspects_t asp = 0;
    bool f64 = alive_float(b, 64), f16 = alive_float(b, 16), a64 = alive_atomic64(b);
    bool img = alive_op(b, SpvOpTypeImage) || alive_op(b, SpvOpTypeSampler) || alive_op(b, SpvOpTypeSampledImage);
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op != SpvOpCapability || in->wc < 2 || m->drop[i])
            continue;
        uint32_t c = m->words[in->off + 1];
        bool need = true;
        aspects_t a = 0;
        switch (c) {
        case SpvCapabilityFloat64: need = f64; a = aspect_bit(SX_ASPECT_FP64); break;
        case SpvCapabilityFloat16: need = f16; a = aspect_bit(SX_ASPECT_FP16); break;
        case SpvCapabilityInt64Atomics: need = a64; a = aspect_bit(SX_ASPECT_ATOMIC64); break;
        case SpvCapabilityImageBasic: need = img; a = aspect_bit(SX_ASPECT_IMAGE); break;
        default: break;
        }
        if (!need)
            b->alive[i] = 0;
        else
            asp |= a;
    }
    return asp;
}

/* sycl-used-aspects of the functions an image defines. */
static aspects_t used_aspects(const build *b)
{
    const sxp_module *m = b->m;
    aspects_t asp = 0;
    for (uint32_t f = 0; f < m->nfns; f++) {
        if (b->fn_mode[f] != FN_DEF)
            continue;
        const sxp_annot *an = sxp_module_annot(m, m->fns[f].id, "sycl-used-aspects");
        if (!an || !an->value)
            continue;
        const char *p = an->value;
        while (*p) {
            const char *c = strchr(p, ',');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            char *s = sxp_xstrndup(p, len);
            char *t = s;
            while (*t == ' ')
                t++;
            for (size_t k = strlen(t); k && t[k - 1] == ' '; k--)
                t[k - 1] = 0;
            uint32_t a;
            if (*t && sxp_aspect_parse(t, &a))
                asp |= aspect_bit(a);
            free(s);
            p = c ? c + 1 : p + len;
        }
    }
    return asp;
}

/* ------------------------------------------------------------- writing */

typedef struct writer {
    sxp_buf caps;      /* new capabilities */
    sxp_buf decor;     /* new decorations */
    sxp_buf globals;   /* new constants */
    sxp_buf *repl;     /* per instruction: replacement words (instruction not emitted) */
    uint8_t *replaced;
    uint32_t bound;
} writer;

static void put_string_words(uint32_t *w, const char *s, size_t nwords)
{
    memset(w, 0, nwords * 4);
    memcpy(w, s, strlen(s));
}

static void emit_linkage(writer *wr, uint32_t id, const char *name, uint32_t type)
{
    size_t nl = strlen(name), sw = nl / 4 + 1;
    uint32_t *ops = sxp_xcalloc(3 + sw, 4);
    ops[0] = id;
    ops[1] = SpvDecorationLinkageAttributes;
    put_string_words(&ops[2], name, sw);
    ops[2 + sw] = type;
    sxp_emit(&wr->decor, SpvOpDecorate, ops, (uint32_t)(3 + sw));
    free(ops);
}

static bool has_cap(const sxp_module *m, uint32_t cap)
{
    for (uint32_t i = 0; i < m->ncaps; i++)
        if (m->caps[i] == cap)
            return true;
    return false;
}

/* The linkage decoration instruction of `id`, SXP_NONE if none. */
static uint32_t linkage_inst(const sxp_module *m, uint32_t id)
{
    uint32_t it = 0;
    const sxp_decor *d = sxp_module_decor(m, id, SpvDecorationLinkageAttributes, &it);
    return d ? d->inst : SXP_NONE;
}

static void replace(writer *wr, uint32_t i)
{
    wr->replaced[i] = 1;
}

/* Linkage per kept function and variable; rewritten declarations. */
static void rewrite_linkage(build *b, const sxp_analysis *a, writer *wr, uint32_t *added_link)
{
    sxp_module *m = b->m;
    const sxp_vf_plan *p = b->p;
    bool set_img = b->kind == IMG_SET || b->kind == IMG_DUMMY;
    for (uint32_t f = 0; f < m->nfns; f++) {
        if (b->fn_mode[f] == FN_ABSENT)
            continue;
        uint32_t id = m->fns[f].id;
        const char *lname = NULL;
        uint32_t ltype = SXP_NONE;
        bool has = sxp_module_linkage(m, id, &lname, &ltype);
        uint32_t want = ltype;  /* SXP_NONE: no linkage */
        uint32_t s = p->fn_set[f];
        if (s != SXP_NONE && !b->aot) {
            want = b->fn_mode[f] == FN_DECL ? SpvLinkageTypeImport : SpvLinkageTypeExport;
        } else if (s == SXP_NONE && b->fn_mode[f] != FN_DECL && has && ltype != SpvLinkageTypeImport &&
                   !p->is_kernel_fn[f] && (set_img || b->group > 0)) {
            want = SXP_NONE;  /* a private copy: the module's first kernel image exports it */
        }
        if (want == ltype)
            continue;
        if (has)
            replace(wr, linkage_inst(m, id));
        if (want != SXP_NONE) {
            const char *nm = lname ? lname : sxp_module_name(m, id);
            char *gen = nm ? NULL : sxp_xasprintf("__sx_vf_%u", id);
            emit_linkage(wr, id, nm ? nm : gen, want);
            free(gen);
            if (!has)
                (*added_link)++;
        }
    }
    if (!set_img) {
        /* Later kernel images keep private copies of the variables the
         * first exports (vtables and other variables with linkage), as of
         * the functions: one definition by name, whatever is linked. */
        for (uint32_t i = 0; b->group > 0 && !b->aot && i < m->first_fn_inst; i++) {
            const sxp_inst *in = &m->insts[i];
            const char *lname;
            uint32_t ltype;
            if (b->alive[i] && in->op == SpvOpVariable && in->wc >= 4 && !m->drop[i] &&
                sxp_data_symbol(m, a, m->words[in->off + 2], &lname, &ltype) && ltype == SpvLinkageTypeExport)
                replace(wr, linkage_inst(m, m->words[in->off + 2]));
        }
        return;
    }
    /* Variables in a set image: device globals are the kernels' (imported
     * here); every other variable is a private copy. */
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (!b->alive[i] || in->op != SpvOpVariable || in->wc < 4 || m->drop[i])
            continue;
        uint32_t var = m->words[in->off + 2];
        const char *lname = NULL;
        uint32_t ltype = SXP_NONE;
        if (!sxp_module_linkage(m, var, &lname, &ltype) || ltype == SpvLinkageTypeImport)
            continue;
        replace(wr, linkage_inst(m, var));
        if (is_device_global(a, var)) {
            emit_linkage(wr, var, lname, SpvLinkageTypeImport);
            replace(wr, i);
            sxp_emit(&wr->repl[i], SpvOpVariable, &m->words[in->off + 1], 3);  /* no initializer */
        }
    }
}

/* Rewrite OpGroupDecorate without the targets that are gone. */
static void rewrite_groups(build *b, writer *wr)
{
    sxp_module *m = b->m;
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if ((in->op != SpvOpGroupDecorate && in->op != SpvOpGroupMemberDecorate) || m->drop[i])
            continue;
        const uint32_t *w = &m->words[in->off];
        uint32_t step = in->op == SpvOpGroupDecorate ? 1 : 2;
        sxp_buf kept = {0};
        uint32_t n = 1, gone = 0;
        sxp_buf_u32(&kept, w[1]);
        for (uint32_t k = 2; k + step - 1 < in->wc; k += step) {
            if (id_alive(b, w[k])) {
                for (uint32_t s = 0; s < step; s++)
                    sxp_buf_u32(&kept, w[k + s]);
                n += step;
            } else
                gone++;
        }
        if (gone) {
            replace(wr, i);
            if (n > 1)
                sxp_emit(&wr->repl[i], in->op, (const uint32_t *)kept.data, n);
        }
        sxp_buf_free(&kept);
    }
}

static bool emit_inst_ok(const build *b, const writer *wr, uint32_t i)
{
    return b->alive[i] && !b->m->drop[i] && !wr->replaced[i];
}

static void write_one(const build *b, const writer *wr, uint32_t i, sxp_buf *out, bool with_after)
{
    const sxp_module *m = b->m;
    if (emit_inst_ok(b, wr, i))
        sxp_buf_put(out, &m->words[m->insts[i].off], (size_t)m->insts[i].wc * 4);
    if (wr->replaced[i] && wr->repl[i].len)
        sxp_buf_put(out, wr->repl[i].data, wr->repl[i].len);
    if (with_after && b->alive[i] && m->after && m->after[i].len)
        sxp_buf_put(out, m->after[i].data, m->after[i].len);
}

static bool is_preamble(uint32_t op)
{
    switch (op) {
    case SpvOpCapability: case SpvOpExtension: case SpvOpExtInstImport: case SpvOpMemoryModel:
    case SpvOpEntryPoint: case SpvOpExecutionMode: case SpvOpExecutionModeId: case SpvOpString:
    case SpvOpSource: case SpvOpSourceExtension: case SpvOpSourceContinued: case SpvOpName:
    case SpvOpMemberName: case SpvOpModuleProcessed: case SpvOpDecorationGroup:
        return true;
    default:
        return is_annotation(op);
    }
}

static void write_image(build *b, const sxp_analysis *a, sxp_buf *out)
{
    sxp_module *m = b->m;
    writer wr = {0};
    wr.repl = sxp_xcalloc(m->ninsts + 1, sizeof *wr.repl);
    wr.replaced = sxp_xcalloc(m->ninsts + 1, 1);
    wr.bound = m->bound;
    uint32_t added_link = 0;
    /* Annotations of what is gone go too (also misplaced ones inside
     * function bodies, which a reader would find dangling). */
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const sxp_inst *in = &m->insts[i];
        if (!is_annotation(in->op) || (i >= m->first_fn_inst && !b->alive[i]))
            continue;
        if (in->op != SpvOpGroupDecorate && in->op != SpvOpGroupMemberDecorate)
            b->alive[i] = in->wc > 1 && id_alive(b, m->words[in->off + 1]);
        else
            b->alive[i] = i < m->first_fn_inst;
    }
    rewrite_linkage(b, a, &wr, &added_link);
    rewrite_groups(b, &wr);
    if (added_link && !has_cap(m, SpvCapabilityLinkage)) {
        uint32_t c = SpvCapabilityLinkage;
        sxp_emit(&wr.caps, SpvOpCapability, &c, 1);
    }
    /* Return values of emptied functions: a zero of the return type. */
    uint32_t *nulls = sxp_xcalloc(m->nids + 1, sizeof *nulls);
    for (uint32_t f = 0; f < m->nfns; f++) {
        if (b->fn_mode[f] != FN_EMPTY)
            continue;
        uint32_t rt = m->fns[f].result_type;
        const sxp_inst *t = def_of(m, rt);
        if (t && t->op != SpvOpTypeVoid && rt < m->nids && !nulls[rt]) {
            /* OpConstant 0 for scalars: llvm-spirv 14 (--spir-bc) refuses
             * OpConstantNull of a scalar type although SPIR-V allows it. */
            nulls[rt] = wr.bound++;
            uint32_t ops[4] = {rt, nulls[rt], 0, 0};
            if (t->op == SpvOpTypeBool)
                sxp_emit(&wr.globals, SpvOpConstantFalse, ops, 2);
            else if ((t->op == SpvOpTypeInt || t->op == SpvOpTypeFloat) && t->wc > 2)
                sxp_emit(&wr.globals, SpvOpConstant, ops, m->words[t->off + 2] > 32 ? 4 : 3);
            else
                sxp_emit(&wr.globals, SpvOpConstantNull, ops, 2);
        }
    }

    sxp_buf_u32(out, SpvMagicNumber);
    sxp_buf_u32(out, m->version);
    sxp_buf_u32(out, m->generator);
    size_t bound_at = out->len;
    sxp_buf_u32(out, wr.bound);
    sxp_buf_u32(out, m->schema);
    bool caps_done = false, decor_done = false;
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        uint32_t op = m->insts[i].op;
        if (!caps_done && op != SpvOpCapability) {
            sxp_buf_put(out, wr.caps.data, wr.caps.len);
            caps_done = true;
        }
        if (!decor_done && !is_preamble(op)) {
            sxp_buf_put(out, wr.decor.data, wr.decor.len);
            decor_done = true;
        }
        write_one(b, &wr, i, out, true);
    }
    if (!caps_done)
        sxp_buf_put(out, wr.caps.data, wr.caps.len);
    if (!decor_done)
        sxp_buf_put(out, wr.decor.data, wr.decor.len);
    sxp_buf_put(out, m->global_extra.data, m->global_extra.len);
    sxp_buf_put(out, wr.globals.data, wr.globals.len);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t f = 0; f < m->nfns; f++) {
            const sxp_function *fn = &m->fns[f];
            uint8_t mode = b->fn_mode[f];
            if (mode == FN_ABSENT || (mode == FN_DECL) != (pass == 0))
                continue;
            for (uint32_t i = fn->first_inst; i <= fn->end_inst; i++) {
                if (!b->alive[i])
                    continue;
                if (mode == FN_EMPTY && i == fn->first_label) {
                    write_one(b, &wr, i, out, false);
                    uint32_t rt = fn->result_type;
                    if (rt < m->nids && nulls[rt])
                        sxp_emit(out, SpvOpReturnValue, &nulls[rt], 1);
                    else
                        sxp_emit(out, SpvOpReturn, NULL, 0);
                    continue;
                }
                write_one(b, &wr, i, out, true);
            }
        }
    if (b->kind == IMG_KERNELS)
        sxp_buf_put(out, m->fn_extra.data, m->fn_extra.len);
    uint32_t bound = wr.bound;
    memcpy(out->data + bound_at, &bound, 4);
    for (uint32_t i = 0; i < m->ninsts; i++)
        sxp_buf_free(&wr.repl[i]);
    free(wr.repl);
    free(wr.replaced);
    free(nulls);
    sxp_buf_free(&wr.caps);
    sxp_buf_free(&wr.decor);
    sxp_buf_free(&wr.globals);
}

/* ---------------------------------------------------------- the images */

static void list_add(char ***list, uint32_t *n, const char *s)
{
    for (uint32_t i = 0; i < *n; i++)
        if (!strcmp((*list)[i], s))
            return;
    *list = sxp_xrealloc(*list, (*n + 1) * sizeof **list);
    (*list)[(*n)++] = (char *)s;  /* borrowed */
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Sets listed by a kernel annotation, added to a bitmap. */
static void annot_sets(const sxp_module *m, const sxp_vf_plan *p, uint32_t fn, const char *key, uint64_t *bits)
{
    const sxp_annot *an = sxp_module_annot(m, fn, key);
    if (!an)
        return;
    const char *v = an->value && *an->value ? an->value : DEFAULT_VF_SET;
    while (*v) {
        const char *c = strchr(v, ',');
        size_t len = c ? (size_t)(c - v) : strlen(v);
        char *s = sxp_xstrndup(v, len);
        char *t = s;
        while (*t == ' ')
            t++;
        for (size_t k = strlen(t); k && t[k - 1] == ' '; k--)
            t[k - 1] = 0;
        uint32_t si = *t ? set_index(p, t) : SXP_NONE;
        if (si != SXP_NONE)
            setbit(bits, si);
        free(s);
        v = c ? c + 1 : v + len;
    }
}

/* The properties of a built image, through a view of the analysis. */
static sxp_image *make_image(build *b, const sxp_analysis *a, const char *origin, const uint8_t *kernels,
                             aspects_t asp, const uint64_t *calls, const uint64_t *creates,
                             char **extra_calls, uint32_t nextra_calls, char **extra_creates,
                             uint32_t nextra_creates)
{
    sxp_module *m = b->m;
    const sxp_vf_plan *p = b->p;
    sxp_analysis v = {0};
    v.kernels = sxp_xcalloc(a->nkernels + 1, sizeof *v.kernels);
    for (uint32_t k = 0; k < a->nkernels; k++)
        if (kernels && kernels[k])
            v.kernels[v.nkernels++] = a->kernels[k];
    v.globals = sxp_xcalloc(a->nglobals + 1, sizeof *v.globals);
    if (a->accessors)
        v.accessors = sxp_xcalloc(a->nglobals + 1, sizeof *v.accessors);
    if (b->kind == IMG_KERNELS)
        for (uint32_t g = 0; g < a->nglobals; g++)
            if (id_alive(b, a->globals[g].var)) {
                if (v.accessors)
                    v.accessors[v.nglobals] = a->accessors[g];
                v.globals[v.nglobals++] = a->globals[g];
            }
    v.aspects = sxp_xcalloc(64, sizeof *v.aspects);
    for (uint32_t x = 0; x < 64; x++)
        if (asp & aspect_bit(x))
            v.aspects[v.naspects++] = x;
    if (!p->aot) {
        if (b->kind != IMG_KERNELS)
            list_add(&v.vf_defined_sets, &v.nvf_defined, p->sets[b->set]);
        for (uint32_t s = 0; s < p->nsets; s++) {
            if (calls && bit(calls, s))
                list_add(&v.vf_called_sets, &v.nvf_called, p->sets[s]);
            else if (creates && bit(creates, s))
                list_add(&v.vf_created_sets, &v.nvf_created, p->sets[s]);
        }
        for (uint32_t i = 0; i < nextra_calls; i++)
            list_add(&v.vf_called_sets, &v.nvf_called, extra_calls[i]);
        for (uint32_t i = 0; i < nextra_creates; i++) {
            bool called = false;
            for (uint32_t j = 0; j < v.nvf_called; j++)
                called |= !strcmp(v.vf_called_sets[j], extra_creates[i]);
            if (!called)
                list_add(&v.vf_created_sets, &v.nvf_created, extra_creates[i]);
        }
        if (v.nvf_called)
            qsort(v.vf_called_sets, v.nvf_called, sizeof(char *), cmp_str);
        if (v.nvf_created)
            qsort(v.vf_created_sets, v.nvf_created, sizeof(char *), cmp_str);
    }
    /* Symbols: kept functions with linkage, except kernels and virtual
     * functions (resolved through their sets). Linkage as rewritten. */
    bool set_img = b->kind != IMG_KERNELS;
    for (uint32_t f = 0; f < m->nfns; f++) {
        if (b->fn_mode[f] == FN_ABSENT || p->is_kernel_fn[f] || p->fn_set[f] != SXP_NONE)
            continue;
        const char *lname = NULL;
        uint32_t lt = SXP_NONE;
        if (!sxp_module_linkage(m, m->fns[f].id, &lname, &lt))
            continue;
        if (lt == SpvLinkageTypeImport)
            list_add(&v.imported, &v.nimported, lname);
        else if (!set_img && b->group == 0)
            list_add(&v.exported, &v.nexported, lname);
    }
    /* Device globals by name too: a set image imports those its functions
     * use from an image that defines them (the kernel image it is linked
     * with, or another module's exporter); the core shares the instance
     * by id either way. */
    for (uint32_t g = 0; g < a->nglobals && !p->aot; g++) {
        const char *lname = NULL;
        uint32_t lt = SXP_NONE, var = a->globals[g].var;
        if (!id_alive(b, var) || !sxp_module_linkage(m, var, &lname, &lt) || lt == SpvLinkageTypeImport)
            continue;
        if (set_img)
            list_add(&v.imported, &v.nimported, lname);
        else  /* every kernel image that uses one defines it (shared by id) */
            list_add(&v.exported, &v.nexported, lname);
    }
    /* Variables: the first kernel image exports them, later ones and set
     * images have private copies (rewrite_linkage). */
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const char *lname;
        uint32_t lt;
        if (!b->alive[i] || m->insts[i].op != SpvOpVariable || m->insts[i].wc < 3 ||
            !sxp_data_symbol(m, a, m->words[m->insts[i].off + 2], &lname, &lt))
            continue;
        if (lt == SpvLinkageTypeImport)
            list_add(&v.imported, &v.nimported, lname);
        else if (!set_img && (b->group == 0 || p->aot))
            list_add(&v.exported, &v.nexported, lname);
    }
    if (v.nexported)
        qsort(v.exported, v.nexported, sizeof(char *), cmp_str);
    if (v.nimported)
        qsort(v.imported, v.nimported, sizeof(char *), cmp_str);

    sxp_image *img = sxp_image_new(origin, SX_TARGET_SPIRV64, SX_BINARY_FORMAT_SPIRV);
    sxp_analysis_to_image(&v, img, true);
    if (b->kind != IMG_KERNELS) {
        img->vf_set = sxp_xstrdup(p->sets[b->set]);
        img->vf_dummy = b->kind == IMG_DUMMY;
        /* The set's functions by name, for modules that import them
         * (declarations from another module lose their annotations). */
        for (uint32_t f = 0; f < m->nfns; f++) {
            const char *lname = NULL;
            if (p->fn_set[f] == b->set && (b->fn_mode[f] == FN_DEF || b->fn_mode[f] == FN_EMPTY) &&
                sxp_module_linkage(m, m->fns[f].id, &lname, NULL))
                sxp_set_u32(sxp_image_set(img, SX_PROP_SET_VF_SYMBOLS), lname, 1);
        }
        if (img->vf_dummy)
            sxp_set_u32(sxp_image_set(img, SX_PROP_SET_VIRTUAL_FUNCTIONS), "dummy-image", 1);
        sxp_image_sort(img);
    }
    free(v.kernels);
    free(v.globals);
    free(v.accessors);
    free(v.aspects);
    free(v.vf_defined_sets);
    free(v.vf_called_sets);
    free(v.vf_created_sets);
    free(v.exported);
    free(v.imported);
    return img;
}

static void push_image(sxp_image ***imgs, size_t *n, size_t *cap, sxp_image *img)
{
    sxp_grow(imgs, cap, *n, sizeof **imgs);
    (*imgs)[(*n)++] = img;
}

/* Build one set (or dummy) image; its aspects and the sets it calls. */
static void build_set(build *b, const sxp_analysis *a, uint32_t s)
{
    sxp_module *m = b->m;
    const sxp_vf_plan *p = b->p;
    roots_common(b);
    for (uint32_t f = 0; f < m->nfns; f++)
        if (p->fn_set[f] == s && m->fns[f].first_label != SXP_NONE)
            ref_fn(b, m->fns[f].id, false);
    run(b);
    (void)a;
}

static void build_kernels(build *b, const sxp_analysis *a, const uint8_t *kernels, bool with_exports)
{
    sxp_module *m = b->m;
    const sxp_vf_plan *p = b->p;
    roots_common(b);
    for (uint32_t k = 0; k < a->nkernels && k < p->nkernels; k++)
        if (kernels[k] && p->kentry[k] != SXP_NONE)
            root_kernel(b, p->kentry[k]);
    /* Device globals stay with the first kernel image even when no kernel
     * uses them: the host copies to and from them by id. */
    if (with_exports)
        for (uint32_t g = 0; g < a->nglobals; g++)
            ref(b, a->globals[g].var);
    /* Variables other modules link against (vtables defined here): the
     * first kernel image exports them, used here or not. */
    if (with_exports)
        for (uint32_t i = 0; i < m->first_fn_inst; i++) {
            const char *ln;
            uint32_t lt;
            if (m->insts[i].op == SpvOpVariable && m->insts[i].wc >= 3 &&
                sxp_data_symbol(m, a, m->words[m->insts[i].off + 2], &ln, &lt) && lt == SpvLinkageTypeExport)
                mark_inst(b, i);
        }
    if (with_exports)
        for (uint32_t f = 0; f < m->nfns; f++) {
            const char *ln = NULL;
            uint32_t lt = SXP_NONE;
            if (p->is_kernel_fn[f] || m->fns[f].first_label == SXP_NONE ||
                !sxp_module_linkage(m, m->fns[f].id, &ln, &lt) || lt == SpvLinkageTypeImport)
                continue;
            /* JIT: virtual functions live in their set images; AOT: every
             * function the module exports stays. */
            if (p->fn_set[f] == SXP_NONE || p->aot)
                ref_fn(b, m->fns[f].id, true);
        }
    /* Device globals the linked sets import must be defined here. */
    run(b);
    for (int again = 0; again < 2 && !p->aot; again++) {
        for (uint32_t s = 0; s < p->nsets; s++)
            if ((bit(b->called, s) || bit(b->pointed, s)) && p->set_dg[s])
                for (uint32_t id = 0; id < m->nids; id++)
                    if (p->set_dg[s][id])
                        ref(b, id);
        run(b);
    }
    finish_modes(b);
}

/* Kernel annotations of one kernel: calls and creates bitmaps, plus
 * names of sets this module does not define. */
static void kernel_annot_sets(const sxp_module *m, const sxp_vf_plan *p, uint32_t body, uint64_t *calls,
                              uint64_t *creates)
{
    annot_sets(m, p, body, "calls-indirectly", calls);
    annot_sets(m, p, body, "creates-indirectly", creates);
}

static void names_not_in_plan(const sxp_module *m, const sxp_vf_plan *p, uint32_t body, const char *key,
                              char ***list, uint32_t *n, char ***owned, uint32_t *nowned)
{
    const sxp_annot *an = sxp_module_annot(m, body, key);
    if (!an)
        return;
    const char *v = an->value && *an->value ? an->value : DEFAULT_VF_SET;
    while (*v) {
        const char *c = strchr(v, ',');
        size_t len = c ? (size_t)(c - v) : strlen(v);
        char *s = sxp_xstrndup(v, len);
        char *t = s;
        while (*t == ' ')
            t++;
        for (size_t k = strlen(t); k && t[k - 1] == ' '; k--)
            t[k - 1] = 0;
        if (*t && set_index(p, t) == SXP_NONE) {
            char *keep = sxp_xstrdup(t);
            *owned = sxp_xrealloc(*owned, (*nowned + 1) * sizeof **owned);
            (*owned)[(*nowned)++] = keep;
            list_add(list, n, keep);
        }
        free(s);
        v = c ? c + 1 : v + len;
    }
}

/* ------------------------------------------------------------- planning */

static aspects_t aspects_of_calls(const sxp_vf_plan *p, const uint64_t *calls)
{
    aspects_t asp = 0;
    for (uint32_t s = 0; s < p->nsets; s++)
        if (bit(calls, s))
            asp |= p->set_aspects[s];
    return asp;
}

bool sxp_vf_plan_make(sxp_module *m, const sxp_analysis *a, const sxp_options *opt, sxp_vf_plan **out)
{
    *out = NULL;
    /* A module that defines no virtual function is split too when its
     * kernels call sets of other modules: kernels calling different sets
     * go to different images (an image's calls are all its kernels'). */
    bool foreign_calls = false;
    for (uint32_t k = 0; k < a->nkernels && !a->nvfuncs; k++)
        for (uint32_t e = 0; e < m->nentries; e++)
            if (m->entries[e].model == SpvExecutionModelKernel && !strcmp(m->entries[e].name, a->kernels[k].name))
                foreign_calls |= sxp_module_annot(m, sxp_kernel_body_fn(m, &m->entries[e]), "calls-indirectly") != NULL;
    if ((!a->nvfuncs && !foreign_calls) || opt->no_vf_split)
        return true;
    sxp_vf_plan *p = sxp_xcalloc(1, sizeof *p);
    p->aot = opt->aot;
    for (uint32_t i = 0; i < opt->naot_aspects; i++)
        p->aot_supported |= aspect_bit(opt->aot_aspects[i]);
    /* Sets, sorted by name. */
    for (uint32_t i = 0; i < a->nvfuncs; i++)
        list_add(&p->sets, &p->nsets, a->vfuncs[i].set);
    if (p->nsets) /* none where the kernels only call sets of other modules */
        qsort(p->sets, p->nsets, sizeof(char *), cmp_str);
    p->fn_set = sxp_xmalloc((m->nfns + 1) * sizeof *p->fn_set);
    memset(p->fn_set, 0xff, (m->nfns + 1) * sizeof *p->fn_set);
    for (uint32_t i = 0; i < a->nvfuncs; i++) {
        uint32_t f = m->fn_of_id[a->vfuncs[i].fn];
        p->fn_set[f] = set_index(p, a->vfuncs[i].set);
        if (a->vfuncs[i].defined)
            p->any_vf_def = true;
    }
    p->nkernels = a->nkernels;
    p->is_kernel_fn = sxp_xcalloc(m->nfns + 1, 1);
    p->kbody = sxp_xcalloc(a->nkernels + 1, sizeof *p->kbody);
    p->kentry = sxp_xcalloc(a->nkernels + 1, sizeof *p->kentry);
    for (uint32_t k = 0; k < a->nkernels; k++) {
        p->kentry[k] = SXP_NONE;
        p->kbody[k] = SXP_NONE;
        for (uint32_t e = 0; e < m->nentries; e++)
            if (m->entries[e].model == SpvExecutionModelKernel && !strcmp(m->entries[e].name, a->kernels[k].name)) {
                p->kentry[k] = e;
                uint32_t body = sxp_kernel_body_fn(m, &m->entries[e]);
                p->kbody[k] = body;
                p->is_kernel_fn[m->fn_of_id[m->entries[e].fn]] = 1;
                p->is_kernel_fn[m->fn_of_id[body]] = 1;
            }
    }
    for (uint32_t f = 0; f < m->nfns; f++)
        if (p->fn_set[f] != SXP_NONE && p->is_kernel_fn[f]) {
            sxp_error(m->path, m->insts[m->fns[f].first_inst].off, "kernel %s cannot be indirectly-callable",
                      sxp_module_name(m, m->fns[f].id) ? sxp_module_name(m, m->fns[f].id) : "(unnamed)");
            sxp_vf_plan_free(p);
            return false;
        }

    /* Each set's own aspects and the sets it calls. */
    size_t sw = p->nsets / 64 + 1;
    p->set_aspects = sxp_xcalloc(p->nsets + 1, sizeof *p->set_aspects);
    p->set_calls = sxp_xcalloc((p->nsets + 1) * sw, sizeof *p->set_calls);
    p->set_dummy = sxp_xcalloc(p->nsets + 1, sizeof *p->set_dummy);
    p->set_dg = sxp_xcalloc(p->nsets + 1, sizeof *p->set_dg);
    bool aot = p->aot;
    p->aot = false;  /* sets are measured as the JIT flow would outline them */
    for (uint32_t s = 0; s < p->nsets; s++) {
        build b;
        build_init(&b, m, p, IMG_SET);
        b.set = s;
        build_set(&b, a, s);
        p->set_aspects[s] = prune_caps(&b) | used_aspects(&b);
        memcpy(&p->set_calls[s * sw], b.called, sw * sizeof(uint64_t));
        for (uint32_t g = 0; g < a->nglobals; g++)
            if (id_alive(&b, a->globals[g].var)) {
                if (!p->set_dg[s])
                    p->set_dg[s] = sxp_xcalloc(m->nids + 1, 1);
                p->set_dg[s][a->globals[g].var] = 1;
            }
        build_free(&b);
    }
    p->aot = aot;
    /* Through the sets a set calls. */
    for (uint32_t round = 0; round <= p->nsets; round++) {
        bool changed = false;
        for (uint32_t s = 0; s < p->nsets; s++) {
            aspects_t x = p->set_aspects[s] | aspects_of_calls(p, &p->set_calls[s * sw]);
            if (x != p->set_aspects[s]) {
                p->set_aspects[s] = x;
                changed = true;
            }
        }
        if (!changed)
            break;
    }
    for (uint32_t s = 0; s < p->nsets; s++) {
        bool defined = false;
        for (uint32_t f = 0; f < m->nfns; f++)
            defined |= p->fn_set[f] == s && m->fns[f].first_label != SXP_NONE;
        p->set_dummy[s] = defined && p->set_aspects[s] != 0;
    }

    /* Kernels: each one's requirements (its code plus the sets it calls);
     * kernels with equal requirements share an image. */
    p->kgroup = sxp_xcalloc(a->nkernels + 1, sizeof *p->kgroup);
    p->kdropped = sxp_xcalloc(a->nkernels + 1, 1);
    aspects_t *gkey = sxp_xcalloc(a->nkernels + 1, sizeof *gkey);
    char **gcalls = sxp_xcalloc(a->nkernels + 1, sizeof *gcalls);  /* per group: sets of other modules it calls */
    bool single = opt->dg_accessors && a->nglobals;
    uint8_t *one = sxp_xcalloc(a->nkernels + 1, 1);
    for (uint32_t k = 0; k < a->nkernels; k++) {
        build b;
        build_init(&b, m, p, IMG_KERNELS);
        one[k] = 1;
        build_kernels(&b, a, one, false);
        one[k] = 0;
        uint64_t *calls = sxp_xcalloc(sw, sizeof *calls), *creates = sxp_xcalloc(sw, sizeof *creates);
        char **xcalls = NULL, **owned = NULL;
        uint32_t nxc = 0, nowned = 0;
        if (p->kbody[k] != SXP_NONE) {
            kernel_annot_sets(m, p, p->kbody[k], calls, creates);
            names_not_in_plan(m, p, p->kbody[k], "calls-indirectly", &xcalls, &nxc, &owned, &nowned);
        }
        if (nxc)
            qsort(xcalls, nxc, sizeof *xcalls, cmp_str);
        sxp_buf xkey = {0};
        for (uint32_t x = 0; x < nxc; x++) {
            sxp_buf_put(&xkey, xcalls[x], strlen(xcalls[x]));
            sxp_buf_u8(&xkey, ',');
        }
        sxp_buf_u8(&xkey, 0);
        for (uint32_t x = 0; x < nowned; x++)
            free(owned[x]);
        free(owned);
        free(xcalls);
        for (size_t x = 0; x < sw; x++)
            calls[x] |= b.called[x];
        aspects_t asp = prune_caps(&b) | used_aspects(&b) | aspects_of_calls(p, calls);
        if (p->aot && (aspects_of_calls(p, calls) & ~p->aot_supported)) {
            p->kdropped[k] = 1;
            sxp_warn(m->path, SXP_NONE,
                     "--aot-aspects: kernel '%s' calls a virtual-function set the target cannot run: left out",
                     a->kernels[k].name);
        }
        free(calls);
        free(creates);
        build_free(&b);
        if (p->kdropped[k]) {
            sxp_buf_free(&xkey);
            continue;
        }
        uint32_t g = 0;
        if (!single && !p->aot) {
            while (g < p->ngroups && (gkey[g] != asp || strcmp(gcalls[g], (const char *)xkey.data)))
                g++;
            if (g == p->ngroups) {
                gkey[p->ngroups] = asp;
                gcalls[p->ngroups++] = sxp_xstrdup((const char *)xkey.data);
            }
        } else if (!p->ngroups)
            p->ngroups = 1;
        p->kgroup[k] = g;
        sxp_buf_free(&xkey);
    }
    if (!p->ngroups)
        p->ngroups = 1;  /* exported functions still need an image */
    for (uint32_t g = 0; g < p->ngroups; g++)
        free(gcalls[g]);
    free(gcalls);
    free(gkey);
    free(one);
    *out = p;
    return true;
}

void sxp_vf_plan_free(sxp_vf_plan *p)
{
    if (!p)
        return;
    for (uint32_t s = 0; s < p->nsets; s++)
        free(p->set_dg ? p->set_dg[s] : NULL);
    free(p->set_dg);
    free(p->sets);
    free(p->fn_set);
    free(p->is_kernel_fn);
    free(p->kbody);
    free(p->kentry);
    free(p->set_aspects);
    free(p->set_calls);
    free(p->set_dummy);
    free(p->kgroup);
    free(p->kdropped);
    free(p);
}

void sxp_vf_write_sets(sxp_vf_plan *p, sxp_module *m, const sxp_analysis *a, sxp_image ***imgs, size_t *n,
                       size_t *cap)
{
    if (!p || p->aot)
        return;
    size_t sw = p->nsets / 64 + 1;
    for (uint32_t s = 0; s < p->nsets; s++) {
        bool defined = false;
        for (uint32_t f = 0; f < m->nfns; f++)
            defined |= p->fn_set[f] == s && m->fns[f].first_label != SXP_NONE;
        if (!defined)
            continue;  /* declared here, defined by another module */
        for (int dummy = 0; dummy < 2; dummy++) {
            if (dummy && !p->set_dummy[s])
                continue;
            build b;
            build_init(&b, m, p, dummy ? IMG_DUMMY : IMG_SET);
            b.set = s;
            build_set(&b, a, s);
            aspects_t asp = prune_caps(&b) | used_aspects(&b);
            if (!dummy)
                asp |= aspects_of_calls(p, &p->set_calls[s * sw]);
            else if (asp)
                sxp_warn(m->path, SXP_NONE,
                         "the dummy image of set '%s' still needs optional features (a signature uses them)",
                         p->sets[s]);
            sxp_buf w = {0};
            write_image(&b, a, &w);
            char *origin = sxp_xasprintf("%s#%s%s", m->path, p->sets[s], dummy ? "-dummy" : "");
            sxp_image *img = make_image(&b, a, origin, NULL, asp, b.called, b.pointed, NULL, 0, NULL, 0);
            free(origin);
            img->data = w.data;
            img->size = w.len;
            push_image(imgs, n, cap, img);
            build_free(&b);
        }
    }
}

void sxp_vf_write_kernels(sxp_vf_plan *p, sxp_module *m, const sxp_analysis *a, sxp_image ***imgs, size_t *n,
                          size_t *cap)
{
    size_t sw = p->nsets / 64 + 1;
    uint8_t *in = sxp_xcalloc(a->nkernels + 1, 1);
    for (uint32_t g = 0; g < p->ngroups; g++) {
        bool any = false;
        for (uint32_t k = 0; k < a->nkernels; k++) {
            /* Generated kernels (accessors) go with the first group. */
            bool mine = k >= p->nkernels || p->kentry[k] == SXP_NONE ? g == 0
                      : (!p->kdropped[k] && p->kgroup[k] == g);
            in[k] = mine;
            any |= in[k];
        }
        build b;
        build_init(&b, m, p, IMG_KERNELS);
        b.group = g;
        build_kernels(&b, a, in, g == 0);
        if (!any && g == 0) {
            /* No kernels: an image only if it still exports something. */
            bool exports = false;
            for (uint32_t f = 0; f < m->nfns; f++)
                exports |= b.fn_mode[f] == FN_DEF && !p->is_kernel_fn[f] && p->fn_set[f] == SXP_NONE;
            for (uint32_t x = 0; x < a->nglobals && !exports; x++)
                exports = id_alive(&b, a->globals[x].var);  /* a device global a set may use */
            for (uint32_t i = 0; i < m->first_fn_inst && !exports; i++) {
                const char *ln;
                uint32_t lt;
                exports = b.alive[i] && m->insts[i].op == SpvOpVariable && m->insts[i].wc >= 3 &&
                          sxp_data_symbol(m, a, m->words[m->insts[i].off + 2], &ln, &lt) &&
                          lt == SpvLinkageTypeExport;
            }
            if (!exports && !p->aot) {
                build_free(&b);
                continue;
            }
        }
        uint64_t *calls = sxp_xcalloc(sw, sizeof *calls), *creates = sxp_xcalloc(sw, sizeof *creates);
        char **xcalls = NULL, **xcreates = NULL, **owned = NULL;
        uint32_t nxc = 0, nxr = 0, nowned = 0;
        for (uint32_t k = 0; k < a->nkernels; k++)
            if (in[k] && k < p->nkernels && p->kbody[k] != SXP_NONE) {
                kernel_annot_sets(m, p, p->kbody[k], calls, creates);
                names_not_in_plan(m, p, p->kbody[k], "calls-indirectly", &xcalls, &nxc, &owned, &nowned);
                names_not_in_plan(m, p, p->kbody[k], "creates-indirectly", &xcreates, &nxr, &owned, &nowned);
            }
        for (size_t x = 0; x < sw; x++) {
            calls[x] |= b.called[x];
            creates[x] |= b.pointed[x];
        }
        aspects_t asp = prune_caps(&b) | used_aspects(&b) | (p->aot ? 0 : aspects_of_calls(p, calls));
        sxp_buf w = {0};
        write_image(&b, a, &w);
        sxp_image *img = make_image(&b, a, m->path, in, asp, calls, creates, xcalls, nxc, xcreates, nxr);
        img->data = w.data;
        img->size = w.len;
        push_image(imgs, n, cap, img);
        for (uint32_t i = 0; i < nowned; i++)
            free(owned[i]);
        free(owned);
        free(xcalls);
        free(xcreates);
        free(calls);
        free(creates);
        build_free(&b);
    }
    free(in);
}
