/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// workgroup.cpp: the work-group functions `void fn(const sxn_wg_ctx *ctx)`
// and the tables the adapter reads (__sx_wg_abi, __sx_wg_table,
// __sx_wg_imports). Everything fn needs from ctx is loaded once before the
// work-item loops (z, y, x; x innermost) so the loops see plain values and
// the host compiler can vectorize the x loop.
#include "wgc.h"
#include "passes.h"

#include <algorithm>
#include <functional>
#include <set>

#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/ScalarEvolutionExpressions.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/LoopUtils.h>

using namespace llvm;

namespace wgc {

bool runOnFunction(Function &F, const char *pipeline)
{
    Passes P;
    PassBuilder &PB = P.PB;
    FunctionPassManager FPM;
    if (Error e = PB.parsePassPipeline(FPM, pipeline)) {
        consumeError(std::move(e));
        return false;
    }
    FPM.run(F, P.FAM);
    return true;
}

namespace {

Value *ctxLoad(IRBuilder<> &B, Value *base, unsigned off, Type *T, const Twine &name)
{
    Value *p = B.CreateGEP(B.getInt8Ty(), base, B.getInt64(off));
    auto *L = B.CreateLoad(T, B.CreateBitCast(p, T->getPointerTo()), name);
    return L;
}

// Loops z, y, x over the local size; `body` emits one work-item and
// returns its region result, or-ed into the value the nest returns; with
// `reduce` false (a region's next region, the same for every work-item)
// the last work-item's, so no value runs through the loops' headers
// (jamYLoops needs none there). With `strip` (a power of two,
// the sub-group size of a kernel compiled for full sub-groups: the local
// size in x a multiple of it), x runs as a loop over the sub-groups of the
// row (wi.sg) around one over the work-items of a sub-group (wi.x, trip
// count `strip`), the local id x their sum; `strips` gets (id, outer,
// inner) for splitStrips.
struct Strip {
    Value *lx, *outer, *inner;
    unsigned size;
};
Value *workItemLoops(IRBuilder<> &B, Function *W, Value *const lsize[3],
                     const std::function<Value *(IRBuilder<> &, Value *const lid[3])> &body, unsigned strip = 0,
                     std::vector<Strip> *strips = nullptr, bool reduce = true)
{
    LLVMContext &C = W->getContext();
    struct Level {
        const char *name;
        Value *step, *bound;
        BasicBlock *hdr = nullptr, *latch = nullptr;
        PHINode *id = nullptr, *acc = nullptr;
    };
    std::vector<Level> lv;  // outermost first
    lv.push_back({"z", B.getInt64(1), lsize[2]});
    lv.push_back({"y", B.getInt64(1), lsize[1]});
    if (strip) {
        lv.push_back({"sg", B.getInt64(strip), lsize[0]});
        lv.push_back({"x", B.getInt64(1), B.getInt64(strip)});
    } else {
        lv.push_back({"x", B.getInt64(1), lsize[0]});
    }
    for (size_t k = 0; k < lv.size(); k++) {
        Level &l = lv[k];
        l.hdr = BasicBlock::Create(C, Twine("wi.") + l.name, W);
        B.CreateBr(l.hdr);
        BasicBlock *from = B.GetInsertBlock();
        B.SetInsertPoint(l.hdr);
        l.id = B.CreatePHI(B.getInt64Ty(), 2, Twine("l") + l.name);
        if (reduce)
            l.acc = B.CreatePHI(B.getInt32Ty(), 2, Twine("r") + l.name);
        l.id->addIncoming(B.getInt64(0), from);
        if (reduce)
            l.acc->addIncoming(k == 0 ? (Value *)B.getInt32(0) : (Value *)lv[k - 1].acc, from);
    }
    Value *lid[3] = {lv.back().id, lv[1].id, lv[0].id};
    if (strip) {
        lid[0] = B.CreateAdd(lv[2].id, lv[3].id, "lx", true, true);
        if (strips)
            strips->push_back({lid[0], lv[2].id, lv[3].id, strip});
    }
    Value *r = reduce ? B.CreateOr(lv.back().acc, body(B, lid)) : body(B, lid);
    for (size_t k = lv.size(); k-- > 0;) {
        Level &l = lv[k];
        Value *next = B.CreateAdd(l.id, l.step, Twine("l") + l.name + ".next", true, true);
        l.latch = B.GetInsertBlock();
        BasicBlock *out = BasicBlock::Create(C, Twine("wi.") + l.name + ".done", W);
        B.CreateCondBr(B.CreateICmpULT(next, l.bound), l.hdr, out);
        l.id->addIncoming(next, l.latch);
        if (reduce)
            l.acc->addIncoming(r, l.latch);
        B.SetInsertPoint(out);
    }
    return r;
}

// The sub-group id and local id of a strip-mined x loop's work-item (the
// id divided by and modulo the sub-group size, as groups.cpp computes
// them) taken from the two loops: the outer value and the inner
// induction. The host compiler cannot see that the inner induction stays
// below the size, and telling it (a mask, an assumption) makes it turn
// the id's add into an or, which its address analysis does not follow:
// block loads and stores would be gathers and scatters.
void splitStrips(const std::vector<Strip> &strips)
{
    for (const Strip &st : strips) {
        unsigned lg = 0;
        while ((1u << lg) < st.size)
            lg++;
        for (User *U : make_early_inc_range(st.lx->users())) {
            auto *BO = dyn_cast<BinaryOperator>(U);
            auto *c = BO && BO->getOperand(0) == st.lx ? dyn_cast<ConstantInt>(BO->getOperand(1)) : nullptr;
            if (!c)
                continue;
            uint64_t k = c->getZExtValue();
            Value *v = nullptr;
            IRBuilder<> B(BO);
            if ((BO->getOpcode() == Instruction::LShr && k == lg) || (BO->getOpcode() == Instruction::UDiv && k == st.size))
                v = B.CreateLShr(st.outer, lg);
            else if ((BO->getOpcode() == Instruction::And && k == st.size - 1) ||
                     (BO->getOpcode() == Instruction::URem && k == st.size))
                v = st.inner;
            if (v) {
                BO->replaceAllUsesWith(v);
                BO->eraseFromParent();
            }
        }
    }
}

bool match0(Value *v)
{
    auto *c = dyn_cast<ConstantInt>(v);
    return c && c->isZero();
}

// An x work-item loop as workItemLoops builds it, after clean-up:
// lx = phi [start, preheader], [lx + 1, latch]; the latch, its only
// exiting block, branches back while lx + 1 < n (start and n invariant,
// start < n; start is 0 but where splitXLoop made it the split point).
struct XLoop {
    Loop *L = nullptr;
    BasicBlock *pre = nullptr, *head = nullptr, *latch = nullptr, *exit = nullptr;
    PHINode *iv = nullptr;
    Instruction *next = nullptr;
    ICmpInst *cmp = nullptr;
    Value *n = nullptr, *start = nullptr;
};

bool matchXLoop(Loop *L, XLoop &x)
{
    x.L = L;
    x.head = L->getHeader();
    x.pre = L->getLoopPreheader();
    x.latch = L->getLoopLatch();
    if (!x.head->getName().startswith("wi.x") || x.head->getName().contains("done") || !x.pre || !x.latch ||
        L->getExitingBlock() != x.latch || !L->isInnermost())
        return false;
    x.exit = L->getExitBlock();
    auto *Br = dyn_cast<BranchInst>(x.latch->getTerminator());
    if (!x.exit || x.exit->getSinglePredecessor() != x.latch || !Br || !Br->isConditional() ||
        Br->getSuccessor(0) != x.head || !isa<BranchInst>(x.pre->getTerminator()))
        return false;
    x.cmp = dyn_cast<ICmpInst>(Br->getCondition());
    if (!x.cmp || x.cmp->getPredicate() != CmpInst::ICMP_ULT || !x.cmp->hasOneUse() ||
        !L->isLoopInvariant(x.cmp->getOperand(1)))
        return false;
    x.n = x.cmp->getOperand(1);
    auto *add = dyn_cast<BinaryOperator>(x.cmp->getOperand(0));
    auto *one = add ? dyn_cast<ConstantInt>(add->getOperand(1)) : nullptr;
    x.iv = add ? dyn_cast<PHINode>(add->getOperand(0)) : nullptr;
    if (!add || add->getOpcode() != Instruction::Add || !one || !one->isOne() || !x.iv ||
        x.iv->getParent() != x.head || x.iv->getNumIncomingValues() != 2 ||
        x.iv->getIncomingValueForBlock(x.latch) != add || !x.L->isLoopInvariant(x.iv->getIncomingValueForBlock(x.pre)))
        return false;
    x.next = add;
    x.start = x.iv->getIncomingValueForBlock(x.pre);
    return true;
}

// Is v the id plus a small constant c (lx + c exactly, |c| <= 64), through
// adds, subtractions, truncations to 16 bits or more and extensions? lx
// is below 1024 (the adapter's largest group), so no step wraps, but a
// zero extension of a negative value would: refused.
bool idPlus(Value *v, const XLoop &x, int64_t &c, unsigned depth = 0)
{
    if (v == x.iv) {
        c = 0;
        return true;
    }
    if (depth > 6)
        return false;
    if (auto *T = dyn_cast<TruncInst>(v))
        return T->getType()->getIntegerBitWidth() >= 16 && idPlus(T->getOperand(0), x, c, depth + 1);
    if (auto *S = dyn_cast<SExtInst>(v))
        return idPlus(S->getOperand(0), x, c, depth + 1);
    if (auto *Z = dyn_cast<ZExtInst>(v))
        return idPlus(Z->getOperand(0), x, c, depth + 1) && c >= 0;
    auto *BO = dyn_cast<BinaryOperator>(v);
    auto *K = BO ? dyn_cast<ConstantInt>(BO->getOperand(1)) : nullptr;
    if (!K || K->getBitWidth() > 64 || (BO->getOpcode() != Instruction::Add && BO->getOpcode() != Instruction::Sub))
        return false;
    int64_t k = K->getSExtValue(), c0;
    if (k < -64 || k > 64 || !idPlus(BO->getOperand(0), x, c0, depth + 1))
        return false;
    c = BO->getOpcode() == Instruction::Add ? c0 + k : c0 - k;
    return c >= -64 && c <= 64;
}

// How the ids [start, n) of an x loop divide at a branch on the id.
struct Split {
    Value *m = nullptr;   // the split point, in [start, n]
    bool below = true;    // the condition below m (a constant there)...
    Value *lowerCmp = nullptr;  // ...unless it is this test on the copy's id, `id >= t` or `id < t`
    CmpInst::Predicate lowerPred = CmpInst::ICMP_SGE;
    bool above = false;   // the condition from m on
};

// A branch (or select) of L on `lx + c P u` (u invariant in L, c a small constant; an
// integer compare of any width of 16 bits or more): the ids for which it
// holds are a prefix or a suffix of [start, n), or for == and != one id,
// which splits off in two steps (the copy below keeps `id >= t` or
// `id < t`, which the next split takes). False when Br is not such a
// branch; the split point and the rest computed at B.
bool splitPoint(IRBuilder<> &B, const XLoop &x, Value *cond, Split &sp)
{
    auto *C = dyn_cast<ICmpInst>(cond);
    if (!C)
        return false;
    CmpInst::Predicate p = C->getPredicate();
    Value *a = C->getOperand(0), *u = C->getOperand(1);
    int64_t c;
    if (!idPlus(a, x, c)) {
        std::swap(a, u);
        p = CmpInst::getSwappedPredicate(p);
        if (!idPlus(a, x, c))
            return false;
    }
    if (!x.L->isLoopInvariant(u) || !u->getType()->isIntegerTy() || u->getType()->getIntegerBitWidth() > 64)
        return false;
    bool isSigned = CmpInst::isSigned(p);
    if (!isSigned && c < 0)  // lx - 1 as unsigned wraps at lx = 0
        return false;
    // t = u - c, with u clamped to +-2^40 first (beyond, every id is on one
    // side): lx + c P u <=> lx P t, all in exact (small) integers
    Type *i64 = B.getInt64Ty();
    Value *u64 = isSigned ? B.CreateSExtOrTrunc(u, i64) : B.CreateZExtOrTrunc(u, i64);
    Value *big = B.getInt64(int64_t(1) << 40);
    if (isSigned) {
        u64 = B.CreateSelect(B.CreateICmpSGT(u64, big), big, u64);
        Value *nbig = B.getInt64(-(int64_t(1) << 40));
        u64 = B.CreateSelect(B.CreateICmpSLT(u64, nbig), nbig, u64);
    } else {
        u64 = B.CreateSelect(B.CreateICmpUGT(u64, big), big, u64);
    }
    Value *t = B.CreateSub(u64, B.getInt64(c));
    // clamp a signed point into [start, n]
    auto clamp = [&](Value *v) {
        v = B.CreateSelect(B.CreateICmpSLT(v, x.start), x.start, v);
        return B.CreateSelect(B.CreateICmpSGT(v, x.n), x.n, v);
    };
    Value *t1 = B.CreateAdd(t, B.getInt64(1));
    switch (p) {
    case CmpInst::ICMP_ULT: case CmpInst::ICMP_SLT:  // lx < t
        sp.m = clamp(t), sp.below = true, sp.above = false;
        return true;
    case CmpInst::ICMP_ULE: case CmpInst::ICMP_SLE:  // lx < t + 1
        sp.m = clamp(t1), sp.below = true, sp.above = false;
        return true;
    case CmpInst::ICMP_UGE: case CmpInst::ICMP_SGE:
        sp.m = clamp(t), sp.below = false, sp.above = true;
        return true;
    case CmpInst::ICMP_UGT: case CmpInst::ICMP_SGT:
        sp.m = clamp(t1), sp.below = false, sp.above = true;
        return true;
    case CmpInst::ICMP_EQ: case CmpInst::ICMP_NE: {  // lx == t: below t + 1, it is lx >= t
        bool eq = p == CmpInst::ICMP_EQ;
        sp.m = clamp(t1);
        sp.above = !eq;
        auto *k = dyn_cast<ConstantInt>(t);
        if (k && k->isZero() && match0(x.start)) {  // lx == 0: the first work-item alone
            sp.below = eq;
            return true;
        }
        sp.lowerCmp = t;
        sp.lowerPred = eq ? CmpInst::ICMP_SGE : CmpInst::ICMP_SLT;
        return true;
    }
    default:
        return false;
    }
}

// Splits x loop x at its first branch on the id against an invariant
// bound (`if (l < s)` in a tree reduction, `if (l == 0)`): a copy of the
// loop runs the ids below the split point with the branch folded one way,
// the loop itself the ids from it with the branch folded the other way.
// Each copy's x loop then has no divergent branch there, and its trip
// count is what work is left (s lanes, not the group's). The ids run
// from start: [start, m) in the copy, [m, n) in the loop.
bool splitXLoop(Function &F, XLoop &x, DominatorTree &DT, LoopInfo &LI)
{
    Instruction *Br = nullptr;  // a conditional branch or a select on a scalar condition
    Split sp;
    unsigned size = 0;
    for (BasicBlock *BB : x.L->blocks())
        size += BB->size();
    if (size > 2000)
        return false;
    IRBuilder<> B(x.pre->getTerminator());
    for (BasicBlock *BB : x.L->blocks()) {
        for (Instruction &I : *BB) {
            Value *cond = nullptr;
            if (auto *T = dyn_cast<BranchInst>(&I)) {
                if (BB != x.latch && T->isConditional() && T->getSuccessor(0) != T->getSuccessor(1))
                    cond = T->getCondition();
            } else if (auto *S = dyn_cast<SelectInst>(&I)) {
                if (S->getCondition()->getType()->isIntegerTy(1))
                    cond = S->getCondition();
            }
            if (cond && splitPoint(B, x, cond, sp)) {
                Br = &I;
                break;
            }
        }
        if (Br)
            break;
    }
    if (!Br)
        return false;
    formLCSSA(*x.L, DT, &LI, nullptr);
    LLVMContext &C = F.getContext();
    // the copy, for ids [0, m)
    ValueToValueMapTy VM;
    SmallVector<BasicBlock *, 16> lo;
    for (BasicBlock *BB : x.L->blocks()) {
        BasicBlock *BB1 = CloneBasicBlock(BB, VM, ".lo", &F);
        VM[BB] = BB1;
        lo.push_back(BB1);
    }
    remapInstructionsInBlocks(lo, VM);
    auto mapped = [&](Value *v) {
        auto it = VM.find(v);
        return it != VM.end() ? (Value *)it->second : v;
    };
    BasicBlock *head1 = cast<BasicBlock>(VM[x.head]), *latch1 = cast<BasicBlock>(VM[x.latch]);
    BasicBlock *mid = BasicBlock::Create(C, x.head->getName() + ".mid", &F, x.head);
    Value *m = sp.m;
    cast<ICmpInst>(VM[x.cmp])->setOperand(1, m);
    auto *Br1 = cast<Instruction>(VM[Br]);
    if (sp.lowerCmp)
        Br1->setOperand(0, new ICmpInst(Br1, sp.lowerPred, VM[x.iv], sp.lowerCmp, "id.split"));
    else
        Br1->setOperand(0, ConstantInt::getBool(C, sp.below));
    Br->setOperand(0, ConstantInt::getBool(C, sp.above));
    latch1->getTerminator()->replaceSuccessorWith(x.exit, mid);
    // preheader: the copy when m > start, else straight to the loop
    x.pre->getTerminator()->eraseFromParent();
    B.SetInsertPoint(x.pre);
    B.CreateCondBr(B.CreateICmpEQ(m, x.start), mid, head1);
    // mid: the header's values as the copy leaves them; the loop when m < n
    B.SetInsertPoint(mid);
    for (PHINode &P : x.head->phis()) {
        Value *start;
        if (&P == x.iv) {
            start = m;
        } else {
            PHINode *Q = B.CreatePHI(P.getType(), 2, P.getName() + ".mid");
            Q->addIncoming(mapped(P.getIncomingValueForBlock(x.latch)), latch1);
            Q->addIncoming(P.getIncomingValueForBlock(x.pre), x.pre);
            start = Q;
        }
        int i = P.getBasicBlockIndex(x.pre);
        P.setIncomingBlock(i, mid);
        P.setIncomingValue(i, start);
    }
    // the exit's (LCSSA) values when the loop does not run: the copy's
    std::vector<std::pair<PHINode *, Value *>> outs;
    for (PHINode &P : x.exit->phis()) {
        Value *v = P.getIncomingValueForBlock(x.latch), *w = mapped(v);
        if (w != v) {
            PHINode *Q = B.CreatePHI(P.getType(), 2, P.getName() + ".lo");
            Q->addIncoming(w, latch1);
            Q->addIncoming(UndefValue::get(P.getType()), x.pre);
            w = Q;
        }
        outs.push_back({&P, w});
    }
    for (auto &o : outs)
        o.first->addIncoming(o.second, mid);
    B.CreateCondBr(B.CreateICmpULT(m, x.n), x.head, x.exit);
    return true;
}

// Does anything in L but the loop's own count depend on the id, or on a
// value the loop carries other than an or-ed region result? Is there
// anything with an effect beyond plain loads and stores? If not, every
// work-item of the loop does the same thing, and one does it for all: a
// second work-item storing the same values changes nothing (a program
// whose work-items race on memory without atomics has no meaning).
bool sameForAll(const XLoop &x)
{
    std::set<const Value *> seeds;
    for (PHINode &P : x.head->phis())
        if (&P != x.iv)
            seeds.insert(&P);
    seeds.insert(x.iv);
    // what depends on a seed, within L (the count's add and compare aside)
    auto dependsOn = [&](Value *v, const Value *seed) {
        std::vector<Value *> work = {v};
        std::set<Value *> seen;
        while (!work.empty()) {
            Value *w = work.back();
            work.pop_back();
            if (w == seed)
                return true;
            auto *I = dyn_cast<Instruction>(w);
            if (!I || !x.L->contains(I) || isa<PHINode>(I) || !seen.insert(w).second)
                continue;
            for (Value *op : I->operands())
                work.push_back(op);
        }
        return false;
    };
    for (BasicBlock *BB : x.L->blocks())
        for (Instruction &I : *BB) {
            if (auto *CB = dyn_cast<CallBase>(&I)) {
                auto *II = dyn_cast<IntrinsicInst>(CB);
                if (!II || !(II->doesNotAccessMemory() || II->isAssumeLikeIntrinsic()))
                    return false;
            }
            if (I.isAtomic() || isa<FenceInst>(I) || (isa<LoadInst>(I) && cast<LoadInst>(I).isVolatile()) ||
                (isa<StoreInst>(I) && cast<StoreInst>(I).isVolatile()))
                return false;
            if (&I == x.next || &I == x.cmp || isa<PHINode>(I))
                continue;
            for (Value *op : I.operands())
                if (op == x.iv || op == x.next)
                    return false;
        }
    for (PHINode &P : x.head->phis()) {
        if (&P == x.iv)
            continue;
        Value *v = P.getIncomingValueForBlock(x.latch);
        auto *Or = dyn_cast<BinaryOperator>(v);
        if (Or && Or->getOpcode() == Instruction::Or && (Or->getOperand(0) == &P || Or->getOperand(1) == &P))
            v = Or->getOperand(0) == &P ? Or->getOperand(1) : Or->getOperand(0);
        for (PHINode &Q : x.head->phis())
            if (dependsOn(v, &Q))
                return false;
    }
    // a phi inside the body (a join) may carry the id only through its
    // operands, which the walk above skips: check them directly
    for (BasicBlock *BB : x.L->blocks())
        if (BB != x.head)
            for (PHINode &P : BB->phis())
                for (Value *op : P.incoming_values())
                    if (dependsOn(op, x.iv))
                        return false;
    return true;
}

// The work-item loops of W narrowed to the work-items that do something
// (splitXLoop), and loops whose every work-item does the same run once.
// Returns how many loops it changed.
unsigned narrowWorkItemLoops(Function &W)
{
    // the short constant loops uniformLoops marked (a 16-wide tile) unrolled
    // first, so that the x loops around them are innermost; no peeling (the
    // full-unroll pass would peel the first work-item off an x loop with
    // an `l == 0`, leaving a tree reduction's levels ids 1 .. s - 1: never
    // whole vectors; splitXLoop takes that branch instead)
    const char *clean = "sroa,early-cse<memssa>,simplifycfg,instcombine,loop-unroll<O2;no-partial;no-peeling;no-runtime;no-upperbound;no-profile-peeling>,simplifycfg,instcombine,"
                        "loop-mssa(licm,simple-loop-unswitch<nontrivial>),simplifycfg,instcombine";
    if (!runOnFunction(W, clean))
        return 0;
    unsigned changed = 0;
    for (unsigned round = 0; round < 8; round++) {
        runOnFunction(W, "loop-simplify");  // preheaders and exits of their own for the copies
        DominatorTree DT(W);
        LoopInfo LI(DT);
        bool any = false;
        for (Loop *L : LI.getLoopsInPreorder()) {
            XLoop x;
            if (matchXLoop(L, x) && splitXLoop(W, x, DT, LI)) {
                any = true;
                break;
            }
        }
        if (!any)
            break;
        changed++;
    }
    if (changed && !runOnFunction(W, "early-cse<memssa>,simplifycfg,instcombine,simplifycfg"))
        return changed;
    runOnFunction(W, "loop-simplify");
    DominatorTree DT(W);
    LoopInfo LI(DT);
    for (Loop *L : LI.getLoopsInPreorder()) {
        XLoop x;
        if (!matchXLoop(L, x) || !sameForAll(x))
            continue;
        auto *Br = cast<BranchInst>(x.latch->getTerminator());
        x.head->removePredecessor(x.latch);
        BranchInst::Create(x.exit, Br);
        Br->eraseFromParent();
        changed++;
    }
    if (changed)
        runOnFunction(W, "simplifycfg,instcombine");
    return changed;
}

// The uniform values a region wrote (at private_mem + bytes, `used` of
// them) copied to where the next reads them (private_mem). The region
// stored them one by one (8 bytes or less each): a wide load of them waits
// until those stores reach the cache (no store forwarding, ~20 cycles on
// each of a tree reduction's 9 region changes), so a short block is copied
// in 8-byte words, volatile so that nothing merges them into vectors
// again; only the words the values take (a tree reduction: 2 of 8).
void copyUniforms(IRBuilder<> &B, Value *priv, uint64_t bytes, uint64_t used)
{
    if (used > 256 || used % 8) {
        B.CreateMemCpy(priv, MaybeAlign(64), B.CreateGEP(B.getInt8Ty(), priv, B.getInt64(bytes)), MaybeAlign(64), used);
        return;
    }
    Type *i64 = B.getInt64Ty();
    Value *base = B.CreateBitCast(priv, i64->getPointerTo());
    for (uint64_t o = 0; o < used; o += 8) {
        Value *v = B.CreateAlignedLoad(i64, B.CreateConstGEP1_64(i64, base, (bytes + o) / 8), Align(8), true);
        B.CreateAlignedStore(v, B.CreateConstGEP1_64(i64, base, o / 8), Align(8), true);
    }
}

}  // namespace

unsigned versionFullVectors(Function &W, unsigned width)
{
    runOnFunction(W, "loop-simplify");
    DominatorTree DT(W);
    LoopInfo LI(DT);
    std::vector<std::pair<XLoop, bool>> xs;  // the loop, and whether a scalar copy pays
    for (Loop *L : LI.getLoopsInPreorder()) {
        XLoop x;
        unsigned size = 0;
        for (BasicBlock *BB : L->blocks())
            size += BB->size();
        // scalar under one vector only for a short body (a reduction level):
        // where each work-item does more, masked lanes win anyway
        if (matchXLoop(L, x) && size <= 2000)
            xs.push_back({x, size <= 24});
    }
    for (auto &xp : xs)
        formLCSSA(*xp.first.L, DT, &LI, nullptr);
    for (auto &xp : xs) {
        XLoop &x = xp.first;
        BasicBlock *heads[2] = {};
        for (int k = 0; k < (xp.second ? 2 : 1); k++) {
            ValueToValueMapTy VM;
            SmallVector<BasicBlock *, 16> copy;
            for (BasicBlock *BB : x.L->blocks()) {
                BasicBlock *BB1 = CloneBasicBlock(BB, VM, k ? ".small" : ".full", &W);
                VM[BB] = BB1;
                copy.push_back(BB1);
            }
            remapInstructionsInBlocks(copy, VM);
            heads[k] = cast<BasicBlock>(VM[x.head]);
            for (PHINode &P : x.exit->phis()) {
                Value *v = P.getIncomingValueForBlock(x.latch);
                auto it = VM.find(v);
                P.addIncoming(it != VM.end() ? (Value *)it->second : v, cast<BasicBlock>(VM[x.latch]));
            }
        }
        IRBuilder<> B(x.pre->getTerminator());
        Value *trip = B.CreateSub(x.n, x.start);
        Value *whole = B.CreateICmpEQ(B.CreateAnd(trip, B.getInt64(width - 1)), B.getInt64(0), "full");
        Value *small = B.CreateICmpULT(trip, B.getInt64(width), "small");
        B.CreateCondBr(whole, heads[0], x.head);
        x.pre->getTerminator()->eraseFromParent();
        if (!heads[1])
            continue;
        // not whole vectors: fewer than one vector in scalar code, else masked
        BasicBlock *pick = BasicBlock::Create(W.getContext(), x.head->getName() + ".pick", &W, x.head);
        x.pre->getTerminator()->replaceSuccessorWith(x.head, pick);
        for (PHINode &P : x.head->phis())
            P.replaceIncomingBlockWith(x.pre, pick);
        for (PHINode &P : heads[1]->phis())
            P.replaceIncomingBlockWith(x.pre, pick);
        B.SetInsertPoint(pick);
        B.CreateCondBr(small, heads[1], x.head);
    }
    return (unsigned)xs.size();
}

// Is the load one of the region's uniform values (regions.cpp's
// uniform.in slots: written only between regions, the same region long)?
bool uniformIn(const LoadInst *L)
{
    MDNode *s = L->getMetadata(LLVMContext::MD_alias_scope);
    auto *sc = s && s->getNumOperands() == 1 ? dyn_cast<MDNode>(s->getOperand(0)) : nullptr;
    auto *name = sc && sc->getNumOperands() > 2 ? dyn_cast<MDString>(sc->getOperand(2)) : nullptr;
    return name && name->getString() == "uniform.in";
}

// Does the address p (in y loop Y) stay the same from one y row to the
// next: computed from the x id, constants and values from outside Y, not
// from the y id, another phi of Y or a load (but, with `uniformLoads`, the
// region's uniform values: uniformIn)?
bool yInvariantAddress(Value *p, const Loop *Y, const PHINode *xid, bool uniformLoads = false, unsigned depth = 0)
{
    auto *I = dyn_cast<Instruction>(p);
    if (!I || !Y->contains(I))
        return true;
    if (depth > 24 || isa<CallBase>(I))
        return false;
    if (auto *L = dyn_cast<LoadInst>(I))
        return uniformLoads && L->isSimple() && uniformIn(L) &&
               yInvariantAddress(L->getPointerOperand(), Y, xid, true, depth + 1);
    if (isa<PHINode>(I))
        return I == xid;
    for (Value *op : I->operands())
        if (!yInvariantAddress(op, Y, xid, uniformLoads, depth + 1))
            return false;
    return true;
}

// Does v (in y loop Y) come from a phi of Y's header (the y id)?
bool fromYId(Value *v, const Loop *Y, unsigned depth = 0)
{
    auto *I = dyn_cast<Instruction>(v);
    if (!I || !Y->contains(I) || depth > 24)
        return false;
    if (auto *P = dyn_cast<PHINode>(I))
        return P->getParent() == Y->getHeader();
    for (Value *op : I->operands())
        if (fromYId(op, Y, depth + 1))
            return true;
    return false;
}

// Unroll-and-jam of the y work-item loop around the x loop: where a region's
// x loop reads the same addresses on every y row (a tile row tb[k][lx] in a
// tiled matrix product), the y loop steps by `count` rows and its x loop runs the rows' bodies one after another, so
// the host compiler loads each such vector once for `count` rows and pays
// the x loop's set-up once for them; a copy of the loop as it was takes
// the rows left. The work-items of a region are independent (no barrier
// between them), so any order of them is the kernel's meaning: no
// dependence test. Only the simple nest: the y header (what was hoisted
// out of the x loop), a one-block x loop, the y latch with nothing but
// the step, and no value of the nest used after it.
bool jamYLoop(Function &W, Loop *Y, XLoop &x, unsigned count)
{
    BasicBlock *H = Y->getHeader(), *A = Y->getLoopLatch(), *pre = Y->getLoopPreheader(), *E = Y->getExitBlock();
    if (!A || !pre || !E || Y->getNumBlocks() != 3 || x.L->getNumBlocks() != 1 || x.exit != A ||
        Y->getExitingBlock() != A || H->getTerminator()->getNumSuccessors() != 1 ||
        H->getTerminator()->getSuccessor(0) != x.head || !E->phis().empty() || !isa<BranchInst>(pre->getTerminator()))
        return false;
    // the y id: phi [0, pre], [id + 1, A]; A: id + 1, the compare, the branch
    auto *Br = dyn_cast<BranchInst>(A->getTerminator());
    if (!Br || !Br->isConditional() || Br->getSuccessor(0) != H || A->size() != 3)
        return false;
    auto *cmp = dyn_cast<ICmpInst>(Br->getCondition());
    PHINode *ly = nullptr;
    for (PHINode &P : H->phis()) {
        if (ly)
            return false;
        ly = &P;
    }
    if (!ly || !cmp || cmp->getPredicate() != CmpInst::ICMP_ULT || !match0(ly->getIncomingValueForBlock(pre)))
        return false;
    auto *next = dyn_cast<BinaryOperator>(ly->getIncomingValueForBlock(A));
    auto *one = next ? dyn_cast<ConstantInt>(next->getOperand(1)) : nullptr;
    if (!next || next->getParent() != A || next->getOpcode() != Instruction::Add || next->getOperand(0) != ly ||
        !one || !one->isOne() || cmp->getOperand(0) != next || !Y->isLoopInvariant(cmp->getOperand(1)) ||
        cmp->getParent() != A)
        return false;
    for (BasicBlock *BB : Y->blocks())
        for (Instruction &I : *BB)
            for (User *U : I.users())
                if (!Y->contains(cast<Instruction>(U)))
                    return false;
    for (Instruction &I : *H)
        if (I.mayWriteToMemory() || (isa<CallBase>(I) && !isa<IntrinsicInst>(I)))
            return false;
    Value *n = cmp->getOperand(1);
    LLVMContext &C = W.getContext();
    // the remainder: the loop as it is, from the first row the jammed loop left
    ValueToValueMapTy RM;
    SmallVector<BasicBlock *, 4> rest;
    for (BasicBlock *BB : {H, x.head, A}) {
        BasicBlock *BB1 = CloneBasicBlock(BB, RM, ".rest", &W);
        RM[BB] = BB1;
        rest.push_back(BB1);
    }
    remapInstructionsInBlocks(rest, RM);
    BasicBlock *guard = BasicBlock::Create(C, "wi.jam.guard", &W, H);
    BasicBlock *left = BasicBlock::Create(C, "wi.jam.left", &W, rest[0]);
    pre->getTerminator()->replaceSuccessorWith(H, guard);
    IRBuilder<> B(guard);
    Value *nU = B.CreateSub(n, B.getInt64(count), "rows.jam");
    B.CreateCondBr(B.CreateICmpUGE(n, B.getInt64(count)), H, left);
    ly->replaceIncomingBlockWith(pre, guard);
    Br->setSuccessor(1, left);
    B.SetInsertPoint(left);
    PHINode *from = B.CreatePHI(B.getInt64Ty(), 2, "ly.left");
    from->addIncoming(B.getInt64(0), guard);
    from->addIncoming(next, A);
    B.CreateCondBr(B.CreateICmpULT(from, n), rest[0], E);
    auto *ly1 = cast<PHINode>(RM[ly]);
    ly1->replaceIncomingBlockWith(pre, left);
    ly1->setIncomingValueForBlock(left, from);
    // the jammed loop: rows id .. id + count - 1
    next->setOperand(1, B.getInt64(count));
    cmp->setPredicate(CmpInst::ICMP_ULE);
    cmp->setOperand(1, nU);
    // What was hoisted out of the x loop goes back into it, and its loads
    // lose their alias scopes, so that the host compiler keeps each in the
    // loop (a broadcast operand of its multiply) rather than hold a vector
    // register per row and value (spilled beyond 32)
    std::vector<Instruction *> body;
    {
        Instruction *at = &*x.head->getFirstInsertionPt();
        std::vector<Instruction *> move;
        for (Instruction &I : *H)
            if (!isa<PHINode>(I) && !I.isTerminator())
                move.push_back(&I);
        for (Instruction *I : move) {
            I->moveBefore(at);
            if (isa<LoadInst>(I)) {
                I->setMetadata(LLVMContext::MD_alias_scope, nullptr);
                I->setMetadata(LLVMContext::MD_noalias, nullptr);
            }
        }
    }
    for (Instruction &I : *x.head)
        if (&I != x.iv && &I != x.next && &I != x.cmp && !I.isTerminator())
            body.push_back(&I);
    for (unsigned j = 1; j < count; j++) {
        ValueToValueMapTy VM;
        B.SetInsertPoint(H->getFirstNonPHI());
        VM[ly] = B.CreateAdd(ly, B.getInt64(j), "ly.jam", true, true);
        for (Instruction *I : body) {
            Instruction *I1 = I->clone();
            I1->insertBefore(x.head->getTerminator());
            VM[I] = I1;
        }
        for (Instruction *I : body)
            RemapInstruction(cast<Instruction>(VM[I]), VM, RF_IgnoreMissingLocals | RF_NoModuleLevelChanges);
    }
    return true;
}

// Jams (jamYLoop) the y loops whose x loop reads two or more addresses
// that are the same row after row, where something else differs per row.
// Up to `count` rows a step: 8 (SX_WGC_JAM=N sets it, 0 turns it off),
// where 16 shared vectors and 8 rows' sums fit AVX-512's 32 registers.
unsigned jamYLoops(Function &W, unsigned count)
{
    if (count < 2)
        return 0;
    runOnFunction(W, "loop-simplify");
    unsigned n = 0;
    for (unsigned round = 0; round < 64; round++) {  // one loop a round, on fresh analyses
        DominatorTree DT(W);
        LoopInfo LI(DT);
        bool changed = false;
        for (Loop *L : LI.getLoopsInPreorder()) {
            if (!L->getHeader()->getName().startswith("wi.y") || L->getHeader()->getName().contains("done") ||
                L->getSubLoops().size() != 1)
                continue;
            XLoop x;
            unsigned same = 0, rows = 0;
            if (!matchXLoop(L->getSubLoops()[0], x) || x.head->size() > 600)
                continue;
            for (BasicBlock *BB : {L->getHeader(), x.head})
                for (Instruction &I : *BB)
                    if (auto *Ld = dyn_cast<LoadInst>(&I)) {
                        bool inv = !Ld->isVolatile() && yInvariantAddress(Ld->getPointerOperand(), L, x.iv);
                        same += inv && BB == x.head;
                        rows += fromYId(Ld->getPointerOperand(), L);
                    }
            // loads the rows share, and loads from the y id (not a 1-D
            // group's loop, whose y id is always 0)
            if (same < 2 || rows < 1)
                continue;
            // rows a step: up to `count`, fewer where the body is long
            // (about 1200 instructions in the jammed x loop at most)
            unsigned rowsAtOnce = count;
            while (rowsAtOnce > 2 && rowsAtOnce * x.head->size() > 1200)
                rowsAtOnce /= 2;
            L->getHeader()->setName("wi.jam");  // not again (nor its remainder, wi.jam.rest)
            if (jamYLoop(W, L, x, rowsAtOnce)) {
                n++;
                changed = true;
                break;
            }
        }
        if (!changed)
            break;
    }
    return n;
}


// The step of S from one work-item of the x loop L to the next, where it
// is a constant: through casts (sext (i + lx) is consecutive to the
// vectoriser too), sums and products with constants.
bool xStep(const SCEV *S, const Loop *L, ScalarEvolution &SE, APInt &step, unsigned depth = 0)
{
    unsigned bits = 64;
    if (SE.isLoopInvariant(S, L)) {
        step = APInt(bits, 0);
        return true;
    }
    if (depth > 8)
        return false;
    if (auto *C = dyn_cast<SCEVCastExpr>(S))
        return xStep(C->getOperand(0), L, SE, step, depth + 1);
    if (auto *AR = dyn_cast<SCEVAddRecExpr>(S)) {
        auto *c = AR->getLoop() == L && AR->isAffine() ? dyn_cast<SCEVConstant>(AR->getStepRecurrence(SE)) : nullptr;
        if (c)
            step = c->getAPInt().sextOrTrunc(bits);
        return c != nullptr;
    }
    if (auto *A = dyn_cast<SCEVAddExpr>(S)) {
        APInt sum(bits, 0), t(bits, 0);
        for (const SCEV *op : A->operands()) {
            if (!xStep(op, L, SE, t, depth + 1))
                return false;
            sum += t;
        }
        step = sum;
        return true;
    }
    if (auto *U = dyn_cast<SCEVUnknown>(S)) {  // a uniform value loaded in the loop
        auto *Ld = dyn_cast<LoadInst>(U->getValue());
        step = APInt(bits, 0);
        if (!Ld || !uniformIn(Ld))
            return false;
        APInt off(64, 0);  // a slot: private_mem + a constant
        return L->isLoopInvariant(
            Ld->getPointerOperand()->stripAndAccumulateConstantOffsets(Ld->getModule()->getDataLayout(), off, true));
    }
    if (auto *M = dyn_cast<SCEVMulExpr>(S)) {  // constants times one that steps
        APInt scale(bits, 1), t(bits, 0);
        bool varies = false;
        for (const SCEV *op : M->operands()) {
            if (auto *c = dyn_cast<SCEVConstant>(op)) {
                scale *= c->getAPInt().sextOrTrunc(bits);
                continue;
            }
            if (!xStep(op, L, SE, t, depth + 1) || (!t.isZero() && varies))
                return false;
            if (!t.isZero()) {
                varies = true;
                step = t;
            }
        }
        if (!varies)
            step = APInt(bits, 0);
        else
            step *= scale;
        return true;
    }
    return false;
}

// Does the load gather in the x loop: its element index neither the same
// for every work-item nor one element further from one to the next?
bool gathers(LoadInst *Ld, const XLoop &x, ScalarEvolution &SE, const DataLayout &DL)
{
    auto *G = dyn_cast<GetElementPtrInst>(Ld->getPointerOperand()->stripPointerCasts());
    if (!G || G->getNumIndices() != 1)
        return false;
    APInt step(64, 0);
    if (!xStep(SE.getSCEV(G->getOperand(1)), x.L, SE, step))
        return true;
    uint64_t elem = DL.getTypeAllocSize(G->getResultElementType());
    return !step.isZero() && step.abs() * elem != DL.getTypeStoreSize(Ld->getType());
}

// The rows of a region share their gathers: where a 2-D group's x loop
// loads, before it writes anything, from an address that is the same on
// every row but not consecutive in x (syrk's a[j * n + k]: an AVX-512
// gather, about 12 cycles on AMD, once per row), a loop before the rows
// loads it once per x into scratch at the end of private_mem and the rows
// read the scratch as one vector. The work-items of a region are
// independent: a store of one row's work-item to what another row's reads
// would be a data race, so the value row 0 read is every row's. Up to 4
// such loads per rows' loop, 8 bytes per work-item each, one scratch for
// all the loops (they run one after another).
// Is v a load of the work-group function's ctx at `off` (through geo where `geo`)?
bool ctxField(Value *v, Function &W, bool geo, unsigned off)
{
    auto *L = dyn_cast<LoadInst>(v);
    if (!L)
        return false;
    APInt o(64, 0);
    Value *base = L->getPointerOperand()->stripAndAccumulateConstantOffsets(W.getParent()->getDataLayout(), o, true);
    return o == off && (geo ? ctxField(base, W, false, CTX_GEO) : base == W.getArg(0));
}

unsigned shareRowGathers(Function &W, uint64_t &privateBytes)
{
    // the region dispatch folded, the x loops have their bodies in place
    if (!runOnFunction(W, "sccp,simplifycfg") || !runOnFunction(W, "loop-simplify"))
        return 0;
    DominatorTree DT(W);
    LoopInfo LI(DT);
    TargetLibraryInfoImpl TLII(Triple(W.getParent()->getTargetTriple()));
    TargetLibraryInfo TLI(TLII);
    AssumptionCache AC(W);
    ScalarEvolution SE(W, TLI, AC, DT, LI);
    const DataLayout &DL = W.getParent()->getDataLayout();
    struct Site {
        Loop *Y;
        XLoop x;
        std::vector<LoadInst *> loads;
    };
    std::vector<Site> sites;
    unsigned most = 0;  // slots of a site: the sites' rows never overlap, so they share them
    for (Loop *Y : LI.getLoopsInPreorder()) {
        if (!Y->getHeader()->getName().startswith("wi.y") || Y->getHeader()->getName().contains("done") ||
            Y->getSubLoops().size() != 1 || !Y->getLoopPreheader())
            continue;
        Site s{Y, {}, {}};
        XLoop &x = s.x;
        if (!matchXLoop(Y->getSubLoops()[0], x) || !ctxField(x.n, W, true, GEO_LOCAL_SIZE) ||
            !Y->isLoopInvariant(x.start))
            continue;
        // nothing that orders work-items or writes before the x loop's loads
        bool ok = true, rows = false;
        unsigned slots = 0;
        for (BasicBlock *BB : Y->blocks())
            for (Instruction &I : *BB) {
                if (I.isAtomic() || I.isVolatile() || isa<FenceInst>(I) ||
                    (isa<CallBase>(I) && I.mayWriteToMemory() && !isa<DbgInfoIntrinsic>(I) &&
                     !I.isLifetimeStartOrEnd() && !isa<AssumeInst>(I)) ||
                    (!x.L->contains(BB) && I.mayWriteToMemory()))
                    ok = false;
                if (auto *M = dyn_cast<StoreInst>(&I))
                    rows |= fromYId(M->getPointerOperand(), Y);
                if (auto *M = dyn_cast<LoadInst>(&I))
                    rows |= fromYId(M->getPointerOperand(), Y);
            }
        if (!ok || !rows)  // rows: not a 1-D group's loop, whose y id is always 0
            continue;
        for (Instruction &I : *x.head) {
            if (I.mayWriteToMemory())
                break;
            auto *Ld = dyn_cast<LoadInst>(&I);
            if (Ld && slots < 4 && Ld->isSimple() && Ld->getPointerAddressSpace() >= 1 &&
                Ld->getPointerAddressSpace() <= 3 && (Ld->getType()->isIntegerTy() || Ld->getType()->isFloatingPointTy()) &&
                DL.getTypeStoreSize(Ld->getType()) <= 8 && yInvariantAddress(Ld->getPointerOperand(), Y, x.iv, true) &&
                gathers(Ld, x, SE, DL)) {
                s.loads.push_back(Ld);
                slots++;
            }
        }
        if (!s.loads.empty())
            sites.push_back(s);
        most = std::max(most, slots);
    }
    if (sites.empty())
        return 0;
    LLVMContext &C = W.getContext();
    Value *lsize[3], *priv;  // loaded anew: the clean-ups before may have dropped the first loads
    {
        IRBuilder<> B(&*W.getEntryBlock().getFirstInsertionPt());
        Value *geo = ctxLoad(B, W.getArg(0), CTX_GEO, B.getInt8PtrTy(), "geo");
        for (unsigned d = 0; d < 3; d++)
            lsize[d] = ctxLoad(B, geo, GEO_LOCAL_SIZE + 8 * d, B.getInt64Ty(), "lsize");
        priv = ctxLoad(B, W.getArg(0), CTX_PRIVATE_MEM, B.getInt8PtrTy(), "private_mem");
    }
    uint64_t base = privateBytes;
    for (Site &s : sites) {
        unsigned slot = 0;
        BasicBlock *pre = s.Y->getLoopPreheader(), *H = s.Y->getHeader();
        BasicBlock *fill = BasicBlock::Create(C, "wi.x.fill", &W, H), *done = BasicBlock::Create(C, "wi.x.fill.done", &W, H);
        pre->getTerminator()->replaceSuccessorWith(H, fill);
        for (PHINode &P : H->phis())
            P.replaceIncomingBlockWith(pre, done);
        IRBuilder<> B(done);
        B.CreateBr(H);
        B.SetInsertPoint(fill);
        PHINode *lx = B.CreatePHI(B.getInt64Ty(), 2, "lx.fill");
        lx->addIncoming(s.x.start, pre);
        // the address: its instructions inside the rows' loop copied, in order
        std::map<Value *, Value *> memo = {{s.x.iv, lx}};
        Instruction *at = B.CreateBr(done);  // where the copies go; the loop's branch replaces it
        B.SetInsertPoint(at);
        auto copy = [&](Value *v) {
            return cloneTree(v, at, [&](Instruction *I) { return s.Y->contains(I); }, memo, ".fill");
        };
        Value *lsz = nullptr;
        {
            IRBuilder<> P(pre->getTerminator());
            lsz = P.CreateMul(P.CreateMul(lsize[0], lsize[1]), lsize[2], "wg.size");
        }
        for (LoadInst *Ld : s.loads) {
            IRBuilder<> P(pre->getTerminator());
            Value *t = P.CreateGEP(B.getInt8Ty(), priv, P.CreateMul(lsz, P.getInt64(base + 8 * slot)), "rows.shared");
            t = P.CreateBitCast(t, Ld->getType()->getPointerTo());
            slot++;
            auto *v = cast<Instruction>(copy(Ld));
            v->setMetadata(LLVMContext::MD_alias_scope, nullptr);
            v->setMetadata(LLVMContext::MD_noalias, nullptr);
            B.CreateStore(v, B.CreateGEP(Ld->getType(), t, lx));
            IRBuilder<> R(Ld);
            LoadInst *r = R.CreateLoad(Ld->getType(), R.CreateGEP(Ld->getType(), t, s.x.iv), Ld->getName() + ".row0");
            r->copyMetadata(*Ld, {LLVMContext::MD_range, LLVMContext::MD_access_group});
            Ld->replaceAllUsesWith(r);
            Ld->eraseFromParent();
        }
        Value *next = B.CreateAdd(lx, B.getInt64(1), "lx.fill.next", true, true);
        lx->addIncoming(next, fill);
        B.CreateCondBr(B.CreateICmpULT(next, s.x.n), fill, done);
        at->eraseFromParent();
        for (auto &m : memo)  // the rows' loop's access group is not the copies'
            if (auto *I = dyn_cast<Instruction>(m.second))
                I->setMetadata(LLVMContext::MD_access_group, nullptr);
    }
    privateBytes += 8 * most;
    return (unsigned)sites.size();
}

Value *loadArg(IRBuilder<> &B, Value *args, Argument &A)
{
    Value *slot = ctxLoad(B, args, A.getArgNo() * 8, B.getInt8PtrTy(), "arg" + Twine(A.getArgNo()) + ".p");
    if (A.hasByValAttr())
        return B.CreatePointerBitCastOrAddrSpaceCast(slot, A.getType());
    return B.CreateLoad(A.getType(), B.CreatePointerBitCastOrAddrSpaceCast(slot, A.getType()->getPointerTo()),
                        A.getName());
}

Function *buildWorkGroup(Function &K, Function &R, KernelResult &res, Function *Ru, const KernelResult *resU,
                         Function *test)
{
    Module &M = *K.getParent();
    LLVMContext &C = M.getContext();
    Type *i8p = Type::getInt8PtrTy(C), *i64 = Type::getInt64Ty(C);
    Function *W = Function::Create(FunctionType::get(Type::getVoidTy(C), {i8p}, false), GlobalValue::InternalLinkage,
                                   "__sx_wg." + K.getName(), &M);
    W->addParamAttr(0, Attribute::NoAlias);
    W->addParamAttr(0, Attribute::ReadOnly);
    W->addFnAttr(Attribute::NoUnwind);
    Value *ctx = W->getArg(0);
    BasicBlock *entry = BasicBlock::Create(C, "entry", W);
    IRBuilder<> B(entry);
    Value *geo = ctxLoad(B, ctx, CTX_GEO, i8p, "geo");
    Value *env[ENV_COUNT] = {};
    for (unsigned d = 0; d < 3; d++) {
        env[ENV_LSIZE0 + d] = ctxLoad(B, geo, GEO_LOCAL_SIZE + 8 * d, i64, "lsize");
        env[ENV_GSIZE0 + d] = ctxLoad(B, geo, GEO_GLOBAL_SIZE + 8 * d, i64, "gsize");
        env[ENV_NGROUPS0 + d] = ctxLoad(B, geo, GEO_NUM_GROUPS + 8 * d, i64, "ngroups");
        env[ENV_GOFF0 + d] = ctxLoad(B, geo, GEO_GLOBAL_OFFSET + 8 * d, i64, "goff");
        env[ENV_GROUP0 + d] = ctxLoad(B, ctx, CTX_GROUP_ID + 8 * d, i64, "group");
    }
    env[ENV_WORK_DIM] = ctxLoad(B, geo, GEO_WORK_DIM, B.getInt32Ty(), "work_dim");
    env[ENV_PRIV] = ctxLoad(B, ctx, CTX_PRIVATE_MEM, i8p, "private_mem");
    env[ENV_LOCAL] = ctxLoad(B, ctx, CTX_LOCAL_MEM, i8p, "local_mem");
    Value *args = ctxLoad(B, ctx, CTX_ARGS, i8p, "args");
    std::vector<Value *> kargs;
    for (Argument &A : K.args())
        kargs.push_back(loadArg(B, args, A));
    Value *lsize[3] = {env[ENV_LSIZE0], env[ENV_LSIZE1], env[ENV_LSIZE2]};

    std::vector<CallInst *> calls;
    std::vector<Strip> strips;
    auto call = [&](Function *F, unsigned r) {
        return [&, F, r](IRBuilder<> &IB, Value *const lid[3]) -> Value * {
            std::vector<Value *> a(env, env + ENV_COUNT);
            a[ENV_REGION] = IB.getInt32(r);
            a[ENV_LX] = lid[0];
            a[ENV_LY] = lid[1];
            a[ENV_LZ] = lid[2];
            a.insert(a.end(), kargs.begin(), kargs.end());
            CallInst *c = IB.CreateCall(F, a);
            calls.push_back(c);
            return c;
        };
    };
    // The regions of R (its result rs) for the group, from B's block to a return.
    auto regions = [&](Function &R, const KernelResult &rs) {
        auto region = [&](unsigned r) { return call(&R, r); };
        unsigned S = rs.subGroupSize;
        unsigned strip = rs.fullSubGroups && S >= 16 && S <= 64 && !(S & (S - 1)) ? S : 0;
        if (!rs.barriers) {
            workItemLoops(B, W, lsize, region(0), strip, &strips, false);
            B.CreateRetVoid();
        } else if (rs.divergent) {  // work-items wait at different barriers (groups.cpp)
            emitDivergentRegions(B, W, R, lsize, env[ENV_PRIV], rs,
                                 [&](IRBuilder<> &IB, unsigned k, Value *const lid[3]) { return region(k)(IB, lid); });
            B.CreateRetVoid();
        } else {
            // r = 0; do { nr = region r for every work-item } while ((r = nr) != EXIT)
            BasicBlock *from = B.GetInsertBlock();
            BasicBlock *head = BasicBlock::Create(C, "region", W), *tail = BasicBlock::Create(C, "region.next", W),
                       *done = BasicBlock::Create(C, "done", W);
            B.CreateBr(head);
            B.SetInsertPoint(head);
            PHINode *r = B.CreatePHI(B.getInt32Ty(), 2, "region");
            r->addIncoming(B.getInt32(0), from);
            SwitchInst *sw = B.CreateSwitch(r, done, rs.barriers + 1);
            B.SetInsertPoint(tail);
            PHINode *nr = B.CreatePHI(B.getInt32Ty(), rs.barriers + 1, "next");
            for (unsigned k = 0; k <= rs.barriers; k++) {
                BasicBlock *bb = BasicBlock::Create(C, "region" + Twine(k), W, tail);
                sw->addCase(B.getInt32(k), bb);
                B.SetInsertPoint(bb);
                Value *v = workItemLoops(B, W, lsize, region(k), strip, &strips, false);
                if (rs.uniform_bytes)  // the uniform values as this region left them, for the next
                    copyUniforms(B, env[ENV_PRIV], rs.uniform_bytes, rs.uniform_used);
                nr->addIncoming(v, B.GetInsertBlock());
                B.CreateBr(tail);
            }
            B.SetInsertPoint(tail);
            if (!rs.steps.empty())  // a collective between this region and the next (groups.cpp)
                emitGroupSteps(B, W, nr, lsize, env[ENV_PRIV], rs);
            B.CreateCondBr(B.CreateICmpEQ(nr, B.getInt32(REGION_EXIT)), done, head);
            r->addIncoming(nr, B.GetInsertBlock());
            B.SetInsertPoint(done);
            B.CreateRetVoid();
            tail->moveAfter(&W->back());
            done->moveAfter(tail);
        }
    };
    bool narrow = res.barriers > res.implicit_barriers;
    if (Ru && resU && test) {
        // the branches of uniformCopy taken alike by every work-item (both
        // bits of a condition set: they disagree), and full sub-groups where
        // the copy was compiled for them
        Value *seen = workItemLoops(B, W, lsize, call(test, 0));
        Value *same = B.CreateICmpEQ(B.CreateAnd(B.CreateAnd(seen, B.CreateLShr(seen, 16)), B.getInt32(0xffff)),
                                     B.getInt32(0), "branch.alike");
        if (resU->fullSubGroups && !res.fullSubGroups)
            same = B.CreateAnd(same, B.CreateICmpEQ(B.CreateURem(lsize[0], B.getInt64(resU->subGroupSize)),
                                                    B.getInt64(0)));
        BasicBlock *u = BasicBlock::Create(C, "uniform", W), *d = BasicBlock::Create(C, "divergent", W);
        B.CreateCondBr(same, u, d);
        B.SetInsertPoint(u);
        regions(*Ru, *resU);
        B.SetInsertPoint(d);
        regions(R, res);
        res.private_bytes = std::max(res.private_bytes, resU->private_bytes);
        res.versioned = true;
        narrow |= resU->barriers > resU->implicit_barriers;
    } else {
        regions(R, res);
    }
    for (CallInst *c : calls) {
        InlineFunctionInfo IFI;
        InlineFunction(*c, IFI);
    }
    splitStrips(strips);
    // the kernel's own barriers only: where all are implicit (a uniform
    // loop's, vectorize.cpp) the regions are loop iterations with nothing
    // to narrow, and the clean-up only moves work LLVM does better later
    // (PolyBench's gemm: 15% slower)
    if (narrow)
        narrowWorkItemLoops(*W);
    // after the clean-up above, which hoisted what the rows do not share
    jamYLoops(*W, getenv("SX_WGC_JAM") ? (unsigned)atoi(getenv("SX_WGC_JAM")) : 8);
    shareRowGathers(*W, res.private_bytes);
    res.flags = (res.barriers ? WG_FLAG_BARRIER : 0) | (res.fullSubGroups ? WG_FLAG_FULL_SUB_GROUPS : 0);
    return W;
}

Function *buildFiberEntry(Function &K, const LocalLayout &L, KernelResult &res)
{
    Module &M = *K.getParent();
    LLVMContext &C = M.getContext();
    Type *i8p = Type::getInt8PtrTy(C);
    std::vector<Type *> params(K.getFunctionType()->param_begin(), K.getFunctionType()->param_end());
    params.push_back(i8p);
    Function *K2 = Function::Create(FunctionType::get(K.getReturnType(), params, false), GlobalValue::InternalLinkage,
                                    "__sx_fiber." + K.getName(), &M);
    ValueToValueMapTy VM;
    for (unsigned i = 0; i < K.arg_size(); i++)
        VM[K.getArg(i)] = K2->getArg(i);
    SmallVector<ReturnInst *, 4> rets;
    CloneFunctionInto(K2, &K, VM, CloneFunctionChangeType::LocalChangesOnly, rets);
    K2->setLinkage(GlobalValue::InternalLinkage);
    replaceLocals(*K2, L, K2->getArg(K.arg_size()));

    Function *W = Function::Create(FunctionType::get(Type::getVoidTy(C), {i8p}, false), GlobalValue::InternalLinkage,
                                   "__sx_wg." + K.getName(), &M);
    IRBuilder<> B(BasicBlock::Create(C, "entry", W));
    Value *ctx = W->getArg(0);
    Value *args = ctxLoad(B, ctx, CTX_ARGS, i8p, "args");
    std::vector<Value *> a;
    for (Argument &A : K.args())
        a.push_back(loadArg(B, args, A));
    a.push_back(ctxLoad(B, ctx, CTX_LOCAL_MEM, i8p, "local_mem"));
    B.CreateCall(K2, a);
    B.CreateRetVoid();
    res.flags = WG_FLAG_FIBER | (res.barriers ? WG_FLAG_BARRIER : 0);
    return W;
}

// The same work-group function compiled for x86-64-v3 (AVX2, FMA, BMI2):
// per-function target attributes, so one module (and one image) holds
// both; the adapter picks __sx_wg_table_x86_64_v3 on CPUs that have them.
Function *cloneForV3(Function &W)
{
    ValueToValueMapTy VM;
    Function *V = CloneFunction(&W, VM);
    V->setName(W.getName() + ".x86_64_v3");
    V->addFnAttr("target-cpu", "x86-64-v3");
    V->addFnAttr("target-features", "+avx,+avx2,+bmi,+bmi2,+cx16,+f16c,+fma,+lzcnt,+movbe,+popcnt,+sse4.1,+sse4.2,"
                                    "+ssse3,+xsave,+cx8,+fxsr,+mmx,+sse,+sse2,+sse3,+x87,+sahf");
    V->addFnAttr("stackrealign");  // see cloneForV4
    return V;
}

// The same for x86-64-v4 (AVX-512 F/BW/CD/DQ/VL), __sx_wg_table_x86_64_v4:
// 16 float lanes, masks in k registers, so a masked store (a boundary test
// guarding a store in a vectorised work-item loop) is one instruction and
// cheap, where AVX2's vmaskmov costs ~3.5 ns on AMD's Zen.
Function *cloneForV4(Function &W)
{
    ValueToValueMapTy VM;
    Function *V = CloneFunction(&W, VM);
    V->setName(W.getName() + ".x86_64_v4");
    V->addFnAttr("target-cpu", "x86-64-v4");
    V->addFnAttr("target-features", "+avx,+avx2,+bmi,+bmi2,+cx16,+f16c,+fma,+lzcnt,+movbe,+popcnt,+sse4.1,+sse4.2,"
                                    "+ssse3,+xsave,+cx8,+fxsr,+mmx,+sse,+sse2,+sse3,+x87,+sahf,"
                                    "+avx512f,+avx512bw,+avx512cd,+avx512dq,+avx512vl");
    V->addFnAttr("prefer-vector-width", "512");
    V->addFnAttr("min-legal-vector-width", "0");
    // Vectors live across calls (vector math) are spilled: without a
    // realigned frame LLVM spills them unaligned wherever the caller's
    // stack happens to be, and a 64-byte spill split across two cache
    // lines defeats store forwarding (expsin ran 1.3x slower on half of
    // the process starts, by the launching thread's stack address).
    V->addFnAttr("stackrealign");
    return V;
}

void emitTables(Module &M, const std::vector<KernelResult> &ks, const std::vector<std::string> &imports)
{
    LLVMContext &C = M.getContext();
    IRBuilder<> B(C);
    Type *i8p = B.getInt8PtrTy();
    auto str = [&](const std::string &s) {
        Constant *init = ConstantDataArray::getString(C, s);
        auto *g = new GlobalVariable(M, init->getType(), true, GlobalValue::PrivateLinkage, init, ".sx.name");
        g->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
        return ConstantExpr::getPointerCast(g, i8p);
    };
    auto *abi = new GlobalVariable(M, B.getInt32Ty(), true, GlobalValue::ExternalLinkage, B.getInt32(WG_ABI),
                                   "__sx_wg_abi");
    abi->setVisibility(GlobalValue::DefaultVisibility);
    Type *fnp = FunctionType::get(B.getVoidTy(), {i8p}, false)->getPointerTo();
    StructType *entryTy = StructType::get(C, {i8p, fnp, B.getInt64Ty(), B.getInt64Ty(), B.getInt32Ty(), B.getInt32Ty()});
    auto table = [&](const char *name, int level) {
        std::vector<Constant *> rows;
        for (const KernelResult &k : ks)
            rows.push_back(ConstantStruct::get(entryTy, {str(k.name), level == 4 ? k.wg_v4 : level == 3 ? k.wg_v3 : k.wg, B.getInt64(k.local_bytes),
                                                         B.getInt64(k.private_bytes), B.getInt32(k.flags),
                                                         B.getInt32(k.fullSubGroups ? k.subGroupSize : 0)}));
        rows.push_back(Constant::getNullValue(entryTy));
        ArrayType *tabTy = ArrayType::get(entryTy, rows.size());
        new GlobalVariable(M, tabTy, true, GlobalValue::ExternalLinkage, ConstantArray::get(tabTy, rows), name);
    };
    table("__sx_wg_table", 0);
    if (!ks.empty() && ks[0].wg_v3)
        table("__sx_wg_table_x86_64_v3", 3);
    if (!ks.empty() && ks[0].wg_v4)
        table("__sx_wg_table_x86_64_v4", 4);

    StructType *impTy = StructType::get(C, {i8p, i8p->getPointerTo()});
    std::vector<Constant *> imp;
    for (const std::string &n : imports)
        if (GlobalVariable *slot = M.getGlobalVariable("__sx_imp." + n, true))
            imp.push_back(ConstantStruct::get(impTy, {str(n), slot}));
    // Slots inside vtables (prepare.cpp: importIntoInitializers).
    if (GlobalVariable *extra = M.getGlobalVariable("__sx_imp_extra")) {
        if (auto *rows = dyn_cast<ConstantArray>(extra->getInitializer()))
            for (unsigned i = 0; i < rows->getNumOperands(); i++)
                imp.push_back(cast<Constant>(rows->getOperand(i)));
        extra->eraseFromParent();
    }
    imp.push_back(Constant::getNullValue(impTy));
    ArrayType *impArr = ArrayType::get(impTy, imp.size());
    new GlobalVariable(M, impArr, true, GlobalValue::ExternalLinkage, ConstantArray::get(impArr, imp), "__sx_wg_imports");
}

}  // namespace wgc
