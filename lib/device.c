/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* device.c: the device API (lists after the selector, default device, info). */
#include <string.h>

#include "sx-internal.h"

int sxi_device_kind_rank(const struct sx_device_s *d, sx_image_kind kind)
{
    for (uint32_t i = 0; i < d->num_image_kinds; i++)
        if (d->image_kinds[i] == kind)
            return (int)(d->num_image_kinds - i);
    return 0;
}

/* The preference of sx_device_get_default and sx_device_select: GPUs,
 * then accelerators, then CPUs, then the rest, each in adapter order. */
static const sx_device_type preference[] = {SX_DEVICE_TYPE_GPU, SX_DEVICE_TYPE_ACCELERATOR, SX_DEVICE_TYPE_CPU,
                                            SX_DEVICE_TYPE_ALL};

static size_t preference_rank(const struct sx_device_s *d)
{
    size_t o = 0;
    while (o + 1 < SXI_ARRAY_SIZE(preference) && !(d->type & preference[o]))
        o++;
    return o;
}

/* What a device list keeps, beyond SX_DEVICE_SELECTOR. */
typedef struct {
    sx_platform platform;      /* NULL: any */
    sx_device_type type;
    const sxi_selector *sel;   /* NULL: any */
    bool ranked;               /* in preference order, else in adapter order */
} device_filter;

/* The devices that pass, into out[0..count); how many pass. */
static uint32_t list_devices(const device_filter *f, uint32_t count, sx_device *out)
{
    uint32_t nd, n = 0;
    struct sx_device_s **ds = sxi_devices_snapshot(&nd);
    for (size_t o = 0; o < (f->ranked ? SXI_ARRAY_SIZE(preference) : 1); o++)
        for (uint32_t i = 0; i < nd; i++) {
            struct sx_device_s *d = ds[i];
            if (!d->selected || (f->ranked && preference_rank(d) != o) ||
                (f->platform && d->platform != f->platform) || !(d->type & f->type) ||
                (f->sel && !sxi_selector_matches(f->sel, d, d->backend_index)))
                continue;
            if (out && n < count)
                out[n] = d;
            n++;
        }
    return n;
}

SX_API sx_result sx_device_get(sx_platform platform, sx_device_type type, uint32_t count, sx_device *out,
                               uint32_t *num)
{
    SXI_CHECK_INIT();
    if (platform)
        SXI_CHECK_HANDLE(platform, SXI_TAG_PLATFORM, "platform");
    if (!out && !num)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_device_get: devices and num_devices are both NULL");
    if (out && count == 0)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_device_get: count is 0, but the devices array is not NULL.");
    if (type == SX_DEVICE_TYPE_DEFAULT)
        type = SX_DEVICE_TYPE_ALL;
    sx_result r = platform ? SX_SUCCESS : sxi_adapters_need(sxi_selector_backends());
    if (r != SX_SUCCESS)
        return r;
    uint32_t n = list_devices(&(device_filter){platform, type, NULL, false}, count, out);
    if (num)
        *num = n;
    if (n == 0)
        return sxi_error(SX_ERROR_DEVICE_NOT_FOUND, "sx_device_get: no device of type mask 0x%x%s%s", type,
                         platform ? " on the platform" : "",
                         sxi_getenv("SX_DEVICE_SELECTOR") ? " passes SX_DEVICE_SELECTOR" : "");
    return SX_SUCCESS;
}

SX_API sx_result sx_device_get_default(sx_device *out)
{
    SXI_CHECK_INIT();
    SXI_CHECK_PTR(out, "device");
    sx_result r = sxi_adapters_need(sxi_selector_backends());
    if (r != SX_SUCCESS)
        return r;
    if (list_devices(&(device_filter){NULL, SX_DEVICE_TYPE_ALL, NULL, true}, 1, out))
        return SX_SUCCESS;
    return sxi_error(SX_ERROR_DEVICE_NOT_FOUND, "sx_device_get_default: no device (%u adapters loaded%s); sx-info shows why",
                     sxi_num_adapters(), sxi_getenv("SX_DEVICE_SELECTOR") ? ", SX_DEVICE_SELECTOR set" : "");
}

SX_API sx_result sx_device_select(const char *selector, uint32_t count, sx_device *out, uint32_t *num)
{
    SXI_CHECK_INIT();
    SXI_CHECK_PTR(selector, "selector");
    if (!out && !num)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_device_select('%s'): devices and num_devices are both NULL",
                         selector);
    if (out && count == 0)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_device_select('%s'): count is 0, but the devices array is not NULL.", selector);
    sxi_selector *sel;
    sx_result r = sxi_selector_create(selector, &sel);
    if (r != SX_SUCCESS) {
        sxi_error_prefix("sx_device_select");
        return r;
    }
    /* Only the adapters both selectors can need are loaded. */
    r = sxi_adapters_need(sxi_selector_backends() & sxi_selector_backends_of(sel));
    if (r == SX_SUCCESS) {
        uint32_t n = list_devices(&(device_filter){NULL, SX_DEVICE_TYPE_ALL, sel, true}, count, out);
        if (num)
            *num = n;
        if (n == 0)
            r = sxi_error(SX_ERROR_DEVICE_NOT_FOUND, "sx_device_select('%s'): no device passes it%s", selector,
                          sxi_getenv("SX_DEVICE_SELECTOR") ? " and SX_DEVICE_SELECTOR" : "");
    }
    sxi_selector_destroy(sel);
    return r;
}

SX_API sx_result sx_device_get_info(sx_device d, sx_device_info param, size_t size, void *value, size_t *size_ret)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(d, SXI_TAG_DEVICE, "device");
    sx_result r;
    switch (param) {
    case SX_DEVICE_INFO_PLATFORM: {
        sx_platform p = d->platform;
        r = sxa_info_copy(&p, sizeof(p), size, value, size_ret);
        break;
    }
    case SX_DEVICE_INFO_ASPECTS: r = sxa_info_copy(&d->aspects, sizeof(d->aspects), size, value, size_ret); break;
    case SX_DEVICE_INFO_BACKEND: r = sxa_info_copy(&d->backend, sizeof(d->backend), size, value, size_ret); break;
    case SX_DEVICE_INFO_TYPE: r = sxa_info_copy(&d->type, sizeof(d->type), size, value, size_ret); break;
    case SX_DEVICE_INFO_NAME: r = sxa_info_string(d->name, size, value, size_ret); break;
    case SX_DEVICE_INFO_ADAPTER: {
        sx_adapter a = d->adapter;
        r = sxa_info_copy(&a, sizeof(a), size, value, size_ret);
        break;
    }
    case SX_DEVICE_INFO_ADAPTER_NAME: r = sxa_info_string(d->adapter->name, size, value, size_ret); break;
    default:
        if (param < SX_DEVICE_INFO_TYPE || (param > SX_DEVICE_INFO_PLATFORM && param != SX_DEVICE_INFO_SUB_GROUP_SIZES))
            return sxi_error(SX_ERROR_INVALID_ENUMERATION, "sx_device_get_info(%s): param %u is not an SX_DEVICE_INFO_* this library knows.", d->name, param);
        r = SXA_CALL(d->adapter, device, get_info, d->handle, param, size, value, size_ret);
    }
    return r == SX_SUCCESS ? r : sxi_info_error(r, __func__, d->name, param, size);
}

SX_API sx_result sx_device_has_aspect(sx_device d, sx_aspect aspect, int *has)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(d, SXI_TAG_DEVICE, "device");
    SXI_CHECK_PTR(has, "has");
    *has = aspect < SX_ASPECT_MAX_ && (d->aspects & SX_ASPECT_BIT(aspect)) != 0;
    return SX_SUCCESS;
}
