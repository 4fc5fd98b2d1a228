/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* adapter.c: the CUDA adapter's entry point, platform and devices. */
#include <stdio.h>
#include <stdlib.h>

#include "sxc.h"

#define SXC_VERSION SXA_MAKE_VERSION(1, 0)

const sxa_services *sxc_services;

/* The adapter handle: one per process (the core loads an adapter once). */
static struct sxc_adapter_s {
    sxa_object base;
    int loaded;
    char status[256];
    sxc_platform_t platform;
} adapter;

static sx_result adapter_init(const sxa_services *services, sxa_adapter *out)
{
    if (!services || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (SXA_MAJOR_VERSION(services->abi_version) != SXA_ABI_VERSION_MAJOR)
        return SX_ERROR_UNSUPPORTED_VERSION;
    sxc_services = services;
    memset(&adapter, 0, sizeof(adapter));
    adapter.base.dispatch = services->dispatch;
    adapter.platform.base.dispatch = services->dispatch;
    adapter.loaded = sxc_driver_load(adapter.status, sizeof(adapter.status));
    if (adapter.loaded) {
        int count = 0;
        CUresult r = sxc_cu.cuDeviceGetCount(&count);
        if (r != CUDA_SUCCESS || count < 0)
            count = 0;
        adapter.platform.devices = count ? calloc((size_t)count, sizeof(sxc_device_t)) : NULL;
        if (count && !adapter.platform.devices) {
            sxc_driver_unload();
            return SX_ERROR_OUT_OF_HOST_MEMORY;
        }
        uint32_t n = 0;
        for (int i = 0; i < count; i++) {
            sxc_device_t *d = &adapter.platform.devices[n];
            d->base.dispatch = services->dispatch;
            d->platform = &adapter.platform;
            d->ordinal = i;
            if (sxc_cu.cuDeviceGet(&d->cu, i) != CUDA_SUCCESS)
                continue;
            if (sxc_cu.cuDeviceGetName(d->name, sizeof(d->name) - 1, d->cu) != CUDA_SUCCESS)
                snprintf(d->name, sizeof(d->name), "CUDA device %d", i);
            struct {
                CUdevice_attribute attr;
                int *dst;
            } attrs[] = {
                {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &d->cc_major},
                {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &d->cc_minor},
                {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &d->max_threads},
                {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &d->max_block[0]},
                {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &d->max_block[1]},
                {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &d->max_block[2]},
                {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &d->max_grid[0]},
                {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &d->max_grid[1]},
                {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &d->max_grid[2]},
                {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &d->smem_optin},
                {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &d->sm_count},
                {CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, &d->managed},
                {CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, &d->concurrent_managed},
                {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, &d->pageable_access},
                {CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, &d->host_atomics},
            };
            for (size_t a = 0; a < sizeof(attrs) / sizeof(attrs[0]); a++)
                if (sxc_cu.cuDeviceGetAttribute(attrs[a].dst, attrs[a].attr, d->cu) != CUDA_SUCCESS)
                    *attrs[a].dst = 0;
            if (d->smem_optin <= 0) {
                int s = 0;
                sxc_cu.cuDeviceGetAttribute(&s, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, d->cu);
                d->smem_optin = s;
            }
            /* SX_CUDA_SMALL_WRITES=copy: 1-4 byte writes as copies, not
             * memsets (enqueue.c), to compare or to rule them out. */
            const char *small = services->getenv ? services->getenv("SX_CUDA_SMALL_WRITES") : NULL;
            atomic_init(&d->small_copy, small && strcmp(small, "copy") == 0);
            if (sxc_cu.cuDriverGetVersion(&d->driver_version) != CUDA_SUCCESS)
                d->driver_version = 0;
            if (sxc_cu.cuDeviceTotalMem_v2(&d->total_mem, d->cu) != CUDA_SUCCESS)
                d->total_mem = 0;
            pthread_mutex_init(&d->lock, NULL);
            pthread_mutex_init(&d->pool_lock, NULL);
            n++;
        }
        adapter.platform.num_devices = n;
        size_t len = strlen(adapter.status);
        snprintf(adapter.status + len, sizeof(adapter.status) - len, ": 1 platform, %u device%s", n,
                 n == 1 ? "" : "s");
    }
    services->log(SX_LOG_INFO, "cuda: %s", adapter.status);
    *out = (sxa_adapter)&adapter;
    return SX_SUCCESS;
}

static sx_result adapter_fini(sxa_adapter a)
{
    if (adapter.loaded) {
        for (uint32_t i = 0; i < adapter.platform.num_devices; i++) {
            sxc_device_t *d = &adapter.platform.devices[i];
            if (d->ctx) {
                sxc_device_cleanup(d);
                sxc_cu.cuDevicePrimaryCtxRelease_v2(d->cu);
            }
            pthread_mutex_destroy(&d->lock);
            pthread_mutex_destroy(&d->pool_lock);
        }
        free(adapter.platform.devices);
        sxc_driver_unload();
    }
    memset(&adapter, 0, sizeof(adapter));
    return SX_SUCCESS;
}

static sx_result adapter_get_info(sxa_adapter a, sxa_adapter_info param, size_t size, void *value,
                                  size_t *size_ret)
{
    switch (param) {
    case SXA_ADAPTER_INFO_NAME:
        return sxa_info_string("cuda", size, value, size_ret);
    case SXA_ADAPTER_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_CUDA;
        return sxa_info_copy(&b, sizeof(b), size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_VERSION: {
        uint32_t v = SXC_VERSION;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_STATUS:
        return sxa_info_string(adapter.status, size, value, size_ret);
    default:
        return sxc_services->error(SX_ERROR_INVALID_ENUMERATION, "adapter info %u unknown", param);
    }
}

/* ---- platform ---- */

static sx_result platform_get(sxa_adapter a, uint32_t count, sxa_platform *platforms,
                              uint32_t *num)
{
    /* No driver, or a driver with no GPU: no platform at all. */
    uint32_t have = adapter.loaded && adapter.platform.num_devices ? 1 : 0;
    if (num)
        *num = have;
    if (platforms && count && have)
        platforms[0] = (sxa_platform)&adapter.platform;
    return SX_SUCCESS;
}

static sx_result platform_get_info(sxa_platform p, sx_platform_info param, size_t size,
                                   void *value, size_t *size_ret)
{
    switch (param) {
    case SX_PLATFORM_INFO_NAME:
        return sxa_info_string("NVIDIA CUDA", size, value, size_ret);
    case SX_PLATFORM_INFO_VENDOR:
        return sxa_info_string("NVIDIA Corporation", size, value, size_ret);
    case SX_PLATFORM_INFO_VERSION: {
        int v = 0;
        sxc_cu.cuDriverGetVersion(&v);
        char s[32];
        snprintf(s, sizeof(s), "CUDA %d.%d", v / 1000, (v % 1000) / 10);
        return sxa_info_string(s, size, value, size_ret);
    }
    case SX_PLATFORM_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_CUDA;
        return sxa_info_copy(&b, sizeof(b), size, value, size_ret);
    }
    default:
        return sxc_services->error(SX_ERROR_INVALID_ENUMERATION, "platform info %u unknown", param);
    }
}

const sxa_platform_table sxc_platform_table = {
    .size = sizeof(sxa_platform_table),
    .get = platform_get,
    .get_info = platform_get_info,
};

/* ---- device ---- */

static sx_result device_get(sxa_platform p, sx_device_type type, uint32_t count,
                            sxa_device *devices, uint32_t *num)
{
    sxc_platform_t *pl = (sxc_platform_t *)p;
    uint32_t n = 0;
    int want = type == SX_DEVICE_TYPE_DEFAULT || (type & SX_DEVICE_TYPE_GPU);
    if (want) {
        for (uint32_t i = 0; i < pl->num_devices; i++) {
            if (devices && n < count)
                devices[n] = (sxa_device)&pl->devices[i];
            n++;
        }
    }
    if (num)
        *num = n;
    return SX_SUCCESS;
}

static sx_aspect_set device_aspects(const sxc_device_t *d)
{
    int cc = d->cc_major * 10 + d->cc_minor;
    sx_aspect_set s = SX_ASPECT_BIT(SX_ASPECT_GPU) | SX_ASPECT_BIT(SX_ASPECT_FP64) |
                      SX_ASPECT_BIT(SX_ASPECT_INT64_BASE_ATOMICS) |
                      SX_ASPECT_BIT(SX_ASPECT_INT64_EXTENDED_ATOMICS) |
                      SX_ASPECT_BIT(SX_ASPECT_ATOMIC64) | SX_ASPECT_BIT(SX_ASPECT_ONLINE_LINKER) |
                      SX_ASPECT_BIT(SX_ASPECT_QUEUE_PROFILING) |
                      SX_ASPECT_BIT(SX_ASPECT_USM_DEVICE_ALLOCATIONS) |
                      SX_ASPECT_BIT(SX_ASPECT_USM_HOST_ALLOCATIONS);
    if (cc >= 53)
        s |= SX_ASPECT_BIT(SX_ASPECT_FP16);
    if (d->managed)
        s |= SX_ASPECT_BIT(SX_ASPECT_USM_SHARED_ALLOCATIONS);
    if (d->pageable_access)
        s |= SX_ASPECT_BIT(SX_ASPECT_USM_SYSTEM_ALLOCATIONS);
    if (d->host_atomics)
        s |= SX_ASPECT_BIT(SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS);
    if (d->managed && d->concurrent_managed)
        s |= SX_ASPECT_BIT(SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS);
    return s;
}

static sx_result device_get_info(sxa_device dev, sx_device_info param, size_t size, void *value,
                                 size_t *size_ret)
{
    sxc_device_t *d = (sxc_device_t *)dev;
    switch (param) {
    case SX_DEVICE_INFO_TYPE: {
        sx_device_type t = SX_DEVICE_TYPE_GPU;
        return sxa_info_copy(&t, sizeof(t), size, value, size_ret);
    }
    case SX_DEVICE_INFO_NAME:
        return sxa_info_string(d->name, size, value, size_ret);
    case SX_DEVICE_INFO_VENDOR:
        return sxa_info_string("NVIDIA Corporation", size, value, size_ret);
    case SX_DEVICE_INFO_DRIVER_VERSION: {
        int v = d->driver_version;
        char s[64];
        snprintf(s, sizeof(s), "%d.%d (sm_%d%d)", v / 1000, (v % 1000) / 10, d->cc_major,
                 d->cc_minor);
        return sxa_info_string(s, size, value, size_ret);
    }
    case SX_DEVICE_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_CUDA;
        return sxa_info_copy(&b, sizeof(b), size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE: {
        size_t v = (size_t)d->max_threads;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES: {
        size_t v[3] = {(size_t)d->max_block[0], (size_t)d->max_block[1], (size_t)d->max_block[2]};
        return sxa_info_copy(v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_LOCAL_MEM_SIZE: {
        /* What a work-group can have: the opt-in maximum, which launches
         * reach by raising the function's dynamic shared memory limit. */
        uint64_t v = (uint64_t)d->smem_optin;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_GLOBAL_MEM_SIZE: {
        uint64_t v = d->total_mem;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_COMPUTE_UNITS: {
        uint32_t v = (uint32_t)d->sm_count;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_ASPECTS: {
        sx_aspect_set v = device_aspects(d);
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_IMAGE_KINDS: {
        static const sx_image_kind kinds[] = {SX_IMAGE_KIND_CUBIN, SX_IMAGE_KIND_PTX};
        return sxa_info_copy(kinds, sizeof(kinds), size, value, size_ret);
    }
    case SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS: {
        /* CUDA grids are whole blocks; a kernel cannot tell the padding apart. */
        uint32_t v = 0;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SX_DEVICE_INFO_PLATFORM: {
        sxa_platform p = (sxa_platform)d->platform;
        return sxa_info_copy(&p, sizeof(p), size, value, size_ret);
    }
    default:
        return sxc_services->error(SX_ERROR_INVALID_ENUMERATION, "device info %u unknown", param);
    }
}

const sxa_device_table sxc_device_table = {
    .size = sizeof(sxa_device_table),
    .get = device_get,
    .get_info = device_get_info,
};

static const sxa_adapter_table adapter_table = {
    .size = sizeof(sxa_adapter_table),
    .init = adapter_init,
    .fini = adapter_fini,
    .get_info = adapter_get_info,
};

SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table)
{
    static const void *const tables[SXA_TABLE_COUNT_] = {
        [SXA_TABLE_ADAPTER] = &adapter_table,
        [SXA_TABLE_PLATFORM] = &sxc_platform_table,
        [SXA_TABLE_DEVICE] = &sxc_device_table,
        [SXA_TABLE_CONTEXT] = &sxc_context_table,
        [SXA_TABLE_QUEUE] = &sxc_queue_table,
        [SXA_TABLE_USM] = &sxc_usm_table,
        [SXA_TABLE_PROGRAM] = &sxc_program_table,
        [SXA_TABLE_KERNEL] = &sxc_kernel_table,
        [SXA_TABLE_ENQUEUE] = &sxc_enqueue_table,
        [SXA_TABLE_EVENT] = &sxc_event_table,
    };
    return sxa_serve_table(abi_version, id, table, tables, SXA_TABLE_COUNT_);
}
