/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// workgroup.cpp: the work-group functions `void fn(const sxn_wg_ctx *ctx)`
// and the tables the adapter reads (__sx_wg_abi, __sx_wg_table,
// __sx_wg_imports). Everything fn needs from ctx is loaded once before the
// work-item loops (z, y, x; x innermost) so the loops see plain values and
// the host compiler can vectorize the x loop.
#include "wgc.h"

#include <functional>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Transforms/Utils/Cloning.h>

using namespace llvm;

namespace wgc {

namespace {

Value *ctxLoad(IRBuilder<> &B, Value *base, unsigned off, Type *T, const Twine &name)
{
    Value *p = B.CreateGEP(B.getInt8Ty(), base, B.getInt64(off));
    auto *L = B.CreateLoad(T, B.CreateBitCast(p, T->getPointerTo()), name);
    return L;
}

// Loops z, y, x over the local size; `body` emits one work-item and
// returns its region result, or-ed into the value the nest returns
// (every work-item returns the same one).
Value *workItemLoops(IRBuilder<> &B, Function *W, Value *const lsize[3],
                     const std::function<Value *(IRBuilder<> &, Value *const lid[3])> &body)
{
    LLVMContext &C = W->getContext();
    BasicBlock *pre = B.GetInsertBlock();
    BasicBlock *hdr[3], *latch[3];
    PHINode *id[3], *acc[3];
    static const char *const nm[3] = {"x", "y", "z"};
    Value *lid[3];
    for (int d = 2; d >= 0; d--) {
        hdr[d] = BasicBlock::Create(C, Twine("wi.") + nm[d], W);
        B.CreateBr(hdr[d]);
        BasicBlock *from = B.GetInsertBlock();
        B.SetInsertPoint(hdr[d]);
        id[d] = B.CreatePHI(B.getInt64Ty(), 2, Twine("l") + nm[d]);
        acc[d] = B.CreatePHI(B.getInt32Ty(), 2, Twine("r") + nm[d]);
        id[d]->addIncoming(B.getInt64(0), from);
        acc[d]->addIncoming(d == 2 ? (Value *)B.getInt32(0) : (Value *)acc[d + 1], from);
        lid[d] = id[d];
    }
    Value *r = B.CreateOr(acc[0], body(B, lid));
    for (int d = 0; d < 3; d++) {
        Value *next = B.CreateAdd(id[d], B.getInt64(1), Twine("l") + nm[d] + ".next", true, true);
        latch[d] = B.GetInsertBlock();
        BasicBlock *out = BasicBlock::Create(C, Twine("wi.") + nm[d] + ".done", W);
        B.CreateCondBr(B.CreateICmpULT(next, lsize[d]), hdr[d], out);
        id[d]->addIncoming(next, latch[d]);
        acc[d]->addIncoming(r, latch[d]);
        B.SetInsertPoint(out);
    }
    (void)pre;
    return r;
}

}  // namespace

Value *loadArg(IRBuilder<> &B, Value *args, Argument &A)
{
    Value *slot = ctxLoad(B, args, A.getArgNo() * 8, B.getInt8PtrTy(), "arg" + Twine(A.getArgNo()) + ".p");
    if (A.hasByValAttr())
        return B.CreatePointerBitCastOrAddrSpaceCast(slot, A.getType());
    return B.CreateLoad(A.getType(), B.CreatePointerBitCastOrAddrSpaceCast(slot, A.getType()->getPointerTo()),
                        A.getName());
}

Function *buildWorkGroup(Function &K, Function &R, KernelResult &res)
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
    auto region = [&](unsigned r) {
        return [&, r](IRBuilder<> &IB, Value *const lid[3]) -> Value * {
            std::vector<Value *> a(env, env + ENV_COUNT);
            a[ENV_REGION] = IB.getInt32(r);
            a[ENV_LX] = lid[0];
            a[ENV_LY] = lid[1];
            a[ENV_LZ] = lid[2];
            a.insert(a.end(), kargs.begin(), kargs.end());
            CallInst *c = IB.CreateCall(&R, a);
            calls.push_back(c);
            return c;
        };
    };
    if (!res.barriers) {
        workItemLoops(B, W, lsize, region(0));
        B.CreateRetVoid();
    } else if (res.divergent) {  // work-items wait at different barriers (groups.cpp)
        emitDivergentRegions(B, W, R, lsize, env[ENV_PRIV], res,
                             [&](IRBuilder<> &IB, unsigned k, Value *const lid[3]) { return region(k)(IB, lid); });
        B.CreateRetVoid();
    } else {
        // r = 0; do { nr = region r for every work-item } while ((r = nr) != EXIT)
        BasicBlock *head = BasicBlock::Create(C, "region", W), *tail = BasicBlock::Create(C, "region.next", W),
                   *done = BasicBlock::Create(C, "done", W);
        B.CreateBr(head);
        B.SetInsertPoint(head);
        PHINode *r = B.CreatePHI(B.getInt32Ty(), 2, "region");
        r->addIncoming(B.getInt32(0), entry);
        SwitchInst *sw = B.CreateSwitch(r, done, res.barriers + 1);
        B.SetInsertPoint(tail);
        PHINode *nr = B.CreatePHI(B.getInt32Ty(), res.barriers + 1, "next");
        for (unsigned k = 0; k <= res.barriers; k++) {
            BasicBlock *bb = BasicBlock::Create(C, "region" + Twine(k), W, tail);
            sw->addCase(B.getInt32(k), bb);
            B.SetInsertPoint(bb);
            Value *v = workItemLoops(B, W, lsize, region(k));
            if (res.uniform_bytes)  // the uniform values as this region left them, for the next
                B.CreateMemCpy(env[ENV_PRIV], MaybeAlign(64), B.CreateGEP(B.getInt8Ty(), env[ENV_PRIV], B.getInt64(res.uniform_bytes)),
                               MaybeAlign(64), res.uniform_bytes);
            nr->addIncoming(v, B.GetInsertBlock());
            B.CreateBr(tail);
        }
        B.SetInsertPoint(tail);
        if (!res.steps.empty())  // a collective between this region and the next (groups.cpp)
            emitGroupSteps(B, W, nr, lsize, env[ENV_PRIV], res);
        B.CreateCondBr(B.CreateICmpEQ(nr, B.getInt32(REGION_EXIT)), done, head);
        r->addIncoming(nr, B.GetInsertBlock());
        B.SetInsertPoint(done);
        B.CreateRetVoid();
        tail->moveAfter(&W->back());
        done->moveAfter(tail);
    }
    for (CallInst *c : calls) {
        InlineFunctionInfo IFI;
        InlineFunction(*c, IFI);
    }
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
