/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// spir-opt.cpp: sx-spir-opt, the producer step between clang and llvm-spirv
// that keeps what llvm-spirv 14 and 15 cannot translate out of optimised
// SPIR bitcode (doc/producer.md):
//
//     clang-14 -target spir64 -cl-std=CL2.0 -O1 -Xclang -disable-llvm-passes -c -emit-llvm k.cl -o k.bc
//     sx-spir-opt [-O1|-O2|-O3] k.bc -o k.opt.bc
//     llvm-spirv-14 k.opt.bc -o k.spv
//
// It runs LLVM's default pipeline at the level asked (clang's -O1 runs the
// same one) with the SPIR data layout told that 8, 16, 32 and 64-bit
// integers are native, so InstCombine does not narrow a switch on a small
// loop counter to i31 (llvm-spirv: "InvalidBitWidth: Invalid bit width in
// input: 31"); then it drops every `freeze` (DivRemPairs writes them around
// x / d and x % d by one divisor; llvm-spirv: "Can't translate llvm
// instruction: freeze"): SPIR-V has no poison, so the value itself is what
// a freeze of it means there. The data layout is restored afterwards.
// An integer of another width left anywhere is reported with the function
// it is in (exit 1), never written.
#include <cstdio>
#include <cstring>
#include <string>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>

#include "passes.h"
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

using namespace llvm;

static const char usage[] = "usage: sx-spir-opt [-O0|-O1|-O2|-O3] IN.bc -o OUT.bc";

static int fail(const std::string &msg)
{
    fprintf(stderr, "sx-spir-opt: error: %s\n", msg.c_str());
    return 1;
}

static bool oddInt(Type *T)
{
    if (auto *V = dyn_cast<VectorType>(T))
        T = V->getElementType();
    if (!T->isIntegerTy())
        return false;
    unsigned w = T->getIntegerBitWidth();
    return w != 1 && w != 8 && w != 16 && w != 32 && w != 64;
}

int main(int argc, char **argv)
{
    const char *in = nullptr, *out = nullptr;
    OptimizationLevel level = OptimizationLevel::O1;
    bool optimise = true;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "-O0"))
            optimise = false;
        else if (!strcmp(argv[i], "-O1"))
            level = OptimizationLevel::O1, optimise = true;
        else if (!strcmp(argv[i], "-O2"))
            level = OptimizationLevel::O2, optimise = true;
        else if (!strcmp(argv[i], "-O3"))
            level = OptimizationLevel::O3, optimise = true;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("%s\n", usage);
            return 0;
        } else if (argv[i][0] != '-' && !in)
            in = argv[i];
        else
            return fail(std::string(usage) + " (at '" + argv[i] + "')");
    }
    if (!in || !out)
        return fail(usage);
    LLVMContext C;
    auto buf = MemoryBuffer::getFile(in);
    if (!buf)
        return fail(std::string(in) + ": " + buf.getError().message());
    Expected<std::unique_ptr<Module>> mod = parseBitcodeFile((*buf)->getMemBufferRef(), C);
    if (!mod)
        return fail(std::string(in) + ": " + toString(mod.takeError()));
    Module &M = **mod;

    if (optimise) {
        std::string layout = M.getDataLayoutStr();
        bool hasNative = layout.find("-n") != std::string::npos || layout.rfind("n", 0) == 0;
        if (!hasNative)
            M.setDataLayout(layout + (layout.empty() ? "" : "-") + "n8:16:32:64");
        wgc::Passes P;
        PassBuilder &PB = P.PB;
        ModulePassManager MPM = PB.buildPerModuleDefaultPipeline(level);
        MPM.run(M, P.MAM);
        M.setDataLayout(layout);
    }

    // C++: a vtable of a class with a pure virtual function holds
    // __cxa_pure_virtual, which no device library defines; define it here
    // (it returns: calling a pure virtual function is undefined behaviour,
    // and a device has no abort).
    for (const char *name : {"__cxa_pure_virtual", "__cxa_deleted_virtual"})
        if (Function *pv = M.getFunction(name))
            if (pv->isDeclaration() && pv->getFunctionType()->getReturnType()->isVoidTy() && pv->arg_empty()) {
                pv->setLinkage(GlobalValue::InternalLinkage);
                ReturnInst::Create(C, BasicBlock::Create(C, "", pv));
            }

    unsigned frozen = 0;
    for (Function &F : M) {
        std::vector<FreezeInst *> fr;
        for (Instruction &I : instructions(F))
            if (auto *Z = dyn_cast<FreezeInst>(&I))
                fr.push_back(Z);
        for (FreezeInst *Z : fr) {
            Z->replaceAllUsesWith(Z->getOperand(0));
            Z->eraseFromParent();
            frozen++;
        }
    }
    for (Function &F : M)
        for (Instruction &I : instructions(F)) {
            Type *bad = oddInt(I.getType()) ? I.getType() : nullptr;
            for (Value *op : I.operands())
                if (!bad && oddInt(op->getType()))
                    bad = op->getType();
            if (bad) {
                std::string t;
                raw_string_ostream ts(t);
                bad->print(ts);
                return fail(std::string(in) + ": function '" + F.getName().str() + "' computes with " + ts.str() +
                            ", which llvm-spirv cannot translate; use -O0 for this source or report it");
            }
        }
    std::string verr;
    raw_string_ostream vs(verr);
    if (verifyModule(M, &vs))
        return fail(std::string(in) + ": the optimised module does not verify: " + vs.str());
    std::error_code ec;
    raw_fd_ostream os(out, ec, sys::fs::OF_None);
    if (ec)
        return fail(std::string(out) + ": " + ec.message());
    WriteBitcodeToFile(M, os);
    os.close();
    if (os.has_error())
        return fail(std::string(out) + ": write failed");
    (void)frozen;
    return 0;
}
