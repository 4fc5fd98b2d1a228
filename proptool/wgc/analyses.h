/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// analyses.h: what sx-wgc's passes over a kernel's loops share
// (addImplicitLoopBarriers, uniformizeLoops, promoteStores): dominator
// trees, loops, divergence with the blocks divergent branches reach, and
// scalar evolution, built once per pass in the order they depend on.
#ifndef SX_WGC_ANALYSES_H
#define SX_WGC_ANALYSES_H

#include "wgc.h"

#include <memory>
#include <set>

#include <llvm/ADT/PostOrderIterator.h>
#include <llvm/ADT/Triple.h>
#include <llvm/Analysis/AssumptionCache.h>
#include <llvm/Analysis/CFG.h>
#include <llvm/Analysis/DivergenceAnalysis.h>
#include <llvm/Analysis/LoopInfo.h>
#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ScalarEvolution.h>
#include <llvm/Analysis/SyncDependenceAnalysis.h>
#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/IR/Dominators.h>

namespace wgc {

// `ok` is false where such a pass has nothing to do: no loops, irreducible
// control flow, or a divergent terminator divergentReach cannot follow;
// the analyses past that point are then not built.
struct KernelAnalyses {
    llvm::DominatorTree DT;
    llvm::PostDominatorTree PDT;
    llvm::LoopInfo LI;
    std::unique_ptr<llvm::SyncDependenceAnalysis> SDA;
    std::unique_ptr<llvm::DivergenceAnalysisImpl> DA;
    std::set<llvm::BasicBlock *> reach;  // blocks some work-items may skip or repeat
    std::unique_ptr<llvm::TargetLibraryInfoImpl> TLII;
    std::unique_ptr<llvm::TargetLibraryInfo> TLI;
    std::unique_ptr<llvm::AssumptionCache> AC;
    std::unique_ptr<llvm::ScalarEvolution> SE;
    bool ok = false;

    explicit KernelAnalyses(llvm::Function &K) : DT(K), PDT(K), LI(DT)
    {
        if (LI.empty())
            return;
        llvm::ReversePostOrderTraversal<llvm::Function *> RPOT(&K);
        if (llvm::containsIrreducibleCFG<const llvm::BasicBlock *>(RPOT, LI))
            return;
        SDA = std::make_unique<llvm::SyncDependenceAnalysis>(DT, PDT, LI);
        DA = std::make_unique<llvm::DivergenceAnalysisImpl>(K, nullptr, DT, LI, *SDA, false);
        markDivergenceSources(K, *DA);
        DA->compute();
        if (!divergentReach(K, *DA, PDT, reach))
            return;
        TLII = std::make_unique<llvm::TargetLibraryInfoImpl>(llvm::Triple(K.getParent()->getTargetTriple()));
        TLI = std::make_unique<llvm::TargetLibraryInfo>(*TLII);
        AC = std::make_unique<llvm::AssumptionCache>(K);
        SE = std::make_unique<llvm::ScalarEvolution>(K, *TLI, *AC, DT, LI);
        ok = true;
    }
};

}  // namespace wgc

#endif
