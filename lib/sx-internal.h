/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-internal.h: what the core's files share (never installed). */
#ifndef SX_INTERNAL_H
#define SX_INTERNAL_H

#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/sx.h>

#include "hash.h"

#define SXI_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define SXI_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SXI_LIKELY(x) __builtin_expect(!!(x), 1)
/* The functions of a cached launch, wait and release: GCC puts them side
 * by side (.text.hot), so the few lines of code a launch runs stay few
 * (between two launches a driver's own code evicts them from the
 * instruction cache: those misses, not the instructions, were the cost). */
#define SXI_HOT __attribute__((hot))
#define SXI_COLD __attribute__((cold, noinline))
#define SXI_PRINTF(f, a) __attribute__((format(printf, f, a)))

/* ------------------------------------------------------------ errors, log */

/* Set the calling thread's last-error message; returns `code`. */
sx_result sxi_error(sx_result code, const char *fmt, ...) SXI_PRINTF(2, 3) __attribute__((cold));
sx_result sxi_verror(sx_result code, const char *fmt, va_list ap);
/* Prefix the current last-error message ("ctx: " + old message). */
void sxi_error_prefix(const char *fmt, ...) SXI_PRINTF(1, 2) __attribute__((cold));

extern _Atomic sx_log_level sxi_log_level;
void sxi_log(sx_log_level level, const char *fmt, ...) SXI_PRINTF(2, 3);
void sxi_vlog(sx_log_level level, const char *fmt, va_list ap);
/* Emit a line whatever the level (trace output). */
void sxi_log_emit(sx_log_level level, const char *line);
#define SXI_LOG(level, ...)                                                       \
    do {                                                                          \
        if (SXI_UNLIKELY(atomic_load_explicit(&sxi_log_level, memory_order_relaxed) >= (level))) \
            sxi_log((level), __VA_ARGS__);                                        \
    } while (0)

/* Environment: secure_getenv, or NULL for everything once the application
 * asked to ignore the environment. */
const char *sxi_getenv(const char *name);
/* sx_init's flags for adapter discovery; the test stand-in for AT_SECURE (loader.c). */
void sxi_adapters_set_init_flags(uint32_t flags);
extern bool sxi_loader_test_secure;
void sxi_env_ignore(bool ignore);
void sxi_log_init_from_env(void);

/* ------------------------------------------------------------ handle tags */

/* Every public object starts with a tag so a handle of the wrong kind (or
 * a released one, whose tag is cleared) is caught before use. */
enum sxi_tag {
    SXI_TAG_DEAD = 0,
    SXI_TAG_ADAPTER = 0x53584144,  /* "SXAD" */
    SXI_TAG_PLATFORM = 0x5358504c,
    SXI_TAG_DEVICE = 0x53584456,
    SXI_TAG_CONTEXT = 0x53584358,
    SXI_TAG_QUEUE = 0x53585155,
    SXI_TAG_EVENT = 0x53584556,
    SXI_TAG_KERNEL = 0x53584b4e,
    SXI_TAG_IMAGE_FILE = 0x53584946
};

/* Public objects live in memory from sxi_handle_new (handle.c): a released
 * one keeps its memory, tagged dead by an atomic store, in a quarantine, so
 * a stale handle reads SXI_TAG_DEAD (never freed memory, also under ASan
 * and valgrind) until many later releases have recycled it. */
#define SXI_HANDLE_CLASSES 4
/* The size class of an object of `size` bytes (64 << class), -1 past 512:
 * folded at compile time, so a new or a release is one call without a
 * size test, and the zeroing below is a few inline stores. */
static inline int sxi_handle_class(size_t size)
{
    return size <= 64 ? 0 : size <= 128 ? 1 : size <= 256 ? 2 : size <= 512 ? 3 : -1;
}
void *sxi_handle_new_class(int c);     /* tagged dead, not zeroed */
void sxi_handle_free_class(void *h, int c);
static inline void *sxi_handle_new(size_t size)
{
    int c = sxi_handle_class(size);
    if (c < 0)
        return calloc(1, size); /* no public object is that large (kept for safety) */
    void *p = sxi_handle_new_class(c);
    if (p)
        memset((char *)p + sizeof(uint32_t), 0, ((size_t)64 << c) - sizeof(uint32_t));
    return p;
}
static inline void sxi_handle_free(void *h, size_t size)
{
    int c = sxi_handle_class(size);
    if (c < 0)
        free(h);
    else if (h)
        sxi_handle_free_class(h, c);
}
/* Calls fn on every object of size's class ever handed out, live or not
 * (read its tag atomically; never-used memory reads 0). */
void sxi_handle_foreach(size_t size, void (*fn)(void *object, void *arg), void *arg);
/* A thread's quarantine and spare objects of one size class (handle.c),
 * kept in its epoch record. */
#define SXI_HANDLE_QUARANTINE 1024u /* later releases before an object is reused */
#define SXI_HANDLE_BATCH 32  /* objects moved at once between a thread and the shared pool */
struct sxi_handle_cache {
    void **ring;            /* released objects, oldest at head */
    uint32_t head, count, cap;
    uint32_t ready;         /* spare[0..ready) may be handed out */
    void *spare[SXI_HANDLE_BATCH];
};
/* Mark a live handle dead: true for the one caller that saw it live with
 * `tagv` (a second, or concurrent, release gets false). */
static inline bool sxi_handle_kill(_Atomic uint32_t *tag, uint32_t tagv)
{
    uint32_t expected = tagv;
    return atomic_compare_exchange_strong(tag, &expected, (uint32_t)SXI_TAG_DEAD);
}
static inline uint32_t sxi_tag_of(_Atomic const uint32_t *tag)
{
    return atomic_load_explicit((_Atomic uint32_t *)tag, memory_order_relaxed);
}
#define SXI_DEAD_HANDLE(h, what)                                                  \
    sxi_error(SX_ERROR_INVALID_HANDLE, "%s: %p is not a live " what " handle (released twice?)", __func__, (void *)(h))

/* Validate a handle argument; on failure set the error and return it. */
#define SXI_CHECK_HANDLE(h, tagv, what)                                           \
    do {                                                                          \
        if (SXI_UNLIKELY(!(h)))                                                   \
            return sxi_error(SX_ERROR_INVALID_NULL_HANDLE, "%s: " what " is NULL", __func__); \
        if (SXI_UNLIKELY(sxi_tag_of(&(h)->tag) != (tagv)))                        \
            return sxi_error(SX_ERROR_INVALID_HANDLE,                             \
                             "%s: %p is not a live " what " handle", __func__, (void *)(h)); \
    } while (0)
#define SXI_CHECK_PTR(p, what)                                                    \
    do {                                                                          \
        if (SXI_UNLIKELY(!(p)))                                                   \
            return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "%s: " what " is NULL", __func__); \
    } while (0)
#define SXI_CHECK_INIT()                                                          \
    do {                                                                          \
        if (SXI_UNLIKELY(!sxi_initialized()))                                     \
            return sxi_error(SX_ERROR_UNINITIALIZED, "%s: libsycl-ext is not initialised (call sx_init)", __func__); \
    } while (0)

/* ---------------------------------------------------------------- adapters */

/* The core's record of one adapter: the dispatch identity adapters store
 * first in their objects, and the tables (every entry non-NULL: missing
 * optional ones point at core stubs returning SX_ERROR_UNSUPPORTED_FEATURE). */
struct sxa_dispatch {
    struct sx_adapter_s *owner;
    sxa_adapter_table adapter;
    sxa_platform_table platform;
    sxa_device_table device;
    sxa_context_table context;
    sxa_queue_table queue;
    sxa_usm_table usm;
    sxa_program_table program;
    sxa_kernel_table kernel;
    sxa_enqueue_table enqueue;
    sxa_event_table event;
    sxa_global_table global;
};

struct sx_adapter_s {
    _Atomic uint32_t tag;
    char *name;        /* "native", "opencl", ... or the file's base name */
    char *path;        /* resolved path or "(built in)" */
    void *dl;          /* dlopen handle, NULL when built in or failed */
    int dl_fd;         /* the file it was loaded from (/proc/self/fd/N), open while loaded; -1 if none */
    sx_result status;  /* SX_SUCCESS when usable */
    char *status_text;
    sx_backend backend;
    uint32_t version;
    struct sxa_dispatch dispatch;
    sxa_services services;
    sxa_adapter handle;     /* from init */
    uint32_t num_platforms;
    struct sx_platform_s **platforms;
    bool trace;
};

/* Adapter calls go through this so SX_TRACE can log each with its result
 * and duration. `a` is the struct sx_adapter_s *, `tbl` the table, `fn` the entry. */
sx_result sxi_trace_result(struct sx_adapter_s *a, const char *call, sx_result r, uint64_t t0) __attribute__((cold));
uint64_t sxi_now_ns(void);
/* SX_TRACE=1 shows each call's arguments: every argument becomes a
 * tagged value by its type (strings for const char *, numbers for integer
 * types and enums, addresses for the rest) beside its source text. */
typedef struct sxi_targ {
    int kind; /* 0 unsigned, 1 signed, 2 pointer, 3 string */
    union {
        unsigned long long u;
        long long i;
        const void *p;
        const char *s;
    } v;
} sxi_targ;
static inline sxi_targ sxi_targ_u(unsigned long long u) { return (sxi_targ){0, {.u = u}}; }
static inline sxi_targ sxi_targ_i(long long i) { return (sxi_targ){1, {.i = i}}; }
static inline sxi_targ sxi_targ_p(const void *p) { return (sxi_targ){2, {.p = p}}; }
static inline sxi_targ sxi_targ_s(const char *s) { return (sxi_targ){3, {.s = s}}; }
#define SXI_TARG(x)                                                                                       \
    _Generic((x), const char *: sxi_targ_s, _Bool: sxi_targ_u, unsigned char: sxi_targ_u,                \
             unsigned short: sxi_targ_u, unsigned int: sxi_targ_u, unsigned long: sxi_targ_u,              \
             unsigned long long: sxi_targ_u, signed char: sxi_targ_i, char: sxi_targ_i, short: sxi_targ_i, \
             int: sxi_targ_i, long: sxi_targ_i, long long: sxi_targ_i, default: sxi_targ_p)(x)
#define SXI_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N
#define SXI_NARGS(...) SXI_NARGS_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define SXI_MAP_1(m, a) m(a)
#define SXI_MAP_2(m, a, ...) m(a), SXI_MAP_1(m, __VA_ARGS__)
#define SXI_MAP_3(m, a, ...) m(a), SXI_MAP_2(m, __VA_ARGS__)
#define SXI_MAP_4(m, a, ...) m(a), SXI_MAP_3(m, __VA_ARGS__)
#define SXI_MAP_5(m, a, ...) m(a), SXI_MAP_4(m, __VA_ARGS__)
#define SXI_MAP_6(m, a, ...) m(a), SXI_MAP_5(m, __VA_ARGS__)
#define SXI_MAP_7(m, a, ...) m(a), SXI_MAP_6(m, __VA_ARGS__)
#define SXI_MAP_8(m, a, ...) m(a), SXI_MAP_7(m, __VA_ARGS__)
#define SXI_MAP_9(m, a, ...) m(a), SXI_MAP_8(m, __VA_ARGS__)
#define SXI_MAP_10(m, a, ...) m(a), SXI_MAP_9(m, __VA_ARGS__)
#define SXI_MAP_11(m, a, ...) m(a), SXI_MAP_10(m, __VA_ARGS__)
#define SXI_MAP_12(m, a, ...) m(a), SXI_MAP_11(m, __VA_ARGS__)
#define SXI_MAP_13(m, a, ...) m(a), SXI_MAP_12(m, __VA_ARGS__)
#define SXI_MAP_14(m, a, ...) m(a), SXI_MAP_13(m, __VA_ARGS__)
#define SXI_MAP_15(m, a, ...) m(a), SXI_MAP_14(m, __VA_ARGS__)
#define SXI_MAP_16(m, a, ...) m(a), SXI_MAP_15(m, __VA_ARGS__)
#define SXI_MAP__(n, m, ...) SXI_MAP_##n(m, __VA_ARGS__)
#define SXI_MAP_(n, m, ...) SXI_MAP__(n, m, __VA_ARGS__)
#define SXI_MAP(m, ...) SXI_MAP_(SXI_NARGS(__VA_ARGS__), m, __VA_ARGS__)
sx_result sxi_trace_call(struct sx_adapter_s *a, const char *call, const char *names, const sxi_targ *v, uint32_t n,
                         sx_result r, uint64_t t0) __attribute__((cold));
#define SXA_CALL(a, tbl, fn, ...)                                                 \
    (SXI_UNLIKELY((a)->trace) ? ({                                                \
        uint64_t sxi_t0_ = sxi_now_ns();                                          \
        sx_result sxi_r_ = (a)->dispatch.tbl.fn(__VA_ARGS__);                     \
        sxi_targ sxi_v_[] = {SXI_MAP(SXI_TARG, __VA_ARGS__)};                     \
        sxi_trace_call((a), #tbl "." #fn, #__VA_ARGS__, sxi_v_, SXI_NARGS(__VA_ARGS__), sxi_r_, sxi_t0_); \
    })                                                                            \
                              : (a)->dispatch.tbl.fn(__VA_ARGS__))

struct sx_platform_s {
    _Atomic uint32_t tag;
    struct sx_adapter_s *adapter;
    sxa_platform handle;
    uint32_t num_devices;
    struct sx_device_s **devices;
};

struct sx_device_s {
    _Atomic uint32_t tag;
    uint32_t index;          /* process-wide device number, 0..sxi_num_devices-1 */
    struct sx_adapter_s *adapter;
    struct sx_platform_s *platform;
    sxa_device handle;
    sx_device_type type;
    sx_backend backend;
    sx_aspect_set aspects;
    size_t max_work_group_size;
    size_t max_work_item_sizes[3];
    uint64_t local_mem_size;
    bool selected;           /* passes SX_DEVICE_SELECTOR */
    uint32_t backend_index;  /* among its backend's devices: a selector's device index */
    uint32_t num_image_kinds;
    sx_image_kind image_kinds[SX_IMAGE_KIND_COUNT_];
    char *name;
};

/* Between sx_init and the last sx_fini (init.c); read by every call. */
extern _Atomic bool sxi_initialized_flag;
static inline bool sxi_initialized(void)
{
    return atomic_load_explicit(&sxi_initialized_flag, memory_order_acquire);
}
/* Finding every adapter (sx_init) and unloading them (loader.c). */
sx_result sxi_adapters_load(void);
void sxi_adapters_unload(void);
uint32_t sxi_num_adapters(void);
struct sx_adapter_s **sxi_adapters(void);
/* Lazy loading: load (once) every adapter serving one of `backends` (a
 * mask of 1 << sx_backend) and those whose backend is unknown. */
#define SXI_BACKENDS_ALL 0xffffffffu
sx_result sxi_adapters_need(uint32_t backends);
bool sxi_adapter_loaded(uint32_t index);
bool sxi_adapter_wanted(uint32_t index, uint32_t backends);
/* The devices of the loaded adapters, selected or not: a list that stays
 * valid until sx_fini. */
struct sx_device_s **sxi_devices_snapshot(uint32_t *n);
/* Builds platform and device records once adapters are loaded (platform.c). */
sx_result sxi_platforms_discover(struct sx_adapter_s *a);
void sxi_platforms_free(struct sx_adapter_s *a);
/* The device selector (selector.c): true if the device passes. */
sx_result sxi_selector_parse(const char *text);
bool sxi_selector_accepts(const struct sx_device_s *d, uint32_t index_in_backend);
void sxi_selector_reset(void);
/* The backends (mask of 1 << sx_backend) whose devices the selector can accept. */
uint32_t sxi_selector_backends(void);
/* A selector of the same syntax from a program (sx_device_select). */
typedef struct sxi_selector sxi_selector;
sx_result sxi_selector_create(const char *text, sxi_selector **out);
void sxi_selector_destroy(sxi_selector *sel);
bool sxi_selector_matches(const sxi_selector *sel, const struct sx_device_s *d, uint32_t index_in_backend);
uint32_t sxi_selector_backends_of(const sxi_selector *sel);
/* The image kinds a device accepts, preferred first; 0 if none. */
int sxi_device_kind_rank(const struct sx_device_s *d, sx_image_kind kind);

/* ---------------------------------------------------------------- objects */

struct sxi_program;
struct sxi_kernel_slot;

/* Something a context owns that its teardown must release (a queue, an
 * event, its kernels' slots, its programs, its device-global instances):
 * the context keeps them in one list and, when it goes, destroys each
 * through its own callback, in `order`: commands before the kernels that
 * run them, kernels before their programs, programs before the instances
 * written into them. Teardown flows down: context.c names none of them. */
enum sxi_dep_order { SXI_DEP_EVENTS, SXI_DEP_COMMANDS, SXI_DEP_KERNELS, SXI_DEP_PROGRAMS, SXI_DEP_GLOBALS, SXI_DEP_ORDERS_ };
typedef struct sxi_dep {
    struct sxi_dep *next, *prev;
    void (*destroy)(struct sxi_dep *d);  /* called unlinked, context lock not held */
    uint32_t order;                      /* enum sxi_dep_order */
} sxi_dep;
void sxi_context_dep_add(struct sx_context_s *c, sxi_dep *d);
void sxi_context_dep_remove(struct sx_context_s *c, sxi_dep *d);
/* A file that keeps per-context state outside the context (slots, programs,
 * instances) registers, once per context and order, `drop`, which the
 * context's teardown calls to release all of it. */
sx_result sxi_context_dep_once(struct sx_context_s *c, uint32_t order, void (*drop)(struct sx_context_s *c));

struct sx_context_s {
    _Atomic uint32_t tag;
    _Atomic uint32_t refs;
    struct sx_adapter_s *adapter;
    sxa_context handle;
    uint32_t num_devices;
    struct sx_device_s **devices;
    pthread_mutex_t lock;        /* programs, usm table */
    struct sxi_program *programs;  /* list of built programs */
    sxi_ptrmap usm;              /* live allocations: ptr -> size/type */
    sxi_dep *deps;               /* its dependents: released at teardown (queues, events: if the app did not) */
    _Atomic uint32_t dep_once;   /* orders registered by sxi_context_dep_once (bit = order; set under lock) */
    struct sx_context_s *next, *prev;  /* live contexts (for unregistration) */
};

struct sx_queue_s {
    _Atomic uint32_t tag;
    struct sx_context_s *context;
    struct sx_device_s *device;
    struct sx_adapter_s *adapter;
    sxa_queue handle;
    uint32_t flags;
    sxi_dep dep;                 /* in the context's list */
    _Atomic uint32_t users;      /* commands other than launches in flight (sxi_queue_enter) */
};

/* A command that is not a launch (copy, fill, barrier, wait) holds the
 * queue while it uses it: sx_queue_release waits until none does, after
 * killing the tag, so the command either sees the dead tag here or runs
 * on the live adapter queue. Launches are covered by their reader
 * section instead (no shared write on the launch path): the tag is
 * checked inside it (sxi_slot_for) and the release waits for a grace
 * period. */
static inline bool sxi_queue_enter(struct sx_queue_s *q)
{
    atomic_fetch_add_explicit(&q->users, 1, memory_order_seq_cst);
    if (SXI_LIKELY(atomic_load_explicit(&q->tag, memory_order_seq_cst) == SXI_TAG_QUEUE))
        return true;
    atomic_fetch_sub_explicit(&q->users, 1, memory_order_release);
    return false;
}
static inline void sxi_queue_leave(struct sx_queue_s *q)
{
    atomic_fetch_sub_explicit(&q->users, 1, memory_order_release);
}

struct sx_event_s {
    _Atomic uint32_t tag;
    _Atomic uint64_t users;        /* calls using the adapter event, and the release (event.c) */
    struct sx_adapter_s *adapter;
    struct sx_context_s *context;  /* retained: an event keeps its context alive */
    sxa_event handle;
};

/* Wrap an adapter event of a queue's command into a public one (handle
 * may be NULL: the event is complete). On allocation failure the adapter
 * event is waited on and released and the error returned. */
sx_result sxi_event_wrap(struct sx_queue_s *q, sxa_event handle, sx_event *out);
/* The same in two steps, so that the allocation happens before the
 * command is enqueued and nothing slow runs between the enqueue and the
 * caller's wait (with a CPU driver, even 100 ns there cost a wait 0.4 us):
 * prepare (NULL: out of memory), then publish with the adapter event, or
 * abandon when the command failed. */
/* A context's teardown releases its events the application left (event.c). */
void sxi_events_drop_context(struct sx_context_s *c);
static inline struct sx_event_s *sxi_event_prepare(struct sx_queue_s *q)
{
    struct sx_context_s *c = q->context;
    if (sxi_context_dep_once(c, SXI_DEP_EVENTS, sxi_events_drop_context) != SX_SUCCESS)
        return NULL;
    struct sx_event_s *e = sxi_handle_new(sizeof(*e));
    if (!e)
        return NULL;
    e->adapter = q->adapter;
    e->context = c;
    atomic_fetch_add(&c->refs, 1);
    return e;
}
static inline sx_result sxi_event_publish(struct sx_event_s *e, sxa_event h, sx_event *out)
{
    e->handle = h;
    /* release: whoever gets the handle from this thread sees it whole */
    atomic_store_explicit(&e->tag, (uint32_t)SXI_TAG_EVENT, memory_order_release);
    *out = e;
    return SX_SUCCESS;
}
void sxi_event_abandon(struct sx_event_s *e);
/* Translate a public wait list (checked) into adapter events of `a`,
 * using `stack` (n <= 16) or malloc; free with sxi_wait_list_free, with
 * the same a, n and in, after the adapter call: until then each listed
 * event is held, so a release racing the call waits for it before the
 * adapter event goes (event.c). */
sx_result sxi_wait_list(struct sx_adapter_s *a, uint32_t n, const sx_event *in, sxa_event *stack,
                        sxa_event **out, uint32_t *count);
void sxi_wait_list_free(struct sx_adapter_s *a, uint32_t n, const sx_event *in, sxa_event *list, sxa_event *stack);
SXI_COLD sx_result sxi_context_release_last(struct sx_context_s *c);
/* One reference less; the last tears the context down. A release past the
 * last one (racing it) is an error, not a second teardown. */
static inline sx_result sxi_context_release(struct sx_context_s *c)
{
    uint32_t refs = atomic_load(&c->refs);
    do {
        if (SXI_UNLIKELY(refs == 0))
            return sxi_error(SX_ERROR_INVALID_HANDLE, "context %p: released more often than retained", (void *)c);
    } while (!atomic_compare_exchange_weak(&c->refs, &refs, refs - 1));
    return SXI_UNLIKELY(refs == 1) ? sxi_context_release_last(c) : SX_SUCCESS;
}
void sxi_contexts_foreach(void (*fn)(struct sx_context_s *c, void *arg), void *arg);
/* Release every live context (sx_fini). */
void sxi_contexts_release_all(void);
/* The error for a failed two-call info query. */
sx_result sxi_info_error(sx_result r, const char *fn, const char *object, uint32_t param, size_t size);
/* A command's `size` bytes at `ptr` fit the context's USM allocation that
 * holds ptr, if it knows one (usm.c); SX_ERROR_INVALID_VALUE naming fn. */
sx_result sxi_usm_check_range(struct sx_context_s *c, const void *ptr, size_t size, const char *fn, const char *what);
/* Is the device part of the context? */
bool sxi_context_has_device(const struct sx_context_s *c, const struct sx_device_s *d);

/* ------------------------------------------------------------------ images */

/* A kernel's parameters as the core uses them, from "SX/kernel signatures",
 * "SYCL/kernel param opt" and "SYCL/implicit local arg" (signature.c). */
typedef struct sxi_source_param {
    uint32_t kind;         /* SX_PARAM_* of a single record; SX_PARAM_STRUCT when decomposed */
    uint32_t size;         /* bytes set_arg must give (0 for LOCAL: any size) */
    uint32_t first, count; /* its records in the original list */
    bool eliminated;       /* every record eliminated: accepted, not passed */
} sxi_source_param;

typedef struct sxi_signature {
    bool known;                  /* the image had a signature for it */
    uint32_t kind;               /* SX_KERNEL_KIND_* */
    uint32_t dims;
    uint32_t num_source_params;
    sxi_source_param *sources;   /* num_source_params */
    /* Backend parameters the entry point really has (after elimination):
     * what adapters get at program creation and launches are checked against. */
    uint32_t num_params;
    sxa_kernel_param *params;
    uint32_t *source_index;      /* num_params; SX_SOURCE_INDEX_NONE for the scratch argument */
    uint32_t *source_offset;     /* num_params: offset inside the source value */
    uint32_t scratch_index;      /* backend index of the scratch argument, or UINT32_MAX */
    sxa_param_member *members;   /* storage for all params' members */
} sxi_signature;

/* Parse one kernel's signature; `mask`/`mask_bits` from "SYCL/kernel param
 * opt" (NULL if none), `implicit` the original index of the scratch
 * argument or UINT32_MAX. On error sets the message (naming image `img`). */
sx_result sxi_signature_parse(uint32_t img, const char *kernel, const sx_device_binary_property *p,
                              const uint8_t *mask, size_t mask_bits, uint32_t implicit, sxi_signature *out);
void sxi_signature_free(sxi_signature *s);

/* A device global an image contains ("SYCL/device globals"). */
typedef struct sxi_image_global {
    const char *uid;        /* the property name: the unique id */
    const char *symbol;     /* the program variable: "<uid>@global_id_mapping" or the uid */
    char *symbol_owned;     /* the mapping's copy, NUL-terminated */
    uint32_t size;          /* sizeof(T) */
    bool image_scope;
    uint32_t host_access;   /* SX_HOST_ACCESS_*, from "SX/host access" (default read_write) */
} sxi_image_global;

/* One registered image with everything the core reads from it. */
typedef struct sxi_image {
    uint64_t id;                       /* process-unique, never reused */
    const sx_device_binary *bin;
    const struct sxi_library *lib;     /* the descriptor it came from */
    sx_image_kind kind;
    const uint8_t *data;
    size_t size;
    uint32_t num_entries;
    const char **entries;              /* kernel entry names (exported symbols excluded) */
    sxi_signature *signatures;         /* num_entries; kind = PLAIN and no params when absent */
    sx_aspect_set aspects;             /* "SYCL/device requirements" aspects */
    uint32_t num_globals;
    sxi_image_global *globals;
    uint32_t num_props_sets;
    /* Raw access to property sets for the feature modules. */
    /* Image dependencies (resolver.c): "SYCL/virtual functions",
     * "SYCL/exported symbols", "SYCL/imported symbols". */
    const char *vf_set;                /* the set this image provides, or NULL */
    bool vf_dummy;                     /* dummy-image=1: the set's bodies emptied */
    uint32_t num_vf_calls, num_vf_creates, num_exports, num_imports;
    const char **vf_calls;             /* sets its kernels call (calls-virtual-functions-set) */
    const char **vf_creates;           /* sets its vtables reference (creates-virtual-functions-set) */
    uint32_t num_vf_uses;              /* issue 14: DPC++'s uses-virtual-functions-set, on an image */
    const char **vf_uses;              /* without calls-/creates- (DPC++'s linking rule, resolver.c) */
    const char **exports, **imports;   /* symbol names (point into the descriptor) */
    uint32_t num_vf_symbols;           /* set images: "SX/virtual-function symbols", the */
    const char **vf_symbols;           /* functions of the set it defines (by linkage name) */
    void *dep_storage;                 /* owns the arrays and set-name copies above */
    struct sxi_index_node *index_nodes; /* num_entries: its places in the kernel-name index (images.c) */
    bool has_digest;                   /* digest: SHA-256 of kind, size and bytes (pcache.c, */
    uint8_t digest[32];                /* filled on first use under the registry lock) */
    bool compressed;                   /* zstd: data/size are the compressed bytes until */
    uint8_t *expanded;                 /* sxi_image_expand (registry lock held) decodes them here */
} sxi_image;

/* A descriptor read from whatever DPC++ layout it was written in
 * (binaries-read.c): version-2 records with 32-byte entries. */
typedef struct sxi_binary_info {
    uint16_t version;          /* the record's version as written: 1, 2 or 3 */
    uint8_t format;            /* as written */
    uint8_t entry_size;        /* 0 (no entries), 32 or 56 */
    size_t num_entries;
    uint64_t expanded_size;    /* compressed: the size its zstd frame states */
} sxi_binary_info;
typedef struct sxi_desc_read {
    sx_device_binaries desc;   /* the normal form; device_binaries = bins */
    sx_device_binary *bins;
    sxi_binary_info *info;     /* per image */
    sx_offload_entry *entries; /* 56-byte entries converted (NULL if none) */
    char **options;            /* compile options without DPC++'s front-end ones (NULL if none) */
} sxi_desc_read;
/* Read every record by its version; SX_ERROR_INVALID_BINARY naming the
 * image for an unknown version, a bad or mixed entry table, or a damaged
 * compressed image (SX_ERROR_UNSUPPORTED_FEATURE: no zstd in this build). */
sx_result sxi_binaries_read(const sx_device_binaries *desc, sxi_desc_read **out);
void sxi_binaries_read_free(sxi_desc_read *rd);
/* Whether the core reads this property set (others are never checked). */
bool sxi_prop_set_is_read(const char *name);
/* zstd (binaries-read.c): whether this build has it; a compressed image's
 * stated size, checked; its first bytes (0 if undecodable); the whole image
 * (malloc'd); an image's bytes decoded once at first use. */
bool sxi_zstd_available(void);
sx_result sxi_zstd_check(uint32_t img, const uint8_t *src, size_t n, uint64_t *size);
size_t sxi_zstd_peek(const uint8_t *src, size_t n, uint8_t *out, size_t cap);
sx_result sxi_zstd_expand(const uint8_t *src, size_t n, uint8_t **out, size_t *out_size);
sx_result sxi_image_expand(sxi_image *im);

typedef struct sxi_library {
    const sx_device_binaries *desc;
    sxi_desc_read *read;           /* the records in normal form (the images' bin) */
    uint32_t num_images;
    sxi_image *images;
    struct sxi_library *next, *prev;
} sxi_library;

/* The registry lock: held while reading or changing registered images. */
void sxi_registry_lock(void);
void sxi_registry_unlock(void);
/* The registered libraries, newest first (registry lock held). */
const sxi_library *sxi_registry_libraries(void);
/* Images registered with this kernel entry name (registry lock held). */
uint32_t sxi_registry_find_kernel(const char *name, sxi_image **images, uint32_t max);
/* Register a descriptor and return its library record (images.c). */
sx_result sxi_register(const sx_device_binaries *desc, sxi_library **out);
/* Choose the registered image of kernel `name` for a device (registry lock
 * held): the most preferred kind the device takes whose aspects it has.
 * SX_ERROR_KERNEL_NOT_SUPPORTED (saying why) if none. */
sx_result sxi_select_image(const char *name, const struct sx_device_s *dev, sxi_image **out, uint32_t *entry);
/* Bumped whenever images are registered or unregistered. */
extern _Atomic uint64_t sxi_registry_generation;

/* Property-set readers (props.c). All return false on a malformed value
 * and set the error naming the image, set and property. */
const sx_device_binary_property_set *sxi_prop_set(const sx_device_binary *bin, const char *name);
bool sxi_prop_bytes(const sx_device_binary_property *p, const uint8_t **bytes, size_t *len);
/* Determine an image's kind from its format, target and leading bytes. */
sx_image_kind sxi_image_kind_detect(const sx_device_binary *bin, char *why, size_t why_size);
const char *sxi_image_kind_name(sx_image_kind kind);

/* Image file parsing (image-file.c, owned by the proptool issue): parse
 * `size` bytes at `data` into a descriptor whose pointers point into
 * `data` (which must outlive it) or into memory the descriptor owns.
 * Every offset and length is checked; errors set the message through
 * sxi_error: SX_ERROR_INVALID_BINARY (damaged; names the byte offset and
 * field), SX_ERROR_UNSUPPORTED_VERSION (unknown major version). */
sx_result sxi_image_file_parse(const void *data, size_t size, sx_device_binaries **out);
void sxi_image_file_free(sx_device_binaries *desc);

/* ------------------------------------------------------ programs, kernels */

/* A program built for one (context, device) from one image (or, once the
 * virtual-functions resolver links, several). */
typedef struct sxi_program {
    struct sxi_program *next;
    struct sx_context_s *context;
    struct sx_device_s *device;
    sxa_program handle;
    uint32_t num_images;
    uint64_t *image_ids;
    const sxi_image **images;  /* valid while registered: unregistration drops the program; [0] the kernel's */
    uint64_t *sorted_ids;      /* image_ids sorted: the cache key with (context, device) */
    uint64_t generation;       /* registry generation its images were resolved under */
} sxi_program;

/* Get (build on first use) the program of `img` for (q's context, device);
 * a new program gets its device globals initialised through `q`. Registry
 * lock held by the caller; context lock taken inside. */
sx_result sxi_program_get(struct sx_queue_s *q, const sxi_image *img, sxi_program **out);
/* The same for kernel `kernel` of the image (named in errors): an image
 * with dependencies is resolved and linked (resolver.c), through the
 * persistent cache (pcache.c) when it is on. */
sx_result sxi_program_get_for(struct sx_queue_s *q, const sxi_image *img, const char *kernel, sxi_program **out);
/* The programs of (ctx, dev) that contain an image (registry lock held). */
uint32_t sxi_programs_with_image(struct sx_context_s *ctx, struct sx_device_s *dev, uint64_t image_id,
                                 sxi_program **first);
/* Drop programs built from an image being unregistered, in all contexts. */
void sxi_programs_drop_image(uint64_t image_id);

/* ------------------------------------ image dependencies (resolver.c) */

/* Registration: read an image's dependency properties (checked: damaged
 * values are SX_ERROR_INVALID_BINARY naming image, set and property). */
sx_result sxi_deps_parse_image(uint32_t index, sxi_image *im);
void sxi_deps_free_image(sxi_image *im);
/* Does the image need other images linked with it? */
static inline bool sxi_image_has_deps(const sxi_image *im)
{
    return im->num_vf_calls || im->num_vf_creates || im->num_vf_uses || im->num_imports;
}
/* The images to link with `img` (first) for `dev`: the closure over
 * called and created virtual-function sets and imported symbols (registry
 * lock held). `kernel` names the kernel in messages. *out is malloc'ed.
 * Errors: SX_ERROR_LINK_FAILURE when a set or symbol has no provider of
 * the image's kind at all; SX_ERROR_KERNEL_NOT_SUPPORTED when providers
 * exist but none the device can run (a called set needing a missing
 * aspect, or a created one with neither a compatible image nor a dummy). */
sx_result sxi_resolve(const sxi_image *img, const struct sx_device_s *dev, const char *kernel,
                      const sxi_image ***out, uint32_t *count);

/* Counters of the program caches, for tests and benchmarks (program.c). */
typedef struct sxi_program_stats {
    uint64_t resolutions;   /* dependency closures computed */
    uint64_t builds;        /* single-image create + build */
    uint64_t links;         /* multi-image create + compile + link */
    uint64_t memory_hits;   /* a program found in the context's cache */
    uint64_t disk_hits;     /* a linked program made from the persistent cache */
    uint64_t disk_writes;   /* entries written to the persistent cache */
    uint64_t disk_rejects;  /* damaged or unusable entries ignored */
    uint64_t disk_evictions;     /* entries removed to keep the cache under its bound */
    uint64_t disk_stale_removed; /* temporary files of dead writers removed */
} sxi_program_stats;
void sxi_program_stats_get(sxi_program_stats *out);
void sxi_program_stats_count(size_t field_offset);
#define SXI_STAT(field) sxi_program_stats_count(offsetof(sxi_program_stats, field))

/* ------------------------------------- persistent program cache (pcache.c) */

/* The bound on the cache directory's bytes when SX_CACHE_MAX_SIZE is unset. */
#define SXI_PCACHE_DEFAULT_MAX_SIZE ((uint64_t)1 << 30)
uint64_t sxi_pcache_max_size(void);
/* A key for a program of `n` images for `dev`, from the images'
 * bytes and kinds, the options, the adapter and the device. */
typedef struct sxi_pcache_key {
    uint8_t digest[32];
} sxi_pcache_key;
/* The cache directory, found and checked once for the calls of one build;
 * false when the cache is off (SX_CACHE=0) or no usable directory can be
 * found. A missing one is made by the first write into it (`missing`). */
typedef struct sxi_pcache_dir {
    char path[4096];
    int fd;           /* the directory, opened and checked (kept for the process's life); -1 when missing */
    bool missing;
    bool make_parent; /* the XDG or ~/.cache directory above it is made too */
} sxi_pcache_dir;
bool sxi_pcache_dir_get(sxi_pcache_dir *dir);
/* Test hook: called with the path once a directory is opened and checked. */
extern void (*sxi_pcache_test_after_check)(const char *path);
/* SHA-256 of an image's kind, size and bytes (the cache key's part). */
void sxi_image_digest(sx_image_kind kind, const void *data, size_t size, uint8_t out[32]);
void sxi_pcache_key_make(const struct sx_device_s *dev, const sxi_image *const *imgs, uint32_t n,
                         const char *compile_options, const char *link_options, sxi_pcache_key *key);
/* Read an entry: SX_SUCCESS with *data (malloc'ed), or
 * SX_ERROR_INVALID_VALUE when absent; a damaged one is logged, removed and
 * counted, and reads as absent. */
sx_result sxi_pcache_load(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind *kind, void **data,
                          size_t *size);
/* Write an entry atomically (temp file + rename), then evict to the bound;
 * failures (a full disk, the file size limit) are logged only. */
void sxi_pcache_store(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind kind, const void *data,
                      size_t size);
/* The same with the bound given (sxi_pcache_max_size() read by the caller):
 * reads no environment, for the writer thread. */
void sxi_pcache_store_bounded(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind kind,
                              const void *data, size_t size, uint64_t limit);
/* pcache-writer.c: sxi_pcache_store on a writer thread, so that a first
 * launch does not wait for the disk: `data` (malloc'ed) is taken over.
 * Written at once instead when the thread cannot start or too many bytes
 * wait. sxi_pcache_load finds a waiting entry (sxi_pcache_pending: a
 * malloc'ed copy); sxi_pcache_flush waits until every entry handed over is
 * written; sxi_pcache_writer_stop also ends the thread (sx_fini, unload). */
void sxi_pcache_store_later(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind kind, void *data,
                            size_t size);
bool sxi_pcache_pending(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind *kind, void **data,
                        size_t *size);
void sxi_pcache_flush(void);
void sxi_pcache_writer_stop(void);
/* Forget an entry the adapter refused (logged by the caller). */
void sxi_pcache_remove(const sxi_pcache_dir *dir, const sxi_pcache_key *key);
/* An adapter (name and version) that gives no binary of a linked program
 * (kind SX_IMAGE_KIND_UNKNOWN), or none worth keeping of a one-image
 * program of `kind`: remembered in the cache directory, so later processes
 * do not hash and look up for nothing (big inputs; see build in program.c). */
bool sxi_pcache_adapter_refuses(const sxi_pcache_dir *dir, const struct sx_adapter_s *a, sx_image_kind kind);
void sxi_pcache_adapter_refused(const sxi_pcache_dir *dir, const struct sx_adapter_s *a, sx_image_kind kind);

/* Cached per-(context, device) state of a kernel: the adapter kernel and
 * its program. Slots are published once and read without locks (inside a
 * reader section, see epoch.c); unlinked ones are freed after a grace
 * period, so a launch never sees its slot or adapter kernel freed. */
typedef struct sxi_kernel_slot {
    struct sx_context_s *context;
    struct sx_device_s *device;
    sxa_kernel handle;
    sxi_program *program;
    const sxi_signature *sig;
    uint64_t generation;     /* registry generation it was built under */
    _Atomic(struct sxi_kernel_slot *) next;
    struct sxi_kernel_slot *retired;   /* the writer's list of unlinked slots */
} sxi_kernel_slot;

/* What all handles of one kernel name share (kernel.c). */
typedef struct sxi_kernel {
    uint32_t refs;                         /* handles; registry lock */
    struct sx_kernel_s *handles;           /* the live ones (registry lock): kept reachable */
    char *name;
    pthread_mutex_t lock;                  /* slot insertion and unlinking */
    _Atomic(sxi_kernel_slot *) slots;      /* newest first */
} sxi_kernel;

/* A kernel handle: each sx_kernel_get gives a new one (released once). */
struct sx_kernel_s {
    _Atomic uint32_t tag;
    const char *name;                      /* the shared name */
    sxi_kernel *k;
    struct sx_kernel_s *next, *prev;       /* in k->handles */
};

/* Another handle of the same kernel (sx_args keeps its own). */
sx_result sxi_kernel_dup(struct sx_kernel_s *k, struct sx_kernel_s **out);
/* Make sure the slot for (queue's context, device) exists, building the
 * program on first use. Called outside any reader section. */
sx_result sxi_kernel_slot_get(struct sx_kernel_s *k, struct sx_queue_s *q);
/* Forget every slot (sx_fini). */
/* Unlink the slots whose program used the image onto *retired (registry
 * lock held); free them with sxi_kernels_free_retired, which waits for a
 * grace period (better without the registry lock: builders wait on it). */
void sxi_kernels_unlink_image(uint64_t image_id, struct sxi_kernel_slot **retired);
/* The same for an image no other image's program can link in (no
 * exported symbols, no virtual-function set): only the kernels it names
 * can use it, so only they are looked at. */
void sxi_kernels_unlink_image_named(const sxi_image *im, struct sxi_kernel_slot **retired);
void sxi_kernels_free_retired(struct sxi_kernel_slot *retired);
void sxi_kernels_drop_all(void);
/* Free the argument arrays sx_args_release retired (ffk.c), after a grace
 * period unless the caller just waited for one. */
void sxi_args_reclaim(bool synchronize);

/* ------------------------------------------ lock-free readers (epoch.c) */

struct sxi_epoch_rec {
    _Atomic uint64_t epoch;   /* the epoch a reader entered in; 0 outside */
    _Atomic bool in_use;
    struct sxi_epoch_rec *next;
    /* not the epoch's, but per thread too: the owner's alone, on lines of their own */
    struct sxi_handle_cache handles[SXI_HANDLE_CLASSES] __attribute__((aligned(64)));
} __attribute__((aligned(64)));
extern _Atomic uint64_t sxi_global_epoch;
extern _Atomic bool sxi_epoch_asymmetric;  /* membarrier(2) works: readers need no fence */
extern _Thread_local struct sxi_epoch_rec *sxi_epoch_me;
/* Fetch the object the thread's next sxi_handle_new(size) will return (a
 * launch asks early: the object waited a thousand releases and is out of
 * the caches; fetched at the start, it is there by the time it is used). */
static inline void sxi_handle_prefetch(size_t size)
{
    struct sxi_epoch_rec *r = sxi_epoch_me;
    int c = sxi_handle_class(size);
    if (r && c >= 0 && r->handles[c].count > SXI_HANDLE_QUARANTINE)
        __builtin_prefetch(r->handles[c].ring[r->handles[c].head], 1);
}
struct sxi_epoch_rec *sxi_epoch_register(void);
void sxi_epoch_prepare(void);  /* sx_init: membarrier registration while it is cheap */
/* Wait until every reader section that was open when it was called has
 * ended. Never call it inside a reader section. */
void sxi_epoch_synchronize(void);

/* An open reader section: the thread's record and the epoch it held before
 * (0 outside any section), which leaving restores. Sections nest: an inner
 * one keeps the outer one's (older) epoch. */
typedef struct sxi_section {
    struct sxi_epoch_rec *rec;
    uint64_t prev;
} sxi_section;

static inline sxi_section sxi_read_lock(void)
{
    struct sxi_epoch_rec *r = sxi_epoch_me;
    if (SXI_UNLIKELY(!r))
        r = sxi_epoch_register();
    uint64_t prev = atomic_load_explicit(&r->epoch, memory_order_relaxed);
    if (SXI_LIKELY(prev == 0)) {
        uint64_t e = atomic_load_explicit(&sxi_global_epoch, memory_order_acquire);
        /* With membarrier the writer supplies the full barrier (epoch.c);
         * without it the store is sequentially consistent. */
        if (SXI_LIKELY(atomic_load_explicit(&sxi_epoch_asymmetric, memory_order_relaxed))) {
            atomic_store_explicit(&r->epoch, e, memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst);
        } else {
            atomic_store_explicit(&r->epoch, e, memory_order_seq_cst);
        }
    }
    return (sxi_section){r, prev};
}

static inline void sxi_read_unlock(sxi_section s)
{
    atomic_store_explicit(&s.rec->epoch, s.prev, memory_order_release);
}

/* ---------------------------------------------------------- device globals */

/* Image registration: parse an image's device globals (images.c calls
 * these with the registry lock held). check = no conflict with what is
 * registered; add/remove = the image's contribution. */
sx_result sxi_dg_parse_image(uint32_t index, sxi_image *im);
sx_result sxi_dg_check_image(const sxi_image *im);
bool sxi_dg_add_image(const sxi_image *im);
void sxi_dg_remove_image(const sxi_image *im);
/* After a program is built: give each ordinary device global it uses its
 * (context, device) instance and write the instance's address into the
 * program (blocking, through q). Registry lock held. */
sx_result sxi_dg_program_built(struct sx_queue_s *q, sxi_program *p);

/* The slot of (queue's context, device) for a kernel: one lock-free scan
 * when cached, else built (sxi_kernel_slot_get). Call inside a reader
 * section (sxi_read_lock); the slot stays valid until it ends. */
sx_result sxi_slot_build(struct sx_queue_s *q, struct sx_kernel_s *h, sxi_section *sec, sxi_kernel_slot **out);
/* The kernel's cached slot for the queue's (context, device), or NULL. */
static inline sxi_kernel_slot *sxi_slot_scan(const sxi_kernel *k, const struct sx_queue_s *q)
{
    sxi_kernel_slot *s = atomic_load_explicit(&k->slots, memory_order_seq_cst);
    while (s && (s->context != q->context || s->device != q->device))
        s = atomic_load_explicit(&s->next, memory_order_acquire);
    return s;
}
/* A queue or kernel released since the caller checked it (inside the section). */
sx_result sxi_launch_dead(const struct sx_queue_s *q, const struct sx_kernel_s *h);
static inline sx_result sxi_slot_for(struct sx_queue_s *q, struct sx_kernel_s *h, sxi_section *sec,
                                     sxi_kernel_slot **out)
{
    /* Checked again inside the section: a release that killed the tag
     * before waits for this section before it frees what is used below. */
    if (SXI_UNLIKELY(sxi_tag_of(&q->tag) != SXI_TAG_QUEUE || sxi_tag_of(&h->tag) != SXI_TAG_KERNEL))
        return sxi_launch_dead(q, h);
    /* Inside the section: the last sx_fini waits for it (init.c). */
    if (SXI_LIKELY(atomic_load_explicit(&sxi_initialized_flag, memory_order_relaxed))) {
        sxi_kernel_slot *s = sxi_slot_scan(h->k, q);
        if (SXI_LIKELY(s != NULL)) {
            *out = s;
            return SX_SUCCESS;
        }
    }
    return sxi_slot_build(q, h, sec, out);
}

/* The one launch path: checks the launch shape (and, unless the caller
 * built them from the signature, the arguments), then calls the adapter.
 * The free-function layer calls it with its mapped argument array. */
sx_result sxi_launch_slot(struct sx_queue_s *q, struct sx_kernel_s *k, sxi_kernel_slot *s, uint32_t dims,
                          const size_t *offset, const size_t *global, const size_t *local, uint32_t num_args,
                          const sx_arg *args, bool args_checked, uint32_t num_events, const sx_event *wait_list,
                          sx_event *event);
#include "timeline.h"

#endif /* SX_INTERNAL_H */
