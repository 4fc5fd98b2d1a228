/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sycl-ext/types.h: result codes, enums and export macros shared by the
 * application API (sx.h) and the adapter ABI (adapter.h). */
#ifndef SYCL_EXT_TYPES_H
#define SYCL_EXT_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SX_BUILDING_LIBRARY)
#define SX_API __attribute__((visibility("default")))
#else
#define SX_API
#endif

/* Result codes. Values are fixed forever; new codes are appended. Every
 * table that maps them (names, sentences) is kept in step by a static
 * assertion in lib/error.c. */
typedef int32_t sx_result;
enum {
    SX_SUCCESS = 0,
    SX_ERROR_UNINITIALIZED = 1,          /* sx_init not called, or after the last sx_fini */
    SX_ERROR_INVALID_NULL_POINTER = 2,   /* a required pointer argument is NULL */
    SX_ERROR_INVALID_NULL_HANDLE = 3,    /* a required handle is NULL */
    SX_ERROR_INVALID_HANDLE = 4,         /* a handle of the wrong kind, or released */
    SX_ERROR_INVALID_VALUE = 5,          /* an argument is out of its range */
    SX_ERROR_INVALID_SIZE = 6,           /* a size is zero, too large or does not match */
    SX_ERROR_INVALID_ENUMERATION = 7,    /* an enum value this version does not know */
    SX_ERROR_OUT_OF_HOST_MEMORY = 8,
    SX_ERROR_OUT_OF_DEVICE_MEMORY = 9,
    SX_ERROR_OUT_OF_RESOURCES = 10,
    SX_ERROR_UNSUPPORTED_FEATURE = 11,   /* the adapter or device cannot do this */
    SX_ERROR_UNSUPPORTED_VERSION = 12,   /* ABI or file version not spoken */
    SX_ERROR_DEVICE_NOT_FOUND = 13,      /* no device matches */
    SX_ERROR_INVALID_DEVICE = 14,        /* device not in the context, or wrong device */
    SX_ERROR_INVALID_BINARY = 15,        /* a damaged image, descriptor or image file */
    SX_ERROR_INVALID_PROGRAM = 16,
    SX_ERROR_BUILD_FAILURE = 17,         /* backend compile/build failed; log in the message */
    SX_ERROR_LINK_FAILURE = 18,          /* backend link failed; log in the message */
    SX_ERROR_INVALID_KERNEL_NAME = 19,   /* no kernel of that name */
    SX_ERROR_INVALID_KERNEL_ARGS = 20,   /* an argument was not set at launch */
    SX_ERROR_INVALID_ARGUMENT_INDEX = 21,
    SX_ERROR_INVALID_ARGUMENT_SIZE = 22,
    SX_ERROR_INVALID_WORK_DIMENSION = 23,
    SX_ERROR_INVALID_WORK_GROUP_SIZE = 24,
    SX_ERROR_KERNEL_NOT_SUPPORTED = 25,  /* no compatible image, or a required aspect is missing */
    SX_ERROR_INVALID_GLOBAL_NAME = 26,   /* no device global / program variable of that name */
    SX_ERROR_HANDLE_IN_USE = 27,
    SX_ERROR_DEVICE_LOST = 28,
    SX_ERROR_ADAPTER_SPECIFIC = 29,      /* a backend error; its native code is in the message */
    SX_ERROR_ACCESS_DENIED = 30,         /* host_access forbids this copy */
    SX_ERROR_IO = 31,                    /* reading or writing a file failed */
    SX_ERROR_INVALID_OPERATION = 32,     /* not allowed in the object's state */
    SX_ERROR_EVENT_FAILED = 33,          /* a command this one waited on failed */
    SX_ERROR_INVALID_EVENT_WAIT_LIST = 34,
    SX_ERROR_UNKNOWN = 35,
    SX_RESULT_COUNT_ = 36                /* not a result: one past the last */
};

/* Device types; also used as a mask in selectors. */
typedef uint32_t sx_device_type;
enum {
    SX_DEVICE_TYPE_DEFAULT = 0,
    SX_DEVICE_TYPE_CPU = 1u << 0,
    SX_DEVICE_TYPE_GPU = 1u << 1,
    SX_DEVICE_TYPE_ACCELERATOR = 1u << 2,
    SX_DEVICE_TYPE_CUSTOM = 1u << 3
};
#define SX_DEVICE_TYPE_ALL ((sx_device_type)0xffffffffu)

/* Backends, one per adapter kind. */
typedef uint32_t sx_backend;
enum {
    SX_BACKEND_UNKNOWN = 0,
    SX_BACKEND_NATIVE = 1,
    SX_BACKEND_OPENCL = 2,
    SX_BACKEND_CUDA = 3,
    SX_BACKEND_LEVEL_ZERO = 4,
    SX_BACKEND_OTHER = 5        /* an out-of-tree adapter */
};

/* Aspects: the numbering of DPC++'s sycl::aspect (aspects.def), which is
 * what the "SYCL/device requirements" property "aspects" stores. A device's
 * aspects are a set: bit N of an sx_aspect_set means aspect N. */
typedef uint32_t sx_aspect;
enum {
    SX_ASPECT_CPU = 1,
    SX_ASPECT_GPU = 2,
    SX_ASPECT_ACCELERATOR = 3,
    SX_ASPECT_CUSTOM = 4,
    SX_ASPECT_FP16 = 5,
    SX_ASPECT_FP64 = 6,
    SX_ASPECT_INT64_BASE_ATOMICS = 7,
    SX_ASPECT_INT64_EXTENDED_ATOMICS = 8,
    SX_ASPECT_IMAGE = 9,
    SX_ASPECT_ONLINE_COMPILER = 10,
    SX_ASPECT_ONLINE_LINKER = 11,
    SX_ASPECT_QUEUE_PROFILING = 12,
    SX_ASPECT_USM_DEVICE_ALLOCATIONS = 13,
    SX_ASPECT_USM_HOST_ALLOCATIONS = 14,
    SX_ASPECT_USM_SHARED_ALLOCATIONS = 15,
    SX_ASPECT_USM_SYSTEM_ALLOCATIONS = 17,
    SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS = 26,
    SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS = 27,
    SX_ASPECT_ATOMIC64 = 28,
    SX_ASPECT_MAX_ = 64          /* aspects at or past this do not fit the set */
};
typedef uint64_t sx_aspect_set;
#define SX_ASPECT_BIT(a) ((sx_aspect_set)1 << (a))

/* Image kinds: what the bytes of a device image are. Derived by the core
 * from the descriptor's format and target (see binaries.h); adapters say
 * which kinds each device accepts, in order of preference. */
typedef uint32_t sx_image_kind;
enum {
    SX_IMAGE_KIND_UNKNOWN = 0,
    SX_IMAGE_KIND_SPIRV = 1,     /* SPIR-V module */
    SX_IMAGE_KIND_SPIR = 2,      /* SPIR 1.2/2.0 LLVM bitcode (cl_khr_spir) */
    SX_IMAGE_KIND_PTX = 3,       /* PTX text */
    SX_IMAGE_KIND_CUBIN = 4,     /* CUDA ELF (cubin / fatbin) */
    SX_IMAGE_KIND_HOST_ELF = 5,  /* host shared object for the native adapter */
    SX_IMAGE_KIND_NATIVE = 6,    /* another device-native binary (zebin, ...) */
    SX_IMAGE_KIND_COUNT_ = 7
};

/* Kinds of USM allocation. */
typedef uint32_t sx_usm_type;
enum {
    SX_USM_TYPE_UNKNOWN = 0,
    SX_USM_TYPE_HOST = 1,
    SX_USM_TYPE_DEVICE = 2,
    SX_USM_TYPE_SHARED = 3
};

/* Event execution status (OpenCL's order: lower is further along). */
typedef int32_t sx_event_status;
enum {
    SX_EVENT_STATUS_COMPLETE = 0,
    SX_EVENT_STATUS_RUNNING = 1,
    SX_EVENT_STATUS_SUBMITTED = 2,
    SX_EVENT_STATUS_QUEUED = 3,
    SX_EVENT_STATUS_ERROR = -1
};

/* Log levels. */
typedef uint32_t sx_log_level;
enum {
    SX_LOG_NONE = 0,
    SX_LOG_ERROR = 1,
    SX_LOG_WARN = 2,
    SX_LOG_INFO = 3,
    SX_LOG_DEBUG = 4
};

/* Info queries shared by the application API and the adapter ABI.
 * Strings are NUL-terminated char arrays; the size includes the NUL. */
typedef uint32_t sx_platform_info;
enum {
    SX_PLATFORM_INFO_NAME = 1,       /* char[] */
    SX_PLATFORM_INFO_VENDOR = 2,     /* char[] */
    SX_PLATFORM_INFO_VERSION = 3,    /* char[] */
    SX_PLATFORM_INFO_BACKEND = 4     /* sx_backend */
};

typedef uint32_t sx_device_info;
enum {
    SX_DEVICE_INFO_TYPE = 1,                 /* sx_device_type (one bit) */
    SX_DEVICE_INFO_NAME = 2,                 /* char[] */
    SX_DEVICE_INFO_VENDOR = 3,               /* char[] */
    SX_DEVICE_INFO_DRIVER_VERSION = 4,       /* char[] */
    SX_DEVICE_INFO_BACKEND = 5,              /* sx_backend */
    SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE = 6,  /* size_t */
    SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES = 7,  /* size_t[3] */
    SX_DEVICE_INFO_LOCAL_MEM_SIZE = 8,       /* uint64_t bytes */
    SX_DEVICE_INFO_GLOBAL_MEM_SIZE = 9,      /* uint64_t bytes */
    SX_DEVICE_INFO_MAX_COMPUTE_UNITS = 10,   /* uint32_t */
    SX_DEVICE_INFO_ASPECTS = 11,             /* sx_aspect_set */
    SX_DEVICE_INFO_IMAGE_KINDS = 12,         /* sx_image_kind[], most preferred first */
    SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS = 13, /* uint32_t: 1 if a local size need not divide the global size */
    SX_DEVICE_INFO_PLATFORM = 14,            /* the platform handle (API: sx_platform; ABI: sxa_platform) */
    /* Answered by the core; adapters are never asked these. */
    SX_DEVICE_INFO_ADAPTER = 15,             /* API only: the sx_adapter serving the device */
    SX_DEVICE_INFO_ADAPTER_NAME = 16,        /* API only: char[], that adapter's name ("opencl", "serialcpu") */
    /* Optional for adapters (SX_ERROR_INVALID_ENUMERATION if not known). */
    SX_DEVICE_INFO_SUB_GROUP_SIZES = 17      /* size_t[]: the sub-group sizes kernels may require, ascending */
};

/* A backend-level kernel argument, given at launch. The same layout is
 * used by the application API (sx_queue_launch) and the adapter ABI, so a
 * launch passes the array through without copying.
 *   VALUE:   value points at `size` bytes, copied before the call returns;
 *   POINTER: value IS the USM/device pointer (not a pointer to it);
 *   LOCAL:   `size` bytes of work-group local memory; value must be NULL. */
typedef uint32_t sx_arg_type;
enum {
    SX_ARG_VALUE = 0,
    SX_ARG_POINTER = 1,
    SX_ARG_LOCAL = 2
};
typedef struct sx_arg {
    sx_arg_type type;
    uint32_t index;      /* backend argument index */
    size_t size;         /* bytes: VALUE and LOCAL; sizeof(void *) for POINTER */
    const void *value;
} sx_arg;

/* Kernel parameter records: what "SX/kernel signatures" (binaries.h)
 * stores and what the core hands an adapter in sxa_kernel_param
 * (adapter.h). Here so that an adapter compiles against adapter.h alone. */
enum {
    SX_PARAM_VALUE = 0,    /* a scalar */
    SX_PARAM_POINTER = 1,  /* a global/constant/generic pointer */
    SX_PARAM_LOCAL = 2,    /* a local-address-space pointer: a local size at launch */
    SX_PARAM_STRUCT = 3    /* a struct passed by value */
};
enum {
    SX_SCALAR_NONE = 0,
    SX_SCALAR_I8 = 1, SX_SCALAR_U8 = 2, SX_SCALAR_I16 = 3, SX_SCALAR_U16 = 4,
    SX_SCALAR_I32 = 5, SX_SCALAR_U32 = 6, SX_SCALAR_I64 = 7, SX_SCALAR_U64 = 8,
    SX_SCALAR_F16 = 9, SX_SCALAR_F32 = 10, SX_SCALAR_F64 = 11, SX_SCALAR_PTR = 12
};
enum {
    SX_ADDRESS_SPACE_PRIVATE = 0,
    SX_ADDRESS_SPACE_GLOBAL = 1,
    SX_ADDRESS_SPACE_CONSTANT = 2,
    SX_ADDRESS_SPACE_LOCAL = 3,
    SX_ADDRESS_SPACE_GENERIC = 4
};

#ifdef __cplusplus
}
#endif
#endif /* SYCL_EXT_TYPES_H */
