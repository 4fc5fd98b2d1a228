/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// main.cpp: sx-wgc's command line (run by proptool, see proptool(1)):
//     sx-wgc [--import NAME]... [--report FILE] [--no-x86-64-v3] [--no-x86-64-v4]
//            [--no-implicit-barriers] [--no-vector-math] [--no-scalarize]
//            [--uniformize-loops | --no-uniformize-loops] -o OUT.bc IN.bc
// --no-scalarize keeps vector values whole (scalarize.cpp; for measuring).
// Loops starting at the work-item id are made uniform with predicated
// bodies (uniformize.cpp) where that pays (the default), every one
// (--uniformize-loops: for the tests and for measuring) or none
// (--no-uniformize-loops).
// IN.bc: `llvm-spirv -r` of the SPIR-V proptool wrote. OUT.bc: host IR
// with the work-group functions and tables, for `clang -O3 -shared`.
// The report has one line per kernel:
//     NAME <TAB> flags <TAB> local_bytes <TAB> private_bytes <TAB> barriers <TAB> fallback reason
#include "wgc.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>

#include <llvm/IR/InstIterator.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

using namespace llvm;

static int fail(const std::string &msg)
{
    fprintf(stderr, "sx-wgc: error: %s\n", msg.c_str());
    return 1;
}

// The regions of K with implicit barriers at its uniform loops and short
// constant loops unrolled (vectorize.cpp), or null (the regions would keep
// more than 4 KiB per work-item across barriers: res is then left as it was).
static Function *withImplicitBarriers(Function &K, const wgc::LocalLayout &L, wgc::KernelResult &res, int uniformize)
{
    ValueToValueMapTy VM;
    Function *K2 = CloneFunction(&K, VM);
    wgc::KernelResult r = res;
    Function *R = nullptr;
    std::string err;
    wgc::specializeGuards(*K2);
    if (uniformize)
        wgc::uniformizeLoops(*K2, uniformize > 1);
    wgc::promoteStores(*K2);
    unsigned n = wgc::addImplicitLoopBarriers(*K2);
    R = wgc::buildRegions(*K2, L, r, err);
    if (R && n && r.private_bytes > 4096) {
        R->eraseFromParent();
        R = nullptr;
    }
    K2->eraseFromParent();
    if (R) {
        r.implicit_barriers = n;
        res = r;
    }
    return R;
}

int main(int argc, char **argv)
{
    std::vector<std::string> imports;
    const char *in = nullptr, *out = nullptr, *report = nullptr;
    bool v3 = true, v4 = true, implicit = true, vmath = true, scalarize = true;
    int uniformize = 1;  // 0 none, 1 where it pays, 2 all
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--import") && i + 1 < argc)
            imports.push_back(argv[++i]);
        else if (!strcmp(argv[i], "--report") && i + 1 < argc)
            report = argv[++i];
        else if (!strcmp(argv[i], "--no-x86-64-v3"))
            v3 = false;
        else if (!strcmp(argv[i], "--no-x86-64-v4"))
            v4 = false;
        else if (!strcmp(argv[i], "--no-implicit-barriers"))
            implicit = false;
        else if (!strcmp(argv[i], "--no-vector-math"))  // libm per lane, as before issue 28 (comparisons)
            vmath = false;
        else if (!strcmp(argv[i], "--no-scalarize"))  // vector values kept whole (comparisons)
            scalarize = false;
        else if (!strcmp(argv[i], "--uniformize-loops"))
            uniformize = 2;
        else if (!strcmp(argv[i], "--no-uniformize-loops"))
            uniformize = 0;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] != '-' && !in)
            in = argv[i];
        else
            return fail(std::string("usage: sx-wgc [--import NAME]... [--report FILE] [--no-x86-64-v3] [--no-x86-64-v4] "
                        "[--no-implicit-barriers] [--no-vector-math] [--no-scalarize] [--uniformize-loops | --no-uniformize-loops] -o OUT.bc IN.bc (at '") +
                        argv[i] + "')");
    }
    if (!in || !out)
        return fail("usage: sx-wgc [--import NAME]... [--report FILE] [--no-x86-64-v3] [--no-x86-64-v4] "
                    "[--no-implicit-barriers] [--no-vector-math] [--no-scalarize] [--uniformize-loops | --no-uniformize-loops] -o OUT.bc IN.bc");
    LLVMContext C;
    auto buf = MemoryBuffer::getFile(in);
    if (!buf)
        return fail(std::string(in) + ": " + buf.getError().message());
    Expected<std::unique_ptr<Module>> mod = parseBitcodeFile((*buf)->getMemBufferRef(), C);
    if (!mod)
        return fail(std::string(in) + ": " + toString(mod.takeError()));
    Module &M = **mod;

    std::vector<Function *> kernels;
    for (Function &F : M)
        if (!F.isDeclaration() && F.getCallingConv() == CallingConv::SPIR_KERNEL)
            kernels.push_back(&F);
    std::string err;
    wgc::vectorMathEnabled = vmath;
    if (!wgc::prepare(M, imports, err))
        return fail(err);
    wgc::inlineAtomics(M);

    std::vector<wgc::KernelResult> results;
    for (Function *K : kernels) {
        wgc::KernelResult r;
        r.name = K->getName().str();
        wgc::LocalLayout L = wgc::layoutLocals(*K);
        r.local_bytes = L.bytes;
        r.fallback = wgc::fallbackReason(*K, imports);
        Function *R = nullptr;
        if (r.fallback.empty()) {
            // where vector math pays for it (scalarize.cpp), before region
            // formation: what crosses a barrier is kept lane by lane
            if (scalarize && vmath && wgc::callsVectorMath(*K))
                wgc::scalarizeVectors(*K);
            if (implicit)  // vectorize.cpp: on a copy, kept when the regions come out
                R = withImplicitBarriers(*K, L, r, uniformize);
            if (!R)
                R = wgc::buildRegions(*K, L, r, err);
            if (!R && r.fallback.empty())
                return fail(r.name + ": " + err);
        }
        if (R) {
            // groups.cpp: collectives under branches that only look
            // divergent: a copy for the groups whose work-items take them
            // alike, compiled the usual way
            std::vector<Value *> conds;
            bool full = false;
            Function *Ku = r.divergent ? wgc::uniformCopy(*K, conds, full) : nullptr, *Ru = nullptr, *T = nullptr;
            wgc::KernelResult ru;
            if (Ku) {
                ru.name = r.name;
                ru.local_bytes = r.local_bytes;
                if (implicit)
                    Ru = withImplicitBarriers(*Ku, L, ru, uniformize);
                if (!Ru)
                    Ru = wgc::buildRegions(*Ku, L, ru, err);
                if (Ru && (ru.divergent || !ru.fallback.empty())) {
                    Ru->eraseFromParent();
                    Ru = nullptr;
                }
                if (Ru) {
                    T = wgc::branchTest(*K, *R, conds);
                    ru.fullSubGroups |= full;
                }
            }
            r.wg = wgc::buildWorkGroup(*K, *R, r, Ru, Ru ? &ru : nullptr, T);
            for (Function *F : {Ru, T, Ku})
                if (F)
                    F->eraseFromParent();
            R->eraseFromParent();
            if (r.barriers == r.implicit_barriers)  // the flag tells of the kernel's own barriers
                r.flags &= ~wgc::WG_FLAG_BARRIER;
        } else {  // fibers: r.fallback says why
            r.barriers = 0;
            r.implicit_barriers = 0;
            r.steps.clear();
            r.fullSubGroups = false;
            r.divergent = false;
            for (Instruction &I : instructions(*K))
                if (auto *CB = dyn_cast<CallBase>(&I))
                    r.barriers += wgc::isBarrier(CB->getCalledFunction());
            r.wg = wgc::buildFiberEntry(*K, L, r);
        }
        if (v3)  // vectors over 16 bytes would go in YMM registers there: baseline for those
            r.wg_v3 = wgc::usesVectorMemoryAbi(*r.wg) ? r.wg : wgc::cloneForV3(*r.wg);
        if (v3 && v4)  // and in ZMM registers on v4
            r.wg_v4 = wgc::usesVectorMemoryAbi(*r.wg) ? r.wg : wgc::cloneForV4(*r.wg);
        if (r.fallback.empty()) {  // masked lanes on AVX-512 only (AVX2's masked stores are slow on AMD)
            wgc::markParallelLoops(*r.wg, false);
            if (r.wg_v3 && r.wg_v3 != r.wg)
                wgc::markParallelLoops(*r.wg_v3, false);
            if (r.wg_v4 && r.wg_v4 != r.wg)
                wgc::markParallelLoops(*r.wg_v4, true);
        }
        results.push_back(r);
    }
    // The kernels live on in their work-group functions only; a kernel
    // called by an exported function stays.
    for (Function *K : kernels) {
        K->removeDeadConstantUsers();
        if (K->use_empty())
            K->eraseFromParent();
        else
            K->setCallingConv(CallingConv::C);
    }
    for (GlobalVariable &G : make_early_inc_range(M.globals()))
        if (G.getAddressSpace() == 3) {
            G.removeDeadConstantUsers();
            if (G.use_empty())
                G.eraseFromParent();
        }
    wgc::emitTables(M, results, imports);
    // Drop what the work-group functions replaced and tidy the result (the
    // region copies fold their dispatch on the constant region number).
    if (!wgc::runPipeline(M, "globaldce,function(sccp,simplifycfg,instcombine,simplifycfg)", err))
        return fail(err);
    // Each table's math builtins to its ISA's vector math (after the
    // instcombine above, which may rewrite pow into exp2).
    for (const wgc::KernelResult &r : results) {
        if (!vmath)
            break;
        wgc::vectorMath(*r.wg, 0);
        if (r.wg_v3 && r.wg_v3 != r.wg)
            wgc::vectorMath(*r.wg_v3, 3);
        if (r.wg_v4 && r.wg_v4 != r.wg)
            wgc::vectorMath(*r.wg_v4, 4);
    }
    // Elsewhere (fiber kernels' bodies, kernels kept, recursive functions),
    // which clang may inline into any table's functions: the baseline's.
    if (vmath) {
        std::set<Function *> tables;
        for (const wgc::KernelResult &r : results)
            tables.insert({r.wg, r.wg_v3, r.wg_v4});
        for (Function &F : M)
            if (!F.isDeclaration() && !tables.count(&F))
                wgc::vectorMath(F, 0);
        wgc::lowerBuiltinAbi(M, false);  // none should be left
    }
    std::string msg;
    raw_string_ostream os(msg);
    if (verifyModule(M, &os))
        return fail("internal error: the host module is invalid: " + os.str());

    std::error_code ec;
    raw_fd_ostream o(out, ec, sys::fs::OF_None);
    if (ec)
        return fail(std::string(out) + ": " + ec.message());
    WriteBitcodeToFile(M, o);
    o.close();
    if (o.has_error())
        return fail(std::string(out) + ": write failed");
    if (report) {
        std::ofstream rf(report);
        for (const wgc::KernelResult &r : results)
            rf << r.name << '\t' << r.flags << '\t' << r.local_bytes << '\t' << r.private_bytes << '\t'
               << r.barriers - r.implicit_barriers << '\t'
               << (r.fullSubGroups ? "local size in x a multiple of " + std::to_string(r.subGroupSize)
                   : r.divergent && r.fallback.empty()
                       ? std::string(r.versioned ? "a copy for groups whose work-items branch alike, else " : "") +
                             "collectives in divergent control flow"
                                                       : r.fallback)
               << '\n';
        if (!rf.good())
            return fail(std::string(report) + ": write failed");
    }
    return 0;
}
