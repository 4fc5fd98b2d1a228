/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// atomics.cpp: OpenCL C's 32- and 64-bit integer atomic builtins
// (atomic_* and atom_*: add, sub, xchg, inc, dec, min, max, and, or, xor,
// cmpxchg) as LLVM atomic instructions, sequentially consistent, instead of
// out-of-line calls into the builtins module: one `lock xadd` where a
// histogram or a counter in a work-item loop made a call per work-item.
#include "wgc.h"

#include <llvm/IR/Instructions.h>
#include <llvm/IR/InstIterator.h>

using namespace llvm;

namespace wgc {

namespace {

// "atomic_add" of "_Z10atomic_addPU8CLglobalVii", and the pointee's
// Itanium code (i, j, l, m) after the first "V" (volatile) of the rest.
bool parse(StringRef n, std::string &base, char &elem)
{
    if (!n.consume_front("_Z"))
        return false;
    size_t len = 0, i = 0;
    while (i < n.size() && isdigit((unsigned char)n[i]))
        len = len * 10 + (size_t)(n[i++] - '0');
    if (!len || i + len > n.size())
        return false;
    base = n.substr(i, len).str();
    StringRef rest = n.substr(i + len);
    size_t v = rest.find('V');
    if (!rest.startswith("P") || v == StringRef::npos || v + 1 >= rest.size())
        return false;
    elem = rest[v + 1];
    return elem == 'i' || elem == 'j' || elem == 'l' || elem == 'm';
}

}  // namespace

unsigned inlineAtomics(Module &M)
{
    unsigned n = 0;
    for (Function &F : M) {
        if (F.isDeclaration())
            continue;
        for (Instruction &I : make_early_inc_range(instructions(F))) {
            auto *CB = dyn_cast<CallInst>(&I);
            Function *G = CB ? CB->getCalledFunction() : nullptr;
            std::string base;
            char elem;
            if (!G || !G->isDeclaration() || !parse(G->getName(), base, elem))
                continue;
            StringRef b(base);
            if (!b.consume_front("atomic_") && !b.consume_front("atom_"))
                continue;
            bool uns = elem == 'j' || elem == 'm';
            unsigned bits = elem == 'i' || elem == 'j' ? 32 : 64;
            Value *p = CB->getArgOperand(0);
            auto *PT = dyn_cast<PointerType>(p->getType());
            Type *T = CB->getType();
            if (!PT || !T->isIntegerTy(bits) || (!PT->isOpaque() && PT->getElementType() != T))
                continue;
            auto arg = [&](unsigned i) -> Value * {
                return i < CB->arg_size() && CB->getArgOperand(i)->getType() == T ? CB->getArgOperand(i) : nullptr;
            };
            AtomicRMWInst::BinOp op;
            Value *v = nullptr;
            unsigned want = 2;
            if (b == "add") op = AtomicRMWInst::Add;
            else if (b == "sub") op = AtomicRMWInst::Sub;
            else if (b == "xchg") op = AtomicRMWInst::Xchg;
            else if (b == "and") op = AtomicRMWInst::And;
            else if (b == "or") op = AtomicRMWInst::Or;
            else if (b == "xor") op = AtomicRMWInst::Xor;
            else if (b == "min") op = uns ? AtomicRMWInst::UMin : AtomicRMWInst::Min;
            else if (b == "max") op = uns ? AtomicRMWInst::UMax : AtomicRMWInst::Max;
            else if (b == "inc" || b == "dec") {
                op = b == "inc" ? AtomicRMWInst::Add : AtomicRMWInst::Sub;
                v = ConstantInt::get(T, 1);
                want = 1;
            } else if (b == "cmpxchg") {
                Value *cmp = arg(1), *val = arg(2);
                if (CB->arg_size() != 3 || !cmp || !val)
                    continue;
                auto *X = new AtomicCmpXchgInst(p, cmp, val, Align(bits / 8), AtomicOrdering::SequentiallyConsistent,
                                                AtomicOrdering::SequentiallyConsistent, SyncScope::System, CB);
                Value *old = ExtractValueInst::Create(X, {0}, "", CB);
                CB->replaceAllUsesWith(old);
                CB->eraseFromParent();
                n++;
                continue;
            } else {
                continue;
            }
            if (!v)
                v = arg(1);
            if (CB->arg_size() != want || !v)
                continue;
            auto *R = new AtomicRMWInst(op, p, v, Align(bits / 8), AtomicOrdering::SequentiallyConsistent,
                                        SyncScope::System, CB);
            CB->replaceAllUsesWith(R);
            CB->eraseFromParent();
            n++;
        }
    }
    return n;
}

}  // namespace wgc
