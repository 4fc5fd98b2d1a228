/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/** @file sycl-ext/types.h
 * @brief result codes, enums and export macros shared by the
 * application API (sx.h) and the adapter ABI (adapter.h). */
#ifndef SYCL_EXT_TYPES_H
#define SYCL_EXT_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Marks a function the library exports (default visibility when the
 * library itself is built; nothing for its users). */
#if defined(SX_BUILDING_LIBRARY)
#define SX_API __attribute__((visibility("default")))
#else
#define SX_API
#endif

/** Result codes. Values are fixed forever; new codes are appended. Every
 * table that maps them (names, sentences) is kept in step by a static
 * assertion in lib/error.c. */
typedef int32_t sx_result;
enum {
    SX_SUCCESS = 0, /**< the call did what it was asked */
    SX_ERROR_UNINITIALIZED = 1,          /**< sx_init not called, or after the last sx_fini */
    SX_ERROR_INVALID_NULL_POINTER = 2,   /**< a required pointer argument is NULL */
    SX_ERROR_INVALID_NULL_HANDLE = 3,    /**< a required handle is NULL */
    SX_ERROR_INVALID_HANDLE = 4,         /**< a handle of the wrong kind, or released */
    SX_ERROR_INVALID_VALUE = 5,          /**< an argument is out of its range */
    SX_ERROR_INVALID_SIZE = 6,           /**< a size is zero, too large or does not match */
    SX_ERROR_INVALID_ENUMERATION = 7,    /**< an enum value this version does not know */
    SX_ERROR_OUT_OF_HOST_MEMORY = 8, /**< a host allocation failed */
    SX_ERROR_OUT_OF_DEVICE_MEMORY = 9, /**< the device has no memory left for this */
    SX_ERROR_OUT_OF_RESOURCES = 10, /**< the backend ran out of another resource (queues, handles, threads) */
    SX_ERROR_UNSUPPORTED_FEATURE = 11,   /**< the adapter or device cannot do this */
    SX_ERROR_UNSUPPORTED_VERSION = 12,   /**< ABI or file version not spoken */
    SX_ERROR_DEVICE_NOT_FOUND = 13,      /**< no device matches */
    SX_ERROR_INVALID_DEVICE = 14,        /**< device not in the context, or wrong device */
    SX_ERROR_INVALID_BINARY = 15,        /**< a damaged image, descriptor or image file */
    SX_ERROR_INVALID_PROGRAM = 16, /**< a program the adapter built is not usable */
    SX_ERROR_BUILD_FAILURE = 17,         /**< backend compile/build failed; log in the message */
    SX_ERROR_LINK_FAILURE = 18,          /**< backend link failed; log in the message */
    SX_ERROR_INVALID_KERNEL_NAME = 19,   /**< no kernel of that name */
    SX_ERROR_INVALID_KERNEL_ARGS = 20,   /**< an argument was not set at launch */
    SX_ERROR_INVALID_ARGUMENT_INDEX = 21, /**< an argument index past the kernel's parameters */
    SX_ERROR_INVALID_ARGUMENT_SIZE = 22, /**< an argument's size differs from its parameter's */
    SX_ERROR_INVALID_WORK_DIMENSION = 23, /**< the launch's dimensions differ from the kernel's, or are not 1 to 3 */
    SX_ERROR_INVALID_WORK_GROUP_SIZE = 24, /**< a local size that does not divide the global size or exceeds the device's limits */
    SX_ERROR_KERNEL_NOT_SUPPORTED = 25,  /**< no compatible image, or a required aspect is missing */
    SX_ERROR_INVALID_GLOBAL_NAME = 26,   /**< no device global / program variable of that name */
    SX_ERROR_HANDLE_IN_USE = 27, /**< the object is still used by another (a context with live queues) */
    SX_ERROR_DEVICE_LOST = 28, /**< the device stopped working (a GPU reset, a crashed driver) */
    SX_ERROR_ADAPTER_SPECIFIC = 29,      /**< a backend error; its native code is in the message */
    SX_ERROR_ACCESS_DENIED = 30,         /**< host_access forbids this copy */
    SX_ERROR_IO = 31,                    /**< reading or writing a file failed */
    SX_ERROR_INVALID_OPERATION = 32,     /**< not allowed in the object's state */
    SX_ERROR_EVENT_FAILED = 33,          /**< a command this one waited on failed */
    SX_ERROR_INVALID_EVENT_WAIT_LIST = 34, /**< a wait list with a NULL or foreign event, or a count without a list */
    SX_ERROR_UNKNOWN = 35, /**< a failure no other code describes; the message says what */
    SX_RESULT_COUNT_ = 36                /**< not a result: one past the last */
};

/** Device types; also used as a mask in selectors. */
typedef uint32_t sx_device_type;
enum {
    SX_DEVICE_TYPE_DEFAULT = 0, /**< the backend's default device */
    SX_DEVICE_TYPE_CPU = 1u << 0, /**< a CPU */
    SX_DEVICE_TYPE_GPU = 1u << 1, /**< a GPU */
    SX_DEVICE_TYPE_ACCELERATOR = 1u << 2, /**< an accelerator (an FPGA, a simulator) */
    SX_DEVICE_TYPE_CUSTOM = 1u << 3 /**< a device of no other type */
};
/** Every device type, as a mask. */
#define SX_DEVICE_TYPE_ALL ((sx_device_type)0xffffffffu)

/** Backends, one per adapter kind. */
typedef uint32_t sx_backend;
enum {
    SX_BACKEND_UNKNOWN = 0, /**< not known (an adapter that does not say) */
    SX_BACKEND_NATIVE = 1, /**< the native adapter: host shared objects run on this CPU */
    SX_BACKEND_OPENCL = 2, /**< OpenCL through the ICD loader */
    SX_BACKEND_CUDA = 3, /**< CUDA through the driver API */
    SX_BACKEND_LEVEL_ZERO = 4, /**< Level Zero through its loader */
    SX_BACKEND_OTHER = 5        /**< an out-of-tree adapter */
};

/** Aspects: the numbering of DPC++'s sycl::aspect (aspects.def), which is
 * what the "SYCL/device requirements" property "aspects" stores. A device's
 * aspects are a set: bit N of an sx_aspect_set means aspect N. */
typedef uint32_t sx_aspect;
enum {
    SX_ASPECT_CPU = 1, /**< the device is a CPU */
    SX_ASPECT_GPU = 2, /**< the device is a GPU */
    SX_ASPECT_ACCELERATOR = 3, /**< the device is an accelerator */
    SX_ASPECT_CUSTOM = 4, /**< the device is of a custom type */
    SX_ASPECT_FP16 = 5, /**< half-precision floating point (cl_khr_fp16) */
    SX_ASPECT_FP64 = 6, /**< double-precision floating point (cl_khr_fp64) */
    SX_ASPECT_INT64_BASE_ATOMICS = 7, /**< 64-bit base atomics (deprecated in SYCL 2020) */
    SX_ASPECT_INT64_EXTENDED_ATOMICS = 8, /**< 64-bit extended atomics (deprecated in SYCL 2020) */
    SX_ASPECT_IMAGE = 9, /**< images (samplers and image types) */
    SX_ASPECT_ONLINE_COMPILER = 10, /**< the backend compiles source at run time */
    SX_ASPECT_ONLINE_LINKER = 11, /**< the backend links separately compiled programs */
    SX_ASPECT_QUEUE_PROFILING = 12, /**< queues record profiling times (SX_QUEUE_PROFILING) */
    SX_ASPECT_USM_DEVICE_ALLOCATIONS = 13, /**< USM device allocations */
    SX_ASPECT_USM_HOST_ALLOCATIONS = 14, /**< USM host allocations */
    SX_ASPECT_USM_SHARED_ALLOCATIONS = 15, /**< USM shared allocations */
    SX_ASPECT_USM_SYSTEM_ALLOCATIONS = 17, /**< the device reads memory from the system allocator (malloc) */
    SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS = 26, /**< host and device update USM host allocations atomically together */
    SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS = 27, /**< host and device update USM shared allocations atomically together */
    SX_ASPECT_ATOMIC64 = 28, /**< 64-bit atomics of sycl::atomic_ref */
    SX_ASPECT_MAX_ = 64          /**< aspects at or past this do not fit the set */
};
/** A set of aspects: bit N stands for aspect N (SX_DEVICE_INFO_ASPECTS). */
typedef uint64_t sx_aspect_set;
/** The bit of aspect `a` in an sx_aspect_set. */
#define SX_ASPECT_BIT(a) ((sx_aspect_set)1 << (a))

/** Image kinds: what the bytes of a device image are. Derived by the core
 * from the descriptor's format and target (see binaries.h); adapters say
 * which kinds each device accepts, in order of preference. */
typedef uint32_t sx_image_kind;
enum {
    SX_IMAGE_KIND_UNKNOWN = 0, /**< none the core recognises */
    SX_IMAGE_KIND_SPIRV = 1,     /**< SPIR-V module */
    SX_IMAGE_KIND_SPIR = 2,      /**< SPIR 1.2/2.0 LLVM bitcode (cl_khr_spir) */
    SX_IMAGE_KIND_PTX = 3,       /**< PTX text */
    SX_IMAGE_KIND_CUBIN = 4,     /**< CUDA ELF (cubin / fatbin) */
    SX_IMAGE_KIND_HOST_ELF = 5,  /**< host shared object for the native adapter */
    SX_IMAGE_KIND_NATIVE = 6,    /**< another device-native binary (zebin, ...) */
    SX_IMAGE_KIND_COUNT_ = 7 /**< not a kind: one past the last */
};

/** Kinds of USM allocation. */
typedef uint32_t sx_usm_type;
enum {
    SX_USM_TYPE_UNKNOWN = 0, /**< not a USM allocation this context knows */
    SX_USM_TYPE_HOST = 1, /**< host memory the device can read and write */
    SX_USM_TYPE_DEVICE = 2, /**< device memory the host cannot touch directly */
    SX_USM_TYPE_SHARED = 3 /**< memory migrating between host and device */
};

/** Event execution status (OpenCL's order: lower is further along). */
typedef int32_t sx_event_status;
enum {
    SX_EVENT_STATUS_COMPLETE = 0, /**< the command finished */
    SX_EVENT_STATUS_RUNNING = 1, /**< the command runs on the device */
    SX_EVENT_STATUS_SUBMITTED = 2, /**< the command was handed to the device */
    SX_EVENT_STATUS_QUEUED = 3, /**< the command waits in its queue */
    SX_EVENT_STATUS_ERROR = -1 /**< the command, or one it waited on, failed */
};

/** Log levels. */
typedef uint32_t sx_log_level;
enum {
    SX_LOG_NONE = 0, /**< nothing is logged */
    SX_LOG_ERROR = 1, /**< errors only */
    SX_LOG_WARN = 2, /**< errors and warnings */
    SX_LOG_INFO = 3, /**< also what the library decided (adapters loaded, devices found) */
    SX_LOG_DEBUG = 4 /**< everything */
};

/** Info queries shared by the application API and the adapter ABI.
 * Strings are NUL-terminated char arrays; the size includes the NUL. */
typedef uint32_t sx_platform_info;
enum {
    SX_PLATFORM_INFO_NAME = 1,       /**< char[] */
    SX_PLATFORM_INFO_VENDOR = 2,     /**< char[] */
    SX_PLATFORM_INFO_VERSION = 3,    /**< char[] */
    SX_PLATFORM_INFO_BACKEND = 4     /**< sx_backend */
};

/** Device info queries (sx_device_get_info; adapters: sxa_device_table). */
typedef uint32_t sx_device_info;
enum {
    SX_DEVICE_INFO_TYPE = 1,                 /**< sx_device_type (one bit) */
    SX_DEVICE_INFO_NAME = 2,                 /**< char[] */
    SX_DEVICE_INFO_VENDOR = 3,               /**< char[] */
    SX_DEVICE_INFO_DRIVER_VERSION = 4,       /**< char[] */
    SX_DEVICE_INFO_BACKEND = 5,              /**< sx_backend */
    SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE = 6,  /**< size_t */
    SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES = 7,  /**< size_t[3] */
    SX_DEVICE_INFO_LOCAL_MEM_SIZE = 8,       /**< uint64_t bytes */
    SX_DEVICE_INFO_GLOBAL_MEM_SIZE = 9,      /**< uint64_t bytes */
    SX_DEVICE_INFO_MAX_COMPUTE_UNITS = 10,   /**< uint32_t */
    SX_DEVICE_INFO_ASPECTS = 11,             /**< sx_aspect_set */
    SX_DEVICE_INFO_IMAGE_KINDS = 12,         /**< sx_image_kind[], most preferred first */
    SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS = 13, /**< uint32_t: 1 if a local size need not divide the global size */
    SX_DEVICE_INFO_PLATFORM = 14,            /**< the platform handle (API: sx_platform; ABI: sxa_platform) */
    /** Answered by the core; adapters are never asked these. */
    SX_DEVICE_INFO_ADAPTER = 15,             /**< API only: the sx_adapter serving the device */
    SX_DEVICE_INFO_ADAPTER_NAME = 16,        /**< API only: char[], that adapter's name ("opencl", "serialcpu") */
    /** Optional for adapters (SX_ERROR_INVALID_ENUMERATION if not known):
     * size_t[], the sub-group sizes kernels may require, ascending. */
    SX_DEVICE_INFO_SUB_GROUP_SIZES = 17
};

/** A backend-level kernel argument, given at launch. The same layout is
 * used by the application API (sx_queue_launch) and the adapter ABI, so a
 * launch passes the array through without copying.
 *   VALUE:   value points at `size` bytes, copied before the call returns;
 *   POINTER: value IS the USM/device pointer (not a pointer to it);
 *   LOCAL:   `size` bytes of work-group local memory; value must be NULL. */
typedef uint32_t sx_arg_type;
enum {
    SX_ARG_VALUE = 0, /**< the bytes of a value, copied at the call */
    SX_ARG_POINTER = 1, /**< a USM or device pointer */
    SX_ARG_LOCAL = 2 /**< a size of work-group local memory */
};
/** One kernel argument of a launch (sx_queue_launch) or of sx_args_set_all. */
typedef struct sx_arg {
    sx_arg_type type;    /**< VALUE, POINTER or LOCAL */
    uint32_t index;      /**< backend argument index */
    size_t size;         /**< bytes: VALUE and LOCAL; sizeof(void *) for POINTER */
    const void *value;   /**< VALUE: the bytes; POINTER: the pointer itself; LOCAL: NULL */
} sx_arg;

/** Kernel parameter kinds: what "SX/kernel signatures" (binaries.h)
 * stores and what the core hands an adapter in sxa_kernel_param
 * (adapter.h). Here so that an adapter compiles against adapter.h alone. */
enum {
    SX_PARAM_VALUE = 0,    /**< a scalar */
    SX_PARAM_POINTER = 1,  /**< a global/constant/generic pointer */
    SX_PARAM_LOCAL = 2,    /**< a local-address-space pointer: a local size at launch */
    SX_PARAM_STRUCT = 3    /**< a struct passed by value */
};
/** Scalar types of a value parameter or of a struct's leaf. */
enum {
    SX_SCALAR_NONE = 0, /**< not a scalar (a pointer, local or struct parameter) */
    SX_SCALAR_I8 = 1, /**< int8_t */
    SX_SCALAR_U8 = 2, /**< uint8_t */
    SX_SCALAR_I16 = 3, /**< int16_t */
    SX_SCALAR_U16 = 4, /**< uint16_t */
    SX_SCALAR_I32 = 5, /**< int32_t */
    SX_SCALAR_U32 = 6, /**< uint32_t */
    SX_SCALAR_I64 = 7, /**< int64_t */
    SX_SCALAR_U64 = 8, /**< uint64_t */
    SX_SCALAR_F16 = 9, /**< half */
    SX_SCALAR_F32 = 10, /**< float */
    SX_SCALAR_F64 = 11, /**< double */
    SX_SCALAR_PTR = 12 /**< a pointer inside a struct */
};
/** Address spaces of a pointer parameter (OpenCL C's). */
enum {
    SX_ADDRESS_SPACE_PRIVATE = 0, /**< private (per work-item) */
    SX_ADDRESS_SPACE_GLOBAL = 1, /**< global */
    SX_ADDRESS_SPACE_CONSTANT = 2, /**< constant */
    SX_ADDRESS_SPACE_LOCAL = 3, /**< local (per work-group) */
    SX_ADDRESS_SPACE_GENERIC = 4 /**< generic (any of global, local, private) */
};

#ifdef __cplusplus
}
#endif
#endif /* SYCL_EXT_TYPES_H */
