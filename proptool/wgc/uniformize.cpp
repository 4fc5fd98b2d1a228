/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// uniformize.cpp: a loop whose start is the work-item id made uniform, so the loops inside it get implicit barriers.
//
// A triangular loop (for (j2 = j1; j2 < m; j2++) with j1 the global id:
// PolyBench's covariance and correlation) runs a different number of times
// in each work-item, so the loops inside it (over i, a uniform count) are
// under divergent control and get no implicit barrier (vectorize.cpp): each
// work-item runs its dot products alone, one latency-bound scalar chain. As
// a vectorising OpenCL compiler does with masks, the loop becomes one that
// every work-item of the group runs alike, from the group's smallest start
// on, with its body predicated on whether the work-item runs that
// iteration: every store, load, call or division of the body runs under
// `if (active)`. The loops inside it are then reached by all work-items the
// same number of times, and addImplicitLoopBarriers puts their barriers at
// their headers; the x loop of the innermost region runs the work-items in
// vector lanes with `active` as the mask.
//
// Which loops (anything else is left as it is):
// - reached by every work-item (no divergent branch above it: in a kernel's
//   `if (j1 < m)` that is specializeGuards' copy for groups that all pass),
//   or guarded by its own test on its start (a rotated while loop, `if (s <
//   m) do ... while (j + 1 < m)`), which becomes the test on the group's
//   smallest start;
// - one induction variable j, the only header phi, starting at an affine
//   function of the id (casts of get_global_id / get_local_id, maybe plus a
//   uniform value) and stepping by one, `add nsw` (`add nuw` for unsigned
//   compares);
// - one exit, at the latch, continuing while `j + 1 < u` (or <=, or
//   `j < u`; signed or unsigned as the step's flag allows) with u
//   uniform: that test is
//   monotone in j, so a work-item that started at s runs j exactly when
//   j == s, or j > s and the test passed for j - 1;
// - no value of it used after it, no barrier, no other divergent branch
//   inside it (a branch on a value of an inactive work-item would be on
//   garbage), at least one loop inside it (what pays for the masks).
// The uniform loop runs j from the group's smallest start while the test
// passes or some work-item has not yet started (j < the largest start).
// Some work-item is active in each of its iterations, so what every
// work-item computes alike there (a load from a uniform address) runs
// unguarded.
//
// Where it pays (sx-wgc's default; --uniformize-loops takes every such
// loop, --no-uniformize-loops none): a loop inside that walks memory
// across rows (crossesMemory: the loop addImplicitLoopBarriers turns into
// a vector loop over the work-items) and, in the loops inside, no store
// to an address that changes with their iteration (a masked scatter per
// iteration and per lane); a store to one address per loop, covar's
// `symmat[j1 * m + j2] +=`, is what promote.cpp then moves after the loop.
// PolyBench's covar_kernel: 1.8x Intel's runtime as each work-item's
// scalar loop, 0.4x uniform with the store moved, 3.2-3.7x uniform
// without.
#include "analyses.h"

#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/DivergenceAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/SyncDependenceAnalysis.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>

#include <set>

using namespace llvm;

namespace wgc {

namespace {

// Must this instruction of a predicated body run only in active
// work-items? It touches memory, has an effect, may trap (an integer
// division) or is a call that is not plainly pure.
bool needsGuard(const Instruction &I)
{
    if (I.isTerminator() || isa<PHINode>(I))
        return false;
    if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (CB->getCalledFunction() && isQuery(CB->getCalledFunction()))
            return false;  // an id or size query: pure, and what a loop bound inside may use
        return !CB->doesNotAccessMemory() || CB->mayHaveSideEffects();
    }
    if (I.mayReadOrWriteMemory() || I.mayHaveSideEffects())
        return true;
    switch (I.getOpcode()) {
    case Instruction::UDiv: case Instruction::SDiv: case Instruction::URem: case Instruction::SRem:
        return true;
    default:
        return false;
    }
}

// `v` as casts of a work-item id plus (nsw/nuw) a uniform value: the id
// call, the casts (innermost first) and the addend (null for none).
CallBase *affineId(Value *v, const DivergenceAnalysisImpl &DA, SmallVectorImpl<CastInst *> &casts, Value *&add)
{
    add = nullptr;
    if (auto *BO = dyn_cast<BinaryOperator>(v))
        if (BO->getOpcode() == Instruction::Add && (BO->hasNoSignedWrap() || BO->hasNoUnsignedWrap())) {
            for (unsigned k = 0; k < 2; k++)
                if (!DA.isDivergent(*BO->getOperand(1 - k))) {
                    add = BO->getOperand(1 - k);
                    v = BO->getOperand(k);
                    break;
                }
            if (!add)
                return nullptr;
        }
    SmallVector<CastInst *, 4> outer;  // outermost first
    while (auto *C = dyn_cast<CastInst>(v)) {
        if (!isa<TruncInst>(C) && !isa<SExtInst>(C) && !isa<ZExtInst>(C))
            return nullptr;
        outer.push_back(C);
        v = C->getOperand(0);
    }
    auto *CB = dyn_cast<CallBase>(v);
    Function *F = CB ? CB->getCalledFunction() : nullptr;
    if (!F || !isQuery(F) || CB->arg_size() != 1 || !isa<ConstantInt>(CB->getArgOperand(0)))
        return nullptr;
    if (!F->getName().contains("get_global_id") && !F->getName().contains("get_local_id"))
        return nullptr;
    casts.assign(outer.rbegin(), outer.rend());
    return CB;
}

Value *query(IRBuilder<> &B, const char *mangled, Value *dim)
{
    Module &M = *B.GetInsertBlock()->getModule();
    FunctionCallee f = M.getOrInsertFunction(mangled, B.getInt64Ty(), B.getInt32Ty());
    return B.CreateCall(f, {B.CreateZExtOrTrunc(dim, B.getInt32Ty())});
}

// The value of the affine start for the group's first (last) work-item.
Value *startAt(IRBuilder<> &B, CallBase *id, ArrayRef<CastInst *> casts, Value *add, bool last)
{
    Value *d = id->getArgOperand(0);
    Value *lsize = query(B, "_Z14get_local_sizej", d);
    Value *v = B.getInt64(0);
    if (id->getCalledFunction()->getName().contains("get_global_id"))
        v = B.CreateAdd(B.CreateMul(query(B, "_Z12get_group_idj", d), lsize), query(B, "_Z17get_global_offsetj", d));
    if (last)
        v = B.CreateSub(B.CreateAdd(v, lsize), B.getInt64(1));
    for (CastInst *C : casts)
        v = B.CreateCast(C->getOpcode(), v, C->getDestTy());
    return add ? B.CreateAdd(v, add) : v;
}

struct Candidate {
    Loop *L;
    PHINode *iv;
    BinaryOperator *next;
    Value *bound;
    Value *tested;            // next (j + 1) or j itself
    CmpInst::Predicate pred;  // continue while `tested pred bound`
    CmpInst::Predicate gpred; // with a guard: enter while `start gpred bound`
    CallBase *id;
    SmallVector<CastInst *, 4> casts;
    Value *add;
    BranchInst *guard;  // the loop's own entry test `start pred bound`, before its preheader, or null
};

bool examine(Loop *L, const DivergenceAnalysisImpl &DA, const std::set<BasicBlock *> &reach, Candidate &c)
{
    BasicBlock *H = L->getHeader(), *P = L->getLoopPreheader(), *latch = L->getLoopLatch();
    if (!P || !latch || !L->getExitingBlock() || L->getExitingBlock() != latch || !L->getExitBlock() ||
        L->isInnermost())
        return false;
    auto *Br = dyn_cast<BranchInst>(latch->getTerminator());
    if (!Br || !Br->isConditional())
        return false;
    auto phis = H->phis();
    if (std::distance(phis.begin(), phis.end()) != 1)
        return false;
    c.L = L;
    c.iv = &*phis.begin();
    if (!c.iv->getType()->isIntegerTy() || !DA.isDivergent(*c.iv))
        return false;
    c.id = affineId(c.iv->getIncomingValueForBlock(P), DA, c.casts, c.add);
    c.next = dyn_cast<BinaryOperator>(c.iv->getIncomingValueForBlock(latch));
    if (!c.id || !c.next || c.next->getOpcode() != Instruction::Add || c.next->getOperand(0) != c.iv ||
        !isa<ConstantInt>(c.next->getOperand(1)) || !cast<ConstantInt>(c.next->getOperand(1))->isOne())
        return false;
    auto *IC = dyn_cast<ICmpInst>(Br->getCondition());
    if (!IC)
        return false;
    CmpInst::Predicate pred = IC->getPredicate();
    Value *a = IC->getOperand(0), *b = IC->getOperand(1);
    if (b == c.next || b == c.iv) {
        std::swap(a, b);
        pred = CmpInst::getSwappedPredicate(pred);
    }
    if ((a != c.next && a != c.iv) || DA.isDivergent(*b) || (isa<Instruction>(b) && L->contains(cast<Instruction>(b))))
        return false;
    c.tested = a;
    if (Br->getSuccessor(0) != H)
        pred = CmpInst::getInversePredicate(pred);
    bool sgn = pred == CmpInst::ICMP_SLT || pred == CmpInst::ICMP_SLE;
    bool uns = pred == CmpInst::ICMP_ULT || pred == CmpInst::ICMP_ULE;
    if (!(sgn && c.next->hasNoSignedWrap()) && !(uns && c.next->hasNoUnsignedWrap()))
        return false;
    if (c.add && !(sgn ? cast<BinaryOperator>(c.iv->getIncomingValueForBlock(P))->hasNoSignedWrap()
                       : cast<BinaryOperator>(c.iv->getIncomingValueForBlock(P))->hasNoUnsignedWrap()))
        return false;  // the start grows with the id in the test's order
    c.bound = b;
    c.pred = pred;
    // Reached by every work-item (its header is in reach through its own
    // latch), or guarded by its own test on the start (a rotated while
    // loop: `if (s < m) do ... while (j + 1 < m)`) reached by all.
    c.guard = nullptr;
    if (reach.count(P)) {
        BasicBlock *G = P->getSinglePredecessor();
        auto *GB = G ? dyn_cast<BranchInst>(G->getTerminator()) : nullptr;
        auto *GC = GB && GB->isConditional() ? dyn_cast<ICmpInst>(GB->getCondition()) : nullptr;
        if (!GC || reach.count(G) || !is_contained(successors(G), L->getExitBlock()))
            return false;
        Value *start = c.iv->getIncomingValueForBlock(P), *ga = GC->getOperand(0), *gb = GC->getOperand(1);
        CmpInst::Predicate gp = GC->getPredicate();
        if (gb == start) {
            std::swap(ga, gb);
            gp = CmpInst::getSwappedPredicate(gp);
        }
        if (GB->getSuccessor(0) != P)
            gp = CmpInst::getInversePredicate(gp);
        // the guard is the test for the iteration before the start
        c.gpred = c.pred;
        if (c.tested == c.iv)
            c.gpred = c.pred == CmpInst::ICMP_SLT ? CmpInst::ICMP_SLE
                    : c.pred == CmpInst::ICMP_ULT ? CmpInst::ICMP_ULE : CmpInst::BAD_ICMP_PREDICATE;
        if (ga != start || gb != c.bound || gp != c.gpred)
            return false;
        c.guard = GB;
    }
    // the start's addend must be available in the preheader
    if (auto *AI = dyn_cast_or_null<Instruction>(c.add))
        if (L->contains(AI))
            return false;
    for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB) {
            if (auto *CB = dyn_cast<CallBase>(&I)) {
                Function *F = CB->getCalledFunction();
                if (!F || isBarrier(F) || (!isQuery(F) && F->getName().contains("group")))
                    return false;  // a barrier or a collective: all work-items must reach it
            }
            if (isa<AllocaInst>(I))
                return false;
            if (I.isTerminator() && &I != Br) {
                auto *T = dyn_cast<BranchInst>(&I);
                if (!T || (T->isConditional() && DA.isDivergent(*T->getCondition())))
                    return false;
            }
            for (User *U : I.users())
                if (!L->contains(cast<Instruction>(U)->getParent()))
                    return false;
        }
    return true;
}

// Does making L uniform pay (see the top of this file)?
bool pays(Loop *L, ScalarEvolution &SE)
{
    bool rows = false;
    for (Loop *S : L->getLoopsInPreorder()) {
        if (S == L)
            continue;
        for (BasicBlock *BB : S->blocks())
            for (Instruction &I : *BB)
                if (auto *St = dyn_cast<StoreInst>(&I)) {
                    auto *PI = dyn_cast<Instruction>(St->getPointerOperand());
                    if (PI && S->contains(PI))
                        return false;
                }
        rows |= S->isInnermost() && crossesMemory(S, SE);
    }
    return rows;
}

void rewrite(Candidate &c, const DivergenceAnalysisImpl &DA)
{
    Loop *L = c.L;
    BasicBlock *H = L->getHeader(), *P = L->getLoopPreheader(), *latch = L->getLoopLatch(), *X = L->getExitBlock();
    std::vector<BasicBlock *> blocks(L->block_begin(), L->block_end());
    bool sgn = CmpInst::isSigned(c.pred);
    std::set<Instruction *> known;  // what the divergence analysis saw
    for (BasicBlock *BB : blocks)
        for (Instruction &I : *BB)
            known.insert(&I);
    IRBuilder<> B(c.guard ? (Instruction *)c.guard : P->getTerminator());
    Value *start = c.iv->getIncomingValueForBlock(P);
    Value *lo = startAt(B, c.id, c.casts, c.add, false), *hi = startAt(B, c.id, c.casts, c.add, true);
    c.iv->setIncomingValue(c.iv->getBasicBlockIndex(P), lo);
    // the test's value for the previous j (true before the first)
    PHINode *prev = PHINode::Create(B.getInt1Ty(), 2, "sx.prevtest", H->getFirstNonPHI());
    B.SetInsertPoint(latch->getTerminator());
    Value *test = B.CreateICmp(c.pred, c.tested, c.bound, "sx.test");
    // after j: a work-item runs j + 1 if it ran j and the test passed, or
    // starts there (and, guarded, passes the guard: the same test)
    Value *more = c.guard ? test
                          : B.CreateOr(test, B.CreateICmp(sgn ? CmpInst::ICMP_SLT : CmpInst::ICMP_ULT, c.iv, hi), "sx.more");
    latch->getTerminator()->eraseFromParent();
    BranchInst::Create(H, X, more, latch);
    prev->addIncoming(ConstantInt::getTrue(H->getContext()), P);
    prev->addIncoming(test, latch);
    Value *first = nullptr;  // does the work-item run its first iteration
    if (c.guard) {
        // every work-item enters when the group's smallest start passes
        B.SetInsertPoint(c.guard);
        first = B.CreateICmp(c.gpred, start, c.bound, "sx.first");
        BasicBlock *G = c.guard->getParent();
        BranchInst::Create(P, X, B.CreateICmp(c.gpred, lo, c.bound, "sx.enter"), G);
        c.guard->eraseFromParent();
        c.guard = nullptr;
    }
    B.SetInsertPoint(H->getFirstNonPHI());
    Value *at = B.CreateICmpEQ(c.iv, start);
    if (first)
        at = B.CreateAnd(at, first);
    Value *active = B.CreateOr(at,
                               B.CreateAnd(B.CreateICmp(sgn ? CmpInst::ICMP_SGT : CmpInst::ICMP_UGT, c.iv, start), prev),
                               "sx.active");
    // (start, defined before the loop, dominates all of it). Blocks after
    // the header test it as an i32: the value kept across the implicit
    // barriers is then one element of a 4-byte slot, which the vector loop
    // reads as a contiguous mask instead of gathering bytes.
    Value *active32 = B.CreateZExt(active, B.getInt32Ty(), "sx.active32");
    // What every work-item computes alike once j is uniform: values from
    // before the loop the analysis found uniform, j and the test, pure
    // arithmetic on those, the uniform phis of inner loops. Some work-item
    // is active in every iteration of the uniform loop (the one at the
    // group's smallest start until the test fails, then the one starting
    // at j) and, the branches inside being uniform, reaches the same
    // instructions with the same operands: a load from a uniform address
    // or a division of uniform values runs unguarded (a scalar load the
    // vector loop broadcasts, instead of a masked gather).
    std::set<Value *> uni = {c.iv, prev, test, more, c.next};
    auto isUni = [&](const Value *v) {
        if (isa<Constant>(v) || isa<Argument>(v) || uni.count(const_cast<Value *>(v)))
            return true;
        auto *I = dyn_cast<Instruction>(v);
        return I && !L->contains(I->getParent()) && !DA.isDivergent(*I);
    };
    for (bool grew = true; grew;) {
        grew = false;
        for (BasicBlock *BB : blocks)
            for (Instruction &I : *BB) {
                if (uni.count(&I) || I.isTerminator() || I.mayReadOrWriteMemory() || I.mayHaveSideEffects() ||
                    isa<CallBase>(I) || &I == active)
                    continue;
                bool all = known.count(&I) && !DA.isDivergent(I);  // uniform with j divergent: more so with j uniform
                if (!all && !isa<PHINode>(I)) {
                    all = true;
                    for (Value *op : I.operands())
                        all &= isUni(op);
                }
                if (all)
                    grew |= uni.insert(&I).second;
            }
    }
    auto guard = [&](const Instruction &I) {
        if (!needsGuard(I))
            return false;
        if (auto *LI = dyn_cast<LoadInst>(&I))
            return !LI->isSimple() || !isUni(LI->getPointerOperand());
        if (I.isIntDivRem())
            return !isUni(I.getOperand(0)) || !isUni(I.getOperand(1));
        return true;
    };
    for (BasicBlock *BB : blocks) {
        Instruction *first = nullptr, *last = nullptr;
        for (Instruction &I : *BB)
            if (guard(I)) {
                if (!first)
                    first = &I;
                last = &I;
            }
        if (!first)
            continue;
        // what lies between and does not depend on a guarded instruction
        // moves above the guarded run
        std::set<Instruction *> run = {first};
        for (Instruction *I = first == last ? last : first->getNextNode(); I != last;) {
            Instruction *nextI = I->getNextNode();
            bool dep = guard(*I);
            for (Value *op : I->operands())
                if (auto *OI = dyn_cast<Instruction>(op))
                    dep |= run.count(OI) > 0;
            if (dep)
                run.insert(I);
            else
                I->moveBefore(first);
            I = nextI;
        }
        BasicBlock *T = BB->splitBasicBlock(first, BB->getName() + ".sx.on");
        BasicBlock *R = T->splitBasicBlock(last->getNextNode(), BB->getName() + ".sx.join");
        BB->getTerminator()->eraseFromParent();
        Value *on = active;
        if (BB != H)
            on = new ICmpInst(*BB, CmpInst::ICMP_NE, active32, ConstantInt::get(active32->getType(), 0), "sx.on");
        BranchInst::Create(T, R, on, BB);
        for (Instruction &I : *T) {
            if (I.isTerminator() || I.getType()->isVoidTy())
                continue;
            PHINode *phi = nullptr;
            for (Use &U : make_early_inc_range(I.uses())) {
                auto *UI = cast<Instruction>(U.getUser());
                if (UI->getParent() == T)
                    continue;
                if (!phi) {
                    phi = PHINode::Create(I.getType(), 2, I.getName() + ".sx", &R->front());
                    phi->addIncoming(&I, T);
                    phi->addIncoming(UndefValue::get(I.getType()), BB);
                }
                U.set(phi);
            }
        }
    }
}

}  // namespace

unsigned uniformizeLoops(Function &K, bool all)
{
    KernelAnalyses A(K);
    if (!A.ok)
        return 0;
    LoopInfo &LI = A.LI;
    DivergenceAnalysisImpl &DA = *A.DA;
    ScalarEvolution &SE = *A.SE;
    std::set<BasicBlock *> &reach = A.reach;
    std::vector<Candidate> found;
    for (Loop *L : LI.getLoopsInPreorder()) {
        Candidate c;
        bool nested = false;  // inside a loop already taken: leave it
        for (const Candidate &o : found)
            nested |= o.L->contains(L);
        if (!nested && examine(L, DA, reach, c) && (all || pays(L, SE)))
            found.push_back(c);
    }
    for (Candidate &c : found)
        rewrite(c, DA);
    return (unsigned)found.size();
}

}  // namespace wgc
