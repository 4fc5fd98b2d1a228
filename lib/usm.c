/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* usm.c: USM allocations, recorded per context so a foreign or double
 * free is an error, never a crash, and teardown frees what is left. */
#include <stdlib.h>

#include "sx-internal.h"

SX_API sx_result sx_usm_alloc(sx_context c, sx_device d, sx_usm_type type, size_t size, size_t align, void **ptr)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(c, SXI_TAG_CONTEXT, "context");
    SXI_CHECK_PTR(ptr, "ptr");
    *ptr = NULL;
    if (type != SX_USM_TYPE_HOST && type != SX_USM_TYPE_DEVICE && type != SX_USM_TYPE_SHARED)
        return sxi_error(SX_ERROR_INVALID_ENUMERATION, "sx_usm_alloc: unknown USM type %u", type);
    if (type == SX_USM_TYPE_HOST) {
        if (d)
            SXI_CHECK_HANDLE(d, SXI_TAG_DEVICE, "device");
    } else {
        SXI_CHECK_HANDLE(d, SXI_TAG_DEVICE, "device");
        if (!sxi_context_has_device(c, d))
            return sxi_error(SX_ERROR_INVALID_DEVICE, "sx_usm_alloc: device %s is not in the context", d->name);
    }
    if (size == 0)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_usm_alloc: size is 0");
    if (align & (align - 1))
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_usm_alloc: alignment %zu is not a power of two", align);
    void *p = NULL;
    sx_result r = SXA_CALL(c->adapter, usm, alloc, c->handle, type == SX_USM_TYPE_HOST ? NULL : d->handle, type,
                           size, align, &p);
    if (r == SX_SUCCESS && !p)
        r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter '%s' returned a NULL allocation and success", c->adapter->name);
    if (r != SX_SUCCESS) {
        sxi_error_prefix("sx_usm_alloc(%zu bytes)", size);
        return r;
    }
    pthread_mutex_lock(&c->lock);
    bool ok = sxi_ptrmap_put(&c->usm, p, size, type, NULL);
    pthread_mutex_unlock(&c->lock);
    if (!ok) {
        SXA_CALL(c->adapter, usm, free, c->handle, p);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_usm_alloc: out of memory recording the allocation");
    }
    *ptr = p;
    return SX_SUCCESS;
}

SX_API sx_result sx_usm_free(sx_context c, void *ptr)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(c, SXI_TAG_CONTEXT, "context");
    if (!ptr)
        return SX_SUCCESS;
    pthread_mutex_lock(&c->lock);
    bool known = sxi_ptrmap_remove(&c->usm, ptr);
    pthread_mutex_unlock(&c->lock);
    if (!known)
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_usm_free: %p is not a live USM allocation of this context", ptr);
    sx_result r = SXA_CALL(c->adapter, usm, free, c->handle, ptr);
    if (r != SX_SUCCESS)
        sxi_error_prefix("sx_usm_free(%p)", ptr);
    return r;
}

SX_API sx_result sx_usm_get_info(sx_context c, const void *ptr, sx_usm_type *type, size_t *size)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(c, SXI_TAG_CONTEXT, "context");
    if (!type && !size)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_usm_get_info: type and size are both NULL");
    sx_usm_type t = SX_USM_TYPE_UNKNOWN;
    size_t n = 0;
    uintptr_t p = (uintptr_t)ptr;
    pthread_mutex_lock(&c->lock);
    const struct sxi_ptrmap_slot *s = sxi_ptrmap_get(&c->usm, ptr);
    if (s) {
        t = s->tag;
        n = s->size;
    } else {
        /* An interior pointer: a scan, fine for a query. */
        SXI_PTRMAP_FOREACH(&c->usm, e)
            if (p > e->key && p - e->key < e->size) {
                t = e->tag;
                n = e->size;
                break;
            }
    }
    pthread_mutex_unlock(&c->lock);
    if (type)
        *type = t;
    if (size)
        *size = n;
    return SX_SUCCESS;
}

/* A command's range against what the context knows: a pointer inside one
 * of its USM allocations must not run past its end. The base pointer is
 * one hash lookup; interior pointers are looked for only while the
 * context has few allocations (a scan), so commands stay O(1). */
#define RANGE_SCAN_MAX 64

sx_result sxi_usm_check_range(struct sx_context_s *c, const void *ptr, size_t size, const char *fn, const char *what)
{
    if (!size || !ptr)
        return SX_SUCCESS;
    uintptr_t p = (uintptr_t)ptr, base = 0;
    size_t have = 0;
    bool found = false;
    pthread_mutex_lock(&c->lock);
    const struct sxi_ptrmap_slot *s = sxi_ptrmap_get(&c->usm, ptr);
    if (s) {
        found = true;
        base = p;
        have = s->size;
    } else if (c->usm.count <= RANGE_SCAN_MAX) {
        SXI_PTRMAP_FOREACH(&c->usm, e)
            if (p > e->key && p - e->key < e->size) {
                found = true;
                base = e->key;
                have = e->size;
                break;
            }
    }
    pthread_mutex_unlock(&c->lock);
    if (found && size > have - (p - base))
        return sxi_error(SX_ERROR_INVALID_VALUE,
                         "%s: %s %p + %zu bytes runs past its USM allocation (%zu bytes at %p, %zu left from there)", fn,
                         what, ptr, size, have, (void *)base, have - (p - base));
    return SX_SUCCESS;
}
