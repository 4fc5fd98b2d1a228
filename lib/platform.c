/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* platform.c: platform and device records built from each adapter at
 * load, and the platform API. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

sx_result sxi_info_error(sx_result r, const char *fn, const char *object, uint32_t param, size_t size)
{
    if (r == SX_ERROR_INVALID_SIZE)
        return sxi_error(r, "%s(%s, param %u): a buffer of %zu bytes is too small", fn, object, param, size);
    if (r == SX_ERROR_INVALID_NULL_POINTER)
        return sxi_error(r, "%s(%s, param %u): value and size_ret are both NULL", fn, object, param);
    if (r == SX_ERROR_INVALID_ENUMERATION)
        return sxi_error(r, "%s(%s): param %u is not one this library knows.", fn, object, param);
    return r;
}

static void device_free(struct sx_device_s *d)
{
    if (!d)
        return;
    free(d->name);
    sxi_handle_free(d, sizeof(*d));
}

/* Query what the core keeps of a device; missing optional info gets a default. */
static sx_result device_fill(struct sx_adapter_s *a, struct sx_device_s *d)
{
    sxa_device h = d->handle;
    sx_result r = SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_TYPE, sizeof(d->type), &d->type, NULL);
    if (r != SX_SUCCESS)
        return r;
    size_t n = 0;
    r = SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_NAME, 0, NULL, &n);
    if (r != SX_SUCCESS)
        return r;
    d->name = calloc(1, n + 1);
    if (!d->name)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    if ((r = SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_NAME, n, d->name, NULL)) != SX_SUCCESS)
        return r;
    d->backend = a->backend;
    SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_BACKEND, sizeof(d->backend), &d->backend, NULL);
    if (SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_ASPECTS, sizeof(d->aspects), &d->aspects, NULL) != SX_SUCCESS)
        d->aspects = 0;
    if (SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof(size_t),
                 &d->max_work_group_size, NULL) != SX_SUCCESS)
        d->max_work_group_size = 1;
    size_t sizes[3] = {d->max_work_group_size, d->max_work_group_size, d->max_work_group_size};
    SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES, sizeof(sizes), sizes, NULL);
    memcpy(d->max_work_item_sizes, sizes, sizeof(sizes));
    SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof(d->local_mem_size), &d->local_mem_size, NULL);
    n = 0;
    if (SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_IMAGE_KINDS, 0, NULL, &n) == SX_SUCCESS &&
        n % sizeof(sx_image_kind) == 0 && n <= sizeof(d->image_kinds)) {
        if (SXA_CALL(a, device, get_info, h, SX_DEVICE_INFO_IMAGE_KINDS, n, d->image_kinds, NULL) == SX_SUCCESS)
            d->num_image_kinds = (uint32_t)(n / sizeof(sx_image_kind));
    }
    return SX_SUCCESS;
}

sx_result sxi_platforms_discover(struct sx_adapter_s *a)
{
    uint32_t np = 0;
    sx_result r = SXA_CALL(a, platform, get, a->handle, 0, NULL, &np);
    if (r != SX_SUCCESS)
        return r;
    if (np > 4096)
        return sxi_error(SX_ERROR_INVALID_VALUE, "adapter %s reports %u platforms", a->name, np);
    if (np == 0)
        return SX_SUCCESS;
    sxa_platform *ph = calloc(np, sizeof(*ph));
    a->platforms = calloc(np, sizeof(*a->platforms));
    if (!ph || !a->platforms) {
        free(ph);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    }
    uint32_t np2 = np;
    if ((r = SXA_CALL(a, platform, get, a->handle, np, ph, &np2)) != SX_SUCCESS)
        goto out;
    if (np2 != np) {
        r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter %s reported %u platforms, then %u", a->name, np, np2);
        goto out;
    }
    for (uint32_t i = 0; i < np; i++)
        if (!ph[i]) {
            r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter %s returned a NULL handle for platform %u of %u", a->name, i, np);
            goto out;
        }
    for (uint32_t i = 0; i < np; i++) {
        struct sx_platform_s *p = sxi_handle_new(sizeof(*p));
        if (!p) {
            r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
            goto out;
        }
        p->tag = SXI_TAG_PLATFORM;
        p->adapter = a;
        p->handle = ph[i];
        a->platforms[a->num_platforms++] = p;
        uint32_t nd = 0;
        r = SXA_CALL(a, device, get, p->handle, SX_DEVICE_TYPE_ALL, 0, NULL, &nd);
        if (r == SX_ERROR_DEVICE_NOT_FOUND || (r == SX_SUCCESS && nd == 0)) {
            r = SX_SUCCESS;
            continue;
        }
        if (r != SX_SUCCESS)
            goto out;
        if (nd > 4096) {
            r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter %s reports %u devices", a->name, nd);
            goto out;
        }
        sxa_device *dh = calloc(nd, sizeof(*dh));
        p->devices = calloc(nd, sizeof(*p->devices));
        if (!dh || !p->devices) {
            free(dh);
            r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
            goto out;
        }
        uint32_t nd2 = nd;
        r = SXA_CALL(a, device, get, p->handle, SX_DEVICE_TYPE_ALL, nd, dh, &nd2);
        if (r == SX_SUCCESS && nd2 != nd)
            r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter %s reported %u devices on platform %u, then %u", a->name, nd,
                          i, nd2);
        for (uint32_t k = 0; r == SX_SUCCESS && k < nd; k++)
            if (!dh[k])
                r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter %s returned a NULL handle for device %u of %u", a->name,
                              k, nd);
        for (uint32_t k = 0; r == SX_SUCCESS && k < nd; k++) {
            struct sx_device_s *d = sxi_handle_new(sizeof(*d));
            if (!d) {
                r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
                break;
            }
            d->tag = SXI_TAG_DEVICE;
            d->adapter = a;
            d->platform = p;
            d->handle = dh[k];
            p->devices[p->num_devices++] = d;
            r = device_fill(a, d);
        }
        free(dh);
        if (r != SX_SUCCESS)
            goto out;
    }
out:
    free(ph);
    return r;
}

void sxi_platforms_free(struct sx_adapter_s *a)
{
    for (uint32_t i = 0; i < a->num_platforms; i++) {
        struct sx_platform_s *p = a->platforms[i];
        for (uint32_t k = 0; k < p->num_devices; k++)
            device_free(p->devices[k]);
        free(p->devices);
        sxi_handle_free(p, sizeof(*p));
    }
    free(a->platforms);
    a->platforms = NULL;
    a->num_platforms = 0;
}

SX_API sx_result sx_platform_get(uint32_t count, sx_platform *out, uint32_t *num)
{
    SXI_CHECK_INIT();
    if (!out && !num)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_platform_get: platforms and num_platforms are both NULL");
    if (out && count == 0)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_platform_get: count is 0, but the platforms array is not NULL.");
    /* The platforms of the backends SX_DEVICE_SELECTOR leaves in (loaded now). */
    uint32_t backends = sxi_selector_backends();
    sx_result r = sxi_adapters_need(backends);
    if (r != SX_SUCCESS)
        return r;
    uint32_t n = 0;
    struct sx_adapter_s **as = sxi_adapters();
    for (uint32_t i = 0; i < sxi_num_adapters(); i++)
        for (uint32_t p = 0; sxi_adapter_loaded(i) && sxi_adapter_wanted(i, backends) && p < as[i]->num_platforms;
             p++, n++)
            if (out && n < count)
                out[n] = as[i]->platforms[p];
    if (num)
        *num = n;
    return SX_SUCCESS;
}

SX_API sx_result sx_platform_get_info(sx_platform p, sx_platform_info param, size_t size, void *value,
                                      size_t *size_ret)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(p, SXI_TAG_PLATFORM, "platform");
    sx_result r;
    if (param == SX_PLATFORM_INFO_BACKEND && p->adapter->backend != SX_BACKEND_UNKNOWN)
        r = sxa_info_copy(&p->adapter->backend, sizeof(sx_backend), size, value, size_ret);
    else if (param < SX_PLATFORM_INFO_NAME || param > SX_PLATFORM_INFO_BACKEND)
        r = SX_ERROR_INVALID_ENUMERATION;
    else if ((r = SXA_CALL(p->adapter, platform, get_info, p->handle, param, size, value, size_ret)) != SX_SUCCESS)
        sxi_error_prefix("sx_platform_get_info(%s platform)", p->adapter->name);
    return r == SX_SUCCESS ? r : sxi_info_error(r, __func__, p->adapter->name, param, size);
}
