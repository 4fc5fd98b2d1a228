/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/** @file sycl-ext/sx.h
 * @brief the application API of libsycl-ext.
 *
 * Conventions: every function returns an sx_result (SX_SUCCESS = 0) except
 * the three string getters at the top, which cannot fail. On error the
 * calling thread's last-error message (sx_last_error) says what and where.
 * Handles are opaque; NULL handles give SX_ERROR_INVALID_NULL_HANDLE, a
 * handle of another kind SX_ERROR_INVALID_HANDLE, a NULL output pointer
 * SX_ERROR_INVALID_NULL_POINTER, any call but registration before sx_init
 * or after the last sx_fini SX_ERROR_UNINITIALIZED. Every function may also
 * return SX_ERROR_OUT_OF_HOST_MEMORY. Info queries are two-call (OpenCL
 * style): pass value NULL and size_ret to learn the size; a buffer smaller
 * than needed gives SX_ERROR_INVALID_SIZE. All functions are thread-safe.
 * GPU state does not survive fork(): a child must not use handles its
 * parent created. */
#ifndef SYCL_EXT_SX_H
#define SYCL_EXT_SX_H

#include <stddef.h>
#include <stdint.h>

#include <sycl-ext/binaries.h>
#include <sycl-ext/types.h>
#include <sycl-ext/version.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A loaded (or skipped) adapter: one backend module (sx_adapter_get). */
typedef struct sx_adapter_s *sx_adapter;
/** A platform of an adapter: a driver, or one CUDA or OpenCL platform. */
typedef struct sx_platform_s *sx_platform;
/** A device; owned by the library, valid until the last sx_fini. */
typedef struct sx_device_s *sx_device;
/** A context over devices of one platform: USM, programs and device-global
 * instances live in it. Reference counted (retain/release). */
typedef struct sx_context_s *sx_context;
/** A queue of commands to one device of a context. */
typedef struct sx_queue_s *sx_queue;
/** A command's completion: waited for, queried, released. */
typedef struct sx_event_s *sx_event;
/** A kernel id: a kernel name found in the registered images. */
typedef struct sx_kernel_s *sx_kernel;
/** A loaded image file (sx_image_file_load): its images stay registered
 * until it is released. */
typedef struct sx_image_file_s *sx_image_file;

/* ---------------------------------------------------------------- errors */

/** "SX_ERROR_INVALID_VALUE"; "SX_RESULT_UNKNOWN" for a code this version lacks. */
SX_API const char *sx_result_name(sx_result result);
/** One sentence saying what the code means. */
SX_API const char *sx_result_string(sx_result result);
/** The calling thread's last error message ("" if none yet). Valid until
 * the thread's next failing sx_ call. */
SX_API const char *sx_last_error(void);

/* --------------------------------------------------------- init and log */

/** sx_init flags, or-ed together. */
enum {
    SX_INIT_DEFAULT = 0,  /**< read the environment, load adapters as queries need them */
    /** Read no environment variable (adapter lists, selector, log, trace). */
    SX_INIT_IGNORE_ENVIRONMENT = 1u << 0,
    /** In a setuid or setgid process (AT_SECURE), where default discovery
     * loads only the built-in native adapter, also load the installed
     * adapters (the configured adapter directory; never SX_ADAPTERS_PATH,
     * which is environment). No effect in other processes. */
    SX_INIT_INSTALLED_ADAPTERS = 1u << 1
};

/** Load the adapters (first call) or count one more user. Returns
 * SX_ERROR_INVALID_VALUE for unknown flags. Broken adapters are skipped and
 * shown by sx_adapter_get_info; they never make sx_init fail. */
SX_API sx_result sx_init(uint32_t flags);
/** Count one user less; the last one releases every object and unloads the
 * adapters. SX_ERROR_UNINITIALIZED if not initialised. */
SX_API sx_result sx_fini(void);
/** The persistent program cache (SX_CACHE_DIR) is written by a thread of
 * its own, shortly after a first launch built a program. Returns once
 * every entry this process has built is on disk, e.g. before telling
 * other processes (MPI ranks after a barrier) to read them. Needs no
 * sx_init; always SX_SUCCESS (an entry that cannot be written is logged). */
SX_API sx_result sx_cache_flush(void);
/** The library's version (may differ from SX_VERSION_* of the headers). */
SX_API sx_result sx_get_version(uint32_t *major, uint32_t *minor, uint32_t *patch);

/** Receives each log line at or above the log level (sx_set_log_callback). */
typedef void (*sx_log_callback)(sx_log_level level, const char *message, void *user_data);
/** Silent by default; the SX_LOG environment variable (error, warn, info,
 * debug) sets the initial level. SX_ERROR_INVALID_ENUMERATION past DEBUG. */
SX_API sx_result sx_set_log_level(sx_log_level level);
/** NULL restores the default (lines on stderr). */
SX_API sx_result sx_set_log_callback(sx_log_callback callback, void *user_data);

/* ------------------------------------------------------------- adapters */

/** Adapter info queries (sx_adapter_get_info). */
typedef uint32_t sx_adapter_info;
enum {
    SX_ADAPTER_INFO_NAME = 1,         /**< char[] */
    SX_ADAPTER_INFO_PATH = 2,         /**< char[]: resolved file, "(built in)" for native */
    SX_ADAPTER_INFO_STATUS = 3,       /**< sx_result: SX_SUCCESS if loaded and usable */
    SX_ADAPTER_INFO_STATUS_TEXT = 4,  /**< char[]: why it is not usable, or its own status line */
    SX_ADAPTER_INFO_BACKEND = 5,      /**< sx_backend */
    SX_ADAPTER_INFO_VERSION = 6,      /**< uint32_t: the adapter's ABI version */
    SX_ADAPTER_INFO_NUM_PLATFORMS = 7 /**< uint32_t */
};
/** Every adapter that was tried, loaded or not, in discovery order. */
SX_API sx_result sx_adapter_get(uint32_t count, sx_adapter *adapters, uint32_t *num_adapters);
/** What an adapter is, where it came from and whether it loaded: the
 * two-call info query (see the conventions above) for one sx_adapter_info. */
SX_API sx_result sx_adapter_get_info(sx_adapter adapter, sx_adapter_info param, size_t size,
                                     void *value, size_t *size_ret);

/* ----------------------------------------------------- platforms/devices */

/** The platforms of every usable adapter the SX_DEVICE_SELECTOR leaves in,
 * in adapter order (two-call: count 0 and platforms NULL give the number). */
SX_API sx_result sx_platform_get(uint32_t count, sx_platform *platforms, uint32_t *num_platforms);
/** One sx_platform_info of a platform (two-call info query). */
SX_API sx_result sx_platform_get_info(sx_platform platform, sx_platform_info param, size_t size,
                                      void *value, size_t *size_ret);

/** Devices of `platform` (NULL: of all platforms) whose type is in `type`,
 * after the SX_DEVICE_SELECTOR filter. SX_ERROR_DEVICE_NOT_FOUND if none. */
SX_API sx_result sx_device_get(sx_platform platform, sx_device_type type, uint32_t count,
                               sx_device *devices, uint32_t *num_devices);
/** The device a plain program should use: the first selected GPU, else
 * accelerator, else CPU, in adapter order. */
SX_API sx_result sx_device_get_default(sx_device *device);
/** The devices that pass `selector` (SX_DEVICE_SELECTOR's syntax, e.g.
 * "native:*", "cuda:0;opencl:gpu", "serialcpu:*") and SX_DEVICE_SELECTOR,
 * best first: GPUs, then accelerators, then CPUs, each in adapter order.
 * Loads only the adapters the selector can need, so a program that asks
 * for "native:*" never starts PoCL, CUDA or Level Zero.
 * SX_ERROR_INVALID_VALUE for a malformed selector, SX_ERROR_DEVICE_NOT_FOUND
 * when no device passes. */
SX_API sx_result sx_device_select(const char *selector, uint32_t count, sx_device *devices,
                                  uint32_t *num_devices);
/** One sx_device_info of a device (two-call info query). */
SX_API sx_result sx_device_get_info(sx_device device, sx_device_info param, size_t size,
                                    void *value, size_t *size_ret);
/** *has = 1 if the device has the aspect. */
SX_API sx_result sx_device_has_aspect(sx_device device, sx_aspect aspect, int *has);

/* ------------------------------------------------------- contexts/queues */

/** All devices must come from one platform. */
SX_API sx_result sx_context_create(uint32_t num_devices, const sx_device *devices,
                                   sx_context *context);
/** One more reference to the context; each needs an sx_context_release. */
SX_API sx_result sx_context_retain(sx_context context);
/** The last release frees the context's programs, kernels' cached state,
 * device-global instances and USM allocations. */
SX_API sx_result sx_context_release(sx_context context);

/** Queue flags (sx_queue_create), or-ed together. */
enum {
    SX_QUEUE_IN_ORDER = 0,            /**< commands run one after another, in submission order */
    SX_QUEUE_OUT_OF_ORDER = 1u << 0,  /**< optional: an adapter may give in-order */
    SX_QUEUE_PROFILING = 1u << 1      /**< events record times (sx_event_get_profiling) */
};
/** A queue to `device` (one of the context's) with SX_QUEUE_* flags;
 * SX_ERROR_INVALID_DEVICE for a device outside the context. */
SX_API sx_result sx_queue_create(sx_context context, sx_device device, uint32_t flags,
                                 sx_queue *queue);
/** Waits for the queue's commands, then frees it. */
SX_API sx_result sx_queue_release(sx_queue queue);
/** Wait for every command submitted to the queue so far. */
SX_API sx_result sx_queue_wait(sx_queue queue);

/* ------------------------------------------------------------------ USM */

/** type DEVICE and SHARED need a device of the context; HOST takes NULL.
 * align 0 = default, else a power of two. SX_ERROR_UNSUPPORTED_FEATURE
 * when the device has no USM of that type. */
SX_API sx_result sx_usm_alloc(sx_context context, sx_device device, sx_usm_type type,
                              size_t size, size_t align, void **ptr);
/** Only pointers sx_usm_alloc returned for this context; anything else is
 * SX_ERROR_INVALID_VALUE (never freed). NULL is a no-op. */
SX_API sx_result sx_usm_free(sx_context context, void *ptr);
/** The type and size of the allocation `ptr` points into (UNKNOWN, 0 if none). */
SX_API sx_result sx_usm_get_info(sx_context context, const void *ptr, sx_usm_type *type,
                                 size_t *size);

/* ------------------------------------------------------ queue commands */
/* Each takes a wait list and optionally returns an event (NULL: none). */

/** Copy `size` bytes between USM allocations or host memory; blocking
 * returns once the copy is done. */
SX_API sx_result sx_queue_memcpy(sx_queue queue, int blocking, void *dst, const void *src,
                                 size_t size, uint32_t num_events, const sx_event *wait_list,
                                 sx_event *event);
/** Fill `size` bytes at ptr with copies of the pattern; pattern_size: a
 * power of two up to 128, dividing size. */
SX_API sx_result sx_queue_fill(sx_queue queue, void *ptr, const void *pattern,
                               size_t pattern_size, size_t size, uint32_t num_events,
                               const sx_event *wait_list, sx_event *event);
/** A command that completes once the wait list (empty: every command
 * submitted before it) has. */
SX_API sx_result sx_queue_barrier(sx_queue queue, uint32_t num_events, const sx_event *wait_list,
                                  sx_event *event);

/* --------------------------------------------------------------- events */

/** Wait until every event of the list completed; SX_ERROR_EVENT_FAILED
 * when one of their commands failed (the message says which and why). */
SX_API sx_result sx_event_wait(uint32_t count, const sx_event *events);
/** The event's sx_event_status now, without waiting. */
SX_API sx_result sx_event_get_status(sx_event event, sx_event_status *status);
/** Profiling times of an event (sx_event_get_profiling): uint64_t
 * nanoseconds on the device's clock; its queue was made with
 * SX_QUEUE_PROFILING. */
typedef uint32_t sx_profiling_info;
enum {
    SX_PROFILING_QUEUED = 1, /**< when the command was submitted to the queue */
    SX_PROFILING_SUBMIT = 2, /**< when it was handed to the device */
    SX_PROFILING_START = 3,  /**< when it started running */
    SX_PROFILING_END = 4     /**< when it finished */
};
/** One profiling time; SX_ERROR_INVALID_OPERATION before the command
 * completed or without profiling. */
SX_API sx_result sx_event_get_profiling(sx_event event, sx_profiling_info param, uint64_t *value);
/** Release the event (its command goes on). */
SX_API sx_result sx_event_release(sx_event event);

/* ------------------------------------------------------- device images */

/** Register the images of a descriptor (DPC++ offload-wrapper layout). May be
 * called before sx_init and after sx_fini (constructors of shared objects).
 * The descriptor and everything it points to must stay valid until
 * sx_unregister_images. The whole descriptor is checked first:
 * SX_ERROR_INVALID_BINARY (naming the image and field) and nothing
 * registered if any part is damaged; SX_ERROR_INVALID_OPERATION if it is
 * already registered. */
SX_API sx_result sx_register_images(const sx_device_binaries *binaries);
/** Remove exactly what that descriptor contributed; programs built from its
 * images are dropped. SX_ERROR_INVALID_VALUE if it was not registered. */
SX_API sx_result sx_unregister_images(const sx_device_binaries *binaries);

/** Load an image file (what proptool writes), register its images and
 * return a handle; release unregisters them. Every offset and length is
 * checked: a damaged file is SX_ERROR_INVALID_BINARY, an unknown major
 * version SX_ERROR_UNSUPPORTED_VERSION, a file that cannot be read SX_ERROR_IO. */
SX_API sx_result sx_image_file_load(const char *path, sx_image_file *file);
/** From memory: the bytes are copied. */
SX_API sx_result sx_image_file_load_memory(const void *data, size_t size, sx_image_file *file);
/** Unregister the file's images and free it (programs built from them are dropped). */
SX_API sx_result sx_image_file_release(sx_image_file file);

/* -------------------------------------------------------------- kernels */

/** A kernel of the registered images by entry name. Each call gives a
 * handle of its own (handles of one name share their built programs);
 * release each once: a second release is SX_ERROR_INVALID_HANDLE. The
 * handle stays valid after the images are unregistered (launching then
 * reports SX_ERROR_KERNEL_NOT_SUPPORTED, also for a launch racing the
 * unregistration); release it when done.
 * SX_ERROR_INVALID_KERNEL_NAME if no registered image has it. */
SX_API sx_result sx_kernel_get(const char *name, sx_kernel *kernel);
/** Release a kernel id (each sx_kernel_get or _get_all gave one reference). */
SX_API sx_result sx_kernel_release(sx_kernel kernel);

/** Kernel info queries (sx_kernel_get_info). */
typedef uint32_t sx_kernel_info;
enum {
    SX_KERNEL_INFO_NAME = 1,             /**< char[]: entry name */
    SX_KERNEL_INFO_NUM_BACKEND_ARGS = 2, /**< uint32_t: parameters of the entry */
    SX_KERNEL_INFO_KIND = 3,             /**< uint32_t SX_KERNEL_KIND_* */
    SX_KERNEL_INFO_DIMENSIONS = 4,       /**< uint32_t: nd_range dims, 0 otherwise */
    SX_KERNEL_INFO_NUM_ARGS = 5          /**< uint32_t: source-level parameters (info::kernel::num_args) */
};
/** One sx_kernel_info of a kernel, from its registered images' signatures
 * (two-call info query). */
SX_API sx_result sx_kernel_get_info(sx_kernel kernel, sx_kernel_info param, size_t size,
                                    void *value, size_t *size_ret);
/** *compatible = 1 if a registered image of the kernel can run on the device
 * (image kind accepted, required aspects present). */
SX_API sx_result sx_kernel_is_compatible(sx_kernel kernel, sx_device device, int *compatible);

/** Launch with backend-level arguments given as an array (see sx_arg):
 * nothing is stored in the kernel, so many threads may launch one kernel
 * with different arguments at once. work_dim 1..3; local_size NULL lets the
 * backend choose. The first launch on a (context, device) builds the
 * program; later launches find it with one lookup. */
SX_API sx_result sx_queue_launch(sx_queue queue, sx_kernel kernel, uint32_t work_dim,
                                 const size_t *global_offset, const size_t *global_size,
                                 const size_t *local_size, uint32_t num_args,
                                 const sx_arg *args, uint32_t num_events,
                                 const sx_event *wait_list, sx_event *event);

/* ------------------------------------------------ free-function kernels */
/* sycl_ext_oneapi_free_function_kernels: kernels found by function name,
 * arguments set by source-level index and mapped to the backend's
 * (eliminated arguments dropped, decomposed ones expanded,
 * work_group_memory as local memory, the scratch argument appended). */

/** A free-function kernel by its function name: "foo" finds the entry
 * "__sycl_kernel_foo" (extern "C") or the one C++ entry for foo
 * ("_Z17__sycl_kernel_foo..."), "ns::foo" a namespaced one, also through
 * inline and anonymous namespaces the name leaves out ("ns::f" finds
 * ns::v1::f, "g" finds a g in an anonymous namespace; the outermost named namespace must
 * be given; a name as written wins over one with namespaces left out); a
 * full entry name is taken as is. Overloads and template instances share a name:
 * ask for them by full entry name (SX_ERROR_INVALID_KERNEL_NAME lists the
 * candidates). SX_ERROR_INVALID_KERNEL_NAME also when no registered image
 * has it, or when the entry is not a free-function kernel. */
SX_API sx_result sx_kernel_get_free_function(const char *name, sx_kernel *kernel);
/** Every kernel of the registered images (kernel ids), each retained:
 * release them. Two-call like the info queries. */
SX_API sx_result sx_kernel_get_all(uint32_t count, sx_kernel *kernels, uint32_t *num_kernels);

/** An argument set for one submission (handler::set_arg). Not shared
 * between threads; reusable: values are copied when set and when launched. */
typedef struct sx_args_s *sx_args;
/** An empty argument set for `kernel`; the registered images' signature of
 * the kernel, where one is known, is what each argument is checked against
 * when it is set (kind and size). */
SX_API sx_result sx_args_create(sx_kernel kernel, sx_args *args);
/** Free an argument set (launches already submitted keep their copies). */
SX_API sx_result sx_args_release(sx_args args);
/** set_arg(index, value): `size` bytes of a trivially copyable value.
 * Checked against the kernel's signature where the argument is set:
 * SX_ERROR_INVALID_ARGUMENT_SIZE when the parameter has another size,
 * SX_ERROR_INVALID_KERNEL_ARGS when it is work_group_memory; the value set
 * before stays. */
SX_API sx_result sx_args_set(sx_args args, uint32_t index, size_t size, const void *value);
/** set_arg(index, usm_pointer): SX_ERROR_INVALID_KERNEL_ARGS when the
 * parameter is not a pointer. */
SX_API sx_result sx_args_set_pointer(sx_args args, uint32_t index, const void *ptr);
/** set_arg(index, work_group_memory): `size` bytes of work-group local
 * memory; SX_ERROR_INVALID_KERNEL_ARGS when the parameter is not
 * work_group_memory. */
SX_API sx_result sx_args_set_local(sx_args args, uint32_t index, size_t size);
/** set_args(...): count arguments by source index (sx_arg.index is the
 * source index; VALUE, POINTER or LOCAL). */
SX_API sx_result sx_args_set_all(sx_args args, uint32_t count, const sx_arg *values);
/** Forget every value set. */
SX_API sx_result sx_args_clear(sx_args args);

/** Launch properties of sx_nd_launch and sx_single_task (NULL: none). */
typedef struct sx_launch_properties {
    uint32_t size;                    /**< sizeof(sx_launch_properties) */
    uint32_t reserved;                /**< 0 */
    size_t work_group_scratch_size;   /**< bytes of get_work_group_scratch_memory() */
} sx_launch_properties;

/** nd_launch: an nd_range kernel of `work_dim` dimensions (or a plain
 * kernel); local_size NULL lets the backend choose. Errors name the kernel,
 * the index and the numbers: SX_ERROR_INVALID_KERNEL_ARGS (an argument not
 * set, or of the wrong kind), SX_ERROR_INVALID_ARGUMENT_SIZE,
 * SX_ERROR_INVALID_WORK_DIMENSION (dimensions differ from the kernel's),
 * SX_ERROR_INVALID_OPERATION (a single_task kernel), SX_ERROR_INVALID_WORK_GROUP_SIZE
 * (local size does not divide, or exceeds the device's limits),
 * SX_ERROR_KERNEL_NOT_SUPPORTED (no image for the device), SX_ERROR_INVALID_VALUE
 * (work_group_scratch_size missing for a kernel that uses scratch memory;
 * given for one that does not, it is ignored, as in DPC++). props may be NULL. */
SX_API sx_result sx_nd_launch(sx_queue queue, sx_args args, uint32_t work_dim, const size_t *global_size,
                              const size_t *local_size, const sx_launch_properties *props,
                              uint32_t num_events, const sx_event *wait_list, sx_event *event);
/** single_task: SX_ERROR_INVALID_OPERATION for an nd_range kernel. */
SX_API sx_result sx_single_task(sx_queue queue, sx_args args, const sx_launch_properties *props,
                                uint32_t num_events, const sx_event *wait_list, sx_event *event);

/* -------------------------------------------------------- device globals */
/** sycl_ext_oneapi_device_global. A device global is known by its unique id
 * (the images' "SYCL/device globals" sets) and, on the host, by the address
 * of its host object, which sx_device_global_add registers (device-global.h
 * has macros that define the object and register it). The host object is
 * DPC++'s layout: { void *usm; T initial_value; } for ordinary variables,
 * { T value; } with SX_DEVICE_GLOBAL_IMAGE_SCOPE, where it also holds the
 * value while no image contains the variable. */
enum {
    SX_HOST_ACCESS_READ = 0,       /**< the host may read it only */
    SX_HOST_ACCESS_WRITE = 1,      /**< the host may write it only */
    SX_HOST_ACCESS_READ_WRITE = 2, /**< the host may read and write it */
    SX_HOST_ACCESS_NONE = 3        /**< the host may not copy it */
};
/** sx_device_global_add flags. */
enum {
    SX_DEVICE_GLOBAL_IMAGE_SCOPE = 1u << 0  /**< device_image_scope */
};

/** Register a host object (any order relative to image registration, before
 * sx_init too). size = sizeof(T); flags SX_DEVICE_GLOBAL_*; host_access
 * SX_HOST_ACCESS_*. SX_ERROR_INVALID_SIZE if a registered image says
 * another size; SX_ERROR_INVALID_OPERATION if the address or id is taken. */
SX_API sx_result sx_device_global_add(const void *host_ptr, const char *unique_id, size_t size, uint32_t flags,
                                      uint32_t host_access);
/** Remove what sx_device_global_add added (a library's destructor). */
SX_API sx_result sx_device_global_remove(const void *host_ptr);

/** memcpy(dest_global, src, num_bytes, offset) and the reverse. src/dst are
 * host or USM memory; blocking as for sx_queue_memcpy. Errors name the
 * variable and the numbers: SX_ERROR_INVALID_GLOBAL_NAME (not registered),
 * SX_ERROR_INVALID_VALUE (offset + bytes past the variable; or, with
 * device_image_scope, the variable is in more than one image or program for
 * the device), SX_ERROR_ACCESS_DENIED (host_access forbids it),
 * SX_ERROR_KERNEL_NOT_SUPPORTED (its image cannot run on the device). */
SX_API sx_result sx_queue_device_global_write(sx_queue queue, const void *global, const void *src, size_t num_bytes,
                                              size_t offset, int blocking, uint32_t num_events,
                                              const sx_event *wait_list, sx_event *event);
/** Copy `num_bytes` at `offset` of the device global into dst (the reverse
 * of sx_queue_device_global_write, with the same errors). */
SX_API sx_result sx_queue_device_global_read(sx_queue queue, void *dst, const void *global, size_t num_bytes,
                                             size_t offset, int blocking, uint32_t num_events,
                                             const sx_event *wait_list, sx_event *event);
/** copy(src, dest_global, count, start_index): count elements of elem_size
 * bytes into the device global, starting at element start_index. */
SX_API sx_result sx_queue_device_global_copy_to(sx_queue queue, const void *src, const void *global, size_t elem_size,
                                                size_t count, size_t start_index, int blocking, uint32_t num_events,
                                                const sx_event *wait_list, sx_event *event);
/** copy(global, dest, count, start_index): count elements of elem_size
 * bytes from element start_index of the device global into dst. */
SX_API sx_result sx_queue_device_global_copy_from(sx_queue queue, void *dst, const void *global, size_t elem_size,
                                                  size_t count, size_t start_index, int blocking, uint32_t num_events,
                                                  const sx_event *wait_list, sx_event *event);

#ifdef __cplusplus
}
#endif
#endif /* SYCL_EXT_SX_H */
