/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* error.c: result names and sentences, and the thread-local last error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sx-internal.h"

static const struct {
    const char *name;
    const char *text;
} results[] = {
    [SX_SUCCESS] = {"SX_SUCCESS", "The call succeeded."},
    [SX_ERROR_UNINITIALIZED] = {"SX_ERROR_UNINITIALIZED", "The library is not initialised: call sx_init first."},
    [SX_ERROR_INVALID_NULL_POINTER] = {"SX_ERROR_INVALID_NULL_POINTER", "A required pointer argument is NULL."},
    [SX_ERROR_INVALID_NULL_HANDLE] = {"SX_ERROR_INVALID_NULL_HANDLE", "A required handle is NULL."},
    [SX_ERROR_INVALID_HANDLE] = {"SX_ERROR_INVALID_HANDLE", "A handle is of the wrong kind or was released."},
    [SX_ERROR_INVALID_VALUE] = {"SX_ERROR_INVALID_VALUE", "An argument is outside its valid range."},
    [SX_ERROR_INVALID_SIZE] = {"SX_ERROR_INVALID_SIZE", "A size is zero, too large or does not match."},
    [SX_ERROR_INVALID_ENUMERATION] = {"SX_ERROR_INVALID_ENUMERATION", "An enumeration value is not known to this version."},
    [SX_ERROR_OUT_OF_HOST_MEMORY] = {"SX_ERROR_OUT_OF_HOST_MEMORY", "Host memory ran out."},
    [SX_ERROR_OUT_OF_DEVICE_MEMORY] = {"SX_ERROR_OUT_OF_DEVICE_MEMORY", "Device memory ran out."},
    [SX_ERROR_OUT_OF_RESOURCES] = {"SX_ERROR_OUT_OF_RESOURCES", "The backend ran out of a resource."},
    [SX_ERROR_UNSUPPORTED_FEATURE] = {"SX_ERROR_UNSUPPORTED_FEATURE", "The adapter or device does not support this."},
    [SX_ERROR_UNSUPPORTED_VERSION] = {"SX_ERROR_UNSUPPORTED_VERSION", "A version (ABI or file format) is not supported."},
    [SX_ERROR_DEVICE_NOT_FOUND] = {"SX_ERROR_DEVICE_NOT_FOUND", "No device matches."},
    [SX_ERROR_INVALID_DEVICE] = {"SX_ERROR_INVALID_DEVICE", "The device is not valid here (not in the context, or another device)."},
    [SX_ERROR_INVALID_BINARY] = {"SX_ERROR_INVALID_BINARY", "A device image, descriptor or image file is damaged."},
    [SX_ERROR_INVALID_PROGRAM] = {"SX_ERROR_INVALID_PROGRAM", "The program is not valid for this operation."},
    [SX_ERROR_BUILD_FAILURE] = {"SX_ERROR_BUILD_FAILURE", "The backend failed to build the program."},
    [SX_ERROR_LINK_FAILURE] = {"SX_ERROR_LINK_FAILURE", "The backend failed to link programs."},
    [SX_ERROR_INVALID_KERNEL_NAME] = {"SX_ERROR_INVALID_KERNEL_NAME", "No kernel has that name."},
    [SX_ERROR_INVALID_KERNEL_ARGS] = {"SX_ERROR_INVALID_KERNEL_ARGS", "A kernel argument was not set."},
    [SX_ERROR_INVALID_ARGUMENT_INDEX] = {"SX_ERROR_INVALID_ARGUMENT_INDEX", "A kernel argument index is past the last parameter."},
    [SX_ERROR_INVALID_ARGUMENT_SIZE] = {"SX_ERROR_INVALID_ARGUMENT_SIZE", "A kernel argument's size differs from its parameter's."},
    [SX_ERROR_INVALID_WORK_DIMENSION] = {"SX_ERROR_INVALID_WORK_DIMENSION", "The number of dimensions is not valid for this launch."},
    [SX_ERROR_INVALID_WORK_GROUP_SIZE] = {"SX_ERROR_INVALID_WORK_GROUP_SIZE", "The local size is not valid for this launch."},
    [SX_ERROR_KERNEL_NOT_SUPPORTED] = {"SX_ERROR_KERNEL_NOT_SUPPORTED", "No compatible image of the kernel exists for the device."},
    [SX_ERROR_INVALID_GLOBAL_NAME] = {"SX_ERROR_INVALID_GLOBAL_NAME", "No device global or program variable has that name."},
    [SX_ERROR_HANDLE_IN_USE] = {"SX_ERROR_HANDLE_IN_USE", "The object is still in use."},
    [SX_ERROR_DEVICE_LOST] = {"SX_ERROR_DEVICE_LOST", "The device was lost."},
    [SX_ERROR_ADAPTER_SPECIFIC] = {"SX_ERROR_ADAPTER_SPECIFIC", "The backend reported an error of its own."},
    [SX_ERROR_ACCESS_DENIED] = {"SX_ERROR_ACCESS_DENIED", "The variable's host_access property forbids this copy."},
    [SX_ERROR_IO] = {"SX_ERROR_IO", "A file could not be read or written."},
    [SX_ERROR_INVALID_OPERATION] = {"SX_ERROR_INVALID_OPERATION", "The operation is not allowed in the object's state."},
    [SX_ERROR_EVENT_FAILED] = {"SX_ERROR_EVENT_FAILED", "A command this one depends on failed."},
    [SX_ERROR_INVALID_EVENT_WAIT_LIST] = {"SX_ERROR_INVALID_EVENT_WAIT_LIST", "The event wait list is not valid."},
    [SX_ERROR_UNKNOWN] = {"SX_ERROR_UNKNOWN", "An unknown error occurred."},
};
_Static_assert(SXI_ARRAY_SIZE(results) == SX_RESULT_COUNT_, "result table out of step with types.h");

SX_API const char *sx_result_name(sx_result r)
{
    if (r < 0 || r >= SX_RESULT_COUNT_ || !results[r].name)
        return "SX_RESULT_UNKNOWN";
    return results[r].name;
}

SX_API const char *sx_result_string(sx_result r)
{
    if (r < 0 || r >= SX_RESULT_COUNT_ || !results[r].text)
        return "This result code is not known to this version of libsycl-ext.";
    return results[r].text;
}

#define SXI_ERROR_MAX 4096
static _Thread_local char last_error[SXI_ERROR_MAX];

SX_API const char *sx_last_error(void)
{
    return last_error;
}

sx_result sxi_verror(sx_result code, const char *fmt, va_list ap)
{
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    SXI_LOG(SX_LOG_DEBUG, "%s: %s", sx_result_name(code), last_error);
    return code;
}

sx_result sxi_error(sx_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sxi_verror(code, fmt, ap);
    va_end(ap);
    return code;
}

void sxi_error_prefix(const char *fmt, ...)
{
    char prefix[512], old[SXI_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof(prefix), fmt, ap);
    va_end(ap);
    memcpy(old, last_error, sizeof(old));
    snprintf(last_error, sizeof(last_error), "%.500s: %.3500s", prefix, old);
}
