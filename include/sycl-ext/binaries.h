/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/** @file sycl-ext/binaries.h
 * @brief in-memory device-image registration descriptors.
 *
 * The layout is DPC++'s offload-wrapper layout (sycl_device_binaries and
 * friends, x86-64: pointers 8 bytes), so descriptors emitted for DPC++ can be
 * handed to sx_register_images unchanged. This layout is a deliberate,
 * versioned ABI; doc/image-format.md describes every field and encoding. */
#ifndef SYCL_EXT_BINARIES_H
#define SYCL_EXT_BINARIES_H

#include <stddef.h>
#include <stdint.h>

#include <sycl-ext/types.h>  /* SX_PARAM_*, SX_SCALAR_*, SX_ADDRESS_SPACE_* */

#ifdef __cplusplus
extern "C" {
#endif

/** sx_device_binaries.version */
#define SX_DEVICE_BINARIES_VERSION 1
/** sx_device_binary.version: DPC++'s runtime writes 1, its wrapper 2; both accepted */
#define SX_DEVICE_BINARY_VERSION 2
/* Every device-image layout DPC++ has shipped, by its version field (issue
 * 27; doc/image-format.md, "DPC++'s layouts"). Versions 1 and 2 are the
 * sx_device_binary layout below (96 bytes); version 3 drops manifest_start
 * and manifest_end (sx_device_binary_v3, 80 bytes: binary_start follows
 * link_options). A descriptor's device_binaries array is walked record by
 * record, each record's size taken from its own version. */
#define SX_DEVICE_BINARY_VERSION_1 1 /**< the DPC++ runtime's layout: sx_device_binary (96 bytes) */
#define SX_DEVICE_BINARY_VERSION_2 2 /**< the offload wrapper's layout: sx_device_binary (96 bytes) */
#define SX_DEVICE_BINARY_VERSION_3 3 /**< no manifest pointers: sx_device_binary_v3 (80 bytes) */
/** sx_device_binary.kind: a SYCL image */
#define SX_OFFLOAD_KIND_SYCL 4

/** sx_device_binary.format (DPC++'s sycl_device_binary_type) */
enum {
    SX_BINARY_FORMAT_NONE = 0,             /**< detect from the bytes and the target */
    SX_BINARY_FORMAT_NATIVE = 1,             /**< a device-native binary (host object, cubin, zebin) */
    SX_BINARY_FORMAT_SPIRV = 2,              /**< a SPIR-V module */
    SX_BINARY_FORMAT_LLVMIR_BITCODE = 3,     /**< LLVM bitcode (SPIR for OpenCL without IL) */
    SX_BINARY_FORMAT_COMPRESSED_NONE = 4   /**< one zstd frame holding an image of format NONE
                                            * (--offload-compress): decompressed once, at first
                                            * use; builds without libzstd refuse it at registration */
};
/** The most bytes a compressed image may expand to (its zstd frame header
 * must state the size, and the size must be at most this). */
#define SX_MAX_DECOMPRESSED_SIZE ((uint64_t)1 << 31)

/** Target strings (DPC++'s __SYCL_DEVICE_BINARY_TARGET_*) plus our host one. */
/** No target given. */
#define SX_TARGET_UNKNOWN "<unknown>"
/** 32-bit SPIR-V. */
#define SX_TARGET_SPIRV32 "spir"
/** 64-bit SPIR-V, for any device that takes it (JIT). */
#define SX_TARGET_SPIRV64 "spir64"
/** SPIR-V or an AOT binary for x86-64 CPUs. */
#define SX_TARGET_SPIRV64_X86_64 "spir64_x86_64"
/** An AOT binary for Intel GPUs. */
#define SX_TARGET_SPIRV64_GEN "spir64_gen"
/** PTX or a cubin for NVIDIA GPUs. */
#define SX_TARGET_NVPTX64 "nvptx64"
/** DPC++'s native CPU target. */
#define SX_TARGET_NATIVE_CPU "native_cpu"
/** DPC++'s other targets: images for them register (and are listed) but no
 * adapter here takes them. */
#define SX_TARGET_SPIRV64_FPGA "spir64_fpga" /**< FPGA AOT binaries */
#define SX_TARGET_AMDGCN "amdgcn" /**< AMD GPU binaries */
#define SX_TARGET_LLVM_NVPTX64 "llvm_nvptx64" /**< LLVM IR for NVIDIA GPUs (SYCL JIT) */
#define SX_TARGET_LLVM_AMDGCN "llvm_amdgcn" /**< LLVM IR for AMD GPUs (SYCL JIT) */
/** A host shared object for the native adapter (OpenCL C built for the host). */
#define SX_TARGET_HOST "host_x86_64"

/** Property value types (DPC++'s sycl_property_type). */
enum {
    SX_PROPERTY_TYPE_UNKNOWN = 0,    /**< not a valid property's type */
    SX_PROPERTY_TYPE_UINT32 = 1,     /**< value lives in value_size; value_addr is NULL */
    SX_PROPERTY_TYPE_BYTE_ARRAY = 2, /**< u64 payload size in BITS, then payload; value_size counts both */
    SX_PROPERTY_TYPE_STRING = 3      /**< NUL-terminated; value_size is its length */
};

/** One property of a set (DPC++'s _pi_device_binary_property_struct). */
typedef struct sx_device_binary_property {
    char *name;          /**< the property's name */
    void *value_addr;    /**< BYTE_ARRAY and STRING: the value; UINT32: NULL */
    uint32_t type;       /**< SX_PROPERTY_TYPE_* */
    uint64_t value_size; /**< UINT32: the value; else its size as the type says */
} sx_device_binary_property;

/** A named set of properties of an image ("SYCL/device globals", ...). */
typedef struct sx_device_binary_property_set {
    char *name;                                  /**< SX_PROP_SET_* */
    sx_device_binary_property *properties_begin; /**< the first property */
    sx_device_binary_property *properties_end;   /**< one past the last */
} sx_device_binary_property_set;

/** Offload entry, legacy 32-byte layout. Only `name` is used: a kernel's
 * entry name or an exported symbol. The 56-byte LLVM layout
 * (sx_offload_entry_llvm: reserved=0, version=1, kind=8, flags=0 first) is
 * detected from the first entry and accepted as well; one image's table is
 * all of one layout (a table mixing them is refused). */
typedef struct sx_offload_entry {
    void *addr;          /**< unused */
    char *name;          /**< the kernel's entry name or the symbol */
    size_t size;         /**< unused */
    int32_t flags;       /**< unused */
    int32_t reserved;    /**< unused */
} sx_offload_entry;

/** Offload entry, LLVM's EntryTy (llvm/Frontend/Offloading/Utility.h), 56
 * bytes, what DPC++'s wrapper writes since 2025. */
typedef struct sx_offload_entry_llvm {
    uint64_t reserved;  /**< 0 */
    uint16_t version;   /**< SX_OFFLOAD_ENTRY_LLVM_VERSION */
    uint16_t kind;      /**< SX_OFFLOAD_ENTRY_LLVM_KIND_SYCL */
    uint32_t flags;     /**< 0 */
    void *address;  /**< the symbol or kernel address (unused) */
    char *symbol_name;  /**< a kernel entry name or an exported symbol */
    uint64_t size;  /**< the size of a variable, else 0 */
    uint64_t data;  /**< flags (unused) */
    void *aux_address;  /**< unused */
} sx_offload_entry_llvm;
#define SX_OFFLOAD_ENTRY_LLVM_VERSION 1 /**< sx_offload_entry_llvm.version */
#define SX_OFFLOAD_ENTRY_LLVM_KIND_SYCL 8 /**< sx_offload_entry_llvm.kind: OFK_SYCL (1 << 3) */

/** One device image and what describes it (DPC++'s sycl_device_binary_struct),
 * record versions 1 and 2. */
typedef struct sx_device_binary {
    uint16_t version;                        /**< SX_DEVICE_BINARY_VERSION (1 accepted too) */
    uint8_t kind;                            /**< SX_OFFLOAD_KIND_SYCL */
    uint8_t format;                          /**< SX_BINARY_FORMAT_* */
    const char *device_target_spec;          /**< SX_TARGET_* */
    const char *compile_options;             /**< for the backend compiler ("" or NULL: none) */
    const char *link_options;                /**< for the backend linker ("" or NULL: none) */
    const char *manifest_start;              /**< unused (DPC++'s manifest) */
    const char *manifest_end;                /**< unused */
    const unsigned char *binary_start;       /**< the image's first byte */
    const unsigned char *binary_end;         /**< one past its last */
    sx_offload_entry *entries_begin;         /**< its kernels' entry names */
    sx_offload_entry *entries_end;           /**< one past the last entry */
    sx_device_binary_property_set *property_sets_begin; /**< its property sets */
    sx_device_binary_property_set *property_sets_end;   /**< one past the last set */
} sx_device_binary;

/** Version 3 (DPC++ built with __INTEL_PREVIEW_BREAKING_CHANGES, e.g. the
 * dpctl/dpnp wheels): no manifest pointers. Hand an array of these to
 * sx_register_images through sx_device_binaries.device_binaries (cast);
 * every record's version field must be 3. */
typedef struct sx_device_binary_v3 {
    uint16_t version;  /**< 3 (SX_DEVICE_BINARY_VERSION_3) */
    uint8_t kind;  /**< SX_OFFLOAD_KIND_SYCL */
    uint8_t format;  /**< SX_BINARY_FORMAT_* */
    const char *device_target_spec;  /**< the target (SX_TARGET_*) */
    const char *compile_options;  /**< options for the backend compiler */
    const char *link_options;  /**< options for the backend linker */
    const unsigned char *binary_start;  /**< first byte of the image */
    const unsigned char *binary_end;  /**< one past its last byte */
    sx_offload_entry *entries_begin;  /**< the offload entries (kernels and exported symbols) */
    sx_offload_entry *entries_end;  /**< one past the last entry */
    sx_device_binary_property_set *property_sets_begin;  /**< the property sets */
    sx_device_binary_property_set *property_sets_end;  /**< one past the last set */
} sx_device_binary_v3;

/** What sx_register_images takes: the images of one program or library
 * (DPC++'s sycl_device_binaries_struct). */
typedef struct sx_device_binaries {
    uint16_t version;                        /**< SX_DEVICE_BINARIES_VERSION */
    uint16_t num_device_binaries;            /**< entries of device_binaries */
    sx_device_binary *device_binaries;       /**< the images */
    sx_offload_entry *host_entries_begin;    /**< unused (DPC++'s host entries) */
    sx_offload_entry *host_entries_end;      /**< unused */
} sx_device_binaries;

/** Property-set names: DPC++'s, then the sets of our own. This one: per
 * device global (by unique id), its size and device_image_scope. */
#define SX_PROP_SET_DEVICE_GLOBALS "SYCL/device globals"
/** Virtual-function sets an image provides, calls and creates. */
#define SX_PROP_SET_VIRTUAL_FUNCTIONS "SYCL/virtual functions"
/** The aspects (and other requirements) of an image's kernels. */
#define SX_PROP_SET_DEVICE_REQUIREMENTS "SYCL/device requirements"
/** Per kernel: which parameter records dead-argument elimination removed. */
#define SX_PROP_SET_KERNEL_PARAM_OPT "SYCL/kernel param opt"
/** Symbols an image defines for others to link with. */
#define SX_PROP_SET_EXPORTED_SYMBOLS "SYCL/exported symbols"
/** Symbols an image needs from another. */
#define SX_PROP_SET_IMPORTED_SYMBOLS "SYCL/imported symbols"
/** Per kernel: the index of its work_group_scratch_size argument. */
#define SX_PROP_SET_IMPLICIT_LOCAL_ARG "SYCL/implicit local arg"
/** Program metadata ("<uid>@global_id_mapping": a device global's symbol). */
#define SX_PROP_SET_PROGRAM_METADATA "SYCL/program metadata"
/** Miscellaneous properties DPC++ writes; read where the core needs one. */
#define SX_PROP_SET_MISC "SYCL/misc properties"
/** DPC++'s other sets: kept with the image and shown by the dumps; the
 * core does not read them and never refuses an image for them. */
#define SX_PROP_SET_SPEC_CONSTANTS "SYCL/specialization constants" /**< specialization constants */
#define SX_PROP_SET_SPEC_CONSTANTS_DEFAULTS "SYCL/specialization constants default values" /**< their default values */
#define SX_PROP_SET_DEVICELIB_REQ_MASK "SYCL/devicelib req mask" /**< the device libraries an image needs */
#define SX_PROP_SET_DEVICELIB_METADATA "SYCL/devicelib metadata" /**< device-library metadata */
#define SX_PROP_SET_ASSERT_USED "SYCL/assert used" /**< kernels that use assert */
#define SX_PROP_SET_MALLOC_USED "SYCL/malloc used" /**< kernels that use malloc */
#define SX_PROP_SET_KERNEL_NAMES "SYCL/kernel names" /**< kernel names */
#define SX_PROP_SET_HOST_PIPES "SYCL/host pipes" /**< host pipes */
#define SX_PROP_SET_REGISTERED_KERNELS "SYCL/registered kernels" /**< names registered by sycl::ext::oneapi::experimental kernel registration */
/** Ours: per-kernel signatures (kind, dimensions, parameters); see below. */
#define SX_PROP_SET_KERNEL_SIGNATURES "SX/kernel signatures"
/** Ours: per device global, host_access (UINT32: 0 read, 1 write, 2 read_write, 3 none). */
#define SX_PROP_SET_HOST_ACCESS "SX/host access"
/** Ours: accessor kernels added by proptool for backends without a way to
 * reach program variables: property name = device-global unique id, value =
 * STRING entry name of its accessor kernel. */
#define SX_PROP_SET_GLOBAL_ACCESSORS "SX/device global accessors"
/** Ours: on a virtual-function set image (and its dummy): the linkage name of
 * every function of the set it defines (UINT32 1 each). An image that
 * imports one of them, with no image exporting it, is linked with the set
 * as if it created its objects (issue 29; DPC++ exports none of them). */
#define SX_PROP_SET_VF_SYMBOLS "SX/virtual-function symbols"

/** The "SX/kernel signatures" set: one BYTE_ARRAY property per kernel entry name.
 * Payload (after the 64-bit bit-count prefix), all little-endian u32 unless
 * stated:
 *   version (1), kind (SX_KERNEL_KIND_*), dims (0, or 1..3 for nd_range),
 *   num_source_params, num_params,
 *   then num_params parameter records:
 *     kind (SX_PARAM_*), scalar (SX_SCALAR_* for VALUE, else 0), size, align,
 *     address_space (SX_ADDRESS_SPACE_*), source_index, num_members,
 *     then num_members member records: scalar, offset.
 * Struct-by-value parameters list their scalar leaves in order (nested
 * structs and arrays flattened), which is all a C calling convention needs.
 *
 * The records describe the kernel's backend parameters BEFORE dead-argument
 * elimination; "SYCL/kernel param opt" (bit i = record i eliminated) says
 * which the entry point really has. (What an adapter receives in
 * sxa_program_desc is the list AFTER elimination: adapter.h.) source_index maps each record to the
 * source-level (set_arg) parameter it comes from: a source parameter that
 * owns several consecutive records is decomposed, its value laid out like
 * a C struct of those records (each at the next offset aligned to its
 * align). The hidden work_group_scratch_size argument has source_index
 * SX_SOURCE_INDEX_NONE and is named by "SYCL/implicit local arg". */
#define SX_SOURCE_INDEX_NONE 0xffffffffu
/** Kernel kinds of a signature (SX_KERNEL_INFO_KIND). */
enum {
    SX_KERNEL_KIND_PLAIN = 0,        /**< an ordinary kernel (not a free function) */
    SX_KERNEL_KIND_SINGLE_TASK = 1,  /**< sycl-single-task-kernel */
    SX_KERNEL_KIND_ND_RANGE = 2      /**< sycl-nd-range-kernel=DIMS */
};
#ifdef __cplusplus
}
#endif
#endif /* SYCL_EXT_BINARIES_H */
