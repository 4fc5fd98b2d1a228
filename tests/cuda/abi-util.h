/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* abi-util.h: load an adapter module through the ABI alone (no core), for the CUDA tests and bench. */
#ifndef SXC_ABI_UTIL_H
#define SXC_ABI_UTIL_H

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/adapter.h>

/* Every table of one adapter. */
typedef struct abi_tables {
    void *handle;
    sxa_get_proc_table_fn get;
    sxa_adapter_table adapter;
    sxa_platform_table platform;
    sxa_device_table device;
    sxa_context_table context;
    sxa_queue_table queue;
    sxa_usm_table usm;
    sxa_program_table program;
    sxa_kernel_table kernel;
    sxa_enqueue_table enqueue;
    sxa_event_table event;
    sxa_adapter ad;
} abi_tables;

static _Thread_local char abi_last_error[65536];
static const char abi_dispatch_tag[] = "cuda-test-dispatch";

static void abi_log(sx_log_level level, const char *fmt, ...)
{
    static int verbose = -1;
    if (verbose < 0)
        verbose = getenv("SXC_TEST_VERBOSE") != NULL;
    if (!verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[log %u] ", level);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static sx_result abi_error(sx_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(abi_last_error, sizeof(abi_last_error), fmt, ap);
    va_end(ap);
    return code;
}

static const char *abi_getenv(const char *name)
{
    return getenv(name);
}

static const sxa_services abi_services = {
    .size = sizeof(sxa_services),
    .abi_version = SXA_ABI_VERSION,
    .dispatch = (const struct sxa_dispatch *)abi_dispatch_tag,
    .log = abi_log,
    .error = abi_error,
    .getenv = abi_getenv,
};

/* The module: $SXC_TEST_ADAPTER, else the build tree's. */
static const char *abi_module_path(char *buf, size_t n)
{
    const char *p = getenv("SXC_TEST_ADAPTER");
    if (p && *p)
        return p;
    const char *b = getenv("SX_TEST_BUILDDIR");
    snprintf(buf, n, "%s/adapters/cuda/.libs/sx-adapter-cuda.so", b && *b ? b : ".");
    return buf;
}

#define ABI_TABLE(t, id, field)                                                    \
    do {                                                                           \
        (t)->field.size = sizeof((t)->field);                                      \
        if ((t)->get(SXA_ABI_VERSION, id, &(t)->field) != SX_SUCCESS) {            \
            fprintf(stderr, "table %d refused\n", (int)(id));                     \
            return -1;                                                             \
        }                                                                          \
    } while (0)

/* 0 on success; -1 (with a message) when the module cannot be used. */
__attribute__((unused)) static int abi_load(abi_tables *t)
{
    char buf[4096];
    const char *path = abi_module_path(buf, sizeof(buf));
    memset(t, 0, sizeof(*t));
    t->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!t->handle) {
        fprintf(stderr, "dlopen(%s): %s\n", path, dlerror());
        return -1;
    }
    t->get = (sxa_get_proc_table_fn)dlsym(t->handle, SXA_ENTRY_SYMBOL);
    if (!t->get) {
        fprintf(stderr, "%s exports no %s\n", path, SXA_ENTRY_SYMBOL);
        return -1;
    }
    ABI_TABLE(t, SXA_TABLE_ADAPTER, adapter);
    ABI_TABLE(t, SXA_TABLE_PLATFORM, platform);
    ABI_TABLE(t, SXA_TABLE_DEVICE, device);
    ABI_TABLE(t, SXA_TABLE_CONTEXT, context);
    ABI_TABLE(t, SXA_TABLE_QUEUE, queue);
    ABI_TABLE(t, SXA_TABLE_USM, usm);
    ABI_TABLE(t, SXA_TABLE_PROGRAM, program);
    ABI_TABLE(t, SXA_TABLE_KERNEL, kernel);
    ABI_TABLE(t, SXA_TABLE_ENQUEUE, enqueue);
    ABI_TABLE(t, SXA_TABLE_EVENT, event);
    return 0;
}

/* Read a whole file; NULL (with a message) on failure. */
__attribute__((unused)) static void *abi_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = n > 0 ? malloc((size_t)n) : NULL;
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        free(p);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return p;
}

/* Where the nvcc outputs are: $SXC_TEST_DATA, else the build tree's tests/cuda. */
__attribute__((unused)) static const char *abi_data_path(const char *name, char *buf, size_t n)
{
    const char *d = getenv("SXC_TEST_DATA");
    if (d && *d) {
        snprintf(buf, n, "%s/%s", d, name);
    } else {
        const char *b = getenv("SX_TEST_BUILDDIR");
        snprintf(buf, n, "%s/tests/cuda/%s", b && *b ? b : ".", name);
    }
    return buf;
}

#endif /* SXC_ABI_UTIL_H */
