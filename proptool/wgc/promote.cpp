/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// promote.cpp: a store to one address in every iteration of a uniform loop, moved after it behind a run-time alias check.
//
// `c[k] = 0; for (i = 0; i < n; i++) c[k] += a[i * m + x] * b[i * m + y];`
// stores c[k] in every iteration because c may alias a or b (OpenCL's
// global pointers carry no such promise). Where the loop gets an implicit
// barrier (vectorize.cpp: the work-items become the inner, vector loop of
// each iteration) that store is a scatter per iteration and per lane, and
// the value it keeps is gathered back for the next one: PolyBench's
// covariance kernel ran 3.2-3.7x Intel's runtime that way. As LLVM's
// LoopVersioningLICM does for one thread, the loop is versioned: the copy
// without the store in the loop (it is done once, after the last
// iteration, under the condition that guarded it) runs when the bytes the
// store writes, for every work-item of the group, lie outside the bytes
// every load of the loop reads, for every work-item and every iteration;
// the original loop runs otherwise. The check is one uniform branch, so
// both copies stay loops every work-item runs alike.
//
// Which loops (anything else is left as it is):
// - innermost, one exit at the latch, reached by every work-item, its exit
//   test uniform, with one predecessor outside it (a preheader is made
//   where a rotated loop's entry test ends that block);
// - one simple store, at an address computed before the loop, done in
//   every iteration or under a test of values from before the loop, and
//   simple loads; no other access, no call but pure ones (mad, sqrt: no
//   memory, no side effect, not convergent) and id or size queries;
// - the store's address not one element apart between neighbouring
//   work-items in x (c[i * n + j] in gemm or syrk, j the x id, is one
//   vector of the lanes, which vectorize.cpp's reloadStoredPhis reads and
//   writes about as cheaply as a private slot: no check to pay for);
// - every address (the store's and each load's) a multilinear function
//   of work-item ids (get_global_id, get_local_id; the group's last one
//   checked to fit in 31 bits), of the loop's induction variables (any
//   affine recurrence of it without signed wrap, i or i - 1, its step a
//   constant, its ends computable from values alike in every work-item;
//   zero-extended, both ends checked >= 0) and of
//   values every work-item has alike: a pointer argument, plus indices
//   combined by add, sub, mul (the factors sharing no variable), shl by a
//   constant and sign or zero extension of operations that do not wrap
//   (nsw, nuw). Such a function takes its extremes at the corners of the
//   box the variables range over (the group's first and last id, the
//   loop's first and last value), which is where the check evaluates it,
//   in 64-bit arithmetic (the program's own narrower arithmetic does not
//   wrap, or its addresses would be poison).
#include "analyses.h"

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/DivergenceAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/SyncDependenceAnalysis.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/GetElementPtrTypeIterator.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopUtils.h>
#include <llvm/Transforms/Utils/ScalarEvolutionExpander.h>

#include <map>
#include <set>

using namespace llvm;

namespace wgc {

namespace {

// A variable of the addresses: a work-item id or an induction variable of
// the loop, with the two ends of its range (i64, in the preheader).
struct Var {
    Value *v;
    Value *lo, *hi;
    bool unsignedUse;  // zero-extended somewhere
};

struct Candidate {
    Loop *L;
    StoreInst *S;
    Value *cond;  // the loop-invariant test the store runs under (true successor), or null
    BasicBlock *join;  // where the guarded store's block rejoins (cond only)
    std::vector<LoadInst *> loads;
};

class Ranges {
public:
    Ranges(Loop *L, const DivergenceAnalysisImpl &DA, ScalarEvolution &SE, const DataLayout &DL)
        : L(L), DA(DA), SE(SE), DL(DL)
    {
    }

    // The variables `v` depends on (indices into vars), or false where it
    // is no multilinear function of them.
    bool deps(Value *v, std::set<unsigned> &out, bool isSigned, unsigned depth = 0)
    {
        if (depth > 24)
            return false;
        for (unsigned k = 0; k < vars.size(); k++)
            if (vars[k].v == v) {
                out.insert(k);
                vars[k].unsignedUse |= !isSigned;
                return true;
            }
        if (leaf(v))
            return true;
        auto *I = dyn_cast<Instruction>(v);
        if (!I)
            return false;
        if (auto *C = dyn_cast<CallBase>(I)) {  // a work-item id becomes a variable
            Function *F = C->getCalledFunction();
            StringRef n = F ? F->getName() : "";
            if (!F || !isQuery(F) || C->arg_size() != 1 || !isa<ConstantInt>(C->getArgOperand(0)) ||
                !C->getType()->isIntegerTy(64) || (!n.contains("get_global_id") && !n.contains("get_local_id")))
                return false;
            vars.push_back({C, nullptr, nullptr, false});
            out.insert(vars.size() - 1);
            return true;
        }
        if (L->contains(I) && SE.isSCEVable(I->getType())) {  // an induction variable of L (or i - 1, ...)
            auto *AR = dyn_cast<SCEVAddRecExpr>(SE.getSCEV(I));
            if (AR && AR->getLoop() == L && AR->isAffine() && isa<SCEVConstant>(AR->getStepRecurrence(SE)) &&
                AR->hasNoSignedWrap()) {
                // its values run from the first to the last without wrapping
                // as signed numbers: zero-extended, both ends must be >= 0
                vars.push_back({I, nullptr, nullptr, !isSigned});
                out.insert(vars.size() - 1);
                return true;
            }
        }
        if (isa<PHINode>(I))
            return false;
        if (auto *G = dyn_cast<GetElementPtrInst>(I)) {
            if (G->getType()->isVectorTy())
                return false;
            for (Value *op : G->operands())
                if (!deps(op, out, true, depth + 1))
                    return false;
            return true;
        }
        switch (I->getOpcode()) {
        case Instruction::BitCast: case Instruction::AddrSpaceCast:
            return deps(I->getOperand(0), out, isSigned, depth + 1);
        case Instruction::SExt:
            return deps(I->getOperand(0), out, true, depth + 1);
        case Instruction::ZExt:
            return deps(I->getOperand(0), out, false, depth + 1);
        case Instruction::Trunc: {  // of an id only (kept within range by the check)
            auto *C = dyn_cast<CallBase>(I->getOperand(0));
            return C && deps(C, out, isSigned, depth + 1);
        }
        case Instruction::Add: case Instruction::Sub: case Instruction::Mul: case Instruction::Shl: {
            if (!I->getType()->isIntegerTy(64) &&
                !(isSigned ? I->hasNoSignedWrap() : I->hasNoUnsignedWrap()))
                return false;  // may wrap: not the mathematical value
            std::set<unsigned> a, b;
            if (!deps(I->getOperand(0), a, isSigned, depth + 1) || !deps(I->getOperand(1), b, isSigned, depth + 1))
                return false;
            if (I->getOpcode() == Instruction::Shl && !(isa<ConstantInt>(I->getOperand(1)) &&
                                                        cast<ConstantInt>(I->getOperand(1))->getZExtValue() < 32))
                return false;
            if (I->getOpcode() == Instruction::Mul)
                for (unsigned k : a)
                    if (b.count(k))
                        return false;  // a square: not multilinear
            out.insert(a.begin(), a.end());
            out.insert(b.begin(), b.end());
            return true;
        }
        default:
            return false;
        }
    }

    // Builds the variables' ranges at B (the preheader); false where an
    // induction variable's trip count is unknown.
    bool bind(IRBuilder<> &B, SCEVExpander &X, std::vector<Value *> &needs)
    {
        const SCEV *btc = SE.getBackedgeTakenCount(L);
        for (Var &V : vars) {
            if (auto *C = dyn_cast<CallBase>(V.v)) {
                Value *d = C->getArgOperand(0);
                Value *lsize = query(B, "_Z14get_local_sizej", d);
                Value *lo = B.getInt64(0);
                if (C->getCalledFunction()->getName().contains("get_global_id"))
                    lo = B.CreateAdd(B.CreateMul(query(B, "_Z12get_group_idj", d), lsize),
                                     query(B, "_Z17get_global_offsetj", d));
                V.lo = lo;
                V.hi = B.CreateSub(B.CreateAdd(lo, lsize), B.getInt64(1));
                // a truncated id stays within 31 bits (sign or zero extension then gives it back)
                needs.push_back(B.CreateICmpULE(V.hi, B.getInt64(0x7fffffff)));
                continue;
            }
            if (isa<SCEVCouldNotCompute>(btc) || !SE.isLoopInvariant(btc, L))
                return false;
            auto *AR = cast<SCEVAddRecExpr>(SE.getSCEV(V.v));
            const SCEV *last = AR->evaluateAtIteration(SE.getTruncateOrZeroExtend(btc, AR->getType()), SE);
            auto recurs = [](const SCEV *S) { return isa<SCEVAddRecExpr>(S); };
            auto divergent = [&](const SCEV *S) {  // (the check would differ between work-items)
                auto *U = dyn_cast<SCEVUnknown>(S);
                auto *I = U ? dyn_cast<Instruction>(U->getValue()) : nullptr;
                return I && DA.isDivergent(*I);
            };
            if (!isSafeToExpand(last, SE) || !isSafeToExpand(AR->getStart(), SE) || SCEVExprContains(last, recurs) ||
                SCEVExprContains(AR->getStart(), recurs) || SCEVExprContains(last, divergent) ||
                SCEVExprContains(AR->getStart(), divergent))
                return false;  // (an outer loop's recurrence would become a new phi there)
            Value *first = X.expandCodeFor(AR->getStart(), AR->getType(), B.GetInsertBlock()->getTerminator());
            Value *lastV = X.expandCodeFor(last, AR->getType(), B.GetInsertBlock()->getTerminator());
            V.lo = first;
            V.hi = lastV;
            if (V.unsignedUse)
                needs.push_back(B.CreateAnd(B.CreateICmpSGE(first, ConstantInt::get(first->getType(), 0)),
                                            B.CreateICmpSGE(lastV, ConstantInt::get(first->getType(), 0))));
        }
        return true;
    }

    // The mathematical value of integer `v` (an address, for pointers) as
    // an i64 with each variable at its end `corner` (bit k: variable k's hi).
    Value *eval(IRBuilder<> &B, Value *v, unsigned corner, bool isSigned)
    {
        for (unsigned k = 0; k < vars.size(); k++)
            if (vars[k].v == v) {
                Value *e = corner >> k & 1 ? vars[k].hi : vars[k].lo;
                if (isa<CallBase>(vars[k].v))  // an id: i64, within 31 bits
                    return e;
                return B.CreateSExtOrTrunc(e, B.getInt64Ty());  // (>= 0 where zero-extended)
            }
        if (leaf(v)) {
            if (v->getType()->isPointerTy())
                return B.CreatePtrToInt(v, B.getInt64Ty());
            return isSigned ? B.CreateSExtOrTrunc(v, B.getInt64Ty()) : B.CreateZExtOrTrunc(v, B.getInt64Ty());
        }
        auto *I = cast<Instruction>(v);
        if (auto *G = dyn_cast<GetElementPtrInst>(I)) {
            Value *a = eval(B, G->getPointerOperand(), corner, true);
            for (auto GTI = gep_type_begin(G), E = gep_type_end(G); GTI != E; ++GTI) {
                Value *idx = GTI.getOperand();
                if (StructType *ST = GTI.getStructTypeOrNull()) {
                    unsigned f = cast<ConstantInt>(idx)->getZExtValue();
                    a = B.CreateAdd(a, B.getInt64(DL.getStructLayout(ST)->getElementOffset(f)));
                } else {
                    uint64_t size = DL.getTypeAllocSize(GTI.getIndexedType());
                    a = B.CreateAdd(a, B.CreateMul(eval(B, idx, corner, true), B.getInt64(size)));
                }
            }
            return a;
        }
        switch (I->getOpcode()) {
        case Instruction::BitCast: case Instruction::AddrSpaceCast:
            return eval(B, I->getOperand(0), corner, isSigned);
        case Instruction::SExt:
            return eval(B, I->getOperand(0), corner, true);
        case Instruction::ZExt:
            return eval(B, I->getOperand(0), corner, false);
        case Instruction::Trunc:
            return eval(B, I->getOperand(0), corner, isSigned);
        case Instruction::Shl:
            return B.CreateShl(eval(B, I->getOperand(0), corner, isSigned), cast<ConstantInt>(I->getOperand(1))->getZExtValue());
        default:
            return B.CreateBinOp((Instruction::BinaryOps)I->getOpcode(), eval(B, I->getOperand(0), corner, isSigned),
                                 eval(B, I->getOperand(1), corner, isSigned));
        }
    }

    // [lo, hi): the bytes the access of `size` bytes at `ptr` may touch.
    void range(IRBuilder<> &B, Value *ptr, const std::set<unsigned> &on, uint64_t size, Value *&lo, Value *&hi)
    {
        std::vector<unsigned> ks(on.begin(), on.end());
        lo = hi = nullptr;
        for (unsigned c = 0; c < (1u << ks.size()); c++) {
            unsigned corner = 0;
            for (unsigned b = 0; b < ks.size(); b++)
                if (c >> b & 1)
                    corner |= 1u << ks[b];
            Value *a = eval(B, ptr, corner, true);
            lo = lo ? B.CreateSelect(B.CreateICmpSLT(a, lo), a, lo) : a;
            hi = hi ? B.CreateSelect(B.CreateICmpSGT(a, hi), a, hi) : a;
        }
        hi = B.CreateAdd(hi, B.getInt64(size));
    }

    std::vector<Var> vars;

private:
    // Alike in every work-item and computed before the loop.
    bool leaf(Value *v) const
    {
        if (isa<Constant>(v) || isa<Argument>(v))
            return true;
        auto *I = dyn_cast<Instruction>(v);
        return I && !L->contains(I) && !DA.isDivergent(*I);
    }

    static Value *query(IRBuilder<> &B, const char *mangled, Value *dim)
    {
        Module &M = *B.GetInsertBlock()->getModule();
        FunctionCallee f = M.getOrInsertFunction(mangled, B.getInt64Ty(), B.getInt32Ty());
        return B.CreateCall(f, {B.CreateZExtOrTrunc(dim, B.getInt32Ty())});
    }

    Loop *L;
    const DivergenceAnalysisImpl &DA;
    ScalarEvolution &SE;
    const DataLayout &DL;
};

// How far apart (bytes) v lies between neighbouring work-items in x (the
// x id's coefficient in it: get_global_id(0) or get_local_id(0), through
// casts, add, sub, shl and mul by constants and GEPs); -1 where unknown
// (a coefficient not constant: covar's symmat[j1 * m + j2]).
int64_t xStride(Value *v, const DataLayout &DL, unsigned depth = 0)
{
    if (depth > 24)
        return -1;
    if (isa<Constant>(v) || isa<Argument>(v))
        return 0;
    auto *I = dyn_cast<Instruction>(v);
    if (!I)
        return -1;
    if (auto *C = dyn_cast<CallBase>(I)) {
        Function *F = C->getCalledFunction();
        if (!F || !isQuery(F))
            return -1;
        StringRef n = F->getName();
        if (!n.contains("get_global_id") && !n.contains("get_local_id") && !n.contains("linear_id"))
            return 0;  // a size or a group's id
        auto *d = dyn_cast<ConstantInt>(C->getArgOperand(0));
        return !d || n.contains("linear_id") ? -1 : d->isZero() ? 1 : 0;
    }
    if (auto *G = dyn_cast<GetElementPtrInst>(I)) {
        int64_t s = xStride(G->getPointerOperand(), DL, depth + 1);
        for (auto GTI = gep_type_begin(G), E = gep_type_end(G); s >= 0 && GTI != E; ++GTI) {
            if (GTI.getStructTypeOrNull())
                continue;
            int64_t k = xStride(GTI.getOperand(), DL, depth + 1);
            s = k < 0 ? -1 : s + k * (int64_t)DL.getTypeAllocSize(GTI.getIndexedType());
        }
        return s;
    }
    auto known = [&](unsigned k) { return xStride(I->getOperand(k), DL, depth + 1); };
    switch (I->getOpcode()) {
    case Instruction::BitCast: case Instruction::AddrSpaceCast: case Instruction::SExt: case Instruction::ZExt:
    case Instruction::Trunc:
        return known(0);
    case Instruction::Add: case Instruction::Sub: {
        int64_t a = known(0), b = known(1);
        return a < 0 || b < 0 ? -1 : I->getOpcode() == Instruction::Add ? a + b : a - b;
    }
    case Instruction::Mul: case Instruction::Shl: {
        int64_t a = known(0), b = known(1);
        auto *c0 = dyn_cast<ConstantInt>(I->getOperand(0)), *c1 = dyn_cast<ConstantInt>(I->getOperand(1));
        if (a == 0 && b == 0)
            return 0;
        if (I->getOpcode() == Instruction::Shl)
            return c1 && c1->getZExtValue() < 32 && a >= 0 ? a << c1->getZExtValue() : -1;
        if (c1 && a >= 0)
            return a * c1->getSExtValue();
        if (c0 && b >= 0)
            return b * c0->getSExtValue();
        return -1;
    }
    default:
        return -1;
    }
}

bool examine(Loop *L, const DivergenceAnalysisImpl &DA, const std::set<BasicBlock *> &reach, const DominatorTree &DT,
             Candidate &c)
{
    BasicBlock *P = L->getLoopPreheader(), *latch = L->getLoopLatch();
    if (!L->isInnermost() || !L->getLoopPredecessor() || !latch || L->getExitingBlock() != latch || !L->getExitBlock() ||
        reach.count(L->getHeader()))
        return false;
    auto *Br = dyn_cast<BranchInst>(latch->getTerminator());
    if (!Br || !Br->isConditional() || DA.isDivergent(*Br->getCondition()))
        return false;
    if (P && (!isa<BranchInst>(P->getTerminator()) || cast<BranchInst>(P->getTerminator())->isConditional()))
        return false;  // (none: one is made before the loop's one predecessor outside it)
    c.L = L;
    c.S = nullptr;
    c.loads.clear();
    for (BasicBlock *BB : L->blocks())
        for (Instruction &I : *BB) {
            if (auto *CB = dyn_cast<CallBase>(&I)) {
                Function *F = CB->getCalledFunction();
                if (F && isQuery(F))
                    continue;
                if (!F || !CB->doesNotAccessMemory() || CB->mayHaveSideEffects() || CB->isConvergent())
                    return false;  // (a pure builtin, mad, sqrt, is fine)
                continue;
            }
            if (auto *LD = dyn_cast<LoadInst>(&I)) {
                if (!LD->isSimple())
                    return false;
                c.loads.push_back(LD);
            } else if (auto *S = dyn_cast<StoreInst>(&I)) {
                if (c.S || !S->isSimple())
                    return false;
                c.S = S;
            } else if (I.mayReadOrWriteMemory() || I.mayHaveSideEffects() || isa<AllocaInst>(I)) {
                return false;
            }
        }
    if (!c.S || c.loads.empty())
        return false;
    if (auto *I = dyn_cast<Instruction>(c.S->getPointerOperand()))
        if (L->contains(I))
            return false;  // not one address for the whole loop
    const DataLayout &DL = L->getHeader()->getModule()->getDataLayout();
    if (xStride(c.S->getPointerOperand(), DL) == (int64_t)DL.getTypeStoreSize(c.S->getValueOperand()->getType()))
        return false;  // one vector of the lanes
    // done in every iteration, or under `br cond, SB, J` with SB -> J
    BasicBlock *SB = c.S->getParent();
    c.cond = nullptr;
    c.join = nullptr;
    if (!DT.dominates(SB, latch)) {
        BasicBlock *G = SB->getSinglePredecessor(), *J = SB->getSingleSuccessor();
        auto *GB = G ? dyn_cast<BranchInst>(G->getTerminator()) : nullptr;
        if (!GB || !GB->isConditional() || GB->getSuccessor(0) != SB || GB->getSuccessor(1) != J || !J ||
            !L->contains(J) || !DT.dominates(J, latch) || !DT.dominates(G, J) || pred_size(J) != 2)
            return false;
        // the test: of values from before the loop (maybe computed in it)
        auto *CI = dyn_cast<Instruction>(GB->getCondition());
        if (CI && L->contains(CI)) {
            if (!isa<CmpInst>(CI))
                return false;
            for (Value *op : CI->operands())
                if (auto *OI = dyn_cast<Instruction>(op))
                    if (L->contains(OI))
                        return false;
        }
        c.cond = GB->getCondition();
        c.join = J;
    }
    return true;
}

// Pure arithmetic at the end of the guarded block SB (what used the
// loaded values for the store, now gone: covar's multiply-add) moves to its
// join J, on undef where the guard fails: run unguarded, it lets the
// host compiler keep the loads before the guard where uniformize.cpp put
// them (a load from a uniform address sunk under the guard becomes a
// masked gather of one address in the vector loop).
void unguardTail(BasicBlock *SB, BasicBlock *J)
{
    BasicBlock *G = SB->getSinglePredecessor();
    std::vector<Instruction *> tail;
    for (Instruction *I = SB->getTerminator()->getPrevNode(); I; I = I->getPrevNode()) {
        if (I->mayReadOrWriteMemory() || I->mayHaveSideEffects() || isa<PHINode>(I) || I->isIntDivRem() ||
            (isa<CallBase>(I) && !isa<IntrinsicInst>(I)))
            break;
        bool ok = true;
        for (User *U : I->users()) {
            auto *UI = cast<Instruction>(U);
            if (UI->getParent() == SB)
                continue;
            auto *PN = dyn_cast<PHINode>(UI);
            ok &= PN && PN->getParent() == J && isa<UndefValue>(PN->getIncomingValueForBlock(G));
        }
        if (!ok)
            break;
        tail.push_back(I);
    }
    if (tail.empty())
        return;
    std::set<Instruction *> moved(tail.begin(), tail.end());
    Instruction *at = &*J->getFirstInsertionPt();
    for (auto it = tail.rbegin(); it != tail.rend(); ++it) {
        Instruction *I = *it;
        I->moveBefore(at);
        for (Use &op : I->operands()) {  // a value of SB that stays there: through a phi
            auto *OI = dyn_cast<Instruction>(op.get());
            if (!OI || OI->getParent() != SB)
                continue;
            PHINode *PN = PHINode::Create(OI->getType(), 2, OI->getName() + ".sx.on", &J->front());
            PN->addIncoming(OI, SB);
            PN->addIncoming(Constant::getNullValue(OI->getType()), G);  // (on undef the host compiler
            // would fold what uses it, and move the uniform loads under the guard with it)
            op.set(PN);
        }
    }
    for (PHINode &PN : make_early_inc_range(J->phis())) {
        auto *v = dyn_cast<Instruction>(PN.getIncomingValueForBlock(SB));
        if (v && moved.count(v)) {
            PN.replaceAllUsesWith(v);
            PN.eraseFromParent();
        }
    }
}

// The fast copy of c.L (no store in it) behind `ok`; the store after it.
void version(Candidate &c, Value *ok)
{
    Loop *L = c.L;
    BasicBlock *P = L->getLoopPreheader(), *latch = L->getLoopLatch(), *H = L->getHeader(), *X = L->getExitBlock();
    Function &K = *H->getParent();
    LLVMContext &C = K.getContext();
    std::vector<BasicBlock *> blocks(L->block_begin(), L->block_end());
    // a dedicated exit NX; values of the loop used after it through phis there
    BasicBlock *NX = BasicBlock::Create(C, X->getName() + ".sx.exit", &K, X);
    BranchInst::Create(X, NX);
    cast<BranchInst>(latch->getTerminator())->replaceUsesOfWith(X, NX);
    for (PHINode &PN : X->phis())
        for (unsigned i = 0; i < PN.getNumIncomingValues(); i++)
            if (PN.getIncomingBlock(i) == latch)
                PN.setIncomingBlock(i, NX);
    std::set<BasicBlock *> in(blocks.begin(), blocks.end());
    std::vector<PHINode *> lcssa;
    for (BasicBlock *BB : blocks)
        for (Instruction &I : *BB) {
            PHINode *phi = nullptr;
            for (Use &U : make_early_inc_range(I.uses())) {
                auto *UI = cast<Instruction>(U.getUser());
                if (in.count(UI->getParent()) || UI == phi)
                    continue;
                if (!phi) {
                    phi = PHINode::Create(I.getType(), 3, I.getName() + ".sx.lcssa", &NX->front());
                    phi->addIncoming(&I, latch);
                    lcssa.push_back(phi);
                }
                U.set(phi);
            }
        }
    // the stored value at the end of an iteration, for the store after the loop
    Value *last = c.S->getValueOperand();
    if (c.cond) {
        auto *SI = dyn_cast<Instruction>(last);
        PHINode *have = nullptr;  // uniformize.cpp's join of the guarded value, or the like
        for (PHINode &PN : c.join->phis())
            if (PN.getIncomingValueForBlock(c.S->getParent()) == last)
                have = &PN;
        if (have) {
            last = have;
        } else if (SI && in.count(SI->getParent())) {
            PHINode *phi = PHINode::Create(last->getType(), 2, "sx.stored", &c.join->front());
            for (BasicBlock *Pred : predecessors(c.join))
                phi->addIncoming(Pred == c.S->getParent() ? last : UndefValue::get(last->getType()), Pred);
            last = phi;
        }
    }
    // the copy
    ValueToValueMapTy VM;
    SmallVector<BasicBlock *, 16> copies;
    for (BasicBlock *BB : blocks) {
        BasicBlock *Y = CloneBasicBlock(BB, VM, ".sx.fast", &K);
        VM[BB] = Y;
        copies.push_back(Y);
    }
    remapInstructionsInBlocks(copies, VM);
    BasicBlock *latchF = cast<BasicBlock>(VM[latch]), *HF = cast<BasicBlock>(VM[H]);
    // leaving the copy: FX stores (under the test) and goes on to NX
    BasicBlock *FX = BasicBlock::Create(C, X->getName() + ".sx.fast.exit", &K, NX);
    cast<BranchInst>(latchF->getTerminator())->replaceUsesOfWith(NX, FX);
    Value *lastF = VM.count(last) ? (Value *)VM[last] : last;
    StoreInst *SF = cast<StoreInst>(VM[c.S]);
    BasicBlock *from = FX;
    if (c.cond) {
        // the test again (when the loop computes it: it stays there, where
        // it reads its operand in lanes, not as a flag kept across barriers)
        Value *cond = c.cond;
        if (auto *CI = dyn_cast<Instruction>(cond))
            if (L->contains(CI)) {
                Instruction *copy = CI->clone();
                FX->getInstList().push_back(copy);
                cond = copy;
            }
        BasicBlock *ST = BasicBlock::Create(C, X->getName() + ".sx.store", &K, NX);
        BranchInst::Create(ST, NX, cond, FX);
        from = ST;
        SF->removeFromParent();
        ST->getInstList().push_back(SF);
        BranchInst::Create(NX, ST);
    } else {
        SF->removeFromParent();
        FX->getInstList().push_back(SF);
        BranchInst::Create(NX, FX);
    }
    SF->setOperand(0, lastF);
    for (PHINode *phi : lcssa) {
        Value *v = phi->getIncomingValue(0);
        Value *vf = VM.count(v) ? (Value *)VM[v] : v;
        phi->addIncoming(vf, FX);
        if (from != FX)
            phi->addIncoming(vf, from);
    }
    if (c.cond)
        unguardTail(cast<BasicBlock>(VM[c.S->getParent()]), cast<BasicBlock>(VM[c.join]));
    // in the preheader: ok ? fast copy : the loop
    P->getTerminator()->eraseFromParent();
    BranchInst::Create(HF, H, ok, P);
}

}  // namespace

unsigned promoteStores(Function &K)
{
    KernelAnalyses A(K);
    if (!A.ok)
        return 0;
    DominatorTree &DT = A.DT;
    LoopInfo &LI = A.LI;
    DivergenceAnalysisImpl &DA = *A.DA;
    ScalarEvolution &SE = *A.SE;
    std::set<BasicBlock *> &reach = A.reach;
    const DataLayout &DL = K.getParent()->getDataLayout();
    std::vector<std::pair<Candidate, Value *>> todo;
    for (Loop *L : LI.getLoopsInPreorder()) {
        Candidate c;
        if (!examine(L, DA, reach, DT, c))
            continue;
        Ranges R(L, DA, SE, DL);
        std::vector<std::set<unsigned>> on(c.loads.size() + 1);
        bool ok = R.deps(c.S->getPointerOperand(), on[0], true);
        for (unsigned k = 0; ok && k < c.loads.size(); k++)
            ok = R.deps(c.loads[k]->getPointerOperand(), on[k + 1], true);
        if (!ok || R.vars.size() > 6)
            continue;
        if (!L->getLoopPreheader())  // a rotated loop's entry test ends the block before it
            InsertPreheaderForLoop(L, &DT, &LI, nullptr, false);
        // the check, in the preheader
        BasicBlock *P = L->getLoopPreheader();
        IRBuilder<> B(P->getTerminator());
        SCEVExpander X(SE, DL, "sx.promote");
        std::vector<Value *> conds;
        if (!R.bind(B, X, conds))
            continue;  // (what it expanded is dead code: the pipeline drops it)
        B.SetInsertPoint(P->getTerminator());
        Value *slo, *shi;
        R.range(B, c.S->getPointerOperand(), on[0], DL.getTypeStoreSize(c.S->getValueOperand()->getType()), slo, shi);
        for (unsigned k = 0; k < c.loads.size(); k++) {
            Value *lo, *hi;
            R.range(B, c.loads[k]->getPointerOperand(), on[k + 1], DL.getTypeStoreSize(c.loads[k]->getType()), lo, hi);
            conds.push_back(B.CreateOr(B.CreateICmpULE(shi, lo), B.CreateICmpULE(hi, slo)));
        }
        Value *all = B.getTrue();
        for (Value *v : conds)
            all = B.CreateAnd(all, v);
        todo.push_back({c, all});
    }
    for (auto &t : todo) {
        t.second->setName("sx.noalias");
        version(t.first, t.second);
    }
    return (unsigned)todo.size();
}

}  // namespace wgc
