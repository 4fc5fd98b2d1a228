/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* accessors.c: device-global accessor kernels (--device-global-accessors,
 * issue 5). Backends with no way to reach a program variable by name
 * (OpenCL without cl_intel_global_variable_access) launch these instead;
 * the form is the OpenCL adapter's (adapters/opencl/globals.c):
 *
 *   kernel void __sx_dg_access_<symbol>(global uchar *buf, ulong offset,
 *                                       ulong count, uint op)
 *     op 0: *(global ulong *)buf = sizeof(variable)
 *     op 1: buf[i] = ((uchar *)&variable)[offset + i], i < count  (read)
 *     op 2: ((uchar *)&variable)[offset + i] = buf[i], i < count  (write)
 *     op 3: *(global uchar *global *)&variable = buf                (bind)
 *
 * in one work-item; <symbol> is the name the runtime asks the adapter for
 * (the "@global_id_mapping" symbol). For a device_image_scope variable the
 * bytes are T's and op 3 does nothing; otherwise the variable is the
 * pointer slot: writing sizeof(void *) bytes at 0 binds a USM instance,
 * and op 3 binds an instance that is an OpenCL buffer (devices without
 * USM or SVM, the chipStar way): the kernel stores the buffer argument's
 * own address into the slot, which no host API can tell. Any other op
 * does nothing. The runtime checks offset and count against the size;
 * the kernel trusts them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/spirv.h>

#include "proptool.h"

typedef struct gen {
    sxp_module *m;
    /* Types this pass added (op + operands), found again before adding twice. */
    uint32_t added[32][6];
    uint32_t nadded;
} gen;

/* An existing type instruction with these operands (after the result id),
 * or a new one appended to the global section. */
static uint32_t type_id(gen *g, uint32_t op, const uint32_t *ops, uint32_t n)
{
    sxp_module *m = g->m;
    for (uint32_t i = 0; i < m->first_fn_inst; i++) {
        const sxp_inst *in = &m->insts[i];
        if (in->op != op || in->wc != n + 2 || m->drop[i])
            continue;
        if (!n || !memcmp(&m->words[in->off + 2], ops, n * 4))
            return m->words[in->off + 1];
    }
    for (uint32_t i = 0; i < g->nadded; i++)
        if (g->added[i][0] == op && g->added[i][1] == n && (!n || !memcmp(&g->added[i][3], ops, n * 4)))
            return g->added[i][2];
    uint32_t id = sxp_module_new_id(m), w[8];
    w[0] = id;
    if (n)
        memcpy(w + 1, ops, n * 4);
    sxp_emit(&m->global_extra, op, w, n + 1);
    if (g->nadded < 32 && n <= 3) {
        g->added[g->nadded][0] = op;
        g->added[g->nadded][1] = n;
        g->added[g->nadded][2] = id;
        if (n)
            memcpy(&g->added[g->nadded][3], ops, n * 4);
        g->nadded++;
    }
    return id;
}

static uint32_t constant(gen *g, uint32_t type, uint64_t v, bool wide)
{
    uint32_t id = sxp_module_new_id(g->m);
    uint32_t w[4] = {type, id, (uint32_t)v, (uint32_t)(v >> 32)};
    sxp_emit(&g->m->global_extra, SpvOpConstant, w, wide ? 4 : 3);
    return id;
}

static bool has_cap(const sxp_module *m, uint32_t cap)
{
    for (uint32_t i = 0; i < m->ncaps; i++)
        if (m->caps[i] == cap)
            return true;
    return false;
}

static uint32_t last_inst(const sxp_module *m, uint32_t op)
{
    uint32_t r = SXP_NONE;
    for (uint32_t i = 0; i < m->first_fn_inst; i++)
        if (m->insts[i].op == op)
            r = i;
    return r;
}

/* FNV-1a: accessor names from unique ids, stable across images. */
static uint64_t fnv(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

static void emit(sxp_buf *b, uint32_t op, const uint32_t *w, uint32_t n)
{
    sxp_emit(b, op, w, n);
}

static bool c_identifier(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

bool sxp_add_global_accessors(sxp_module *m, sxp_analysis *a)
{
    if (!a->nglobals)
        return true;
    if (m->addressing != SpvAddressingModelPhysical64) {
        sxp_error(m->path, SXP_NONE, "--device-global-accessors needs the Physical64 addressing model");
        return false;
    }
    gen g = {.m = m};
    /* Capabilities the accessors need, after the module's own. */
    uint32_t capi = last_inst(m, SpvOpCapability);
    if (capi == SXP_NONE) {
        sxp_error(m->path, SXP_NONE, "module has no OpCapability");
        return false;
    }
    static const uint32_t need[] = {SpvCapabilityInt8, SpvCapabilityInt64};
    for (size_t i = 0; i < 2; i++)
        if (!has_cap(m, need[i]))
            emit(sxp_module_after(m, capi), SpvOpCapability, &need[i], 1);

    uint32_t ops[6];
    uint32_t t_void = type_id(&g, SpvOpTypeVoid, NULL, 0);
    uint32_t t_bool = type_id(&g, SpvOpTypeBool, NULL, 0);
    ops[0] = 8, ops[1] = 0;
    uint32_t t_u8 = type_id(&g, SpvOpTypeInt, ops, 2);
    ops[0] = 32;
    uint32_t t_u32 = type_id(&g, SpvOpTypeInt, ops, 2);
    ops[0] = 64;
    uint32_t t_u64 = type_id(&g, SpvOpTypeInt, ops, 2);
    ops[0] = SpvStorageClassCrossWorkgroup, ops[1] = t_u8;
    uint32_t t_ptr = type_id(&g, SpvOpTypePointer, ops, 2);
    ops[1] = t_u64;
    uint32_t t_ptr64 = type_id(&g, SpvOpTypePointer, ops, 2);
    ops[1] = t_ptr;
    uint32_t t_pptr = type_id(&g, SpvOpTypePointer, ops, 2);  /* the slot, as global uchar *global * */
    uint32_t fops[5] = {t_void, t_ptr, t_u64, t_u64, t_u32};
    uint32_t t_fn = type_id(&g, SpvOpTypeFunction, fops, 5);
    uint32_t c0 = constant(&g, t_u64, 0, true), c1 = constant(&g, t_u64, 1, true);
    uint32_t op0 = constant(&g, t_u32, 0, false), op1 = constant(&g, t_u32, 1, false),
             op2 = constant(&g, t_u32, 2, false), op3 = constant(&g, t_u32, 3, false);

    uint32_t epi = last_inst(m, SpvOpEntryPoint);
    if (epi == SXP_NONE)
        epi = last_inst(m, SpvOpMemoryModel);
    uint32_t namei = last_inst(m, SpvOpName);
    bool iface_all = m->version >= 0x00010400;  /* 1.4+: every global the entry uses */
    a->accessors = sxp_xcalloc(a->nglobals, sizeof *a->accessors);
    a->kernels = sxp_xrealloc(a->kernels, (a->nkernels + a->nglobals) * sizeof *a->kernels);
    for (uint32_t gi = 0; gi < a->nglobals; gi++) {
        const sxp_global *gl = &a->globals[gi];
        const sxp_inst *vin = sxp_module_def(m, gl->var);
        if (!vin || m->words[vin->off + 3] != SpvStorageClassCrossWorkgroup) {
            sxp_warn(m->path, gl->word, "device global '%s' is not CrossWorkgroup: no accessor kernel", gl->uid);
            continue;
        }
        const char *sym = gl->symbol ? gl->symbol : gl->uid;
        char *name = c_identifier(sym) ? sxp_xasprintf("__sx_dg_access_%s", sym)
                                       : sxp_xasprintf("__sx_dg_access_%016llx", (unsigned long long)fnv(sym));
        for (uint32_t k = 0; k < a->nkernels; k++)
            if (!strcmp(a->kernels[k].name, name)) {
                sxp_error(m->path, gl->word, "accessor kernel '%s' clashes with a kernel of that name", name);
                free(name);
                return false;
            }
        uint32_t c_size = constant(&g, t_u64, gl->var_size, true);
        /* op 3 only where the variable is a pointer slot. */
        bool bind = !gl->image_scope && gl->var_size == 8;
        if (!gl->image_scope && !bind)
            sxp_warn(m->path, gl->word, "device global '%s' is a %u-byte variable, not a pointer slot: "
                     "its accessor has no bind operation", gl->uid, gl->var_size);
        enum { FN, BUF, OFF, CNT, OP, L_ENTRY, L_SIZE, L_COPY, L_LOOP, L_READ, L_WRITE, L_CONT, L_EXIT, BASE,
               ISSIZE, PB, NONE, BADOP, SKIP, I, VIDX, VP, BP, ISREAD, V, B, NEXT, DONE, ISBIND, L_BIND, L_COPY2,
               SLOT, NIDS };
        uint32_t id[NIDS];
        for (int k = 0; k < NIDS; k++)
            id[k] = sxp_module_new_id(m);
        sxp_buf *f = &m->fn_extra;
        emit(f, SpvOpFunction, (uint32_t[]){t_void, id[FN], SpvFunctionControlMaskNone, t_fn}, 4);
        emit(f, SpvOpFunctionParameter, (uint32_t[]){t_ptr, id[BUF]}, 2);
        emit(f, SpvOpFunctionParameter, (uint32_t[]){t_u64, id[OFF]}, 2);
        emit(f, SpvOpFunctionParameter, (uint32_t[]){t_u64, id[CNT]}, 2);
        emit(f, SpvOpFunctionParameter, (uint32_t[]){t_u32, id[OP]}, 2);
        emit(f, SpvOpLabel, &id[L_ENTRY], 1);
        emit(f, SpvOpBitcast, (uint32_t[]){t_ptr, id[BASE], gl->var}, 3);
        emit(f, SpvOpIEqual, (uint32_t[]){t_bool, id[ISSIZE], id[OP], op0}, 4);
        emit(f, SpvOpBranchConditional, (uint32_t[]){id[ISSIZE], id[L_SIZE], id[L_COPY]}, 3);
        /* op 0: the size, as a ulong */
        emit(f, SpvOpLabel, &id[L_SIZE], 1);
        emit(f, SpvOpBitcast, (uint32_t[]){t_ptr64, id[PB], id[BUF]}, 3);
        emit(f, SpvOpStore, (uint32_t[]){id[PB], c_size}, 2);
        emit(f, SpvOpBranch, &id[L_EXIT], 1);
        emit(f, SpvOpLabel, &id[L_COPY], 1);
        if (bind) {
            /* op 3: the slot takes buf's address */
            emit(f, SpvOpIEqual, (uint32_t[]){t_bool, id[ISBIND], id[OP], op3}, 4);
            emit(f, SpvOpBranchConditional, (uint32_t[]){id[ISBIND], id[L_BIND], id[L_COPY2]}, 3);
            emit(f, SpvOpLabel, &id[L_BIND], 1);
            emit(f, SpvOpBitcast, (uint32_t[]){t_pptr, id[SLOT], gl->var}, 3);
            emit(f, SpvOpStore, (uint32_t[]){id[SLOT], id[BUF], SpvMemoryAccessAlignedMask, 8}, 4);
            emit(f, SpvOpBranch, &id[L_EXIT], 1);
            emit(f, SpvOpLabel, &id[L_COPY2], 1);
        }
        /* ops 1 and 2 copy; nothing for count 0 or another op */
        emit(f, SpvOpIEqual, (uint32_t[]){t_bool, id[NONE], id[CNT], c0}, 4);
        emit(f, SpvOpUGreaterThan, (uint32_t[]){t_bool, id[BADOP], id[OP], op2}, 4);
        emit(f, SpvOpLogicalOr, (uint32_t[]){t_bool, id[SKIP], id[NONE], id[BADOP]}, 4);
        emit(f, SpvOpBranchConditional, (uint32_t[]){id[SKIP], id[L_EXIT], id[L_LOOP]}, 3);
        emit(f, SpvOpLabel, &id[L_LOOP], 1);
        emit(f, SpvOpPhi, (uint32_t[]){t_u64, id[I], c0, id[bind ? L_COPY2 : L_COPY], id[NEXT], id[L_CONT]}, 6);
        emit(f, SpvOpIAdd, (uint32_t[]){t_u64, id[VIDX], id[OFF], id[I]}, 4);
        emit(f, SpvOpInBoundsPtrAccessChain, (uint32_t[]){t_ptr, id[VP], id[BASE], id[VIDX]}, 4);
        emit(f, SpvOpInBoundsPtrAccessChain, (uint32_t[]){t_ptr, id[BP], id[BUF], id[I]}, 4);
        emit(f, SpvOpIEqual, (uint32_t[]){t_bool, id[ISREAD], id[OP], op1}, 4);
        emit(f, SpvOpBranchConditional, (uint32_t[]){id[ISREAD], id[L_READ], id[L_WRITE]}, 3);
        emit(f, SpvOpLabel, &id[L_READ], 1);
        emit(f, SpvOpLoad, (uint32_t[]){t_u8, id[V], id[VP]}, 3);
        emit(f, SpvOpStore, (uint32_t[]){id[BP], id[V]}, 2);
        emit(f, SpvOpBranch, &id[L_CONT], 1);
        emit(f, SpvOpLabel, &id[L_WRITE], 1);
        emit(f, SpvOpLoad, (uint32_t[]){t_u8, id[B], id[BP]}, 3);
        emit(f, SpvOpStore, (uint32_t[]){id[VP], id[B]}, 2);
        emit(f, SpvOpBranch, &id[L_CONT], 1);
        emit(f, SpvOpLabel, &id[L_CONT], 1);
        emit(f, SpvOpIAdd, (uint32_t[]){t_u64, id[NEXT], id[I], c1}, 4);
        emit(f, SpvOpUGreaterThanEqual, (uint32_t[]){t_bool, id[DONE], id[NEXT], id[CNT]}, 4);
        emit(f, SpvOpBranchConditional, (uint32_t[]){id[DONE], id[L_EXIT], id[L_LOOP]}, 3);
        emit(f, SpvOpLabel, &id[L_EXIT], 1);
        emit(f, SpvOpReturn, NULL, 0);
        emit(f, SpvOpFunctionEnd, NULL, 0);

        /* OpEntryPoint Kernel %fn "name" [%var] */
        size_t nl = strlen(name), sw = nl / 4 + 1;
        uint32_t *ew = sxp_xcalloc(3 + sw, 4);
        ew[0] = SpvExecutionModelKernel;
        ew[1] = id[FN];
        memcpy(&ew[2], name, nl);
        uint32_t en = 2 + (uint32_t)sw;
        if (iface_all)
            ew[en++] = gl->var;
        emit(sxp_module_after(m, epi), SpvOpEntryPoint, ew, en);
        if (namei != SXP_NONE) {
            ew[0] = id[FN];
            memset(&ew[1], 0, sw * 4);
            memcpy(&ew[1], name, nl);
            emit(sxp_module_after(m, namei), SpvOpName, ew, 1 + (uint32_t)sw);
        }
        free(ew);

        sxp_kernel *k = &a->kernels[a->nkernels++];
        memset(k, 0, sizeof *k);
        k->name = sxp_xstrdup(name);
        k->kind = SX_KERNEL_KIND_PLAIN;
        k->nparams = k->num_source_params = 4;
        k->params = sxp_xcalloc(4, sizeof *k->params);
        k->params[0] = (sxp_param){SX_PARAM_POINTER, 0, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, 0, NULL};
        k->params[1] = (sxp_param){SX_PARAM_VALUE, SX_SCALAR_U64, 8, 8, 0, 1, 0, NULL};
        k->params[2] = (sxp_param){SX_PARAM_VALUE, SX_SCALAR_U64, 8, 8, 0, 2, 0, NULL};
        k->params[3] = (sxp_param){SX_PARAM_VALUE, SX_SCALAR_U32, 4, 4, 0, 3, 0, NULL};
        k->generated = true;
        a->accessors[gi] = name;
    }
    return true;
}
