/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* cleanup.c: drop what llvm-spirv 14 leaves behind that makes a module
 * invalid: the annotation strings of llvm.global.annotations become
 * module-scope variables of the Function storage class, referenced by nothing
 * (exported ones, such as vtables, stay). */
#include "config.h"

#include <stdlib.h>

#include <spirv/unified1/spirv.h>

#include "proptool.h"

static bool is_annotation(uint32_t op)
{
    return op == SpvOpName || op == SpvOpDecorate || op == SpvOpDecorateId || op == SpvOpDecorateString ||
           op == SpvOpMemberName || op == SpvOpMemberDecorate || op == SpvOpMemberDecorateString;
}

/* Words [lo, hi) of an instruction that may hold ids; the rest are
 * literals for the opcodes listed (everything else counts as ids, which
 * only ever keeps a variable). */
void sxp_id_words(const sxp_module *m, const sxp_inst *in, uint32_t *lo, uint32_t *hi)
{
    *lo = 1;
    *hi = in->wc;
    switch (in->op) {
    case SpvOpCapability: case SpvOpExtension: case SpvOpExtInstImport: case SpvOpMemoryModel:
    case SpvOpSource: case SpvOpSourceExtension: case SpvOpSourceContinued: case SpvOpString:
    case SpvOpLine: case SpvOpNoLine: case SpvOpModuleProcessed: case SpvOpExecutionMode:
    case SpvOpExecutionModeId: case SpvOpEntryPoint: case SpvOpConstant: case SpvOpSpecConstant:
    case SpvOpConstantTrue: case SpvOpConstantFalse: case SpvOpSpecConstantTrue: case SpvOpSpecConstantFalse:
    case SpvOpConstantNull: case SpvOpUndef: case SpvOpLabel: case SpvOpDecorationGroup:
    case SpvOpSelectionMerge: case SpvOpLoopMerge: case SpvOpFunctionParameter:
        *hi = 0;
        break;
    case SpvOpFunction: *lo = 4; break;               /* only the function type */
    case SpvOpVariable: *lo = 4; break;               /* only the initializer */
    case SpvOpLoad: *hi = in->wc < 4 ? in->wc : 4; break;
    case SpvOpStore: *hi = in->wc < 3 ? in->wc : 3; break;
    case SpvOpCopyMemory: *hi = in->wc < 3 ? in->wc : 3; break;
    case SpvOpCopyMemorySized: *hi = in->wc < 4 ? in->wc : 4; break;
    case SpvOpCompositeExtract: *hi = in->wc < 4 ? in->wc : 4; break;
    case SpvOpCompositeInsert: *hi = in->wc < 5 ? in->wc : 5; break;
    case SpvOpVectorShuffle: *hi = in->wc < 5 ? in->wc : 5; break;
    case SpvOpBranchConditional: *hi = in->wc < 4 ? in->wc : 4; break;
    case SpvOpSwitch: *hi = in->wc < 3 ? in->wc : 3; break;  /* labels after are ids, but never variables */
    case SpvOpExtInst:
        if (in->wc >= 5) {
            *lo = 1;
            /* word 4 is the extended instruction number */
            (void)m;
        }
        break;
    default:
        if (in->op >= SpvOpTypeVoid && in->op <= SpvOpTypeForwardPointer)
            *hi = 0;  /* types never name variables */
        break;
    }
}

void sxp_cleanup(sxp_module *m)
{
    uint8_t *cand = sxp_xcalloc(m->nids, 1);
    uint32_t ncand = 0;
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        uint32_t lt = SXP_NONE;
        /* Exported ones (clang-14's vtables) are another module's to use. */
        if (in->op == SpvOpVariable && in->wc >= 4 && m->words[in->off + 3] == SpvStorageClassFunction &&
            !(sxp_module_linkage(m, m->words[in->off + 2], NULL, &lt) && lt == SpvLinkageTypeExport)) {
            cand[m->words[in->off + 2]] = 1;
            ncand++;
        }
    }
    if (!ncand) {
        free(cand);
        return;
    }
    /* Conservative: any word that may be an id and equals the variable's
     * keeps it. */
    for (uint32_t i = 0; i < m->ninsts; i++) {
        const sxp_inst *in = &m->insts[i];
        if (is_annotation(in->op) || m->drop[i])
            continue;
        uint32_t lo, hi;
        sxp_id_words(m, in, &lo, &hi);
        for (uint32_t k = lo; k < hi; k++) {
            if (in->op == SpvOpExtInst && k == 4)
                continue;
            uint32_t w = m->words[in->off + k];
            if (w < m->nids && cand[w])
                cand[w] = 2;
        }
    }
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op == SpvOpVariable && in->wc >= 4 && cand[m->words[in->off + 2]] == 1)
            m->drop[i] = 1;
        else if (is_annotation(in->op) && in->wc >= 2 && m->words[in->off + 1] < m->nids &&
                 cand[m->words[in->off + 1]] == 1)
            m->drop[i] = 1;
    }
    free(cand);
}
