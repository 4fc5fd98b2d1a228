/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// groups.cpp: sub-groups and work-group collectives in compiled code.
//
// A sub-group is a slice of the x work-item loop: S consecutive local x
// ids of one (y, z) row, S the kernel's intel_reqd_sub_group_size or
// DEFAULT_SUB_GROUP_SIZE (the last slice of a row may be shorter), so a
// vectorised x loop of S lanes holds one sub-group. Sub-group numbers go
// along x, then y, then z, as on Intel's CPU runtime.
//
// Queries and block reads/writes become arithmetic on the local id. A
// collective (reduce, scan, broadcast, shuffle, any/all of a sub-group or
// of the work-group) becomes: each work-item stores its operand in a
// per-work-item array, a barrier (`__sx_group_step(i)`, a region
// boundary), the work-group function runs step i once over the arrays
// (emitGroupSteps: per sub-group slice or over the whole group) and each
// work-item loads its result. A later SIMD form can do the same step in
// registers. A work-group collective is reached by every work-item of
// the group or none (OpenCL requires it, as of barriers). Sub-groups may
// take different paths: where a sub-group collective is under a branch
// that depends on the local id (LLVM's divergence analysis; some sub-group
// uniform branches look divergent to it), the work-group function runs
// the regions per work-item state instead (emitDivergentRegions), each
// collective over the work-items of the sub-group that reached it; where
// those branches' conditions are pure functions of the ids, the geometry
// and the parameters (DPC++'s "is this sub-group's slice in range"), a
// copy with the group's first work-item's conditions (uniformCopy) runs
// the groups whose work-items all take them alike (branchTest). A
// sub-group barrier that orders no memory another work-item reads is
// dropped (barrierNeeded). A group function not handled here falls back
// to fibers (sx-native-builtins.so has fiber versions: adapters/native/
// groups.c); --dump names it.
#include "analyses.h"

#include <functional>
#include <map>

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/DivergenceAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/SyncDependenceAnalysis.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/Cloning.h>

using namespace llvm;

namespace wgc {

namespace {

enum class What { NONE, QUERY, BLOCK_READ, BLOCK_WRITE, BARRIER, ELECT, STEP };

struct Group {
    What what = What::NONE;
    GroupStep::Kind kind = GroupStep::REDUCE;
    GroupStep::Op op = GroupStep::COPY;
    bool sub = false, logical = false;  // logical: operands as 0/1 (any, all, logical_*)
    enum Idx { NOIDX, IDX, XOR, UP, DOWN, FIRST, LINEAR } idx = NOIDX;  // where the shuffle/broadcast index comes from
};

bool opName(StringRef s, GroupStep::Op &op, bool &logical)
{
    logical = s.consume_front("logical_");
    if (s == "add" && !logical)
        op = GroupStep::ADD;
    else if (s == "mul" && !logical)
        op = GroupStep::MUL;
    else if (s == "min" && !logical)
        op = GroupStep::MIN;
    else if (s == "max" && !logical)
        op = GroupStep::MAX;
    else if (s == "and")
        op = GroupStep::AND;
    else if (s == "or")
        op = GroupStep::OR;
    else if (s == "xor")
        op = GroupStep::XOR;
    else
        return false;
    return true;
}

// What the demangled group function `b` is; What::NONE if not handled.
Group classify(StringRef b)
{
    Group g;
    if (b == "get_sub_group_size" || b == "get_max_sub_group_size" || b == "get_num_sub_groups" ||
        b == "get_enqueued_num_sub_groups" || b == "get_sub_group_id" || b == "get_sub_group_local_id") {
        g.what = What::QUERY;
        return g;
    }
    bool intel = b.consume_front("intel_");
    if (b.consume_front("sub_group_")) {
        g.sub = true;
        b.consume_front("non_uniform_");  // in converged code the same as the uniform ones
    } else if (!intel && b.consume_front("work_group_")) {
        g.sub = false;
    } else {
        return g;
    }
    if (b.startswith("block_read")) {
        g.what = intel && g.sub ? What::BLOCK_READ : What::NONE;
        return g;
    }
    if (b.startswith("block_write")) {
        g.what = intel && g.sub ? What::BLOCK_WRITE : What::NONE;
        return g;
    }
    if (intel && !b.startswith("shuffle"))
        return g;
    g.what = What::STEP;
    if (b == "barrier" && g.sub)
        g.what = What::BARRIER;
    else if (b == "elect" && g.sub)
        g.what = What::ELECT;
    else if (b == "ballot" && g.sub) {  // uint4: bit l of the sub-group's mask for local id l
        g.kind = GroupStep::BALLOT;
        g.logical = true;
    }
    else if (b == "any" || b == "all") {
        g.op = b == "any" ? GroupStep::OR : GroupStep::AND;
        g.logical = true;
    } else if (b.consume_front("reduce_")) {
        if (!opName(b, g.op, g.logical))
            g.what = What::NONE;
    } else if (b.consume_front("scan_inclusive_")) {
        g.kind = GroupStep::SCAN_INCL;
        if (!opName(b, g.op, g.logical))
            g.what = What::NONE;
    } else if (b.consume_front("scan_exclusive_")) {
        g.kind = GroupStep::SCAN_EXCL;
        if (!opName(b, g.op, g.logical))
            g.what = What::NONE;
    } else if (b == "broadcast" || b == "broadcast_first") {
        g.kind = GroupStep::BROADCAST;
        g.idx = b == "broadcast_first" ? Group::FIRST : g.sub ? Group::IDX : Group::LINEAR;
    } else if (b == "shuffle" && g.sub) {
        g.kind = GroupStep::SHUFFLE;
        g.idx = Group::IDX;
    } else if (b == "shuffle_xor" && g.sub) {
        g.kind = GroupStep::SHUFFLE;
        g.idx = Group::XOR;
    } else if ((b == "shuffle_up" || b == "shuffle_down") && g.sub) {
        g.kind = intel ? GroupStep::SHUFFLE2 : GroupStep::SHUFFLE;  // intel_: two operands, a 2S window
        g.idx = b == "shuffle_up" ? Group::UP : Group::DOWN;
    } else {
        g.what = What::NONE;
    }
    return g;
}

// The numeric kind of the first parameter of a mangled builtin.
GroupStep::Num paramNum(StringRef mangled, const std::string &base)
{
    size_t at = mangled.find(base);
    StringRef p = at == StringRef::npos ? "" : mangled.substr(at + base.size());
    if (p.startswith("Dv")) {  // vector: Dv<N>_<elem>
        size_t u = p.find('_');
        p = u == StringRef::npos ? "" : p.substr(u + 1);
    }
    if (p.startswith("f") || p.startswith("d") || p.startswith("Dh"))
        return GroupStep::FLOAT;
    if (p.startswith("j") || p.startswith("m") || p.startswith("h") || p.startswith("t"))
        return GroupStep::UINT;
    return GroupStep::INT;
}

// The blocks reached under a branch whose condition differs between
// work-items (between the branch and its immediate post-dominator).
std::set<BasicBlock *> divergentBlocks(Function &R)
{
    std::set<Value *> uni = uniformValues(R);

    PostDominatorTree PDT(R);
    std::set<BasicBlock *> div;
    auto divergent = [&](Value *c) {
        if (isa<Constant>(c))
            return false;
        if (auto *A = dyn_cast<Argument>(c))
            return A->getArgNo() == ENV_LX || A->getArgNo() == ENV_LY || A->getArgNo() == ENV_LZ;
        return uni.count(c) == 0;
    };
    if (!forDivergentReach(R, PDT, divergent, [&](BasicBlock *, BasicBlock *X) { div.insert(X); }))
        for (BasicBlock &BB : R)  // a terminator it cannot follow: anything may diverge
            div.insert(&BB);
    return div;
}

// Sub-group geometry of the work-item R runs (i64 values).
struct SubGroup {
    Value *lid, *id, *size, *num, *max;
};

SubGroup subGroupOf(IRBuilder<> &B, Function &R, unsigned S)
{
    SubGroup g;
    Value *lx = R.getArg(ENV_LX), *nx = R.getArg(ENV_LSIZE0), *s = B.getInt64(S);
    Value *q = B.CreateUDiv(lx, s);
    g.lid = B.CreateURem(lx, s, "sg.lid");
    Value *nsx = B.CreateUDiv(B.CreateAdd(nx, B.getInt64(S - 1)), s);
    Value *row = B.CreateAdd(B.CreateMul(R.getArg(ENV_LZ), R.getArg(ENV_LSIZE1)), R.getArg(ENV_LY));
    g.id = B.CreateAdd(B.CreateMul(row, nsx), q, "sg.id");
    Value *rest = B.CreateSub(nx, B.CreateMul(q, s));
    g.size = B.CreateSelect(B.CreateICmpULT(rest, s), rest, s, "sg.size");
    g.num = B.CreateMul(B.CreateMul(nsx, R.getArg(ENV_LSIZE1)), R.getArg(ENV_LSIZE2), "sg.num");
    g.max = s;  // as on Intel's CPU runtime: the compiled size, even where the group is narrower
    return g;
}

Value *toBool(IRBuilder<> &B, Value *v, Type *T)
{
    Value *nz = v->getType()->isFPOrFPVectorTy() ? B.CreateFCmpUNE(v, Constant::getNullValue(v->getType()))
                                                  : B.CreateICmpNE(v, Constant::getNullValue(v->getType()));
    return B.CreateZExt(nz, T);
}

// Does I write memory other work-items may read (not only private arrays)?
bool writesShared(Instruction &I)
{
    auto priv = [](Value *p) { return isa<AllocaInst>(getUnderlyingObject(p, 0)); };
    if (auto *S = dyn_cast<StoreInst>(&I))
        return !priv(S->getPointerOperand());
    if (auto *M = dyn_cast<AnyMemIntrinsic>(&I))
        return !priv(M->getRawDest());
    if (auto *CB = dyn_cast<CallBase>(&I)) {
        if (CB->isLifetimeStartOrEnd() || isa<DbgInfoIntrinsic>(CB) || CB->onlyReadsMemory())
            return false;
        return true;
    }
    return I.mayWriteToMemory();
}

// A sub-group barrier orders the memory accesses of the work-items of a
// sub-group. The work-items of a group run one after the other between
// barriers here, so a barrier between two stretches of code (up to the
// barriers, collectives or ends around it) that write no memory another
// work-item reads orders nothing: DPC++'s sub-group loads put one before
// and after every load. `boundary` tells the calls that end a stretch.
// kind(call): 1 ends a stretch, 2 writes nothing (a query), 0 other.
bool barrierNeeded(CallBase *B, const std::function<int(CallBase &)> &kind)
{
    // forward from just after B, backward from just before it
    for (int dir = 0; dir < 2; dir++) {
        std::set<BasicBlock *> seen;
        std::vector<std::pair<BasicBlock *, Instruction *>> work;  // block, where to start (null: its end/start)
        work.push_back({B->getParent(), B});
        bool first = true;
        while (!work.empty()) {
            BasicBlock *BB = work.back().first;
            Instruction *from = work.back().second;
            work.pop_back();
            if (!first && !seen.insert(BB).second)
                continue;
            first = false;
            bool stopped = false;
            if (dir == 0) {
                auto it = from ? std::next(from->getIterator()) : BB->begin();
                for (; it != BB->end() && !stopped; ++it) {
                    int k = isa<CallBase>(&*it) ? kind(cast<CallBase>(*it)) : 0;
                    if (k == 1) {
                        stopped = true;
                        break;
                    }
                    if (k == 0 && writesShared(*it))
                        return true;
                }
                if (!stopped)
                    for (BasicBlock *S : successors(BB))
                        work.push_back({S, nullptr});
            } else {
                auto it = from ? from->getReverseIterator() : BB->rbegin();
                if (from)
                    ++it;
                for (; it != BB->rend() && !stopped; ++it) {
                    int k = isa<CallBase>(&*it) ? kind(cast<CallBase>(*it)) : 0;
                    if (k == 1) {
                        stopped = true;
                        break;
                    }
                    if (k == 0 && writesShared(*it))
                        return true;
                }
                if (!stopped)
                    for (BasicBlock *P : predecessors(BB))
                        work.push_back({P, nullptr});
            }
        }
    }
    return false;
}

}  // namespace

bool isGroupStep(const Function *F)
{
    return F && F->getName() == "__sx_group_step";
}

bool groupFunctionHandled(const std::string &base)
{
    return classify(base).what != What::NONE;
}

unsigned subGroupSize(const Function &K)
{
    if (MDNode *md = K.getMetadata("intel_reqd_sub_group_size"))
        if (md->getNumOperands() == 1)
            if (auto *c = mdconst::dyn_extract<ConstantInt>(md->getOperand(0)))
                if (c->getZExtValue() >= 1 && c->getZExtValue() <= 64)
                    return (unsigned)c->getZExtValue();
    return DEFAULT_SUB_GROUP_SIZE;
}

bool lowerGroups(Function &R, KernelResult &res, std::string &err)
{
    Module &M = *R.getParent();
    LLVMContext &C = M.getContext();
    unsigned S = res.subGroupSize ? res.subGroupSize : DEFAULT_SUB_GROUP_SIZE;
    std::vector<std::pair<CallBase *, Group>> calls;
    bool needUniform = false;
    auto scan = [&]() {
        calls.clear();
        for (Instruction &I : instructions(R)) {
            auto *CB = dyn_cast<CallBase>(&I);
            Function *F = CB ? CB->getCalledFunction() : nullptr;
            if (!F || !F->isDeclaration() || F->isIntrinsic())
                continue;
            std::string b = demangledBase(F->getName());
            if (!isGroupFunction(b))
                continue;
            Group g = classify(b);
            if (g.what == What::NONE) {
                res.fallback = "uses the work-group function '" + b + "'";
                return false;
            }
            bool memAbi = false;
            for (unsigned i = 0; i < CB->arg_size(); i++)
                memAbi |= CB->paramHasAttr(i, Attribute::ByVal) || CB->paramHasAttr(i, Attribute::StructRet) ||
                          CB->getArgOperand(i)->getType()->isStructTy() ||
                          (g.what != What::BLOCK_READ && g.what != What::BLOCK_WRITE &&
                           CB->getArgOperand(i)->getType()->isPointerTy());
            if (memAbi ||
                (g.what == What::BLOCK_READ && (CB->arg_size() != 1 || !CB->getArgOperand(0)->getType()->isPointerTy())) ||
                (g.what == What::BLOCK_WRITE && (CB->arg_size() != 2 || !CB->getArgOperand(0)->getType()->isPointerTy()))) {
                res.fallback = "uses the work-group function '" + b + "' with operands in memory or an image";
                return false;
            }
            calls.push_back({CB, g});
        }
        return true;
    };
    if (!scan())
        return false;
    if (calls.empty())
        return true;
    // Sub-group barriers that order nothing go (barrierNeeded), one at a
    // time: the stretches around the others grow.
    bool dropped = false;
    for (auto &cg : calls) {
        if (cg.second.what != What::BARRIER)
            continue;
        auto kind = [&](CallBase &CB) {
            Function *F = CB.getCalledFunction();
            if (&CB == cg.first || (F && isQuery(F)))
                return 2;
            if (F && isBarrier(F))
                return 1;
            for (auto &o : calls)
                if (o.first == &CB)
                    return o.second.what == What::QUERY ? 2 : 1;
            return 0;
        };
        if (!barrierNeeded(cg.first, kind)) {
            cg.first->eraseFromParent();
            cg.first = nullptr;
            dropped = true;
        }
    }
    // DPC++'s sub-group loads and stores fill a private vec in a loop of
    // a few constant iterations between sub-group barriers: where the
    // barriers went, the loops unrolled and the arrays promoted leave
    // region formation values to keep per work-item (a vector lane each)
    // instead of whole arrays in memory (a memset and a memcpy per
    // work-item: a scalar work-item loop). No simplifycfg: it may move the
    // barriers' calls.
    if (dropped) {
        if (!runOnFunction(R, "loop-simplify,lcssa,loop(loop-unroll-full),sroa,early-cse,instcombine")) {
            err = "internal error: the clean-up after the sub-group barriers of '" + R.getName().str() + "' failed";
            return false;
        }
        if (!scan())
            return false;
    }
    needUniform = false;
    for (auto &cg : calls)
        needUniform |= cg.first && cg.second.sub &&
                       (cg.second.what == What::STEP || cg.second.what == What::BARRIER || cg.second.what == What::ELECT);
    // The queries first: the divergence analysis then sees the uniform
    // ones (maximum size, number of sub-groups) as arithmetic on the geometry.
    std::vector<Instruction *> sizes;  // get_sub_group_size's values
    for (auto &cg : calls) {
        if (!cg.first || cg.second.what != What::QUERY)
            continue;
        CallBase *CB = cg.first;
        std::string b = demangledBase(CB->getCalledFunction()->getName());
        IRBuilder<> B(CB);
        SubGroup sg = subGroupOf(B, R, S);
        Value *v = b == "get_sub_group_size" ? sg.size : b == "get_max_sub_group_size" ? sg.max
                 : b == "get_sub_group_id" ? sg.id : b == "get_sub_group_local_id" ? sg.lid : sg.num;
        if (b == "get_sub_group_size")
            sizes.push_back(cast<Instruction>(v));
        CB->replaceAllUsesWith(B.CreateZExtOrTrunc(v, CB->getType()));
        CB->eraseFromParent();
        cg.first = nullptr;
    }
    // A sub-group collective under a branch that depends on the local id
    // (as LLVM's divergence analysis sees it): where the branch depends on
    // the sub-group size only (a loop over log2 of it, as DPC++'s scans
    // have), the kernel is compiled for full sub-groups: sizes are all S,
    // and the adapter refuses local sizes in x that S does not divide.
    // Otherwise (a branch on the sub-group id, a loop whose trip count
    // differs between work-items, a value the analysis cannot follow
    // through memory) the work-group function runs the regions per
    // work-item state (emitDivergentRegions): each collective takes the
    // work-items of the sub-group that reached it, as the SPIR-V
    // non-uniform group instructions and cl_intel_subgroups' shuffles
    // define it, and a sub-group collective every work-item of the
    // sub-group reaches (a branch uniform per sub-group) is exact.
    auto divergentCollective = [&]() -> CallBase * {
        std::set<BasicBlock *> div = divergentBlocks(R);
        for (auto &cg : calls)
            if (cg.first && cg.second.sub &&
                (cg.second.what == What::STEP || cg.second.what == What::BARRIER || cg.second.what == What::ELECT) &&
                div.count(cg.first->getParent()))
                return cg.first;
        return nullptr;
    };
    if (needUniform && divergentCollective()) {
        std::vector<std::pair<Use *, Value *>> undo;
        for (Instruction *I : sizes)
            for (Use &U : make_early_inc_range(I->uses())) {
                undo.push_back({&U, I});
                U.set(ConstantInt::get(I->getType(), S));
            }
        if (!sizes.empty() && !divergentCollective()) {
            res.fullSubGroups = true;
        } else {
            for (auto &u : undo)
                u.first->set(u.second);
            res.divergent = true;
        }
    }
    FunctionCallee stepFn = M.getOrInsertFunction("__sx_group_step", Type::getVoidTy(C), Type::getInt32Ty(C));
    FunctionCallee barrierFn = M.getOrInsertFunction("_Z7barrierj", Type::getVoidTy(C), Type::getInt32Ty(C));
    IRBuilder<> E(&*R.getEntryBlock().getFirstInsertionPt());
    Type *i32 = Type::getInt32Ty(C);
    // One collective: operands to their slots, the step, the result (null
    // with res.fallback set if not handled). CB gives the index operands
    // and the numeric kind (null: none, an int).
    auto emitStep = [&](IRBuilder<> &B, const Group &g, Value *x, CallBase *CB, const std::string &b,
                        const SubGroup &sg) -> Value * {
        GroupStep st;
        st.kind = g.kind;
        st.op = g.op;
        st.subGroup = g.sub;
        st.first = g.idx == Group::FIRST;
        st.num = g.op == GroupStep::COPY || g.logical || !CB ? GroupStep::INT : paramNum(CB->getCalledFunction()->getName(), b);
        st.type = g.logical ? i32 : CB ? CB->getType() : x->getType();
        if (g.logical)
            x = toBool(B, x, i32);
        st.otype = g.kind == GroupStep::BALLOT ? CB->getType() : st.type;
        if (g.kind == GroupStep::BALLOT && !(st.otype->isVectorTy() && st.otype->getScalarType()->isIntegerTy(32) &&
                                             cast<FixedVectorType>(st.otype)->getNumElements() == 4)) {
            res.fallback = "uses the work-group function '" + b + "' with a result other than uint4";
            return nullptr;
        }
        st.a = E.CreateAlloca(st.type, nullptr, "coll.a");
        st.o = E.CreateAlloca(st.otype, nullptr, "coll.o");
        B.CreateStore(x, st.a);
        Value *idx = nullptr;
        auto arg32 = [&](unsigned i) { return B.CreateZExtOrTrunc(CB->getArgOperand(i), i32); };
        Value *lid32 = B.CreateTrunc(sg.lid, i32);
        switch (g.idx) {
        case Group::NOIDX: break;
        case Group::FIRST: idx = B.getInt32(0); break;
        case Group::IDX: idx = arg32(g.kind == GroupStep::SHUFFLE2 ? 2 : 1); break;
        case Group::XOR: idx = B.CreateXor(lid32, arg32(1)); break;
        case Group::DOWN: idx = B.CreateAdd(lid32, arg32(g.kind == GroupStep::SHUFFLE2 ? 2 : 1)); break;
        case Group::UP:
            idx = B.CreateSub(lid32, arg32(g.kind == GroupStep::SHUFFLE2 ? 2 : 1));
            if (g.kind == GroupStep::SHUFFLE2)
                idx = B.CreateAdd(idx, B.getInt32(S));
            break;
        case Group::LINEAR: {  // work_group_broadcast(x, local_id...)
            Value *l = B.getInt64(0);
            for (unsigned d = (unsigned)CB->arg_size() - 1; d >= 1; d--) {
                Value *id = B.CreateZExtOrTrunc(CB->getArgOperand(d), B.getInt64Ty());
                l = d == CB->arg_size() - 1 ? id : B.CreateAdd(B.CreateMul(l, R.getArg(ENV_LSIZE0 + d - 1)), id);
            }
            idx = B.CreateTrunc(l, i32);
            break;
        }
        }
        if (g.kind == GroupStep::SHUFFLE2) {
            st.a2 = E.CreateAlloca(st.type, nullptr, "coll.a2");
            B.CreateStore(CB->getArgOperand(1), st.a2);
        }
        if (idx) {
            st.x = E.CreateAlloca(i32, nullptr, "coll.x");
            B.CreateStore(idx, st.x);
        }
        B.CreateCall(stepFn, {B.getInt32((uint32_t)res.steps.size())});
        res.steps.push_back(st);
        return B.CreateLoad(st.otype, st.o);
    };
    for (auto &cg : calls) {
        CallBase *CB = cg.first;
        if (!CB)
            continue;  // a query, above
        const Group &g = cg.second;
        std::string b = demangledBase(CB->getCalledFunction()->getName());
        IRBuilder<> B(CB);
        SubGroup sg = subGroupOf(B, R, S);
        Value *v = nullptr;
        switch (g.what) {
        case What::QUERY:
            break;
        case What::ELECT: {
            if (!res.divergent) {
                v = B.CreateZExt(B.CreateICmpEQ(sg.lid, B.getInt64(0)), CB->getType());
                break;
            }
            // the first work-item of the sub-group that reached it
            Group eg;
            eg.what = What::STEP;
            eg.kind = GroupStep::BROADCAST;
            eg.sub = true;
            eg.idx = Group::FIRST;
            Value *lid32 = B.CreateTrunc(sg.lid, i32);
            v = B.CreateZExt(B.CreateICmpEQ(emitStep(B, eg, lid32, nullptr, b, sg), lid32), CB->getType());
            break;
        }
        case What::BARRIER:
            B.CreateCall(barrierFn, {CB->arg_size() ? B.CreateZExtOrTrunc(CB->getArgOperand(0), i32) : B.getInt32(0)});
            break;
        case What::BLOCK_READ:
        case What::BLOCK_WRITE: {
            // element j of work-item l: p[l + j * S] (S: the maximum sub-group size)
            Value *p = CB->getArgOperand(0);
            Type *VT = g.what == What::BLOCK_READ ? CB->getType() : CB->getArgOperand(1)->getType();
            Type *ET = VT->getScalarType();
            unsigned n = VT->isVectorTy() ? (unsigned)cast<FixedVectorType>(VT)->getNumElements() : 1;
            Value *ep = B.CreatePointerBitCastOrAddrSpaceCast(p, ET->getPointerTo(p->getType()->getPointerAddressSpace()));
            Value *acc = UndefValue::get(VT);
            for (unsigned j = 0; j < n; j++) {
                Value *at = B.CreateGEP(ET, ep, B.CreateAdd(sg.lid, B.getInt64((uint64_t)j * S)));
                if (g.what == What::BLOCK_READ) {
                    Value *e = B.CreateLoad(ET, at);
                    acc = n > 1 ? B.CreateInsertElement(acc, e, j) : e;
                } else {
                    Value *d = CB->getArgOperand(1);
                    B.CreateStore(n > 1 ? B.CreateExtractElement(d, j) : d, at);
                }
            }
            v = g.what == What::BLOCK_READ ? acc : nullptr;
            break;
        }
        case What::STEP:
            v = emitStep(B, g, CB->getArgOperand(0), CB, b, sg);
            if (!v)
                return false;
            if (g.logical && g.kind != GroupStep::BALLOT)
                v = B.CreateZExtOrTrunc(v, CB->getType());
            break;
        case What::NONE:
            break;
        }
        if (v)
            CB->replaceAllUsesWith(v);
        CB->eraseFromParent();
    }
    return true;
}

namespace {

bool isSubGroupQuery(const Function *F)
{
    return F && F->isDeclaration() && classify(demangledBase(F->getName())).what == What::QUERY;
}

// Is v computed from the work-item's ids, the geometry, the sub-group
// queries and K's parameters only (no memory, no phi, no division that
// may trap where the original did not run)? Its instructions go into
// `slice`, operands first.
bool pureSlice(Value *v, std::vector<Instruction *> &slice, std::set<Value *> &seen, unsigned &budget)
{
    if (isa<Constant>(v) || isa<Argument>(v))
        return true;
    auto *I = dyn_cast<Instruction>(v);
    if (!I || !budget)
        return false;
    budget--;
    if (seen.count(I))
        return true;
    if (auto *CB = dyn_cast<CallBase>(I)) {
        Function *F = CB->getCalledFunction();
        if (!isQuery(F) && !isSubGroupQuery(F))
            return false;
    } else if (!isa<BinaryOperator>(I) && !isa<CastInst>(I) && !isa<CmpInst>(I) && !isa<SelectInst>(I) &&
               !isa<ExtractElementInst>(I) && !isa<InsertElementInst>(I) && !isa<FreezeInst>(I)) {
        return false;
    }
    if (divisionMayTrap(I))
        return false;
    for (Value *op : I->operands())
        if (!pureSlice(op, slice, seen, budget))
            return false;
    seen.insert(I);
    slice.push_back(I);
    return true;
}

// The query CB as the group's first work-item (local id 0 in every
// dimension) sees it, at B; CB itself where it is the same for all; null
// where sx-wgc does not know it.
Value *firstItemQuery(IRBuilder<> &B, CallBase *CB, unsigned S)
{
    std::string b = demangledBase(CB->getCalledFunction()->getName());
    Type *T = CB->getType();
    Module &M = *B.GetInsertBlock()->getModule();
    auto query = [&](const char *mangled, Value *dim) -> Value * {
        FunctionCallee f = M.getOrInsertFunction(mangled, B.getInt64Ty(), B.getInt32Ty());
        return B.CreateCall(f, {B.CreateZExtOrTrunc(dim, B.getInt32Ty())});
    };
    if (b == "get_local_id" || b == "get_local_linear_id" || b == "get_sub_group_id" || b == "get_sub_group_local_id")
        return ConstantInt::get(T, 0);
    if (b == "get_global_id") {
        Value *d = CB->getArgOperand(0);
        Value *g = B.CreateMul(query("_Z12get_group_idj", d), query("_Z14get_local_sizej", d));
        return B.CreateZExtOrTrunc(B.CreateAdd(g, query("_Z17get_global_offsetj", d)), T);
    }
    if (b == "get_sub_group_size") {  // the first slice of the row: S or the whole row
        Value *nx = query("_Z14get_local_sizej", B.getInt32(0)), *s = B.getInt64(S);
        return B.CreateZExtOrTrunc(B.CreateSelect(B.CreateICmpULT(nx, s), nx, s), T);
    }
    if (b == "get_global_linear_id")
        return nullptr;
    return CB;  // the group's geometry, the maximum sub-group size, the number of sub-groups
}

}  // namespace

Function *uniformCopy(Function &K, std::vector<Value *> &conds, bool &full)
{
    conds.clear();
    full = false;
    Divergence A(K);
    if (!A.compute(K, [&](DivergenceAnalysisImpl &D) { markDivergenceSources(K, D); }))
        return nullptr;
    PostDominatorTree &PDT = A.PDT;
    DivergenceAnalysisImpl &DA = *A.DA;
    std::set<BasicBlock *> withGroup;  // blocks calling a group function other than a query
    for (Instruction &I : instructions(K))
        if (auto *CB = dyn_cast<CallBase>(&I))
            if (Function *F = CB->getCalledFunction())
                if (F->isDeclaration() && isGroupFunction(demangledBase(F->getName())) && !isSubGroupQuery(F))
                    withGroup.insert(I.getParent());
    std::set<BasicBlock *> guards;
    if (withGroup.empty() ||
        !forDivergentReach(K, PDT, [&](Value *c) { return DA.isDivergent(*c); },
                           [&](BasicBlock *B, BasicBlock *X) {
                               if (withGroup.count(X))
                                   guards.insert(B);
                           }))
        return nullptr;
    std::vector<std::pair<BranchInst *, std::vector<Instruction *>>> branches;
    for (BasicBlock &BB : K) {  // in K's order: the same copy every time
        if (!guards.count(&BB))
            continue;
        auto *Br = dyn_cast<BranchInst>(BB.getTerminator());
        std::vector<Instruction *> slice;
        std::set<Value *> seen;
        unsigned budget = 256;
        if (!Br || !Br->isConditional() || !pureSlice(Br->getCondition(), slice, seen, budget) || branches.size() == 16)
            return nullptr;
        branches.push_back({Br, slice});
    }
    unsigned S = subGroupSize(K);
    ValueToValueMapTy VM;
    Function *Ku = CloneFunction(&K, VM);
    Ku->setName(K.getName() + ".sx.uniform");
    for (auto &br : branches) {
        auto *Br = cast<BranchInst>(VM[br.first]);
        IRBuilder<> B(Br);
        std::map<Value *, Value *> first;  // Ku's value -> the first work-item's
        for (Instruction *I0 : br.second) {
            auto *I = cast<Instruction>(VM[I0]);
            Value *v = I;
            if (auto *CB = dyn_cast<CallBase>(I)) {
                v = firstItemQuery(B, CB, S);
                if (!v) {
                    Ku->eraseFromParent();
                    return nullptr;
                }
            } else {
                bool same = true;
                for (Value *op : I->operands())
                    same &= !first.count(op) || first[op] == op;
                if (!same) {
                    Instruction *c = I->clone();
                    for (Use &U : c->operands())
                        if (first.count(U.get()))
                            U.set(first[U.get()]);
                    B.Insert(c, I->getName() + ".first");
                    v = c;
                }
            }
            first[I] = v;
        }
        auto it = first.find(Br->getCondition());
        if (it != first.end())
            Br->setCondition(it->second);
        conds.push_back(br.first->getCondition());
    }
    // and for full sub-groups (every local size in x a multiple of S, the
    // usual case): sub-group sizes S, so that a sub-group's block loads
    // and stores are S consecutive elements the loop vectoriser sees
    for (Instruction &I : make_early_inc_range(instructions(*Ku)))
        if (auto *CB = dyn_cast<CallBase>(&I))
            if (Function *F = CB->getCalledFunction())
                if (isSubGroupQuery(F) && demangledBase(F->getName()) == "get_sub_group_size") {
                    CB->replaceAllUsesWith(ConstantInt::get(CB->getType(), S));
                    CB->eraseFromParent();
                    full = true;
                }
    return Ku;
}

Function *branchTest(Function &K, Function &R, const std::vector<Value *> &conds)
{
    LLVMContext &C = K.getContext();
    Function *T = Function::Create(R.getFunctionType(), GlobalValue::InternalLinkage, "__sx_test." + K.getName(),
                                   K.getParent());
    IRBuilder<> B(BasicBlock::Create(C, "entry", T));
    unsigned S = subGroupSize(K);
    std::map<Value *, Value *> VM;
    for (unsigned i = 0; i < K.arg_size(); i++)
        VM[K.getArg(i)] = T->getArg(ENV_COUNT + i);
    SubGroup sg = subGroupOf(B, *T, S);
    Value *mask = B.getInt32(0);
    for (size_t i = 0; i < conds.size() && i < 16; i++) {
        std::vector<Instruction *> slice;
        std::set<Value *> seen;
        unsigned budget = 256;
        pureSlice(conds[i], slice, seen, budget);  // uniformCopy took it
        for (Instruction *I : slice) {
            if (VM.count(I))
                continue;
            Instruction *c = I->clone();
            for (Use &U : c->operands())
                if (VM.count(U.get()))
                    U.set(VM[U.get()]);
            B.Insert(c);
            Value *v = c;
            if (auto *CB = dyn_cast<CallBase>(c)) {
                Function *F = CB->getCalledFunction();
                if (isQuery(F)) {
                    v = resolveQuery(B, *T, *CB);
                } else {
                    std::string b = demangledBase(F->getName());
                    v = b == "get_sub_group_size" ? sg.size : b == "get_max_sub_group_size" ? sg.max
                      : b == "get_sub_group_id" ? sg.id : b == "get_sub_group_local_id" ? sg.lid : sg.num;
                    v = B.CreateZExtOrTrunc(v, CB->getType());
                }
                c->eraseFromParent();
            }
            VM[I] = v;
        }
        Value *c = VM.count(conds[i]) ? VM[conds[i]] : conds[i];
        Value *bit = B.CreateZExt(c, B.getInt32Ty());
        mask = B.CreateOr(mask, B.CreateShl(bit, B.getInt32((uint32_t)i)));
        mask = B.CreateOr(mask, B.CreateShl(B.CreateXor(bit, B.getInt32(1)), B.getInt32((uint32_t)i + 16)));
    }
    B.CreateRet(mask);
    return T;
}

namespace {

// for (i = lo; i < hi; i++) body(i), at B; B is after the loop on return.
void forLoop(IRBuilder<> &B, Value *lo, Value *hi, const Twine &name, const std::function<void(Value *)> &body)
{
    Function *F = B.GetInsertBlock()->getParent();
    LLVMContext &C = F->getContext();
    BasicBlock *pre = B.GetInsertBlock();
    BasicBlock *hdr = BasicBlock::Create(C, name, F), *in = BasicBlock::Create(C, name + ".body", F),
               *out = BasicBlock::Create(C, name + ".done", F);
    B.CreateBr(hdr);
    B.SetInsertPoint(hdr);
    PHINode *i = B.CreatePHI(B.getInt64Ty(), 2, name + ".i");
    i->addIncoming(lo, pre);
    B.CreateCondBr(B.CreateICmpULT(i, hi), in, out);
    B.SetInsertPoint(in);
    body(i);
    i->addIncoming(B.CreateAdd(i, B.getInt64(1)), B.GetInsertBlock());
    B.CreateBr(hdr);
    B.SetInsertPoint(out);
}

Value *identity(const GroupStep &st)
{
    Type *T = st.type;
    bool fp = T->isFloatingPointTy();
    switch (st.op) {
    case GroupStep::ADD: return fp ? ConstantFP::getNegativeZero(T) : Constant::getNullValue(T);
    case GroupStep::MUL: return fp ? ConstantFP::get(T, 1.0) : ConstantInt::get(T, 1);
    case GroupStep::MIN:
        return fp ? ConstantFP::getInfinity(T, false)
                  : ConstantInt::get(T, st.num == GroupStep::UINT ? APInt::getMaxValue(T->getIntegerBitWidth())
                                                                   : APInt::getSignedMaxValue(T->getIntegerBitWidth()));
    case GroupStep::MAX:
        return fp ? ConstantFP::getInfinity(T, true)
                  : ConstantInt::get(T, st.num == GroupStep::UINT ? APInt::getMinValue(T->getIntegerBitWidth())
                                                                   : APInt::getSignedMinValue(T->getIntegerBitWidth()));
    case GroupStep::AND: return Constant::getAllOnesValue(T);
    default: return Constant::getNullValue(T);
    }
}

Value *combine(IRBuilder<> &B, const GroupStep &st, Value *a, Value *b)
{
    bool fp = st.type->isFloatingPointTy();
    switch (st.op) {
    case GroupStep::ADD: return fp ? B.CreateFAdd(a, b) : B.CreateAdd(a, b);
    case GroupStep::MUL: return fp ? B.CreateFMul(a, b) : B.CreateMul(a, b);
    case GroupStep::MIN:
    case GroupStep::MAX: {
        bool mn = st.op == GroupStep::MIN;
        if (fp)
            return B.CreateBinaryIntrinsic(mn ? Intrinsic::minnum : Intrinsic::maxnum, a, b);
        bool u = st.num == GroupStep::UINT;
        Value *lt = u ? B.CreateICmpULT(a, b) : B.CreateICmpSLT(a, b);
        return mn ? B.CreateSelect(lt, a, b) : B.CreateSelect(lt, b, a);
    }
    case GroupStep::AND: return B.CreateAnd(a, b);
    case GroupStep::OR: return B.CreateOr(a, b);
    case GroupStep::XOR: return B.CreateXor(a, b);
    default: return b;
    }
}

}  // namespace

void emitGroupSteps(IRBuilder<> &B, Function *W, Value *next, Value *const lsize[3], Value *privateMem,
                    const KernelResult &res, Value *state)
{
    LLVMContext &C = W->getContext();
    IRBuilder<> E(&*W->getEntryBlock().getFirstInsertionPt());
    BasicBlock *join = BasicBlock::Create(C, "steps.done", W);
    SwitchInst *sw = B.CreateSwitch(next, join, (unsigned)res.steps.size());
    unsigned S = res.subGroupSize ? res.subGroupSize : DEFAULT_SUB_GROUP_SIZE;
    Type *i32 = B.getInt32Ty(), *i64 = B.getInt64Ty();
    for (const GroupStep &st : res.steps) {
        BasicBlock *bb = BasicBlock::Create(C, "step", W, join);
        sw->addCase(B.getInt32(st.region), bb);
        B.SetInsertPoint(bb);
        Value *n = B.CreateMul(B.CreateMul(lsize[0], lsize[1]), lsize[2], "wg.size");
        Value *slots = B.CreateGEP(B.getInt8Ty(), privateMem, B.getInt64(2 * res.uniform_bytes));
        auto el = [&](unsigned role, Value *i) {
            Type *T = role == 2 ? i32 : role == 3 && st.otype ? st.otype : st.type;
            Value *off = B.CreateAdd(B.CreateMul(n, B.getInt64(st.off[role])), B.CreateMul(i, B.getInt64(st.stride[role])));
            return B.CreateBitCast(B.CreateGEP(B.getInt8Ty(), slots, off), T->getPointerTo());
        };
        // With `state`: only the work-items waiting at this step take part.
        auto active = [&](Value *i) -> Value * {
            return state ? B.CreateICmpEQ(B.CreateLoad(i32, B.CreateGEP(i32, state, i)), B.getInt32(st.region)) : nullptr;
        };
        auto ifActive = [&](Value *i, const std::function<void()> &body) {
            Value *a = active(i);
            if (!a) {
                body();
                return;
            }
            BasicBlock *then = BasicBlock::Create(C, "step.active", W, join), *cont = BasicBlock::Create(C, "step.next", W, join);
            B.CreateCondBr(a, then, cont);
            B.SetInsertPoint(then);
            body();
            B.CreateBr(cont);
            B.SetInsertPoint(cont);
        };
        AllocaInst *acc = E.CreateAlloca(st.type, nullptr, "step.acc");
        Constant *zero = Constant::getNullValue(st.type);
        auto segment = [&](Value *start, Value *len) {
            Value *end = B.CreateAdd(start, len);
            switch (st.kind) {
            case GroupStep::REDUCE:
            case GroupStep::SCAN_INCL:
            case GroupStep::SCAN_EXCL:
                B.CreateStore(identity(st), acc);
                forLoop(B, start, end, "step.scan", [&](Value *i) {
                    ifActive(i, [&]() {
                        Value *a = B.CreateLoad(st.type, acc);
                        Value *r = combine(B, st, a, B.CreateLoad(st.type, el(0, i)));
                        B.CreateStore(r, acc);
                        if (st.kind != GroupStep::REDUCE)
                            B.CreateStore(st.kind == GroupStep::SCAN_INCL ? r : a, el(3, i));
                    });
                });
                if (st.kind == GroupStep::REDUCE) {
                    Value *r = B.CreateLoad(st.type, acc);
                    forLoop(B, start, end, "step.out", [&](Value *i) { ifActive(i, [&]() { B.CreateStore(r, el(3, i)); }); });
                }
                break;
            case GroupStep::BROADCAST: {
                if (!state) {
                    Value *c = B.CreateZExt(B.CreateLoad(i32, el(2, start)), i64);
                    Value *in = B.CreateICmpULT(c, len);
                    Value *r = B.CreateLoad(st.type, el(0, B.CreateAdd(start, B.CreateSelect(in, c, B.getInt64(0)))));
                    forLoop(B, start, end, "step.out", [&](Value *i) { B.CreateStore(r, el(3, i)); });
                    break;
                }
                // each work-item taking part reads its own index (the same
                // in all of them), or the first of them takes part
                AllocaInst *fa = E.CreateAlloca(i64, nullptr, "step.first");
                B.CreateStore(len, fa);
                if (st.first)
                    forLoop(B, start, end, "step.find", [&](Value *i) {
                        ifActive(i, [&]() {
                            Value *f = B.CreateLoad(i64, fa);
                            B.CreateStore(B.CreateSelect(B.CreateICmpEQ(f, len), B.CreateSub(i, start), f), fa);
                        });
                    });
                forLoop(B, start, end, "step.out", [&](Value *i) {
                    ifActive(i, [&]() {
                        Value *c = st.first ? (Value *)B.CreateLoad(i64, fa) : B.CreateZExt(B.CreateLoad(i32, el(2, i)), i64);
                        Value *in = B.CreateICmpULT(c, len);
                        B.CreateStore(B.CreateLoad(st.type, el(0, B.CreateAdd(start, B.CreateSelect(in, c, B.getInt64(0))))),
                                      el(3, i));
                    });
                });
                break;
            }
            case GroupStep::BALLOT: {  // bit j of word j / 32 where a[start + j]
                AllocaInst *mask = E.CreateAlloca(st.otype, nullptr, "step.mask");
                B.CreateStore(Constant::getNullValue(st.otype), mask);
                forLoop(B, start, end, "step.ballot", [&](Value *i) {
                    ifActive(i, [&]() {
                        Value *j = B.CreateTrunc(B.CreateSub(i, start), i32);
                        Value *word = B.CreateLShr(j, 5);
                        Value *bit = B.CreateShl(B.CreateLoad(i32, el(0, i)), B.CreateAnd(j, 31));
                        Value *m = B.CreateLoad(st.otype, mask);
                        B.CreateStore(B.CreateInsertElement(m, B.CreateOr(B.CreateExtractElement(m, word), bit), word), mask);
                    });
                });
                Value *m = B.CreateLoad(st.otype, mask);
                forLoop(B, start, end, "step.out", [&](Value *i) { ifActive(i, [&]() { B.CreateStore(m, el(3, i)); }); });
                break;
            }
            case GroupStep::SHUFFLE:
            case GroupStep::SHUFFLE2:
                forLoop(B, start, end, "step.shuffle", [&](Value *i) {
                    ifActive(i, [&]() {
                        Value *c = B.CreateZExt(B.CreateLoad(i32, el(2, i)), i64);
                        if (st.kind == GroupStep::SHUFFLE2) {  // c in [0, 2S): a, then a2
                            Value *second = B.CreateICmpUGE(c, B.getInt64(S));
                            Value *c2 = B.CreateSelect(second, B.CreateSub(c, B.getInt64(S)), c);
                            Value *in = B.CreateICmpULT(c2, len);
                            Value *k = B.CreateAdd(start, B.CreateSelect(in, c2, B.getInt64(0)));
                            Value *r = B.CreateSelect(second, B.CreateLoad(st.type, el(1, k)), B.CreateLoad(st.type, el(0, k)));
                            B.CreateStore(B.CreateSelect(in, r, zero), el(3, i));
                        } else {
                            Value *in = B.CreateICmpULT(c, len);
                            Value *r = B.CreateLoad(st.type, el(0, B.CreateAdd(start, B.CreateSelect(in, c, B.getInt64(0)))));
                            B.CreateStore(B.CreateSelect(in, r, zero), el(3, i));
                        }
                    });
                });
                break;
            }
        };
        if (!st.subGroup) {
            segment(B.getInt64(0), n);
        } else {  // slices of S along x in every (y, z) row
            Value *s = B.getInt64(S);
            Value *nsx = B.CreateUDiv(B.CreateAdd(lsize[0], B.getInt64(S - 1)), s);
            forLoop(B, B.getInt64(0), B.CreateMul(lsize[1], lsize[2]), "step.row", [&](Value *row) {
                forLoop(B, B.getInt64(0), nsx, "step.sg", [&](Value *q) {
                    Value *first = B.CreateMul(q, s);
                    Value *rest = B.CreateSub(lsize[0], first);
                    segment(B.CreateAdd(B.CreateMul(row, lsize[0]), first), B.CreateSelect(B.CreateICmpULT(rest, s), rest, s));
                });
            });
        }
        B.CreateBr(join);
    }
    B.SetInsertPoint(join);
}

namespace {

// reach[t][k]: a work-item released at barrier t (0: the kernel's entry)
// can stop at barrier k, directly or through other barriers: from the
// region function's dispatch to the returns each region entry reaches.
std::vector<std::vector<bool>> barrierReach(Function &R, unsigned nb)
{
    std::vector<std::vector<bool>> reach(nb, std::vector<bool>(nb, false));
    SwitchInst *disp = nullptr;
    for (Instruction &I : R.getEntryBlock())
        if (auto *sw = dyn_cast<SwitchInst>(&I))
            if (sw->getCondition() == R.getArg(ENV_REGION))
                disp = sw;
    std::vector<BasicBlock *> start(nb, nullptr);
    if (disp) {
        start[0] = disp->getDefaultDest();
        for (auto &c : disp->cases())
            if (c.getCaseValue()->getZExtValue() < nb)
                start[c.getCaseValue()->getZExtValue()] = c.getCaseSuccessor();
    }
    for (unsigned t = 0; t < nb; t++) {
        if (!start[t]) {  // not found: any barrier
            reach[t].assign(nb, true);
            continue;
        }
        std::set<BasicBlock *> seen;
        std::vector<BasicBlock *> work{start[t]};
        while (!work.empty()) {
            BasicBlock *X = work.back();
            work.pop_back();
            if (!seen.insert(X).second)
                continue;
            if (auto *ret = dyn_cast<ReturnInst>(X->getTerminator())) {
                auto *c = dyn_cast_or_null<ConstantInt>(ret->getReturnValue());
                if (!c)
                    reach[t].assign(nb, true);
                else if (c->getZExtValue() < nb)
                    reach[t][c->getZExtValue()] = true;
            }
            for (BasicBlock *S : successors(X))
                work.push_back(S);
        }
    }
    for (unsigned m = 0; m < nb; m++)
        for (unsigned t = 0; t < nb; t++)
            if (reach[t][m])
                for (unsigned k = 0; k < nb; k++)
                    if (reach[m][k])
                        reach[t][k] = true;
    return reach;
}

}  // namespace

// Every work-item has a state: the barrier it waits at (0 at the start,
// REGION_EXIT when done). Each round releases one barrier k: the
// collective of k, if any, over the work-items waiting there (per
// sub-group for a sub-group one), then region k for each of them, which
// leaves it at its next barrier. k is one that no waiting work-item can
// still reach from another barrier (so every work-item that takes part
// in that instance of the collective is there); sub-group collectives
// before the rest; when none is free (barriers in a loop), the lowest.
// A work-group barrier is thus released when every work-item reached it,
// as a sub-group collective under a branch on the sub-group id is when
// its sub-group did, and one in a loop whose trip count differs between
// work-items runs each round with the work-items still in the loop.
void emitDivergentRegions(IRBuilder<> &B, Function *W, Function &R, Value *const lsize[3], Value *privateMem,
                          const KernelResult &res,
                          const std::function<Value *(IRBuilder<> &, unsigned, Value *const[3])> &region)
{
    LLVMContext &C = W->getContext();
    Type *i32 = B.getInt32Ty(), *i64 = B.getInt64Ty();
    const uint32_t NONE = REGION_EXIT - 1;  // `known`: not every work-item waits at one barrier
    unsigned nb = res.barriers + 1;
    std::vector<std::vector<bool>> reach = barrierReach(R, nb);
    std::vector<bool> sub(nb, false);
    for (const GroupStep &st : res.steps)
        if (st.subGroup && st.region < nb)
            sub[st.region] = true;
    IRBuilder<> E(&*W->getEntryBlock().getFirstInsertionPt());
    Value *n = B.CreateMul(B.CreateMul(lsize[0], lsize[1]), lsize[2], "wg.size");
    Value *state = B.CreateAlloca(i32, n, "wi.state");
    Value *wait = B.CreateAlloca(i64, B.getInt32(nb), "waiting");  // work-items per barrier
    // the barrier every work-item waits at, when the last round left them so
    AllocaInst *known = E.CreateAlloca(i32, nullptr, "div.known");
    AllocaInst *lo = E.CreateAlloca(i32, nullptr, "div.lo"), *hi = E.CreateAlloca(i32, nullptr, "div.hi");
    B.CreateStore(B.getInt32(0), known);
    forLoop(B, B.getInt64(0), n, "div.init", [&](Value *i) { B.CreateStore(B.getInt32(0), B.CreateGEP(i32, state, i)); });
    BasicBlock *head = BasicBlock::Create(C, "div.round", W), *done = BasicBlock::Create(C, "div.done", W),
               *scan = BasicBlock::Create(C, "div.scan", W), *decide = BasicBlock::Create(C, "div.decide", W);
    B.CreateBr(head);
    B.SetInsertPoint(head);
    Value *kn = B.CreateLoad(i32, known);
    B.CreateCondBr(B.CreateICmpEQ(kn, B.getInt32(NONE)), scan, decide);
    B.SetInsertPoint(scan);
    B.CreateMemSet(wait, B.getInt8(0), (uint64_t)nb * 8, MaybeAlign(8));
    forLoop(B, B.getInt64(0), n, "div.wait", [&](Value *i) {
        Value *s = B.CreateLoad(i32, B.CreateGEP(i32, state, i));
        Value *in = B.CreateICmpULT(s, B.getInt32(nb));
        Value *at = B.CreateGEP(i64, wait, B.CreateSelect(in, s, B.getInt32(0)));
        B.CreateStore(B.CreateAdd(B.CreateLoad(i64, at), B.CreateZExt(in, i64)), at);
    });
    std::vector<Value *> w(nb), ready(nb);
    for (unsigned k = 0; k < nb; k++)
        w[k] = B.CreateICmpNE(B.CreateLoad(i64, B.CreateGEP(i64, wait, B.getInt32(k))), B.getInt64(0));
    for (unsigned k = 0; k < nb; k++) {
        ready[k] = w[k];
        for (unsigned t = 0; t < nb; t++)
            if (t != k && reach[t][k])
                ready[k] = B.CreateAnd(ready[k], B.CreateNot(w[t]));
    }
    // by priority, the last set wins: waiting, waiting sub-group, ready, ready sub-group
    Value *pick = B.getInt32(REGION_EXIT);
    for (int pass = 0; pass < 4; pass++)
        for (int k = (int)nb - 1; k >= 0; k--)
            if (pass % 2 == 0 || sub[k])
                pick = B.CreateSelect(pass < 2 ? w[k] : ready[k], B.getInt32(k), pick);
    Value *cnt = B.CreateLoad(i64, B.CreateGEP(i64, wait, B.CreateSelect(B.CreateICmpULT(pick, B.getInt32(nb)), pick,
                                                                          B.getInt32(0))));
    Value *scanAll = B.CreateICmpEQ(cnt, n);
    BasicBlock *scanEnd = B.GetInsertBlock();
    B.CreateBr(decide);
    B.SetInsertPoint(decide);
    PHINode *p = B.CreatePHI(i32, 2, "div.pick"), *allp = B.CreatePHI(B.getInt1Ty(), 2, "div.every");
    p->addIncoming(kn, head);
    p->addIncoming(pick, scanEnd);
    allp->addIncoming(B.getTrue(), head);
    allp->addIncoming(scanAll, scanEnd);
    BasicBlock *go = BasicBlock::Create(C, "div.release", W);
    B.CreateCondBr(B.CreateICmpEQ(p, B.getInt32(REGION_EXIT)), done, go);
    B.SetInsertPoint(go);
    if (!res.steps.empty())
        emitGroupSteps(B, W, p, lsize, privateMem, res, state);
    BasicBlock *next = BasicBlock::Create(C, "div.next", W);
    SwitchInst *sw = B.CreateSwitch(p, next, nb);
    for (unsigned k = 0; k < nb; k++) {
        BasicBlock *bb = BasicBlock::Create(C, "div.region" + Twine(k), W, next);
        sw->addCase(B.getInt32(k), bb);
        B.SetInsertPoint(bb);
        // every work-item waits here (the usual case): the plain work-item
        // loops, which sx-wgc may run in SIMD lanes (markParallelLoops
        // takes loops named wi.x); where they all stop next is known when
        // the lowest and the highest agree
        BasicBlock *all = BasicBlock::Create(C, "div.all", W, next), *some = BasicBlock::Create(C, "div.some", W, next);
        B.CreateCondBr(allp, all, some);
        B.SetInsertPoint(all);
        B.CreateStore(B.getInt32(REGION_EXIT), lo);
        B.CreateStore(B.getInt32(0), hi);
        forLoop(B, B.getInt64(0), lsize[2], "div.z", [&](Value *z) {
            forLoop(B, B.getInt64(0), lsize[1], "div.y", [&](Value *y) {
                Value *row = B.CreateMul(B.CreateAdd(B.CreateMul(z, lsize[1]), y), lsize[0]);
                forLoop(B, B.getInt64(0), lsize[0], "wi.x.div", [&](Value *x) {
                    Value *lid[3] = {x, y, z};
                    Value *r = region(B, k, lid);
                    B.CreateStore(r, B.CreateGEP(i32, state, B.CreateAdd(row, x)));
                    Value *l = B.CreateLoad(i32, lo), *h = B.CreateLoad(i32, hi);
                    B.CreateStore(B.CreateSelect(B.CreateICmpULT(r, l), r, l), lo);
                    B.CreateStore(B.CreateSelect(B.CreateICmpUGT(r, h), r, h), hi);
                });
            });
        });
        Value *l = B.CreateLoad(i32, lo);
        B.CreateStore(B.CreateSelect(B.CreateICmpEQ(l, B.CreateLoad(i32, hi)), l, B.getInt32(NONE)), known);
        B.CreateBr(next);
        B.SetInsertPoint(some);
        B.CreateStore(B.getInt32(NONE), known);
        forLoop(B, B.getInt64(0), lsize[2], "div.z", [&](Value *z) {
            forLoop(B, B.getInt64(0), lsize[1], "div.y", [&](Value *y) {
                forLoop(B, B.getInt64(0), lsize[0], "div.x", [&](Value *x) {
                    Value *i = B.CreateAdd(B.CreateMul(B.CreateAdd(B.CreateMul(z, lsize[1]), y), lsize[0]), x);
                    Value *at = B.CreateGEP(i32, state, i);
                    BasicBlock *run = BasicBlock::Create(C, "div.run", W, next), *cont = BasicBlock::Create(C, "div.skip", W, next);
                    B.CreateCondBr(B.CreateICmpEQ(B.CreateLoad(i32, at), B.getInt32(k)), run, cont);
                    B.SetInsertPoint(run);
                    Value *lid[3] = {x, y, z};
                    B.CreateStore(region(B, k, lid), at);
                    B.CreateBr(cont);
                    B.SetInsertPoint(cont);
                });
            });
        });
        B.CreateBr(next);
    }
    B.SetInsertPoint(next);
    B.CreateBr(head);
    B.SetInsertPoint(done);
}

}  // namespace wgc
