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
#include "analyses.h"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/DivergenceAnalysis.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/SyncDependenceAnalysis.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <functional>
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

}  // namespace

// Does L read or write memory with a stride other than one element per
// iteration (b[k * n + j] over k)? Only then does making the work-items the
// inner loop pay: a loop that walks memory contiguously (a[i * n + k] over
// k, a row per work-item) is best left to each work-item, where it is a
// unit-stride stream.
bool crossesMemory(Loop *L, ScalarEvolution &SE)
{
    for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB) {
            Value *p = isa<LoadInst>(I) ? cast<LoadInst>(I).getPointerOperand()
                     : isa<StoreInst>(I) ? cast<StoreInst>(I).getPointerOperand() : nullptr;
            if (!p || !SE.isSCEVable(p->getType()))
                continue;
            const SCEV *S = SE.getSCEV(p);
            if (SE.isLoopInvariant(S, L))
                continue;
            auto *AR = dyn_cast<SCEVAddRecExpr>(S);
            Type *T = isa<LoadInst>(I) ? I.getType() : cast<StoreInst>(I).getValueOperand()->getType();
            uint64_t size = I.getModule()->getDataLayout().getTypeStoreSize(T);
            auto *step = AR && AR->getLoop() == L ? dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE)) : nullptr;
            if (!step || step->getAPInt().abs() != size)
                return true;
        }
    return false;
}

namespace {

// Can L not be vectorised in one work-item however its memory is walked?
// It carries a floating-point recurrence (a sum, a dot product: strict
// IEEE arithmetic allows no reassociation, so its iterations form one
// serial chain of adds), or it stores to an address that does not change
// with the iteration (c[i * n + j] += ... in the loop: a store every
// iteration to memory the loop's loads may alias). Either way the loop
// runs one scalar iteration at a time per work-item; with the work-items
// as the inner loop, 16 of them run in the lanes of one vector instead.
bool serialInWorkItem(Loop *L, ScalarEvolution &SE)
{
    for (PHINode &P : L->getHeader()->phis()) {
        if (!P.getType()->getScalarType()->isFloatingPointTy())
            continue;
        auto *I = dyn_cast<Instruction>(P.getIncomingValueForBlock(L->getLoopLatch()));
        if (I && L->contains(I) && !(isa<FPMathOperator>(I) && I->hasAllowReassoc()))
            return true;
    }
    for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB)
            if (auto *S = dyn_cast<StoreInst>(&I))
                if (SE.isSCEVable(S->getPointerOperandType()) &&
                    SE.isLoopInvariant(SE.getSCEV(S->getPointerOperand()), L))
                    return true;
    return false;
}

// The last write before control leaves block `from` to its successor,
// found walking back through single predecessors: a simple store, or null
// when another write (a call, an atomic, a barrier) or a join comes first.
StoreInst *lastStore(BasicBlock *from)
{
    BasicBlock *BB = from;
    for (unsigned blocks = 0; BB && blocks < 8; blocks++, BB = BB->getSinglePredecessor())
        for (Instruction &I : reverse(*BB)) {
            if (auto *S = dyn_cast<StoreInst>(&I))
                return S->isSimple() ? S : nullptr;
            if (I.mayWriteToMemory())
                return nullptr;
        }
    return nullptr;
}

// A header phi of L that only carries what the loop also keeps in memory
// (c[i * n + j] = 0; for (k ...) c[i * n + j] += ...: the compiler
// forwarded the store to the next iteration's load) is read back from
// memory after the implicit barrier `at` instead: otherwise the region
// machinery keeps it in a private slot, one more store and load per
// iteration beside the store to c. Sound because between the store and
// the header nothing of this work-item writes memory, and another
// work-item writing c[i * n + j] without a barrier would race with this
// one's store in the original program.
unsigned reloadStoredPhis(Loop *L, Instruction *at, const DominatorTree &DT)
{
    BasicBlock *H = L->getHeader();
    unsigned n = 0;
    for (PHINode &P : make_early_inc_range(H->phis())) {
        Value *ptr = nullptr;
        bool ok = P.getNumIncomingValues() > 0;
        for (unsigned i = 0; ok && i < P.getNumIncomingValues(); i++) {
            StoreInst *S = lastStore(P.getIncomingBlock(i));
            ok = S && S->getValueOperand() == P.getIncomingValue(i) && (!ptr || S->getPointerOperand() == ptr);
            if (ok)
                ptr = S->getPointerOperand();
        }
        if (!ok || P.getType() != cast<PointerType>(ptr->getType())->getPointerElementType())
            continue;
        if (auto *PI = dyn_cast<Instruction>(ptr))
            if (L->contains(PI) || !DT.dominates(PI, H))
                continue;
        auto *ld = new LoadInst(P.getType(), ptr, P.getName() + ".mem", at->getNextNode());
        P.replaceAllUsesWith(ld);
        P.eraseFromParent();
        n++;
    }
    return n;
}

// Loops of K that every work-item runs alike, outermost first; innermost
// loops of a few constant iterations (a 16-wide tile) are unrolled instead,
// which leaves the x loop innermost with the loop's values in registers.
void uniformLoops(Loop *L, const DivergenceAnalysisImpl &DA, const std::set<BasicBlock *> &divergentReach,
                  ScalarEvolution &SE, bool shared, std::vector<Loop *> &out)
{
    if (L->isInnermost() && L->getLoopLatch()) {
        unsigned trip = SE.getSmallConstantTripCount(L);
        if (trip && trip <= 32) {
            unrollFully(L);
            return;
        }
    }
    bool ok = !divergentReach.count(L->getHeader()) && (crossesMemory(L, SE) || (shared && serialInWorkItem(L, SE)));
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
        uniformLoops(S, DA, divergentReach, SE, shared, out);
}

}  // namespace

namespace {

// The work-item id behind `v` (get_global_id / get_local_id of a constant
// dimension, through integer casts), with those casts; null otherwise.
CallBase *idOf(Value *v, SmallVectorImpl<CastInst *> &casts)
{
    while (auto *C = dyn_cast<CastInst>(v)) {
        if (!isa<TruncInst>(C) && !isa<SExtInst>(C) && !isa<ZExtInst>(C))
            return nullptr;
        casts.push_back(C);
        v = C->getOperand(0);
    }
    auto *CB = dyn_cast<CallBase>(v);
    Function *F = CB ? CB->getCalledFunction() : nullptr;
    if (!F || !isQuery(F) || CB->arg_size() != 1 || !isa<ConstantInt>(CB->getArgOperand(0)))
        return nullptr;
    StringRef n = F->getName();
    if (!n.contains("get_global_id") && !n.contains("get_local_id"))
        return nullptr;
    return CB;
}

Value *query(IRBuilder<> &B, const char *mangled, Value *dim)
{
    Module &M = *B.GetInsertBlock()->getModule();
    FunctionCallee f = M.getOrInsertFunction(mangled, B.getInt64Ty(), B.getInt32Ty());
    return B.CreateCall(f, {B.CreateZExtOrTrunc(dim, B.getInt32Ty())});
}

// "c holds for every work-item of the group", as a uniform i1 built at B,
// for c a tree of and (as `and` or `select a, b, false`) over comparisons
// of a work-item id with a uniform value, or over uniform values; null
// when c has another shape. An id compared as `id < u` holds for all iff
// it holds for the group's largest id, `id > u` iff for its smallest (ids
// of a group are consecutive and never wrap).
Value *allOf(IRBuilder<> &B, Value *c, const DivergenceAnalysisImpl &DA, unsigned depth = 0)
{
    if (depth > 8)
        return nullptr;
    if (!DA.isDivergent(*c))
        return c;
    Value *x, *y;
    if (auto *BO = dyn_cast<BinaryOperator>(c))
        if (BO->getOpcode() == Instruction::And) {
            x = BO->getOperand(0);
            y = BO->getOperand(1);
            Value *a = allOf(B, x, DA, depth + 1), *b = a ? allOf(B, y, DA, depth + 1) : nullptr;
            return b ? B.CreateAnd(a, b) : nullptr;
        }
    if (auto *S = dyn_cast<SelectInst>(c))
        if (auto *f = dyn_cast<ConstantInt>(S->getFalseValue()))
            if (f->isZero()) {
                Value *a = allOf(B, S->getCondition(), DA, depth + 1),
                      *b = a ? allOf(B, S->getTrueValue(), DA, depth + 1) : nullptr;
                return b ? B.CreateAnd(a, b) : nullptr;
            }
    auto *IC = dyn_cast<ICmpInst>(c);
    if (!IC)
        return nullptr;
    CmpInst::Predicate pred = IC->getPredicate();
    Value *idSide = IC->getOperand(0), *u = IC->getOperand(1);
    SmallVector<CastInst *, 4> casts;
    CallBase *id = idOf(idSide, casts);
    if (!id) {
        casts.clear();
        std::swap(idSide, u);
        id = idOf(idSide, casts);
        pred = CmpInst::getSwappedPredicate(pred);
    }
    if (!id || DA.isDivergent(*u))
        return nullptr;
    bool wantMax;
    switch (pred) {
    case CmpInst::ICMP_ULT: case CmpInst::ICMP_ULE: case CmpInst::ICMP_SLT: case CmpInst::ICMP_SLE:
        wantMax = true;
        break;
    case CmpInst::ICMP_UGT: case CmpInst::ICMP_UGE: case CmpInst::ICMP_SGT: case CmpInst::ICMP_SGE:
        wantMax = false;
        break;
    default:
        return nullptr;
    }
    Value *d = id->getArgOperand(0);
    bool global = id->getCalledFunction()->getName().contains("get_global_id");
    Value *lsize = query(B, "_Z14get_local_sizej", d);
    Value *lo = B.getInt64(0);
    if (global)
        lo = B.CreateAdd(B.CreateMul(query(B, "_Z12get_group_idj", d), lsize), query(B, "_Z17get_global_offsetj", d));
    Value *v = wantMax ? B.CreateSub(B.CreateAdd(lo, lsize), B.getInt64(1)) : lo;
    for (auto it = casts.rbegin(); it != casts.rend(); ++it)
        v = B.CreateCast((*it)->getOpcode(), v, (*it)->getDestTy());
    return B.CreateICmp(pred, v, u);
}

}  // namespace

unsigned specializeGuards(Function &K)
{
    unsigned done = 0;
    for (unsigned round = 0; round < 4; round++) {
        DominatorTree DT(K);
        PostDominatorTree PDT(K);
        LoopInfo LI(DT);
        ReversePostOrderTraversal<Function *> RPOT(&K);
        if (containsIrreducibleCFG<const BasicBlock *>(RPOT, LI))
            return done;
        SyncDependenceAnalysis SDA(DT, PDT, LI);
        DivergenceAnalysisImpl DA(K, nullptr, DT, LI, SDA, false);
        markDivergenceSources(K, DA);
        DA.compute();
        bool changed = false;
        for (BasicBlock &G : K) {
            auto *Br = dyn_cast<BranchInst>(G.getTerminator());
            if (!Br || !Br->isConditional() || !DA.isDivergent(*Br->getCondition()) ||
                G.getName().endswith(".sx.guard"))
                continue;
            BasicBlock *T = Br->getSuccessor(0), *E = Br->getSuccessor(1);
            DomTreeNode *N = PDT.getNode(&G);
            if (!N || !N->getIDom() || N->getIDom()->getBlock() != E || T == E || !T->getSinglePredecessor())
                continue;
            // the then-region: reached from T without passing E, entered at T only, left to E only
            std::vector<BasicBlock *> region, work = {T};
            std::set<BasicBlock *> in;
            bool ok = true, loop = false;
            while (!work.empty() && ok) {
                BasicBlock *X = work.back();
                work.pop_back();
                if (X == E || !in.insert(X).second)
                    continue;
                region.push_back(X);
                ok = DT.dominates(T, X) && !isa<ReturnInst>(X->getTerminator()) && region.size() < 256;
                loop |= LI.getLoopFor(X) && LI.getLoopFor(X)->getHeader() == X;
                for (BasicBlock *S : successors(X))
                    work.push_back(S);
            }
            for (BasicBlock *X : region)
                for (Instruction &I : *X) {
                    if (auto *CB = dyn_cast<CallBase>(&I))
                        ok &= !isBarrier(CB->getCalledFunction());
                    for (User *U : I.users())  // values leave the region through E's phis only
                        if (auto *UI = dyn_cast<Instruction>(U))
                            ok &= in.count(UI->getParent()) || (UI->getParent() == E && isa<PHINode>(UI));
                }
            if (!ok || !loop)
                continue;
            IRBuilder<> B(Br);
            Value *all = allOf(B, Br->getCondition(), DA);
            if (!all || all == Br->getCondition())
                continue;
            // G: br all, T', G2;  G2: br c, T, E  (T' a copy of the region)
            ValueToValueMapTy VM;
            SmallVector<BasicBlock *, 16> copies;
            for (BasicBlock *X : region) {
                BasicBlock *Y = CloneBasicBlock(X, VM, ".sx.all", &K);
                VM[X] = Y;
                copies.push_back(Y);
            }
            remapInstructionsInBlocks(copies, VM);
            for (PHINode &P : E->phis())
                for (unsigned i = 0, n = P.getNumIncomingValues(); i < n; i++)
                    if (in.count(P.getIncomingBlock(i))) {
                        Value *v = P.getIncomingValue(i);
                        auto vit = VM.find(v);
                        P.addIncoming(vit != VM.end() ? (Value *)vit->second : v,
                                      cast<BasicBlock>(VM[P.getIncomingBlock(i)]));
                    }
            BasicBlock *G2 = BasicBlock::Create(K.getContext(), G.getName() + ".sx.guard", &K);
            Br->removeFromParent();
            G2->getInstList().push_back(Br);
            for (PHINode &P : E->phis())
                for (unsigned i = 0; i < P.getNumIncomingValues(); i++)
                    if (P.getIncomingBlock(i) == &G)
                        P.setIncomingBlock(i, G2);
            for (PHINode &P : T->phis())
                for (unsigned i = 0; i < P.getNumIncomingValues(); i++)
                    if (P.getIncomingBlock(i) == &G)
                        P.setIncomingBlock(i, G2);
            BranchInst::Create(cast<BasicBlock>(VM[T]), G2, all, &G);
            done++;
            changed = true;
            break;  // the analyses are stale: next round
        }
        if (!changed)
            break;
    }
    return done;
}

void markDivergenceSources(Function &K, DivergenceAnalysisImpl &DA)
{
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
}

bool forDivergentReach(Function &K, const PostDominatorTree &PDT, const std::function<bool(Value *)> &divergent,
                       const std::function<void(BasicBlock *, BasicBlock *)> &visit)
{
    for (BasicBlock &BB : K)
        if (BB.getTerminator()->getNumSuccessors() > 1 && !isa<BranchInst>(BB.getTerminator()) &&
            !isa<SwitchInst>(BB.getTerminator()))
            return false;  // indirectbr and friends: leave the kernel alone
    for (BasicBlock &BB : K) {
        Instruction *T = BB.getTerminator();
        Value *cond = nullptr;
        if (auto *Br = dyn_cast<BranchInst>(T))
            cond = Br->isConditional() ? Br->getCondition() : nullptr;
        else if (auto *Sw = dyn_cast<SwitchInst>(T))
            cond = Sw->getCondition();
        if (!cond || !divergent(cond))
            continue;
        DomTreeNode *N = PDT.getNode(&BB);
        BasicBlock *join = N && N->getIDom() ? N->getIDom()->getBlock() : nullptr;
        std::set<BasicBlock *> seen;
        std::vector<BasicBlock *> work(succ_begin(&BB), succ_end(&BB));
        while (!work.empty()) {
            BasicBlock *X = work.back();
            work.pop_back();
            if (X == join || !seen.insert(X).second)
                continue;
            visit(&BB, X);
            for (BasicBlock *S : successors(X))
                work.push_back(S);
        }
    }
    return true;
}

bool divergentReach(Function &K, const DivergenceAnalysisImpl &DA, const PostDominatorTree &PDT,
                    std::set<BasicBlock *> &reach)
{
    return forDivergentReach(
        K, PDT, [&](Value *c) { return DA.isDivergent(*c); }, [&](BasicBlock *, BasicBlock *X) { reach.insert(X); });
}

unsigned addImplicitLoopBarriers(Function &K)
{
    KernelAnalyses A(K);
    if (!A.ok)
        return 0;
    DominatorTree &DT = A.DT;
    LoopInfo &LI = A.LI;
    DivergenceAnalysisImpl &DA = *A.DA;
    ScalarEvolution &SE = *A.SE;
    std::set<BasicBlock *> &reach = A.reach;
    // Private arrays kept across barriers are what region formation gets
    // wrong today (issue 28's bottom_scan family: a private array written
    // in a loop with a barrier): no implicit barrier where one is left.
    bool arrays = false;
    for (Instruction &I : instructions(K))
        arrays |= isa<AllocaInst>(I);
    std::vector<Loop *> loops;
    // A loop serial in each work-item (serialInWorkItem) that walks a row
    // per work-item pays as the inner loop over work-items only where the
    // rows are shared: in a kernel of several dimensions, where the lanes
    // (x) of every y read the same rows, which stay in cache between the
    // regions (syrk: 32 rows for a group of 32 x 8). With one row per
    // work-item (atax, mvt: 1-D) the lanes would gather from as many rows
    // as the group is wide, out of the prefetcher's reach: each work-item's
    // own stream runs faster.
    bool shared = false;
    for (Instruction &I : instructions(K))
        if (auto *CB = dyn_cast<CallBase>(&I))
            if (Function *F = CB->getCalledFunction())
                if (isQuery(F) && CB->arg_size() == 1 && F->getName().contains("_id") && !CB->use_empty())
                    if (auto *d = dyn_cast<ConstantInt>(CB->getArgOperand(0)))
                        shared |= d->getZExtValue() >= 1 && d->getZExtValue() < 3;
    for (Loop *L : LI)
        uniformLoops(L, DA, reach, SE, shared, loops);
    if (loops.empty() || arrays)
        return 0;
    Module &M = *K.getParent();
    LLVMContext &C = M.getContext();
    FunctionCallee bar = M.getOrInsertFunction("_Z7barrierj", Type::getVoidTy(C), Type::getInt32Ty(C));
    for (Loop *L : loops) {
        auto *CB = CallInst::Create(bar, {ConstantInt::get(Type::getInt32Ty(C), 1)}, "",
                                    &*L->getHeader()->getFirstInsertionPt());
        reloadStoredPhis(L, CB, DT);
    }
    return (unsigned)loops.size();
}

// Does the loop reach a private variable allocated outside it? Such an
// alloca is one copy that every work-item of the loop reuses in turn (no
// barrier kept it per work-item), so its iterations are not independent:
// vector lanes would share it (the differential test's g002: a private
// array indexed by a value of the work-item).
static bool touchesSharedPrivate(const Loop &L)
{
    for (BasicBlock *BB : L.blocks())
        for (Instruction &I : *BB)
            for (Value *op : I.operands()) {
                if (!op->getType()->isPointerTy())
                    continue;
                const Value *base = getUnderlyingObject(op, 0);
                if (auto *A = dyn_cast<AllocaInst>(base))
                    if (!L.contains(A->getParent()))
                        return true;
            }
    return false;
}

unsigned markParallelLoops(Function &W, bool masked)
{
    // Masks cost a compare per vector, and a load after a masked store to
    // the same place (the next region reading local memory) waits for the
    // store to reach the cache: a trip count of whole vectors, the usual
    // case (local sizes are multiples of 16), takes a copy of the loop
    // without masks, and one under a vector (a tree reduction's last
    // levels) a scalar copy.
    if (masked)
        versionFullVectors(W, 16);
    DominatorTree DT(W);
    LoopInfo LI(DT);
    LLVMContext &C = W.getContext();
    unsigned n = 0;
    for (Loop *L : LI.getLoopsInPreorder()) {
        BasicBlock *H = L->getHeader(), *latch = L->getLoopLatch();
        if (!H->getName().startswith("wi.x") || H->getName().contains("done") || !latch || touchesSharedPrivate(*L))
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
        if (H->getName().endswith(".small"))  // fewer work-items than lanes (versionFullVectors)
            ops.push_back(MDNode::get(C, {MDString::get(C, "llvm.loop.vectorize.width"),
                                          ConstantAsMetadata::get(ConstantInt::get(Type::getInt32Ty(C), 1))}));
        else if (masked && !H->getName().endswith(".full"))
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
