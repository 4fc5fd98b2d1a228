/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* wg.h: compiled work-group images, the interface between proptool's
 * SPIR-V -> host compiler and the native adapter (issue 13; the contract
 * is /work/NATIVE-WG-CONTRACT.md, described in adapters/native/README.md).
 *
 * An x86-64 ELF image (SX_IMAGE_KIND_HOST_ELF) is a compiled work-group
 * image iff it exports `__sx_wg_abi` (const uint32_t == SXN_WG_ABI) and
 * `__sx_wg_table`; otherwise it is an old per-work-item image (libffi +
 * fibers). One call of an entry's fn runs one whole work-group.
 * Either side may extend this only by appending fields. */
#ifndef SXN_WG_H
#define SXN_WG_H

#include <stddef.h>
#include <stdint.h>

#include "wi.h"

#define SXN_WG_ABI 1
#define SXN_WG_ABI_SYMBOL "__sx_wg_abi"
#define SXN_WG_TABLE_SYMBOL "__sx_wg_table"
#define SXN_WG_IMPORTS_SYMBOL "__sx_wg_imports"
/* Optional (appended 2026-11-24 with 13a): the same table, entry by entry
 * (names, order, local/private bytes, flags), with functions compiled for
 * x86-64-v3 (AVX2, FMA, BMI2); used instead of __sx_wg_table on CPUs that
 * have those. */
#define SXN_WG_TABLE_V3_SYMBOL "__sx_wg_table_x86_64_v3"
/* Optional (appended 2026-11-28, issue 28): the same for x86-64-v4
 * (AVX-512 F, BW, CD, DQ, VL); used on CPUs that have those, before v3. */
#define SXN_WG_TABLE_V4_SYMBOL "__sx_wg_table_x86_64_v4"

enum {
    /* fallback: fn runs ONE work-item (ctx->local_id); the adapter runs the
     * group as fibers, barrier() yields through the builtins module and
     * work-item queries go through it too */
    SXN_WG_FIBER = 1u << 0,
    /* informational: the kernel has barriers */
    SXN_WG_BARRIER = 1u << 1,
    /* (appended 2026-11-28, issue 28) compiled for sub-groups that are all
     * full: the local size in x must be a multiple of sub_group_size (the
     * adapter refuses other launches); sub-group sizes then equal
     * sub_group_size everywhere, and control flow that depends on them is
     * the same for the whole group */
    SXN_WG_FULL_SUB_GROUPS = 1u << 2
};

typedef struct sxn_wg_ctx sxn_wg_ctx;
typedef void (*sxn_wg_fn)(const sxn_wg_ctx *ctx);

typedef struct sxn_wg_entry {
    const char *name;        /* the kernel's entry-point name (OpEntryPoint) */
    sxn_wg_fn fn;
    uint64_t local_bytes;    /* kernel-scope __local variables, per work-group */
    uint64_t private_bytes;  /* per-work-item bytes kept across barriers */
    uint32_t flags;          /* SXN_WG_* */
    uint32_t sub_group_size; /* with SXN_WG_FULL_SUB_GROUPS (1-64), else 0 (was `reserved`) */
} sxn_wg_entry;
/* exported: const sxn_wg_entry __sx_wg_table[]; ends with name == NULL */

struct sxn_wg_ctx {
    const sxn_geometry *geo;   /* work_dim, global/local sizes, num_groups, offsets
                                  (dimensions past work_dim hold size 1 / offset 0) */
    size_t group_id[3];
    void *const *args;         /* args[i] -> argument i's bytes, as libffi's avalue:
                                  a pointer arg: -> slot holding the pointer;
                                  a local-memory arg: -> slot holding this group's buffer;
                                  a value (scalar, vector, struct by value): -> its bytes */
    char *local_mem;           /* this group's block for kernel-scope __local vars,
                                  local_bytes long, 64-byte aligned, NOT zeroed */
    char *private_mem;         /* private_bytes * local work-items, 64-byte aligned */
    size_t local_id[3];        /* only for SXN_WG_FIBER entries: the work-item */
};

/* Symbols another image of the program exports, reached through slots the
 * adapter fills at link time (dlsym over the program's images). */
typedef struct sxn_wg_import {
    const char *name;
    void **slot;
} sxn_wg_import;
/* exported: const sxn_wg_import __sx_wg_imports[]; ends with name == NULL
   (absent or empty when the image imports nothing) */

#endif /* SXN_WG_H */
