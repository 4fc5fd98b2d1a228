/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* kernel.c: kernel handles by entry name, image selection per device, and
 * the per-(context, device) slots that make a cached launch one lookup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

static sxi_strmap kernels;  /* name -> sxi_kernel, registry lock */

sx_result sxi_select_image(const char *name, const struct sx_device_s *dev, sxi_image **out, uint32_t *entry)
{
    sxi_image *imgs[64];
    uint32_t n = sxi_registry_find_kernel(name, imgs, SXI_ARRAY_SIZE(imgs));
    if (n > SXI_ARRAY_SIZE(imgs))
        n = SXI_ARRAY_SIZE(imgs);
    if (n == 0)
        return sxi_error(SX_ERROR_KERNEL_NOT_SUPPORTED, "kernel '%s': no registered image contains it (unregistered?)",
                         name);
    sxi_image *best = NULL;
    int best_rank = 0;
    char why[1024] = "";
    size_t w = 0;
    for (uint32_t i = 0; i < n; i++) {
        int rank = sxi_device_kind_rank(dev, imgs[i]->kind);
        sx_aspect_set missing = imgs[i]->aspects & ~dev->aspects;
        if (rank && !missing) {
            if (rank > best_rank) {
                best = imgs[i];
                best_rank = rank;
            }
            continue;
        }
        if (w < sizeof(why) - 1) {
            if (!rank)
                w += (size_t)snprintf(why + w, sizeof(why) - w, "; image %llu is %s, which %s does not take",
                                      (unsigned long long)imgs[i]->id, sxi_image_kind_name(imgs[i]->kind), dev->name);
            else
                for (uint32_t a = 0; a < SX_ASPECT_MAX_ && w < sizeof(why) - 1; a++)
                    if (missing & SX_ASPECT_BIT(a))
                        w += (size_t)snprintf(why + w, sizeof(why) - w, "; image %llu requires aspect %u, which %s lacks",
                                              (unsigned long long)imgs[i]->id, a, dev->name);
        }
    }
    if (!best)
        return sxi_error(SX_ERROR_KERNEL_NOT_SUPPORTED, "kernel '%s' has no image for device %s%s", name, dev->name, why);
    *out = best;
    for (uint32_t k = 0; k < best->num_entries; k++)
        if (strcmp(best->entries[k], name) == 0)
            *entry = k;
    return SX_SUCCESS;
}

/* A new handle of shared record `k` (registry lock held). */
static sx_result handle_new(sxi_kernel *k, struct sx_kernel_s **out)
{
    struct sx_kernel_s *h = sxi_handle_new(sizeof(*h));
    if (!h)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "kernel '%s': out of memory for a handle", k->name);
    h->name = k->name;
    h->k = k;
    h->next = k->handles;
    if (k->handles)
        k->handles->prev = h;
    k->handles = h;
    k->refs++;
    atomic_store(&h->tag, (uint32_t)SXI_TAG_KERNEL);
    *out = h;
    return SX_SUCCESS;
}

SX_API sx_result sx_kernel_get(const char *name, sx_kernel *out)
{
    SXI_CHECK_INIT();
    SXI_CHECK_PTR(name, "name");
    SXI_CHECK_PTR(out, "kernel");
    sxi_registry_lock();
    sxi_kernel *k = sxi_strmap_get(&kernels, name);
    sxi_image *img;
    /* A live handle outlives its images (sx.h): a name that no registered
     * image has any more is not found, whoever still holds a handle. */
    if (sxi_registry_find_kernel(name, &img, 1) == 0) {
        sxi_registry_unlock();
        return sxi_error(SX_ERROR_INVALID_KERNEL_NAME, "sx_kernel_get: no registered image has a kernel '%s'", name);
    }
    if (!k) {
        k = calloc(1, sizeof(*k));
        if (k)
            k->name = strdup(name);
        if (!k || !k->name || !sxi_strmap_put(&kernels, k->name, k)) {
            sxi_registry_unlock();
            if (k)
                free(k->name);
            free(k);
            return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_kernel_get: out of memory");
        }
        pthread_mutex_init(&k->lock, NULL);
    }
    sx_result r = handle_new(k, out);
    if (r != SX_SUCCESS && k->refs == 0) {
        sxi_strmap_remove(&kernels, k->name);
        pthread_mutex_destroy(&k->lock);
        free(k->name);
        free(k);
    }
    sxi_registry_unlock();
    return r;
}

sx_result sxi_kernel_dup(struct sx_kernel_s *h, struct sx_kernel_s **out)
{
    sxi_registry_lock();
    sx_result r = handle_new(h->k, out);
    sxi_registry_unlock();
    return r;
}

static void slot_free(sxi_kernel_slot *s)
{
    if (s->handle) {
        sx_result r = SXA_CALL(s->context->adapter, kernel, release, s->handle);
        if (r != SX_SUCCESS)
            SXI_LOG(SX_LOG_WARN, "releasing an adapter kernel on %s failed: %s: %s", s->device->name,
                    sx_result_name(r), sx_last_error());
    }
    free(s);
}

/* Unlink the slots `pred` picks onto *retired (k->lock taken). Readers may
 * still walk an unlinked slot: its `next` stays as it was. */
static void unlink_slots(sxi_kernel *k, bool (*pred)(const sxi_kernel_slot *, const void *), const void *arg,
                         sxi_kernel_slot **retired)
{
    pthread_mutex_lock(&k->lock);
    _Atomic(sxi_kernel_slot *) *pp = &k->slots;
    sxi_kernel_slot *s;
    while ((s = atomic_load_explicit(pp, memory_order_relaxed)) != NULL) {
        if (pred(s, arg)) {
            atomic_store_explicit(pp, atomic_load_explicit(&s->next, memory_order_relaxed), memory_order_seq_cst);
            s->retired = *retired;
            *retired = s;
        } else {
            pp = &s->next;
        }
    }
    pthread_mutex_unlock(&k->lock);
}

/* After a grace period no launch can hold them: release and free. */
void sxi_kernels_free_retired(sxi_kernel_slot *retired)
{
    if (!retired)
        return;
    sxi_epoch_synchronize();
    while (retired) {
        sxi_kernel_slot *next = retired->retired;
        slot_free(retired);
        retired = next;
    }
}

static bool any_slot(const sxi_kernel_slot *s, const void *arg) { return true; }
static bool slot_in_context(const sxi_kernel_slot *s, const void *arg) { return s->context == arg; }
static bool slot_uses_image(const sxi_kernel_slot *s, const void *arg)
{
    uint64_t id = *(const uint64_t *)arg;
    for (uint32_t i = 0; i < s->program->num_images; i++)
        if (s->program->image_ids[i] == id)
            return true;
    return false;
}

SX_API sx_result sx_kernel_release(sx_kernel h)
{
    if (!h)
        return sxi_error(SX_ERROR_INVALID_NULL_HANDLE, "sx_kernel_release: kernel is NULL");
    if (!sxi_handle_kill(&h->tag, SXI_TAG_KERNEL))
        return SXI_DEAD_HANDLE(h, "kernel");
    sxi_kernel *k = h->k;
    sxi_registry_lock();
    if (h->prev)
        h->prev->next = h->next;
    else
        k->handles = h->next;
    if (h->next)
        h->next->prev = h->prev;
    sxi_handle_free(h, sizeof(*h));
    if (--k->refs != 0) {
        sxi_registry_unlock();
        return SX_SUCCESS;
    }
    sxi_strmap_remove(&kernels, k->name);
    sxi_kernel_slot *retired = NULL;
    unlink_slots(k, any_slot, NULL, &retired);
    /* Freed before the registry lock goes: a context torn down meanwhile
     * (which takes it first) must not release its programs under them. */
    sxi_kernels_free_retired(retired);
    sxi_registry_unlock();
    /* A launch that saw the handle live inside its section may still read
     * the record (its slot list): it goes after a grace period. */
    if (!retired)
        sxi_epoch_synchronize();
    pthread_mutex_destroy(&k->lock);
    free(k->name);
    free(k);
    return SX_SUCCESS;
}

/* The context's dependent (SXI_DEP_KERNELS): its slots in every kernel. */
static void kernels_drop_context(struct sx_context_s *ctx)
{
    sxi_kernel_slot *retired = NULL;
    sxi_registry_lock();
    SXI_STRMAP_FOREACH(&kernels, s)
        unlink_slots(s->value, slot_in_context, ctx, &retired);
    sxi_registry_unlock();
    sxi_kernels_free_retired(retired);
}

void sxi_kernels_unlink_image(uint64_t image_id, sxi_kernel_slot **retired)
{
    SXI_STRMAP_FOREACH(&kernels, s)
        unlink_slots(s->value, slot_uses_image, &image_id, retired);
}

void sxi_kernels_unlink_image_named(const sxi_image *im, sxi_kernel_slot **retired)
{
    for (uint32_t k = 0; k < im->num_entries; k++) {
        sxi_kernel *kr = sxi_strmap_get(&kernels, im->entries[k]);
        if (kr)
            unlink_slots(kr, slot_uses_image, &im->id, retired);
    }
}

void sxi_kernels_drop_all(void)
{
    sxi_kernel_slot *retired = NULL;
    sxi_registry_lock();
    SXI_STRMAP_FOREACH(&kernels, s)
        unlink_slots(s->value, any_slot, NULL, &retired);
    sxi_kernels_free_retired(retired);
    sxi_registry_unlock();
}

sx_result sxi_kernel_slot_get(struct sx_kernel_s *h, struct sx_queue_s *q)
{
    struct sx_context_s *ctx = q->context;
    struct sx_device_s *dev = q->device;
    sxi_registry_lock();
    /* A release kills the tag before it takes this lock and frees the
     * kernel record only after: live here, the record stays until we are done. */
    if (sxi_tag_of(&h->tag) != SXI_TAG_KERNEL) {
        sxi_registry_unlock();
        return sxi_launch_dead(q, h);
    }
    sxi_kernel *k = h->k;
    if (!sxi_initialized()) { /* the last sx_fini ran since the caller checked (init.c) */
        sxi_registry_unlock();
        return sxi_error(SX_ERROR_UNINITIALIZED, "launch of '%s': sx_fini released everything", k->name);
    }
    if (sxi_slot_scan(k, q)) {
        sxi_registry_unlock();
        return SX_SUCCESS;
    }
    sxi_image *img;
    uint32_t entry = 0;
    sxi_program *prog;
    sx_result r = sxi_select_image(k->name, dev, &img, &entry);
    if (r == SX_SUCCESS)
        r = sxi_program_get_for(q, img, k->name, &prog);
    sxi_kernel_slot *s = NULL;
    if (r == SX_SUCCESS)
        r = sxi_context_dep_once(ctx, SXI_DEP_KERNELS, kernels_drop_context);
    if (r == SX_SUCCESS && !(s = calloc(1, sizeof(*s))))
        r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    if (r == SX_SUCCESS) {
        s->context = ctx;
        s->device = dev;
        s->program = prog;
        s->sig = &img->signatures[entry];
        r = SXA_CALL(ctx->adapter, kernel, create, prog->handle, k->name, &s->handle);
        if (r == SX_SUCCESS && !s->handle)
            r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter '%s' returned a NULL kernel and success", ctx->adapter->name);
        if (r != SX_SUCCESS) {
            sxi_error_prefix("creating kernel '%s' on %s", k->name, dev->name);
            s->handle = NULL;
            slot_free(s);
        }
    }
    if (r == SX_SUCCESS) {
        pthread_mutex_lock(&k->lock);
        atomic_store_explicit(&s->next, atomic_load(&k->slots), memory_order_relaxed);
        atomic_store_explicit(&k->slots, s, memory_order_seq_cst);
        pthread_mutex_unlock(&k->lock);
    }
    sxi_registry_unlock();
    return r;
}

SX_API sx_result sx_kernel_get_info(sx_kernel k, sx_kernel_info param, size_t size, void *value, size_t *size_ret)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(k, SXI_TAG_KERNEL, "kernel");
    if (param == SX_KERNEL_INFO_NAME) {
        sx_result r = sxa_info_string(k->name, size, value, size_ret);
        return r == SX_SUCCESS ? r : sxi_info_error(r, __func__, k->name, param, size);
    }
    if (param < SX_KERNEL_INFO_NAME || param > SX_KERNEL_INFO_NUM_ARGS)
        return sxi_error(SX_ERROR_INVALID_ENUMERATION, "sx_kernel_get_info(%s): param %u is not an SX_KERNEL_INFO_* this library knows.", k->name, param);
    sxi_registry_lock();
    sxi_image *img;
    uint32_t n = sxi_registry_find_kernel(k->name, &img, 1);
    uint32_t v = 0;
    if (n) {
        const sxi_signature *sig = NULL;
        for (uint32_t e = 0; e < img->num_entries; e++)
            if (strcmp(img->entries[e], k->name) == 0)
                sig = &img->signatures[e];
        v = param == SX_KERNEL_INFO_NUM_BACKEND_ARGS ? sig->num_params
          : param == SX_KERNEL_INFO_NUM_ARGS         ? sig->num_source_params
          : param == SX_KERNEL_INFO_KIND             ? sig->kind
                                                     : sig->dims;
    }
    sxi_registry_unlock();
    if (!n)
        return sxi_error(SX_ERROR_KERNEL_NOT_SUPPORTED, "sx_kernel_get_info(%s): its images were unregistered", k->name);
    sx_result r = sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    return r == SX_SUCCESS ? r : sxi_info_error(r, __func__, k->name, param, size);
}

SX_API sx_result sx_kernel_is_compatible(sx_kernel k, sx_device d, int *compatible)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(k, SXI_TAG_KERNEL, "kernel");
    SXI_CHECK_HANDLE(d, SXI_TAG_DEVICE, "device");
    SXI_CHECK_PTR(compatible, "compatible");
    sxi_registry_lock();
    sxi_image *img;
    uint32_t entry;
    *compatible = sxi_select_image(k->name, d, &img, &entry) == SX_SUCCESS;
    if (*compatible && sxi_image_has_deps(img)) {
        /* Its images to link must be there and runnable too (resolver.c). */
        const sxi_image **deps = NULL;
        uint32_t n;
        *compatible = sxi_resolve(img, d, k->name, &deps, &n) == SX_SUCCESS;
        free(deps);
    }
    sxi_registry_unlock();
    return SX_SUCCESS;
}
