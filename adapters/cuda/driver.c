/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* driver.c: loading libcuda.so.1 at run time, error naming, primary contexts. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "sxc.h"

sxc_driver sxc_cu;
static void *libcuda;

int sxc_driver_load(char *status, size_t status_size)
{
    const char *path = "libcuda.so.1";
    /* A test (or a user) may point at another driver library. */
    const char *env = sxc_services->getenv ? sxc_services->getenv("SX_CUDA_LIBRARY") : NULL;
    if (env && *env)
        path = env;
    libcuda = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!libcuda) {
        const char *why = dlerror();
        sxc_services->log(SX_LOG_INFO, "cuda: dlopen(%s): %s", path, why ? why : "?");
        snprintf(status, status_size, "%s not found: 0 platforms", path);
        return 0;
    }
    memset(&sxc_cu, 0, sizeof(sxc_cu));
    const char *missing = NULL;
#define SXC_LOAD(field)                                                                \
    sxc_cu.field = (__typeof__(sxc_cu.field))dlsym(libcuda, #field);                   \
    if (!sxc_cu.field && !missing)                                                     \
        missing = #field;
#define SXC_LOAD_OPT(field) sxc_cu.field = (__typeof__(sxc_cu.field))dlsym(libcuda, #field);
    SXC_DRIVER_ENTRIES(SXC_LOAD, SXC_LOAD_OPT)
#undef SXC_LOAD
#undef SXC_LOAD_OPT
    sxc_cu.elapsed = sxc_cu.cuEventElapsedTime_v2;
    if (!sxc_cu.elapsed)
        sxc_cu.elapsed = (__typeof__(sxc_cu.elapsed))dlsym(libcuda, "cuEventElapsedTime");
    if (missing) {
        snprintf(status, status_size, "%s lacks %s (driver too old?): 0 platforms", path, missing);
        sxc_services->log(SX_LOG_WARN, "cuda: %s", status);
        sxc_driver_unload();
        return 0;
    }
    CUresult r = sxc_cu.cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char *name = NULL;
        if (sxc_cu.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
            name = "CUDA_ERROR_?";
        snprintf(status, status_size, "cuInit: %s (%d): 0 platforms", name, (int)r);
        sxc_services->log(SX_LOG_INFO, "cuda: %s", status);
        sxc_driver_unload();
        return 0;
    }
    int version = 0;
    sxc_cu.cuDriverGetVersion(&version);
    snprintf(status, status_size, "CUDA driver %d.%d (%s)", version / 1000, (version % 1000) / 10,
             path);
    return 1;
}

void sxc_driver_unload(void)
{
    if (libcuda)
        dlclose(libcuda);
    libcuda = NULL;
    memset(&sxc_cu, 0, sizeof(sxc_cu));
}

sx_result sxc_map(CUresult r)
{
    switch (r) {
    case CUDA_SUCCESS:
        return SX_SUCCESS;
    case CUDA_ERROR_INVALID_VALUE:
        return SX_ERROR_INVALID_VALUE;
    case CUDA_ERROR_OUT_OF_MEMORY:
        return SX_ERROR_OUT_OF_DEVICE_MEMORY;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        return SX_ERROR_OUT_OF_RESOURCES;
    case CUDA_ERROR_NOT_FOUND:
        return SX_ERROR_INVALID_VALUE;
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
        return SX_ERROR_INVALID_BINARY;
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_CONTEXT:
        return SX_ERROR_INVALID_HANDLE;
    case CUDA_ERROR_NOT_SUPPORTED:
        return SX_ERROR_UNSUPPORTED_FEATURE;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_INVALID_DEVICE:
        return SX_ERROR_INVALID_DEVICE;
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
        return SX_ERROR_DEVICE_LOST;
    default:
        return SX_ERROR_ADAPTER_SPECIFIC;
    }
}

sx_result sxc_error(sx_result code, CUresult r, const char *fmt, ...)
{
    char what[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    const char *name = NULL;
    if (!sxc_cu.cuGetErrorName || sxc_cu.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
        name = "CUDA_ERROR_UNKNOWN_CODE";
    if (code == SX_SUCCESS)
        code = sxc_map(r);
    /* what = "cuXxx ...": the native code goes right after the call name;
     * "cuXxx: more" keeps its colon after the code. */
    size_t n = strcspn(what, ": ");
    const char *rest = what + n;
    const char *sep = "";
    if (*rest == ':') {
        rest++;
        sep = ":";
    }
    return sxc_services->error(code, "%.*s: %s (%d)%s%s", (int)n, what, name, (int)r, sep, rest);
}

sx_result sxc_device_context(sxc_device_t *d, CUcontext *out)
{
    CUcontext c = atomic_load_explicit(&d->ctx, memory_order_acquire);
    if (c) {
        *out = c;
        return SX_SUCCESS;
    }
    pthread_mutex_lock(&d->lock);
    c = atomic_load_explicit(&d->ctx, memory_order_relaxed);
    if (!c) {
        CUresult r = sxc_cu.cuDevicePrimaryCtxRetain(&c, d->cu);
        if (r != CUDA_SUCCESS) {
            pthread_mutex_unlock(&d->lock);
            return sxc_error(SX_SUCCESS, r, "cuDevicePrimaryCtxRetain for device %d (%s)",
                             d->ordinal, d->name);
        }
        atomic_store_explicit(&d->ctx, c, memory_order_release);
    }
    pthread_mutex_unlock(&d->lock);
    *out = c;
    return SX_SUCCESS;
}

uint64_t sxc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
