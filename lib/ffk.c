/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ffk.c: free-function kernels: lookup by function name, set_arg by source
 * index, and the mapping to backend arguments at launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

#define PREFIX "__sycl_kernel_"
#define MAX_SOURCE_PARAMS 65536u
#define INLINE_BYTES 16

/* ------------------------------------------------------------- lookup */

/* A name split at "::" into at most 16 components. */
typedef struct {
    const char *p[16];
    size_t len[16];
    uint32_t n;
} name_parts;

static bool split_name(const char *name, name_parts *out)
{
    out->n = 0;
    for (const char *p = name; *p;) {
        const char *e = strstr(p, "::");
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 || out->n == 16)
            return false;
        out->p[out->n] = p;
        out->len[out->n++] = len;
        p = e ? e + 2 : p + len;
    }
    return out->n > 0;
}

/* The components of a C++ free-function kernel's entry, as DPC++'s front end
 * mangles it (the prefix on the outermost name): "_Z17__sycl_kernel_bari"
 * gives {bar}, "_ZN16__sycl_kernel_ns2in1fEPi" {ns, in, f},
 * "_ZN26__sycl_kernel__GLOBAL__N_15ff_12EiPi" {_GLOBAL__N_1, ff_12}. Only
 * plain source names are read; anything else ends the name. */
static bool entry_parts(const char *entry, name_parts *out)
{
    out->n = 0;
    if (strncmp(entry, "_Z", 2) != 0)
        return false;
    const char *p = entry + 2;
    bool nested = *p == 'N';
    p += nested;
    p += *p == 'L'; /* internal linkage */
    while (*p >= '0' && *p <= '9' && out->n < 16) {
        size_t len = 0;
        while (*p >= '0' && *p <= '9' && len < 4096)
            len = len * 10 + (size_t)(*p++ - '0');
        if (len == 0 || strnlen(p, len) < len)
            return false;
        out->p[out->n] = p;
        out->len[out->n++] = len;
        p += len;
        if (!nested)
            break;
    }
    if (out->n == 0 || out->len[0] <= strlen(PREFIX) || strncmp(out->p[0], PREFIX, strlen(PREFIX)) != 0)
        return false;
    out->p[0] += strlen(PREFIX);
    out->len[0] -= strlen(PREFIX);
    return true;
}

static bool anonymous_ns(const char *p, size_t len)
{
    return len >= 10 && strncmp(p, "_GLOBAL__N", 10) == 0;
}

static bool part_eq(const name_parts *a, uint32_t i, const name_parts *b, uint32_t j)
{
    return a->len[i] == b->len[j] && memcmp(a->p[i], b->p[j], a->len[i]) == 0;
}

/* How `want` (the C++ name) names the entry's components `have`: 2 exactly,
 * 1 leaving out namespaces the mangled name has but C++ lets one omit,
 * 0 not at all. Omitted may be anonymous namespaces anywhere and, between
 * the outermost namespace and the function, inline namespaces (Itanium
 * mangles those as any other, so any inner namespace may be left out; the
 * outermost one must be given unless it is anonymous). */
static int name_match(const name_parts *want, const name_parts *have)
{
    if (want->n == have->n) {
        uint32_t i = 0;
        while (i < want->n && part_eq(want, i, have, i))
            i++;
        if (i == want->n)
            return 2;
    }
    if (have->n <= want->n || !part_eq(want, want->n - 1, have, have->n - 1))
        return 0;
    uint32_t w = 0;
    for (uint32_t h = 0; h + 1 < have->n; h++) {
        if (w + 1 < want->n && part_eq(want, w, have, h))
            w++;
        else if (!anonymous_ns(have->p[h], have->len[h]) && h == 0)
            return 0; /* the outermost named namespace left out */
    }
    return w + 1 == want->n ? 1 : 0;
}

typedef struct {
    const char *want_exact; /* "__sycl_kernel_<name>" */
    name_parts want;
    bool cxx;               /* `want` was parsed */
    const char *found[2][8]; /* [0] exact names, [1] names leaving out namespaces */
    uint32_t count[2];
} match;

static void consider(const char *entry, match *m)
{
    int tier = strcmp(entry, m->want_exact) == 0 ? 2 : 0;
    name_parts have;
    if (!tier && m->cxx && entry_parts(entry, &have))
        tier = name_match(&m->want, &have);
    if (!tier)
        return;
    uint32_t t = tier == 2 ? 0 : 1;
    for (uint32_t i = 0; i < m->count[t] && i < 8; i++)
        if (strcmp(m->found[t][i], entry) == 0)
            return;
    if (m->count[t] < 8)
        m->found[t][m->count[t]] = entry;
    m->count[t]++;
}

/* Registry lock held. */
static void each_entry(void (*fn)(const char *entry, void *arg), void *arg);

static void consider_cb(const char *entry, void *arg)
{
    consider(entry, arg);
}

SX_API sx_result sx_kernel_get_free_function(const char *name, sx_kernel *out)
{
    SXI_CHECK_INIT();
    SXI_CHECK_PTR(name, "name");
    SXI_CHECK_PTR(out, "kernel");
    if (!*name || strlen(name) > 1024)
        return sxi_error(SX_ERROR_INVALID_KERNEL_NAME, "sx_kernel_get_free_function: a name of %zu characters cannot be a kernel's (1 to 1024).",
                         strlen(name));
    char exact[1100];
    snprintf(exact, sizeof(exact), PREFIX "%s", name);
    match m = {exact, {{0}, {0}, 0}, false, {{0}}, {0, 0}};
    m.cxx = split_name(name, &m.want);
    sxi_registry_lock();
    sxi_image *img;
    const char *entry = NULL;
    char chosen[1200];
    uint32_t t = 0;
    if (sxi_registry_find_kernel(name, &img, 1)) {
        entry = name; /* a full entry name */
    } else {
        each_entry(consider_cb, &m);
        t = m.count[0] ? 0 : 1; /* the name as written first, then with namespaces left out */
        if (m.count[t] == 1)
            entry = m.found[t][0];
    }
    if (!entry) {
        char list[1024] = "";
        size_t w = 0;
        for (uint32_t i = 0; i < m.count[t] && i < 8 && w < sizeof(list); i++)
            w += (size_t)snprintf(list + w, sizeof(list) - w, "%s%s", i ? ", " : "", m.found[t][i]);
        sxi_registry_unlock();
        if (m.count[t] > 1)
            return sxi_error(SX_ERROR_INVALID_KERNEL_NAME,
                             "sx_kernel_get_free_function: '%s' names %u kernels (overloads, template instances, or "
                             "functions in different inline or anonymous namespaces); ask by entry name: %s%s", name,
                             m.count[t], list, m.count[t] > 8 ? ", ..." : "");
        return sxi_error(SX_ERROR_INVALID_KERNEL_NAME,
                         "sx_kernel_get_free_function: no registered image has a free-function kernel '%s' (entry '%s' "
                         "or a C++ entry of that name, inline and anonymous namespaces left out or not)", name, exact);
    }
    snprintf(chosen, sizeof(chosen), "%s", entry);
    /* It must be a free-function kernel in the image that has it. */
    sxi_registry_find_kernel(chosen, &img, 1);
    const sxi_signature *sig = NULL;
    for (uint32_t e = 0; e < img->num_entries; e++)
        if (strcmp(img->entries[e], chosen) == 0)
            sig = &img->signatures[e];
    bool ffk = sig && sig->known && sig->kind != SX_KERNEL_KIND_PLAIN;
    sxi_registry_unlock();
    if (!ffk)
        return sxi_error(SX_ERROR_INVALID_KERNEL_NAME,
                         "sx_kernel_get_free_function: '%s' is a kernel but not a free-function kernel (no "
                         "sycl-nd-range-kernel or sycl-single-task-kernel signature)", chosen);
    return sx_kernel_get(chosen, out);
}

/* ------------------------------------------------- every kernel (ids) */

static void each_entry(void (*fn)(const char *entry, void *arg), void *arg)
{
    for (const sxi_library *l = sxi_registry_libraries(); l; l = l->next)
        for (uint32_t i = 0; i < l->num_images; i++)
            for (uint32_t e = 0; e < l->images[i].num_entries; e++)
                fn(l->images[i].entries[e], arg);
}

typedef struct {
    const char **names;
    uint32_t count, cap;
} name_list;

static void collect(const char *entry, void *arg)
{
    name_list *nl = arg;
    for (uint32_t i = 0; i < nl->count; i++)
        if (strcmp(nl->names[i], entry) == 0)
            return;
    if (nl->count == nl->cap) {
        uint32_t cap = nl->cap ? nl->cap * 2 : 32;
        const char **n = realloc(nl->names, cap * sizeof(*n));
        if (!n)
            return;
        nl->names = n;
        nl->cap = cap;
    }
    nl->names[nl->count++] = entry;
}

SX_API sx_result sx_kernel_get_all(uint32_t count, sx_kernel *kernels, uint32_t *num)
{
    SXI_CHECK_INIT();
    if (!kernels && !num)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_kernel_get_all: kernels and num_kernels are both NULL");
    if (kernels && count == 0)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_kernel_get_all: count is 0, but the kernels array is not NULL.");
    name_list nl = {0};
    char **copies = NULL;
    sxi_registry_lock();
    each_entry(collect, &nl);
    uint32_t n = nl.count, take = kernels ? (count < n ? count : n) : 0;
    /* Names are copied: sx_kernel_get takes the registry lock itself. */
    if (take && (copies = calloc(take, sizeof(*copies))))
        for (uint32_t i = 0; i < take; i++)
            copies[i] = strdup(nl.names[i]);
    sxi_registry_unlock();
    free(nl.names);
    if (num)
        *num = n;
    sx_result r = SX_SUCCESS;
    if (take && !copies)
        r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_kernel_get_all: out of memory");
    for (uint32_t i = 0; copies && i < take; i++) {
        if (r == SX_SUCCESS)
            r = copies[i] ? sx_kernel_get(copies[i], &kernels[i])
                          : sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_kernel_get_all: out of memory");
        if (r != SX_SUCCESS)
            for (uint32_t k = 0; k < i; k++)
                sx_kernel_release(kernels[k]);
        free(copies[i]);
    }
    free(copies);
    return r;
}

/* ------------------------------------------------------------ arguments */

typedef struct {
    uint8_t set;          /* 0, or SX_ARG_* + 1 */
    size_t size;
    union {
        uint8_t bytes[INLINE_BYTES];
        uint8_t *heap;
        const void *ptr;
    } v;
} source_arg;

/* A source parameter as set_arg must match it: SX_PARAM_* and bytes. */
typedef struct {
    uint32_t kind, size;
} source_sig;

struct sx_args_s {
    _Atomic uint32_t tag;
    struct sx_kernel_s *kernel;
    uint32_t num;         /* source params known when created (UINT32_MAX: unknown, grows) */
    uint32_t cap;
    source_arg *args;
    source_sig *sig;      /* num entries when known: each argument is checked when set */
};

#define SXI_TAG_ARGS 0x53584152u

static const uint8_t *arg_bytes(const source_arg *a)
{
    return a->size <= INLINE_BYTES ? a->v.bytes : a->v.heap;
}

static void arg_clear(source_arg *a)
{
    if (a->set == SX_ARG_VALUE + 1 && a->size > INLINE_BYTES)
        free(a->v.heap);
    memset(a, 0, sizeof(*a));
}

/* The source parameters the registered images give the kernel: their
 * count (UINT32_MAX if none has a signature) and, in *sig, each one's kind
 * and size (NULL when unknown or out of memory: then only the launch checks). */
static uint32_t source_params(const struct sx_kernel_s *k, source_sig **sig)
{
    uint32_t n = UINT32_MAX;
    *sig = NULL;
    sxi_registry_lock();
    sxi_image *img;
    if (sxi_registry_find_kernel(k->name, &img, 1))
        for (uint32_t e = 0; e < img->num_entries && n == UINT32_MAX; e++)
            if (strcmp(img->entries[e], k->name) == 0 && img->signatures[e].known) {
                const sxi_signature *s = &img->signatures[e];
                n = s->num_source_params;
                if (n && (*sig = malloc(n * sizeof(**sig))))
                    for (uint32_t i = 0; i < n; i++)
                        (*sig)[i] = (source_sig){s->sources[i].kind, s->sources[i].size};
            }
    sxi_registry_unlock();
    return n;
}

SX_API sx_result sx_args_create(sx_kernel k, sx_args *out)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(k, SXI_TAG_KERNEL, "kernel");
    SXI_CHECK_PTR(out, "args");
    struct sx_args_s *a = sxi_handle_new(sizeof(*a));
    if (!a)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_args_create: out of memory");
    uint32_t n = source_params(k, &a->sig);
    a->num = n;
    a->cap = n == UINT32_MAX ? 0 : n;
    if (a->cap && !(a->args = calloc(a->cap, sizeof(*a->args)))) {
        free(a->sig);
        sxi_handle_free(a, sizeof(*a));
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_args_create: out of memory");
    }
    sx_result r = sxi_kernel_dup(k, &a->kernel);
    if (r != SX_SUCCESS) {
        free(a->sig);
        free(a->args);
        sxi_handle_free(a, sizeof(*a));
        return r;
    }
    a->tag = SXI_TAG_ARGS;
    *out = a;
    return SX_SUCCESS;
}

/* Released argument arrays wait here for a grace period, a batch at a
 * time: one grace period (a membarrier(2) call) per release made an
 * argument set per launch 3.1x slower (bench/launch-ab SX_AB_MODE=args). */
#define RETIRE_BATCH 64
typedef struct {
    source_arg *args;
    uint32_t cap;
    source_sig *sig;
} retired_args;
static pthread_mutex_t retire_lock = PTHREAD_MUTEX_INITIALIZER;
static retired_args retired[RETIRE_BATCH]; /* reachable: no leak report for a batch never full */
static uint32_t nretired;

static void free_retired(retired_args *r, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++) {
        for (uint32_t i = 0; i < r[j].cap; i++)
            arg_clear(&r[j].args[i]);
        free(r[j].args);
        free(r[j].sig);
    }
}

/* Every array retired so far, after a grace period (never inside a
 * reader section). sx_fini calls it after its own grace period. */
void sxi_args_reclaim(bool synchronize)
{
    retired_args batch[RETIRE_BATCH];
    pthread_mutex_lock(&retire_lock);
    uint32_t n = nretired;
    memcpy(batch, retired, n * sizeof(*batch));
    nretired = 0;
    pthread_mutex_unlock(&retire_lock);
    if (n && synchronize)
        sxi_epoch_synchronize();
    free_retired(batch, n);
}

/* A launch reads the arguments inside its reader section, where it checks
 * the tag again (launch_in_section): after the tag is killed, the arrays
 * are freed once a grace period has passed. */
static void retire(struct sx_args_s *a)
{
    retired_args r = {a->args, a->cap, a->sig};
    pthread_mutex_lock(&retire_lock);
    if (nretired < RETIRE_BATCH) {
        retired[nretired++] = r;
        pthread_mutex_unlock(&retire_lock);
        return;
    }
    pthread_mutex_unlock(&retire_lock);
    sxi_args_reclaim(true);
    free_retired(&r, 1); /* retired before that grace period began */
}

SX_API sx_result sx_args_release(sx_args a)
{
    if (!a)
        return sxi_error(SX_ERROR_INVALID_NULL_HANDLE, "sx_args_release: args is NULL");
    if (!sxi_handle_kill(&a->tag, SXI_TAG_ARGS))
        return SXI_DEAD_HANDLE(a, "args");
    retire(a);
    struct sx_kernel_s *k = a->kernel;
    sxi_handle_free(a, sizeof(*a));
    return sx_kernel_release(k);
}

SX_API sx_result sx_args_clear(sx_args a)
{
    SXI_CHECK_HANDLE(a, SXI_TAG_ARGS, "args");
    for (uint32_t i = 0; i < a->cap; i++)
        arg_clear(&a->args[i]);
    return SX_SUCCESS;
}

static sx_result slot_for_set(struct sx_args_s *a, uint32_t index, source_arg **out)
{
    if (a->num != UINT32_MAX && index >= a->num)
        return sxi_error(SX_ERROR_INVALID_ARGUMENT_INDEX, "set_arg on '%s': index %u is past its %u parameters",
                         a->kernel->name, index, a->num);
    if (index >= MAX_SOURCE_PARAMS)
        return sxi_error(SX_ERROR_INVALID_ARGUMENT_INDEX, "set_arg on '%s': argument index %u is past the most an argument set holds (65535).", a->kernel->name, index);
    if (index >= a->cap) { /* kernel without a signature: grow */
        uint32_t cap = index + 8;
        source_arg *n = realloc(a->args, cap * sizeof(*n));
        if (!n)
            return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "set_arg: out of memory");
        memset(n + a->cap, 0, (cap - a->cap) * sizeof(*n));
        a->args = n;
        a->cap = cap;
    }
    *out = &a->args[index];
    arg_clear(*out);
    return SX_SUCCESS;
}

static const char *set_word(sx_arg_type type)
{
    return type == SX_ARG_LOCAL ? "sx_args_set_local" : type == SX_ARG_POINTER ? "sx_args_set_pointer" : "sx_args_set";
}

/* The kernel's signature says what argument `index` is: the kind and size
 * set_arg gives must match it (as the launch would check), so a wrong
 * argument is refused where it is set. A pointer parameter also takes its
 * bytes as a value of the pointer's size. */
static sx_result check_against_signature(const struct sx_args_s *a, sx_arg_type type, uint32_t index, size_t size)
{
    if (!a->sig || index >= a->num || type > SX_ARG_LOCAL)
        return SX_SUCCESS;
    const source_sig *p = &a->sig[index];
    const char *kn = a->kernel->name, *fn = set_word(type);
    if (p->kind == SX_PARAM_LOCAL) {
        if (type != SX_ARG_LOCAL)
            return sxi_error(SX_ERROR_INVALID_KERNEL_ARGS,
                             "%s on '%s': parameter %u is work_group_memory (a local pointer), so it takes a size "
                             "through sx_args_set_local, not %s.", fn, kn, index,
                             type == SX_ARG_POINTER ? "a pointer" : "a value");
        return SX_SUCCESS;
    }
    if (type == SX_ARG_LOCAL)
        return sxi_error(SX_ERROR_INVALID_KERNEL_ARGS,
                         "sx_args_set_local on '%s': parameter %u is %s of %u bytes, not work_group_memory.", kn,
                         index, p->kind == SX_PARAM_POINTER ? "a pointer" : "a value", p->size);
    if (p->kind == SX_PARAM_POINTER) {
        if (type == SX_ARG_VALUE && size != p->size)
            return sxi_error(SX_ERROR_INVALID_ARGUMENT_SIZE,
                             "sx_args_set on '%s': parameter %u is a pointer of %u bytes, but %zu bytes were given.",
                             kn, index, p->size, size);
        return SX_SUCCESS;
    }
    if (type == SX_ARG_POINTER)
        return sxi_error(SX_ERROR_INVALID_KERNEL_ARGS,
                         "sx_args_set_pointer on '%s': parameter %u is a value of %u bytes, not a pointer.", kn, index,
                         p->size);
    if (size != p->size)
        return sxi_error(SX_ERROR_INVALID_ARGUMENT_SIZE,
                         "sx_args_set on '%s': parameter %u is a value of %u bytes, but %zu bytes were given.", kn,
                         index, p->size, size);
    return SX_SUCCESS;
}

static sx_result set_one(struct sx_args_s *a, sx_arg_type type, uint32_t index, size_t size, const void *value)
{
    source_arg *s;
    sx_result r;
    if ((r = check_against_signature(a, type, index, size)) != SX_SUCCESS)
        return r;
    switch (type) {
    case SX_ARG_VALUE:
        if (!value)
            return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "set_arg on '%s': value of argument %u is NULL",
                             a->kernel->name, index);
        if (size == 0 || size > (1u << 20))
            return sxi_error(SX_ERROR_INVALID_ARGUMENT_SIZE, "set_arg on '%s': argument %u has %zu bytes; a value has 1 byte to 1 MiB.",
                             a->kernel->name, index, size);
        if ((r = slot_for_set(a, index, &s)) != SX_SUCCESS)
            return r;
        if (size > INLINE_BYTES) {
            if (!(s->v.heap = malloc(size)))
                return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "set_arg: out of memory for %zu bytes", size);
            memcpy(s->v.heap, value, size);
        } else {
            memcpy(s->v.bytes, value, size);
        }
        break;
    case SX_ARG_POINTER:
        if ((r = slot_for_set(a, index, &s)) != SX_SUCCESS)
            return r;
        s->v.ptr = value;
        size = sizeof(void *);
        break;
    case SX_ARG_LOCAL:
        if (size == 0)
            return sxi_error(SX_ERROR_INVALID_ARGUMENT_SIZE, "set_arg on '%s': work_group_memory argument %u needs a size above 0 bytes.",
                             a->kernel->name, index);
        if ((r = slot_for_set(a, index, &s)) != SX_SUCCESS)
            return r;
        break;
    default:
        return sxi_error(SX_ERROR_INVALID_ENUMERATION, "set_arg on '%s': argument %u has unknown type %u",
                         a->kernel->name, index, type);
    }
    s->size = size;
    s->set = (uint8_t)(type + 1);
    return SX_SUCCESS;
}

SX_API sx_result sx_args_set(sx_args a, uint32_t index, size_t size, const void *value)
{
    SXI_CHECK_HANDLE(a, SXI_TAG_ARGS, "args");
    return set_one(a, SX_ARG_VALUE, index, size, value);
}

SX_API sx_result sx_args_set_pointer(sx_args a, uint32_t index, const void *ptr)
{
    SXI_CHECK_HANDLE(a, SXI_TAG_ARGS, "args");
    return set_one(a, SX_ARG_POINTER, index, sizeof(void *), ptr);
}

SX_API sx_result sx_args_set_local(sx_args a, uint32_t index, size_t size)
{
    SXI_CHECK_HANDLE(a, SXI_TAG_ARGS, "args");
    return set_one(a, SX_ARG_LOCAL, index, size, NULL);
}

SX_API sx_result sx_args_set_all(sx_args a, uint32_t count, const sx_arg *values)
{
    SXI_CHECK_HANDLE(a, SXI_TAG_ARGS, "args");
    if (count && !values)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "set_args on '%s': values is NULL for %u arguments",
                         a->kernel->name, count);
    for (uint32_t i = 0; i < count; i++) {
        sx_result r = set_one(a, values[i].type, values[i].index, values[i].size, values[i].value);
        if (r != SX_SUCCESS)
            return r;
    }
    return SX_SUCCESS;
}

/* ------------------------------------------------------------- mapping */

static const char *kind_word(uint32_t kind)
{
    return kind == SX_PARAM_POINTER ? "a pointer" : kind == SX_PARAM_LOCAL ? "work_group_memory" : "a value";
}

/* Build the backend argument array for the image behind `sig`. */
static sx_result map_args(const struct sx_args_s *a, const sxi_signature *sig, const sx_launch_properties *props,
                          sx_arg *out)
{
    const char *kn = a->kernel->name;
    for (uint32_t s = 0; s < sig->num_source_params; s++) {
        const source_arg *v = s < a->cap ? &a->args[s] : NULL;
        const sxi_source_param *sp = &sig->sources[s];
        if (!v || !v->set)
            return sxi_error(SX_ERROR_INVALID_KERNEL_ARGS, "launch of '%s': argument %u is not set (the kernel has %u parameters).",
                             kn, s, sig->num_source_params);
        sx_arg_type t = (sx_arg_type)(v->set - 1);
        bool ok = sp->kind == SX_PARAM_LOCAL ? t == SX_ARG_LOCAL
                : sp->kind == SX_PARAM_POINTER ? t == SX_ARG_POINTER || (t == SX_ARG_VALUE && v->size == sp->size)
                                               : t == SX_ARG_VALUE;
        if (!ok)
            return sxi_error(SX_ERROR_INVALID_KERNEL_ARGS, "launch of '%s': argument %u was set as %s, but the parameter is %s.",
                             kn, s, t == SX_ARG_LOCAL ? "work_group_memory" : t == SX_ARG_POINTER ? "a pointer" : "a value",
                             kind_word(sp->kind));
        if (t == SX_ARG_VALUE && v->size != sp->size)
            return sxi_error(SX_ERROR_INVALID_ARGUMENT_SIZE, "launch of '%s': argument %u has %zu bytes, but the parameter has %u.",
                             kn, s, v->size, sp->size);
    }
    for (uint32_t s = sig->num_source_params; s < a->cap; s++)
        if (a->args[s].set)
            return sxi_error(SX_ERROR_INVALID_ARGUMENT_INDEX, "launch of '%s': argument %u is set, but the kernel has only %u parameters.",
                             kn, s, sig->num_source_params);
    /* A scratch size for a kernel without scratch memory is ignored, as in
     * DPC++ (intel/llvm#22706): one launch configuration may serve kernels
     * with and without it. */
    size_t scratch = props ? props->work_group_scratch_size : 0;
    for (uint32_t j = 0; j < sig->num_params; j++) {
        uint32_t s = sig->source_index[j];
        sx_arg *o = &out[j];
        o->index = j;
        if (s == SX_SOURCE_INDEX_NONE) {
            if (!scratch)
                return sxi_error(SX_ERROR_INVALID_VALUE,
                                 "launch of '%s': the kernel uses work-group scratch memory: set work_group_scratch_size",
                                 kn);
            *o = (sx_arg){SX_ARG_LOCAL, j, scratch, NULL};
            continue;
        }
        const source_arg *v = &a->args[s];
        const sxa_kernel_param *p = &sig->params[j];
        if (v->set == SX_ARG_LOCAL + 1) {
            *o = (sx_arg){SX_ARG_LOCAL, j, v->size, NULL};
        } else if (v->set == SX_ARG_POINTER + 1) {
            *o = (sx_arg){SX_ARG_POINTER, j, sizeof(void *), v->v.ptr};
        } else {
            const uint8_t *bytes = arg_bytes(v) + sig->source_offset[j];
            if (p->kind == SX_PARAM_POINTER) {
                const void *ptr;
                memcpy(&ptr, bytes, sizeof(ptr));
                *o = (sx_arg){SX_ARG_POINTER, j, sizeof(void *), ptr};
            } else {
                *o = (sx_arg){SX_ARG_VALUE, j, p->size, bytes};
            }
        }
    }
    return SX_SUCCESS;
}

static sx_result launch_in_section(sxi_section *sec, struct sx_queue_s *q, struct sx_args_s *a, bool single,
                                   uint32_t dims, const size_t *global, const size_t *local,
                                   const sx_launch_properties *props, uint32_t nw, const sx_event *wl, sx_event *ev);

/* The slot (and the signature it points to) stays valid until the reader
 * section ends, whatever other threads unregister meanwhile (epoch.c). */
static sx_result launch(struct sx_queue_s *q, struct sx_args_s *a, bool single, uint32_t dims, const size_t *global,
                        const size_t *local, const sx_launch_properties *props, uint32_t nw, const sx_event *wl,
                        sx_event *ev)
{
    uint64_t t0 = sxi_tl_begin();
    sxi_section sec = sxi_read_lock();
    sx_result r = launch_in_section(&sec, q, a, single, dims, global, local, props, nw, wl, ev);
    if (SXI_UNLIKELY(t0)) { /* inside the section, sx_fini not begun: the names are valid */
        bool live = r == SX_SUCCESS || (atomic_load_explicit(&sxi_initialized_flag, memory_order_seq_cst) &&
                                        sxi_tag_of(&a->tag) == SXI_TAG_ARGS);
        sxi_tl_launch(t0, live ? a->kernel->name : "?", live ? q->device->name : "?", dims, global, local, a->cap,
                      (int)r);
    }
    sxi_read_unlock(sec);
    return r;
}

static sx_result launch_in_section(sxi_section *sec, struct sx_queue_s *q, struct sx_args_s *a, bool single,
                                   uint32_t dims, const size_t *global, const size_t *local,
                                   const sx_launch_properties *props, uint32_t nw, const sx_event *wl, sx_event *ev)
{
    /* Checked again inside the section: a release that killed the tag
     * before waits for this section before it frees the arguments. */
    if (SXI_UNLIKELY(sxi_tag_of(&a->tag) != SXI_TAG_ARGS))
        return sxi_error(SX_ERROR_INVALID_HANDLE, "launch: args %p was released (by another thread) during the call",
                         (void *)a);
    struct sx_kernel_s *k = a->kernel;
    if (props && props->size < sizeof(uint32_t) * 2 + sizeof(size_t))
        return sxi_error(SX_ERROR_INVALID_SIZE, "launch of '%s': sx_launch_properties.size is %u (want %zu)", k->name,
                         props->size, sizeof(sx_launch_properties));
    sxi_kernel_slot *s;
    sx_result r = sxi_slot_for(q, k, sec, &s);
    if (r != SX_SUCCESS)
        return r;
    /* and again after a first launch built the slot outside the section */
    if (SXI_UNLIKELY(sxi_tag_of(&a->tag) != SXI_TAG_ARGS))
        return sxi_error(SX_ERROR_INVALID_HANDLE, "launch: args %p was released (by another thread) during the call",
                         (void *)a);
    const sxi_signature *sig = s->sig;
    if (!sig->known) {
        /* No signature: source index = backend index. */
        sx_arg stack[32], *args = a->cap <= 32 ? stack : malloc(a->cap * sizeof(*args));
        if (!args)
            return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
        uint32_t n = 0;
        for (uint32_t i = 0; i < a->cap; i++)
            if (a->args[i].set) {
                const source_arg *v = &a->args[i];
                args[n++] = (sx_arg){(sx_arg_type)(v->set - 1), i, v->size,
                                     v->set == SX_ARG_POINTER + 1 ? v->v.ptr : v->set == SX_ARG_LOCAL + 1 ? NULL : arg_bytes(v)};
            }
        r = sxi_launch_slot(q, k, s, dims, NULL, global, local, n, args, false, nw, wl, ev);
        if (args != stack)
            free(args);
        return r;
    }
    if (single && sig->kind == SX_KERNEL_KIND_ND_RANGE)
        return sxi_error(SX_ERROR_INVALID_OPERATION, "single_task of '%s': it is an nd_range<%u> kernel; launch it with sx_nd_launch.", k->name, sig->dims);
    if (!single && sig->kind == SX_KERNEL_KIND_SINGLE_TASK)
        return sxi_error(SX_ERROR_INVALID_OPERATION, "nd_launch of '%s': it is a single_task kernel; launch it with sx_single_task.", k->name);
    if (!single && sig->kind == SX_KERNEL_KIND_ND_RANGE && dims != sig->dims)
        return sxi_error(SX_ERROR_INVALID_WORK_DIMENSION, "nd_launch of '%s' with %u dimensions; the kernel is nd_range<%u>",
                         k->name, dims, sig->dims);
    sx_arg stack[32], *args = sig->num_params <= 32 ? stack : malloc(sig->num_params * sizeof(*args));
    if (!args)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    r = map_args(a, sig, props, args);
    if (r == SX_SUCCESS)
        r = sxi_launch_slot(q, k, s, dims, NULL, global, local, sig->num_params, args, true, nw, wl, ev);
    if (args != stack)
        free(args);
    return r;
}

SX_API sx_result sx_nd_launch(sx_queue q, sx_args a, uint32_t dims, const size_t *global, const size_t *local,
                              const sx_launch_properties *props, uint32_t nw, const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    SXI_CHECK_HANDLE(a, SXI_TAG_ARGS, "args");
    SXI_CHECK_PTR(global, "global_size");
    return launch(q, a, false, dims, global, local, props, nw, wl, ev);
}

SX_API sx_result sx_single_task(sx_queue q, sx_args a, const sx_launch_properties *props, uint32_t nw,
                                const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    SXI_CHECK_HANDLE(a, SXI_TAG_ARGS, "args");
    static const size_t one[1] = {1};
    return launch(q, a, true, 1, one, one, props, nw, wl, ev);
}
