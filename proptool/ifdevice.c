/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ifdevice.c: the if_device pass: sycl-call-if-on-host bodies become an
 * immediate return in device images; DontInline goes from both kinds. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "proptool.h"

/* Defined (out of line) in spv-read.c from spirv.h's utility code. */
extern void SpvHasResultAndType(SpvOp opcode, bool *hasResult, bool *hasResultType);

static void strip_body(sxp_module *m, const sxp_function *f, uint8_t *removed)
{
    /* Keep OpFunction, its parameters and the first OpLabel; drop the rest
     * of the body and put a return after the label. */
    for (uint32_t i = f->first_label + 1; i < f->end_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        m->drop[i] = 1;
        bool has_result, has_type;
        SpvHasResultAndType((SpvOp)in->op, &has_result, &has_type);
        if (has_result) {
            uint32_t id = m->words[in->off + (has_type ? 2 : 1)];
            removed[id] = 1;
        }
    }
    sxp_buf *after = sxp_module_after(m, f->first_label);
    const sxp_inst *rt = sxp_module_def(m, f->result_type);
    if (rt && rt->op == SpvOpTypeVoid) {
        sxp_emit(after, SpvOpReturn, NULL, 0);
    } else {
        uint32_t undef = sxp_module_new_id(m);
        uint32_t ops[2] = {f->result_type, undef};
        sxp_emit(&m->global_extra, SpvOpUndef, ops, 2);
        sxp_emit(after, SpvOpReturnValue, &undef, 1);
    }
}

bool sxp_if_device_pass(sxp_module *m, const sxp_analysis *a)
{
    if (!a->nif_host && !a->nif_device)
        return true;
    uint8_t *removed = sxp_xcalloc(m->nids + 1, 1);
    bool any = false;
    for (uint32_t i = 0; i < a->nif_host; i++) {
        const sxp_function *f = &m->fns[m->fn_of_id[a->if_host_fns[i]]];
        m->words[f->control_word] &= ~(uint32_t)SpvFunctionControlDontInlineMask;
        if (f->first_label != SXP_NONE) {
            strip_body(m, f, removed);
            any = true;
        }
    }
    for (uint32_t i = 0; i < a->nif_device; i++) {
        const sxp_function *f = &m->fns[m->fn_of_id[a->if_device_fns[i]]];
        m->words[f->control_word] &= ~(uint32_t)SpvFunctionControlDontInlineMask;
    }
    if (any) {
        /* Names and decorations of ids that went with the bodies go too. */
        for (uint32_t i = 0; i < m->first_fn_inst; i++) {
            const sxp_inst *in = &m->insts[i];
            const uint32_t *w = &m->words[in->off];
            switch (in->op) {
            case SpvOpName:
            case SpvOpDecorate:
            case SpvOpDecorateId:
            case SpvOpDecorateString:
            case SpvOpMemberDecorate:
            case SpvOpMemberDecorateString:
            case SpvOpMemberName:
                if (in->wc >= 2 && w[1] < m->nids && removed[w[1]])
                    m->drop[i] = 1;
                break;
            case SpvOpGroupDecorate:
            case SpvOpGroupMemberDecorate: {
                uint32_t step = in->op == SpvOpGroupDecorate ? 1 : 2;
                bool hit = false;
                for (uint32_t k = 2; k < in->wc; k += step)
                    if (w[k] < m->nids && removed[w[k]])
                        hit = true;
                if (!hit)
                    break;
                m->drop[i] = 1;
                sxp_buf kept = {0};
                uint32_t n = 0;
                sxp_buf_u32(&kept, w[1]);
                n++;
                for (uint32_t k = 2; k + step - 1 < in->wc; k += step)
                    if (!(w[k] < m->nids && removed[w[k]])) {
                        for (uint32_t s = 0; s < step; s++)
                            sxp_buf_u32(&kept, w[k + s]);
                        n += step;
                    }
                if (n > 1)
                    sxp_emit(sxp_module_after(m, i), in->op, (const uint32_t *)kept.data, n);
                sxp_buf_free(&kept);
                break;
            }
            default:
                break;
            }
        }
    }
    free(removed);
    return true;
}
