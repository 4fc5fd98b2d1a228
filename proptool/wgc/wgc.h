/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// wgc.h: sx-wgc, the work-group compiler behind proptool's native variant.
// It turns LLVM IR translated from SPIR-V (llvm-spirv -r) into host IR
// whose kernels are work-group functions per adapters/native/wg.h
// (contract ABI 1): one call runs every work-item of a group.
#ifndef SX_WGC_H
#define SX_WGC_H

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>

namespace llvm {
class DivergenceAnalysisImpl;
class Loop;
class PostDominatorTree;
class ScalarEvolution;
}  // namespace llvm

namespace wgc {

// Layout of the contract's structures on x86-64 (wg.h, wi.h).
enum : unsigned {
    CTX_GEO = 0, CTX_GROUP_ID = 8, CTX_ARGS = 32, CTX_LOCAL_MEM = 40, CTX_PRIVATE_MEM = 48, CTX_LOCAL_ID = 56,
    GEO_WORK_DIM = 0, GEO_GLOBAL_SIZE = 8, GEO_LOCAL_SIZE = 32, GEO_NUM_GROUPS = 56, GEO_GLOBAL_OFFSET = 80,
};
constexpr unsigned WG_ABI = 1;
constexpr unsigned WG_FLAG_FIBER = 1u << 0, WG_FLAG_BARRIER = 1u << 1, WG_FLAG_FULL_SUB_GROUPS = 1u << 2;
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

// A collective between two regions (groups.cpp): the work-group function
// runs it once for the group after every work-item reached it. Its
// operands and result are per-work-item arrays in private_mem (the slots
// of the allocas a, a2, x, o: region formation places them).
struct GroupStep {
    enum Kind { REDUCE, SCAN_INCL, SCAN_EXCL, BROADCAST, SHUFFLE, SHUFFLE2, BALLOT } kind = REDUCE;
    enum Op { COPY, ADD, MUL, MIN, MAX, AND, OR, XOR } op = COPY;
    enum Num { INT, UINT, FLOAT } num = INT;
    bool subGroup = false;
    bool first = false;                               // broadcast from the first work-item taking part
    llvm::Type *type = nullptr;                       // element of a, a2, o (x is i32)
    llvm::Type *otype = nullptr;                      // of o where it differs (BALLOT: <4 x i32>)
    llvm::AllocaInst *a = nullptr, *a2 = nullptr, *x = nullptr, *o = nullptr;
    uint64_t off[4] = {}, stride[4] = {};             // slot offset per work-group size, element stride: a, a2, x, o
    unsigned region = 0;                              // the region its work-items return to reach it
};

struct KernelResult {
    std::string name;
    llvm::Function *wg = nullptr;   // the sxn_wg_fn
    llvm::Function *wg_v3 = nullptr;  // the same for x86-64-v3 (or null)
    llvm::Function *wg_v4 = nullptr;  // the same for x86-64-v4, AVX-512 (or null)
    unsigned implicit_barriers = 0; // vectorize.cpp: barriers added at uniform loops
    uint64_t local_bytes = 0, private_bytes = 0;
    uint64_t uniform_bytes = 0;     // private_mem's uniform values (regions.cpp)
    uint64_t uniform_used = 0;      // of those, the bytes the values take (8-byte words)
    unsigned flags = 0, barriers = 0;
    std::string fallback;           // why SXN_WG_FIBER, empty otherwise
    unsigned subGroupSize = 0;      // groups.cpp: the sub-group size compiled in
    bool fullSubGroups = false;     // groups.cpp: compiled assuming local size x % subGroupSize == 0
    bool divergent = false;         // groups.cpp: a collective in divergent control flow: regions run per
                                    // work-item state (emitDivergentRegions), no uniform slots
    std::vector<GroupStep> steps;   // groups.cpp: the collectives, by the index __sx_group_step takes
    bool versioned = false;         // divergent, with a copy for the groups whose work-items branch alike
};

// regions.cpp: is I an integer division or remainder that may trap (a
// divisor not a constant other than 0 and -1), so not to be run where the
// original did not run?
bool divisionMayTrap(const llvm::Instruction *I);
// regions.cpp: V recomputed before `before`: the instructions of its
// operand tree for which `inside` holds cloned (once each, by memo, named
// with `suffix`), the rest used as they are.
llvm::Value *cloneTree(llvm::Value *V, llvm::Instruction *before,
                       const std::function<bool(llvm::Instruction *)> &inside,
                       std::map<llvm::Value *, llvm::Value *> &memo, const char *suffix);

// prepare.cpp: retarget to x86-64, C calling convention, math builtins as
// intrinsics, fences dropped, imports through slots, everything inlined.
bool prepare(llvm::Module &M, const std::vector<std::string> &imports, std::string &err);
// Runs an LLVM pass pipeline given as text (opt -passes syntax).
bool runPipeline(llvm::Module &M, const char *pipeline, std::string &err);
// workgroup.cpp: a function pass pipeline (opt -passes syntax) on F alone.
bool runOnFunction(llvm::Function &F, const char *pipeline);
// Is this a call the region compiler resolves (work-item query) or splits at (barrier)?
bool isBarrier(const llvm::Function *F);
// Calls a builtin with a vector passed in memory (x86-64-v3 would change that ABI).
bool usesVectorMemoryAbi(const llvm::Function &F);
bool isQuery(const llvm::Function *F);
// The unmangled name of an Itanium-mangled OpenCL builtin (_Z4sqrtf -> sqrt).
std::string demangledBase(llvm::StringRef n);
// Is it a sub-group or work-group function (not the barrier)?
bool isGroupFunction(const std::string &base);
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

// groups.cpp: sub-group queries, block reads and writes, and collectives
// (sub-group and work-group) in the region function R before region
// formation. False with res.fallback set when the kernel must run on
// fibers; false with err set on an internal error.
constexpr unsigned DEFAULT_SUB_GROUP_SIZE = 16;
bool lowerGroups(llvm::Function &R, KernelResult &res, std::string &err);
bool isGroupStep(const llvm::Function *F);
// Is this (demangled) group function compiled by groups.cpp?
bool groupFunctionHandled(const std::string &base);
// The sub-group size of kernel K: its intel_reqd_sub_group_size, or the default.
unsigned subGroupSize(const llvm::Function &K);
// The work-group function's part: after the region loop that returned
// `next`, the step whose region it is. B is at the block the loops meet in.
// With `state` (res.divergent: an i32 per work-item, the barrier it waits
// at), only the work-items waiting at `next` take part.
void emitGroupSteps(llvm::IRBuilder<> &B, llvm::Function *W, llvm::Value *next, llvm::Value *const lsize[3],
                    llvm::Value *privateMem, const KernelResult &res, llvm::Value *state = nullptr);
// res.divergent: the work-group function's region loop where work-items
// may wait at different barriers (groups.cpp). `region(B, k, lid)` emits
// one work-item's region k and returns where it stops next.
void emitDivergentRegions(llvm::IRBuilder<> &B, llvm::Function *W, llvm::Function &R, llvm::Value *const lsize[3],
                          llvm::Value *privateMem, const KernelResult &res,
                          const std::function<llvm::Value *(llvm::IRBuilder<> &, unsigned, llvm::Value *const[3])> &region);
// regions.cpp: the values every work-item of a group computes alike.
std::set<llvm::Value *> uniformValues(llvm::Function &R);
// regions.cpp: the work-item query `call` (get_global_id, ...) from the
// environment arguments of R (a region function's first ENV_COUNT).
llvm::Value *resolveQuery(llvm::IRBuilder<> &B, llvm::Function &R, llvm::CallBase &call);

// groups.cpp: where branches that look divergent guard group functions (a
// sub-group's collectives under a test on its id, as DPC++'s element-wise
// kernels have: "is this sub-group's whole slice in range"), the copy of K
// for the groups whose work-items all take each such branch alike: their
// conditions become the first work-item's. `conds`: those conditions in K
// (pure functions of the ids, the geometry and K's parameters). Null when
// there is no such branch or one's condition is not pure. `full`: the copy
// assumes full sub-groups (its sub-group sizes are the constant S), for
// groups whose local size in x S divides.
llvm::Function *uniformCopy(llvm::Function &K, std::vector<llvm::Value *> &conds, bool &full);
// groups.cpp: a function of R's type (environment, K's parameters) that
// returns, for the work-item the environment names, bit i set when conds[i]
// holds and bit 16 + i when it does not (or-ed over a group: both bits of a
// condition set when its work-items disagree).
llvm::Function *branchTest(llvm::Function &K, llvm::Function &R, const std::vector<llvm::Value *> &conds);

// regions.cpp: the region function of a kernel (see regions.cpp).
llvm::Function *buildRegions(llvm::Function &K, const LocalLayout &L, KernelResult &res, std::string &err);

// workgroup.cpp: the work-group functions and the tables. With Ru (the
// regions of uniformCopy's copy, resU its result) and test (branchTest),
// the work-group function runs Ru where test says every work-item of the
// group takes the branches alike (and, where Ru was compiled for full
// sub-groups, the local size in x is a multiple of the sub-group size),
// else R.
llvm::Function *buildWorkGroup(llvm::Function &K, llvm::Function &R, KernelResult &res, llvm::Function *Ru = nullptr,
                               const KernelResult *resU = nullptr, llvm::Function *test = nullptr);
llvm::Function *buildFiberEntry(llvm::Function &K, const LocalLayout &L, KernelResult &res);
llvm::Function *cloneForV3(llvm::Function &W);
llvm::Function *cloneForV4(llvm::Function &W);
void emitTables(llvm::Module &M, const std::vector<KernelResult> &ks, const std::vector<std::string> &imports);
llvm::Value *loadArg(llvm::IRBuilder<> &B, llvm::Value *ctx, llvm::Argument &A);
// Copies of each x work-item loop of W, chosen per run by its trip count:
// a multiple of `width` runs the copy whose header ends in ".full" (whole
// vectors, no masks), fewer than `width` the one ending in ".small"
// (scalar; only for a short body), any other the original (masked lanes).
unsigned versionFullVectors(llvm::Function &W, unsigned width);

// atomics.cpp: integer atomic builtins as atomicrmw/cmpxchg; how many calls.
unsigned inlineAtomics(llvm::Module &M);

// vectorize.cpp: work-items in SIMD lanes (see vectorize.cpp).
// Where a divergent branch guards loops (if (gid < n) { for ... }), a copy
// of what it guards for groups whose every work-item passes the test (a
// uniform branch before it); how many.
unsigned specializeGuards(llvm::Function &K);
// Barriers at the headers of K's loops that every work-item runs alike; how many.
unsigned addImplicitLoopBarriers(llvm::Function &K);
// Does L walk memory with a stride other than one element per iteration
// (b[k * n + j] over k)? Such a loop pays as an inner loop over work-items.
bool crossesMemory(llvm::Loop *L, llvm::ScalarEvolution &SE);
// Marks what differs between work-items for a DivergenceAnalysisImpl of K
// (id queries, memory reads, calls, allocas).
void markDivergenceSources(llvm::Function &K, llvm::DivergenceAnalysisImpl &DA);
// The blocks some work-items may skip or repeat (between a divergent branch
// and its immediate post-dominator) into `reach`; false for a terminator
// it cannot follow (indirectbr).
bool divergentReach(llvm::Function &K, const llvm::DivergenceAnalysisImpl &DA, const llvm::PostDominatorTree &PDT,
                    std::set<llvm::BasicBlock *> &reach);
// The same walk for any notion of divergence: visit(B, X) for each block X
// between a branch ending B whose condition `divergent` takes and B's
// immediate post-dominator; false (nothing visited) for a terminator it
// cannot follow.
bool forDivergentReach(llvm::Function &K, const llvm::PostDominatorTree &PDT,
                       const std::function<bool(llvm::Value *)> &divergent,
                       const std::function<void(llvm::BasicBlock *, llvm::BasicBlock *)> &visit);

// uniformize.cpp: a loop starting at the work-item id with a uniform bound
// made uniform, its body predicated (see uniformize.cpp): every such loop
// (`all`), else those where it pays; how many.
unsigned uniformizeLoops(llvm::Function &K, bool all);
// promote.cpp: a uniform loop's store to one address moved after the loop
// in a copy run when a uniform run-time check finds it aliases no load of
// the loop (see promote.cpp); how many loops.
unsigned promoteStores(llvm::Function &K);
// scalarize.cpp: W's vector values, loads and stores split into lanes,
// its small constant memcpy/memset into loads and stores, so that the
// host compiler vectorises its x loops across work-items.
void scalarizeVectors(llvm::Function &W);
// Marks W's x work-item loops parallel (llvm.loop.parallel_accesses), not
// interleaved, with the remainder as masked lanes when `masked`; how many.
unsigned markParallelLoops(llvm::Function &W, bool masked);

// vmath.cpp: the math builtins of a table's work-group function call the
// builtins module's vector math of that table's ISA (level 0, 3 or 4):
// scalar calls for the loop vectoriser, vector calls directly. Returns
// the number of calls seen.
unsigned vectorMath(llvm::Function &W, int level);
// A math builtin on a vector that vectorMath replaces (tanh on float8, ...):
// prepare keeps its calls in plain vector types while vectorMathEnabled.
bool isVectorMathBuiltin(const llvm::Function &F);
// Does K call a math function the vector math has (scalar or vector)?
bool callsVectorMath(const llvm::Function &K);
extern bool vectorMathEnabled;
// prepare.cpp: the builtins module's ABI for vectors in calls (in memory
// over 16 bytes, ...): of every builtin but vector math's when
// vectorMathLater, else of vector math's (isVectorMathBuiltin) only.
void lowerBuiltinAbi(llvm::Module &M, bool vectorMathLater);

}  // namespace wgc

#endif
