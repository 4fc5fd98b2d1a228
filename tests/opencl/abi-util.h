/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* abi-util.h: drive the OpenCL adapter module straight through the adapter ABI (no core). */
#ifndef SXO_TEST_ABI_UTIL_H
#define SXO_TEST_ABI_UTIL_H

#include <check.h>
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sycl-ext/adapter.h>

/* The core's services, played by the test: errors land in last_error. */
static _Thread_local char last_error[8192];
static int verbose;

static void t_log(sx_log_level level, const char *fmt, ...)
{
    if (!verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[log %u] ", level);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static sx_result t_error(sx_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    if (verbose)
        fprintf(stderr, "[error %d] %s\n", code, last_error);
    return code;
}

static const char *t_getenv(const char *name) { return getenv(name); }

static const struct sxa_dispatch *const t_dispatch = (const struct sxa_dispatch *)&t_dispatch;
static const sxa_services services = {
    .size = sizeof(sxa_services),
    .abi_version = SXA_ABI_VERSION,
    .dispatch = (const struct sxa_dispatch *)&t_dispatch,
    .log = t_log,
    .error = t_error,
    .getenv = t_getenv,
};

/* The adapter's tables. */
static sxa_adapter_table T_ad = {sizeof T_ad};
static sxa_platform_table T_pl = {sizeof T_pl};
static sxa_device_table T_dev = {sizeof T_dev};
static sxa_context_table T_ctx = {sizeof T_ctx};
static sxa_queue_table T_q = {sizeof T_q};
static sxa_usm_table T_usm = {sizeof T_usm};
static sxa_program_table T_prog = {sizeof T_prog};
static sxa_kernel_table T_k = {sizeof T_k};
static sxa_enqueue_table T_enq = {sizeof T_enq};
static sxa_event_table T_ev = {sizeof T_ev};

static void *module;
static sxa_get_proc_table_fn get_proc_table;

static const char *module_path(void)
{
    static char path[4096];
    const char *p = getenv("SXO_TEST_ADAPTER");
    if (p)
        return p;
    const char *b = getenv("SX_TEST_BUILDDIR");
    snprintf(path, sizeof path, "%s/adapters/opencl/.libs/sx-adapter-opencl.so", b ? b : ".");
    return path;
}

/* Load the module and fill every table (once per process: before forking). */
static void load_module(void)
{
    verbose = getenv("SXO_TEST_VERBOSE") != NULL;
    module = dlopen(module_path(), RTLD_NOW | RTLD_LOCAL);
    if (!module) {
        fprintf(stderr, "cannot load %s: %s\n", module_path(), dlerror());
        exit(99);
    }
    get_proc_table = (sxa_get_proc_table_fn)dlsym(module, SXA_ENTRY_SYMBOL);
    if (!get_proc_table) {
        fprintf(stderr, "%s exports no " SXA_ENTRY_SYMBOL "\n", module_path());
        exit(99);
    }
    struct {
        sxa_table_id id;
        void *t;
    } tables[] = {{SXA_TABLE_ADAPTER, &T_ad}, {SXA_TABLE_PLATFORM, &T_pl},
                  {SXA_TABLE_DEVICE, &T_dev}, {SXA_TABLE_CONTEXT, &T_ctx},
                  {SXA_TABLE_QUEUE, &T_q},     {SXA_TABLE_USM, &T_usm},
                  {SXA_TABLE_PROGRAM, &T_prog}, {SXA_TABLE_KERNEL, &T_k},
                  {SXA_TABLE_ENQUEUE, &T_enq}, {SXA_TABLE_EVENT, &T_ev}};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
        if (get_proc_table(SXA_ABI_VERSION, tables[i].id, tables[i].t) != SX_SUCCESS) {
            fprintf(stderr, "table %u refused\n", tables[i].id);
            exit(99);
        }
}

/* tests/opencl/cl-hold-interposer.c, made the adapter's loader
 * (SX_OPENCL_LOADER; the adapter's dlopen finds this same instance). */
static void *load_interposer(void)
{
    static char shim[4096];
    const char *b = getenv("SX_TEST_BUILDDIR");
    snprintf(shim, sizeof shim, "%s/tests/opencl/.libs/cl-hold-interposer.so", b ? b : ".");
    void *lib = dlopen(shim, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "cannot load the test interposer %s: %s\n", shim, dlerror());
        return NULL;
    }
    setenv("SX_OPENCL_LOADER", shim, 1);
    return lib;
}

#define CK_SX(expr)                                                                  \
    do {                                                                             \
        sx_result ck_rc_ = (expr);                                                   \
        ck_assert_msg(ck_rc_ == SX_SUCCESS, "%s -> %d: %s", #expr, ck_rc_, last_error); \
    } while (0)

#define CK_SX_IS(expr, want)                                                         \
    do {                                                                             \
        sx_result ck_rc_ = (expr);                                                   \
        ck_assert_msg(ck_rc_ == (want), "%s -> %d, expected %d (%s): %s", #expr, ck_rc_, \
                      (int)(want), #want, last_error);                               \
    } while (0)

/* The adapter, its first device, a context and a queue on it. */
typedef struct env {
    sxa_adapter adapter;
    sxa_platform platform;
    sxa_device device;
    sxa_context context;
    sxa_queue queue;
    sx_image_kind kind;      /* what the kernels are fed as */
    sx_aspect_set aspects;
    char name[256];
} env;

static env E;

/* Where make check put the kernels: tests/kernels/<base>.spv / .bc. NULL
 * with last_error set when absent. */
static void *read_kernel_raw(const char *base, sx_image_kind kind, size_t *size)
{
    char path[4096];
    const char *b = getenv("SX_TEST_BUILDDIR");
    snprintf(path, sizeof path, "%s/tests/kernels/%s.%s", b ? b : ".", base,
             kind == SX_IMAGE_KIND_SPIRV ? "spv" : "bc");
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(last_error, sizeof last_error, "cannot open %s", path);
        return NULL;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    void *data = n > 0 ? malloc((size_t)n) : NULL;
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
        snprintf(last_error, sizeof last_error, "cannot read %s", path);
        free(data);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

static __attribute__((unused)) void *read_kernel(const char *base, sx_image_kind kind, size_t *size)
{
    void *data = read_kernel_raw(base, kind, size);
    ck_assert_msg(data != NULL, "%s", last_error);
    return data;
}

#define TRY(expr)                                                                   \
    do {                                                                            \
        sx_result try_rc_ = (expr);                                                 \
        if (try_rc_ != SX_SUCCESS)                                                  \
            return try_rc_;                                                         \
    } while (0)

/* Init the adapter and pick its first device (inside the forked test). */
static sx_result env_up_raw(uint32_t queue_flags)
{
    memset(&E, 0, sizeof E);
    TRY(T_ad.init(&services, &E.adapter));
    uint32_t n = 0;
    TRY(T_pl.get(E.adapter, 0, NULL, &n));
    if (n == 0)
        return SX_ERROR_DEVICE_NOT_FOUND;
    TRY(T_pl.get(E.adapter, 1, &E.platform, NULL));
    TRY(T_dev.get(E.platform, SX_DEVICE_TYPE_ALL, 1, &E.device, &n));
    if (n == 0)
        return SX_ERROR_DEVICE_NOT_FOUND;
    sx_image_kind kinds[8];
    size_t ks = 0;
    TRY(T_dev.get_info(E.device, SX_DEVICE_INFO_IMAGE_KINDS, sizeof kinds, kinds, &ks));
    if (ks < sizeof(sx_image_kind))
        return SX_ERROR_KERNEL_NOT_SUPPORTED;
    E.kind = kinds[0];
    TRY(T_dev.get_info(E.device, SX_DEVICE_INFO_ASPECTS, sizeof E.aspects, &E.aspects, NULL));
    TRY(T_dev.get_info(E.device, SX_DEVICE_INFO_NAME, sizeof E.name, E.name, NULL));
    TRY(T_ctx.create(1, &E.device, &E.context));
    TRY(T_q.create(E.context, E.device, queue_flags, &E.queue));
    return SX_SUCCESS;
}

static void env_up(uint32_t queue_flags)
{
    CK_SX(env_up_raw(queue_flags));
}

static void env_down_raw(void)
{
    if (E.queue) {
        T_q.finish(E.queue);
        T_q.release(E.queue);
    }
    if (E.context)
        T_ctx.release(E.context);
    if (E.adapter)
        T_ad.fini(E.adapter);
    memset(&E, 0, sizeof E);
}

static void env_down(void)
{
    if (E.queue) {
        CK_SX(T_q.finish(E.queue));
        CK_SX(T_q.release(E.queue));
    }
    if (E.context)
        CK_SX(T_ctx.release(E.context));
    if (E.adapter)
        CK_SX(T_ad.fini(E.adapter));
    memset(&E, 0, sizeof E);
}

/* A built program of tests/kernels/<base>. */
static sx_result build_program_raw(const char *base, sxa_program *out)
{
    size_t size;
    void *data = read_kernel_raw(base, E.kind, &size);
    if (!data)
        return SX_ERROR_IO;
    sx_result rc = T_prog.create(E.context, E.device, E.kind, data, size, NULL, out);
    free(data);
    if (rc == SX_SUCCESS && (rc = T_prog.build(*out, NULL)) != SX_SUCCESS) {
        T_prog.release(*out);
        *out = NULL;
    }
    return rc;
}

static sxa_program build_program(const char *base)
{
    sxa_program p = NULL;
    CK_SX(build_program_raw(base, &p));
    return p;
}

/* What the first device of the platform can do, learnt in a child process
 * so the test's parent never starts the driver (its threads would not
 * survive Check's fork). */
typedef struct probe {
    int platforms;
    char status[256];
    char device[256];
    sx_aspect_set aspects;
    int compile_ok;          /* clCompileProgram works on our images */
    int globals_ok;          /* device-global read/write works */
    char why[1024];          /* why not, when not */
} probe;

static void probe_child(probe *pr, int deep)
{
    sxa_adapter a;
    if (T_ad.init(&services, &a) != SX_SUCCESS) {
        snprintf(pr->status, sizeof pr->status, "init failed: %.200s", last_error);
        return;
    }
    T_ad.get_info(a, SXA_ADAPTER_INFO_STATUS, sizeof pr->status, pr->status, NULL);
    uint32_t n = 0;
    T_pl.get(a, 0, NULL, &n);
    sxa_platform p;
    sxa_device d;
    uint32_t nd = 0;
    if (n && T_pl.get(a, 1, &p, NULL) == SX_SUCCESS &&
        T_dev.get(p, SX_DEVICE_TYPE_ALL, 1, &d, &nd) == SX_SUCCESS && nd) {
        pr->platforms = (int)n;
        T_dev.get_info(d, SX_DEVICE_INFO_NAME, sizeof pr->device, pr->device, NULL);
        T_dev.get_info(d, SX_DEVICE_INFO_ASPECTS, sizeof pr->aspects, &pr->aspects, NULL);
    }
    T_ad.fini(a);
    if (!deep || !pr->platforms)
        return;
    /* Compile and device globals: try them for real. */
    if (env_up_raw(0) != SX_SUCCESS) {
        snprintf(pr->why, sizeof pr->why, "setup: %.900s", last_error);
        pr->platforms = 0;
        return;
    }
    size_t size;
    void *data = read_kernel_raw("ocl-link-b", E.kind, &size);
    sxa_program prog = NULL;
    if (data && T_prog.create(E.context, E.device, E.kind, data, size, NULL, &prog) == SX_SUCCESS) {
        sx_result rc = T_prog.compile(prog, NULL);
        pr->compile_ok = rc == SX_SUCCESS;
        if (rc != SX_SUCCESS)
            snprintf(pr->why, sizeof pr->why, "compile: %.900s", last_error);
        T_prog.release(prog);
        prog = NULL;
    }
    free(data);
    int v = 0;
    sx_result rc = build_program_raw("ocl-globals", &prog);
    if (rc == SX_SUCCESS)
        rc = T_enq.global_write(E.queue, prog, "ocl_dg_counter", 1, sizeof v, 0, &v, 0, NULL,
                                NULL);
    pr->globals_ok = rc == SX_SUCCESS;
    if (rc != SX_SUCCESS) {
        size_t used = strlen(pr->why);
        snprintf(pr->why + used, sizeof pr->why - used, "%sdevice globals: %.900s",
                 used ? "; " : "", last_error);
    }
    if (prog)
        T_prog.release(prog);
    env_down_raw();
}

static probe probe_driver(int deep)
{
    probe pr = {0};
    int fd[2];
    if (pipe(fd) != 0)
        exit(99);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        probe_child(&pr, deep);
        ssize_t w = write(fd[1], &pr, sizeof pr);
        _exit(w == (ssize_t)sizeof pr ? 0 : 1);
    }
    close(fd[1]);
    ssize_t r = read(fd[0], &pr, sizeof pr);
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (r != (ssize_t)sizeof pr || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        memset(&pr, 0, sizeof pr);
        snprintf(pr.status, sizeof pr.status, "the probe process failed (status 0x%x)", status);
    }
    return pr;
}

#define HAS_USM(aspects) (((aspects) & SX_ASPECT_BIT(SX_ASPECT_USM_DEVICE_ALLOCATIONS)) != 0)

#endif /* SXO_TEST_ABI_UTIL_H */
