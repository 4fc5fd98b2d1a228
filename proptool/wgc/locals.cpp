/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// locals.cpp: kernel-scope __local variables. Each becomes an offset into
// the group's block ctx->local_mem (contract: local_bytes per kernel), so
// every work-group has its own copy and groups can run in parallel.
#include "wgc.h"

#include <set>

#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

using namespace llvm;

namespace wgc {

static void collectLocals(const Value *V, std::set<const Value *> &seen, std::vector<GlobalVariable *> &out)
{
    if (!seen.insert(V).second)
        return;
    if (auto *G = dyn_cast<GlobalVariable>(V)) {
        if (G->getAddressSpace() == 3)
            out.push_back(const_cast<GlobalVariable *>(G));
        return;
    }
    if (auto *CE = dyn_cast<ConstantExpr>(V))
        for (const Use &op : CE->operands())
            collectLocals(op.get(), seen, out);
}

LocalLayout layoutLocals(Function &K)
{
    LocalLayout L;
    std::set<const Value *> seen;
    std::vector<GlobalVariable *> vars;
    for (Instruction &I : instructions(K))
        for (const Use &op : I.operands())
            if (isa<Constant>(op.get()))
                collectLocals(op.get(), seen, vars);
    const DataLayout &DL = K.getParent()->getDataLayout();
    for (GlobalVariable *G : vars) {
        uint64_t align = std::max<uint64_t>({G->getAlign() ? G->getAlign()->value() : 1,
                                             DL.getABITypeAlign(G->getValueType()).value(), 16});
        L.bytes = (L.bytes + align - 1) / align * align;
        L.vars.push_back({G, L.bytes});
        L.bytes += DL.getTypeAllocSize(G->getValueType());
    }
    return L;
}

void replaceLocals(Function &F, const LocalLayout &L, Value *base)
{
    IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
    for (auto &v : L.vars) {
        expandConstantUses(v.first);
        Value *p = nullptr;
        for (Use &U : make_early_inc_range(v.first->uses())) {
            auto *I = dyn_cast<Instruction>(U.getUser());
            if (!I || I->getFunction() != &F)
                continue;
            if (!p) {
                Value *at = B.CreateGEP(B.getInt8Ty(), base, B.getInt64(v.second), v.first->getName());
                p = B.CreatePointerBitCastOrAddrSpaceCast(at, v.first->getType());
            }
            U.set(p);
        }
    }
}

}  // namespace wgc
