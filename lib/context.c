/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* context.c: contexts (refcounted) and the list of live ones, so sx_fini
 * and image unregistration can reach every context's programs. */
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sx_context_s *contexts;

bool sxi_context_has_device(const struct sx_context_s *c, const struct sx_device_s *d)
{
    for (uint32_t i = 0; i < c->num_devices; i++)
        if (c->devices[i] == d)
            return true;
    return false;
}

SX_API sx_result sx_context_create(uint32_t num_devices, const sx_device *devs, sx_context *out)
{
    SXI_CHECK_INIT();
    SXI_CHECK_PTR(devs, "devices");
    SXI_CHECK_PTR(out, "context");
    if (num_devices == 0 || num_devices > 1024)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_context_create: %u devices were given; a context takes 1 to 1024.", num_devices);
    for (uint32_t i = 0; i < num_devices; i++) {
        SXI_CHECK_HANDLE(devs[i], SXI_TAG_DEVICE, "device");
        if (devs[i]->platform != devs[0]->platform)
            return sxi_error(SX_ERROR_INVALID_DEVICE,
                             "sx_context_create: device %u (%s) is not on the platform of device 0 (%s)", i,
                             devs[i]->name, devs[0]->name);
        for (uint32_t k = 0; k < i; k++)
            if (devs[k] == devs[i])
                return sxi_error(SX_ERROR_INVALID_DEVICE, "sx_context_create: device %s is listed twice (at %u and %u).",
                                 devs[i]->name, k, i);
    }
    struct sx_adapter_s *a = devs[0]->adapter;
    struct sx_context_s *c = sxi_handle_new(sizeof(*c));
    sxa_device *handles = calloc(num_devices, sizeof(*handles));
    struct sx_device_s **list = calloc(num_devices, sizeof(*list));
    if (!c || !handles || !list) {
        sxi_handle_free(c, sizeof(*c));
        free(handles);
        free(list);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_context_create: out of memory");
    }
    for (uint32_t i = 0; i < num_devices; i++) {
        handles[i] = devs[i]->handle;
        list[i] = devs[i];
    }
    sx_result r = SXA_CALL(a, context, create, num_devices, handles, &c->handle);
    free(handles);
    if (r == SX_SUCCESS && !c->handle)
        r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter '%s' returned a NULL context and success", a->name);
    if (r != SX_SUCCESS) {
        sxi_handle_free(c, sizeof(*c));
        free(list);
        sxi_error_prefix("sx_context_create(%s)", a->name);
        return r;
    }
    c->tag = SXI_TAG_CONTEXT;
    atomic_init(&c->refs, 1);
    c->adapter = a;
    c->num_devices = num_devices;
    c->devices = list;
    pthread_mutex_init(&c->lock, NULL);
    pthread_mutex_lock(&contexts_lock);
    c->next = contexts;
    if (contexts)
        contexts->prev = c;
    contexts = c;
    pthread_mutex_unlock(&contexts_lock);
    *out = c;
    return SX_SUCCESS;
}

SX_API sx_result sx_context_retain(sx_context c)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(c, SXI_TAG_CONTEXT, "context");
    atomic_fetch_add(&c->refs, 1);
    return SX_SUCCESS;
}

static void dep_link_locked(struct sx_context_s *c, sxi_dep *d)
{
    d->prev = NULL;
    d->next = c->deps;
    if (c->deps)
        c->deps->prev = d;
    c->deps = d;
}

void sxi_context_dep_add(struct sx_context_s *c, sxi_dep *d)
{
    pthread_mutex_lock(&c->lock);
    dep_link_locked(c, d);
    pthread_mutex_unlock(&c->lock);
}

static void dep_unlink_locked(struct sx_context_s *c, sxi_dep *d)
{
    if (d->prev)
        d->prev->next = d->next;
    else if (c->deps == d)
        c->deps = d->next;
    if (d->next)
        d->next->prev = d->prev;
    d->next = d->prev = NULL;
}

void sxi_context_dep_remove(struct sx_context_s *c, sxi_dep *d)
{
    pthread_mutex_lock(&c->lock);
    dep_unlink_locked(c, d);
    pthread_mutex_unlock(&c->lock);
}

/* A registration of sxi_context_dep_once. */
typedef struct {
    sxi_dep dep;
    struct sx_context_s *context;
    void (*drop)(struct sx_context_s *c);
} once_dep;

static void once_destroy(sxi_dep *d)
{
    once_dep *o = (once_dep *)d;
    o->drop(o->context);
    free(o);
}

static SXI_COLD sx_result dep_once_register(struct sx_context_s *c, uint32_t order, void (*drop)(struct sx_context_s *c))
{
    once_dep *o = calloc(1, sizeof(*o));
    if (!o)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "context %p: out of memory", (void *)c);
    o->dep.destroy = once_destroy;
    o->dep.order = order;
    o->context = c;
    o->drop = drop;
    pthread_mutex_lock(&c->lock);
    bool have = atomic_load(&c->dep_once) & (1u << order); /* another thread may have been first */
    if (!have) {
        atomic_fetch_or(&c->dep_once, 1u << order);
        dep_link_locked(c, &o->dep);
    }
    pthread_mutex_unlock(&c->lock);
    if (have)
        free(o);
    return SX_SUCCESS;
}

SXI_HOT sx_result sxi_context_dep_once(struct sx_context_s *c, uint32_t order, void (*drop)(struct sx_context_s *c))
{
    /* registered already: one load (every event asks) */
    if (SXI_LIKELY(atomic_load_explicit(&c->dep_once, memory_order_acquire) & (1u << order)))
        return SX_SUCCESS;
    return dep_once_register(c, order, drop);
}

/* Unlink the first dependent of `order` (NULL if none). */
static sxi_dep *dep_take(struct sx_context_s *c, uint32_t order)
{
    pthread_mutex_lock(&c->lock);
    sxi_dep *d = c->deps;
    while (d && d->order != order)
        d = d->next;
    if (d)
        dep_unlink_locked(c, d);
    pthread_mutex_unlock(&c->lock);
    return d;
}

static void context_destroy(struct sx_context_s *c)
{
    struct sx_adapter_s *a = c->adapter;
    atomic_store(&c->tag, (uint32_t)SXI_TAG_DEAD);
    /* Its dependents, in order: queues and events the application left
     * (sx_fini), then kernels' slots, programs, device-global instances. */
    for (uint32_t order = 0; order < SXI_DEP_ORDERS_; order++)
        for (sxi_dep *d; (d = dep_take(c, order)) != NULL;)
            d->destroy(d);
    SXI_PTRMAP_FOREACH(&c->usm, s) {
        sx_result r = SXA_CALL(a, usm, free, c->handle, (void *)s->key);
        if (r != SX_SUCCESS)
            SXI_LOG(SX_LOG_WARN, "context teardown: freeing USM %p on %s failed: %s: %s", (void *)s->key, a->name,
                    sx_result_name(r), sx_last_error());
    }
    sxi_ptrmap_free(&c->usm);
    sx_result r = SXA_CALL(a, context, release, c->handle);
    if (r != SX_SUCCESS)
        SXI_LOG(SX_LOG_WARN, "context teardown: adapter %s failed to release its context: %s: %s", a->name,
                sx_result_name(r), sx_last_error());
    pthread_mutex_destroy(&c->lock);
    free(c->devices);
    sxi_handle_free(c, sizeof(*c));
}

static void unlink_context(struct sx_context_s *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        contexts = c->next;
    if (c->next)
        c->next->prev = c->prev;
}

/* The last reference went (sxi_context_release): unlink and tear down. */
SXI_COLD sx_result sxi_context_release_last(struct sx_context_s *c)
{
    pthread_mutex_lock(&contexts_lock);
    unlink_context(c);
    pthread_mutex_unlock(&contexts_lock);
    context_destroy(c);
    return SX_SUCCESS;
}

SX_API sx_result sx_context_release(sx_context c)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(c, SXI_TAG_CONTEXT, "context");
    return sxi_context_release(c);
}

void sxi_contexts_release_all(void)
{
    pthread_mutex_lock(&contexts_lock);
    struct sx_context_s *c = contexts;
    contexts = NULL;
    pthread_mutex_unlock(&contexts_lock);
    if (c)
        SXI_LOG(SX_LOG_WARN, "sx_fini: releasing contexts the application did not release");
    while (c) {
        struct sx_context_s *next = c->next;
        context_destroy(c);
        c = next;
    }
}

void sxi_contexts_foreach(void (*fn)(struct sx_context_s *c, void *arg), void *arg)
{
    pthread_mutex_lock(&contexts_lock);
    for (struct sx_context_s *c = contexts; c; c = c->next)
        fn(c, arg);
    pthread_mutex_unlock(&contexts_lock);
}
