/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// vmath.cpp: the math builtins of one table's work-group function reach the
// builtins module's vector math (adapters/native/vmath.c, __sx_vm_FN_TN_ISA)
// in the ISA of that table only (issue 28):
//  - a scalar call (llvm.exp.f32, or a builtin such as tanh) gets LLVM's
//    vector-function ABI attribute naming the variants the table may call,
//    so clang -O3's loop vectoriser turns it into one call per vector of
//    work-items instead of a call per lane;
//  - a call on a vector (exp on float4 or double4) becomes calls of the
//    variant of the nearest width, in pieces and padded as needed.
// The baseline table sees the SSE2 variants only, x86-64-v3 the AVX2 ones,
// x86-64-v4 those and the AVX-512 ones; nothing of a wider ISA is named in
// a table that may run without it. Runs last in sx-wgc, after its own
// instcombine (which may turn pow(2, x) into exp2(x)).
#include "wgc.h"

#include <cmath>
#include <cstring>

#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/Transforms/Utils/ModuleUtils.h>

using namespace llvm;

namespace wgc {

namespace {

struct MathFn {
    const char *name;
    unsigned nargs;
    Intrinsic::ID id;  // the LLVM intrinsic prepare.cpp turns it into, if any
    bool floatOnly;    // vmath.c has no double variants
    bool intArg;       // the second argument is an int (of as many lanes)
};

// What vmath.c provides (its SX_VMATH_FUNCS; pow and powr: vmath-pow.c;
// fmod: vmath-f64.c, float only), each within 2 ulp (fmod exact).
const MathFn FUNCS[] = {
    {"exp", 1, Intrinsic::exp},     {"exp2", 1, Intrinsic::exp2},   {"exp10", 1, Intrinsic::not_intrinsic},
    {"expm1", 1, Intrinsic::not_intrinsic}, {"log", 1, Intrinsic::log}, {"log2", 1, Intrinsic::log2},
    {"log10", 1, Intrinsic::log10}, {"log1p", 1, Intrinsic::not_intrinsic}, {"sin", 1, Intrinsic::sin},
    {"cos", 1, Intrinsic::cos},     {"tan", 1, Intrinsic::not_intrinsic},   {"sinh", 1, Intrinsic::not_intrinsic},
    {"cosh", 1, Intrinsic::not_intrinsic}, {"tanh", 1, Intrinsic::not_intrinsic}, {"asin", 1, Intrinsic::not_intrinsic},
    {"acos", 1, Intrinsic::not_intrinsic}, {"atan", 1, Intrinsic::not_intrinsic}, {"cbrt", 1, Intrinsic::not_intrinsic},
    {"atan2", 2, Intrinsic::not_intrinsic}, {"pow", 2, Intrinsic::pow},
    {"asinh", 1, Intrinsic::not_intrinsic}, {"acosh", 1, Intrinsic::not_intrinsic}, {"atanh", 1, Intrinsic::not_intrinsic},
    {"hypot", 2, Intrinsic::not_intrinsic},
    {"powr", 2, Intrinsic::not_intrinsic, true},  // vmath-pow.c: pow's code, powr's special cases
    {"fmod", 2, Intrinsic::not_intrinsic, true},  // vmath-f64.c: exact, as fmod is
    {"pown", 2, Intrinsic::not_intrinsic, true, true},  {"rootn", 2, Intrinsic::not_intrinsic, true, true},
};

// One vector variant: lanes, the ISA letter of the vector-function ABI
// (b SSE, d AVX2, e AVX-512) and vmath.c's suffix.
struct Variant {
    unsigned lanes;
    char isa;
    const char *suffix;
};

// The variants a table may call for float (double: half the lanes).
std::vector<Variant> variants(int level, bool dbl)
{
    std::vector<Variant> v;
    unsigned d = dbl ? 2 : 1;
    if (level == 0)
        v.push_back({4 / d, 'b', "sse2"});
    if (level >= 3) {
        v.push_back({4 / d, 'd', "avx2"});
        v.push_back({8 / d, 'd', "avx2"});
    }
    if (level >= 4)
        v.push_back({16 / d, 'e', "avx512"});
    return v;
}

// The math function F computes, or null: an intrinsic of the list or a
// builtin of it (demangled; native_ and half_ ones too), float or double
// (scalar or vector), every argument of the result's type (pown, rootn:
// the second an int of as many lanes).
const MathFn *mathOf(const Function *F)
{
    if (!F || !F->isDeclaration())
        return nullptr;
    Type *rt = F->getReturnType();
    Type *et = rt->getScalarType();
    if (!et->isFloatTy() && !et->isDoubleTy())
        return nullptr;
    if (rt->isVectorTy() && !isa<FixedVectorType>(rt))
        return nullptr;
    if (F->isVarArg())
        return nullptr;
    // the second argument: the result's type, or int lanes (pown, rootn)
    bool intArg = false;
    for (unsigned i = 0; i < F->arg_size(); i++) {
        Type *a = F->getFunctionType()->getParamType(i);
        if (a == rt)
            continue;
        Type *want = Type::getInt32Ty(F->getContext());
        if (auto *v = dyn_cast<FixedVectorType>(rt))
            want = FixedVectorType::get(want, v->getNumElements());
        if (i != 1 || a != want)
            return nullptr;
        intArg = true;
    }
    std::string base = F->isIntrinsic() ? "" : demangledBase(F->getName());
    if (!F->isIntrinsic()) {  // the mangled parameters must say these types (float2 goes as a double)
        std::string t = et->isFloatTy() ? "f" : "d", ti = "i";
        if (auto *v = dyn_cast<FixedVectorType>(rt)) {
            t = "Dv" + std::to_string(v->getNumElements()) + "_" + t;
            ti = "Dv" + std::to_string(v->getNumElements()) + "_i";
        }
        std::string want = "_Z" + std::to_string(base.size()) + base + t;
        if (F->arg_size() == 2)
            want += intArg ? ti : rt->isVectorTy() ? "S_" : t;
        if (F->getName() != want)
            return nullptr;
        // native_exp, half_sin, ... (float only; their accuracy is the
        // implementation's, or 8192 ulp): the full-precision function.
        for (const char *pre : {"native_", "half_"})
            if (base.rfind(pre, 0) == 0 && et->isFloatTy())
                base = base.substr(strlen(pre));
    }
    for (const MathFn &m : FUNCS) {
        if (m.nargs != F->arg_size() || (m.floatOnly && !et->isFloatTy()) || m.intArg != intArg)
            continue;
        if (F->isIntrinsic() ? F->getIntrinsicID() == m.id && m.id != Intrinsic::not_intrinsic : base == m.name)
            return &m;
    }
    return nullptr;
}

Function *declareVariant(Module &M, const MathFn &m, bool dbl, const Variant &v)
{
    std::string name = std::string("__sx_vm_") + m.name + "_" + (dbl ? "d" : "f") + std::to_string(v.lanes) + "_" +
                       v.suffix;
    Type *et = dbl ? Type::getDoubleTy(M.getContext()) : Type::getFloatTy(M.getContext());
    auto *vt = FixedVectorType::get(et, v.lanes);
    std::vector<Type *> params(m.nargs, vt);
    if (m.intArg)
        params[1] = FixedVectorType::get(Type::getInt32Ty(M.getContext()), v.lanes);
    FunctionCallee fc = M.getOrInsertFunction(name, FunctionType::get(vt, params, false));
    auto *F = cast<Function>(fc.getCallee());
    F->setDoesNotAccessMemory();
    F->setDoesNotThrow();
    F->setWillReturn();
    return F;
}

// A scalar call: the attribute naming its variants in this table's ISA.
void addVariants(CallInst *CI, const MathFn &m, int level, std::vector<GlobalValue *> &used)
{
    Module &M = *CI->getModule();
    bool dbl = CI->getType()->isDoubleTy();
    std::string list;
    for (const Variant &v : variants(level, dbl)) {
        Function *V = declareVariant(M, m, dbl, v);
        used.push_back(V);
        if (!list.empty())
            list += ",";
        list += std::string("_ZGV") + v.isa + "N" + std::to_string(v.lanes) + std::string(m.nargs, 'v') + "_" +
                CI->getCalledFunction()->getName().str() + "(" + V->getName().str() + ")";
    }
    CI->addFnAttr(Attribute::get(CI->getContext(), "vector-function-abi-variant", list));
}

// A call on a vector of n lanes: the variant of the smallest width that
// holds n, else of the largest in pieces; lanes past n are padding.
void splitVectorCall(CallInst *CI, const MathFn &m, int level)
{
    auto *vt = cast<FixedVectorType>(CI->getType());
    unsigned n = vt->getNumElements();
    bool dbl = vt->getElementType()->isDoubleTy();
    std::vector<Variant> vs = variants(level, dbl);
    const Variant *pick = nullptr;
    for (const Variant &v : vs)
        if (v.lanes >= n && (!pick || v.lanes < pick->lanes))
            pick = &v;
    if (!pick)
        for (const Variant &v : vs)
            if (!pick || v.lanes > pick->lanes)
                pick = &v;
    unsigned w = pick->lanes, pieces = (n + w - 1) / w;
    if (pieces & (pieces - 1))
        return;  // no such OpenCL width (n is 2, 3, 4, 8 or 16)
    Function *V = declareVariant(*CI->getModule(), m, dbl, *pick);
    IRBuilder<> B(CI);
    std::vector<Value *> parts;
    for (unsigned p = 0; p < pieces; p++) {
        std::vector<Value *> args;
        for (Value *a : CI->args()) {
            SmallVector<int, 16> mask;
            for (unsigned i = 0; i < w; i++)
                mask.push_back(p * w + i < n ? (int)(p * w + i) : -1);
            args.push_back(B.CreateShuffleVector(a, PoisonValue::get(a->getType()), mask));
        }
        CallInst *c = B.CreateCall(V, args);
        c->copyFastMathFlags(CI);
        parts.push_back(c);
    }
    while (parts.size() > 1) {  // concatenate pairwise
        std::vector<Value *> next;
        for (size_t i = 0; i < parts.size(); i += 2) {
            unsigned k = cast<FixedVectorType>(parts[i]->getType())->getNumElements();
            SmallVector<int, 32> mask;
            for (unsigned j = 0; j < 2 * k; j++)
                mask.push_back((int)j);
            next.push_back(B.CreateShuffleVector(parts[i], parts[i + 1], mask));
        }
        parts.swap(next);
    }
    Value *r = parts[0];
    if (cast<FixedVectorType>(r->getType())->getNumElements() != n) {
        SmallVector<int, 16> mask;
        for (unsigned i = 0; i < n; i++)
            mask.push_back((int)i);
        r = B.CreateShuffleVector(r, PoisonValue::get(r->getType()), mask);
    }
    CI->replaceAllUsesWith(r);
    CI->eraseFromParent();
}

// ldexp(c, k) with c a positive power of two is 2^(k + log2 c): what LLVM's
// instcombine makes of pow(2, (float)k) (through exp2). libm's ldexp is a
// call per work-item that stops the loop vectoriser; the exact power of two
// from the exponent bits (a subnormal, zero or infinity at the ends) is
// integer arithmetic it widens. Other ldexp calls become readnone, so a
// uniform one leaves the work-item loop.
bool isLdexp(const Function *F, bool &dbl)
{
    if (!F || !F->isDeclaration() || F->arg_size() != 2 || !F->getFunctionType()->getParamType(1)->isIntegerTy(32))
        return false;
    StringRef n = F->getName();
    dbl = n == "ldexp" || n == "scalbn";
    return (dbl && F->getReturnType()->isDoubleTy()) ||
           ((n == "ldexpf" || n == "scalbnf") && F->getReturnType()->isFloatTy());
}

unsigned lowerLdexp(Function &F)
{
    std::vector<CallInst *> calls;
    for (Instruction &I : instructions(F))
        if (auto *CI = dyn_cast<CallInst>(&I)) {
            bool dbl;
            if (isLdexp(CI->getCalledFunction(), dbl))
                calls.push_back(CI);
        }
    unsigned n = 0;
    for (CallInst *CI : calls) {
        bool dbl = false;
        Function *G = CI->getCalledFunction();
        isLdexp(G, dbl);
        G->setDoesNotAccessMemory();
        G->setDoesNotThrow();
        G->setWillReturn();
        auto *c = dyn_cast<ConstantFP>(CI->getArgOperand(0));
        if (!c || c->isNegative() || !c->getValueAPF().isFiniteNonZero())
            continue;
        int m = 0;
        if (std::frexp(c->getValueAPF().convertToDouble(), &m) != 0.5)
            continue;
        m -= 1;  // c = 0.5 * 2^m
        // float: bias 127, 23 fraction bits, subnormals down to 2^-149;
        // double: 1023, 52, 2^-1074.
        int bias = dbl ? 1023 : 127, frac = dbl ? 52 : 23, lo = -(bias - 1) - frac;
        IRBuilder<> B(CI);
        Type *i32 = B.getInt32Ty();
        Type *it = dbl ? B.getInt64Ty() : i32;
        Value *k = CI->getArgOperand(1);
        k = B.CreateBinaryIntrinsic(Intrinsic::smax, k, ConstantInt::get(i32, -4000));
        k = B.CreateBinaryIntrinsic(Intrinsic::smin, k, ConstantInt::get(i32, 4000));
        Value *e = B.CreateAdd(k, ConstantInt::get(i32, m), "p2.e");
        Value *normal = B.CreateShl(B.CreateZExt(B.CreateAdd(e, ConstantInt::get(i32, bias)), it),
                                    ConstantInt::get(it, frac));
        Value *subShift = B.CreateZExt(B.CreateAdd(e, ConstantInt::get(i32, -lo)), it);
        Value *sub = B.CreateShl(ConstantInt::get(it, 1), subShift);
        Value *inf = ConstantInt::get(it, (uint64_t)(2 * bias + 1) << frac);
        Value *bits = B.CreateSelect(B.CreateICmpSGE(e, ConstantInt::get(i32, 1 - bias)), normal,
                                     B.CreateSelect(B.CreateICmpSGE(e, ConstantInt::get(i32, lo)), sub,
                                                    ConstantInt::get(it, 0)));
        bits = B.CreateSelect(B.CreateICmpSGT(e, ConstantInt::get(i32, bias)), inf, bits);
        Value *r = B.CreateBitCast(bits, CI->getType(), "p2");
        CI->replaceAllUsesWith(r);
        CI->eraseFromParent();
        n++;
    }
    return n;
}

}  // namespace

bool isVectorMathBuiltin(const Function &F)
{
    const MathFn *m = mathOf(&F);
    return m && !F.isIntrinsic() && F.getReturnType()->isVectorTy();
}

bool callsVectorMath(const Function &K)
{
    for (const BasicBlock &BB : K)
        for (const Instruction &I : BB)
            if (auto *CB = dyn_cast<CallBase>(&I))
                if (mathOf(CB->getCalledFunction()))
                    return true;
    return false;
}

unsigned vectorMath(Function &F, int level)
{
    lowerLdexp(F);
    std::vector<GlobalValue *> used;
    std::vector<std::pair<CallInst *, const MathFn *>> calls;
    for (Instruction &I : instructions(F))
        if (auto *CI = dyn_cast<CallInst>(&I))
            if (const MathFn *m = mathOf(CI->getCalledFunction()))
                calls.push_back({CI, m});
    for (auto &c : calls) {
        if (c.first->getType()->isVectorTy())
            splitVectorCall(c.first, *c.second, level);
        else
            addVariants(c.first, *c.second, level, used);
    }
    // The loop vectoriser finds a variant by name in the module: keep the
    // declarations until clang -O3 has run it.
    if (!used.empty())
        appendToCompilerUsed(*F.getParent(), used);
    return (unsigned)calls.size();
}

}  // namespace wgc
