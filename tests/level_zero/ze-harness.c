/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-harness.c: loading the Level Zero adapter module and the TEST DRIVER for the ABI-level suites. */
#include "ze-harness.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

zh_tables ZT;
sxa_adapter zh_adapter;
sxa_platform zh_platform;
sxa_device zh_device;
sxa_context zh_context;
sxa_queue zh_queue;

static void *adapter_lib;
static char log_path[256];
static _Thread_local char last_error[2048];
/* What the harness hands out as the core's dispatch record: any unique address. */
static const char dispatch_tag[] = "zh dispatch";

static void zh_log(sx_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void zh_log(sx_log_level level, const char *fmt, ...)
{
    if (!getenv("ZH_VERBOSE"))
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[adapter %u] ", (unsigned)level);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static sx_result zh_error(sx_result code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static sx_result zh_error(sx_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    return code;
}

static const char *zh_getenv(const char *name)
{
    return getenv(name);
}

const sxa_services zh_services = {
    .size = sizeof(sxa_services),
    .abi_version = SXA_ABI_VERSION,
    .dispatch = (const struct sxa_dispatch *)dispatch_tag,
    .log = zh_log,
    .error = zh_error,
    .getenv = zh_getenv,
};

const char *zh_last_error(void)
{
    return last_error;
}

const char *zh_name(sx_result r)
{
    static const char *const names[] = {
        "SX_SUCCESS", "SX_ERROR_UNINITIALIZED", "SX_ERROR_INVALID_NULL_POINTER",
        "SX_ERROR_INVALID_NULL_HANDLE", "SX_ERROR_INVALID_HANDLE", "SX_ERROR_INVALID_VALUE",
        "SX_ERROR_INVALID_SIZE", "SX_ERROR_INVALID_ENUMERATION", "SX_ERROR_OUT_OF_HOST_MEMORY",
        "SX_ERROR_OUT_OF_DEVICE_MEMORY", "SX_ERROR_OUT_OF_RESOURCES", "SX_ERROR_UNSUPPORTED_FEATURE",
        "SX_ERROR_UNSUPPORTED_VERSION", "SX_ERROR_DEVICE_NOT_FOUND", "SX_ERROR_INVALID_DEVICE",
        "SX_ERROR_INVALID_BINARY", "SX_ERROR_INVALID_PROGRAM", "SX_ERROR_BUILD_FAILURE",
        "SX_ERROR_LINK_FAILURE", "SX_ERROR_INVALID_KERNEL_NAME", "SX_ERROR_INVALID_KERNEL_ARGS",
        "SX_ERROR_INVALID_ARGUMENT_INDEX", "SX_ERROR_INVALID_ARGUMENT_SIZE",
        "SX_ERROR_INVALID_WORK_DIMENSION", "SX_ERROR_INVALID_WORK_GROUP_SIZE",
        "SX_ERROR_KERNEL_NOT_SUPPORTED", "SX_ERROR_INVALID_GLOBAL_NAME", "SX_ERROR_HANDLE_IN_USE",
        "SX_ERROR_DEVICE_LOST", "SX_ERROR_ADAPTER_SPECIFIC", "SX_ERROR_ACCESS_DENIED", "SX_ERROR_IO",
        "SX_ERROR_INVALID_OPERATION", "SX_ERROR_EVENT_FAILED", "SX_ERROR_INVALID_EVENT_WAIT_LIST",
        "SX_ERROR_UNKNOWN"};
    return r >= 0 && (size_t)r < sizeof(names) / sizeof(names[0]) ? names[r] : "SX_<unknown>";
}

const char *zh_path(const char *rel)
{
    static char buf[4][4096];
    static int i;
    const char *b = getenv("SX_TEST_BUILDDIR");
    char *out = buf[i++ % 4];
    snprintf(out, sizeof(buf[0]), "%s/%s", b ? b : ".", rel);
    return out;
}

#define ADAPTER_SO "adapters/level_zero/.libs/sx-adapter-level_zero.so"
#define DRIVER_SO "tests/level_zero/.libs/libze_sx_test_driver.so"

int zh_prerequisites(void)
{
    void *h = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        printf("SKIP: libze_loader.so.1 not loadable (%s): install libze1\n", dlerror());
        return 77;
    }
    dlclose(h);
    if (access(zh_path(ADAPTER_SO), R_OK) != 0 || access(zh_path(DRIVER_SO), R_OK) != 0) {
        printf("SKIP: %s or %s not built (is SX_TEST_BUILDDIR set?)\n", zh_path(ADAPTER_SO),
               zh_path(DRIVER_SO));
        return 77;
    }
    return 0;
}

void zh_use_test_driver(void)
{
    setenv("ZE_ENABLE_ALT_DRIVERS", zh_path(DRIVER_SO), 1);
    snprintf(log_path, sizeof(log_path), "/tmp/ze-test-driver-log.XXXXXX");
    int fd = mkstemp(log_path);
    ck_assert_msg(fd >= 0, "mkstemp for the call log");
    close(fd);
    setenv("ZE_TEST_DRIVER_LOG", log_path, 1);
    unsetenv("ZE_TEST_DRIVER_FAIL");
    unsetenv("ZE_TEST_DRIVER_MODULE_FLAGS");
    unsetenv("SX_ZE_LOADER");
}

void zh_load_tables(void)
{
    adapter_lib = dlopen(zh_path(ADAPTER_SO), RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(adapter_lib != NULL, "dlopen adapter: %s", dlerror());
    sxa_get_proc_table_fn get = (sxa_get_proc_table_fn)dlsym(adapter_lib, SXA_ENTRY_SYMBOL);
    ck_assert_msg(get != NULL, "no %s in the adapter", SXA_ENTRY_SYMBOL);
#define T(id, field)                                                                  \
    ZT.field.size = sizeof(ZT.field);                                                 \
    ZK_OK(get(SXA_ABI_VERSION, id, &ZT.field));
    T(SXA_TABLE_ADAPTER, adapter) T(SXA_TABLE_PLATFORM, platform) T(SXA_TABLE_DEVICE, device)
    T(SXA_TABLE_CONTEXT, context) T(SXA_TABLE_QUEUE, queue) T(SXA_TABLE_USM, usm)
    T(SXA_TABLE_PROGRAM, program) T(SXA_TABLE_KERNEL, kernel) T(SXA_TABLE_ENQUEUE, enqueue)
    T(SXA_TABLE_EVENT, event)
#undef T
}

void zh_setup(void)
{
    zh_use_test_driver();
    zh_load_tables();
    ZK_OK(ZT.adapter.init(&zh_services, &zh_adapter));
    uint32_t n = 0;
    ZK_OK(ZT.platform.get(zh_adapter, 1, &zh_platform, &n));
    ck_assert_msg(n == 1, "TEST DRIVER platforms: %u", n);
    ZK_OK(ZT.device.get(zh_platform, SX_DEVICE_TYPE_ALL, 1, &zh_device, &n));
    ck_assert_msg(n == 1, "TEST DRIVER devices: %u", n);
    ZK_OK(ZT.context.create(1, &zh_device, &zh_context));
    ZK_OK(ZT.queue.create(zh_context, zh_device, SXA_QUEUE_IN_ORDER, &zh_queue));
}

void zh_teardown(void)
{
    if (zh_queue) {
        ZK_OK(ZT.queue.finish(zh_queue));
        ZK_OK(ZT.queue.release(zh_queue));
    }
    if (zh_context)
        ZK_OK(ZT.context.release(zh_context));
    if (zh_adapter)
        ZK_OK(ZT.adapter.fini(zh_adapter));
    zh_queue = NULL;
    zh_context = NULL;
    zh_adapter = NULL;
    if (adapter_lib)
        dlclose(adapter_lib);
    adapter_lib = NULL;
    if (log_path[0])
        unlink(log_path);
    log_path[0] = '\0';
}

int zh_log_count(const char *text)
{
    FILE *f = fopen(log_path, "r");
    if (!f)
        return 0;
    char line[2048];
    int n = 0;
    while (fgets(line, sizeof(line), f))
        if (strstr(line, text))
            n++;
    fclose(f);
    return n;
}

unsigned char *zh_read_kernel(const char *name, size_t *size)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "tests/level_zero/kernels/%s", name);
    FILE *f = fopen(zh_path(rel), "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = n > 0 ? malloc((size_t)n) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *size = buf ? (size_t)n : 0;
    return buf;
}
