/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* opencl.h: what the OpenCL adapter's files share: the dlsym'd entry points, objects, helpers. */
#ifndef SXO_OPENCL_H
#define SXO_OPENCL_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <sycl-ext/adapter.h>

#define SXO_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SXO_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* Versions are major * 10 + minor (1.2 -> 12, 3.0 -> 30). */
#define SXO_VERSION(major, minor) ((major) * 10 + (minor))

/* cl_intel_global_variable_access / _pointers are in no header here: typed
 * from the extension texts (Intel's, as used by UR's OpenCL adapter). */
typedef cl_int (CL_API_CALL *sxo_read_global_fn)(cl_command_queue, cl_program, const char *,
                                                 cl_bool, size_t, size_t, void *, cl_uint,
                                                 const cl_event *, cl_event *);
typedef cl_int (CL_API_CALL *sxo_write_global_fn)(cl_command_queue, cl_program, const char *,
                                                  cl_bool, size_t, size_t, const void *, cl_uint,
                                                  const cl_event *, cl_event *);
typedef cl_int (CL_API_CALL *sxo_global_pointer_fn)(cl_device_id, cl_program, const char *,
                                                    size_t *, void **);

/* Every core entry point the adapter calls, resolved with dlsym at init.
 * The 2.x ones may be NULL with an older loader, and are only called when
 * the device and its platform are new enough (sxo_device.version). */
#define SXO_CL_ENTRIES(X)                                                            \
    X(clGetPlatformIDs, 1) X(clGetPlatformInfo, 1) X(clGetDeviceIDs, 1)             \
    X(clGetDeviceInfo, 1) X(clCreateContext, 1) X(clReleaseContext, 1)              \
    X(clCreateCommandQueue, 1) X(clReleaseCommandQueue, 1) X(clFinish, 1) X(clFlush, 1) \
    X(clCreateProgramWithBinary, 1) X(clCreateProgramWithSource, 1)                 \
    X(clBuildProgram, 1) X(clCompileProgram, 1) X(clLinkProgram, 1)                 \
    X(clGetProgramInfo, 1) X(clGetProgramBuildInfo, 1) X(clReleaseProgram, 1)       \
    X(clCreateKernel, 1) X(clReleaseKernel, 1) X(clSetKernelArg, 1)                 \
    X(clGetKernelInfo, 1) X(clGetKernelWorkGroupInfo, 1)                            \
    X(clEnqueueNDRangeKernel, 1) X(clEnqueueMarkerWithWaitList, 1)                  \
    X(clEnqueueBarrierWithWaitList, 1) X(clCreateBuffer, 1) X(clReleaseMemObject, 1) \
    X(clEnqueueReadBuffer, 1) X(clEnqueueWriteBuffer, 1) X(clWaitForEvents, 1) X(clGetEventInfo, 1)            \
    X(clGetEventProfilingInfo, 1) X(clReleaseEvent, 1) X(clSetEventCallback, 1)                              \
    X(clGetExtensionFunctionAddressForPlatform, 1)                                   \
    X(clCreateCommandQueueWithProperties, 0) X(clSVMAlloc, 0) X(clSVMFree, 0)        \
    X(clSetKernelArgSVMPointer, 0) X(clEnqueueSVMMemcpy, 0) X(clEnqueueSVMMemFill, 0) \
    X(clCreateProgramWithIL, 0) X(clSetKernelExecInfo, 0)

typedef struct sxo_api {
#define SXO_FIELD(name, required) __typeof__(&name) name;
    SXO_CL_ENTRIES(SXO_FIELD)
#undef SXO_FIELD
} sxo_api;

extern sxo_api sxo_cl;
extern const sxa_services *sxo_svc;

/* USM flavour of a device, best first. */
enum sxo_usm_mode { SXO_USM_NONE = 0, SXO_USM_SVM = 1, SXO_USM_INTEL = 2 };

/* Extension entry points of one platform (clGetExtensionFunctionAddressForPlatform). */
typedef struct sxo_ext {
    clHostMemAllocINTEL_fn host_alloc;
    clDeviceMemAllocINTEL_fn device_alloc;
    clSharedMemAllocINTEL_fn shared_alloc;
    clMemBlockingFreeINTEL_fn blocking_free;
    clSetKernelArgMemPointerINTEL_fn set_arg_mem_pointer;
    clEnqueueMemcpyINTEL_fn memcpy;
    clEnqueueMemFillINTEL_fn fill;
    sxo_read_global_fn read_global;
    sxo_write_global_fn write_global;
    sxo_global_pointer_fn global_pointer;
    clCreateProgramWithILKHR_fn create_with_il_khr;
} sxo_ext;

struct sxa_platform_s;

struct sxa_device_s {
    sxa_object base;
    struct sxa_platform_s *platform;
    cl_device_id id;
    int version;                 /* min(platform, device) OpenCL version */
    char *extensions;            /* " ext1 ext2 ... " for word search */
    char *name, *vendor, *driver;
    sx_device_type type;
    size_t max_wg;
    size_t max_items[3];
    uint64_t local_mem, global_mem;
    uint32_t compute_units;
    uint32_t nonuniform;
    sx_aspect_set aspects;
    sx_image_kind kinds[2];
    uint32_t num_kinds;
    int il_khr;                  /* SPIR-V through cl_khr_il_program (before 2.1) */
    enum sxo_usm_mode usm;
    cl_device_svm_capabilities svm;
    cl_command_queue_properties queue_props;
    int global_access;           /* cl_intel_global_variable_access usable */
    /* A CPU device whose memory is the host's (CL_DEVICE_HOST_UNIFIED_MEMORY)
     * with clEnqueueSVMMemcpy: a variable's address from
     * cl_intel_global_variable_pointers is host memory, copied by
     * clEnqueueSVMMemcpy (see globals.c). */
    int host_copies;
    /* Whether program-scope variables are shared by the kernels of a
     * program (PoCL 3.1 keeps one copy per kernel): probed once, lazily. */
    pthread_mutex_t dg_lock;
    int dg_shared;               /* -1 not probed yet, 1 shared, 0 per-kernel copies */
    char dg_note[256];           /* what the probe found, for error messages */
};

struct sxa_platform_s {
    sxa_object base;
    cl_platform_id id;
    char *name, *vendor, *version;
    int cl_version;
    uint32_t num_devices;
    struct sxa_device_s *devices;
    sxo_ext ext;
    /* Oclgrind runs kernels in whichever thread waits and is not safe
     * for two at once: such platforms get every enqueue and wait under
     * sxo_serial (SX_OPENCL_SERIALIZE=1 forces it for all platforms). */
    int serialize;
    /* Oclgrind 21.10 asserts (aborts the process) making a program whose
     * module declares a program-scope variable it does not define: such
     * SPIR modules are refused before they reach it (bitcode.c). */
    int aborts_on_extern_vars;
};

extern pthread_mutex_t sxo_serial;  /* recursive */
extern int sxo_serialize_any;

/* An SVM allocation aligned past what clSVMAlloc takes: the base to free. */
typedef struct sxo_aligned {
    struct sxo_aligned *next;
    void *ptr, *base;
} sxo_aligned;

struct sxa_context_s {
    sxa_object base;
    cl_context ctx;
    uint32_t num_devices;
    struct sxa_device_s **devices;
    pthread_mutex_t lock;        /* aligned */
    sxo_aligned *aligned;
    /* USM kinds allocated so far (bit 1 << SX_USM_TYPE_*): what a kernel
     * that reaches USM indirectly must declare (kernel.c). */
    _Atomic uint32_t usm_kinds;
};

struct sxa_queue_s {
    sxa_object base;
    struct sxa_context_s *context;
    struct sxa_device_s *device;
    cl_command_queue q;
    /* A kernel was enqueued since the last finish (a hint, not a fact: a
     * blocking host copy finishes the queue first only when it is set). */
    _Atomic int kernels_pending;
};

/* One device global reached through accessor kernels (or the Intel entry points). */
typedef struct sxo_global {
    struct sxo_global *next;
    char *name;
    size_t size;
    void *ptr;                   /* its address (cl_intel_global_variable_pointers), or NULL */
    cl_kernel read, write;       /* NULL with the Intel extension */
    int single;                  /* read == write == the one __sx_dg_access_ kernel */
    pthread_mutex_t lock;        /* clSetKernelArg + enqueue of the accessors */
} sxo_global;

struct sxa_program_s {
    sxa_object base;
    struct sxa_context_s *context;
    struct sxa_device_s *device;
    cl_program prog;
    sx_image_kind kind;
    char *default_options;       /* the image's compile options (desc) */
    char *default_link_options;
    pthread_mutex_t lock;        /* globals list: insertions */
    _Atomic(sxo_global *) globals; /* read without the lock: records are only prepended, freed with the program */
    /* Indirect USM access (issue 29): SXA_PROGRAM_INDIRECT_USM for all its
     * kernels, and the kernels whose signatures show they need none (any
     * other kernel declares it: unknown arguments may hold pointers). */
    uint32_t usm_flags;
    char **direct_only;
    uint32_t num_direct_only;
};

/* One cl_kernel of a kernel and what its arguments hold. clSetKernelArg
 * is the one OpenCL call that is not thread-safe on a shared cl_kernel, and
 * the ABI lets many threads launch one kernel with different arguments:
 * set-args + enqueue run under the slot's lock. */
struct sxo_kernel_slot {
    pthread_mutex_t lock;
    cl_kernel k;
    /* What each argument was last set to (under the lock): a launch that
     * passes the same value skips its clSetKernelArg*, as a program that
     * sets arguments once would (num_args entries; NULL with none). */
    struct sxo_arg_memo *memo;
    uint32_t indirect_kinds;     /* USM kinds declared for indirect access (under the lock) */
};

/* Threads that launch one kernel at once each get a cl_kernel of their own
 * (made from the program when every existing one is busy), up to this
 * many; past it they wait for one, as with a single kernel. */
#define SXO_KERNEL_SLOTS 16

struct sxa_kernel_s {
    sxa_object base;
    struct sxa_program_s *program;
    cl_kernel k;                 /* slots[0]->k: the one info queries use */
    cl_uint num_args;
    char *name;                  /* for clCreateKernel of more slots */
    int indirect;                /* may reach USM no argument names: declare indirect access */
    pthread_mutex_t grow;        /* adding a slot */
    /* Slots are only appended (published by num_slots) and freed with the kernel. */
    _Atomic uint32_t num_slots;
    struct sxo_kernel_slot *slots[SXO_KERNEL_SLOTS];
};

/* One argument as last set: type + 1 (0: unknown, set it), its size, and
 * a value of up to SXO_MEMO_BYTES bytes (a pointer for SX_ARG_POINTER).
 * A pointer is the same argument only while no USM/SVM memory was freed
 * since it was set: drivers resolve the allocation when it is set (Intel's
 * refuses the launch, or crashes, when a freed allocation's address has
 * come back as a new one). */
#define SXO_MEMO_BYTES 32
struct sxo_arg_memo {
    uint32_t type;
    uint32_t size;
    unsigned long frees;  /* sxo_usm_frees when a pointer was set */
    unsigned char bytes[SXO_MEMO_BYTES];
};
/* USM/SVM frees so far in this process (memory.c), counted before each free. */
extern _Atomic unsigned long sxo_usm_frees;

struct sxa_event_s {
    sxa_object base;
    cl_event ev;
};

/* errors.c */
const char *sxo_cl_error_name(cl_int err);
sx_result sxo_result_of(cl_int err);
/* Report a failed OpenCL call: "<call>: <CL_NAME> (<n>) <what...>". */
sx_result sxo_fail(cl_int err, const char *call, const char *fmt, ...) SXO_PRINTF(3, 4) __attribute__((cold));
/* Report a failure with an explicit sx code (no native code). */
sx_result sxo_error(sx_result code, const char *fmt, ...) SXO_PRINTF(2, 3) __attribute__((cold));
/* spirv-check.c: refuse SPIR-V that crashes a driver (SX_ERROR_INVALID_BINARY). */
sx_result sxo_spirv_check(const void *data, size_t size);

/* device.c */
sx_result sxo_platforms_load(struct sxa_platform_s **out, uint32_t *count);
void sxo_platforms_free(struct sxa_platform_s *platforms, uint32_t count);
int sxo_has_extension(const struct sxa_device_s *dev, const char *ext);
/* Probe (once) whether the device shares program-scope variables across kernels. */
int sxo_device_shares_globals(struct sxa_device_s *dev);
/* A SPIR module's first program-scope variable declared but not defined (bitcode.c):
 * 1 and its name, 0 if none, -1 if the module does not say (no symbol table). */
int sxo_bitcode_undefined_variable(const void *data, size_t size, char *name, size_t name_size);

/* memory.c */
/* Turn a wait list into cl_events; `buf` holds `cap` entries, larger lists
 * are allocated (free with sxo_wait_list_free). */
sx_result sxo_wait_list(uint32_t n, const sxa_event *events, cl_event *buf, size_t cap,
                        cl_event **out);
void sxo_wait_list_free(cl_event *list, cl_event *buf);
/* Wrap an event for the caller, or release it when not wanted. */
sx_result sxo_event_out(cl_event ev, sxa_event *out);
cl_command_queue sxo_create_cl_queue(struct sxa_context_s *ctx, struct sxa_device_s *dev,
                                     uint32_t flags, cl_int *err);
int sxo_context_has(const struct sxa_context_s *c, const struct sxa_device_s *d);
/* The USM flavour a context uses: the weakest of its devices. */
enum sxo_usm_mode sxo_context_usm(const struct sxa_context_s *c);

/* program.c: a string build log for error messages (malloc'd). */
char *sxo_build_log(cl_program prog, cl_device_id dev);

/* The one exported symbol (adapters/adapter.map). */
SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table);

/* The tables each file fills. */
extern const sxa_context_table sxo_context_table;
extern const sxa_queue_table sxo_queue_table;
extern const sxa_usm_table sxo_usm_table;
extern const sxa_program_table sxo_program_table;
extern const sxa_kernel_table sxo_kernel_table;
extern const sxa_event_table sxo_event_table;
sx_result sxo_event_wait(uint32_t count, const sxa_event *events); /* the table's wait */
/* enqueue entries live in three files; adapter.c assembles the table */
sx_result sxo_kernel_launch(sxa_queue queue, sxa_kernel kernel, uint32_t work_dim,
                            const size_t *global_offset, const size_t *global_size,
                            const size_t *local_size, uint32_t num_args, const sx_arg *args,
                            uint32_t num_events, const sxa_event *wait_list,
                            sxa_event *out_event);
sx_result sxo_usm_memcpy(sxa_queue queue, int blocking, void *dst, const void *src, size_t size,
                         uint32_t num_events, const sxa_event *wait_list, sxa_event *out_event);
sx_result sxo_usm_fill(sxa_queue queue, void *ptr, size_t pattern_size, const void *pattern,
                       size_t size, uint32_t num_events, const sxa_event *wait_list,
                       sxa_event *out_event);
sx_result sxo_barrier(sxa_queue queue, uint32_t num_events, const sxa_event *wait_list,
                      sxa_event *out_event);
sx_result sxo_global_write(sxa_queue queue, sxa_program program, const char *name, int blocking,
                           size_t count, size_t offset, const void *src, uint32_t num_events,
                           const sxa_event *wait_list, sxa_event *out_event);
sx_result sxo_global_read(sxa_queue queue, sxa_program program, const char *name, int blocking,
                          size_t count, size_t offset, void *dst, uint32_t num_events,
                          const sxa_event *wait_list, sxa_event *out_event);
sx_result sxo_get_global(sxa_program program, const char *name, size_t *size, void **ptr);
void sxo_globals_free(struct sxa_program_s *prog);
/* Device-global instances without USM (the ABI 1.1 global table). */
sx_result sxo_instance_create(sxa_context context, sxa_device device, size_t size, void **instance);
sx_result sxo_instance_release(sxa_context context, void *instance);
sx_result sxo_instance_copy(sxa_queue queue, void *instance, int write, size_t offset, size_t count,
                            void *host, int blocking, uint32_t num_events,
                            const sxa_event *wait_list, sxa_event *out_event);
sx_result sxo_global_bind(sxa_queue queue, sxa_program program, const char *name, void *instance);

#endif /* SXO_OPENCL_H */
