/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// main.cpp: sx-ptx, proptool's SPIR-V -> PTX compiler (LLVM 14's NVPTX back end):
//     sx-ptx [--builtins FILE.bc] [--libdevice FILE.bc] [--arch sm_NN] [--import NAME]... -o OUT.ptx IN.bc
// IN.bc: `llvm-spirv -r` of the SPIR-V proptool wrote (SPIR address spaces,
// OpenCL C builtins by their mangled names). The steps:
//   1. the builtins (builtins-gen.cl + rt.cl, made at build time with the
//      SPIR address-space map) are linked in, only what is used;
//   2. the module is copied to nvptx64-nvidia-cuda with the address spaces
//      renumbered (SPIR 0 private, 1 global, 2 constant, 3 local, 4 generic ->
//      NVPTX 0 generic, 1 global, 1, 3 shared, 0);
//   3. kernels get the PTX kernel convention and nvvm.annotations; their
//      __local pointer parameters become 32-bit offsets into the one dynamic
//      shared block (__sx_local), as the CUDA adapter passes them;
//   4. libdevice supplies the math (__nv_*), -O3, PTX out.
// Functions defined with external linkage in IN (kernels, exported functions)
// and global variables keep their names (the runtime finds device globals
// by name); everything the builtins brought in is internal.
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include <llvm/ADT/StringRef.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/Utils/BypassSlowDivision.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/IntegerDivision.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

extern "C" void LLVMInitializeNVPTXTargetInfo();
extern "C" void LLVMInitializeNVPTXTarget();
extern "C" void LLVMInitializeNVPTXTargetMC();
extern "C" void LLVMInitializeNVPTXAsmPrinter();

using namespace llvm;

static const char *const TRIPLE = "nvptx64-nvidia-cuda";
static std::string LAYOUT;  // the target machine's (32-bit shared pointers, as nvcc has them)
// Before the address spaces are renumbered (SPIR numbers: 4 is generic, 64-bit).
static const char *const SPIR_LAYOUT = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64";
static const char *const LOCAL_BLOCK = "__sx_local";

// A file beside this executable (the build tree and bindir), else "".
static std::string besideSelf(const char *file)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return "";
    self[n] = 0;
    std::string p(self);
    p = p.substr(0, p.rfind('/') + 1) + file;
    return access(p.c_str(), R_OK) == 0 ? p : "";
}

static std::string defaultBuiltins()
{
    const char *env = getenv("SX_PTX_BUILTINS");
    if (env && *env)
        return env;
    std::string p = besideSelf("sx-ptx-builtins.bc");
    if (!p.empty())
        return p;
#ifdef SX_PTX_PKGDATADIR
    return SX_PTX_PKGDATADIR "/sx-ptx-builtins.bc";
#else
    return "";
#endif
}

// CUDA's libdevice: $SX_LIBDEVICE, $CUDA_HOME, /usr/local/cuda, Debian's nvidia-cuda-toolkit.
static std::string defaultLibdevice()
{
    const char *env = getenv("SX_LIBDEVICE");
    if (env && *env)
        return env;
    std::vector<std::string> c;
    for (const char *v : {"CUDA_HOME", "CUDA_PATH"})
        if (const char *h = getenv(v))
            if (*h)
                c.push_back(std::string(h) + "/nvvm/libdevice/libdevice.10.bc");
    c.push_back("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc");
    c.push_back("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc");
    for (const std::string &p : c)
        if (access(p.c_str(), R_OK) == 0)
            return p;
    return "";
}

static int fail(const std::string &msg)
{
    fprintf(stderr, "sx-ptx: error: %s\n", msg.c_str());
    return 1;
}

static std::unique_ptr<Module> load(LLVMContext &C, const std::string &path, std::string &err)
{
    auto buf = MemoryBuffer::getFile(path);
    if (!buf) {
        err = path + ": " + buf.getError().message();
        return nullptr;
    }
    Expected<std::unique_ptr<Module>> m = parseBitcodeFile((*buf)->getMemBufferRef(), C);
    if (!m) {
        err = path + ": " + toString(m.takeError());
        return nullptr;
    }
    return std::move(*m);
}

// ---------------------------------------------------------------- address spaces
static unsigned mapAS(unsigned as)
{
    switch (as) {
    case 2: return 1;  // constant: read through global (buffers passed as __constant are device memory)
    case 4: return 0;  // generic
    default: return as;
    }
}

namespace {
struct Retype : ValueMapTypeRemapper {
    LLVMContext &C;
    DenseMap<Type *, Type *> done;
    explicit Retype(LLVMContext &c) : C(c) {}
    Type *remapType(Type *T) override { return map(T); }
    Type *map(Type *T)
    {
        auto it = done.find(T);
        if (it != done.end())
            return it->second;
        Type *R = T;
        if (auto *P = dyn_cast<PointerType>(T)) {
            R = P->isOpaque() ? PointerType::get(C, mapAS(P->getAddressSpace()))
                              : PointerType::get(map(P->getPointerElementType()), mapAS(P->getAddressSpace()));
        } else if (auto *A = dyn_cast<ArrayType>(T)) {
            R = ArrayType::get(map(A->getElementType()), A->getNumElements());
        } else if (auto *V = dyn_cast<FixedVectorType>(T)) {
            R = FixedVectorType::get(map(V->getElementType()), V->getNumElements());
        } else if (auto *F = dyn_cast<FunctionType>(T)) {
            std::vector<Type *> ps;
            for (Type *p : F->params())
                ps.push_back(map(p));
            R = FunctionType::get(map(F->getReturnType()), ps, F->isVarArg());
        } else if (auto *S = dyn_cast<StructType>(T)) {
            if (S->isLiteral()) {
                std::vector<Type *> es;
                for (Type *e : S->elements())
                    es.push_back(map(e));
                R = StructType::get(C, es, S->isPacked());
            } else if (!S->isOpaque()) {
                StructType *N = StructType::create(C, S->getName());
                done[T] = N;  // before the elements: a struct may point to itself
                std::vector<Type *> es;
                for (Type *e : S->elements())
                    es.push_back(map(e));
                N->setBody(es, S->isPacked());
                return N;
            }
        }
        done[T] = R;
        return R;
    }
};
}  // namespace

static const Attribute::AttrKind TYPE_ATTRS[] = {Attribute::ByVal, Attribute::StructRet, Attribute::ByRef,
                                                 Attribute::Preallocated, Attribute::InAlloca, Attribute::ElementType};

static AttributeList retypeAttrs(LLVMContext &C, AttributeList A, Retype &R)
{
    for (unsigned i = 0; i < A.getNumAttrSets(); i++)
        for (Attribute::AttrKind k : TYPE_ATTRS)
            if (Type *t = A.getAttributeAtIndex(i, k).getValueAsType())
                A = A.replaceAttributeTypeAtIndex(C, i, k, R.map(t));
    return A;
}

// The module copied into a new one for NVPTX, every type renumbered.
static std::unique_ptr<Module> retarget(Module &M)
{
    LLVMContext &C = M.getContext();
    auto N = std::make_unique<Module>(M.getModuleIdentifier(), C);
    N->setTargetTriple(TRIPLE);
    N->setDataLayout(LAYOUT);
    Retype R(C);
    ValueToValueMapTy VM;
    for (GlobalVariable &G : M.globals()) {
        auto *NG = new GlobalVariable(*N, R.map(G.getValueType()), G.isConstant(), G.getLinkage(), nullptr,
                                      G.getName(), nullptr, G.getThreadLocalMode(), mapAS(G.getAddressSpace()),
                                      G.isExternallyInitialized());
        NG->copyAttributesFrom(&G);
        VM[&G] = NG;
    }
    for (Function &F : M) {
        Function *NF = Function::Create(cast<FunctionType>(R.map(F.getFunctionType())), F.getLinkage(),
                                        F.getAddressSpace(), F.getName(), N.get());
        NF->copyAttributesFrom(&F);
        NF->setAttributes(retypeAttrs(C, F.getAttributes(), R));
        VM[&F] = NF;
    }
    for (GlobalVariable &G : M.globals())
        if (G.hasInitializer())
            cast<GlobalVariable>(VM[&G])->setInitializer(MapValue(G.getInitializer(), VM, RF_None, &R));
    for (Function &F : M) {
        if (F.isDeclaration())
            continue;
        auto *NF = cast<Function>(VM[&F]);
        auto na = NF->arg_begin();
        for (Argument &a : F.args()) {
            na->setName(a.getName());
            VM[&a] = &*na++;
        }
        SmallVector<ReturnInst *, 8> rets;
        CloneFunctionInto(NF, &F, VM, CloneFunctionChangeType::DifferentModule, rets, "", nullptr, &R);
        NF->setAttributes(retypeAttrs(C, F.getAttributes(), R));
    }
    // Casts between private and generic are no casts on NVPTX (both 0).
    for (Function &F : *N)
        for (Instruction &I : make_early_inc_range(instructions(F)))
            if (auto *AC = dyn_cast<AddrSpaceCastInst>(&I))
                if (AC->getSrcAddressSpace() == AC->getDestAddressSpace()) {
                    Value *v = AC->getOperand(0);
                    if (v->getType() != AC->getType())
                        v = new BitCastInst(v, AC->getType(), "", AC);
                    AC->replaceAllUsesWith(v);
                    AC->eraseFromParent();
                }
    // Intrinsics carry their pointer types in their names.
    std::vector<Function *> intr;
    for (Function &F : *N)
        if (F.isIntrinsic())
            intr.push_back(&F);
    for (Function *F : intr)
        if (Optional<Function *> nf = Intrinsic::remangleIntrinsicFunction(F)) {
            F->replaceAllUsesWith(*nf);
            F->eraseFromParent();
        }
    return N;
}

// ------------------------------------------------------------------ kernels
// A kernel whose __local pointer parameters become i32 offsets into the
// dynamic shared block.
static Function *localsToOffsets(Function *K, GlobalVariable *block)
{
    FunctionType *FT = K->getFunctionType();
    std::vector<Type *> ps;
    bool any = false;
    LLVMContext &C = K->getContext();
    for (Type *p : FT->params()) {
        bool loc = p->isPointerTy() && p->getPointerAddressSpace() == 3;
        any |= loc;
        ps.push_back(loc ? Type::getInt32Ty(C) : p);
    }
    if (!any)
        return K;
    std::string name = K->getName().str();
    K->setName(name + ".sx_old");
    Function *NK = Function::Create(FunctionType::get(FT->getReturnType(), ps, false), K->getLinkage(),
                                    K->getAddressSpace(), name, K->getParent());
    NK->copyAttributesFrom(K);
    NK->setCallingConv(K->getCallingConv());
    SmallVector<std::pair<unsigned, MDNode *>, 8> mds;
    K->getAllMetadata(mds);
    for (auto &m : mds)
        NK->setMetadata(m.first, m.second);
    AttributeList A = K->getAttributes();
    for (unsigned i = 0; i < ps.size(); i++)
        if (ps[i] != FT->getParamType(i))
            A = A.removeParamAttributes(C, i);
    NK->setAttributes(A);
    NK->getBasicBlockList().splice(NK->begin(), K->getBasicBlockList());
    IRBuilder<> B(&*NK->getEntryBlock().getFirstInsertionPt());
    auto na = NK->arg_begin();
    for (Argument &a : K->args()) {
        Argument *n = &*na++;
        n->setName(a.getName());
        if (n->getType() == a.getType()) {
            a.replaceAllUsesWith(n);
            continue;
        }
        Value *base = B.CreateBitCast(block, Type::getInt8PtrTy(C, 3));
        Value *p = B.CreateInBoundsGEP(Type::getInt8Ty(C), base, n);
        a.replaceAllUsesWith(B.CreateBitCast(p, a.getType()));
    }
    K->replaceAllUsesWith(ConstantExpr::getBitCast(NK, K->getType()));
    K->eraseFromParent();
    return NK;
}

// ------------------------------------------------- __local pointers in calls
// LLVM 14's NVPTX back end writes a 32-bit shared pointer (-nvptx-short-ptr)
// as a .b32 argument but declares the parameter, and the prototype of an
// indirect call, as .b64: ptxas refuses the call ("Type of argument does not
// match formal parameter"). Every function but a kernel therefore takes and
// returns its __local pointers as i32, in every image alike, so a virtual
// function of a set image called through a vtable, or a function another
// image imports, agrees with its callers.
static bool hasLocalPtr(FunctionType *FT)
{
    auto loc = [](Type *t) { return t->isPointerTy() && t->getPointerAddressSpace() == 3; };
    if (loc(FT->getReturnType()))
        return true;
    for (Type *p : FT->params())
        if (loc(p))
            return true;
    return false;
}

static FunctionType *localsAsInts(FunctionType *FT)
{
    Type *i32 = Type::getInt32Ty(FT->getContext());
    auto conv = [&](Type *t) { return t->isPointerTy() && t->getPointerAddressSpace() == 3 ? i32 : t; };
    std::vector<Type *> ps;
    for (Type *p : FT->params())
        ps.push_back(conv(p));
    return FunctionType::get(conv(FT->getReturnType()), ps, FT->isVarArg());
}

static void localPointersAsInts(Module &M)
{
    LLVMContext &C = M.getContext();
    std::vector<Function *> fs;
    for (Function &F : M)
        if (!F.isIntrinsic() && F.getCallingConv() != CallingConv::PTX_Kernel && !F.isVarArg() &&
            hasLocalPtr(F.getFunctionType()))
            fs.push_back(&F);
    for (Function *F : fs) {
        FunctionType *FT = F->getFunctionType(), *NT = localsAsInts(FT);
        std::string name = F->getName().str();
        F->setName(name + ".sx_old");
        Function *NF = Function::Create(NT, F->getLinkage(), F->getAddressSpace(), name, &M);
        NF->copyAttributesFrom(F);
        NF->setCallingConv(F->getCallingConv());
        AttributeList A = F->getAttributes();
        for (unsigned i = 0; i < NT->getNumParams(); i++)
            if (NT->getParamType(i) != FT->getParamType(i))
                A = A.removeParamAttributes(C, i);
        if (NT->getReturnType() != FT->getReturnType())
            A = A.removeRetAttributes(C, AttributeFuncs::typeIncompatible(NT->getReturnType()));
        NF->setAttributes(A);
        if (!F->isDeclaration()) {
            NF->getBasicBlockList().splice(NF->begin(), F->getBasicBlockList());
            IRBuilder<> B(&*NF->getEntryBlock().getFirstInsertionPt());
            auto na = NF->arg_begin();
            for (Argument &a : F->args()) {
                Argument *n = &*na++;
                n->setName(a.getName());
                a.replaceAllUsesWith(n->getType() == a.getType() ? (Value *)n : B.CreateIntToPtr(n, a.getType()));
            }
            if (NT->getReturnType() != FT->getReturnType())
                for (BasicBlock &bb : *NF)
                    if (auto *R = dyn_cast<ReturnInst>(bb.getTerminator()))
                        R->setOperand(0, new PtrToIntInst(R->getReturnValue(), NT->getReturnType(), "", R));
        }
        F->replaceAllUsesWith(ConstantExpr::getBitCast(NF, F->getType()));
        F->eraseFromParent();
    }
    // Every call with __local pointers in its type (direct ones now call a
    // cast of the new function, indirect ones a vtable's pointer).
    std::vector<CallInst *> calls;
    for (Function &F : M)
        for (Instruction &I : instructions(F))
            if (auto *CI = dyn_cast<CallInst>(&I))
                if (!CI->isInlineAsm() && !isa<IntrinsicInst>(CI) && hasLocalPtr(CI->getFunctionType()))
                    calls.push_back(CI);
    for (CallInst *CI : calls) {
        FunctionType *FT = CI->getFunctionType(), *NT = localsAsInts(FT);
        IRBuilder<> B(CI);
        std::vector<Value *> args;
        for (unsigned i = 0; i < CI->arg_size(); i++) {
            Value *v = CI->getArgOperand(i);
            args.push_back(i < NT->getNumParams() && NT->getParamType(i) != v->getType()
                               ? B.CreatePtrToInt(v, NT->getParamType(i)) : v);
        }
        Value *callee = CI->getCalledOperand()->stripPointerCasts();
        auto *CF = dyn_cast<Function>(callee);
        if (!CF || CF->getFunctionType() != NT)
            callee = B.CreateBitCast(CI->getCalledOperand(),
                                     PointerType::get(NT, CI->getCalledOperand()->getType()->getPointerAddressSpace()));
        CallInst *N = B.CreateCall(NT, callee, args);
        N->setCallingConv(CI->getCallingConv());
        N->setTailCallKind(CI->getTailCallKind());
        AttributeList A = CI->getAttributes();
        for (unsigned i = 0; i < NT->getNumParams(); i++)
            if (NT->getParamType(i) != FT->getParamType(i))
                A = A.removeParamAttributes(C, i);
        if (NT->getReturnType() != FT->getReturnType())
            A = A.removeRetAttributes(C, AttributeFuncs::typeIncompatible(NT->getReturnType()));
        N->setAttributes(A);
        Value *r = N;
        if (NT->getReturnType() != FT->getReturnType())
            r = B.CreateIntToPtr(N, FT->getReturnType());
        if (!FT->getReturnType()->isVoidTy())
            CI->replaceAllUsesWith(r);
        CI->eraseFromParent();
    }
}

// ---------------------------------------------- 64-bit division in functions
// ptxas writes a 64-bit division or remainder as a call to its own
// subroutine; in a function another image calls (a virtual function of a set
// image, reached through a vtable, or an exported one) the H100 stops at the
// function's first instruction with CUDA_ERROR_ILLEGAL_INSTRUCTION (seen with
// `size_t % size_t` in a virtual function; a 32-bit one runs). So such
// functions divide in IR: the 32-bit path where both operands fit (as
// LLVM's bypass does), else LLVM's shift-subtract expansion.
static void expandWideDivisions(Module &M)
{
    DenseMap<unsigned, unsigned> bypass;
    bypass[64] = 32;
    for (Function &F : M) {
        if (F.isDeclaration() || F.getCallingConv() == CallingConv::PTX_Kernel ||
            (F.hasLocalLinkage() && !F.hasAddressTaken()))
            continue;
        std::vector<BasicBlock *> bbs;
        for (BasicBlock &bb : F)
            bbs.push_back(&bb);
        for (BasicBlock *bb : bbs)
            bypassSlowDivision(bb, bypass);
        std::vector<BinaryOperator *> divs;
        for (Instruction &I : instructions(F))
            if (auto *BO = dyn_cast<BinaryOperator>(&I))
                if (BO->getType()->isIntegerTy(64) &&
                    (BO->getOpcode() == Instruction::UDiv || BO->getOpcode() == Instruction::SDiv ||
                     BO->getOpcode() == Instruction::URem || BO->getOpcode() == Instruction::SRem))
                    divs.push_back(BO);
        for (BinaryOperator *BO : divs) {
            bool rem = BO->getOpcode() == Instruction::URem || BO->getOpcode() == Instruction::SRem;
            if (rem)
                expandRemainder(BO);
            else
                expandDivision(BO);
        }
    }
}

static bool optimise(Module &M, TargetMachine *TM, std::string &err)
{
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    PassBuilder PB(TM);
    TM->registerPassBuilderCallbacks(PB);
    FAM.registerPass([&] { return TM->getTargetIRAnalysis(); });
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    ModulePassManager MPM = PB.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
    MPM.run(M, MAM);
    (void)err;
    return true;
}

int main(int argc, char **argv)
{
    std::string in, out, builtins, libdevice, arch = "sm_80";
    std::set<std::string> imports;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "-o" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--builtins" && i + 1 < argc)
            builtins = argv[++i];
        else if (a == "--libdevice" && i + 1 < argc)
            libdevice = argv[++i];
        else if (a == "--arch" && i + 1 < argc)
            arch = argv[++i];
        else if (a == "--import" && i + 1 < argc)
            imports.insert(argv[++i]);
        else if (a[0] != '-' && in.empty())
            in = a;
        else
            return fail("usage: sx-ptx [--builtins FILE.bc] [--libdevice FILE.bc] [--arch sm_NN] [--import NAME]... -o "
                        "OUT.ptx IN.bc (at '" + a + "')");
    }
    if (builtins.empty())
        builtins = defaultBuiltins();
    if (libdevice.empty())
        libdevice = defaultLibdevice();
    if (builtins.empty())
        return fail("no builtins library (sx-ptx-builtins.bc beside sx-ptx; give --builtins FILE.bc)");
    if (in.empty() || out.empty())
        return fail("usage: sx-ptx [--builtins FILE.bc] [--libdevice FILE.bc] [--arch sm_NN] [--import NAME]... -o OUT.ptx "
                    "IN.bc");
    // Shared-memory pointers of 32 bits (nvcc's choice): shorter address
    // arithmetic in loops over __local arrays.
    const char *cl_args[] = {"sx-ptx", "-nvptx-short-ptr"};
    cl::ParseCommandLineOptions(2, cl_args);
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
    std::string err;
    const Target *T = TargetRegistry::lookupTarget(TRIPLE, err);
    if (!T)
        return fail("no NVPTX target in this LLVM: " + err);
    std::unique_ptr<TargetMachine> TM(T->createTargetMachine(TRIPLE, arch, "+ptx70", TargetOptions(), Reloc::PIC_,
                                                             None, CodeGenOpt::Aggressive));
    if (!TM)
        return fail("LLVM's NVPTX back end has no target machine for " + arch);
    LAYOUT = TM->createDataLayout().getStringRepresentation();

    LLVMContext C;
    std::unique_ptr<Module> M = load(C, in, err);
    if (!M)
        return fail(err);
    // What the image itself defines for the outside: kernels and exports.
    std::set<std::string> own;
    std::vector<std::string> kernels;
    for (Function &F : *M) {
        if (!F.isDeclaration() && !F.hasLocalLinkage())
            own.insert(F.getName().str());
        if (!F.isDeclaration() && F.getCallingConv() == CallingConv::SPIR_KERNEL)
            kernels.push_back(F.getName().str());
        if (F.getCallingConv() == CallingConv::SPIR_FUNC)
            F.setCallingConv(CallingConv::C);
    }
    for (Function &F : *M)
        for (Instruction &I : instructions(F))
            if (auto *CB = dyn_cast<CallBase>(&I))
                if (CB->getCallingConv() == CallingConv::SPIR_FUNC)
                    CB->setCallingConv(CallingConv::C);
    M->setTargetTriple(TRIPLE);
    M->setDataLayout(SPIR_LAYOUT);

    std::unique_ptr<Module> B = load(C, builtins, err);
    if (!B)
        return fail(err);
    B->setTargetTriple(TRIPLE);
    B->setDataLayout(SPIR_LAYOUT);
    if (Linker::linkModules(*M, std::move(B), Linker::LinkOnlyNeeded))
        return fail("linking the builtins failed");
    for (Function &F : *M)
        if (!F.isDeclaration() && !own.count(F.getName().str()))
            F.setLinkage(GlobalValue::InternalLinkage);

    std::unique_ptr<Module> N = retarget(*M);
    M.reset();

    // libdevice for the math the builtins left to it.
    bool wants_nv = false;
    for (Function &F : *N)
        wants_nv |= F.isDeclaration() && !F.use_empty() && F.getName().startswith("__nv_");
    if (wants_nv) {
        if (libdevice.empty())
            return fail("the kernels use math builtins that come from CUDA's libdevice; none was found "
                        "(--libdevice FILE, e.g. /usr/local/cuda/nvvm/libdevice/libdevice.10.bc)");
        std::unique_ptr<Module> L = load(C, libdevice, err);
        if (!L)
            return fail(err);
        L->setTargetTriple(TRIPLE);
        L->setDataLayout(LAYOUT);
        if (Linker::linkModules(*N, std::move(L), Linker::LinkOnlyNeeded))
            return fail("linking libdevice failed");
        for (Function &F : *N)
            if (!F.isDeclaration() && F.getName().startswith("__nv_"))
                F.setLinkage(GlobalValue::InternalLinkage);
        N->addModuleFlag(Module::Override, "nvvm-reflect-ftz", uint32_t(0));
    }

    // Kernels: PTX convention, annotations, __local parameters as offsets.
    auto *block = new GlobalVariable(*N, ArrayType::get(Type::getInt8Ty(C), 0), false, GlobalValue::ExternalLinkage,
                                     nullptr, LOCAL_BLOCK, nullptr, GlobalValue::NotThreadLocal, 3);
    block->setAlignment(Align(128));
    NamedMDNode *ann = N->getOrInsertNamedMetadata("nvvm.annotations");
    Type *i32 = Type::getInt32Ty(C);
    for (const std::string &k : kernels) {
        Function *K = localsToOffsets(N->getFunction(k), block);
        K->setCallingConv(CallingConv::PTX_Kernel);
        K->setLinkage(GlobalValue::ExternalLinkage);
        ann->addOperand(MDNode::get(C, {ValueAsMetadata::get(K), MDString::get(C, "kernel"),
                                        ConstantAsMetadata::get(ConstantInt::get(i32, 1))}));
        if (MDNode *r = K->getMetadata("reqd_work_group_size")) {
            static const char *const dims[3] = {"reqntidx", "reqntidy", "reqntidz"};
            for (unsigned d = 0; d < 3 && d < r->getNumOperands(); d++)
                if (auto *c = mdconst::dyn_extract<ConstantInt>(r->getOperand(d)))
                    ann->addOperand(MDNode::get(C, {ValueAsMetadata::get(K), MDString::get(C, dims[d]),
                                                    ConstantAsMetadata::get(ConstantInt::get(i32, c->getZExtValue()))}));
        }
    }
    // SPIR-V kernels may call each other: calls use the C convention.
    for (Function &F : *N)
        for (Instruction &I : instructions(F))
            if (auto *CB = dyn_cast<CallBase>(&I))
                if (CB->getCallingConv() != CallingConv::C && CB->getCallingConv() != CallingConv::PTX_Kernel)
                    CB->setCallingConv(CallingConv::C);
    localPointersAsInts(*N);
    if (block->use_empty())
        block->eraseFromParent();

    // Whatever is still only declared must be an import (another image's
    // function, linked at run time) or an intrinsic.
    std::string missing;
    for (Function &F : *N)
        if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty() && !imports.count(F.getName().str()) &&
            F.getName() != "__nvvm_reflect")  // libdevice's, folded by NVVMReflect in the pipeline
            missing += (missing.empty() ? "" : ", ") + F.getName().str();
    if (!missing.empty())
        return fail("no PTX definition of " + missing + " (an OpenCL C builtin this variant lacks, or a function "
                    "no image defines)");
    {
        std::string msg;
        raw_string_ostream os(msg);
        if (verifyModule(*N, &os))
            return fail("internal error: the NVPTX module is invalid: " + os.str());
    }
    N->setDataLayout(TM->createDataLayout());
    if (!optimise(*N, TM.get(), err))
        return fail(err);
    expandWideDivisions(*N);

    std::error_code ec;
    raw_fd_ostream o(out, ec, sys::fs::OF_None);
    if (ec)
        return fail(out + ": " + ec.message());
    {
        legacy::PassManager PM;  // (its stream wrapper flushes when it goes)
        PM.add(new TargetLibraryInfoWrapperPass(Triple(TRIPLE)));
        if (TM->addPassesToEmitFile(PM, o, nullptr, CGFT_AssemblyFile))
            return fail("LLVM's NVPTX back end cannot write PTX");
        PM.run(*N);
    }
    o.close();
    if (o.has_error())
        return fail(out + ": write failed");
    return 0;
}
