/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// scalarize.cpp: a work-group function's vector values split into their
// lanes, so that the host compiler's loop vectoriser can put work-items in
// the vector lanes. LLVM's loop vectoriser takes no loop with a value of
// vector type or a call of llvm.memcpy in it, and SYCL code is full of
// both: sycl::vec<float, 4> in private arrays, copied whole (dpnp's
// element-wise kernels; logaddexp's x loop stayed scalar, exp and log1p
// through libm per element). Small constant copies and fills become loads
// and stores, then LLVM's scalarizer splits every vector operation, load
// and store into lanes; SLP vectorisation packs what stays straight-line.
#include "wgc.h"
#include "passes.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Support/CommandLine.h>

using namespace llvm;

namespace wgc {

namespace {

// memcpy, memmove and memset of a constant 64 bytes or fewer: one load of
// the whole (before any store: memmove's overlap is fine) and one store.
unsigned expandSmallMemOps(Function &W)
{
    unsigned n = 0;
    for (Instruction &I : make_early_inc_range(instructions(W))) {
        auto *M = dyn_cast<MemIntrinsic>(&I);
        auto *len = M ? dyn_cast<ConstantInt>(M->getLength()) : nullptr;
        if (!M || M->isVolatile() || !len || len->isZero() || len->getZExtValue() > 64)
            continue;
        uint64_t bytes = len->getZExtValue();
        IRBuilder<> B(M);
        Type *T = bytes % 4 ? (Type *)FixedVectorType::get(B.getInt8Ty(), (unsigned)bytes)
                            : (Type *)FixedVectorType::get(B.getInt32Ty(), (unsigned)(bytes / 4));
        Value *v;
        if (auto *S = dyn_cast<MemSetInst>(M)) {
            auto *byte = dyn_cast<ConstantInt>(S->getValue());
            if (!byte)
                continue;
            uint32_t b = (uint32_t)byte->getZExtValue() & 0xff;
            v = bytes % 4 ? ConstantVector::getSplat(ElementCount::getFixed((unsigned)bytes), B.getInt8((uint8_t)b))
                          : ConstantVector::getSplat(ElementCount::getFixed((unsigned)(bytes / 4)),
                                                     B.getInt32(b * 0x01010101u));
        } else {
            auto *T2 = cast<MemTransferInst>(M);
            Value *src = B.CreateBitCast(T2->getRawSource(), T->getPointerTo(T2->getSourceAddressSpace()));
            LoadInst *L = B.CreateAlignedLoad(T, src, T2->getSourceAlign().valueOrOne());
            L->copyMetadata(*M, {LLVMContext::MD_access_group, LLVMContext::MD_alias_scope, LLVMContext::MD_noalias});
            v = L;
        }
        Value *dst = B.CreateBitCast(M->getRawDest(), T->getPointerTo(M->getDestAddressSpace()));
        StoreInst *St = B.CreateAlignedStore(v, dst, M->getDestAlign().valueOrOne());
        St->copyMetadata(*M, {LLVMContext::MD_access_group, LLVMContext::MD_alias_scope, LLVMContext::MD_noalias});
        M->eraseFromParent();
        n++;
    }
    return n;
}

}  // namespace

void scalarizeVectors(Function &W)
{
    expandSmallMemOps(W);
    // LLVM 14's scalarizer leaves loads and stores whole unless told
    static bool set = [] {
        auto &opts = cl::getRegisteredOptions();
        auto it = opts.find("scalarize-load-store");
        if (it != opts.end())
            if (auto *o = static_cast<cl::opt<bool> *>(it->second))
                o->setValue(true);
        return true;
    }();
    (void)set;
    runOnFunction(W, "scalarizer");
}

}  // namespace wgc
