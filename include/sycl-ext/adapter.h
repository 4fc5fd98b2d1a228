/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/** @file sycl-ext/adapter.h
 * @brief the adapter ABI. An adapter compiles against this
 * header (and types.h) alone; it never links libsycl-ext.
 *
 * An adapter is a shared object exporting one symbol, SXA_ENTRY_SYMBOL,
 * whose type is sxa_get_proc_table_fn. The core calls it once per table
 * (SXA_TABLE_*) with the ABI version it speaks and a table whose first
 * field is the table's size as the core knows it. The adapter:
 *   - returns SX_ERROR_UNSUPPORTED_VERSION when it does not speak the
 *     major version asked for (any minor of a known major is accepted);
 *   - returns SX_ERROR_INVALID_ENUMERATION for a table id it does not know
 *     (every table except ADAPTER is then treated as all-unsupported);
 *   - otherwise fills the entries it has (SXA_FILL_TABLE does it) and
 *     leaves the rest NULL.
 * A NULL entry means "unsupported": the core never calls it. Mandatory
 * entries (marked M below) missing make the core reject the adapter at
 * load with a log line naming the entry. Tables only grow at their end.
 *
 * Every object an adapter hands out (platform, device, context, queue,
 * program, kernel, event) starts with an sxa_object whose dispatch field
 * is the services->dispatch pointer given at init, so the core can tell in
 * one load which adapter owns any handle.
 *
 * Errors: every entry returns an sx_result. Before returning an error it
 * should call services->error() with a sentence naming the object, the
 * numbers and the backend's native code (e.g. "clBuildProgram:
 * CL_BUILD_PROGRAM_FAILURE (-11): <log>"); the core prefixes the adapter
 * name. Entries may be called from many threads at once unless noted.
 * doc/adapters.md gives every entry's full contract. */
#ifndef SYCL_EXT_ADAPTER_H
#define SYCL_EXT_ADAPTER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <sycl-ext/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A version number: major in the high 16 bits, minor in the low. */
#define SXA_MAKE_VERSION(major, minor) ((uint32_t)(((major) << 16) | ((minor) & 0xffff)))
/** The major part of a version number. */
#define SXA_MAJOR_VERSION(v) ((uint32_t)(v) >> 16)
/** The minor part of a version number. */
#define SXA_MINOR_VERSION(v) ((uint32_t)(v) & 0xffff)
/** The ABI's major version: a change breaks adapters built for another. */
#define SXA_ABI_VERSION_MAJOR 1
/** The ABI's minor version: entries added at tables' ends. */
#define SXA_ABI_VERSION_MINOR 1
/** The ABI version this header describes. */
#define SXA_ABI_VERSION SXA_MAKE_VERSION(SXA_ABI_VERSION_MAJOR, SXA_ABI_VERSION_MINOR)

/** The one symbol an adapter exports: its sxa_get_proc_table_fn. */
#define SXA_ENTRY_SYMBOL "sxa_get_proc_table"

/** Gives the adapter's entry default visibility (exported). */
#if defined(__GNUC__)
#define SXA_EXPORT __attribute__((visibility("default")))
#else
#define SXA_EXPORT
#endif

/** The core's per-adapter dispatch record; opaque to adapters. */
struct sxa_dispatch;

/** First member of every adapter object. */
typedef struct sxa_object {
    const struct sxa_dispatch *dispatch; /**< services->dispatch, stored at creation */
} sxa_object;

/** The adapter's own state (from init), opaque to the core. */
typedef struct sxa_adapter_s *sxa_adapter;
/** An adapter's platform (starts with an sxa_object). */
typedef struct sxa_platform_s *sxa_platform;
/** An adapter's device (starts with an sxa_object). */
typedef struct sxa_device_s *sxa_device;
/** An adapter's context (starts with an sxa_object). */
typedef struct sxa_context_s *sxa_context;
/** An adapter's queue (starts with an sxa_object). */
typedef struct sxa_queue_s *sxa_queue;
/** An adapter's program: one image, or several linked (starts with an sxa_object). */
typedef struct sxa_program_s *sxa_program;
/** An adapter's kernel of a program (starts with an sxa_object). */
typedef struct sxa_kernel_s *sxa_kernel;
/** An adapter's event (starts with an sxa_object). */
typedef struct sxa_event_s *sxa_event;

/** What the core offers an adapter; valid from init until fini returns. */
typedef struct sxa_services {
    uint32_t size;                        /**< sizeof(sxa_services) as the core knows it */
    uint32_t abi_version;                 /**< the core's SXA_ABI_VERSION */
    const struct sxa_dispatch *dispatch;  /**< store first in every object */
    /** Log a line (no newline needed) at a level; cheap when the level is off. */
    void (*log)(sx_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    /** Set the calling thread's last-error detail; returns `code`. */
    sx_result (*error)(sx_result code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    /** getenv that honours the core's rules (secure_getenv; NULL when the
     * application asked to ignore the environment). */
    const char *(*getenv)(const char *name);
} sxa_services;

/* ---- parameter metadata the core passes at program creation ---- */

/** A scalar leaf of a struct parameter: SX_SCALAR_* at a byte offset. */
typedef struct sxa_param_member {
    uint32_t scalar;  /**< SX_SCALAR_* */
    uint32_t offset;  /**< bytes from the struct's start */
} sxa_param_member;

/** One backend parameter of the kernel's entry point as the backend calls
 * it: the image's "SX/kernel signatures" records with the eliminated ones
 * ("SYCL/kernel param opt") already removed, so params[i] is launch
 * argument i. */
typedef struct sxa_kernel_param {
    uint32_t kind;          /**< SX_PARAM_* */
    uint32_t scalar;        /**< SX_SCALAR_* for SX_PARAM_VALUE, else SX_SCALAR_NONE */
    uint32_t size;          /**< bytes of the value passed (pointer size for pointers) */
    uint32_t align;         /**< its alignment in bytes */
    uint32_t address_space; /**< SX_ADDRESS_SPACE_* for pointers */
    uint32_t num_members;   /**< SX_PARAM_STRUCT: scalar leaves, in order */
    const sxa_param_member *members; /**< num_members leaves */
} sxa_kernel_param;

/** A kernel's backend parameters, by entry name. */
typedef struct sxa_kernel_signature {
    const char *name;       /**< entry name */
    uint32_t num_params;    /**< entries of params */
    const sxa_kernel_param *params; /**< params[i] is launch argument i */
} sxa_kernel_signature;

/** Extra inputs to program creation. Adapters that need no metadata ignore
 * it; host-ELF adapters need the signatures to call kernels. The desc and
 * everything it points to are valid ONLY during the program.create call
 * (the core frees them when it returns): copy what you keep. It lists the
 * kernels of every image that went into the program that have a signature;
 * a kernel without one is absent. */
typedef struct sxa_program_desc {
    uint32_t size;                /**< sizeof(sxa_program_desc) as the core knows it */
    uint32_t num_kernels;         /**< entries of kernels */
    const sxa_kernel_signature *kernels; /**< the signatures of the program's kernels */
    const char *compile_options;  /**< from the image; may be NULL */
    const char *link_options;     /**< may be NULL */
    uint32_t flags;               /**< appended (issue 29): SXA_PROGRAM_*; read it only when size covers it */
} sxa_program_desc;

/** The program's kernels may reach USM memory no argument names: a
 * device_global's USM instance (through the program variable that holds
 * its address). Backends that make only the memory a kernel is given
 * resident must be told (OpenCL: CL_KERNEL_EXEC_INFO_INDIRECT_*_ACCESS_INTEL,
 * Level Zero: zeKernelSetIndirectAccess) for the USM kinds allocated. A
 * kernel with a by-value struct parameter that may hold pointers (a
 * signature member SX_SCALAR_PTR, or no signature at all) needs the same,
 * whatever this flag says. */
#define SXA_PROGRAM_INDIRECT_USM (1u << 0)

/* ---- info queries ---- */
/** Adapter info queries (adapter table's get_info). */
typedef uint32_t sxa_adapter_info;
enum {
    SXA_ADAPTER_INFO_NAME = 1,     /**< char[]: short name, e.g. "opencl" */
    SXA_ADAPTER_INFO_BACKEND = 2,  /**< sx_backend */
    SXA_ADAPTER_INFO_VERSION = 3,  /**< uint32_t, SXA_MAKE_VERSION of the adapter itself */
    SXA_ADAPTER_INFO_STATUS = 4    /**< char[]: one line, e.g. "libcuda.so.1 not found: 0 platforms" */
};
/* Platform and device info use sx_platform_info / sx_device_info from
 * types.h; SX_DEVICE_INFO_PLATFORM answers an sxa_platform. */

/** Kernel info queries (kernel table's get_info). */
typedef uint32_t sxa_kernel_info;
enum {
    SXA_KERNEL_INFO_NUM_ARGS = 1,             /**< uint32_t: backend arguments */
    SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE = 2,  /**< size_t, for the program's device */
    SXA_KERNEL_INFO_LOCAL_MEM_SIZE = 3        /**< uint64_t: static local memory */
};

/** Profiling times of an event (event table's get_profiling). */
typedef uint32_t sxa_profiling_info;
enum {
    SXA_PROFILING_QUEUED = 1,   /**< uint64_t nanoseconds: when the command was queued */
    SXA_PROFILING_SUBMIT = 2,   /**< when it was handed to the device */
    SXA_PROFILING_START = 3,    /**< when it started */
    SXA_PROFILING_END = 4       /**< when it finished */
};

/** Queue flags. */
enum {
    SXA_QUEUE_IN_ORDER = 0,           /**< commands in submission order */
    SXA_QUEUE_OUT_OF_ORDER = 1u << 0, /**< commands in any order their wait lists allow */
    SXA_QUEUE_PROFILING = 1u << 1     /**< events record profiling times */
};

/* ---- the tables ---- */
/** Which table sxa_get_proc_table is asked to fill. */
typedef uint32_t sxa_table_id;
enum {
    SXA_TABLE_ADAPTER = 1,   /**< sxa_adapter_table */
    SXA_TABLE_PLATFORM = 2,  /**< sxa_platform_table */
    SXA_TABLE_DEVICE = 3,    /**< sxa_device_table */
    SXA_TABLE_CONTEXT = 4,   /**< sxa_context_table */
    SXA_TABLE_QUEUE = 5,     /**< sxa_queue_table */
    SXA_TABLE_USM = 6,       /**< sxa_usm_table */
    SXA_TABLE_PROGRAM = 7,   /**< sxa_program_table */
    SXA_TABLE_KERNEL = 8,    /**< sxa_kernel_table */
    SXA_TABLE_ENQUEUE = 9,   /**< sxa_enqueue_table */
    SXA_TABLE_EVENT = 10,    /**< sxa_event_table */
    SXA_TABLE_GLOBAL = 11,   /**< sxa_global_table (ABI 1.1) */
    SXA_TABLE_COUNT_ = 12    /**< not a table: one past the last */
};

/** The adapter table: start and end, what the adapter is. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_adapter_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** M: global init; return the adapter handle. A missing vendor library
     * is not an error: succeed and report 0 platforms. */
    sx_result (*init)(const sxa_services *services, sxa_adapter *out);
    /** M: release everything; called once, after every object was released. */
    sx_result (*fini)(sxa_adapter adapter);
    /** M */
    sx_result (*get_info)(sxa_adapter adapter, sxa_adapter_info param, size_t size,
                          void *value, size_t *size_ret);
} sxa_adapter_table;

/** The platform table. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_platform_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** M: OpenCL-style two-call query; platforms live until fini. */
    sx_result (*get)(sxa_adapter adapter, uint32_t count, sxa_platform *platforms,
                     uint32_t *num_platforms);
    /** M */
    sx_result (*get_info)(sxa_platform platform, sx_platform_info param, size_t size,
                          void *value, size_t *size_ret);
} sxa_platform_table;

/** The device table. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_device_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** M: devices of a type mask; devices live until fini. */
    sx_result (*get)(sxa_platform platform, sx_device_type type, uint32_t count,
                     sxa_device *devices, uint32_t *num_devices);
    /** M */
    sx_result (*get_info)(sxa_device device, sx_device_info param, size_t size,
                          void *value, size_t *size_ret);
} sxa_device_table;

/** The context table. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_context_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** M: all devices belong to one platform of this adapter */
    sx_result (*create)(uint32_t num_devices, const sxa_device *devices, sxa_context *out);
    sx_result (*release)(sxa_context context);  /**< M */
} sxa_context_table;

/** The queue table. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_queue_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** M: flags SXA_QUEUE_*; an adapter without out-of-order queues may
     * return an in-order one. */
    sx_result (*create)(sxa_context context, sxa_device device, uint32_t flags, sxa_queue *out);
    sx_result (*release)(sxa_queue queue);  /**< M: after finish */
    sx_result (*finish)(sxa_queue queue);   /**< M: wait for all its commands */
    sx_result (*flush)(sxa_queue queue);    /**< hand queued commands to the device now */
} sxa_queue_table;

/** The USM table: allocations the device and host share. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_usm_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** M: device is NULL for SX_USM_TYPE_HOST. align 0 = default. */
    sx_result (*alloc)(sxa_context context, sxa_device device, sx_usm_type type, size_t size,
                       size_t align, void **out);
    sx_result (*free)(sxa_context context, void *ptr);  /**< M: only pointers alloc returned */
} sxa_usm_table;

/** The program table: images to programs, built, compiled, linked. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_program_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** M: a program of one image for one device. `kind` is one the device
     * listed in SX_DEVICE_INFO_IMAGE_KINDS; desc may be NULL. */
    sx_result (*create)(sxa_context context, sxa_device device, sx_image_kind kind,
                        const void *data, size_t size, const sxa_program_desc *desc,
                        sxa_program *out);
    /** M: compile and link into an executable; on failure the build log goes
     * into the error detail. */
    sx_result (*build)(sxa_program program, const char *options);
    /** compile only (an object to link later) */
    sx_result (*compile)(sxa_program program, const char *options);
    /** link compiled programs into a new executable program; the inputs stay
     * owned by the caller. */
    sx_result (*link)(sxa_context context, sxa_device device, uint32_t count,
                      const sxa_program *programs, const char *options, sxa_program *out);
    sx_result (*release)(sxa_program program);  /**< M */
    /** the built program as bytes another create() accepts (two-call query) */
    sx_result (*get_binary)(sxa_program program, sx_image_kind *kind, size_t size, void *value,
                            size_t *size_ret);
    /** a program-scope variable: its size and device address (address may be
     * NULL where the backend has none, e.g. OpenCL without USM). */
    sx_result (*get_global)(sxa_program program, const char *name, size_t *size, void **ptr);
} sxa_program_table;

/** The kernel table. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_kernel_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** M: SX_ERROR_INVALID_KERNEL_NAME when the program has no such entry */
    sx_result (*create)(sxa_program program, const char *name, sxa_kernel *out);
    sx_result (*release)(sxa_kernel kernel);  /**< M */
    /** one sxa_kernel_info (two-call query) */
    sx_result (*get_info)(sxa_kernel kernel, sxa_kernel_info param, size_t size, void *value,
                          size_t *size_ret);
} sxa_kernel_table;

/** The enqueue table: commands submitted to a queue. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_enqueue_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** M: launch with the argument array (every backend argument exactly
     * once, any order); the adapter must not keep `args` after returning
     * and must be safe to call for one kernel from many threads at once.
     * local_size NULL = the adapter picks. out_event NULL = none wanted. */
    sx_result (*kernel_launch)(sxa_queue queue, sxa_kernel kernel, uint32_t work_dim,
                               const size_t *global_offset, const size_t *global_size,
                               const size_t *local_size, uint32_t num_args, const sx_arg *args,
                               uint32_t num_events, const sxa_event *wait_list,
                               sxa_event *out_event);
    /** M: USM (or host) to USM (or host) copy */
    sx_result (*usm_memcpy)(sxa_queue queue, int blocking, void *dst, const void *src,
                            size_t size, uint32_t num_events, const sxa_event *wait_list,
                            sxa_event *out_event);
    /** fill `size` bytes with a pattern of pattern_size (1, 2, 4, ... 128 bytes) */
    sx_result (*usm_fill)(sxa_queue queue, void *ptr, size_t pattern_size, const void *pattern,
                          size_t size, uint32_t num_events, const sxa_event *wait_list,
                          sxa_event *out_event);
    /** write/read `count` bytes at `offset` of the program variable `name`;
     * SX_ERROR_INVALID_GLOBAL_NAME if absent, SX_ERROR_INVALID_VALUE if
     * offset + count passes its size. A non-blocking write copies `src`
     * before returning or keeps it alive until done. */
    sx_result (*global_write)(sxa_queue queue, sxa_program program, const char *name,
                              int blocking, size_t count, size_t offset, const void *src,
                              uint32_t num_events, const sxa_event *wait_list,
                              sxa_event *out_event);
    /** the reverse of global_write: `count` bytes at `offset` into dst */
    sx_result (*global_read)(sxa_queue queue, sxa_program program, const char *name,
                             int blocking, size_t count, size_t offset, void *dst,
                             uint32_t num_events, const sxa_event *wait_list,
                             sxa_event *out_event);
    /** an event that completes when the wait list (or, if empty, every
     * earlier command of the queue) has */
    sx_result (*barrier)(sxa_queue queue, uint32_t num_events, const sxa_event *wait_list,
                         sxa_event *out_event);
} sxa_enqueue_table;

/** The event table. Each entry is NULL where unsupported; M marks the mandatory ones. */
typedef struct sxa_event_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    sx_result (*wait)(uint32_t count, const sxa_event *events);  /**< M */
    /** M: SX_EVENT_STATUS_*; a failed command answers SX_EVENT_STATUS_ERROR */
    sx_result (*get_status)(sxa_event event, sx_event_status *status);
    sx_result (*release)(sxa_event event);  /**< M */
    /** one profiling time; the event's queue was made with SXA_QUEUE_PROFILING */
    sx_result (*get_profiling)(sxa_event event, sxa_profiling_info param, uint64_t *value);
} sxa_event_table;

/** ABI 1.1, all optional. Device-global instances for devices without USM
 * (the chipStar way): the core asks for USM first and uses these only when
 * usm.alloc answers SX_ERROR_UNSUPPORTED_FEATURE. An instance is memory the
 * adapter owns (an OpenCL buffer, say), zero-filled at creation. */
typedef struct sxa_global_table {
    uint32_t size;  /**< sizeof the table as the core knows it (set by the core) */
    /** a zero-filled instance of `size` bytes for the device */
    sx_result (*instance_create)(sxa_context context, sxa_device device, size_t size, void **instance);
    /** free an instance instance_create made */
    sx_result (*instance_release)(sxa_context context, void *instance);
    /** copy `count` bytes at `offset` of the instance to (write = 0) or
     * from (write = 1) host memory `host`; a non-blocking copy reads or
     * writes `host` until its event completes (as usm_memcpy) */
    sx_result (*instance_copy)(sxa_queue queue, void *instance, int write, size_t offset, size_t count,
                               void *host, int blocking, uint32_t num_events, const sxa_event *wait_list,
                               sxa_event *out_event);
    /** make the program's pointer variable `name` point at the instance
     * (blocking: kernels launched afterwards see it) */
    sx_result (*bind)(sxa_queue queue, sxa_program program, const char *name, void *instance);
} sxa_global_table;

/** The exported entry point. */
typedef sx_result (*sxa_get_proc_table_fn)(uint32_t abi_version, sxa_table_id id, void *table);
#ifndef SXA_NO_ENTRY_PROTOTYPE
/** The adapter's entry point (SXA_ENTRY_SYMBOL): fills table `id` for the
 * core's ABI version (see the file's description). An adapter that
 * defines SXA_NO_ENTRY_PROTOTYPE declares its own. */
SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table);
#endif

/** Copy an adapter's full static table into the core's, no further than the
 * core's size field allows (older core: fewer entries; newer core: the rest
 * stays NULL). `dst` is the core's table pointer, `src` the adapter's. */
#define SXA_FILL_TABLE(dst, src)                                                   \
    do {                                                                           \
        uint32_t sxa_core_size_ = *(const uint32_t *)(dst);                        \
        size_t sxa_n_ = sizeof(*(src)) < sxa_core_size_ ? sizeof(*(src)) : sxa_core_size_; \
        if (sxa_n_ > sizeof(uint32_t))                                             \
            memcpy((char *)(dst) + sizeof(uint32_t), (const char *)(src) + sizeof(uint32_t), \
                   sxa_n_ - sizeof(uint32_t));                                     \
    } while (0)

/** The whole body of an adapter's entry point when its tables are static:
 * refuse another major version, then copy the table for `id` from `mine`
 * (indexed by sxa_table_id; NULL = a table this adapter does not have).
 * Each of the adapter's tables must have its size field set to its sizeof.
 *   static const void *const tables[SXA_TABLE_COUNT_] = {
 *       [SXA_TABLE_ADAPTER] = &adapter_table, ...};
 *   return sxa_serve_table(abi_version, id, table, tables, SXA_TABLE_COUNT_); */
static inline sx_result sxa_serve_table(uint32_t abi_version, sxa_table_id id, void *table,
                                        const void *const *mine, size_t count)
{
    if (SXA_MAJOR_VERSION(abi_version) != SXA_ABI_VERSION_MAJOR)
        return SX_ERROR_UNSUPPORTED_VERSION;
    if (!table)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (id == 0 || id >= count || !mine[id])
        return SX_ERROR_INVALID_ENUMERATION;
    uint32_t core = *(const uint32_t *)table, own = *(const uint32_t *)mine[id];
    size_t n = own < core ? own : core;
    if (n > sizeof(uint32_t))
        memcpy((char *)table + sizeof(uint32_t), (const char *)mine[id] + sizeof(uint32_t), n - sizeof(uint32_t));
    return SX_SUCCESS;
}

/** Two-call info helper for adapters: copy `n` bytes of `src` out. */
static inline sx_result sxa_info_copy(const void *src, size_t n, size_t size, void *value,
                                      size_t *size_ret)
{
    if (size_ret)
        *size_ret = n;
    if (value) {
        if (size < n)
            return SX_ERROR_INVALID_SIZE;
        memcpy(value, src, n);
    } else if (!size_ret) {
        return SX_ERROR_INVALID_NULL_POINTER;
    }
    return SX_SUCCESS;
}

/** Two-call info helper for adapters: a NUL-terminated string. */
static inline sx_result sxa_info_string(const char *s, size_t size, void *value,
                                        size_t *size_ret)
{
    return sxa_info_copy(s, strlen(s) + 1, size, value, size_ret);
}

/* May a kernel with this signature reach USM through a by-value struct
 * (a member that is a pointer, or a struct whose members are unknown)?
 * Then it needs indirect access declared (SXA_PROGRAM_INDIRECT_USM). */
static inline int sxa_signature_indirect(const sxa_kernel_signature *sig)
{
    for (uint32_t i = 0; i < sig->num_params; i++) {
        const sxa_kernel_param *p = &sig->params[i];
        if (p->kind != SX_PARAM_STRUCT)
            continue;
        if (!p->num_members || !p->members)
            return 1;
        for (uint32_t m = 0; m < p->num_members; m++)
            if (p->members[m].scalar == SX_SCALAR_PTR)
                return 1;
    }
    return 0;
}

#ifdef __cplusplus
}
#endif
#endif /* SYCL_EXT_ADAPTER_H */
