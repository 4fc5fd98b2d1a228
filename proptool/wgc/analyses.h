/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// analyses.h: the analyses sx-wgc's passes share: dominator trees, loops
// and divergence (Divergence), and for the passes over a kernel's loops
// the blocks divergent branches reach and scalar evolution
// (KernelAnalyses), built once per pass in the order they depend on.
#ifndef SX_WGC_ANALYSES_H
#define SX_WGC_ANALYSES_H

#include "wgc.h"

#include <functional>
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

// Dominator trees, loops and LLVM's divergence analysis of F, seeded by
// the caller (a kernel's work-item queries, a region function's local
// ids, memory reads): what every pass that asks "do the work-items of a
// group differ here?" builds first.
struct Divergence {
    llvm::DominatorTree DT;
    llvm::PostDominatorTree PDT;
    llvm::LoopInfo LI;
    std::unique_ptr<llvm::SyncDependenceAnalysis> SDA;
    std::unique_ptr<llvm::DivergenceAnalysisImpl> DA;

    explicit Divergence(llvm::Function &F) : DT(F), PDT(F), LI(DT) {}
    // The divergence from what `seed` marks; false (and no DA) where F's
    // control flow is irreducible, which the analysis cannot follow.
    bool compute(llvm::Function &F, const std::function<void(llvm::DivergenceAnalysisImpl &)> &seed)
    {
        llvm::ReversePostOrderTraversal<llvm::Function *> RPOT(&F);
        if (llvm::containsIrreducibleCFG<const llvm::BasicBlock *>(RPOT, LI))
            return false;
        SDA = std::make_unique<llvm::SyncDependenceAnalysis>(DT, PDT, LI);
        DA = std::make_unique<llvm::DivergenceAnalysisImpl>(F, nullptr, DT, LI, *SDA, false);
        seed(*DA);
        DA->compute();
        return true;
    }
};

// What sx-wgc's passes over a kernel's loops share (addImplicitLoopBarriers,
// uniformizeLoops, promoteStores): the divergence from the work-item
// queries with the blocks divergent branches reach, and scalar evolution.
// `ok` is false where such a pass has nothing to do: no loops, irreducible
// control flow, or a divergent terminator divergentReach cannot follow;
// the analyses past that point are then not built.
struct KernelAnalyses : Divergence {
    std::set<llvm::BasicBlock *> reach;  // blocks some work-items may skip or repeat
    std::unique_ptr<llvm::TargetLibraryInfoImpl> TLII;
    std::unique_ptr<llvm::TargetLibraryInfo> TLI;
    std::unique_ptr<llvm::AssumptionCache> AC;
    std::unique_ptr<llvm::ScalarEvolution> SE;
    bool ok = false;

    explicit KernelAnalyses(llvm::Function &K) : Divergence(K)
    {
        if (LI.empty() || !compute(K, [&](llvm::DivergenceAnalysisImpl &D) { markDivergenceSources(K, D); }) ||
            !divergentReach(K, *DA, PDT, reach))
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
