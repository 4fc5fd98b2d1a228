/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// regions.cpp: barrier region formation.
//
// The kernel K (everything inlined) becomes a region function
//     i32 R(i32 region, <environment: local id, geometry>, K's parameters)
// that runs ONE work-item from the region entry `region` (0: the kernel's
// entry, k: just after barrier k) to the next barrier k' (returns k') or to
// the end (returns REGION_EXIT). The work-group function (workgroup.cpp)
// runs region r for every work-item, then the region they all returned,
// until EXIT: all work-items reach a barrier before any passes it, and no
// work-item needs a stack of its own.
//
// Values that live across a barrier: the liveness is computed on the CFG
// with the barrier edges cut (a value is live into region k when a path
// from just after barrier k reaches a use without passing its definition
// or another barrier). Such a value is either recomputed at the region
// entry (pure arithmetic on the environment and the parameters: ids,
// addresses) or kept in ctx->private_mem: one array of local-size
// elements per value, so work-item i's copy sits at base + i * size and
// the work-item loop stays vectorizable. Private arrays (allocas) used in
// more than one region move there whole. SSAUpdater joins the value
// reloaded at the region entry with the definitions inside the region.
#include "analyses.h"

#include <map>
#include <set>

#include <llvm/ADT/BitVector.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/DivergenceAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/SyncDependenceAnalysis.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/ConstantRange.h>
#include <llvm/Support/KnownBits.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/SSAUpdater.h>

using namespace llvm;

namespace wgc {

Value *cloneTree(Value *V, Instruction *before, const std::function<bool(Instruction *)> &inside,
                 std::map<Value *, Value *> &memo, const char *suffix)
{
    auto *I = dyn_cast<Instruction>(V);
    if (!I || !inside(I))
        return V;
    auto it = memo.find(V);
    if (it != memo.end())
        return it->second;
    Instruction *C = I->clone();
    for (unsigned i = 0; i < C->getNumOperands(); i++)
        C->setOperand(i, cloneTree(C->getOperand(i), before, inside, memo, suffix));
    C->insertBefore(before);
    C->setName(I->getName() + suffix);
    memo[V] = C;
    return C;
}

// The work-item query `call` resolved from the environment of R.
Value *resolveQuery(IRBuilder<> &B, Function &R, CallBase &call)
{
    std::string n = call.getCalledFunction()->getName().str();
    auto env = [&](unsigned first, Value *d, uint64_t dflt) -> Value * {
        if (auto *c = dyn_cast<ConstantInt>(d))
            return c->getZExtValue() < 3 ? (Value *)R.getArg(first + (unsigned)c->getZExtValue()) : B.getInt64(dflt);
        Value *d64 = B.CreateZExtOrTrunc(d, B.getInt64Ty());
        Value *v = B.getInt64(dflt);
        for (int i = 2; i >= 0; i--)
            v = B.CreateSelect(B.CreateICmpEQ(d64, B.getInt64(i)), R.getArg(first + i), v);
        return v;
    };
    auto gid = [&](Value *d) {
        Value *g = B.CreateMul(env(ENV_GROUP0, d, 0), env(ENV_LSIZE0, d, 1));
        return B.CreateAdd(B.CreateAdd(g, env(ENV_GOFF0, d, 0)), env(ENV_LX, d, 0));
    };
    Value *d = call.arg_size() ? call.getArgOperand(0) : nullptr;
    Value *v;
    if (n.find("get_global_id") != std::string::npos)
        v = gid(d);
    else if (n.find("get_local_id") != std::string::npos)
        v = env(ENV_LX, d, 0);
    else if (n.find("get_group_id") != std::string::npos)
        v = env(ENV_GROUP0, d, 0);
    else if (n.find("local_size") != std::string::npos)  // get_local_size, get_enqueued_local_size
        v = env(ENV_LSIZE0, d, 1);
    else if (n.find("get_global_size") != std::string::npos)
        v = env(ENV_GSIZE0, d, 1);
    else if (n.find("get_num_groups") != std::string::npos)
        v = env(ENV_NGROUPS0, d, 1);
    else if (n.find("get_global_offset") != std::string::npos)
        v = env(ENV_GOFF0, d, 0);
    else if (n.find("get_work_dim") != std::string::npos)
        v = R.getArg(ENV_WORK_DIM);
    else if (n.find("get_local_linear_id") != std::string::npos) {
        v = B.CreateAdd(B.CreateMul(R.getArg(ENV_LZ), R.getArg(ENV_LSIZE1)), R.getArg(ENV_LY));
        v = B.CreateAdd(B.CreateMul(v, R.getArg(ENV_LSIZE0)), R.getArg(ENV_LX));
    } else {  // get_global_linear_id
        Value *g[3];
        for (unsigned i = 0; i < 3; i++)
            g[i] = B.CreateSub(gid(B.getInt32(i)), R.getArg(ENV_GOFF0 + i));
        v = B.CreateAdd(B.CreateMul(g[2], R.getArg(ENV_GSIZE1)), g[1]);
        v = B.CreateAdd(B.CreateMul(v, R.getArg(ENV_GSIZE0)), g[0]);
    }
    return B.CreateZExtOrTrunc(v, call.getType());
}

bool divisionMayTrap(const Instruction *I)
{
    auto *BO = dyn_cast<BinaryOperator>(I);
    if (!BO || (BO->getOpcode() != Instruction::SDiv && BO->getOpcode() != Instruction::UDiv &&
                BO->getOpcode() != Instruction::SRem && BO->getOpcode() != Instruction::URem))
        return false;
    auto *d = dyn_cast<ConstantInt>(BO->getOperand(1));
    return !d || d->isZero() || d->isMinusOne();
}

namespace {

// Pure arithmetic on R's arguments and on what the dispatch block `disp`
// computes once (the slot addresses): cheaper to recompute at a region
// entry than to keep. The dispatch block dominates every region entry, so
// its values are used as they are, never cloned (a clone made before the
// slot bases are patched would address private_mem without them).
bool remat(Value *V, const BasicBlock *disp, unsigned &budget)
{
    if (isa<Argument>(V) || isa<Constant>(V))
        return true;
    auto *I = dyn_cast<Instruction>(V);
    if (I && I->getParent() == disp)
        return true;
    if (!I || !budget-- || !(isa<BinaryOperator>(I) || isa<CastInst>(I) || isa<CmpInst>(I) || isa<SelectInst>(I) ||
                             isa<GetElementPtrInst>(I)))
        return false;
    if (divisionMayTrap(I))
        return false;  // where the original did not run
    for (Value *op : I->operands())
        if (!remat(op, disp, budget))
            return false;
    return true;
}


// The pointers derived from a private array A (casts, GEPs, phis,
// selects, back and forth through integers). Sets `escapes` when one is
// stored to memory or passed to a call other than a memory intrinsic:
// then A's address may be read in any region.
void derivedPointers(AllocaInst *A, std::vector<Instruction *> &out, bool &escapes)
{
    std::set<Value *> seen{A};
    std::vector<Value *> work{A};
    escapes = false;
    while (!work.empty()) {
        Value *V = work.back();
        work.pop_back();
        for (User *U : V->users()) {
            auto *I = dyn_cast<Instruction>(U);
            if (!I)
                continue;
            if (isa<GetElementPtrInst>(I) || isa<CastInst>(I) || isa<PHINode>(I) || isa<SelectInst>(I) ||
                (isa<BinaryOperator>(I) && I->getType()->isIntegerTy())) {
                if (seen.insert(I).second) {
                    out.push_back(I);
                    work.push_back(I);
                }
            } else if (auto *S = dyn_cast<StoreInst>(I)) {
                escapes |= S->getValueOperand() == V;
            } else if (auto *CB = dyn_cast<CallBase>(I)) {
                escapes |= !isa<MemIntrinsic>(CB) && !CB->isLifetimeStartOrEnd();
            } else if (!isa<LoadInst>(I) && !isa<CmpInst>(I)) {
                escapes = true;  // atomics, ...: kept in a slot to be safe
            }
        }
    }
}

// Is V a power of two or zero? ValueTracking's answer, and besides it
// what ValueTracking of LLVM 14 does not see: a loop's recurrence p = 1;
// p <<= 1 (or p *= 2, p >>= 1, p /= 2) through its phi; `phis` holds the
// phis assumed so for now.
bool pow2OrZero(Value *V, const DataLayout &DL, const std::set<PHINode *> &phis, unsigned depth = 0)
{
    if (!V->getType()->isIntegerTy() || depth > 6)
        return false;
    if (auto *P = dyn_cast<PHINode>(V))
        if (phis.count(P))
            return true;
    if (isKnownToBeAPowerOfTwo(V, DL, /*OrZero*/ true))
        return true;
    auto *I = dyn_cast<Instruction>(V);
    if (!I)
        return false;
    auto pow2Const = [](Value *c) {
        auto *C = dyn_cast<ConstantInt>(c);
        return C && C->getValue().isPowerOf2();
    };
    switch (I->getOpcode()) {
    case Instruction::Shl:
    case Instruction::LShr:  // 2^a shifted: 2^b or zero
    case Instruction::Trunc:
    case Instruction::ZExt:
        return pow2OrZero(I->getOperand(0), DL, phis, depth + 1);
    case Instruction::UDiv:
        return pow2Const(I->getOperand(1)) && pow2OrZero(I->getOperand(0), DL, phis, depth + 1);
    case Instruction::Mul:  // 2^a * 2^b wraps to 2^(a+b) or zero
        return (pow2Const(I->getOperand(1)) && pow2OrZero(I->getOperand(0), DL, phis, depth + 1)) ||
               (pow2Const(I->getOperand(0)) && pow2OrZero(I->getOperand(1), DL, phis, depth + 1));
    case Instruction::And:
        return pow2OrZero(I->getOperand(0), DL, phis, depth + 1) || pow2OrZero(I->getOperand(1), DL, phis, depth + 1);
    case Instruction::Select:
        return pow2OrZero(I->getOperand(1), DL, phis, depth + 1) && pow2OrZero(I->getOperand(2), DL, phis, depth + 1);
    default:
        return false;
    }
}

// Divisions and remainders by a power of two that is not a constant (a
// loop's stride p = 1, p *= 2; a uniform 1 << k) become shifts and masks.
// LLVM does that itself only where it sees the fact; it does not see it
// through a recurrence, nor once the value is kept in a slot across a
// barrier and reloaded (issue 28: x % p became a division). Done on R
// before the regions form, so the rewritten code needs no fact later. A
// divisor of zero, undefined in OpenCL C, gives some value and no trap.
unsigned reducePow2Divisions(Function &R)
{
    const DataLayout &DL = R.getParent()->getDataLayout();
    // the phis that are powers of two or zero: the largest set consistent
    // with their incoming values (optimistic, then pruned to a fixpoint)
    std::set<PHINode *> phis;
    for (Instruction &I : instructions(R))
        if (auto *P = dyn_cast<PHINode>(&I))
            if (P->getType()->isIntegerTy())
                phis.insert(P);
    for (bool changed = true; changed;) {
        changed = false;
        for (PHINode *P : std::vector<PHINode *>(phis.begin(), phis.end()))
            for (Value *in : P->incoming_values())
                if (in != P && !pow2OrZero(in, DL, phis)) {
                    phis.erase(P);
                    changed = true;
                    break;
                }
    }
    std::vector<BinaryOperator *> work;
    for (Instruction &I : instructions(R))
        if (auto *BO = dyn_cast<BinaryOperator>(&I)) {
            unsigned op = BO->getOpcode();
            if ((op == Instruction::UDiv || op == Instruction::URem || op == Instruction::SDiv ||
                 op == Instruction::SRem) && BO->getType()->isIntegerTy() && !isa<Constant>(BO->getOperand(1)) &&
                pow2OrZero(BO->getOperand(1), DL, phis))
                work.push_back(BO);
        }
    Module *M = R.getParent();
    for (BinaryOperator *BO : work) {
        IRBuilder<> B(BO);
        Value *x = BO->getOperand(0), *v = BO->getOperand(1);
        auto *T = cast<IntegerType>(BO->getType());
        unsigned bw = T->getBitWidth();
        Function *cttz = Intrinsic::getDeclaration(M, Intrinsic::cttz, {T});
        // k = log2(v), masked: a shift by the width would be poison (v = 0)
        Value *k = B.CreateAnd(B.CreateCall(cttz, {v, B.getFalse()}), ConstantInt::get(T, bw - 1));
        Value *m = B.CreateSub(v, ConstantInt::get(T, 1));  // the low bits
        Value *r;
        switch (BO->getOpcode()) {
        case Instruction::URem:
            r = B.CreateAnd(x, m);
            break;
        case Instruction::UDiv:
            r = B.CreateLShr(x, k);
            break;
        default: {
            // toward zero: a negative x is biased by v - 1 first; v = 2^(bw-1)
            // is negative as a signed divisor: x / v is x == v, x % v is x or 0
            Value *bias = B.CreateAnd(B.CreateAShr(x, ConstantInt::get(T, bw - 1)), m);
            Value *t = B.CreateAdd(x, bias);
            Value *minv = ConstantInt::get(T, APInt::getSignedMinValue(bw));
            Value *isMin = B.CreateICmpEQ(v, minv), *xIsMin = B.CreateICmpEQ(x, minv);
            if (BO->getOpcode() == Instruction::SDiv)
                r = B.CreateSelect(isMin, B.CreateZExt(xIsMin, T), B.CreateAShr(t, k));
            else
                r = B.CreateSelect(isMin, B.CreateSelect(xIsMin, ConstantInt::get(T, 0), x),
                                   B.CreateSub(B.CreateAnd(t, m), bias));
            break;
        }
        }
        r->takeName(BO);
        BO->replaceAllUsesWith(r);
        BO->eraseFromParent();
    }
    return (unsigned)work.size();
}

// A loop left inside the work-item body (no barrier in it, not unrolled)
// runs one iteration at a time per work-item, and a floating-point sum in
// it (acc = mad(a, b, acc): PolyBench's covariance, a row's dot product)
// is one serial chain: each iteration waits for the previous one's add.
// llvm.fmuladd (mad, or contraction) may be fused or not, so the chain's
// link becomes a multiply off the chain and an add on it: an add's latency
// (3 cycles on AMD's Zen, 4 on Intel's cores) instead of a fused
// multiply-add's (4). Loops with a barrier are vectorised across the
// work-items, where the fused form is the cheaper.
unsigned splitSerialMulAdds(Function &R)
{
    DominatorTree DT(R);
    LoopInfo LI(DT);
    unsigned n = 0;
    for (Loop *L : LI.getLoopsInPreorder()) {
        BasicBlock *latch = L->getLoopLatch();
        if (!latch)
            continue;
        bool skip = false;
        if (MDNode *md = latch->getTerminator()->getMetadata(LLVMContext::MD_loop))
            for (unsigned i = 1; i < md->getNumOperands(); i++)
                if (auto *N = dyn_cast<MDNode>(md->getOperand(i)))
                    if (N->getNumOperands())
                        if (auto *S = dyn_cast<MDString>(N->getOperand(0)))
                            skip |= S->getString() == "llvm.loop.unroll.full";
        for (BasicBlock *BB : L->blocks())
            for (Instruction &I : *BB)
                if (auto *CB = dyn_cast<CallBase>(&I))
                    skip |= isBarrier(CB->getCalledFunction());
        if (skip)
            continue;
        for (PHINode &P : L->getHeader()->phis()) {
            if (!P.getType()->isFPOrFPVectorTy() || P.getBasicBlockIndex(latch) < 0)
                continue;
            // the chain back from the latch's value to the phi, through adds
            std::vector<IntrinsicInst *> chain;
            Value *v = P.getIncomingValueForBlock(latch);
            for (unsigned d = 0; d < 64 && v != &P; d++) {
                auto *II = dyn_cast<IntrinsicInst>(v);
                if (!II || II->getIntrinsicID() != Intrinsic::fmuladd || !L->contains(II)) {
                    chain.clear();
                    break;
                }
                chain.push_back(II);
                v = II->getArgOperand(2);
            }
            if (v != &P)
                continue;
            for (IntrinsicInst *II : chain) {
                IRBuilder<> B(II);
                B.setFastMathFlags(II->getFastMathFlags());
                Value *m = B.CreateFMul(II->getArgOperand(0), II->getArgOperand(1));
                Value *a = B.CreateFAdd(m, II->getArgOperand(2));
                a->takeName(II);
                II->replaceAllUsesWith(a);
                II->eraseFromParent();
                n++;
            }
        }
    }
    return n;
}

struct Liveness {
    std::map<Instruction *, unsigned> index;
    std::vector<Instruction *> values;
    std::map<BasicBlock *, BitVector> in;
};

// Backward liveness of R's instructions on the CFG without the barrier
// edges (`cut` blocks have no successors).
void liveness(Function &R, const std::set<BasicBlock *> &cut, Liveness &L)
{
    for (Instruction &I : instructions(R))
        if (!I.getType()->isVoidTy()) {
            L.index[&I] = (unsigned)L.values.size();
            L.values.push_back(&I);
        }
    unsigned n = (unsigned)L.values.size();
    std::map<BasicBlock *, BitVector> use, def, out;
    for (BasicBlock &BB : R) {
        BitVector u(n), d(n);
        for (Instruction &I : BB) {
            if (!I.getType()->isVoidTy())
                d.set(L.index[&I]);
            if (isa<PHINode>(I))
                continue;
            for (Value *op : I.operands())
                if (auto *oi = dyn_cast<Instruction>(op))
                    if (oi->getParent() != &BB)
                        u.set(L.index[oi]);
        }
        use[&BB] = u;
        def[&BB] = d;
        L.in[&BB] = u;
        out[&BB] = BitVector(n);
    }
    std::vector<BasicBlock *> order;
    for (BasicBlock *BB : post_order(&R.getEntryBlock()))
        order.push_back(BB);
    for (BasicBlock &BB : R)  // blocks only reachable through a barrier
        if (std::find(order.begin(), order.end(), &BB) == order.end())
            order.push_back(&BB);
    for (bool changed = true; changed;) {
        changed = false;
        for (BasicBlock *BB : order) {
            BitVector o(n);
            if (!cut.count(BB))
                for (BasicBlock *S : successors(BB)) {
                    BitVector si = L.in[S];
                    for (PHINode &P : S->phis()) {
                        si.reset(L.index[&P]);
                        if (auto *oi = dyn_cast<Instruction>(P.getIncomingValueForBlock(BB)))
                            si.set(L.index[oi]);
                    }
                    o |= si;
                }
            BitVector i = o;
            i.reset(def[BB]);
            i |= use[BB];
            if (i != L.in[BB]) {
                L.in[BB] = i;
                changed = true;
            }
            out[BB] = o;
        }
    }
}


}  // namespace

// The values every work-item of a group computes alike: derived from the
// parameters, the geometry and the group id only, and not under a branch
// that depends on the local id (LLVM's divergence analysis, seeded with
// the local id and every memory read or call).
std::set<Value *> uniformValues(Function &R)
{
    std::set<Value *> uni;
    Divergence A(R);
    auto seed = [&](DivergenceAnalysisImpl &DA) {
        DA.markDivergent(*R.getArg(ENV_LX));
        DA.markDivergent(*R.getArg(ENV_LY));
        DA.markDivergent(*R.getArg(ENV_LZ));
        for (Instruction &I : instructions(R)) {
            auto *CB = dyn_cast<CallBase>(&I);
            bool pureCall = CB && isa<IntrinsicInst>(CB) && CB->doesNotAccessMemory();
            if (I.mayReadOrWriteMemory() && !pureCall)
                DA.markDivergent(I);
            else if (isa<AllocaInst>(I) || (CB && !pureCall))
                DA.markDivergent(I);
        }
    };
    if (!A.compute(R, seed))
        return uni;
    DivergenceAnalysisImpl &DA = *A.DA;
    for (Instruction &I : instructions(R))
        if (!I.getType()->isVoidTy() && !DA.isDivergent(I))
            uni.insert(&I);
    return uni;
}

namespace {

// Alias scopes: OpenCL's address spaces are disjoint, and so are the
// slots that keep values across barriers; telling LLVM lets it vectorize
// and hoist without run-time alias checks.
enum Scope { SC_PRIVATE, SC_GLOBAL, SC_LOCAL, SC_UNIFORM_IN, SC_UNIFORM_OUT, SC_COUNT };

struct Scopes {
    MDNode *scope[SC_COUNT], *others[SC_COUNT];
    explicit Scopes(LLVMContext &C)
    {
        MDBuilder MB(C);
        MDNode *dom = MB.createAnonymousAliasScopeDomain("sx.wg");
        static const char *const n[SC_COUNT] = {"private", "global", "local", "uniform.in", "uniform.out"};
        for (int i = 0; i < SC_COUNT; i++)
            scope[i] = MB.createAnonymousAliasScope(dom, n[i]);
        for (int i = 0; i < SC_COUNT; i++) {
            std::vector<Metadata *> o;
            for (int j = 0; j < SC_COUNT; j++)
                if (j != i)
                    o.push_back(scope[j]);
            others[i] = MDNode::get(C, o);
        }
    }
    void tag(Instruction *I, int s) const
    {
        I->setMetadata(LLVMContext::MD_alias_scope, MDNode::get(I->getContext(), {scope[s]}));
        I->setMetadata(LLVMContext::MD_noalias, others[s]);
    }
    // Loads and stores of the kernel by their pointer's address space.
    void tagKernel(Function &R) const
    {
        for (Instruction &I : instructions(R)) {
            if (I.hasMetadata(LLVMContext::MD_alias_scope))
                continue;
            Value *p = isa<LoadInst>(I) ? cast<LoadInst>(I).getPointerOperand()
                     : isa<StoreInst>(I) ? cast<StoreInst>(I).getPointerOperand() : nullptr;
            if (!p)
                continue;
            unsigned as = p->getType()->getPointerAddressSpace();
            if (as <= 3)
                tag(&I, as == 0 ? SC_PRIVATE : as == 3 ? SC_LOCAL : SC_GLOBAL);
        }
    }
};

}  // namespace

Function *buildRegions(Function &K, const LocalLayout &LL, KernelResult &res, std::string &err)
{
    Module &M = *K.getParent();
    LLVMContext &C = M.getContext();
    const DataLayout &DL = M.getDataLayout();
    Type *i32 = Type::getInt32Ty(C), *i64 = Type::getInt64Ty(C), *i8p = Type::getInt8PtrTy(C);
    std::vector<Type *> params;
    for (unsigned e = 0; e < ENV_COUNT; e++)
        params.push_back(e == ENV_REGION || e == ENV_WORK_DIM ? i32 : e == ENV_PRIV || e == ENV_LOCAL ? i8p : i64);
    for (Type *t : K.getFunctionType()->params())
        params.push_back(t);
    Function *R = Function::Create(FunctionType::get(i32, params, false), GlobalValue::InternalLinkage,
                                   "__sx_region." + K.getName(), &M);
    ValueToValueMapTy VM;
    for (unsigned i = 0; i < K.arg_size(); i++) {
        VM[K.getArg(i)] = R->getArg(ENV_COUNT + i);
        R->getArg(ENV_COUNT + i)->setName(K.getArg(i)->getName());
    }
    SmallVector<ReturnInst *, 4> rets;
    CloneFunctionInto(R, &K, VM, CloneFunctionChangeType::LocalChangesOnly, rets);
    R->setLinkage(GlobalValue::InternalLinkage);
    R->addFnAttr(Attribute::AlwaysInline);
    for (ReturnInst *ret : rets) {
        ReturnInst::Create(C, ConstantInt::get(i32, REGION_EXIT), ret);
        ret->eraseFromParent();
    }

    for (Instruction &I : make_early_inc_range(instructions(*R)))
        if (auto *CB = dyn_cast<CallBase>(&I))
            if (isQuery(CB->getCalledFunction())) {
                IRBuilder<> B(CB);
                CB->replaceAllUsesWith(resolveQuery(B, *R, *CB));
                CB->eraseFromParent();
            }
    res.subGroupSize = subGroupSize(K);
    if (!lowerGroups(*R, res, err)) {  // sub-groups, collectives (groups.cpp)
        R->eraseFromParent();
        return nullptr;
    }
    std::vector<CallBase *> barriers;
    for (Instruction &I : instructions(*R))
        if (auto *CB = dyn_cast<CallBase>(&I))
            if (isBarrier(CB->getCalledFunction())) {
                if (isGroupStep(CB->getCalledFunction()))
                    res.steps[cast<ConstantInt>(CB->getArgOperand(0))->getZExtValue()].region =
                        (unsigned)barriers.size() + 1;
                barriers.push_back(CB);
            }
    replaceLocals(*R, LL, R->getArg(ENV_LOCAL));
    reducePow2Divisions(*R);
    splitSerialMulAdds(*R);
    res.barriers = (unsigned)barriers.size();
    Scopes SC(C);
    if (barriers.empty()) {
        SC.tagKernel(*R);
        return R;
    }
    // Work-items that wait at different barriers (res.divergent) keep no
    // value in the one uniform copy: each has its own.
    std::set<Value *> uniform = res.divergent ? std::set<Value *>() : uniformValues(*R);

    // One block per barrier (cut: no successors in the liveness) and the
    // region entry after it.
    std::vector<BasicBlock *> bblk, cont;
    std::set<BasicBlock *> cut;
    for (CallBase *CB : barriers) {
        BasicBlock *BB = CB->getParent();
        if (&BB->front() != CB)
            BB = BB->splitBasicBlock(CB, "barrier");
        bblk.push_back(BB);
        cont.push_back(BB->splitBasicBlock(CB->getNextNode(), "region"));
        cut.insert(BB);
    }
    Liveness L;
    liveness(*R, cut, L);
    BitVector across(L.values.size());
    for (BasicBlock *c : cont)
        across |= L.in[c];

    // The new entry: the region dispatch, the per-work-item slot addresses.
    BasicBlock *old = &R->getEntryBlock();
    BasicBlock *disp = BasicBlock::Create(C, "dispatch", R, old);
    IRBuilder<> B(disp);
    Value *lsz = B.CreateMul(B.CreateMul(R->getArg(ENV_LSIZE0), R->getArg(ENV_LSIZE1)), R->getArg(ENV_LSIZE2), "wg.size");
    Value *lin = B.CreateAdd(B.CreateMul(R->getArg(ENV_LZ), R->getArg(ENV_LSIZE1)), R->getArg(ENV_LY));
    lin = B.CreateAdd(B.CreateMul(lin, R->getArg(ENV_LSIZE0)), R->getArg(ENV_LX), "wi.linear");
    // private_mem: the uniform values as the region found them [0, U),
    // as it leaves them [U, 2U) (the work-group function copies them back
    // between regions), then one array of local-size elements per value.
    // U is known at the end: the two bases are patched then.
    auto *uniOut = cast<GetElementPtrInst>(B.CreateGEP(B.getInt8Ty(), R->getArg(ENV_PRIV), B.getInt64(0), "uniform.out"));
    auto *wiBase = cast<GetElementPtrInst>(B.CreateGEP(B.getInt8Ty(), R->getArg(ENV_PRIV), B.getInt64(0), "wi.slots"));
    uint64_t priv = 0, upriv = 0;
    uint64_t slotOff = 0, slotStride = 0;  // the last slot's
    auto slot = [&](Type *T, uint64_t size, uint64_t align, const Twine &name) {
        align = std::max<uint64_t>(align, 4);
        priv = (priv + align - 1) / align * align;
        size = (size + align - 1) / align * align;
        slotOff = priv;
        slotStride = size;
        Value *off = B.CreateAdd(B.CreateMul(lsz, B.getInt64(priv)), B.CreateMul(lin, B.getInt64(size)));
        priv += size;
        return B.CreatePointerBitCastOrAddrSpaceCast(B.CreateGEP(B.getInt8Ty(), wiBase, off), T->getPointerTo(), name);
    };
    auto uslot = [&](Type *T, Value *base, uint64_t off, const Twine &name) {
        return B.CreatePointerBitCastOrAddrSpaceCast(B.CreateGEP(B.getInt8Ty(), base, B.getInt64(off)),
                                                     T->getPointerTo(), name);
    };
    // Private arrays: moved whole when used in more than one region (the
    // array, or a pointer derived from it, lives across a barrier, or its
    // address escapes), else kept as static allocas of the new entry. The
    // slot of a moved one is every work-item's own: its lifetime markers
    // go (they would let LLVM drop stores another region reads).
    std::vector<AllocaInst *> allocas;
    for (Instruction &I : instructions(*R))
        if (auto *A = dyn_cast<AllocaInst>(&I))
            allocas.push_back(A);
    for (AllocaInst *A : allocas) {
        std::vector<Instruction *> derived;
        bool escapes = false;
        derivedPointers(A, derived, escapes);
        // A collective's operands and result: read by the work-group function.
        GroupStep *step = nullptr;
        unsigned role = 0;
        for (GroupStep &st : res.steps)
            for (unsigned r = 0; r < 4; r++)
                if ((r == 0 ? st.a : r == 1 ? st.a2 : r == 2 ? st.x : st.o) == A) {
                    step = &st;
                    role = r;
                }
        bool live = across.test(L.index[A]) || escapes || step;
        for (Instruction *D : derived)
            live |= L.index.count(D) && across.test(L.index[D]);
        if (live) {
            if (A->getParent() != old || !isa<ConstantInt>(A->getArraySize())) {
                err = "a variable-size private array lives across a barrier";
                return nullptr;
            }
            for (Instruction *D : derived)
                for (User *U : make_early_inc_range(D->users()))
                    if (auto *CB = dyn_cast<CallBase>(U))
                        if (CB->isLifetimeStartOrEnd())
                            CB->eraseFromParent();
            for (User *U : make_early_inc_range(A->users()))
                if (auto *CB = dyn_cast<CallBase>(U))
                    if (CB->isLifetimeStartOrEnd())
                        CB->eraseFromParent();
            uint64_t size = DL.getTypeAllocSize(A->getAllocatedType()) *
                            cast<ConstantInt>(A->getArraySize())->getZExtValue();
            Value *p = slot(A->getAllocatedType(), size, A->getAlign().value(), A->getName() + ".wi");
            if (step) {
                step->off[role] = slotOff;
                step->stride[role] = slotStride;
            }
            A->replaceAllUsesWith(B.CreatePointerBitCastOrAddrSpaceCast(p, A->getType()));
            across.reset(L.index[A]);
            A->eraseFromParent();
        } else if (A->getParent() == old) {
            A->moveBefore(*disp, disp->end());
        }
    }
    std::vector<BasicBlock *> entry(bblk.size());
    for (size_t k = 0; k < bblk.size(); k++) {
        entry[k] = BasicBlock::Create(C, "enter" + Twine(k + 1), R, cont[k]);
        BranchInst::Create(cont[k], entry[k]);
        bblk[k]->getTerminator()->eraseFromParent();
        bblk[k]->front().eraseFromParent();  // the barrier call
        ReturnInst::Create(C, ConstantInt::get(i32, k + 1), bblk[k]);
    }
    std::vector<std::map<Value *, Value *>> memo(bblk.size());
    // What is known of an integer's bits before it is kept (x & 255: below
    // 256, non-negative) goes on its reload as !range: the next region's
    // code keeps the fact (a signed division by a constant of a value known
    // non-negative is a shift, a compare with a bound folds). Computed
    // first: the rewriting below turns operands into reloads.
    std::map<unsigned, ConstantRange> ranges;
    for (unsigned vi : across.set_bits()) {
        Instruction *V = L.values[vi];
        if (!V->getType()->isIntegerTy() || V->getType()->getIntegerBitWidth() > 64)
            continue;
        KnownBits KB = computeKnownBits(V, DL);
        ConstantRange CR = ConstantRange::fromKnownBits(KB, /*IsSigned*/ false)
                               .intersectWith(ConstantRange::fromKnownBits(KB, true), ConstantRange::Unsigned);
        if (!CR.isFullSet() && !CR.isEmptySet() && !CR.isSingleElement())
            ranges.emplace(vi, CR);
    }
    for (unsigned vi : across.set_bits()) {
        Instruction *V = L.values[vi];
        unsigned budget = 32;
        bool re = remat(V, disp, budget);
        Value *ptr = nullptr, *in = nullptr;
        bool uni = uniform.count(V) != 0;
        if (!re) {
            uint64_t size = DL.getTypeAllocSize(V->getType()), align = DL.getABITypeAlign(V->getType()).value();
            if (uni) {
                upriv = (upriv + align - 1) / align * align;
                in = uslot(V->getType(), R->getArg(ENV_PRIV), upriv, V->getName() + ".uin");
                ptr = uslot(V->getType(), uniOut, upriv, V->getName() + ".uout");
                upriv += size;
            } else {
                ptr = in = slot(V->getType(), size, align, V->getName() + ".wi");
            }
            Instruction *at = isa<PHINode>(V) ? &*V->getParent()->getFirstInsertionPt() : V->getNextNode();
            SC.tag(new StoreInst(V, ptr, at), uni ? SC_UNIFORM_OUT : SC_PRIVATE);
        }
        SSAUpdater S;
        S.Initialize(V->getType(), V->getName());
        S.AddAvailableValue(V->getParent(), V);
        for (size_t k = 0; k < cont.size(); k++)
            if (L.in[cont[k]].test(vi)) {
                Instruction *t = entry[k]->getTerminator();
                Value *v;
                if (re) {
                    v = cloneTree(V, t, [&](Instruction *I) { return I->getParent() != disp; }, memo[k], ".re");
                } else {
                    auto *ld = new LoadInst(V->getType(), in, V->getName() + ".ld", t);
                    auto rit = ranges.find(vi);
                    if (rit != ranges.end()) {
                        Type *T = V->getType();
                        ld->setMetadata(LLVMContext::MD_range,
                                        MDNode::get(C, {ConstantAsMetadata::get(ConstantInt::get(T, rit->second.getLower())),
                                                        ConstantAsMetadata::get(ConstantInt::get(T, rit->second.getUpper()))}));
                    }
                    SC.tag(ld, uni ? SC_UNIFORM_IN : SC_PRIVATE);
                    v = ld;
                }
                S.AddAvailableValue(entry[k], v);
            }
        for (Use &U : make_early_inc_range(V->uses())) {
            auto *user = cast<Instruction>(U.getUser());
            if (isa<StoreInst>(user) && user->getOperand(1) == ptr)
                continue;
            if (user->getParent() == V->getParent() && !isa<PHINode>(user))
                continue;
            S.RewriteUse(U);
        }
    }
    B.SetInsertPoint(disp);
    SwitchInst *sw = B.CreateSwitch(R->getArg(ENV_REGION), old, (unsigned)entry.size());
    for (size_t k = 0; k < entry.size(); k++)
        sw->addCase(B.getInt32((uint32_t)k + 1), entry[k]);
    res.uniform_used = (upriv + 7) / 8 * 8;
    upriv = (upriv + 63) / 64 * 64;
    uniOut->setOperand(1, ConstantInt::get(i64, upriv));
    wiBase->setOperand(1, ConstantInt::get(i64, 2 * upriv));
    res.uniform_bytes = upriv;
    res.private_bytes = (priv + 2 * upriv + 15) / 16 * 16;
    SC.tagKernel(*R);
    std::string msg;
    raw_string_ostream os(msg);
    if (verifyFunction(*R, &os)) {
        err = "internal error: region function of '" + K.getName().str() + "' is invalid: " + os.str();
        return nullptr;
    }
    return R;
}

}  // namespace wgc
