/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-platform.c: adapter lifetime, Level Zero drivers as platforms, devices and their info. */
#include "ze-adapter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SXZ_ADAPTER_VERSION SXA_MAKE_VERSION(1, 0)

static struct sxa_adapter_s *live_adapter;

static sx_aspect_set device_aspects(const struct sxa_device_s *d,
                                    const ze_device_memory_access_properties_t *acc)
{
    sx_aspect_set s = SX_ASPECT_BIT(SX_ASPECT_ONLINE_COMPILER) |
                      SX_ASPECT_BIT(SX_ASPECT_ONLINE_LINKER) |
                      SX_ASPECT_BIT(SX_ASPECT_QUEUE_PROFILING);
    switch (d->props.type) {
    case ZE_DEVICE_TYPE_GPU: s |= SX_ASPECT_BIT(SX_ASPECT_GPU); break;
    case ZE_DEVICE_TYPE_CPU: s |= SX_ASPECT_BIT(SX_ASPECT_CPU); break;
    case ZE_DEVICE_TYPE_FPGA:
    case ZE_DEVICE_TYPE_VPU: s |= SX_ASPECT_BIT(SX_ASPECT_ACCELERATOR); break;
    default: s |= SX_ASPECT_BIT(SX_ASPECT_CUSTOM); break;
    }
    if (d->module.flags & ZE_DEVICE_MODULE_FLAG_FP16)
        s |= SX_ASPECT_BIT(SX_ASPECT_FP16);
    if (d->module.flags & ZE_DEVICE_MODULE_FLAG_FP64)
        s |= SX_ASPECT_BIT(SX_ASPECT_FP64);
    if (d->module.flags & ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS)
        s |= SX_ASPECT_BIT(SX_ASPECT_ATOMIC64) | SX_ASPECT_BIT(SX_ASPECT_INT64_BASE_ATOMICS) |
             SX_ASPECT_BIT(SX_ASPECT_INT64_EXTENDED_ATOMICS);
    if (acc) {
        if (acc->deviceAllocCapabilities)
            s |= SX_ASPECT_BIT(SX_ASPECT_USM_DEVICE_ALLOCATIONS);
        if (acc->hostAllocCapabilities)
            s |= SX_ASPECT_BIT(SX_ASPECT_USM_HOST_ALLOCATIONS);
        if (acc->hostAllocCapabilities & ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC)
            s |= SX_ASPECT_BIT(SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS);
        if (acc->sharedSingleDeviceAllocCapabilities)
            s |= SX_ASPECT_BIT(SX_ASPECT_USM_SHARED_ALLOCATIONS);
        if (acc->sharedSingleDeviceAllocCapabilities & ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC)
            s |= SX_ASPECT_BIT(SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS);
        if (acc->sharedSystemAllocCapabilities)
            s |= SX_ASPECT_BIT(SX_ASPECT_USM_SYSTEM_ALLOCATIONS);
    }
    return s;
}

/* The first command-queue group that can run kernels; 0 if the driver
 * cannot say. */
static uint32_t compute_ordinal(ze_device_handle_t dev)
{
    uint32_t n = 0;
    if (sxz_ze.zeDeviceGetCommandQueueGroupProperties(dev, &n, NULL) != ZE_RESULT_SUCCESS || !n)
        return 0;
    if (n > 64)
        n = 64;
    ze_command_queue_group_properties_t g[64];
    for (uint32_t i = 0; i < n; i++)
        g[i] = (ze_command_queue_group_properties_t){
            .stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES};
    if (sxz_ze.zeDeviceGetCommandQueueGroupProperties(dev, &n, g) != ZE_RESULT_SUCCESS)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        if (g[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE)
            return i;
    return 0;
}

static sx_result device_init(struct sxa_platform_s *p, struct sxa_device_s *d,
                             ze_device_handle_t h)
{
    ze_result_t rc;
    d->base.dispatch = sxz_services->dispatch;
    d->platform = p;
    d->dev = h;
    d->props = (ze_device_properties_t){.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES};
    if ((rc = sxz_ze.zeDeviceGetProperties(h, &d->props)) != ZE_RESULT_SUCCESS)
        return sxz_fail("zeDeviceGetProperties", rc, " for device %p", (void *)h);
    d->compute = (ze_device_compute_properties_t){
        .stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES};
    if ((rc = sxz_ze.zeDeviceGetComputeProperties(h, &d->compute)) != ZE_RESULT_SUCCESS)
        return sxz_fail("zeDeviceGetComputeProperties", rc, " for device %p", (void *)h);
    d->module = (ze_device_module_properties_t){
        .stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES};
    if ((rc = sxz_ze.zeDeviceGetModuleProperties(h, &d->module)) != ZE_RESULT_SUCCESS)
        return sxz_fail("zeDeviceGetModuleProperties", rc, " for device %p", (void *)h);
    uint32_t nmem = 0;
    if (sxz_ze.zeDeviceGetMemoryProperties(h, &nmem, NULL) == ZE_RESULT_SUCCESS && nmem) {
        ze_device_memory_properties_t mem[8];
        if (nmem > 8)
            nmem = 8;
        for (uint32_t i = 0; i < nmem; i++)
            mem[i] = (ze_device_memory_properties_t){
                .stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_PROPERTIES};
        if (sxz_ze.zeDeviceGetMemoryProperties(h, &nmem, mem) == ZE_RESULT_SUCCESS)
            for (uint32_t i = 0; i < nmem; i++)
                d->global_mem += mem[i].totalSize;
    }
    ze_device_memory_access_properties_t acc = {
        .stype = ZE_STRUCTURE_TYPE_DEVICE_MEMORY_ACCESS_PROPERTIES};
    int have_acc = sxz_ze.zeDeviceGetMemoryAccessProperties(h, &acc) == ZE_RESULT_SUCCESS;
    d->aspects = device_aspects(d, have_acc ? &acc : NULL);
    d->compute_ordinal = compute_ordinal(h);
    return SX_SUCCESS;
}

static sx_result platform_init(struct sxa_platform_s *p, ze_driver_handle_t drv, uint32_t index)
{
    ze_result_t rc;
    p->base.dispatch = sxz_services->dispatch;
    p->driver = drv;
    p->index = index;
    ze_api_version_t api = ZE_API_VERSION_1_0;
    sxz_ze.zeDriverGetApiVersion(drv, &api);
    ze_driver_properties_t dp = {.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES};
    if (sxz_ze.zeDriverGetProperties(drv, &dp) != ZE_RESULT_SUCCESS)
        dp.driverVersion = 0;
    snprintf(p->name, sizeof(p->name), "Level Zero driver %u", index);
    snprintf(p->version, sizeof(p->version), "Level Zero %u.%u", ZE_MAJOR_VERSION(api),
             ZE_MINOR_VERSION(api));
    /* Intel's encoding: major.minor in the top bytes, build in the low 16 bits. */
    snprintf(p->driver_version, sizeof(p->driver_version), "%u.%u.%u",
             dp.driverVersion >> 24, (dp.driverVersion >> 16) & 0xff, dp.driverVersion & 0xffff);
    uint32_t n = 0;
    if ((rc = sxz_ze.zeDeviceGet(drv, &n, NULL)) != ZE_RESULT_SUCCESS)
        return sxz_fail("zeDeviceGet", rc, " for driver %u", index);
    if (n == 0)
        return SX_SUCCESS;
    ze_device_handle_t *h = calloc(n, sizeof(*h));
    p->devices = calloc(n, sizeof(*p->devices));
    if (!h || !p->devices) {
        free(h);
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "Level Zero: out of memory for %u devices", n);
    }
    if ((rc = sxz_ze.zeDeviceGet(drv, &n, h)) != ZE_RESULT_SUCCESS) {
        free(h);
        return sxz_fail("zeDeviceGet", rc, " for driver %u", index);
    }
    for (uint32_t i = 0; i < n; i++) {
        sx_result r = device_init(p, &p->devices[p->num_devices], h[i]);
        if (r == SX_SUCCESS)
            p->num_devices++;
        else if (sxz_services->log)
            sxz_services->log(SX_LOG_WARN, "level_zero: driver %u device %u skipped", index, i);
    }
    free(h);
    return SX_SUCCESS;
}

sx_result sxz_discover(struct sxa_adapter_s *a)
{
    ze_result_t rc;
    uint32_t n = 0;
    if ((rc = sxz_ze.zeDriverGet(&n, NULL)) != ZE_RESULT_SUCCESS) {
        snprintf(a->status, sizeof(a->status), "zeDriverGet: %s (0x%x): 0 platforms",
                 sxz_result_name(rc), (unsigned)rc);
        return SX_SUCCESS;
    }
    ze_driver_handle_t *drv = n ? calloc(n, sizeof(*drv)) : NULL;
    a->platforms = n ? calloc(n, sizeof(*a->platforms)) : NULL;
    if (n && (!drv || !a->platforms)) {
        free(drv);
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "Level Zero: out of memory for %u drivers", n);
    }
    if (n && (rc = sxz_ze.zeDriverGet(&n, drv)) != ZE_RESULT_SUCCESS) {
        free(drv);
        snprintf(a->status, sizeof(a->status), "zeDriverGet: %s (0x%x): 0 platforms",
                 sxz_result_name(rc), (unsigned)rc);
        return SX_SUCCESS;
    }
    uint32_t ndev = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct sxa_platform_s *p = &a->platforms[a->num_platforms];
        if (platform_init(p, drv[i], i) == SX_SUCCESS) {
            ndev += p->num_devices;
            a->num_platforms++;
        } else {
            free(p->devices);
            memset(p, 0, sizeof(*p));
            if (sxz_services->log)
                sxz_services->log(SX_LOG_WARN, "level_zero: driver %u skipped", i);
        }
    }
    free(drv);
    snprintf(a->status, sizeof(a->status), "libze_loader.so.1: %u driver%s, %u device%s",
             a->num_platforms, a->num_platforms == 1 ? "" : "s", ndev, ndev == 1 ? "" : "s");
    return SX_SUCCESS;
}

static void free_platforms(struct sxa_adapter_s *a)
{
    for (uint32_t i = 0; i < a->num_platforms; i++)
        free(a->platforms[i].devices);
    free(a->platforms);
    a->platforms = NULL;
    a->num_platforms = 0;
}

static sx_result adapter_init(const sxa_services *services, sxa_adapter *out)
{
    if (!services || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (SXA_MAJOR_VERSION(services->abi_version) != SXA_ABI_VERSION_MAJOR)
        return SX_ERROR_UNSUPPORTED_VERSION;
    /* The ze* table is process-wide (one loader per process), so one
     * adapter instance at a time. */
    if (live_adapter)
        return services->error(SX_ERROR_INVALID_OPERATION,
                               "level_zero: the adapter is already initialised in this process");
    sxz_services = services;
    struct sxa_adapter_s *a = calloc(1, sizeof(*a));
    if (!a)
        return services->error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory");
    a->base.dispatch = services->dispatch;
    sx_result r = sxz_load(a);
    if (r == SX_SUCCESS && a->lib)
        r = sxz_discover(a);
    if (r != SX_SUCCESS) {
        free_platforms(a);
        sxz_unload(a);
        free(a);
        sxz_services = NULL;
        return r;
    }
    if (services->log)
        services->log(SX_LOG_INFO, "level_zero: %s", a->status);
    live_adapter = a;
    *out = (sxa_adapter)a;
    return SX_SUCCESS;
}

static sx_result adapter_fini(sxa_adapter adapter)
{
    struct sxa_adapter_s *a = (struct sxa_adapter_s *)adapter;
    if (!a)
        return SX_ERROR_INVALID_NULL_HANDLE;
    free_platforms(a);
    sxz_unload(a);
    free(a);
    live_adapter = NULL;
    sxz_services = NULL;
    return SX_SUCCESS;
}

static sx_result adapter_get_info(sxa_adapter adapter, sxa_adapter_info param, size_t size,
                                  void *value, size_t *size_ret)
{
    struct sxa_adapter_s *a = (struct sxa_adapter_s *)adapter;
    if (!a)
        return SX_ERROR_INVALID_NULL_HANDLE;
    switch (param) {
    case SXA_ADAPTER_INFO_NAME:
        return sxa_info_string("level_zero", size, value, size_ret);
    case SXA_ADAPTER_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_LEVEL_ZERO;
        return sxa_info_copy(&b, sizeof(b), size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_VERSION: {
        uint32_t v = SXZ_ADAPTER_VERSION;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_STATUS:
        return sxa_info_string(a->status, size, value, size_ret);
    default:
        return sxz_error(SX_ERROR_INVALID_ENUMERATION, "level_zero: adapter info %u unknown",
                         (unsigned)param);
    }
}

static sx_result platform_get(sxa_adapter adapter, uint32_t count, sxa_platform *platforms,
                              uint32_t *num_platforms)
{
    struct sxa_adapter_s *a = (struct sxa_adapter_s *)adapter;
    if (!a)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!platforms && !num_platforms)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (platforms && count == 0)
        return sxz_error(SX_ERROR_INVALID_SIZE, "level_zero: platform count 0 with an array");
    if (num_platforms)
        *num_platforms = a->num_platforms;
    for (uint32_t i = 0; platforms && i < count && i < a->num_platforms; i++)
        platforms[i] = (sxa_platform)&a->platforms[i];
    return SX_SUCCESS;
}

static sx_result platform_get_info(sxa_platform platform, sx_platform_info param, size_t size,
                                   void *value, size_t *size_ret)
{
    struct sxa_platform_s *p = (struct sxa_platform_s *)platform;
    if (!p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    switch (param) {
    case SX_PLATFORM_INFO_NAME:
        return sxa_info_string(p->name, size, value, size_ret);
    case SX_PLATFORM_INFO_VENDOR:
        return sxa_info_string(p->num_devices && p->devices[0].props.vendorId == 0x8086
                                   ? "Intel(R) Corporation"
                                   : "Level Zero driver vendor",
                               size, value, size_ret);
    case SX_PLATFORM_INFO_VERSION:
        return sxa_info_string(p->version, size, value, size_ret);
    case SX_PLATFORM_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_LEVEL_ZERO;
        return sxa_info_copy(&b, sizeof(b), size, value, size_ret);
    }
    default:
        return sxz_error(SX_ERROR_INVALID_ENUMERATION, "level_zero: platform info %u unknown",
                         (unsigned)param);
    }
}

static sx_device_type device_type(const struct sxa_device_s *d)
{
    switch (d->props.type) {
    case ZE_DEVICE_TYPE_GPU: return SX_DEVICE_TYPE_GPU;
    case ZE_DEVICE_TYPE_CPU: return SX_DEVICE_TYPE_CPU;
    case ZE_DEVICE_TYPE_FPGA:
    case ZE_DEVICE_TYPE_VPU: return SX_DEVICE_TYPE_ACCELERATOR;
    default: return SX_DEVICE_TYPE_CUSTOM;
    }
}

static sx_result device_get(sxa_platform platform, sx_device_type type, uint32_t count,
                            sxa_device *devices, uint32_t *num_devices)
{
    struct sxa_platform_s *p = (struct sxa_platform_s *)platform;
    if (!p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!devices && !num_devices)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (devices && count == 0)
        return sxz_error(SX_ERROR_INVALID_SIZE, "level_zero: device count 0 with an array");
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->num_devices; i++) {
        if (type != SX_DEVICE_TYPE_DEFAULT && type != SX_DEVICE_TYPE_ALL &&
            !(type & device_type(&p->devices[i])))
            continue;
        if (devices && n < count)
            devices[n] = (sxa_device)&p->devices[i];
        n++;
    }
    if (num_devices)
        *num_devices = n;
    return SX_SUCCESS;
}

static sx_result device_get_info(sxa_device device, sx_device_info param, size_t size,
                                 void *value, size_t *size_ret)
{
    struct sxa_device_s *d = (struct sxa_device_s *)device;
    if (!d)
        return SX_ERROR_INVALID_NULL_HANDLE;
    switch (param) {
    case SX_DEVICE_INFO_TYPE: {
        sx_device_type t = device_type(d);
        return sxa_info_copy(&t, sizeof(t), size, value, size_ret);
    }
    case SX_DEVICE_INFO_NAME:
        return sxa_info_string(d->props.name, size, value, size_ret);
    case SX_DEVICE_INFO_VENDOR: {
        char v[32];
        if (d->props.vendorId == 0x8086)
            snprintf(v, sizeof(v), "Intel(R) Corporation");
        else
            snprintf(v, sizeof(v), "vendor 0x%04x", d->props.vendorId);
        return sxa_info_string(v, size, value, size_ret);
    }
    case SX_DEVICE_INFO_DRIVER_VERSION:
        return sxa_info_string(d->platform->driver_version, size, value, size_ret);
    case SX_DEVICE_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_LEVEL_ZERO;
        return sxa_info_copy(&b, sizeof(b), size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE: {
        size_t v = d->compute.maxTotalGroupSize;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES: {
        size_t v[3] = {d->compute.maxGroupSizeX, d->compute.maxGroupSizeY,
                       d->compute.maxGroupSizeZ};
        return sxa_info_copy(v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_LOCAL_MEM_SIZE: {
        uint64_t v = d->compute.maxSharedLocalMemory;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_GLOBAL_MEM_SIZE:
        return sxa_info_copy(&d->global_mem, sizeof(d->global_mem), size, value, size_ret);
    case SX_DEVICE_INFO_MAX_COMPUTE_UNITS: {
        uint32_t v = d->props.numSlices * d->props.numSubslicesPerSlice *
                     d->props.numEUsPerSubslice;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_ASPECTS:
        return sxa_info_copy(&d->aspects, sizeof(d->aspects), size, value, size_ret);
    case SX_DEVICE_INFO_IMAGE_KINDS: {
        /* SPIR-V first: a native binary only fits the device it was built for. */
        sx_image_kind k[2] = {SX_IMAGE_KIND_SPIRV, SX_IMAGE_KIND_NATIVE};
        return sxa_info_copy(k, sizeof(k), size, value, size_ret);
    }
    case SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS: {
        uint32_t v = 0;  /* zeCommandListAppendLaunchKernel takes whole groups */
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_PLATFORM: {
        sxa_platform p = (sxa_platform)d->platform;
        return sxa_info_copy(&p, sizeof(p), size, value, size_ret);
    }
    default:
        return sxz_error(SX_ERROR_INVALID_ENUMERATION, "level_zero: device info %u unknown",
                         (unsigned)param);
    }
}

const sxa_adapter_table sxz_adapter_table = {
    .size = sizeof(sxa_adapter_table),
    .init = adapter_init,
    .fini = adapter_fini,
    .get_info = adapter_get_info,
};

const sxa_platform_table sxz_platform_table = {
    .size = sizeof(sxa_platform_table),
    .get = platform_get,
    .get_info = platform_get_info,
};

const sxa_device_table sxz_device_table = {
    .size = sizeof(sxa_device_table),
    .get = device_get,
    .get_info = device_get_info,
};
