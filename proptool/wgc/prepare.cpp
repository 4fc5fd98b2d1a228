// prepare.cpp: from llvm-spirv's SPIR IR to host IR ready for region
// formation: x86-64 target, C calling convention, math builtins as LLVM
// intrinsics (so the vectorizer sees them), memory fences dropped (the
// work-items of a group run on one thread), imports loaded from slots the
// adapter fills, and every function inlined into the kernels.
#include "wgc.h"

#include <cstring>
#include <map>
#include <set>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Passes/PassBuilder.h>

using namespace llvm;

namespace wgc {

static const char X86_64_LAYOUT[] = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128";

// The unmangled name of an Itanium-mangled OpenCL builtin (_Z4sqrtf -> sqrt).
static std::string demangledBase(StringRef n)
{
    if (!n.consume_front("_Z"))
        return "";
    size_t len = 0, i = 0;
    while (i < n.size() && isdigit((unsigned char)n[i]))
        len = len * 10 + (size_t)(n[i++] - '0');
    if (!len || i + len > n.size())
        return "";
    return n.substr(i, len).str();
}

bool isBarrier(const Function *F)
{
    if (!F)
        return false;
    StringRef n = F->getName();
    return n == "_Z7barrierj" || n == "_Z18work_group_barrierj" || n == "_Z18work_group_barrierj12memory_scope" ||
           n.startswith("_Z22__spirv_ControlBarrier");
}

static const char *const QUERIES[] = {
    "get_global_id", "get_local_id", "get_group_id", "get_local_size", "get_enqueued_local_size",
    "get_global_size", "get_num_groups", "get_global_offset", "get_work_dim", "get_global_linear_id",
    "get_local_linear_id",
};

bool isQuery(const Function *F)
{
    if (!F || !F->isDeclaration())
        return false;
    std::string b = demangledBase(F->getName());
    for (const char *q : QUERIES)
        if (b == q)
            return true;
    return false;
}

static bool isFence(StringRef n)
{
    return n == "_Z9mem_fencej" || n == "_Z14read_mem_fencej" || n == "_Z15write_mem_fencej";
}

// OpenCL math builtins with an LLVM intrinsic of the same meaning, for
// float/double scalars and vectors whose arguments all have the result type.
static Intrinsic::ID mathIntrinsic(const std::string &b, unsigned nargs)
{
    static const std::map<std::string, std::pair<Intrinsic::ID, unsigned>> tab = {
        {"sqrt", {Intrinsic::sqrt, 1}},       {"fabs", {Intrinsic::fabs, 1}},     {"floor", {Intrinsic::floor, 1}},
        {"ceil", {Intrinsic::ceil, 1}},       {"trunc", {Intrinsic::trunc, 1}},   {"rint", {Intrinsic::rint, 1}},
        {"round", {Intrinsic::round, 1}},     {"fma", {Intrinsic::fma, 3}},       {"mad", {Intrinsic::fmuladd, 3}},
        {"fmin", {Intrinsic::minnum, 2}},     {"fmax", {Intrinsic::maxnum, 2}},   {"copysign", {Intrinsic::copysign, 2}},
        {"exp", {Intrinsic::exp, 1}},         {"exp2", {Intrinsic::exp2, 1}},     {"log", {Intrinsic::log, 1}},
        {"log2", {Intrinsic::log2, 1}},       {"log10", {Intrinsic::log10, 1}},   {"sin", {Intrinsic::sin, 1}},
        {"cos", {Intrinsic::cos, 1}},         {"pow", {Intrinsic::pow, 2}},
    };
    auto it = tab.find(b);
    return it != tab.end() && it->second.second == nargs ? it->second.first : Intrinsic::not_intrinsic;
}

static void mathToIntrinsics(Module &M)
{
    for (Function &F : make_early_inc_range(M)) {
        if (!F.isDeclaration() || F.use_empty())
            continue;
        Type *rt = F.getReturnType();
        if (!rt->isFPOrFPVectorTy() || rt->getScalarType()->isHalfTy())
            continue;
        bool same = true;
        for (Type *t : F.getFunctionType()->params())
            same = same && t == rt;
        Intrinsic::ID id = same ? mathIntrinsic(demangledBase(F.getName()), F.arg_size()) : Intrinsic::not_intrinsic;
        if (id == Intrinsic::not_intrinsic)
            continue;
        Function *I = Intrinsic::getDeclaration(&M, id, {rt});
        for (User *U : make_early_inc_range(F.users()))
            if (auto *CI = dyn_cast<CallInst>(U))
                if (CI->getCalledFunction() == &F)
                    CI->setCalledFunction(I);
    }
}

static void materialize(ConstantExpr *CE)
{
    for (User *U : SmallVector<User *, 8>(CE->users()))
        if (auto *outer = dyn_cast<ConstantExpr>(U))
            materialize(outer);
    for (Use &U : make_early_inc_range(CE->uses())) {
        auto *I = dyn_cast<Instruction>(U.getUser());
        if (!I)
            continue;
        Instruction *at = I;
        if (auto *P = dyn_cast<PHINode>(I))
            at = P->getIncomingBlock(U)->getTerminator();
        Instruction *NI = CE->getAsInstruction();
        NI->insertBefore(at);
        U.set(NI);
    }
}

void expandConstantUses(GlobalValue *G)
{
    G->removeDeadConstantUsers();
    for (User *U : SmallVector<User *, 8>(G->users()))
        if (auto *CE = dyn_cast<ConstantExpr>(U))
            materialize(CE);
    G->removeDeadConstantUsers();
}

// A symbol of another image: every use loads its address from a slot the
// adapter fills before the first launch (contract: __sx_wg_imports).
static bool importThroughSlot(Module &M, GlobalValue *G, std::string &err)
{
    LLVMContext &C = M.getContext();
    Type *i8p = Type::getInt8PtrTy(C);
    auto *slot = new GlobalVariable(M, i8p, false, GlobalValue::InternalLinkage, ConstantPointerNull::get(cast<PointerType>(i8p)),
                                    "__sx_imp." + G->getName());
    expandConstantUses(G);
    for (Use &U : make_early_inc_range(G->uses())) {
        auto *I = dyn_cast<Instruction>(U.getUser());
        if (!I) {
            err = "imported symbol '" + G->getName().str() + "' is used in a constant initializer";
            return false;
        }
        Instruction *at = I;
        if (auto *P = dyn_cast<PHINode>(I))
            at = P->getIncomingBlock(U)->getTerminator();
        IRBuilder<> B(at);
        Value *p = B.CreateLoad(i8p, slot, G->getName() + ".addr");
        U.set(B.CreatePointerBitCastOrAddrSpaceCast(p, G->getType()));
    }
    if (G->use_empty())
        G->eraseFromParent();
    return true;
}

// Program-scope __global variables keep their names as exported data
// symbols (device globals are found by name).
static void exportProgramScope(Module &M)
{
    for (GlobalVariable &G : M.globals())
        if (!G.isDeclaration() && G.getAddressSpace() == 1 && G.hasName() && !G.getName().startswith("llvm.")) {
            G.setLinkage(GlobalValue::ExternalLinkage);
            G.setVisibility(GlobalValue::DefaultVisibility);
        }
}

bool prepare(Module &M, const std::vector<std::string> &imports, std::string &err)
{
    M.setTargetTriple("x86_64-unknown-linux-gnu");
    M.setDataLayout(X86_64_LAYOUT);
    if (GlobalVariable *a = M.getGlobalVariable("llvm.global.annotations"))
        a->eraseFromParent();
    for (const std::string &n : imports)
        if (GlobalValue *G = M.getNamedValue(n))
            if (G->isDeclaration() && !importThroughSlot(M, G, err))
                return false;
    for (Function &F : M) {
        if (F.getCallingConv() == CallingConv::SPIR_FUNC || F.getCallingConv() == CallingConv::SPIR_KERNEL)
            F.setCallingConv(CallingConv::C);
        for (BasicBlock &BB : F)
            for (Instruction &I : make_early_inc_range(BB))
                if (auto *CB = dyn_cast<CallBase>(&I)) {
                    CB->setCallingConv(CallingConv::C);
                    if (CB->getCalledFunction() && isFence(CB->getCalledFunction()->getName()))
                        CB->eraseFromParent();
                }
        if (!F.isDeclaration()) {
            F.removeFnAttr(Attribute::NoInline);
            F.removeFnAttr(Attribute::OptimizeNone);
            F.addFnAttr(Attribute::AlwaysInline);
        }
    }
    mathToIntrinsics(M);
    exportProgramScope(M);

    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PassBuilder PB;
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    ModulePassManager MPM;
    if (Error e = PB.parsePassPipeline(MPM, "always-inline,function(sroa,early-cse,instcombine,simplifycfg)")) {
        err = toString(std::move(e));
        return false;
    }
    MPM.run(M, MAM);
    return true;
}

// A function defined here that is still called after inlining (recursive):
// does it, or anything it calls, need the work-item or a barrier?
static bool needsWorkItem(Function *F, std::set<Function *> &seen)
{
    if (!seen.insert(F).second)
        return false;
    for (Instruction &I : instructions(*F))
        if (auto *CB = dyn_cast<CallBase>(&I)) {
            Function *G = CB->getCalledFunction();
            if (!G || isBarrier(G) || isQuery(G))
                return true;
            if (!G->isDeclaration() && needsWorkItem(G, seen))
                return true;
        }
    return false;
}

static bool isGroupFunction(const std::string &b)
{
    static const char *const pre[] = {"work_group_", "sub_group_", "get_sub_group", "get_num_sub_groups",
                                      "get_max_sub_group_size", "get_enqueued_num_sub_groups",
                                      "async_work_group", "wait_group_events", "intel_sub_group"};
    for (const char *p : pre)
        if (b.rfind(p, 0) == 0)
            return b != "work_group_barrier";
    return false;
}

std::string fallbackReason(Function &K, const std::vector<std::string> &)
{
    bool barriers = false;
    std::string why;
    for (Instruction &I : instructions(K)) {
        if (auto *A = dyn_cast<AllocaInst>(&I))
            if (!A->isStaticAlloca() && why.empty())
                why = "has a variable-size private array";
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB || isa<IntrinsicInst>(CB))
            continue;
        Function *G = CB->getCalledFunction();
        if (!G) {
            Value *c = CB->getCalledOperand()->stripPointerCasts();
            if (auto *L = dyn_cast<LoadInst>(c))
                if (auto *S = dyn_cast<GlobalVariable>(L->getPointerOperand()))
                    if (S->getName().startswith("__sx_imp."))
                        return "calls '" + S->getName().drop_front(9).str() +
                               "' of another image (it may use work-item functions)";
            return "makes an indirect call (the callee may use work-item functions)";
        }
        if (isBarrier(G)) {
            barriers = true;
            continue;
        }
        std::string b = demangledBase(G->getName());
        if (G->isDeclaration() && isGroupFunction(b))
            return "uses the work-group function '" + b + "'";
        std::set<Function *> seen;
        if (!G->isDeclaration() && needsWorkItem(G, seen))
            return "calls '" + G->getName().str() +
                   "', which cannot be inlined (recursion) and uses barriers or work-item functions";
    }
    return barriers ? why : "";
}

}  // namespace wgc
