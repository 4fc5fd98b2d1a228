/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/** @file sycl-ext/host-elf.h
 * @brief the host-ELF image contract, for adapters that run
 * SX_IMAGE_KIND_HOST_ELF images (target "host_x86_64") on the host CPU:
 * the native adapter, and any vendor's (doc/host-elf.md says it all).
 *
 * A host-ELF image is an x86-64 ELF shared object. Each kernel is an
 * exported function taking the kernel's parameters by the C calling
 * convention ("SX/kernel signatures" describes them; the core hands them to
 * program.create in sxa_program_desc) and running ONE work-item. It imports
 * the OpenCL C builtins (work-item queries, barrier, atomics, math) by their
 * OpenCL C mangled names (_Z13get_global_idj, ...) from the builtins
 * module, sx-native-builtins.so in the adapter directory, which serves
 * every host-ELF adapter of the process through the interface below.
 *
 * Using the builtins module from an adapter:
 *   1. dlopen it by its installed path (SX_NATIVE_BUILTINS overrides) with
 *      RTLD_NOW | RTLD_GLOBAL before the first image, so images resolve
 *      against it; every adapter then shares the one copy. Never load a
 *      module of your own that exports the same names RTLD_GLOBAL: images
 *      would bind to whichever came first.
 *   2. check dlsym(SX_HOST_BUILTINS_ABI_SYMBOL) points at a uint32_t equal
 *      to SX_HOST_BUILTINS_ABI; refuse the module otherwise.
 *   3. before calling a work-item's function, call set_item (dlsym of
 *      SX_HOST_BUILTINS_SET_SYMBOL) with that work-item's sxn_item, on the
 *      thread that calls it. The item is per thread: two adapters (or two
 *      launches) on different threads never see each other's.
 * barrier()/work_group_barrier() call item->yield(item): an adapter that
 * runs work-items as fibers switches there; one that runs them one after
 * another must refuse kernels importing a barrier builtin (a NULL yield makes
 * barrier() return at once, which is wrong for any group of more than one
 * work-item). */
#ifndef SYCL_EXT_HOST_ELF_H
#define SYCL_EXT_HOST_ELF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The builtins module's file name, in the adapter directory. */
#define SX_HOST_BUILTINS_FILE "sx-native-builtins.so"
/** The interface version this header describes. */
#define SX_HOST_BUILTINS_ABI 1
/** The module's uint32_t holding its interface version. */
#define SX_HOST_BUILTINS_ABI_SYMBOL "sxn_builtins_abi"
/** The module's sxn_set_item_fn: the calling thread's current work-item. */
#define SX_HOST_BUILTINS_SET_SYMBOL "sxn_builtins_set_item"
/** The module's sxn_get_item_fn: the calling thread's current work-item. */
#define SX_HOST_BUILTINS_GET_SYMBOL "sxn_builtins_get_item"

/** The launch's geometry, read-only for the whole launch. Every dimension
 * past work_dim holds the OpenCL defaults (size 1, offset 0) so the
 * builtins never branch on it. */
typedef struct sxn_geometry {
    uint32_t work_dim;         /**< 1, 2 or 3 */
    size_t global_size[3];     /**< work-items per dimension */
    size_t local_size[3];      /**< work-items per group per dimension */
    size_t num_groups[3];      /**< groups per dimension */
    size_t global_offset[3];   /**< the launch's global offset */
} sxn_geometry;

struct sxn_item;
/** Called by barrier(): the adapter switches to the group's next work-item. */
typedef void (*sxn_yield_fn)(struct sxn_item *item);

/** One work-item as the builtins see it. */
typedef struct sxn_item {
    const sxn_geometry *geo;  /**< the launch's geometry */
    size_t group_id[3];       /**< get_group_id */
    size_t group_base[3];  /**< group_id * local_size + global_offset */
    size_t local_id[3];    /**< get_local_id */
    sxn_yield_fn yield;    /**< barrier(); NULL: no barrier support */
    void *fiber;           /**< the adapter's own, untouched by the builtins */
} sxn_item;

/** Type of SX_HOST_BUILTINS_SET_SYMBOL. */
typedef void (*sxn_set_item_fn)(sxn_item *item);
/** Type of SX_HOST_BUILTINS_GET_SYMBOL. */
typedef sxn_item *(*sxn_get_item_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* SYCL_EXT_HOST_ELF_H */
