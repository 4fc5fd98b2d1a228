/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// passes.h: a PassBuilder with its four analysis managers registered and
// cross-wired, what sx-wgc's and sx-spir-opt's pass pipelines run with.
#ifndef SX_WGC_PASSES_H
#define SX_WGC_PASSES_H

#include <llvm/Passes/PassBuilder.h>

namespace wgc {

struct Passes {
    llvm::LoopAnalysisManager LAM;
    llvm::FunctionAnalysisManager FAM;
    llvm::CGSCCAnalysisManager CGAM;
    llvm::ModuleAnalysisManager MAM;
    llvm::PassBuilder PB;

    Passes()
    {
        PB.registerModuleAnalyses(MAM);
        PB.registerCGSCCAnalyses(CGAM);
        PB.registerFunctionAnalyses(FAM);
        PB.registerLoopAnalyses(LAM);
        PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    }
};

}  // namespace wgc

#endif
