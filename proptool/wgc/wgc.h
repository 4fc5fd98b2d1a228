/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// wgc.h: sx-wgc, the work-group compiler behind proptool's native variant.
// It turns LLVM IR translated from SPIR-V (llvm-spirv -r) into host IR
// whose kernels are work-group functions per adapters/native/wg.h
// (contract ABI 1): one call runs every work-item of a group.
#ifndef SX_WGC_H
#define SX_WGC_H

#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace wgc {

// Layout of the contract's structures on x86-64 (wg.h, wi.h).
enum : unsigned {
    CTX_GEO = 0, CTX_GROUP_ID = 8, CTX_ARGS = 32, CTX_LOCAL_MEM = 40, CTX_PRIVATE_MEM = 48, CTX_LOCAL_ID = 56,
    GEO_WORK_DIM = 0, GEO_GLOBAL_SIZE = 8, GEO_LOCAL_SIZE = 32, GEO_NUM_GROUPS = 56, GEO_GLOBAL_OFFSET = 80,
};
constexpr unsigned WG_ABI = 1;
constexpr unsigned WG_FLAG_FIBER = 1u << 0, WG_FLAG_BARRIER = 1u << 1;
constexpr unsigned REGION_EXIT = 0xffffffffu;

// The per-work-item environment a region function receives: the
// geometry (loaded once per group by the work-group function) and the
// work-item's local id. Argument order of every region function.
enum EnvArg : unsigned {
    ENV_REGION, ENV_LX, ENV_LY, ENV_LZ,
    ENV_LSIZE0, ENV_LSIZE1, ENV_LSIZE2,
    ENV_GSIZE0, ENV_GSIZE1, ENV_GSIZE2,
    ENV_NGROUPS0, ENV_NGROUPS1, ENV_NGROUPS2,
    ENV_GOFF0, ENV_GOFF1, ENV_GOFF2,
    ENV_GROUP0, ENV_GROUP1, ENV_GROUP2,
    ENV_WORK_DIM, ENV_PRIV, ENV_LOCAL,
    ENV_COUNT
};

struct KernelResult {
    std::string name;
    llvm::Function *wg = nullptr;   // the sxn_wg_fn
    llvm::Function *wg_v3 = nullptr;  // the same for x86-64-v3 (or null)
    llvm::Function *wg_v4 = nullptr;  // the same for x86-64-v4, AVX-512 (or null)
    unsigned implicit_barriers = 0; // vectorize.cpp: barriers added at uniform loops
    uint64_t local_bytes = 0, private_bytes = 0;
    uint64_t uniform_bytes = 0;     // private_mem's uniform values (regions.cpp)
    unsigned flags = 0, barriers = 0;
    std::string fallback;           // why SXN_WG_FIBER, empty otherwise
};

// prepare.cpp: retarget to x86-64, C calling convention, math builtins as
// intrinsics, fences dropped, imports through slots, everything inlined.
bool prepare(llvm::Module &M, const std::vector<std::string> &imports, std::string &err);
// Runs an LLVM pass pipeline given as text (opt -passes syntax).
bool runPipeline(llvm::Module &M, const char *pipeline, std::string &err);
// Is this a call the region compiler resolves (work-item query) or splits at (barrier)?
bool isBarrier(const llvm::Function *F);
// Calls a builtin with a vector passed in memory (x86-64-v3 would change that ABI).
bool usesVectorMemoryAbi(const llvm::Function &F);
bool isQuery(const llvm::Function *F);
// Why the kernel cannot be compiled into regions ("" when it can).
std::string fallbackReason(llvm::Function &K, const std::vector<std::string> &imports);

// locals.cpp: kernel-scope __local variables (addrspace(3) globals) used by K.
struct LocalLayout {
    std::vector<std::pair<llvm::GlobalVariable *, uint64_t>> vars;  // variable, offset
    uint64_t bytes = 0;
};
LocalLayout layoutLocals(llvm::Function &K);
// Rewrites every use of the layout's variables inside F as base + offset.
void replaceLocals(llvm::Function &F, const LocalLayout &L, llvm::Value *base);
// Makes the instructions of F use no constant expression built on G.
void expandConstantUses(llvm::GlobalValue *G);

// regions.cpp: the region function of a kernel (see regions.cpp).
llvm::Function *buildRegions(llvm::Function &K, const LocalLayout &L, KernelResult &res, std::string &err);

// workgroup.cpp: the work-group functions and the tables.
llvm::Function *buildWorkGroup(llvm::Function &K, llvm::Function &R, KernelResult &res);
llvm::Function *buildFiberEntry(llvm::Function &K, const LocalLayout &L, KernelResult &res);
llvm::Function *cloneForV3(llvm::Function &W);
llvm::Function *cloneForV4(llvm::Function &W);
void emitTables(llvm::Module &M, const std::vector<KernelResult> &ks, const std::vector<std::string> &imports);
llvm::Value *loadArg(llvm::IRBuilder<> &B, llvm::Value *ctx, llvm::Argument &A);

// atomics.cpp: integer atomic builtins as atomicrmw/cmpxchg; how many calls.
unsigned inlineAtomics(llvm::Module &M);

// vectorize.cpp: work-items in SIMD lanes (see vectorize.cpp).
// Where a divergent branch guards loops (if (gid < n) { for ... }), a copy
// of what it guards for groups whose every work-item passes the test (a
// uniform branch before it); how many.
unsigned specializeGuards(llvm::Function &K);
// Barriers at the headers of K's loops that every work-item runs alike; how many.
unsigned addImplicitLoopBarriers(llvm::Function &K);
// Marks W's x work-item loops parallel (llvm.loop.parallel_accesses), not
// interleaved, with the remainder as masked lanes when `masked`; how many.
unsigned markParallelLoops(llvm::Function &W, bool masked);

}  // namespace wgc

#endif
