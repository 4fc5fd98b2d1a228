/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// vectorize.cpp: work-items in SIMD lanes. The work-group function runs
// each region as loops over the work-items (x innermost); the host
// compiler's loop vectoriser turns the x loop into vector code when it
// can. Two things stop it, and this file removes both:
//
// - aliasing: the work-items of one region are independent (OpenCL gives a
//   program that shares memory between them without a barrier or atomics
//   no meaning), so every memory access of the x loop goes into one access
//   group and the loop is marked llvm.loop.parallel_accesses, as PoCL's
//   kernel compiler does: no run-time alias checks, no scalar fallback;
// - a loop inside the work-item body (over a tile, over k in a matrix
//   product, over neighbours): LLVM vectorises innermost loops only, so the
//   x loop stays scalar. A loop every work-item runs the same number of
//   times (uniform trip count, reached by all: no divergent branch above
//   it) gets an implicit barrier at its header (PoCL's "implicit loop
//   barriers"): each iteration becomes a region whose x loop is innermost;
//   the loop's induction variables are uniform values (scalar, kept once
//   per group), its per-work-item values (an accumulator) go to private
//   memory as one array per value, which the vector loop reads and writes
//   in lanes. A barrier reached by every work-item the same number of times
//   only orders what was already allowed, so no result changes.
#include "wgc.h"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/DivergenceAnalysis.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/SyncDependenceAnalysis.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>

#include <set>

using namespace llvm;

namespace wgc {

namespace {

// Does this work-item query differ between the work-items of a group?
bool divergentQuery(const Function *F)
{
    StringRef n = F->getName();
    return n.contains("get_local_id") || n.contains("get_global_id") || n.contains("linear_id");
}

// Asks the host compiler to unroll L fully (llvm.loop.unroll.full).
void unrollFully(Loop *L)
{
    BasicBlock *latch = L->getLoopLatch();
    LLVMContext &C = latch->getContext();
    SmallVector<Metadata *, 4> ops = {nullptr};
    if (MDNode *old = latch->getTerminator()->getMetadata(LLVMContext::MD_loop))
        for (unsigned i = 1; i < old->getNumOperands(); i++) {
            auto *N = dyn_cast<MDNode>(old->getOperand(i));
            auto *S = N && N->getNumOperands() ? dyn_cast<MDString>(N->getOperand(0)) : nullptr;
            if (!S || !S->getString().startswith("llvm.loop.unroll."))  // the SPIR-V producer's unroll.disable
                ops.push_back(old->getOperand(i));
        }
    ops.push_back(MDNode::get(C, {MDString::get(C, "llvm.loop.unroll.full")}));
    MDNode *id = MDNode::getDistinct(C, ops);
    id->replaceOperandWith(0, id);
    latch->getTerminator()->setMetadata(LLVMContext::MD_loop, id);
}

// Loops of K that every work-item runs alike, outermost first; innermost
// loops of a few constant iterations (a 16-wide tile) are unrolled instead,
// which leaves the x loop innermost with the loop's values in registers.
void uniformLoops(Loop *L, const DivergenceAnalysisImpl &DA, const std::set<BasicBlock *> &divergentReach,
                  ScalarEvolution &SE, std::vector<Loop *> &out)
{
    if (L->isInnermost() && L->getLoopLatch()) {
        unsigned trip = SE.getSmallConstantTripCount(L);
        if (trip && trip <= 32) {
            unrollFully(L);
            return;
        }
    }
    bool ok = !divergentReach.count(L->getHeader());
    SmallVector<BasicBlock *, 8> exiting;
    L->getExitingBlocks(exiting);
    for (BasicBlock *E : exiting) {
        auto *T = E->getTerminator();
        if (auto *Br = dyn_cast<BranchInst>(T)) {
            if (Br->isConditional() && DA.isDivergent(*Br->getCondition()))
                ok = false;
        } else if (auto *Sw = dyn_cast<SwitchInst>(T)) {
            if (DA.isDivergent(*Sw->getCondition()))
                ok = false;
        } else {
            ok = false;
        }
    }
    for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB)
            if (auto *CB = dyn_cast<CallBase>(&I))
                if (isBarrier(CB->getCalledFunction()))
                    ok = false;  // the region machinery splits this loop already
    if (ok)
        out.push_back(L);
    for (Loop *S : *L)
        uniformLoops(S, DA, divergentReach, SE, out);
}

}  // namespace

unsigned addImplicitLoopBarriers(Function &K)
{
    DominatorTree DT(K);
    PostDominatorTree PDT(K);
    LoopInfo LI(DT);
    if (LI.empty())
        return 0;
    ReversePostOrderTraversal<Function *> RPOT(&K);
    if (containsIrreducibleCFG<const BasicBlock *>(RPOT, LI))
        return 0;
    // Private arrays kept across barriers are what region formation gets
    // wrong today (issue 28's bottom_scan family: a private array written
    // in a loop with a barrier): no implicit barrier where one is left.
    bool arrays = false;
    for (Instruction &I : instructions(K))
        arrays |= isa<AllocaInst>(I);
    SyncDependenceAnalysis SDA(DT, PDT, LI);
    DivergenceAnalysisImpl DA(K, nullptr, DT, LI, SDA, false);
    for (Instruction &I : instructions(K)) {
        auto *CB = dyn_cast<CallBase>(&I);
        Function *F = CB ? CB->getCalledFunction() : nullptr;
        if (CB && isQuery(F)) {
            if (divergentQuery(F))
                DA.markDivergent(I);
            continue;
        }
        bool pureCall = CB && isa<IntrinsicInst>(CB) && CB->doesNotAccessMemory();
        if ((I.mayReadOrWriteMemory() && !pureCall) || isa<AllocaInst>(I) || (CB && !pureCall))
            DA.markDivergent(I);
    }
    DA.compute();
    // Blocks some work-items may skip or repeat: between a divergent branch
    // and its immediate post-dominator.
    std::set<BasicBlock *> reach;
    for (BasicBlock &BB : K) {
        Instruction *T = BB.getTerminator();
        Value *cond = nullptr;
        if (auto *Br = dyn_cast<BranchInst>(T))
            cond = Br->isConditional() ? Br->getCondition() : nullptr;
        else if (auto *Sw = dyn_cast<SwitchInst>(T))
            cond = Sw->getCondition();
        else if (T->getNumSuccessors() > 1)
            return 0;  // indirectbr and friends: leave the kernel alone
        if (!cond || !DA.isDivergent(*cond))
            continue;
        DomTreeNode *N = PDT.getNode(&BB);
        BasicBlock *join = N && N->getIDom() ? N->getIDom()->getBlock() : nullptr;
        std::vector<BasicBlock *> work(succ_begin(&BB), succ_end(&BB));
        while (!work.empty()) {
            BasicBlock *X = work.back();
            work.pop_back();
            if (X == join || !reach.insert(X).second)
                continue;
            for (BasicBlock *S : successors(X))
                work.push_back(S);
        }
    }
    std::vector<Loop *> loops;
    TargetLibraryInfoImpl TLII(Triple(K.getParent()->getTargetTriple()));
    TargetLibraryInfo TLI(TLII);
    AssumptionCache AC(K);
    ScalarEvolution SE(K, TLI, AC, DT, LI);
    for (Loop *L : LI)
        uniformLoops(L, DA, reach, SE, loops);
    if (loops.empty() || arrays)
        return 0;
    Module &M = *K.getParent();
    LLVMContext &C = M.getContext();
    FunctionCallee bar = M.getOrInsertFunction("_Z7barrierj", Type::getVoidTy(C), Type::getInt32Ty(C));
    for (Loop *L : loops)
        CallInst::Create(bar, {ConstantInt::get(Type::getInt32Ty(C), 1)}, "", &*L->getHeader()->getFirstInsertionPt());
    return (unsigned)loops.size();
}

unsigned markParallelLoops(Function &W, bool masked)
{
    DominatorTree DT(W);
    LoopInfo LI(DT);
    LLVMContext &C = W.getContext();
    unsigned n = 0;
    for (Loop *L : LI.getLoopsInPreorder()) {
        BasicBlock *H = L->getHeader(), *latch = L->getLoopLatch();
        if (!H->getName().startswith("wi.x") || H->getName().contains("done") || !latch)
            continue;
        MDNode *group = MDNode::getDistinct(C, {});
        for (BasicBlock *BB : L->blocks())
            for (Instruction &I : *BB)
                if (I.mayReadOrWriteMemory()) {
                    MDNode *old = I.getMetadata(LLVMContext::MD_access_group);
                    I.setMetadata(LLVMContext::MD_access_group, old ? MDNode::concatenate(old, group) : group);
                }
        MDNode *par = MDNode::get(C, {MDString::get(C, "llvm.loop.parallel_accesses"), group});
        SmallVector<Metadata *, 4> ops = {nullptr};
        if (MDNode *old = latch->getTerminator()->getMetadata(LLVMContext::MD_loop))
            for (unsigned i = 1; i < old->getNumOperands(); i++)
                ops.push_back(old->getOperand(i));
        ops.push_back(par);
        // A group of 16 work-items in x is one AVX-512 vector: no
        // interleaving (it would leave such groups to the scalar remainder),
        // and where masks are cheap the remainder folded into the vector
        // loop as masked lanes.
        ops.push_back(MDNode::get(C, {MDString::get(C, "llvm.loop.interleave.count"),
                                      ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(C), 1))}));
        if (masked)
            ops.push_back(MDNode::get(C, {MDString::get(C, "llvm.loop.vectorize.predicate.enable"),
                                          ConstantAsMetadata::get(ConstantInt::getTrue(C))}));
        MDNode *loopID = MDNode::getDistinct(C, ops);
        loopID->replaceOperandWith(0, loopID);
        latch->getTerminator()->setMetadata(LLVMContext::MD_loop, loopID);
        n++;
    }
    return n;
}

}  // namespace wgc
