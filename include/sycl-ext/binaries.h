/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sycl-ext/binaries.h: in-memory device-image registration descriptors.
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

/* sx_device_binaries.version */
#define SX_DEVICE_BINARIES_VERSION 1
/* sx_device_binary.version: DPC++'s runtime writes 1, its wrapper 2; both accepted */
#define SX_DEVICE_BINARY_VERSION 2
/* sx_device_binary.kind */
#define SX_OFFLOAD_KIND_SYCL 4

/* sx_device_binary.format (DPC++'s sycl_device_binary_type) */
enum {
    SX_BINARY_FORMAT_NONE = 0,             /* detect from the bytes and the target */
    SX_BINARY_FORMAT_NATIVE = 1,
    SX_BINARY_FORMAT_SPIRV = 2,
    SX_BINARY_FORMAT_LLVMIR_BITCODE = 3,
    SX_BINARY_FORMAT_COMPRESSED_NONE = 4   /* zstd: not supported, rejected with a clear error */
};

/* Target strings (DPC++'s __SYCL_DEVICE_BINARY_TARGET_*) plus our host one. */
#define SX_TARGET_UNKNOWN "<unknown>"
#define SX_TARGET_SPIRV32 "spir"
#define SX_TARGET_SPIRV64 "spir64"
#define SX_TARGET_SPIRV64_X86_64 "spir64_x86_64"
#define SX_TARGET_SPIRV64_GEN "spir64_gen"
#define SX_TARGET_NVPTX64 "nvptx64"
#define SX_TARGET_NATIVE_CPU "native_cpu"
/* A host shared object for the native adapter (OpenCL C built for the host). */
#define SX_TARGET_HOST "host_x86_64"

/* Property value types (DPC++'s sycl_property_type). */
enum {
    SX_PROPERTY_TYPE_UNKNOWN = 0,
    SX_PROPERTY_TYPE_UINT32 = 1,     /* value lives in value_size; value_addr is NULL */
    SX_PROPERTY_TYPE_BYTE_ARRAY = 2, /* u64 payload size in BITS, then payload; value_size counts both */
    SX_PROPERTY_TYPE_STRING = 3      /* NUL-terminated; value_size is its length */
};

typedef struct sx_device_binary_property {
    char *name;
    void *value_addr;
    uint32_t type;
    uint64_t value_size;
} sx_device_binary_property;

typedef struct sx_device_binary_property_set {
    char *name;
    sx_device_binary_property *properties_begin;
    sx_device_binary_property *properties_end;
} sx_device_binary_property_set;

/* Offload entry, legacy 32-byte layout. Only `name` is used: a kernel's
 * entry name or an exported symbol. The 56-byte LLVM layout (reserved=0,
 * version=1, kind=8 first) is detected and accepted as well. */
typedef struct sx_offload_entry {
    void *addr;
    char *name;
    size_t size;
    int32_t flags;
    int32_t reserved;
} sx_offload_entry;

typedef struct sx_device_binary {
    uint16_t version;
    uint8_t kind;
    uint8_t format;
    const char *device_target_spec;
    const char *compile_options;
    const char *link_options;
    const char *manifest_start;
    const char *manifest_end;
    const unsigned char *binary_start;
    const unsigned char *binary_end;
    sx_offload_entry *entries_begin;
    sx_offload_entry *entries_end;
    sx_device_binary_property_set *property_sets_begin;
    sx_device_binary_property_set *property_sets_end;
} sx_device_binary;

typedef struct sx_device_binaries {
    uint16_t version;
    uint16_t num_device_binaries;
    sx_device_binary *device_binaries;
    sx_offload_entry *host_entries_begin;
    sx_offload_entry *host_entries_end;
} sx_device_binaries;

/* Property-set names: DPC++'s, then the sets of our own. */
#define SX_PROP_SET_DEVICE_GLOBALS "SYCL/device globals"
#define SX_PROP_SET_VIRTUAL_FUNCTIONS "SYCL/virtual functions"
#define SX_PROP_SET_DEVICE_REQUIREMENTS "SYCL/device requirements"
#define SX_PROP_SET_KERNEL_PARAM_OPT "SYCL/kernel param opt"
#define SX_PROP_SET_EXPORTED_SYMBOLS "SYCL/exported symbols"
#define SX_PROP_SET_IMPORTED_SYMBOLS "SYCL/imported symbols"
#define SX_PROP_SET_IMPLICIT_LOCAL_ARG "SYCL/implicit local arg"
#define SX_PROP_SET_PROGRAM_METADATA "SYCL/program metadata"
#define SX_PROP_SET_MISC "SYCL/misc properties"
/* Ours: per-kernel signatures (kind, dimensions, parameters); see below. */
#define SX_PROP_SET_KERNEL_SIGNATURES "SX/kernel signatures"
/* Ours: per device global, host_access (UINT32: 0 read, 1 write, 2 read_write, 3 none). */
#define SX_PROP_SET_HOST_ACCESS "SX/host access"
/* Ours: accessor kernels added by proptool for backends without a way to
 * reach program variables: property name = device-global unique id, value =
 * STRING entry name of its accessor kernel. */
#define SX_PROP_SET_GLOBAL_ACCESSORS "SX/device global accessors"
/* On a virtual-function set image (and its dummy): the linkage name of
 * every function of the set it defines (UINT32 1 each). An image that
 * imports one of them, with no image exporting it, is linked with the set
 * as if it created its objects (issue 29; DPC++ exports none of them). */
#define SX_PROP_SET_VF_SYMBOLS "SX/virtual-function symbols"

/* "SX/kernel signatures": one BYTE_ARRAY property per kernel entry name.
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
enum {
    SX_KERNEL_KIND_PLAIN = 0,        /* an ordinary kernel (not a free function) */
    SX_KERNEL_KIND_SINGLE_TASK = 1,  /* sycl-single-task-kernel */
    SX_KERNEL_KIND_ND_RANGE = 2      /* sycl-nd-range-kernel=<dims> */
};
#ifdef __cplusplus
}
#endif
#endif /* SYCL_EXT_BINARIES_H */
