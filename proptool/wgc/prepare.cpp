/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// prepare.cpp: from llvm-spirv's SPIR IR to host IR ready for region
// formation: x86-64 target, C calling convention, math builtins as LLVM
// intrinsics (so the vectorizer sees them), memory fences dropped (the
// work-items of a group run on one thread), imports loaded from slots the
// adapter fills, and every function inlined into the kernels.
#include "wgc.h"
#include "passes.h"

#include <cmath>
#include <cstring>
#include <map>
#include <set>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>

using namespace llvm;

namespace wgc {

static const char X86_64_LAYOUT[] = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128";

// The unmangled name of an Itanium-mangled OpenCL builtin (_Z4sqrtf -> sqrt).
std::string demangledBase(StringRef n)
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
    return n == "_Z7barrierj" || n == "__sx_group_step" || n == "_Z18work_group_barrierj" || n == "_Z18work_group_barrierj12memory_scope" ||
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

// Builtins that are a square root or a division away, inline so they
// vectorise: rsqrt (2 ulp in OpenCL; float through double: 0.5 ulp,
// double: under 1.5 ulp), native_/half_ rsqrt, sqrt, recip and divide
// (the implementation's accuracy: correctly rounded here). rsqrt(+-0) is
// +-inf, of a negative NaN, as 1/sqrt gives.
static void inlineRootsAndDivisions(Module &M)
{
    for (Function &F : make_early_inc_range(M)) {
        if (!F.isDeclaration() || F.use_empty() || F.isIntrinsic())
            continue;
        Type *rt = F.getReturnType();
        if (!rt->isFPOrFPVectorTy() || (!rt->getScalarType()->isFloatTy() && !rt->getScalarType()->isDoubleTy()))
            continue;
        bool same = true;
        for (Type *t : F.getFunctionType()->params())
            same = same && t == rt;
        std::string b = demangledBase(F.getName());
        for (const char *pre : {"native_", "half_"})
            if (b.rfind(pre, 0) == 0)
                b = b.substr(strlen(pre));
        unsigned n = F.arg_size();
        bool full = demangledBase(F.getName()) == "rsqrt";
        bool relaxed = !full && b != demangledBase(F.getName());  // native_ or half_
        if (!same || !((b == "rsqrt" && n == 1) || (relaxed && ((b == "sqrt" || b == "recip") && n == 1)) ||
                       (relaxed && b == "divide" && n == 2)))
            continue;
        for (User *U : make_early_inc_range(F.users())) {
            auto *CI = dyn_cast<CallInst>(U);
            if (!CI || CI->getCalledFunction() != &F)
                continue;
            IRBuilder<> B(CI);
            Value *r;
            if (b == "divide") {
                r = B.CreateFDiv(CI->getArgOperand(0), CI->getArgOperand(1));
            } else if (b == "recip") {
                r = B.CreateFDiv(ConstantFP::get(rt, 1.0), CI->getArgOperand(0));
            } else if (b == "sqrt") {
                r = B.CreateUnaryIntrinsic(Intrinsic::sqrt, CI->getArgOperand(0));
            } else {  // rsqrt
                Value *x = CI->getArgOperand(0);
                Type *wide = rt->getScalarType()->isFloatTy() ? rt->getWithNewType(B.getDoubleTy()) : rt;
                Value *w = wide == rt ? x : B.CreateFPExt(x, wide);
                r = B.CreateFDiv(ConstantFP::get(wide, 1.0), B.CreateUnaryIntrinsic(Intrinsic::sqrt, w));
                if (wide != rt)
                    r = B.CreateFPTrunc(r, rt);
            }
            CI->replaceAllUsesWith(r);
            CI->eraseFromParent();
        }
    }
}

// The signedness an Itanium-mangled OpenCL builtin's first parameter says
// (_Z3minii, _Z3minDv4_jS_): 's' signed, 'u' unsigned, 'f' floating, 0
// when it is none of those.
static char firstParamKind(StringRef n)
{
    if (!n.consume_front("_Z"))
        return 0;
    size_t len = 0, i = 0;
    while (i < n.size() && isdigit((unsigned char)n[i]))
        len = len * 10 + (size_t)(n[i++] - '0');
    n = n.drop_front(i + len);
    if (n.consume_front("Dv")) {
        size_t u = n.find('_');
        if (u == StringRef::npos)
            return 0;
        n = n.drop_front(u + 1);
    }
    if (n.empty())
        return 0;
    switch (n[0]) {
    case 'a': case 'c': case 's': case 'i': case 'l': return 's';
    case 'h': case 't': case 'j': case 'm': return 'u';
    case 'f': case 'd': return 'f';
    default: return 0;
    }
}

// Common and integer builtins that are one or two instructions, inline
// (a call per work-item keeps the work-item loop scalar): min, max, clamp
// (integer: by the signedness the mangling says; floating: minnum/maxnum,
// OpenCL leaves NaN operands undefined), abs, popcount, clz, ctz, mul24,
// mad24, rotate, select, bitselect, and mix as the specification writes it
// (x + (y - x) * a). A scalar argument beside vectors (clamp(float4,
// float, float)) is splat.
static void inlineCommonBuiltins(Module &M)
{
    for (Function &F : make_early_inc_range(M)) {
        if (!F.isDeclaration() || F.use_empty() || F.isIntrinsic() || F.isVarArg())
            continue;
        Type *rt = F.getReturnType();
        Type *et = rt->getScalarType();
        if (!(et->isIntegerTy() || et->isFloatTy() || et->isDoubleTy()) || (rt->isVectorTy() && !isa<FixedVectorType>(rt)))
            continue;
        std::string b = demangledBase(F.getName());
        bool fits = true;
        for (unsigned i = 0; i < F.arg_size(); i++) {
            Type *t = F.getFunctionType()->getParamType(i);
            // select(a, b, c): c an integer of a's shape
            bool cond = b == "select" && i == 2 && t->isIntOrIntVectorTy() &&
                        t->getScalarSizeInBits() == et->getPrimitiveSizeInBits() &&
                        (!rt->isVectorTy() || (t->isVectorTy() && cast<FixedVectorType>(t)->getNumElements() ==
                                                                       cast<FixedVectorType>(rt)->getNumElements()));
            fits = fits && (t == rt || t == et || cond);
        }
        char kind = firstParamKind(F.getName());
        unsigned n = F.arg_size();
        bool fp = et->isFloatingPointTy();
        if (!fits || !kind || (kind == 'f') != fp)
            continue;
        auto allSame = [&] {
            for (Type *t : F.getFunctionType()->params())
                if (t != rt)
                    return false;
            return true;
        };
        bool ok = ((b == "min" || b == "max") && n == 2) || (b == "clamp" && n == 3) ||
                  (!fp && (b == "abs" || b == "popcount" || b == "clz" || b == "ctz") && n == 1 && allSame()) ||
                  (fp && b == "mix" && n == 3) ||
                  (!fp && (b == "mul24" || b == "rotate") && n == 2 && allSame()) ||
                  (!fp && b == "mad24" && n == 3 && allSame()) || (b == "select" && n == 3) ||
                  (b == "bitselect" && n == 3 && allSame());
        if (!ok)
            continue;
        for (User *U : make_early_inc_range(F.users())) {
            auto *CI = dyn_cast<CallInst>(U);
            if (!CI || CI->getCalledFunction() != &F)
                continue;
            IRBuilder<> B(CI);
            std::vector<Value *> a;
            for (Value *v : CI->args())
                a.push_back(v->getType() == rt || b == "select"
                                ? v
                                : B.CreateVectorSplat(cast<FixedVectorType>(rt)->getNumElements(), v));
            Intrinsic::ID lo = fp ? Intrinsic::minnum : kind == 's' ? Intrinsic::smin : Intrinsic::umin;
            Intrinsic::ID hi = fp ? Intrinsic::maxnum : kind == 's' ? Intrinsic::smax : Intrinsic::umax;
            Value *r;
            if (b == "min")
                r = B.CreateBinaryIntrinsic(lo, a[0], a[1]);
            else if (b == "max")
                r = B.CreateBinaryIntrinsic(hi, a[0], a[1]);
            else if (b == "clamp")
                r = B.CreateBinaryIntrinsic(lo, B.CreateBinaryIntrinsic(hi, a[0], a[1]), a[2]);
            else if (b == "mix")
                r = B.CreateFAdd(a[0], B.CreateFMul(B.CreateFSub(a[1], a[0]), a[2]));
            else if (b == "abs")
                r = kind == 's' ? B.CreateBinaryIntrinsic(Intrinsic::abs, a[0], B.getFalse()) : a[0];
            else if (b == "popcount")
                r = B.CreateUnaryIntrinsic(Intrinsic::ctpop, a[0]);
            else if (b == "mul24")  // operands outside 24 bits: implementation-defined
                r = B.CreateMul(a[0], a[1]);
            else if (b == "mad24")
                r = B.CreateAdd(B.CreateMul(a[0], a[1]), a[2]);
            else if (b == "rotate")  // the count modulo the width, as fshl takes it
                r = B.CreateIntrinsic(Intrinsic::fshl, {rt}, {a[0], a[0], a[1]});
            else if (b == "select")  // scalar: c != 0; vector: c's most significant bit
                r = B.CreateSelect(rt->isVectorTy() ? B.CreateICmpSLT(a[2], Constant::getNullValue(a[2]->getType()))
                                                    : B.CreateICmpNE(a[2], Constant::getNullValue(a[2]->getType())),
                                   a[1], a[0]);
            else if (b == "bitselect") {  // (a & ~c) | (b & c), on the bits
                Type *it = rt->isIntOrIntVectorTy() ? rt : rt->getWithNewType(B.getIntNTy(et->getPrimitiveSizeInBits()));
                Value *x = B.CreateBitCast(a[0], it), *y = B.CreateBitCast(a[1], it), *c = B.CreateBitCast(a[2], it);
                r = B.CreateBitCast(B.CreateOr(B.CreateAnd(x, B.CreateNot(c)), B.CreateAnd(y, c)), rt);
            }
            else
                r = B.CreateBinaryIntrinsic(b == "clz" ? Intrinsic::ctlz : Intrinsic::cttz, a[0], B.getFalse());
            CI->replaceAllUsesWith(r);
            CI->eraseFromParent();
        }
    }
}

// Relational tests and plain conversions, inline for the same reason
// (DPC++'s isnan, isinf, isfinite, signbit kernels and its bool results go
// through them): isnan, isinf, isfinite, isnormal, signbit of float or
// double (scalar: 1 or 0; vector: -1 or 0), and convert_T(x) without _sat
// or a rounding mode between integers (by the source's signedness), from
// an integer to floating point (round to nearest even, as the default is)
// and between floating-point types (the same).
static void inlineRelationalAndConversions(Module &M)
{
    for (Function &F : make_early_inc_range(M)) {
        if (!F.isDeclaration() || F.use_empty() || F.isIntrinsic() || F.isVarArg() || F.arg_size() != 1)
            continue;
        Type *rt = F.getReturnType(), *at = F.getFunctionType()->getParamType(0);
        if (rt->isVectorTy() != at->isVectorTy() || (rt->isVectorTy() && (!isa<FixedVectorType>(rt) || !isa<FixedVectorType>(at) ||
                                                                        cast<FixedVectorType>(rt)->getNumElements() !=
                                                                            cast<FixedVectorType>(at)->getNumElements())))
            continue;
        Type *re = rt->getScalarType(), *ae = at->getScalarType();
        std::string b = demangledBase(F.getName());
        char kind = firstParamKind(F.getName());
        bool rel = (b == "isnan" || b == "isinf" || b == "isfinite" || b == "isnormal" || b == "signbit") &&
                   (ae->isFloatTy() || ae->isDoubleTy()) && re->isIntegerTy() && kind == 'f';
        bool conv = b.rfind("convert_", 0) == 0 && b.find("_sat") == std::string::npos &&
                    b.find("_rt") == std::string::npos && kind &&
                    (ae->isIntegerTy() || ae->isFloatTy() || ae->isDoubleTy()) &&
                    (re->isIntegerTy() || re->isFloatTy() || re->isDoubleTy()) && !(ae->isFloatingPointTy() && re->isIntegerTy());
        if (!rel && !conv)
            continue;
        for (User *U : make_early_inc_range(F.users())) {
            auto *CI = dyn_cast<CallInst>(U);
            if (!CI || CI->getCalledFunction() != &F)
                continue;
            IRBuilder<> B(CI);
            Value *x = CI->getArgOperand(0), *r;
            if (rel) {
                Value *inf = ConstantFP::getInfinity(at), *ax = B.CreateUnaryIntrinsic(Intrinsic::fabs, x), *t;
                if (b == "isnan")
                    t = B.CreateFCmpUNO(x, x);
                else if (b == "isinf")
                    t = B.CreateFCmpOEQ(ax, inf);
                else if (b == "isfinite")
                    t = B.CreateFCmpONE(ax, inf);
                else if (b == "isnormal")
                    t = B.CreateAnd(B.CreateFCmpOLT(ax, inf),
                                    B.CreateFCmpOGE(ax, ConstantFP::get(at, std::ldexp(1.0, ae->isFloatTy() ? -126 : -1022))));
                else
                    t = B.CreateICmpSLT(B.CreateBitCast(x, at->getWithNewType(B.getIntNTy(ae->getPrimitiveSizeInBits()))),
                                        Constant::getNullValue(at->getWithNewType(B.getIntNTy(ae->getPrimitiveSizeInBits()))));
                r = rt->isVectorTy() ? B.CreateSExt(t, rt) : B.CreateZExt(t, rt);
            } else if (ae->isIntegerTy() && re->isIntegerTy()) {
                r = kind == 's' ? B.CreateSExtOrTrunc(x, rt) : B.CreateZExtOrTrunc(x, rt);
            } else if (ae->isIntegerTy()) {
                r = kind == 's' ? B.CreateSIToFP(x, rt) : B.CreateUIToFP(x, rt);
            } else {
                r = B.CreateFPCast(x, rt);
            }
            CI->replaceAllUsesWith(r);
            CI->eraseFromParent();
        }
    }
}

// The builtins module is compiled by clang-14 for x86-64, whose OpenCL
// mangling names address spaces (PU8CLglobal, PU9CLprivate, ...) where SPIR
// has numbers (PU3AS1) and no qualifier for private pointers.
static std::string hostMangling(StringRef n)
{
    if (!n.startswith("_Z"))
        return n.str();
    size_t i = 2, len = 0;
    while (i < n.size() && isdigit((unsigned char)n[i]))
        len = len * 10 + (size_t)(n[i++] - '0');
    if (!len || i + len > n.size())
        return n.str();
    std::string out = n.substr(0, i + len).str();
    static const char *const as[] = {"CLprivate", "CLglobal", "CLconstant", "CLlocal", "CLgeneric"};
    for (size_t j = i + len; j < n.size(); j++) {
        out += n[j];
        if (n[j] != 'P')
            continue;
        if (n.substr(j + 1).startswith("U3AS") && j + 5 < n.size() && n[j + 5] >= '1' && n[j + 5] <= '4') {
            const char *q = as[n[j + 5] - '0'];
            out += "U" + std::to_string(strlen(q)) + q;
            j += 5;
        } else if (n[j + 1] != 'U') {
            out += "U9CLprivate";
        }
    }
    return out;
}

static void renameBuiltins(Module &M)
{
    for (Function &F : M) {
        if (!F.isDeclaration() || F.isIntrinsic())
            continue;
        std::string h = hostMangling(F.getName());
        if (h == F.getName())
            continue;
        if (Function *other = M.getFunction(h)) {  // both spellings declared: one function
            if (other->getFunctionType() == F.getFunctionType()) {
                F.replaceAllUsesWith(other);
                continue;
            }
        }
        F.setName(h);
    }
}

// Vectors in calls of the builtins module: clang-14's x86-64 OpenCL ABI
// (what sx-native-builtins.so is compiled with) passes 2- and 4-byte
// vectors as i16/i32, 8-byte ones as double, vectors over 16 bytes by
// value in memory, returns 128-byte ones through a hidden pointer (32 and
// 64 bytes stay in XMM registers). The IR from SPIR has plain vectors.
enum class VecAbi { Keep, Int16, Int32, Double, Memory };

static VecAbi vecAbi(Type *T, const DataLayout &DL, bool ret)
{
    if (!T->isVectorTy())
        return VecAbi::Keep;
    uint64_t n = DL.getTypeAllocSize(T);
    if (n == 2)
        return VecAbi::Int16;
    if (n == 4)
        return VecAbi::Int32;
    if (n == 8)
        return VecAbi::Double;
    if (n > 16 && (!ret || n > 64))
        return VecAbi::Memory;
    return VecAbi::Keep;
}

static Type *abiType(LLVMContext &C, VecAbi a, Type *T)
{
    switch (a) {
    case VecAbi::Int16: return Type::getInt16Ty(C);
    case VecAbi::Int32: return Type::getInt32Ty(C);
    case VecAbi::Double: return Type::getDoubleTy(C);
    case VecAbi::Memory: return T->getPointerTo();
    default: return T;
    }
}

// Does F, or a function it calls (clang may inline it: a fiber kernel's
// body), call a builtin with a vector over 16 bytes (in memory, or
// returned in several XMM registers)?
static bool usesVectorMemoryAbi(const Function &F, std::set<const Function *> &seen)
{
    if (!seen.insert(&F).second)
        return false;
    const DataLayout &DL = F.getParent()->getDataLayout();
    for (const Instruction &I : instructions(F))
        if (auto *CB = dyn_cast<CallBase>(&I)) {
            const Function *G = CB->getCalledFunction();
            if (G && !G->isDeclaration() && usesVectorMemoryAbi(*G, seen))
                return true;
            if (!G || !G->isDeclaration() || G->isIntrinsic() || isVectorMathBuiltin(*G))
                continue;  // (vector math: vmath.cpp's calls of an ISA every table has)
            if (G->getReturnType()->isVectorTy() && DL.getTypeAllocSize(G->getReturnType()) > 16)
                return true;
            for (unsigned i = 0; i < G->arg_size(); i++)
                if (G->hasParamAttribute(i, Attribute::ByVal) || G->hasParamAttribute(i, Attribute::StructRet))
                    return true;
        }
    return false;
}

bool usesVectorMemoryAbi(const Function &F)
{
    std::set<const Function *> seen;
    return usesVectorMemoryAbi(F, seen);
}

// Math builtins on vectors that vmath.cpp turns into vector-math calls
// keep their plain vector types until then (vectorMathEnabled); sx-wgc
// lowers what is left of them at the end (main.cpp: vectorMathLater
// false), and only those: the vector math's own entry points are called
// with vectors in registers.
bool vectorMathEnabled = true;

void lowerBuiltinAbi(Module &M, bool vectorMathLater)
{
    const DataLayout &DL = M.getDataLayout();
    LLVMContext &C = M.getContext();
    for (Function &F : make_early_inc_range(M)) {
        if (!F.isDeclaration() || F.isIntrinsic() || F.use_empty())
            continue;
        if (vectorMathLater == isVectorMathBuiltin(F))
            continue;  // first all others, then (main.cpp) what vector math left
        std::string base = demangledBase(F.getName());
        if (isGroupFunction(base) && groupFunctionHandled(base))
            continue;  // compiled inline (groups.cpp), never called
        FunctionType *FT = F.getFunctionType();
        VecAbi ra = vecAbi(FT->getReturnType(), DL, true);
        std::vector<VecAbi> pa;
        bool change = ra != VecAbi::Keep;
        for (Type *t : FT->params()) {
            pa.push_back(vecAbi(t, DL, false));
            change |= pa.back() != VecAbi::Keep;
        }
        if (!change)
            continue;
        std::vector<Type *> params;
        if (ra == VecAbi::Memory)
            params.push_back(FT->getReturnType()->getPointerTo());
        for (unsigned i = 0; i < FT->getNumParams(); i++)
            params.push_back(abiType(C, pa[i], FT->getParamType(i)));
        Type *rt = ra == VecAbi::Memory ? Type::getVoidTy(C) : abiType(C, ra, FT->getReturnType());
        std::string name = F.getName().str();
        F.setName(name + ".spir");
        Function *N = Function::Create(FunctionType::get(rt, params, false), GlobalValue::ExternalLinkage, name, &M);
        unsigned off = ra == VecAbi::Memory ? 1 : 0;
        if (off)
            N->addParamAttr(0, Attribute::getWithStructRetType(C, FT->getReturnType()));
        for (unsigned i = 0; i < pa.size(); i++)
            if (pa[i] == VecAbi::Memory) {
                N->addParamAttr(i + off, Attribute::getWithByValType(C, FT->getParamType(i)));
                N->addParamAttr(i + off, Attribute::getWithAlignment(C, Align(DL.getTypeAllocSize(FT->getParamType(i)))));
            }
        for (User *U : make_early_inc_range(F.users())) {
            auto *CI = dyn_cast<CallInst>(U);
            if (!CI || CI->getCalledFunction() != &F)
                continue;
            Function *caller = CI->getFunction();
            IRBuilder<> E(&*caller->getEntryBlock().getFirstInsertionPt());
            IRBuilder<> B(CI);
            std::vector<Value *> args;
            AllocaInst *sret = nullptr;
            if (off) {
                sret = E.CreateAlloca(FT->getReturnType());
                sret->setAlignment(Align(DL.getTypeAllocSize(FT->getReturnType())));
                args.push_back(sret);
            }
            for (unsigned i = 0; i < pa.size(); i++) {
                Value *a = CI->getArgOperand(i);
                if (pa[i] == VecAbi::Memory) {
                    AllocaInst *tmp = E.CreateAlloca(a->getType());
                    tmp->setAlignment(Align(DL.getTypeAllocSize(a->getType())));
                    B.CreateStore(a, tmp);
                    a = tmp;
                } else if (pa[i] != VecAbi::Keep) {
                    a = B.CreateBitCast(a, params[i + off]);
                }
                args.push_back(a);
            }
            CallInst *NC = B.CreateCall(N, args);
            NC->setAttributes(N->getAttributes());
            Value *r = NC;
            if (off)
                r = B.CreateLoad(FT->getReturnType(), sret);
            else if (ra != VecAbi::Keep)
                r = B.CreateBitCast(NC, FT->getReturnType());
            if (!CI->getType()->isVoidTy())
                CI->replaceAllUsesWith(r);
            CI->eraseFromParent();
        }
        if (F.use_empty())
            F.eraseFromParent();
    }
}

// OpenCL C builtins that compute a value from their arguments only (math,
// common, integer, geometric and relational functions): with no pointer
// parameter, such a call reads and writes no memory the kernel sees (libm's
// errno is not OpenCL's), so a uniform one leaves the work-item loop (LICM)
// and the loop vectoriser may widen it (vmath.cpp).
static bool isPureBuiltin(const std::string &b)
{
    static const std::set<std::string> names = {
        "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atanh", "atanpi", "atan2pi", "cbrt",
        "ceil", "copysign", "cos", "cosh", "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1", "fabs", "fdim",
        "floor", "fma", "fmax", "fmin", "fmod", "hypot", "ilogb", "ldexp", "lgamma", "log", "log2", "log10", "log1p",
        "logb", "mad", "maxmag", "minmag", "nan", "nextafter", "pow", "pown", "powr", "remainder", "rint", "rootn",
        "round", "rsqrt", "sin", "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi", "tgamma", "trunc",
        "clamp", "degrees", "max", "min", "mix", "radians", "step", "smoothstep", "sign",
        "abs", "abs_diff", "add_sat", "hadd", "rhadd", "clz", "ctz", "mad_hi", "mad_sat", "mul_hi", "rotate",
        "sub_sat", "upsample", "popcount", "mad24", "mul24",
        "cross", "dot", "distance", "length", "normalize", "fast_distance", "fast_length", "fast_normalize",
        "isequal", "isnotequal", "isgreater", "isgreaterequal", "isless", "islessequal", "islessgreater",
        "isfinite", "isinf", "isnan", "isnormal", "isordered", "isunordered", "signbit", "any", "all",
        "bitselect", "select"};
    return names.count(b) || b.rfind("native_", 0) == 0 || b.rfind("half_", 0) == 0;
}

static void markPureBuiltins(Module &M)
{
    for (Function &F : M) {
        if (!F.isDeclaration() || F.isIntrinsic() || !isPureBuiltin(demangledBase(F.getName())))
            continue;
        bool pointers = false;
        for (Type *t : F.getFunctionType()->params())
            pointers |= t->isPointerTy();
        if (pointers || F.getReturnType()->isVoidTy())
            continue;
        F.setDoesNotAccessMemory();
        F.setDoesNotThrow();
        F.setWillReturn();
        F.addFnAttr(Attribute::NoSync);
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

// Import slots inside constant initializers: a vtable of this image that
// holds a virtual function of another image (proptool's set split moves
// the set's functions out). That word of the vtable is itself the slot the
// adapter fills; the variable becomes writable. Rows {name, slot} collect
// here and go into __sx_wg_imports (workgroup.cpp, via __sx_imp_extra).
static std::vector<std::pair<std::string, Constant *>> initSlots;

static Constant *slotInInit(GlobalVariable *GV, const SmallVectorImpl<unsigned> &path, LLVMContext &C)
{
    std::vector<Constant *> idx{ConstantInt::get(Type::getInt32Ty(C), 0)};
    for (unsigned i : path)
        idx.push_back(ConstantInt::get(Type::getInt32Ty(C), i));
    Constant *p = ConstantExpr::getInBoundsGetElementPtr(GV->getValueType(), GV, idx);
    Type *slotTy = Type::getInt8PtrTy(C)->getPointerTo();
    return ConstantExpr::getPointerBitCastOrAddrSpaceCast(p, slotTy);
}

// `C` with every occurrence of G (under pointer casts) replaced by null; each
// one's place recorded as an import slot of GV. False for G inside another
// constant expression (an offset into it): no slot can say that.
static bool dropFromInit(Constant *Cst, GlobalValue *G, GlobalVariable *GV, SmallVectorImpl<unsigned> &path,
                         Constant *&out, bool &changed)
{
    if (Cst->stripPointerCasts() == G) {
        initSlots.push_back({G->getName().str(), slotInInit(GV, path, GV->getContext())});
        out = Constant::getNullValue(Cst->getType());
        changed = true;
        return true;
    }
    if (isa<ConstantStruct>(Cst) || isa<ConstantArray>(Cst)) {
        std::vector<Constant *> ops;
        for (unsigned i = 0; i < Cst->getNumOperands(); i++) {
            path.push_back(i);
            Constant *o = nullptr;
            if (!dropFromInit(cast<Constant>(Cst->getOperand(i)), G, GV, path, o, changed))
                return false;
            path.pop_back();
            ops.push_back(o);
        }
        if (auto *S = dyn_cast<ConstantStruct>(Cst))
            out = ConstantStruct::get(S->getType(), ops);
        else
            out = ConstantArray::get(cast<ConstantArray>(Cst)->getType(), ops);
        return true;
    }
    if (auto *CE = dyn_cast<ConstantExpr>(Cst)) {
        for (const Use &U : CE->operands())
            if (auto *oc = dyn_cast<Constant>(U.get()))
                if (oc == G || (isa<ConstantExpr>(oc) && oc->stripPointerCasts() == G))
                    return false;
    }
    out = Cst;
    return true;
}

static bool importIntoInitializers(Module &M, GlobalValue *G, std::string &err)
{
    for (GlobalVariable &GV : M.globals()) {
        if (!GV.hasInitializer() || &GV == G)
            continue;
        SmallVector<unsigned, 4> path;
        Constant *init = nullptr;
        bool changed = false;
        if (!dropFromInit(GV.getInitializer(), G, &GV, path, init, changed)) {
            err = "imported symbol '" + G->getName().str() + "' is used at an offset in the initializer of '" +
                  GV.getName().str() + "'";
            return false;
        }
        if (changed) {
            GV.setInitializer(init);
            GV.setConstant(false); /* the adapter writes the slots */
        }
    }
    G->removeDeadConstantUsers();
    return true;
}

static void emitInitSlots(Module &M)
{
    if (initSlots.empty())
        return;
    LLVMContext &C = M.getContext();
    Type *i8p = Type::getInt8PtrTy(C);
    StructType *rowTy = StructType::get(C, {i8p, i8p->getPointerTo()});
    std::vector<Constant *> rows;
    for (auto &s : initSlots) {
        Constant *str = ConstantDataArray::getString(C, s.first);
        auto *g = new GlobalVariable(M, str->getType(), true, GlobalValue::PrivateLinkage, str, "__sx_imp_name");
        rows.push_back(ConstantStruct::get(rowTy, {ConstantExpr::getPointerCast(g, i8p), s.second}));
    }
    ArrayType *at = ArrayType::get(rowTy, rows.size());
    new GlobalVariable(M, at, true, GlobalValue::ExternalLinkage, ConstantArray::get(at, rows), "__sx_imp_extra");
    initSlots.clear();
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
    bool inInit = false;
    for (User *U : G->users())
        inInit |= !isa<Instruction>(U);
    if (inInit && !importIntoInitializers(M, G, err))
        return false;
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
    // C++: vtables of abstract classes hold __cxa_pure_virtual, which no
    // image exports (sx-spir-opt defines it; SPIR-V made without it still
    // runs here): it returns.
    for (const char *pv : {"__cxa_pure_virtual", "__cxa_deleted_virtual"})
        if (Function *F = M.getFunction(pv))
            if (F->isDeclaration() && F->getReturnType()->isVoidTy() && F->arg_empty()) {
                F->setLinkage(GlobalValue::InternalLinkage);
                ReturnInst::Create(M.getContext(), BasicBlock::Create(M.getContext(), "", F));
            }
    for (const std::string &n : imports)
        if (GlobalValue *G = M.getNamedValue(n))
            if (G->isDeclaration() && !importThroughSlot(M, G, err))
                return false;
    emitInitSlots(M);
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
    // OpenCL 2.0's to_global/to_local/to_private (llvm-spirv's reading of
    // OpGenericCastToPtrExplicit; DPC++'s sub-group loads test a pointer
    // with it): one flat address space on the host, the pointer itself.
    for (const char *tn : {"__to_global", "__to_local", "__to_private"})
        if (Function *F = M.getFunction(tn))
            for (User *U : make_early_inc_range(F->users()))
                if (auto *CB = dyn_cast<CallInst>(U))
                    if (CB->getCalledFunction() == F && CB->arg_size() == 1 && CB->getType()->isPointerTy() &&
                        CB->getArgOperand(0)->getType()->isPointerTy()) {
                        IRBuilder<> B(CB);
                        CB->replaceAllUsesWith(B.CreatePointerBitCastOrAddrSpaceCast(CB->getArgOperand(0), CB->getType()));
                        CB->eraseFromParent();
                    }
    mathToIntrinsics(M);
    inlineRootsAndDivisions(M);
    inlineCommonBuiltins(M);
    inlineRelationalAndConversions(M);
    renameBuiltins(M);
    lowerBuiltinAbi(M, true);
    if (!vectorMathEnabled)
        lowerBuiltinAbi(M, false);
    markPureBuiltins(M);
    exportProgramScope(M);

    return runPipeline(M, "always-inline,function(sroa,early-cse,instcombine,simplifycfg)", err);
}

bool runPipeline(Module &M, const char *pipeline, std::string &err)
{
    Passes P;
    PassBuilder &PB = P.PB;
    ModulePassManager MPM;
    if (Error e = PB.parsePassPipeline(MPM, pipeline)) {
        err = toString(std::move(e));
        return false;
    }
    MPM.run(M, P.MAM);
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

bool isGroupFunction(const std::string &b)
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
                if (auto *S = dyn_cast<GlobalVariable>(L->getPointerOperand()->stripPointerCasts()))
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
        if (G->isDeclaration() && isGroupFunction(b) && !groupFunctionHandled(b))
            return "uses the work-group function '" + b + "'";
        std::set<Function *> seen;
        if (!G->isDeclaration() && needsWorkItem(G, seen))
            return "calls '" + G->getName().str() +
                   "', which cannot be inlined (recursion) and uses barriers or work-item functions";
    }
    return barriers ? why : "";
}

}  // namespace wgc
