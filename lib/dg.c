/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dg.c: device globals: the database (by unique id and by host address,
 * fed by host registration and by images in any order), per-(context,
 * device) USM instances, program initialisation, and copy/memcpy.
 *
 * Copies and removal: a copy may race sx_device_global_remove, the
 * unregistration of the image that defines its variable, or a context's
 * teardown. The repeated copy takes no lock (a thread-local resolution,
 * valid while dg_generation holds), so what it uses is reclaimed the way
 * the cached launch's slots are (lib/epoch.c): the copy runs inside a
 * reader section and checks the generation there; writers bump the
 * generation under dg_lock, unlink, then wait for a grace period before
 * freeing (instances: unlock_and_reclaim(); the programs and images of an
 * unregistration: sxi_dg_remove_image). A copy thus either completes on
 * memory still alive or, resolved again, says the variable is gone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

typedef struct dg_instance {
    struct sx_context_s *context;
    struct sx_device_s *device;
    void *usm;                 /* the value; also the source of pointer writes, so it outlives them */
    bool adapter_owned;        /* `usm` is an adapter instance (global table), not USM */
    struct dg_instance *next;
} dg_instance;

typedef struct dg_ref {
    const sxi_image *image;
    const sxi_image_global *global;
} dg_ref;

typedef struct dg {
    char *uid;
    bool has_host;
    const void *host_ptr;
    uint32_t host_size, host_flags, host_access;
    uint32_t num_refs, cap_refs;
    dg_ref *refs;              /* every image that contains it */
    dg_instance *instances;
} dg;

static pthread_mutex_t dg_lock = PTHREAD_MUTEX_INITIALIZER;
static sxi_strmap by_uid;      /* uid -> dg */
static sxi_ptrmap by_host;     /* host address -> dg */

/* Bumped (under dg_lock) by every change that can alter what a copy
 * resolves to: registrations, images, instances. A thread remembers its
 * last copy's resolution and reuses it while the generation holds, so a
 * repeated copy takes no lock and no lookup. */
static _Atomic uint64_t dg_generation = 1;
#define DG_CHANGED() atomic_fetch_add_explicit(&dg_generation, 1, memory_order_release)

typedef struct {
    uint64_t generation;       /* 0: empty */
    const void *global;
    const struct sx_context_s *context;
    const struct sx_device_s *device;
    char *usm;                 /* the instance, or NULL for a device_image_scope variable: */
    sxa_program program;       /* its program and symbol (valid inside a reader section */
    const char *symbol;        /* while the generation holds: see sxi_dg_remove_image) */
    uint32_t size, access;
} copy_memo;
/* Per thread; the core is built with TLS descriptors (SX_TLS_CFLAGS), so
 * the copy path pays no __tls_get_addr call and the library still dlopens. */
static _Thread_local copy_memo memo;

static dg *find_host(const void *p)
{
    const struct sxi_ptrmap_slot *s = sxi_ptrmap_get(&by_host, p);
    return s ? s->value : NULL;
}

/* What the variable is, images first (the device compiler knows best). */
static uint32_t dg_size(const dg *d) { return d->num_refs ? d->refs[0].global->size : d->host_size; }
static bool dg_image_scope(const dg *d)
{
    return d->num_refs ? d->refs[0].global->image_scope : (d->host_flags & SX_DEVICE_GLOBAL_IMAGE_SCOPE) != 0;
}
static uint32_t dg_access(const dg *d) { return d->num_refs ? d->refs[0].global->host_access : d->host_access; }

static void instance_free(dg_instance *in)
{
    struct sx_adapter_s *a = in->context->adapter;
    sx_result r = in->adapter_owned ? SXA_CALL(a, global, instance_release, in->context->handle, in->usm)
                                    : SXA_CALL(a, usm, free, in->context->handle, in->usm);
    if (r != SX_SUCCESS)
        SXI_LOG(SX_LOG_WARN, "releasing a device_global instance on %s failed: %s: %s", a->name, sx_result_name(r),
                sx_last_error());
    free(in);
}

/* Instances nothing can reach any more (unlinked under dg_lock, with the
 * generation bumped) wait here until a grace period has passed: a copy may
 * still be using one inside its reader section (copy_instance). */
static dg_instance *retired;

static void retire(dg_instance *in)
{
    in->next = retired;
    retired = in;
}

/* Unlock dg_lock, then free what was retired once no copy can hold it
 * (never called inside a reader section; writers may hold the registry
 * lock: copies never take it inside a section). `grace`: wait for the
 * grace period even with nothing retired (an image whose programs a
 * device_image_scope copy may be using goes next). */
static void unlock_and_reclaim_grace(bool grace)
{
    dg_instance *list = retired;
    retired = NULL;
    pthread_mutex_unlock(&dg_lock);
    if (!list && !grace)
        return;
    sxi_epoch_synchronize();
    while (list) {
        dg_instance *n = list->next;
        instance_free(list);
        list = n;
    }
}

static void unlock_and_reclaim(void) { unlock_and_reclaim_grace(false); }

/* Set when a thread remembers a device_image_scope resolution (a program
 * and a symbol); cleared by the next unregistration, which waits for a
 * grace period before its programs and images go. Both happen under the
 * registry lock. */
static _Atomic bool scope_memos;

/* Drop an entry nothing contributes to any more (dg_lock held; its
 * instances are retired: unlock with unlock_and_reclaim). */
static void maybe_destroy(dg *d)
{
    if (d->has_host || d->num_refs)
        return;
    sxi_strmap_remove(&by_uid, d->uid);
    while (d->instances) {
        dg_instance *n = d->instances->next;
        retire(d->instances);
        d->instances = n;
    }
    free(d->refs);
    free(d->uid);
    free(d);
}

static dg *get_or_new(const char *uid)
{
    dg *d = sxi_strmap_get(&by_uid, uid);
    if (d)
        return d;
    d = calloc(1, sizeof(*d));
    if (!d || !(d->uid = strdup(uid)) || !sxi_strmap_put(&by_uid, d->uid, d)) {
        if (d)
            free(d->uid);
        free(d);
        return NULL;
    }
    d->host_access = SX_HOST_ACCESS_READ_WRITE;
    return d;
}

/* ------------------------------------------------------ host registration */

SX_API sx_result sx_device_global_add(const void *host_ptr, const char *uid, size_t size, uint32_t flags,
                                      uint32_t access)
{
    SXI_CHECK_PTR(host_ptr, "host_ptr");
    SXI_CHECK_PTR(uid, "unique_id");
    if (!*uid)
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_device_global_add: the unique id is empty.");
    if (size == 0 || size > UINT32_MAX)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_device_global_add('%s'): a size of %zu bytes is out of range (1 to 4294967295).", uid, size);
    if (flags & ~(uint32_t)SX_DEVICE_GLOBAL_IMAGE_SCOPE)
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_device_global_add('%s'): flags 0x%x are unknown.", uid, flags);
    if (access > SX_HOST_ACCESS_NONE)
        return sxi_error(SX_ERROR_INVALID_ENUMERATION, "sx_device_global_add('%s'): host_access %u is not an SX_HOST_ACCESS_* value.", uid, access);
    sx_result r = SX_SUCCESS;
    pthread_mutex_lock(&dg_lock);
    dg *d = find_host(host_ptr);
    if (d) {
        r = sxi_error(SX_ERROR_INVALID_OPERATION, "sx_device_global_add('%s'): %p is already device global '%s'", uid,
                      host_ptr, d->uid);
        goto out;
    }
    d = sxi_strmap_get(&by_uid, uid);
    if (d && d->has_host) {
        r = sxi_error(SX_ERROR_INVALID_OPERATION, "sx_device_global_add('%s'): already registered at %p", uid,
                      d->host_ptr);
        goto out;
    }
    if (d && d->num_refs && (dg_size(d) != size || dg_image_scope(d) != ((flags & SX_DEVICE_GLOBAL_IMAGE_SCOPE) != 0))) {
        r = sxi_error(SX_ERROR_INVALID_SIZE,
                      "sx_device_global_add('%s'): %zu bytes%s, but the registered images say %u bytes%s", uid, size,
                      flags ? " with device_image_scope" : "", dg_size(d), dg_image_scope(d) ? " with device_image_scope" : "");
        goto out;
    }
    if (!(d = get_or_new(uid))) {
        r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_device_global_add: out of memory");
        goto out;
    }
    DG_CHANGED();
    d->has_host = true;
    d->host_ptr = host_ptr;
    d->host_size = (uint32_t)size;
    d->host_flags = flags;
    d->host_access = access;
    if (!sxi_ptrmap_put(&by_host, host_ptr, size, 0, d)) {
        d->has_host = false;
        maybe_destroy(d);
        r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_device_global_add: out of memory");
    }
out:
    unlock_and_reclaim();
    if (r != SX_SUCCESS)
        SXI_LOG(SX_LOG_WARN, "%s", sx_last_error());
    return r;
}

SX_API sx_result sx_device_global_remove(const void *host_ptr)
{
    SXI_CHECK_PTR(host_ptr, "host_ptr");
    pthread_mutex_lock(&dg_lock);
    dg *d = find_host(host_ptr);
    if (!d) {
        pthread_mutex_unlock(&dg_lock);
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_device_global_remove: %p is not a registered device global", host_ptr);
    }
    DG_CHANGED();
    sxi_ptrmap_remove(&by_host, host_ptr);
    d->has_host = false;
    d->host_ptr = NULL;
    maybe_destroy(d);
    unlock_and_reclaim();
    return SX_SUCCESS;
}

/* ------------------------------------------------------ images */

/* Linear in the image's properties (issue 26): the globals by name in a
 * map, then one pass over the host-access and metadata sets each looking
 * their names up, instead of a scan of those sets per global. */
static sx_result dg_parse_globals(uint32_t index, sxi_image *im, const sx_device_binary_property_set *set,
                                  sxi_strmap *by_name)
{
    for (const sx_device_binary_property *p = set->properties_begin; p < set->properties_end; p++) {
        const uint8_t *v;
        size_t len;
        uint32_t size, scope = 0;
        /* Two u32 (what DPC++'s runtime reads) or the design note's u32 + u8. */
        if (!*p->name || !sxi_prop_bytes(p, &v, &len) || (len != 8 && len != 5))
            return sxi_error(SX_ERROR_INVALID_BINARY,
                             "sx_register_images: image %u: device global '%s' is not a {u32 size, u32 image scope} byte array",
                             index, p->name);
        memcpy(&size, v, 4);
        if (len == 8)
            memcpy(&scope, v + 4, 4);
        else
            scope = v[4];
        if (size == 0 || scope > 1)
            return sxi_error(SX_ERROR_INVALID_BINARY,
                             "sx_register_images: image %u: device global '%s' has size %u and image scope %u", index,
                             p->name, size, scope);
        if (sxi_strmap_get(by_name, p->name))
            return sxi_error(SX_ERROR_INVALID_BINARY, "sx_register_images: image %u: device global '%s' is listed twice",
                             index, p->name);
        sxi_image_global *g = &im->globals[im->num_globals++];
        g->uid = p->name;
        g->symbol = p->name;
        g->size = size;
        g->image_scope = scope;
        g->host_access = SX_HOST_ACCESS_READ_WRITE;
        if (!sxi_strmap_put(by_name, p->name, g))
            return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
    }
    return SX_SUCCESS;
}

static sx_result dg_parse_access(uint32_t index, const sx_device_binary_property_set *acc, sxi_strmap *by_name)
{
    /* The last property of a global's name counts, as a scan found it. */
    for (const sx_device_binary_property *a = acc ? acc->properties_begin : NULL; a && a < acc->properties_end; a++) {
        sxi_image_global *g = sxi_strmap_get(by_name, a->name);
        if (!g)
            continue;
        if (a->type != SX_PROPERTY_TYPE_UINT32 || a->value_size > SX_HOST_ACCESS_NONE)
            return sxi_error(SX_ERROR_INVALID_BINARY,
                             "sx_register_images: image %u: host_access of '%s' is not a UINT32 0..3", index, a->name);
        g->host_access = (uint32_t)a->value_size;
    }
    return SX_SUCCESS;
}

/* The program variable may have another name than the id: "ID@global_id_mapping". */
static sx_result dg_parse_mappings(uint32_t index, const sx_device_binary_property_set *meta, sxi_strmap *by_name)
{
    static const char suffix[] = "@global_id_mapping";
    const size_t sl_suffix = sizeof(suffix) - 1;
    for (const sx_device_binary_property *m = meta ? meta->properties_begin : NULL; m && m < meta->properties_end;
         m++) {
        size_t nl = strlen(m->name);
        if (nl <= sl_suffix || nl - sl_suffix >= 1100 || strcmp(m->name + nl - sl_suffix, suffix) != 0)
            continue;
        char id[1100];
        memcpy(id, m->name, nl - sl_suffix);
        id[nl - sl_suffix] = '\0';
        sxi_image_global *g = sxi_strmap_get(by_name, id);
        if (!g)
            continue;
        /* DPC++ stores the name with or without a terminating NUL. */
        const uint8_t *s;
        size_t sl;
        if (!sxi_prop_bytes(m, &s, &sl) || sl == 0 || sl > 1024 || memchr(s, 0, sl - 1))
            return sxi_error(SX_ERROR_INVALID_BINARY, "sx_register_images: image %u: %s is not a symbol name", index,
                             m->name);
        if (g->symbol_owned)
            return sxi_error(SX_ERROR_INVALID_BINARY, "sx_register_images: image %u: \"%s\" holds %s twice", index,
                             SX_PROP_SET_PROGRAM_METADATA, m->name);
        if (!(g->symbol_owned = strndup((const char *)s, sl)))
            return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
        g->symbol = g->symbol_owned;
    }
    return SX_SUCCESS;
}

sx_result sxi_dg_parse_image(uint32_t index, sxi_image *im)
{
    const sx_device_binary_property_set *set = sxi_prop_set(im->bin, SX_PROP_SET_DEVICE_GLOBALS);
    if (!set || set->properties_end == set->properties_begin)
        return SX_SUCCESS;
    size_t n = (size_t)(set->properties_end - set->properties_begin);
    im->globals = calloc(n, sizeof(*im->globals));
    if (!im->globals)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
    sxi_strmap by_name = {0};
    sx_result r = dg_parse_globals(index, im, set, &by_name);
    if (r == SX_SUCCESS)
        r = dg_parse_access(index, sxi_prop_set(im->bin, SX_PROP_SET_HOST_ACCESS), &by_name);
    if (r == SX_SUCCESS)
        r = dg_parse_mappings(index, sxi_prop_set(im->bin, SX_PROP_SET_PROGRAM_METADATA), &by_name);
    sxi_strmap_free(&by_name);
    return r;
}

sx_result sxi_dg_check_image(const sxi_image *im)
{
    sx_result r = SX_SUCCESS;
    pthread_mutex_lock(&dg_lock);
    for (uint32_t k = 0; k < im->num_globals && r == SX_SUCCESS; k++) {
        const sxi_image_global *g = &im->globals[k];
        dg *d = sxi_strmap_get(&by_uid, g->uid);
        if (d && (d->num_refs || d->has_host) && (dg_size(d) != g->size || dg_image_scope(d) != g->image_scope))
            r = sxi_error(SX_ERROR_INVALID_BINARY,
                          "sx_register_images: device global '%s' is %u bytes%s here but %u bytes%s where already registered",
                          g->uid, g->size, g->image_scope ? " with device_image_scope" : "", dg_size(d),
                          dg_image_scope(d) ? " with device_image_scope" : "");
    }
    pthread_mutex_unlock(&dg_lock);
    return r;
}

bool sxi_dg_add_image(const sxi_image *im)
{
    bool ok = true;
    pthread_mutex_lock(&dg_lock);
    DG_CHANGED();
    for (uint32_t k = 0; k < im->num_globals && ok; k++) {
        dg *d = get_or_new(im->globals[k].uid);
        if (!d) {
            ok = false;
            break;
        }
        if (d->num_refs == d->cap_refs) {
            uint32_t cap = d->cap_refs ? d->cap_refs * 2 : 2;
            dg_ref *n = realloc(d->refs, cap * sizeof(*n));
            if (!n) {
                maybe_destroy(d);
                ok = false;
                break;
            }
            d->refs = n;
            d->cap_refs = cap;
        }
        d->refs[d->num_refs++] = (dg_ref){im, &im->globals[k]};
    }
    unlock_and_reclaim();
    if (!ok)
        sxi_dg_remove_image(im);
    return ok;
}

void sxi_dg_remove_image(const sxi_image *im)
{
    pthread_mutex_lock(&dg_lock);
    DG_CHANGED();
    for (uint32_t k = 0; k < im->num_globals; k++) {
        dg *d = sxi_strmap_get(&by_uid, im->globals[k].uid);
        if (!d)
            continue;
        for (uint32_t i = 0; i < d->num_refs; i++)
            if (d->refs[i].image == im) {
                memmove(&d->refs[i], &d->refs[i + 1], (d->num_refs - i - 1) * sizeof(*d->refs));
                d->num_refs--;
                break;
            }
        maybe_destroy(d);
    }
    unlock_and_reclaim_grace(atomic_exchange_explicit(&scope_memos, false, memory_order_relaxed));
}

/* ------------------------------------------------------ instances */

static void dg_drop_context(struct sx_context_s *ctx);

/* The (context, device) instance, allocated and initialised on first need
 * (dg_lock held). */
static sx_result instance_get(dg *d, struct sx_queue_s *q, dg_instance **out)
{
    for (dg_instance *in = d->instances; in; in = in->next)
        if (in->context == q->context && in->device == q->device) {
            *out = in;
            return SX_SUCCESS;
        }
    struct sx_adapter_s *a = q->adapter;
    sx_result r = sxi_context_dep_once(q->context, SXI_DEP_GLOBALS, dg_drop_context);
    if (r != SX_SUCCESS)
        return r;
    dg_instance *in = calloc(1, sizeof(*in));
    if (!in)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    uint32_t size = dg_size(d);
    in->context = q->context;
    r = SXA_CALL(a, usm, alloc, q->context->handle, q->device->handle, SX_USM_TYPE_DEVICE, size, 0, &in->usm);
    if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
        /* No USM (Oclgrind): memory the adapter owns, bound into programs. */
        r = SXA_CALL(a, global, instance_create, q->context->handle, q->device->handle, size, &in->usm);
        in->adapter_owned = r == SX_SUCCESS;
    }
    if (r == SX_SUCCESS && !in->usm)
        r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter '%s' returned a NULL instance and success", a->name);
    if (r != SX_SUCCESS) {
        free(in);
        sxi_error_prefix("device_global '%s': allocating its %u bytes on %s", d->uid, size, q->device->name);
        return r;
    }
    /* The initial value the host object holds after its pointer member, or zeros
     * (adapter instances start zeroed). */
    if (d->has_host && in->adapter_owned)
        r = SXA_CALL(a, global, instance_copy, q->handle, in->usm, 1, 0, size, (char *)d->host_ptr + sizeof(void *), 1, 0,
                     NULL, NULL);
    else if (d->has_host)
        r = SXA_CALL(a, enqueue, usm_memcpy, q->handle, 1, in->usm, (const char *)d->host_ptr + sizeof(void *), size, 0,
                     NULL, NULL);
    else if (!in->adapter_owned) {
        static const uint8_t zero[1];
        r = SXA_CALL(a, enqueue, usm_fill, q->handle, in->usm, 1, zero, size, 0, NULL, NULL);
        if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
            uint8_t *zeros = calloc(1, size);
            r = zeros ? SXA_CALL(a, enqueue, usm_memcpy, q->handle, 1, in->usm, zeros, size, 0, NULL, NULL)
                      : sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
            free(zeros);
        }
        if (r == SX_SUCCESS)
            r = SXA_CALL(a, queue, finish, q->handle);
    }
    if (r != SX_SUCCESS) {
        sxi_error_prefix("device_global '%s': initialising its instance on %s", d->uid, q->device->name);
        instance_free(in);
        return r;
    }
    in->context = q->context;
    in->device = q->device;
    in->next = d->instances;
    d->instances = in;
    *out = in;
    return SX_SUCCESS;
}

sx_result sxi_dg_program_built(struct sx_queue_s *q, sxi_program *p)
{
    sx_result r = SX_SUCCESS;
    pthread_mutex_lock(&dg_lock);
    DG_CHANGED(); /* device_image_scope copies resolve to exactly one program */
    /* Every image of the program, dependencies included. */
    for (uint32_t i = 0; i < p->num_images && r == SX_SUCCESS; i++) {
        const sxi_image *im = p->images[i];
        for (uint32_t k = 0; k < im->num_globals && r == SX_SUCCESS; k++) {
            const sxi_image_global *g = &im->globals[k];
            if (g->image_scope)
                continue;
            dg *d = sxi_strmap_get(&by_uid, g->uid);
            dg_instance *in;
            if (!d)
                continue; /* cannot happen: the image's registration made the entry */
            if ((r = instance_get(d, q, &in)) != SX_SUCCESS)
                break;
            /* Blocking: every later launch from this program sees the pointer;
             * the source is the instance's own field in any case. */
            r = in->adapter_owned
                    ? SXA_CALL(q->adapter, global, bind, q->handle, p->handle, g->symbol, in->usm)
                    : SXA_CALL(q->adapter, enqueue, global_write, q->handle, p->handle, g->symbol, 1, sizeof(void *), 0,
                               &in->usm, 0, NULL, NULL);
            if (r != SX_SUCCESS)
                sxi_error_prefix("device_global '%s': writing its address into the program on %s", g->uid,
                                 q->device->name);
        }
    }
    pthread_mutex_unlock(&dg_lock);
    return r;
}

/* The context's dependent (SXI_DEP_GLOBALS): its instances. */
static void dg_drop_context(struct sx_context_s *ctx)
{
    pthread_mutex_lock(&dg_lock);
    DG_CHANGED();
    SXI_STRMAP_FOREACH(&by_uid, s)
    {
        dg *d = s->value;
        dg_instance **pp = &d->instances;
        while (*pp) {
            dg_instance *in = *pp;
            if (in->context == ctx) {
                *pp = in->next;
                retire(in);
            } else {
                pp = &in->next;
            }
        }
    }
    unlock_and_reclaim();
}

/* ------------------------------------------------------ copies */

typedef struct {
    bool write;
    struct sx_queue_s *q;
    const void *global;
    void *host;             /* dst of a read, src of a write */
    size_t bytes, offset;
    int blocking;
    uint32_t nw;
    const sx_event *wl;
    sx_event *ev;
} copy_req;

static sx_result copy_host_storage(dg *d, const copy_req *c)
{
    /* No image has it: the host object is the storage. */
    sx_result r = sx_event_wait(c->nw, c->wl);
    if (r != SX_SUCCESS)
        return r;
    char *storage = (char *)d->host_ptr + c->offset;
    if (c->write)
        memmove(storage, c->host, c->bytes);
    else
        memmove(c->host, storage, c->bytes);
    return c->ev ? sxi_event_wrap(c->q, NULL, c->ev) : SX_SUCCESS;
}

/* A device_image_scope variable through its one program's variable. */
static sx_result copy_program_variable(const copy_req *c, sxa_program prog, const char *symbol)
{
    struct sx_queue_s *q = c->q;
    sxa_event stack[16], *waits, out = NULL;
    uint32_t nwaits;
    sx_result r = sxi_wait_list(q->adapter, c->nw, c->wl, stack, &waits, &nwaits);
    if (r != SX_SUCCESS)
        return r;
    r = c->write ? SXA_CALL(q->adapter, enqueue, global_write, q->handle, prog, symbol, c->blocking, c->bytes,
                            c->offset, c->host, nwaits, waits, c->ev ? &out : NULL)
                 : SXA_CALL(q->adapter, enqueue, global_read, q->handle, prog, symbol, c->blocking, c->bytes,
                            c->offset, c->host, nwaits, waits, c->ev ? &out : NULL);
    sxi_wait_list_free(q->adapter, c->nw, c->wl, waits, stack);
    if (r == SX_SUCCESS && c->ev)
        r = sxi_event_wrap(q, out, c->ev);
    return r;
}

static sx_result copy_image_scope(const char *uid, uint32_t size, uint32_t access, const copy_req *c)
{
    struct sx_queue_s *q = c->q;
    sxi_registry_lock();
    pthread_mutex_lock(&dg_lock);
    uint64_t gen = atomic_load_explicit(&dg_generation, memory_order_relaxed);
    dg *d = sxi_strmap_get(&by_uid, uid);
    sx_result r = SX_SUCCESS;
    const sxi_image *img = NULL;
    const sxi_image_global *g = NULL;
    uint32_t usable = 0;
    int best = 0;
    /* Only images of the kind the device prefers count, as in kernel
     * selection: a SPIR-V image and its SPIR variant are one image. */
    for (uint32_t i = 0; d && i < d->num_refs; i++) {
        const sxi_image *im = d->refs[i].image;
        int rank = sxi_device_kind_rank(q->device, im->kind);
        if (rank && !(im->aspects & ~q->device->aspects) && rank >= best) {
            usable = rank > best ? 1 : usable + 1;
            best = rank;
            img = im;
            g = d->refs[i].global;
        }
    }
    if (!d)
        r = sxi_error(SX_ERROR_INVALID_GLOBAL_NAME, "device_global '%s' was removed", uid);
    else if (d->num_refs == 0) {
        r = copy_host_storage(d, c);
        pthread_mutex_unlock(&dg_lock);
        sxi_registry_unlock();
        return r;
    } else if (usable == 0)
        r = sxi_error(SX_ERROR_KERNEL_NOT_SUPPORTED,
                      "device_global '%s' (device_image_scope): none of its %u image(s) can run on %s", uid, d->num_refs,
                      q->device->name);
    else if (usable > 1)
        r = sxi_error(SX_ERROR_INVALID_VALUE,
                      "device_global '%s' (device_image_scope) is in %u images for %s; it must be in exactly one", uid,
                      usable, q->device->name);
    pthread_mutex_unlock(&dg_lock);
    sxi_program *p = NULL;
    if (r == SX_SUCCESS) {
        uint32_t n = sxi_programs_with_image(q->context, q->device, img->id, &p);
        if (n > 1)
            r = sxi_error(SX_ERROR_INVALID_VALUE,
                          "device_global '%s' (device_image_scope) is in %u programs on %s; it must be in exactly one", uid,
                          n, q->device->name);
        else if (n == 0 && (r = sxi_program_get(q, img, &p)) != SX_SUCCESS) /* from its initial value */
            sxi_error_prefix("device_global '%s' (device_image_scope): %s needs the program of image %llu, which "
                             "holds it, on %s", uid, c->write ? "a write" : "a read", (unsigned long long)img->id,
                             q->device->name);
    }
    if (r == SX_SUCCESS) {
        atomic_store_explicit(&scope_memos, true, memory_order_relaxed);
        memo = (copy_memo){gen, c->global, q->context, q->device, NULL, p->handle, g->symbol, size, access};
        r = copy_program_variable(c, p->handle, g->symbol);
        if (r != SX_SUCCESS)
            sxi_error_prefix("device_global '%s': %s its program variable on %s", uid,
                             c->write ? "writing" : "reading", q->device->name);
    }
    sxi_registry_unlock();
    return r;
}

/* A copy to or from an instance (device USM of this queue's context, or
 * memory the adapter owns): straight to the adapter, inside the reader
 * section `sec` the caller entered (and this leaves), so the instance
 * cannot be freed under the copy (instances are retired, then freed after
 * a grace period: unlock_and_reclaim()). */
static inline __attribute__((always_inline)) sx_result copy_instance(const copy_req *c, char *inst, bool adapter_owned,
                                                                  sxi_section sec)
{
    struct sx_queue_s *q = c->q;
    sx_result r = SX_SUCCESS;
    if (SXI_LIKELY(c->nw == 0 && !c->ev && !adapter_owned)) {
        /* the repeated blocking copy: one adapter call */
        if (c->bytes)
            r = SXA_CALL(q->adapter, enqueue, usm_memcpy, q->handle, c->blocking, c->write ? inst + c->offset : c->host,
                         c->write ? (const void *)c->host : inst + c->offset, c->bytes, 0, NULL, NULL);
        sxi_read_unlock(sec);
        return r;
    }
    sxa_event stack[16], *waits, out = NULL;
    uint32_t nwaits;
    if ((r = sxi_wait_list(q->adapter, c->nw, c->wl, stack, &waits, &nwaits)) == SX_SUCCESS) {
        if (adapter_owned)
            r = SXA_CALL(q->adapter, global, instance_copy, q->handle, inst, c->write, c->offset, c->bytes, c->host,
                         c->blocking, nwaits, waits, c->ev ? &out : NULL);
        else
            r = SXA_CALL(q->adapter, enqueue, usm_memcpy, q->handle, c->blocking,
                         c->write ? inst + c->offset : c->host, c->write ? (const void *)c->host : inst + c->offset,
                         c->bytes, nwaits, waits, c->ev ? &out : NULL);
        sxi_wait_list_free(q->adapter, c->nw, c->wl, waits, stack);
    }
    sxi_read_unlock(sec);
    if (r == SX_SUCCESS && c->ev)
        r = sxi_event_wrap(q, out, c->ev);
    return r;
}

/* Does this thread's last resolution answer the copy (same variable,
 * context and device; in bounds; allowed)? The generation is checked by
 * whoever uses it, under its protection. */
static bool memo_covers(const copy_req *c)
{
    const struct sx_queue_s *q = c->q;
    return memo.generation && memo.global == c->global && memo.context == q->context && memo.device == q->device &&
           c->offset <= memo.size && c->bytes <= memo.size - c->offset && (c->host || !c->bytes) &&
           (c->write ? memo.access != SX_HOST_ACCESS_READ && memo.access != SX_HOST_ACCESS_NONE
                     : memo.access != SX_HOST_ACCESS_WRITE && memo.access != SX_HOST_ACCESS_NONE);
}

static sx_result copy(const copy_req *c)
{
    struct sx_queue_s *q = c->q;
    /* The repeated copy: this thread's last resolution, still valid. A
     * failing copy takes the slow path, which says what is wrong. */
    if (memo_covers(c)) {
        sx_result r = SX_SUCCESS;
        /* `memo` holds while the generation does, inside the section: a
         * removal bumps it, then waits for a grace period before freeing. */
        sxi_section sec = sxi_read_lock();
        bool stale = memo.generation != atomic_load_explicit(&dg_generation, memory_order_acquire);
        if (stale) {
            sxi_read_unlock(sec);
        } else if (memo.usm) {
            r = copy_instance(c, memo.usm, false, sec);
        } else {
            /* The program and the symbol (image memory) stay while the
             * generation holds, for as long as the reader section lasts:
             * unregistration bumps it, then waits for a grace period
             * before programs and images go (sxi_dg_remove_image). A
             * context's programs go only once no queue of it is left. */
            r = copy_program_variable(c, memo.program, memo.symbol);
            sxi_read_unlock(sec);
        }
        if (!stale && r == SX_SUCCESS)
            return r;
        /* Failed or changed: the full way, whose message names the variable. */
        memo.generation = 0;
    }
    pthread_mutex_lock(&dg_lock);
    uint64_t gen = atomic_load_explicit(&dg_generation, memory_order_relaxed);
    dg *d = find_host(c->global);
    if (!d) {
        pthread_mutex_unlock(&dg_lock);
        return sxi_error(SX_ERROR_INVALID_GLOBAL_NAME, "%p is not a registered device_global (sx_device_global_add)",
                         c->global);
    }
    uint32_t size = dg_size(d), access = dg_access(d);
    const char *dir = c->write ? "to" : "from"; /* copying ... to it / from it */
    sx_result r = SX_SUCCESS;
    if (c->offset > size || c->bytes > size - c->offset)
        r = sxi_error(SX_ERROR_INVALID_VALUE,
                      "device_global '%s': copying %zu bytes %s it at offset %zu overruns its %u bytes.", d->uid,
                      c->bytes, dir, c->offset, size);
    else if (c->write ? access == SX_HOST_ACCESS_READ || access == SX_HOST_ACCESS_NONE
                      : access == SX_HOST_ACCESS_WRITE || access == SX_HOST_ACCESS_NONE)
        r = sxi_error(SX_ERROR_ACCESS_DENIED, "device_global '%s': host_access %s forbids copying %s it.", d->uid,
                      access == SX_HOST_ACCESS_READ ? "read" : access == SX_HOST_ACCESS_WRITE ? "write" : "none", dir);
    else if (c->bytes && !c->host)
        r = sxi_error(SX_ERROR_INVALID_NULL_POINTER, "device_global '%s': copying %s it needs a %s, not NULL.", d->uid,
                      dir, c->write ? "source" : "destination");
    char uid[1024];
    snprintf(uid, sizeof(uid), "%s", d->uid);
    if (r != SX_SUCCESS || dg_image_scope(d)) {
        pthread_mutex_unlock(&dg_lock);
        return r != SX_SUCCESS ? r : copy_image_scope(uid, size, access, c);
    }
    dg_instance *in;
    r = instance_get(d, q, &in);
    if (r != SX_SUCCESS) {
        pthread_mutex_unlock(&dg_lock);
        return r;
    }
    if (!in->adapter_owned)
        memo = (copy_memo){gen, c->global, q->context, q->device, in->usm, NULL, NULL, size, access};
    /* Into the reader section before dg_lock goes: a removal that unlinks
     * the instance after this waits for the copy before freeing it. */
    sxi_section sec = sxi_read_lock();
    pthread_mutex_unlock(&dg_lock);
    r = copy_instance(c, in->usm, in->adapter_owned, sec);
    if (r != SX_SUCCESS)
        sxi_error_prefix("device_global '%s': copying %zu bytes %s it on %s", uid, c->bytes, dir, q->device->name);
    return r;
}

SX_API sx_result sx_queue_device_global_write(sx_queue q, const void *global, const void *src, size_t bytes,
                                              size_t offset, int blocking, uint32_t nw, const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    SXI_CHECK_PTR(global, "global");
    copy_req c = {true, q, global, (void *)src, bytes, offset, blocking, nw, wl, ev};
    if (!sxi_queue_enter(q)) /* held while copying: sx_queue_release waits (queue.c) */
        return SXI_DEAD_HANDLE(q, "queue");
    uint64_t t0 = sxi_tl_begin();
    sx_result r = copy(&c);
    if (SXI_UNLIKELY(t0))
        sxi_tl_copy(t0, "device_global write", q->device->name, bytes, blocking, (int)r);
    sxi_queue_leave(q);
    return r;
}

SX_API sx_result sx_queue_device_global_read(sx_queue q, void *dst, const void *global, size_t bytes, size_t offset,
                                             int blocking, uint32_t nw, const sx_event *wl, sx_event *ev)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(q, SXI_TAG_QUEUE, "queue");
    SXI_CHECK_PTR(global, "global");
    copy_req c = {false, q, global, dst, bytes, offset, blocking, nw, wl, ev};
    if (!sxi_queue_enter(q)) /* held while copying: sx_queue_release waits (queue.c) */
        return SXI_DEAD_HANDLE(q, "queue");
    uint64_t t0 = sxi_tl_begin();
    sx_result r = copy(&c);
    if (SXI_UNLIKELY(t0))
        sxi_tl_copy(t0, "device_global read", q->device->name, bytes, blocking, (int)r);
    sxi_queue_leave(q);
    return r;
}

static sx_result elems(const void *global, size_t elem, size_t count, size_t start, size_t *bytes, size_t *offset)
{
    if (elem && !__builtin_mul_overflow(elem, count, bytes) && !__builtin_mul_overflow(elem, start, offset))
        return SX_SUCCESS;
    /* Name the variable (or say it is not one) in the message. */
    char name[1100];
    pthread_mutex_lock(&dg_lock);
    dg *d = global ? find_host(global) : NULL;
    if (d)
        snprintf(name, sizeof(name), "device_global '%s' (%u bytes)", d->uid, dg_size(d));
    else
        snprintf(name, sizeof(name), "device_global %p (not registered)", global);
    pthread_mutex_unlock(&dg_lock);
    if (elem == 0)
        return sxi_error(SX_ERROR_INVALID_SIZE, "%s: copy with element size 0", name);
    return sxi_error(SX_ERROR_INVALID_VALUE, "%s: copy of %zu elements of %zu bytes from index %zu overflows size_t",
                     name, count, elem, start);
}

SX_API sx_result sx_queue_device_global_copy_to(sx_queue q, const void *src, const void *global, size_t elem,
                                                size_t count, size_t start, int blocking, uint32_t nw,
                                                const sx_event *wl, sx_event *ev)
{
    size_t bytes = 0, offset = 0;
    sx_result r = elems(global, elem, count, start, &bytes, &offset);
    return r != SX_SUCCESS ? r : sx_queue_device_global_write(q, global, src, bytes, offset, blocking, nw, wl, ev);
}

SX_API sx_result sx_queue_device_global_copy_from(sx_queue q, void *dst, const void *global, size_t elem,
                                                  size_t count, size_t start, int blocking, uint32_t nw,
                                                  const sx_event *wl, sx_event *ev)
{
    size_t bytes = 0, offset = 0;
    sx_result r = elems(global, elem, count, start, &bytes, &offset);
    return r != SX_SUCCESS ? r : sx_queue_device_global_read(q, dst, global, bytes, offset, blocking, nw, wl, ev);
}
