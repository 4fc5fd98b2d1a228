/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* spv-read.c: the SPIR-V reader: header, instruction stream, ids, decorations, functions. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPV_ENABLE_UTILITY_CODE
#include <spirv/unified1/spirv.h>

#include "proptool.h"

/* spirv.h defines the utility as a C99 inline definition; this external
 * declaration makes this file emit the one out-of-line copy. */
extern void SpvHasResultAndType(SpvOp opcode, bool *hasResult, bool *hasResultType);

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "proptool reads SPIR-V literal strings in place: little-endian hosts only"
#endif

/* The SPIR-V spec's universal limit on ids (Limits: Result <id> bound). */
#define MAX_BOUND 0x400000u

#define SXP_DECORATION_HOST_ACCESS_INTEL 6188u

bool sxp_any_bound;

/* An opcode's name for messages. */
static const char *opn(uint32_t op)
{
    const char *s = sxp_op_name(op);
    return *s ? s : "instruction";
}

static uint32_t bswap32(uint32_t v)
{
    return __builtin_bswap32(v);
}

/* The word length of the NUL-terminated literal string at `w`, which must
 * end before `end`; 0 if it does not. */
static uint32_t str_words(const sxp_module *m, uint32_t w, uint32_t end)
{
    for (uint32_t i = w; i < end; i++) {
        uint32_t v = m->words[i];
        if (!(v & 0xff) || !(v & 0xff00) || !(v & 0xff0000) || !(v & 0xff000000))
            return i - w + 1;
    }
    return 0;
}

const char *sxp_module_string(const sxp_module *m, uint32_t word)
{
    return (const char *)&m->words[word];
}

static bool need(const sxp_module *m, const sxp_inst *in, uint32_t wc)
{
    if (in->wc >= wc)
        return true;
    sxp_error(m->path, in->off, "%s has %u words, needs at least %u", opn(in->op), in->wc, wc);
    return false;
}

static bool check_id(const sxp_module *m, const sxp_inst *in, uint32_t id, const char *what)
{
    if (id && id < m->nids)
        return true;
    sxp_error(m->path, in->off, "%s: %s id %u is out of bound (bound %u)", opn(in->op), what, id,
              m->nids);
    return false;
}

static bool add_decor(sxp_module *m, uint32_t *cap, uint32_t target, uint32_t dec, uint32_t inst, uint32_t lit)
{
    size_t c = *cap;
    sxp_grow(&m->decors, &c, m->ndecors, sizeof *m->decors);
    *cap = (uint32_t)c;
    m->decors[m->ndecors++] = (sxp_decor){target, dec, inst, lit};
    return true;
}

/* Merge the keys of one UserSemantic string into the id's list; the same
 * key with another value on one entity is a conflict. */
static bool add_annots(sxp_module *m, uint32_t id, uint32_t word)
{
    sxp_annot *list = NULL;
    uint32_t n = 0;
    if (!sxp_annot_parse(m, word, sxp_module_string(m, word), &list, &n)) {
        for (uint32_t i = 0; i < n; i++) {
            free(list[i].key);
            free(list[i].value);
        }
        free(list);
        return false;
    }
    bool ok = true;
    for (uint32_t i = 0; i < n; i++) {
        sxp_annot *a = &list[i];
        const sxp_annot *old = NULL;
        for (uint32_t j = 0; j < m->nannots[id]; j++)
            if (!strcmp(m->annots[id][j].key, a->key))
                old = &m->annots[id][j];
        if (old) {
            bool same = (!old->value && !a->value) || (old->value && a->value && !strcmp(old->value, a->value));
            if (!same) {
                const char *nm = sxp_module_name(m, id);
                sxp_error(m->path, word, "conflicting values for key '%s' on %%%u%s%s: '%s' (word %u) and '%s'",
                          a->key, id, nm ? " " : "", nm ? nm : "", old->value ? old->value : "(none)",
                          old->word, a->value ? a->value : "(none)");
                ok = false;
            }
            free(a->key);
            free(a->value);
            continue;
        }
        m->annots[id] = sxp_xrealloc(m->annots[id], (m->nannots[id] + 1) * sizeof(sxp_annot));
        m->annots[id][m->nannots[id]++] = *a;
    }
    free(list);
    return ok;
}

/* The operands of a constant or composite type that must be defined
 * before it: [*lo, *hi) in words; false when it has none. Literals of
 * OpSpecConstantOp (composite indices, shuffle components) are left out. */
static bool earlier_operands(const sxp_module *m, const sxp_inst *in, uint32_t *lo, uint32_t *hi)
{
    *hi = in->wc;
    switch (in->op) {
    case SpvOpConstantComposite:
    case SpvOpSpecConstantComposite:
        *lo = 3;
        return true;
    case SpvOpSpecConstantOp: {
        if (in->wc < 5)
            return false;
        uint32_t op = m->words[in->off + 3];
        *lo = 4;
        if (op == SpvOpCompositeExtract)
            *hi = 5;
        else if (op == SpvOpCompositeInsert || op == SpvOpVectorShuffle)
            *hi = in->wc < 6 ? in->wc : 6;
        return true;
    }
    case SpvOpTypeStruct:
        *lo = 2;
        return true;
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
    case SpvOpTypeRuntimeArray:
        *lo = 2;
        *hi = in->wc < 3 ? in->wc : 3;
        return true;
    case SpvOpTypeArray:
        *lo = 2;
        *hi = in->wc < 4 ? in->wc : 4;
        return true;
    default:
        return false;
    }
}

/* Constants and composite types refer only to ids defined before them
 * (SPIR-V's rule; a struct may name a pointer declared by an earlier
 * OpTypeForwardPointer): a constant or type that contains itself, directly
 * or through later ones, is refused here, so every walk over constants and
 * types meets a DAG in module order (issue 26, finding 6). */
static bool constants_acyclic(const sxp_module *m)
{
    uint8_t *forward = NULL;
    bool ok = true;
    for (uint32_t i = 0; i < m->first_fn_inst && ok; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op == SpvOpTypeForwardPointer && in->wc >= 2 && m->words[in->off + 1] < m->nids) {
            if (!forward)
                forward = sxp_xcalloc(m->nids, 1);
            forward[m->words[in->off + 1]] = 1;
            continue;
        }
        uint32_t lo, hi;
        if (!earlier_operands(m, in, &lo, &hi))
            continue;
        for (uint32_t k = lo; k < hi; k++) {
            uint32_t id = m->words[in->off + k];
            if (id >= m->nids || m->def[id] == SXP_NONE || m->def[id] < i || (forward && forward[id]))
                continue;
            bool has_result, has_type;
            SpvHasResultAndType((SpvOp)in->op, &has_result, &has_type);
            sxp_error(m->path, in->off, "%s %%%u refers to %s (%%%u): constants and types may refer only to "
                      "earlier ones", opn(in->op), m->words[in->off + (has_type ? 2 : 1)],
                      m->def[id] == i ? "itself" : "an id defined after it", id);
            ok = false;
            break;
        }
    }
    free(forward);
    return ok;
}

bool sxp_module_parse(sxp_module *m, const char *path, const uint8_t *bytes, size_t size)
{
    memset(m, 0, sizeof *m);
    m->path = path;
    if (size % 4) {
        sxp_error(path, SXP_NONE, "size %zu is not a multiple of 4: not a SPIR-V module", size);
        return false;
    }
    if (size < 20) {
        sxp_error(path, SXP_NONE, "truncated: %zu bytes, a SPIR-V header alone is 20", size);
        return false;
    }
    if (size / 4 > UINT32_MAX / 2) {
        sxp_error(path, SXP_NONE, "too large: %zu bytes", size);
        return false;
    }
    m->nwords = (uint32_t)(size / 4);
    m->words = sxp_xmalloc(size);
    memcpy(m->words, bytes, size);
    if (m->words[0] == bswap32(SpvMagicNumber)) {
        m->swapped = true;
        for (uint32_t i = 0; i < m->nwords; i++)
            m->words[i] = bswap32(m->words[i]);
    } else if (m->words[0] != SpvMagicNumber) {
        sxp_error(path, 0, "wrong magic number 0x%08x (SPIR-V is 0x%08x)", m->words[0], SpvMagicNumber);
        return false;
    }
    m->version = m->words[1];
    m->generator = m->words[2];
    m->bound = m->nids = m->words[3];
    m->schema = m->words[4];
    uint32_t major = (m->version >> 16) & 0xff, minor = (m->version >> 8) & 0xff;
    if ((m->version & 0xff0000ffu) || major != 1 || minor > 6) {
        sxp_error(path, 1, "unsupported SPIR-V version 0x%08x (1.0 to 1.6 are read)", m->version);
        return false;
    }
    if (!m->nids || m->nids > MAX_BOUND) {
        sxp_error(path, 3, "id bound %u is out of range (1..%u)", m->nids, MAX_BOUND);
        return false;
    }
    /* Per-id tables are indexed by id: a bound far beyond what the words
     * could define is refused rather than allocated (no producer makes one). */
    if (m->nids > 16u * m->nwords + 1024u && !sxp_any_bound) {
        sxp_error(path, 3, "id bound %u is implausible for a module of %u words", m->nids, m->nwords);
        return false;
    }
    if (m->schema)
        sxp_warn(path, 4, "schema word is %u, not 0", m->schema);

    m->def = sxp_xmalloc(m->nids * sizeof *m->def);
    m->fn_of_id = sxp_xmalloc(m->nids * sizeof *m->fn_of_id);
    memset(m->def, 0xff, m->nids * sizeof *m->def);
    memset(m->fn_of_id, 0xff, m->nids * sizeof *m->fn_of_id);
    m->names = sxp_xcalloc(m->nids, sizeof *m->names);
    m->annots = sxp_xcalloc(m->nids, sizeof *m->annots);
    m->nannots = sxp_xcalloc(m->nids, sizeof *m->nannots);
    m->first_fn_inst = SXP_NONE;

    size_t inst_cap = 0, caps_cap = 0, ent_cap = 0, fn_cap = 0, callee_cap = 0;
    uint32_t decor_cap = 0;
    sxp_function *cur = NULL;
    uint32_t unknown_warned = 0;
    bool ok = true;

    for (uint32_t w = 5; w < m->nwords;) {
        uint32_t op = m->words[w] & 0xffff, wc = m->words[w] >> 16;
        if (!wc) {
            sxp_error(path, w, "instruction (opcode %u) has word count 0", op);
            return false;
        }
        if (wc > m->nwords - w) {
            sxp_error(path, w, "%s has word count %u but only %u words remain: truncated or bad word count",
                      opn(op), wc, m->nwords - w);
            return false;
        }
        sxp_grow(&m->insts, &inst_cap, m->ninsts, sizeof *m->insts);
        uint32_t idx = m->ninsts++;
        sxp_inst *in = &m->insts[idx];
        *in = (sxp_inst){w, (uint16_t)op, (uint16_t)wc};
        uint32_t end = w + wc;
        w = end;

        bool has_result, has_type;
        SpvHasResultAndType((SpvOp)op, &has_result, &has_type);
        if (!has_result && !has_type && !sxp_op_name(op)[0]) {
            /* Unknown to this spirv.h: skip it by its word count. */
            if (unknown_warned++ < 5)
                sxp_warn(path, in->off, "unknown opcode %u (%u words) skipped", op, wc);
            continue;
        }
        if (has_type) {
            if (!need(m, in, 3) || !check_id(m, in, m->words[in->off + 1], "result type"))
                return false;
        }
        if (has_result) {
            uint32_t rpos = in->off + (has_type ? 2 : 1);
            if (!need(m, in, has_type ? 3 : 2))
                return false;
            uint32_t id = m->words[rpos];
            if (!check_id(m, in, id, "result"))
                return false;
            if (m->def[id] != SXP_NONE) {
                sxp_error(path, in->off, "%s defines %%%u, already defined at word %u", opn(op), id,
                          m->insts[m->def[id]].off);
                return false;
            }
            m->def[id] = idx;
        }

        const uint32_t *iw = &m->words[in->off];
        switch (op) {
        case SpvOpCapability:
            if (!need(m, in, 2))
                return false;
            sxp_grow(&m->caps, &caps_cap, m->ncaps, sizeof *m->caps);
            m->caps[m->ncaps++] = iw[1];
            break;
        case SpvOpMemoryModel:
            if (!need(m, in, 3))
                return false;
            m->addressing = iw[1];
            break;
        case SpvOpEntryPoint: {
            if (!need(m, in, 4) || !check_id(m, in, iw[2], "entry point function"))
                return false;
            uint32_t sw = str_words(m, in->off + 3, end);
            if (!sw) {
                sxp_error(path, in->off, "OpEntryPoint name is not NUL-terminated within the instruction");
                return false;
            }
            for (uint32_t i = in->off + 3 + sw; i < end; i++)
                if (!check_id(m, in, m->words[i], "interface"))
                    return false;
            sxp_grow(&m->entries, &ent_cap, m->nentries, sizeof *m->entries);
            m->entries[m->nentries++] =
                (sxp_entry){iw[1], iw[2], in->off, sxp_xstrdup(sxp_module_string(m, in->off + 3))};
            break;
        }
        case SpvOpName:
            if (!need(m, in, 3) || !check_id(m, in, iw[1], "OpName target"))
                return false;
            if (!str_words(m, in->off + 2, end)) {
                sxp_error(path, in->off, "OpName string is not NUL-terminated within the instruction");
                return false;
            }
            m->names[iw[1]] = in->off + 2;
            break;
        case SpvOpDecorate:
        case SpvOpDecorateId:
        case SpvOpDecorateString: {
            if (!need(m, in, 3) || !check_id(m, in, iw[1], "decoration target"))
                return false;
            uint32_t dec = iw[2], lit = in->off + 3;
            if (dec == SpvDecorationUserSemantic || dec == SpvDecorationLinkageAttributes ||
                dec == SXP_DECORATION_HOST_ACCESS_INTEL) {
                uint32_t s = dec == SXP_DECORATION_HOST_ACCESS_INTEL ? lit + 1 : lit;
                uint32_t sw = s < end ? str_words(m, s, end) : 0;
                if (!sw) {
                    sxp_error(path, in->off, "%s string of %%%u is missing or not NUL-terminated",
                              dec == SpvDecorationUserSemantic ? "UserSemantic"
                              : dec == SpvDecorationLinkageAttributes ? "LinkageAttributes" : "HostAccessINTEL",
                              iw[1]);
                    return false;
                }
                if (dec == SpvDecorationLinkageAttributes && s + sw >= end) {
                    sxp_error(path, in->off, "LinkageAttributes of %%%u lacks its linkage type", iw[1]);
                    return false;
                }
            } else if ((dec == SpvDecorationFuncParamAttr || dec == SpvDecorationBuiltIn ||
                        dec == SpvDecorationAlignment) && !need(m, in, 4)) {
                return false;
            }
            add_decor(m, &decor_cap, iw[1], dec, idx, lit);
            break;
        }
        case SpvOpGroupDecorate: {
            if (!need(m, in, 2) || !check_id(m, in, iw[1], "decoration group"))
                return false;
            uint32_t n0 = m->ndecors;
            for (uint32_t i = in->off + 2; i < end; i++) {
                if (!check_id(m, in, m->words[i], "group target"))
                    return false;
                for (uint32_t d = 0; d < n0; d++)
                    if (m->decors[d].target == iw[1])
                        add_decor(m, &decor_cap, m->words[i], m->decors[d].decoration, m->decors[d].inst,
                                  m->decors[d].lit);
            }
            break;
        }
        case SpvOpFunction:
            if (cur) {
                sxp_error(path, in->off, "OpFunction inside function %%%u (no OpFunctionEnd)", cur->id);
                return false;
            }
            if (!need(m, in, 5) || !check_id(m, in, iw[4], "function type"))
                return false;
            if (m->first_fn_inst == SXP_NONE)
                m->first_fn_inst = idx;
            sxp_grow(&m->fns, &fn_cap, m->nfns, sizeof *m->fns);
            cur = &m->fns[m->nfns];
            memset(cur, 0, sizeof *cur);
            cur->id = iw[2];
            cur->result_type = iw[1];
            cur->control_word = in->off + 3;
            cur->type = iw[4];
            cur->first_inst = idx;
            cur->first_label = SXP_NONE;
            m->fn_of_id[iw[2]] = m->nfns++;
            callee_cap = 0;
            break;
        case SpvOpFunctionParameter:
            if (!cur || cur->first_label != SXP_NONE) {
                sxp_error(path, in->off, "OpFunctionParameter outside a function header");
                return false;
            }
            cur->params = sxp_xrealloc(cur->params, (cur->nparams + 1) * sizeof *cur->params);
            cur->params[cur->nparams++] = iw[2];
            break;
        case SpvOpLabel:
            if (!cur) {
                sxp_error(path, in->off, "OpLabel outside a function");
                return false;
            }
            if (cur->first_label == SXP_NONE)
                cur->first_label = idx;
            break;
        case SpvOpFunctionCall:
            if (!cur) {
                sxp_error(path, in->off, "OpFunctionCall outside a function");
                return false;
            }
            if (!need(m, in, 4) || !check_id(m, in, iw[3], "callee"))
                return false;
            sxp_grow(&cur->callees, &callee_cap, cur->ncallees, sizeof *cur->callees);
            cur->callees[cur->ncallees++] = iw[3];
            break;
        case SpvOpFunctionEnd:
            if (!cur) {
                sxp_error(path, in->off, "OpFunctionEnd outside a function");
                return false;
            }
            cur->end_inst = idx;
            cur = NULL;
            break;
        default:
            break;
        }
    }
    if (cur) {
        sxp_error(path, m->nwords, "truncated: function %%%u has no OpFunctionEnd", cur->id);
        return false;
    }
    if (m->first_fn_inst == SXP_NONE)
        m->first_fn_inst = m->ninsts;
    if (!constants_acyclic(m))
        return false;

    /* Every decoration must land on something the module defines. */
    for (uint32_t d = 0; d < m->ndecors; d++) {
        const sxp_decor *dc = &m->decors[d];
        if (m->def[dc->target] == SXP_NONE) {
            sxp_error(path, m->insts[dc->inst].off, "dangling decoration: %s targets %%%u, which no instruction defines",
                      opn(m->insts[dc->inst].op), dc->target);
            ok = false;
        }
    }
    for (uint32_t id = 1; id < m->nids; id++)
        if (m->names[id] && m->def[id] == SXP_NONE)
            sxp_warn(path, m->names[id] - 2, "OpName names %%%u, which no instruction defines", id);
    for (uint32_t e = 0; e < m->nentries; e++)
        if (m->fn_of_id[m->entries[e].fn] == SXP_NONE) {
            sxp_error(path, m->entries[e].word, "entry point '%s' names %%%u, which is not a function",
                      m->entries[e].name, m->entries[e].fn);
            ok = false;
        }
    for (uint32_t f = 0; f < m->nfns; f++)
        for (uint32_t c = 0; c < m->fns[f].ncallees; c++)
            if (m->fn_of_id[m->fns[f].callees[c]] == SXP_NONE) {
                sxp_error(path, m->insts[m->fns[f].first_inst].off,
                          "function %%%u calls %%%u, which is not a function", m->fns[f].id, m->fns[f].callees[c]);
                ok = false;
            }
    if (!ok)
        return false;

    /* Annotations, once every id is known to be defined. */
    for (uint32_t d = 0; d < m->ndecors; d++)
        if (m->decors[d].decoration == SpvDecorationUserSemantic &&
            !add_annots(m, m->decors[d].target, m->decors[d].lit))
            ok = false;
    m->drop = sxp_xcalloc(m->ninsts, 1);
    return ok;
}

void sxp_module_free(sxp_module *m)
{
    for (uint32_t e = 0; e < m->nentries; e++)
        free(m->entries[e].name);
    free(m->entries);
    for (uint32_t f = 0; f < m->nfns; f++) {
        free(m->fns[f].params);
        free(m->fns[f].callees);
    }
    free(m->fns);
    if (m->annots)
        for (uint32_t id = 0; id < m->nids; id++) {
            for (uint32_t j = 0; j < m->nannots[id]; j++) {
                free(m->annots[id][j].key);
                free(m->annots[id][j].value);
            }
            free(m->annots[id]);
        }
    free(m->annots);
    free(m->nannots);
    free(m->words);
    free(m->insts);
    free(m->def);
    free(m->fn_of_id);
    free(m->names);
    free(m->caps);
    free(m->decors);
    free(m->drop);
    if (m->after)
        for (uint32_t i = 0; i < m->ninsts; i++)
            sxp_buf_free(&m->after[i]);
    free(m->after);
    sxp_buf_free(&m->global_extra);
    sxp_buf_free(&m->fn_extra);
    memset(m, 0, sizeof *m);
}

const char *sxp_module_name(const sxp_module *m, uint32_t id)
{
    return id < m->nids && m->names[id] ? sxp_module_string(m, m->names[id]) : NULL;
}

const sxp_inst *sxp_module_def(const sxp_module *m, uint32_t id)
{
    return id < m->nids && m->def[id] != SXP_NONE ? &m->insts[m->def[id]] : NULL;
}

const sxp_decor *sxp_module_decor(const sxp_module *m, uint32_t id, uint32_t decoration, uint32_t *it)
{
    for (; *it < m->ndecors; (*it)++) {
        const sxp_decor *d = &m->decors[*it];
        if (d->target == id && d->decoration == decoration && !m->drop[d->inst]) {
            (*it)++;
            return d;
        }
    }
    return NULL;
}

bool sxp_module_linkage(const sxp_module *m, uint32_t id, const char **name, uint32_t *type)
{
    uint32_t it = 0;
    const sxp_decor *d = sxp_module_decor(m, id, SpvDecorationLinkageAttributes, &it);
    if (!d)
        return false;
    const sxp_inst *in = &m->insts[d->inst];
    uint32_t sw = str_words(m, d->lit, in->off + in->wc);
    if (name)
        *name = sxp_module_string(m, d->lit);
    if (type)
        *type = m->words[d->lit + sw];
    return true;
}

const sxp_annot *sxp_module_annot(const sxp_module *m, uint32_t id, const char *key)
{
    if (id >= m->nids)
        return NULL;
    for (uint32_t j = 0; j < m->nannots[id]; j++)
        if (!strcmp(m->annots[id][j].key, key))
            return &m->annots[id][j];
    return NULL;
}

uint32_t sxp_module_new_id(sxp_module *m)
{
    return m->bound++;
}

sxp_buf *sxp_module_after(sxp_module *m, uint32_t i)
{
    if (!m->after)
        m->after = sxp_xcalloc(m->ninsts, sizeof *m->after);
    return &m->after[i];
}

void sxp_emit(sxp_buf *b, uint32_t op, const uint32_t *ops, uint32_t n)
{
    sxp_buf_u32(b, ((n + 1) << 16) | op);
    for (uint32_t i = 0; i < n; i++)
        sxp_buf_u32(b, ops[i]);
}

/* -------------------------------------------------------------- writing */

static void write_inst(const sxp_module *m, uint32_t i, sxp_buf *out)
{
    if (!m->drop[i]) {
        const sxp_inst *in = &m->insts[i];
        for (uint32_t k = 0; k < in->wc; k++)
            sxp_buf_u32(out, m->words[in->off + k]);
    }
    if (m->after && m->after[i].len)
        sxp_buf_put(out, m->after[i].data, m->after[i].len);
}

/* Functions go out declarations first: the logical layout requires it and
 * llvm-spirv 14 puts imported declarations after definitions (spirv-val
 * rejects its output); the reordering changes nothing else. */
void sxp_module_write(const sxp_module *m, sxp_buf *out)
{
    sxp_buf_u32(out, SpvMagicNumber);
    sxp_buf_u32(out, m->version);
    sxp_buf_u32(out, m->generator);
    sxp_buf_u32(out, m->bound);
    sxp_buf_u32(out, m->schema);
    for (uint32_t i = 0; i < m->first_fn_inst; i++)
        write_inst(m, i, out);
    sxp_buf_put(out, m->global_extra.data, m->global_extra.len);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t f = 0; f < m->nfns; f++) {
            const sxp_function *fn = &m->fns[f];
            if ((fn->first_label == SXP_NONE) != (pass == 0))
                continue;
            for (uint32_t i = fn->first_inst; i <= fn->end_inst; i++)
                write_inst(m, i, out);
        }
    /* Anything outside functions after the first one (not valid SPIR-V,
     * but kept rather than lost). */
    uint32_t f = 0;
    for (uint32_t i = m->first_fn_inst; i < m->ninsts; i++) {
        while (f < m->nfns && m->fns[f].end_inst < i)
            f++;
        if (f < m->nfns && i >= m->fns[f].first_inst && i <= m->fns[f].end_inst)
            continue;
        write_inst(m, i, out);
    }
    sxp_buf_put(out, m->fn_extra.data, m->fn_extra.len);
}
