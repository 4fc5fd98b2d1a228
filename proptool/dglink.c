/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dglink.c: device globals with internal linkage (C/C++ `static`) get an
 * exported name, so that every backend finds them by the symbol the image
 * records for their unique id (issue 29, point 5: Intel's CPU runtime finds
 * program variables only by exported names; a set image imports the
 * kernels' device globals by name). The module's words are rewritten and
 * parsed again: one `OpDecorate %var LinkageAttributes "<name>" Export` per
 * such variable after the last annotation, and `OpCapability Linkage`
 * when the module lacks it. The name is the variable's OpName (what every
 * SPIR-V reader calls it), else its unique id. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "proptool.h"

static bool has_linkage_cap(const sxp_module *m)
{
    for (uint32_t i = 0; i < m->ncaps; i++)
        if (m->caps[i] == SpvCapabilityLinkage)
            return true;
    return false;
}

static bool is_annotation(uint32_t op)
{
    return op == SpvOpDecorate || op == SpvOpDecorateId || op == SpvOpDecorateString || op == SpvOpMemberDecorate ||
           op == SpvOpMemberDecorateString || op == SpvOpGroupDecorate || op == SpvOpGroupMemberDecorate ||
           op == SpvOpDecorationGroup;
}

/* Where annotations end: after the last one, else before the first type,
 * constant or variable (the logical layout's order). */
static uint32_t insertion_point(const sxp_module *m)
{
    uint32_t at = SXP_NONE;
    for (uint32_t i = 0; i < m->first_fn_inst; i++)
        if (is_annotation(m->insts[i].op))
            at = i + 1;
    if (at != SXP_NONE)
        return at;
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        uint32_t op = m->insts[i].op;
        if ((op >= SpvOpTypeVoid && op <= SpvOpTypeForwardPointer) || op == SpvOpVariable ||
            (op >= SpvOpConstantTrue && op <= SpvOpSpecConstantOp))
            return i;
    }
    return m->first_fn_inst;
}

static void put_string(sxp_buf *b, const char *s)
{
    size_t len = strlen(s) + 1, words = (len + 3) / 4;
    char *pad = sxp_xcalloc(words, 4);
    memcpy(pad, s, len - 1);
    sxp_buf_put(b, pad, words * 4);
    free(pad);
}

bool sxp_dg_export_internal(const sxp_module *m, const sxp_analysis *a, uint8_t **bytes, size_t *size)
{
    sxp_buf deco = {0};
    for (uint32_t g = 0; g < a->nglobals; g++) {
        const sxp_global *dg = &a->globals[g];
        if (sxp_module_linkage(m, dg->var, NULL, NULL))
            continue;
        const char *name = sxp_module_name(m, dg->var);
        if (!name || !*name)
            name = dg->uid;
        sxp_buf one = {0};
        put_string(&one, name);
        uint32_t wc = 3 + (uint32_t)(one.len / 4) + 1;
        sxp_buf_u32(&deco, wc << 16 | SpvOpDecorate);
        sxp_buf_u32(&deco, dg->var);
        sxp_buf_u32(&deco, SpvDecorationLinkageAttributes);
        sxp_buf_put(&deco, one.data, one.len);
        sxp_buf_u32(&deco, SpvLinkageTypeExport);
        sxp_buf_free(&one);
    }
    if (!deco.len)
        return false;
    sxp_buf out = {0};
    uint32_t at = insertion_point(m);
    sxp_buf_put(&out, m->words, 5 * 4);
    if (!has_linkage_cap(m)) {
        sxp_buf_u32(&out, 2u << 16 | SpvOpCapability);
        sxp_buf_u32(&out, SpvCapabilityLinkage);
    }
    uint32_t split = at < m->ninsts ? m->insts[at].off : m->nwords;
    sxp_buf_put(&out, m->words + 5, (size_t)(split - 5) * 4);
    sxp_buf_put(&out, deco.data, deco.len);
    sxp_buf_put(&out, m->words + split, (size_t)(m->nwords - split) * 4);
    sxp_buf_free(&deco);
    *bytes = out.data;
    *size = out.len;
    return true;
}
