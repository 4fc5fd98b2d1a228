/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-api.c: loading libze_loader.so.1, resolving ze* entry points, and naming Level Zero results. */
#include "ze-adapter.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

sxz_api sxz_ze;
const sxa_services *sxz_services;

#define SXZ_LOADER_NAME "libze_loader.so.1"

const char *sxz_result_name(ze_result_t rc)
{
    switch (rc) {
#define N(x) case x: return #x;
    N(ZE_RESULT_SUCCESS) N(ZE_RESULT_NOT_READY) N(ZE_RESULT_ERROR_DEVICE_LOST)
    N(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY) N(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    N(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE) N(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)
    N(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET) N(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE)
    N(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS) N(ZE_RESULT_ERROR_NOT_AVAILABLE)
    N(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE) N(ZE_RESULT_WARNING_DROPPED_DATA)
    N(ZE_RESULT_ERROR_UNINITIALIZED) N(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)
    N(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE) N(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    N(ZE_RESULT_ERROR_INVALID_NULL_HANDLE) N(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
    N(ZE_RESULT_ERROR_INVALID_NULL_POINTER) N(ZE_RESULT_ERROR_INVALID_SIZE)
    N(ZE_RESULT_ERROR_UNSUPPORTED_SIZE) N(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)
    N(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT) N(ZE_RESULT_ERROR_INVALID_ENUMERATION)
    N(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION) N(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)
    N(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY) N(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
    N(ZE_RESULT_ERROR_INVALID_KERNEL_NAME) N(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)
    N(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION) N(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)
    N(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX) N(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    N(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE) N(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
    N(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE) N(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)
    N(ZE_RESULT_WARNING_ACTION_REQUIRED) N(ZE_RESULT_ERROR_UNKNOWN)
#undef N
    default:
        return "ZE_RESULT_<unknown>";
    }
}

sx_result sxz_map_result(ze_result_t rc)
{
    switch (rc) {
    case ZE_RESULT_SUCCESS: return SX_SUCCESS;
    case ZE_RESULT_ERROR_DEVICE_LOST:
    case ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET: return SX_ERROR_DEVICE_LOST;
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY: return SX_ERROR_OUT_OF_HOST_MEMORY;
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: return SX_ERROR_OUT_OF_DEVICE_MEMORY;
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE: return SX_ERROR_BUILD_FAILURE;
    case ZE_RESULT_ERROR_MODULE_LINK_FAILURE:
    case ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED: return SX_ERROR_LINK_FAILURE;
    case ZE_RESULT_ERROR_UNSUPPORTED_VERSION: return SX_ERROR_UNSUPPORTED_VERSION;
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
    case ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION: return SX_ERROR_UNSUPPORTED_FEATURE;
    case ZE_RESULT_ERROR_INVALID_ARGUMENT: return SX_ERROR_INVALID_VALUE;
    case ZE_RESULT_ERROR_INVALID_NULL_HANDLE: return SX_ERROR_INVALID_NULL_HANDLE;
    case ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE: return SX_ERROR_HANDLE_IN_USE;
    case ZE_RESULT_ERROR_INVALID_NULL_POINTER: return SX_ERROR_INVALID_NULL_POINTER;
    case ZE_RESULT_ERROR_INVALID_SIZE:
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE: return SX_ERROR_INVALID_SIZE;
    case ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT: return SX_ERROR_INVALID_VALUE;
    case ZE_RESULT_ERROR_INVALID_ENUMERATION: return SX_ERROR_INVALID_ENUMERATION;
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY: return SX_ERROR_INVALID_BINARY;
    case ZE_RESULT_ERROR_INVALID_GLOBAL_NAME: return SX_ERROR_INVALID_GLOBAL_NAME;
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME:
    case ZE_RESULT_ERROR_INVALID_FUNCTION_NAME: return SX_ERROR_INVALID_KERNEL_NAME;
    case ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION:
    case ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION: return SX_ERROR_INVALID_WORK_GROUP_SIZE;
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX: return SX_ERROR_INVALID_ARGUMENT_INDEX;
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE: return SX_ERROR_INVALID_ARGUMENT_SIZE;
    case ZE_RESULT_ERROR_UNINITIALIZED: return SX_ERROR_UNINITIALIZED;
    default: return SX_ERROR_ADAPTER_SPECIFIC;
    }
}

sx_result sxz_error(sx_result code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (sxz_services && sxz_services->error)
        return sxz_services->error(code, "%s", msg);
    return code;
}

sx_result sxz_fail(const char *fn, ze_result_t rc, const char *fmt, ...)
{
    char detail[900] = "";
    if (fmt && *fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof(detail), fmt, ap);
        va_end(ap);
    }
    return sxz_error(sxz_map_result(rc), "%s: %s (0x%x)%s", fn, sxz_result_name(rc),
                     (unsigned)rc, detail);
}

static void *open_loader(struct sxa_adapter_s *a, const char **name)
{
    /* SX_ZE_LOADER names another loader file (tests use it to see the
     * "no library" path); otherwise the system's. */
    const char *override = sxz_services->getenv ? sxz_services->getenv("SX_ZE_LOADER") : NULL;
    *name = override && *override ? override : SXZ_LOADER_NAME;
    return dlopen(*name, RTLD_NOW | RTLD_LOCAL);
}

sx_result sxz_load(struct sxa_adapter_s *a)
{
    const char *name;
    memset(&sxz_ze, 0, sizeof(sxz_ze));
    a->lib = open_loader(a, &name);
    if (!a->lib) {
        const char *why = dlerror();
        snprintf(a->status, sizeof(a->status), "%s not loaded (%s): 0 platforms", name,
                 why ? why : "unknown reason");
        return SX_SUCCESS;
    }
#define SXZ_RESOLVE(fn)                                                                 \
    if (!(*(void **)&sxz_ze.fn = dlsym(a->lib, #fn))) {                                 \
        snprintf(a->status, sizeof(a->status), "%s lacks %s: 0 platforms", name, #fn);  \
        sxz_unload(a);                                                                  \
        return SX_SUCCESS;                                                              \
    }
    SXZ_REQUIRED_FUNCS(SXZ_RESOLVE)
#undef SXZ_RESOLVE
#define SXZ_RESOLVE_OPT(fn) *(void **)&sxz_ze.fn = dlsym(a->lib, #fn);
    SXZ_OPTIONAL_FUNCS(SXZ_RESOLVE_OPT)
#undef SXZ_RESOLVE_OPT
    ze_result_t rc = sxz_ze.zeInit(0);
    if (rc != ZE_RESULT_SUCCESS) {
        snprintf(a->status, sizeof(a->status), "zeInit: %s (0x%x): %s: 0 platforms",
                 sxz_result_name(rc), (unsigned)rc,
                 rc == ZE_RESULT_ERROR_UNINITIALIZED ? "no Level Zero driver" : "loader failed");
        sxz_unload(a);
        return SX_SUCCESS;
    }
    return SX_SUCCESS;
}

void sxz_unload(struct sxa_adapter_s *a)
{
    if (a->lib)
        dlclose(a->lib);
    a->lib = NULL;
    memset(&sxz_ze, 0, sizeof(sxz_ze));
}
