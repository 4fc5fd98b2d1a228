/* internal.h: what the native adapter's files share (never installed). */
#ifndef SXN_INTERNAL_H
#define SXN_INTERNAL_H


#include <ffi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/binaries.h>

#include "wi.h"

#include "native.h"

#define SXN_MAX_ARGS 256          /* kernel parameters we can call */
#define SXN_MAX_WORK_GROUP 1024   /* work-items per group */
#define SXN_LOCAL_MEM (64u * 1024u)
#define SXN_DEFAULT_ALIGN 64
#define SXN_DEFAULT_STACK (64u * 1024u)

#define SXN_LIKELY(x) __builtin_expect(!!(x), 1)
#define SXN_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* The services the core gave at init; every error goes through it. */
extern const sxa_services *sxn_services;
#define sxn_error(...) sxn_services->error(__VA_ARGS__)
#define sxn_getenv(name) (sxn_services->getenv ? sxn_services->getenv(name) : NULL)

struct sxa_adapter_s {
    sxa_object obj;
};
struct sxa_platform_s {
    sxa_object obj;
};
struct sxa_device_s {
    sxa_object obj;
    char name[256];
    sx_aspect_set aspects;
    uint32_t compute_units;
    uint64_t global_mem;
};
struct sxa_context_s {
    sxa_object obj;
};
struct sxa_queue_s {
    sxa_object obj;
    sxa_context context;
    uint32_t flags;
};
struct sxa_event_s {
    sxa_object obj;
    uint64_t queued, submit, start, end;  /* ns, 0 unless the queue profiles */
};

/* A kernel signature as the program keeps it (deep copy of the desc). */
struct sxn_sig {
    char *name;
    uint32_t num_params;
    sxa_kernel_param *params;  /* members point into `members` */
    sxa_param_member *members;
};

enum { SXN_PROG_CREATED = 0, SXN_PROG_COMPILED = 1, SXN_PROG_BUILT = 2 };

struct sxa_program_s {
    sxa_object obj;
    sxa_context context;
    atomic_uint refs;           /* the handle plus one per kernel */
    pthread_mutex_t lock;       /* build state */
    int state;
    unsigned char *bytes;       /* the image (kept for get_binary and link) */
    size_t size;
    bool uses_barrier;          /* the image imports a barrier builtin */
    uint32_t num_sigs;
    struct sxn_sig *sigs;
    void *dl;                   /* dlopen handle once built */
    void *link_map;             /* its struct link_map, to check symbol owners */
    void **link_maps;           /* linked programs: one per image, in their namespace */
    uint32_t num_link_maps;
    sxn_set_item_fn set_item;   /* the builtins its kernels import (per namespace) */
};

/* The call interface built from a launch's arguments for a kernel without
 * a signature; published once on the kernel and then read-only. */
struct sxn_fallback {
    ffi_cif cif;
    uint32_t num_params;
    ffi_type **types;
    uint32_t *arg_type;   /* SX_ARG_* per index */
    size_t *size;
};

struct sxa_kernel_s {
    sxa_object obj;
    sxa_program program;
    char *name;
    void (*fn)(void);
    sxn_set_item_fn set_item;
    bool uses_barrier;
    bool has_sig;
    uint32_t num_params;
    const sxa_kernel_param *params;  /* in program->sigs */
    ffi_cif cif;
    ffi_type **types;        /* num_params */
    ffi_type *structs;       /* one per STRUCT parameter */
    ffi_type **elements;     /* NULL-terminated element lists of the structs */
    _Atomic(struct sxn_fallback *) fallback;
    pthread_mutex_t fallback_lock;
};

/* One launch, shared by the threads that run its work-groups. */
struct sxn_job {
    const struct sxa_kernel_s *kernel;
    ffi_cif *cif;
    sxn_geometry geo;
    size_t group_items;        /* work-items per group */
    size_t total_groups;
    void **values;             /* ffi argument pointers; LOCAL ones are patched per thread */
    uint32_t num_values;
    uint32_t num_local;
    const uint32_t *local_index;
    const size_t *local_offset;
    size_t local_total;
    bool fibers;
    atomic_size_t next_group;
    atomic_int error;          /* sx_result of the first failure */
    /* pool bookkeeping, under the pool lock */
    struct sxn_job *next;
    bool queued;
    unsigned users;
};

/* native.c */
uint64_t sxn_now_ns(void);
sx_result sxn_event_new(sxa_queue queue, uint64_t queued, sxa_event *out);
sx_result sxn_check_wait_list(uint32_t num_events, const sxa_event *wait_list);

/* program.c */
extern const sxa_program_table sxn_program_table;
extern const sxa_kernel_table sxn_kernel_table;
sx_result sxn_global_find(sxa_program program, const char *name, void **addr, size_t *size);
sx_result sxn_builtins_load(void);
const char *sxn_builtins_path(void);
sx_result sxn_sig_copy(struct sxn_sig *dst, const struct sxn_sig *src);
void sxn_builtins_unload(void);
extern sxn_set_item_fn sxn_set_item;
extern sxn_get_item_fn sxn_get_item;
void sxn_program_unref(sxa_program program);

/* link.c */
sx_result sxn_program_compile(sxa_program program, const char *options);
sx_result sxn_program_link(sxa_context context, sxa_device device, uint32_t count,
                           const sxa_program *programs, const char *options, sxa_program *out);

/* launch.c */
sx_result sxn_kernel_launch(sxa_queue queue, sxa_kernel kernel, uint32_t work_dim,
                            const size_t *global_offset, const size_t *global_size,
                            const size_t *local_size, uint32_t num_args, const sx_arg *args,
                            uint32_t num_events, const sxa_event *wait_list,
                            sxa_event *out_event);
/* Run groups [first, first + count) of a job on the calling thread. */
sx_result sxn_run_groups(struct sxn_job *job, size_t first, size_t count);

/* pool.c: run every group of a job, on the pool and the calling thread. */
sx_result sxn_pool_run(struct sxn_job *job);
void sxn_pool_shutdown(void);
unsigned sxn_pool_threads(void);

/* fiber.c: per-thread scratch (local memory, fiber stacks) and fibers. */
struct sxn_tcache;
struct sxn_tcache *sxn_tcache_get(void);
/* A local-memory buffer of at least `size` bytes, 64-aligned; NULL if out of memory. */
void *sxn_tcache_local(struct sxn_tcache *tc, size_t size);
/* Run one work-group as fibers: `tmpl` carries the group's ids. */
sx_result sxn_fiber_group(struct sxn_tcache *tc, const struct sxn_job *job, const sxn_item *tmpl,
                          void **values);
void sxn_tcache_shutdown(void);
sx_result sxn_tcache_init(void);

#endif /* SXN_INTERNAL_H */
