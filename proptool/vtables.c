/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vtables.c: C++ vtables in the storage class DPC++ gives them. clang-14
 * puts a vtable in address space 0, which llvm-spirv 14 writes as a
 * module-scope OpVariable of the Function storage class: not valid SPIR-V
 * for OpenCL, and Intel's CPU compiler crashes on it once code stores the
 * vtable's address and the module calls through a function pointer
 * (doc/intel-cpu-opencl.md). Such variables move to CrossWorkgroup, with
 * every pointer type that has to keep their storage class: those derived
 * from them (access chains, bitcasts) and pointers to code pointers (a
 * loaded vptr, a vtable slot), so that code which reads a vtable through
 * an object agrees with the vtable. First, as DPC++'s device compilation
 * does, a vtable loses its RTTI (typeinfo slots null: intel/llvm#11411)
 * and __cxa_pure_virtual (null: intel/llvm#16231): device code cannot use
 * typeid or dynamic_cast, nothing defines those symbols on a device, and
 * typeinfo pointers would share the vtable's slots with code pointers. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "proptool.h"

/* Defined (out of line) in spv-read.c from spirv.h's utility code. */
extern void SpvHasResultAndType(SpvOp opcode, bool *hasResult, bool *hasResultType);

enum { MUST = 1, FORBIDDEN = 2, WANTED = 4 };

typedef struct pass {
    sxp_module *m;
    uint32_t *type_of;  /* per id: its result type, or 0 */
    uint32_t *parent;   /* union-find over pointer type ids */
    uint8_t *flags;     /* per id; per root after merge */
} pass;

static uint32_t find(pass *p, uint32_t x)
{
    while (p->parent[x] != x) {
        p->parent[x] = p->parent[p->parent[x]];
        x = p->parent[x];
    }
    return x;
}

static void unite(pass *p, uint32_t a, uint32_t b)
{
    a = find(p, a);
    b = find(p, b);
    if (a != b)
        p->parent[a] = b;
}

/* The storage class of pointer type `t`, or SXP_NONE when t is no pointer. */
static uint32_t storage_of(const sxp_module *m, uint32_t t)
{
    const sxp_inst *d = sxp_module_def(m, t);
    return d && d->op == SpvOpTypePointer && d->wc >= 4 ? m->words[d->off + 2] : SXP_NONE;
}

static bool is_fn_storage_ptr(const sxp_module *m, uint32_t t)
{
    return storage_of(m, t) == SpvStorageClassFunction;
}

/* A code pointer: a Function-storage pointer to a function type
 * (SPV_INTEL_function_pointers as llvm-spirv 14 writes it). */
static bool is_code_ptr(const sxp_module *m, uint32_t t)
{
    const sxp_inst *d = sxp_module_def(m, t);
    if (!d || d->op != SpvOpTypePointer || d->wc < 4 || m->words[d->off + 2] != SpvStorageClassFunction)
        return false;
    const sxp_inst *f = sxp_module_def(m, m->words[d->off + 3]);
    return f && f->op == SpvOpTypeFunction;
}

/* Opcodes whose pointer result has the storage class of their first
 * operand (the base or the source). */
static bool derives_pointer(uint32_t op)
{
    return op == SpvOpAccessChain || op == SpvOpInBoundsAccessChain || op == SpvOpPtrAccessChain ||
           op == SpvOpInBoundsPtrAccessChain || op == SpvOpBitcast || op == SpvOpCopyObject;
}

static const char *var_name(const sxp_module *m, uint32_t id, char *buf, size_t size)
{
    const char *n = NULL;
    uint32_t lt;
    if (!sxp_module_linkage(m, id, &n, &lt))
        n = sxp_module_name(m, id);
    if (n)
        return n;
    snprintf(buf, size, "%%%u", id);
    return buf;
}

/* ---------------------------------------------- RTTI and pure virtuals */

static bool is_annotation(uint32_t op)
{
    return op == SpvOpName || op == SpvOpMemberName || op == SpvOpDecorate || op == SpvOpDecorateId ||
           op == SpvOpDecorateString || op == SpvOpMemberDecorate || op == SpvOpMemberDecorateString;
}

/* A constant expression's root: through the OpSpecConstantOp casts and
 * access chains llvm-spirv writes for a vtable slot. */
static uint32_t root_of(const sxp_module *m, uint32_t id)
{
    for (int depth = 0; depth < 64; depth++) {
        const sxp_inst *d = sxp_module_def(m, id);
        if (!d || d->op != SpvOpSpecConstantOp || d->wc < 5)
            return id;
        uint32_t op = m->words[d->off + 3];
        if (!derives_pointer(op) && op != SpvOpPtrCastToGeneric && op != SpvOpGenericCastToPtr)
            return id;
        id = m->words[d->off + 4];
    }
    return id;
}

static const char *symbol_of(const sxp_module *m, uint32_t id)
{
    const char *n = NULL;
    uint32_t lt;
    return sxp_module_linkage(m, id, &n, &lt) ? n : sxp_module_name(m, id);
}

/* Should a vtable slot holding `id` be null on a device? */
static bool slot_dropped(const sxp_module *m, uint32_t id)
{
    uint32_t r = root_of(m, id);
    const sxp_inst *d = sxp_module_def(m, r);
    if (!d)
        return false;
    if (d->op == SpvOpVariable) {
        const char *n = symbol_of(m, r);
        return n && !strncmp(n, "_ZTI", 4);
    }
    if (d->op == SpvOpConstantFunctionPointerINTEL && d->wc >= 4) {
        const char *n = symbol_of(m, m->words[d->off + 3]);
        return n && (!strcmp(n, "__cxa_pure_virtual") || !strcmp(n, "__cxa_deleted_virtual"));
    }
    return false;
}

/* Per id: does the constant hold a code pointer (an
 * OpConstantFunctionPointerINTEL, itself or inside composites and constant
 * expressions)? One pass in module order: the reader refused constants
 * that refer to themselves or to later ones, so every operand is decided
 * before its user and the work is one visit per constant (a tower of
 * shared composites costs its size, not its fan-out to the power of its
 * height). */
static uint8_t *code_pointer_constants(const sxp_module *m)
{
    uint8_t *holds = sxp_xcalloc(m->nids, 1);
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *d = &m->insts[i];
        if (m->drop[i] || d->wc < 3 || m->words[d->off + 2] >= m->nids)
            continue;
        uint32_t id = m->words[d->off + 2], first;
        if (d->op == SpvOpConstantFunctionPointerINTEL) {
            holds[id] = 1;
            continue;
        }
        if (d->op == SpvOpConstantComposite || d->op == SpvOpSpecConstantComposite)
            first = 3;
        else if (d->op == SpvOpSpecConstantOp)
            first = 4;
        else
            continue;
        for (uint32_t k = first; k < d->wc && !holds[id]; k++) {
            uint32_t w = m->words[d->off + k];
            holds[id] = w < m->nids && m->def[w] < i && holds[w];
        }
    }
    return holds;
}

/* Per type id: the instruction of its first OpConstantNull, and the one
 * made here (which comes right after the type, so before any user). */
typedef struct nulls {
    uint32_t *first;
    uint32_t *made;
} nulls;

/* Is `type` a type instruction before instruction `before`? (A slot's
 * null goes right after its type, so before the composite that holds it;
 * in a hostile module the "type" may be any id, a function's parameter
 * included: such a slot is left as it is.) */
static bool type_before(const sxp_module *m, uint32_t type, uint32_t before)
{
    if (type >= m->nids || m->def[type] == SXP_NONE || m->def[type] >= before)
        return false;
    uint32_t op = m->insts[m->def[type]].op;
    return op >= SpvOpTypeVoid && op <= SpvOpTypeForwardPointer;
}

/* An OpConstantNull of `type` defined before instruction `before`, made
 * (after the type) if there is none: one look per slot. */
static uint32_t null_of(sxp_module *m, nulls *n, uint32_t type, uint32_t before)
{
    if (n->first[type] != SXP_NONE && n->first[type] < before)
        return m->words[m->insts[n->first[type]].off + 2];
    if (n->made[type])
        return n->made[type];
    uint32_t id = sxp_module_new_id(m);
    uint32_t ops[2] = {type, id};
    sxp_emit(sxp_module_after(m, m->def[type]), SpvOpConstantNull, ops, 2);
    n->made[type] = id;
    return id;
}

/* The ids instruction `i` refers to, counted (or uncounted: delta -1);
 * a literal that equals an id only keeps something. */
static void count_refs(const sxp_module *m, uint32_t i, uint32_t *refs, int delta)
{
    const sxp_inst *in = &m->insts[i];
    bool has_result, has_type;
    SpvHasResultAndType((SpvOp)in->op, &has_result, &has_type);
    uint32_t result = has_result ? (has_type ? 2 : 1) : 0;
    uint32_t lo, hi;
    sxp_id_words(m, in, &lo, &hi);
    for (uint32_t k = lo; k < hi; k++) {
        uint32_t w = m->words[in->off + k];
        if (k == result || (in->op == SpvOpSpecConstantOp && k == 3) || (in->op == SpvOpExtInst && k == 4))
            continue;
        if (w >= m->nids || (delta < 0 && !refs[w]))
            continue;
        refs[w] += (uint32_t)delta;
    }
}

/* An exported variable stays for the modules that import it (a vtable
 * whose key function is defined here), except RTTI: typeinfo objects and
 * their names go, as in DPC++'s device code. */
static bool kept_export(const sxp_module *m, uint32_t id)
{
    const char *n = NULL;
    uint32_t lt = SXP_NONE;
    return sxp_module_linkage(m, id, &n, &lt) && lt == SpvLinkageTypeExport && strncmp(n, "_ZTI", 4) &&
           strncmp(n, "_ZTS", 4);
}

static bool sweepable(const sxp_module *m, const sxp_inst *in)
{
    return in->op == SpvOpSpecConstantOp || in->op == SpvOpConstantComposite ||
           in->op == SpvOpSpecConstantComposite || in->op == SpvOpConstantFunctionPointerINTEL ||
           (in->op == SpvOpVariable && in->wc >= 4 && m->words[in->off + 3] == SpvStorageClassFunction &&
            !kept_export(m, m->words[in->off + 2]));
}

/* Null the RTTI and pure-virtual slots of every Function-storage vtable,
 * then drop the constants and variables nothing uses any more. */
static void drop_rtti(sxp_module *m)
{
    uint32_t *refs = sxp_xcalloc(m->nids, sizeof *refs);
    for (uint32_t i = 0; i < m->ninsts; i++)
        if (!m->drop[i] && !is_annotation(m->insts[i].op))
            count_refs(m, i, refs, 1);
    uint32_t *work = sxp_xmalloc((size_t)m->nids * sizeof *work);
    uint32_t nwork = 0;
    uint8_t *holds = code_pointer_constants(m);
    /* Each composite is visited once, whichever vtables share it: the
     * stack never holds more than the module has ids. */
    uint8_t *visited = sxp_xcalloc(m->nids, 1);
    uint32_t *stack = sxp_xmalloc((size_t)m->nids * sizeof *stack);
    nulls nl = {sxp_xmalloc((size_t)m->nids * sizeof *nl.first), sxp_xcalloc(m->nids, sizeof *nl.made)};
    memset(nl.first, 0xff, (size_t)m->nids * sizeof *nl.first);
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (!m->drop[i] && in->op == SpvOpConstantNull && in->wc >= 3 && m->words[in->off + 1] < m->nids &&
            nl.first[m->words[in->off + 1]] == SXP_NONE)
            nl.first[m->words[in->off + 1]] = i;
    }
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (m->drop[i] || in->op != SpvOpVariable || in->wc < 5 ||
            m->words[in->off + 3] != SpvStorageClassFunction || m->words[in->off + 4] >= m->nids ||
            !holds[m->words[in->off + 4]] || visited[m->words[in->off + 4]])
            continue;
        /* The initializer's composites, depth first (a vtable group is a
         * struct of arrays). */
        uint32_t nstack = 0;
        stack[nstack++] = m->words[in->off + 4];
        visited[m->words[in->off + 4]] = 1;
        while (nstack) {
            const sxp_inst *c = sxp_module_def(m, stack[--nstack]);
            if (!c || (c->op != SpvOpConstantComposite && c->op != SpvOpSpecConstantComposite))
                continue;
            for (uint32_t k = 3; k < c->wc; k++) {
                uint32_t *w = &m->words[c->off + k];
                const sxp_inst *e = sxp_module_def(m, *w);
                if (e && (e->op == SpvOpConstantComposite || e->op == SpvOpSpecConstantComposite)) {
                    if (!visited[*w]) {
                        visited[*w] = 1;
                        stack[nstack++] = *w;
                    }
                } else if (*w < m->nids && slot_dropped(m, *w) && e->wc >= 3 &&
                           type_before(m, m->words[e->off + 1], (uint32_t)(c - m->insts))) {
                    uint32_t old = *w;
                    *w = null_of(m, &nl, m->words[e->off + 1], (uint32_t)(c - m->insts));
                    if (--refs[old] == 0 && nwork < m->nids)
                        work[nwork++] = old;
                }
            }
        }
    }
    /* Also what cleanup left of the vtables nothing refers to (the
     * constants of their initializers). */
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (!m->drop[i] && sweepable(m, in) && in->wc >= 3 && m->words[in->off + 2] < m->nids &&
            !refs[m->words[in->off + 2]] && nwork < m->nids)
            work[nwork++] = m->words[in->off + 2];
    }
    free(nl.first);
    free(nl.made);
    free(stack);
    free(visited);
    free(holds);
    uint8_t *gone = sxp_xcalloc(m->nids, 1);
    bool any = false;
    sxp_buf dropped = {0};  /* exported symbols that go: said */
    while (nwork) {
        uint32_t id = work[--nwork];
        uint32_t i = m->def[id];
        if (i == SXP_NONE || m->drop[i] || refs[id] || !sweepable(m, &m->insts[i]))
            continue;
        m->drop[i] = 1;
        gone[id] = 1;
        any = true;
        const char *ln = NULL;
        uint32_t lt = SXP_NONE;
        if (m->insts[i].op == SpvOpVariable && sxp_module_linkage(m, id, &ln, &lt) && lt == SpvLinkageTypeExport) {
            if (dropped.len)
                sxp_buf_put(&dropped, ", ", 2);
            sxp_buf_put(&dropped, ln, strlen(ln));
        }
        count_refs(m, i, refs, -1);
        const sxp_inst *in = &m->insts[i];
        for (uint32_t k = 3; k < in->wc; k++) {
            uint32_t w = m->words[in->off + k];
            if (w < m->nids && !refs[w] && nwork < m->nids)
                work[nwork++] = w;
        }
    }
    for (uint32_t i = 0; any && i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (is_annotation(in->op) && in->wc >= 2 && m->words[in->off + 1] < m->nids && gone[m->words[in->off + 1]])
            m->drop[i] = 1;
    }
    if (dropped.len) {
        sxp_buf_u8(&dropped, 0);
        sxp_warn(m->path, SXP_NONE, "exported typeinfo dropped (device code has no RTTI, as in DPC++; a module "
                 "importing them will not link): %s", (const char *)dropped.data);
        sxp_buf_free(&dropped);
    }
    free(gone);
    free(work);
    free(refs);
}

/* ------------------------------------------------------------- the move */

bool sxp_vtables_pass(sxp_module *m)
{
    uint32_t nvars = 0;
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (!m->drop[i] && in->op == SpvOpVariable && in->wc >= 4 &&
            m->words[in->off + 3] == SpvStorageClassFunction)
            nvars++;
    }
    if (!nvars)
        return true;
    drop_rtti(m);
    pass p = {.m = m};
    p.type_of = sxp_xcalloc(m->nids, sizeof *p.type_of);
    p.parent = sxp_xmalloc((size_t)m->nids * sizeof *p.parent);
    p.flags = sxp_xcalloc(m->nids, 1);
    for (uint32_t id = 0; id < m->nids; id++)
        p.parent[id] = id;
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const sxp_inst *in = &m->insts[i];
        bool has_result, has_type;
        SpvHasResultAndType((SpvOp)in->op, &has_result, &has_type);
        if (has_result && has_type && in->wc >= 3 && m->words[in->off + 2] < m->nids)
            p.type_of[m->words[in->off + 2]] = m->words[in->off + 1];
    }
    /* Which pointer types must share a storage class, and which must stay
     * Function: code pointers, and the types of function-scope variables. */
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const sxp_inst *in = &m->insts[i];
        const uint32_t *w = &m->words[in->off];
        if (m->drop[i])
            continue;
        if (in->op == SpvOpTypePointer && in->wc >= 4 && w[1] < m->nids && w[2] == SpvStorageClassFunction) {
            if (is_code_ptr(m, w[1]))
                p.flags[w[1]] |= FORBIDDEN;
            else if (is_code_ptr(m, w[3]))
                p.flags[w[1]] |= WANTED;  /* a vptr or a vtable slot */
            continue;
        }
        if (in->op == SpvOpVariable && in->wc >= 4 && w[3] == SpvStorageClassFunction && w[1] < m->nids) {
            p.flags[w[1]] |= i < m->first_fn_inst ? MUST : FORBIDDEN;
            continue;
        }
        uint32_t src = SXP_NONE;
        if (derives_pointer(in->op) && in->wc >= 4)
            src = w[3];
        else if (in->op == SpvOpSpecConstantOp && in->wc >= 5 && derives_pointer(w[3]))
            src = w[4];
        if (src == SXP_NONE || src >= m->nids || w[1] >= m->nids)
            continue;
        uint32_t st = p.type_of[src];
        if (st < m->nids && is_fn_storage_ptr(m, w[1]) && is_fn_storage_ptr(m, st))
            unite(&p, w[1], st);
    }
    for (uint32_t id = 0; id < m->nids; id++)
        if (p.flags[id])
            p.flags[find(&p, id)] |= p.flags[id];
    /* Components with a module-scope variable move; a pointer to code
     * pointers moves with them (only when the module has such a variable:
     * other modules stay as they were). One that cannot is left, said. */
    bool moved = false;
    sxp_buf left = {0};
    uint32_t first_left = SXP_NONE;
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (m->drop[i] || in->op != SpvOpVariable || in->wc < 4 || m->words[in->off + 3] != SpvStorageClassFunction)
            continue;
        if (p.flags[find(&p, m->words[in->off + 1])] & FORBIDDEN) {
            char buf[16];
            const char *name = var_name(m, m->words[in->off + 2], buf, sizeof buf);
            if (left.len)
                sxp_buf_put(&left, ", ", 2);
            sxp_buf_put(&left, name, strlen(name));
            if (first_left == SXP_NONE)
                first_left = in->off;
            continue;
        }
        m->words[in->off + 3] = SpvStorageClassCrossWorkgroup;
        moved = true;
    }
    if (left.len) {
        sxp_buf_u8(&left, 0);
        sxp_warn(m->path, first_left,
                 "module-scope variables of the Function storage class stay there (%s): pointers to "
                 "them are cast to code pointers or have the type of private variables; Intel's CPU "
                 "OpenCL compiler crashes on vtables left there and the OpenCL adapter refuses them",
                 (const char *)left.data);
        sxp_buf_free(&left);
    }
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        uint32_t *w = &m->words[in->off];
        if (m->drop[i] || in->op != SpvOpTypePointer || in->wc < 4 || w[2] != SpvStorageClassFunction ||
            w[1] >= m->nids)
            continue;
        uint8_t f = p.flags[find(&p, w[1])];
        if ((f & MUST) ? !(f & FORBIDDEN) : moved && (f & WANTED) && !(f & FORBIDDEN))
            w[2] = SpvStorageClassCrossWorkgroup;
    }
    /* The storage class written out beside a pointer type. */
    for (uint32_t i = 0; moved && i < m->ninsts; i++) {
        const sxp_inst *in = &m->insts[i];
        uint32_t *w = &m->words[in->off];
        if (in->op == SpvOpGenericCastToPtrExplicit && in->wc >= 5 && w[4] == SpvStorageClassFunction &&
            storage_of(m, w[1]) == SpvStorageClassCrossWorkgroup)
            w[4] = SpvStorageClassCrossWorkgroup;
        else if (in->op == SpvOpTypeForwardPointer && in->wc >= 3 && w[2] == SpvStorageClassFunction &&
                 storage_of(m, w[1]) == SpvStorageClassCrossWorkgroup)
            w[2] = SpvStorageClassCrossWorkgroup;
    }
    free(p.type_of);
    free(p.parent);
    free(p.flags);
    return true;
}
