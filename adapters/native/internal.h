/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
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
#include "wg.h"

#include "native.h"

#define SXN_MAX_ARGS 256          /* kernel parameters we can call */
#define SXN_MAX_WORK_GROUP 1024   /* work-items per group */
#define SXN_LOCAL_MEM (64u * 1024u)
#define SXN_DEFAULT_ALIGN 64
#define SXN_HUGE_PAGE ((size_t)2 << 20)   /* x86-64 transparent huge page */
#define SXN_HUGE_ALLOC ((size_t)4 << 20)  /* USM allocations from this size in huge pages */
#define SXN_PAGE ((size_t)4096)
#define SXN_COLOUR_ALLOC ((size_t)64 << 10) /* USM allocations from this size (below huge) coloured */
#define SXN_COLOUR_STEP ((size_t)256)       /* their page offsets: multiples of this */
#define SXN_DEFAULT_STACK (64u * 1024u)
#define SXN_MAX_PRIVATE (1u << 20)   /* private bytes per work-item of a compiled entry */
#define SXN_MAX_PARTS 4096           /* images in one linked program */
#define SXN_CONTAINER_VERSION 1
#define SXN_PICK_PRIVATE (4u << 20)  /* private bytes of a group whose size we choose */

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
    bool wg;                    /* compiled work-group image(s) (wg.h) */
    uint32_t num_sigs;
    struct sxn_sig *sigs;
    void *dl;                   /* dlopen handle once built */
    void *link_map;             /* its struct link_map, to check symbol owners */
    void **link_maps;           /* linked programs: one per image, in their namespace */
    uint32_t num_link_maps;
    sxn_set_item_fn set_item;   /* the builtins its kernels import (per namespace) */
    /* compiled work-group images (wg.h); num_images == 0 for old-style ones */
    struct sxn_wg_image *images;
    uint32_t num_images;
    /* a linked program's component images (pointers into `bytes`, which then
     * holds the link container, see container.c); 0 for a single image */
    uint32_t num_parts;
    const unsigned char **part_bytes;
    size_t *part_size;
};

/* One loaded compiled work-group image of a program. */
struct sxn_wg_image {
    void *dl;
    void *link_map;
    const unsigned char *elf;   /* its bytes (in the program's `bytes`) */
    size_t elf_size;
    const sxn_wg_entry *table;
    uint32_t num_entries;
    const void *syms;           /* its .dynsym (Elf64_Sym) and string table, in elf */
    size_t num_syms;
    const char *strs;
    size_t strs_size;
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
    bool compiled;           /* wg != NULL, here in the first cache line the launch reads */
    uint32_t num_params;
    const sxa_kernel_param *params;  /* in program->sigs */
    ffi_cif cif;
    ffi_type **types;        /* num_params */
    ffi_type *structs;       /* one per STRUCT parameter */
    ffi_type **elements;     /* NULL-terminated element lists of the structs */
    _Atomic(struct sxn_fallback *) fallback;
    pthread_mutex_t fallback_lock;
    const sxn_wg_entry *wg;  /* compiled work-group entry, or NULL (libffi per work-item) */
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
    const sxn_wg_entry *wg;    /* compiled work-group function, or NULL */
    size_t private_total;      /* wg->private_bytes * group_items, 64-rounded */
    size_t wg_local_offset;    /* its kernel-scope local memory, after the arguments' */
    atomic_size_t next_group;
    atomic_int error;          /* sx_result of the first failure */
    /* pool bookkeeping, under the pool lock */
    struct sxn_job *next;
    bool queued;
    atomic_uint users;
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
void *sxn_builtins_symbol(const char *name);  /* dlsym in the builtins module, or NULL */
extern sxn_set_item_fn sxn_set_item;
extern sxn_get_item_fn sxn_get_item;
void sxn_program_unref(sxa_program program);

/* program.c: check ELF bytes (x86-64 shared object; barrier imports; a
 * compiled work-group image?) and load them through a memfd (dlopen, RTLD_LOCAL). */
sx_result sxn_elf_check(const unsigned char *b, size_t size, bool *uses_barrier, bool *wg);
/* load ELF bytes through a memfd (dlopen, RTLD_LOCAL). */
sx_result sxn_load_bytes(const unsigned char *bytes, size_t size, void **out);

/* wgload.c: compiled work-group images (wg.h). */
/* Load and check images[0..n) of `p` as compiled work-group images and fill
 * every import slot from their exports; `fail` is the code of a failure
 * to resolve (BUILD_FAILURE for one image, LINK_FAILURE when linking). */
sx_result sxn_wg_load(sxa_program p, uint32_t n, const unsigned char *const *bytes, const size_t *sizes,
                      sx_result fail);
void sxn_wg_unload(sxa_program p);
/* A global function or object the image defines, from its own symbol table. */
void *sxn_wg_symbol(const struct sxn_wg_image *im, const char *name, const void **sym);
/* The entry of kernel `name` in any of p's images, or NULL. */
const sxn_wg_entry *sxn_wg_find(sxa_program p, const char *name);

/* container.c: the binary of a linked program (its component images). */
bool sxn_container_is(const void *bytes, size_t size);
sx_result sxn_container_parse(const unsigned char *b, size_t size, uint32_t *count,
                              const unsigned char ***parts, size_t **sizes);
sx_result sxn_container_make(uint32_t n, const unsigned char *const *parts, const size_t *sizes,
                             unsigned char **out, size_t *out_size);

/* link.c */
/* A container program (program.create): find its parts and check them. */
sx_result sxn_program_parts(sxa_program p);
/* Build a program of several parts: the link. Program lock held. */
sx_result sxn_link_build(sxa_program p);
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
/* Private memory of compiled work-group functions, like sxn_tcache_local. */
void *sxn_tcache_private(struct sxn_tcache *tc, size_t size);
/* Run one work-group as fibers: `tmpl` carries the group's ids; `ctx` is
 * the group's context for an SXN_WG_FIBER entry (NULL: libffi call). */
sx_result sxn_fiber_group(struct sxn_tcache *tc, const struct sxn_job *job, const sxn_item *tmpl,
                          void **values, const sxn_wg_ctx *ctx);
void sxn_tcache_shutdown(void);
sx_result sxn_tcache_init(void);

#endif /* SXN_INTERNAL_H */
