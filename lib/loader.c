/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* loader.c: adapter discovery, dlopen, the version handshake, table
 * validation (mandatory entries, core stubs for optional ones), tracing.
 *
 * sx_init only finds the adapters (names and files); each is loaded and
 * initialised when a query first needs its backend (sxi_adapters_need):
 * a program that uses only the native device never pays for starting
 * PoCL or CUDA. Backends come from the file names (sx-adapter-cuda.so is
 * the cuda backend); an adapter of another name is loaded by any query.
 * sx_adapter_get loads them all, so every status can be shown. */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sx-internal.h"
#include "sx-paths.h" /* SX_ADAPTER_DIR, the installed adapter directory */
#include "../adapters/native/native.h"

/* Found at sx_init, fixed until sx_fini; loaded one by one on demand. */
static struct sx_adapter_s **adapters;
static uint32_t num_adapters;
static struct adapter_meta {
    sx_backend backend;   /* from the file name; UNKNOWN: any query loads it */
    bool builtin;
    _Atomic bool loaded;  /* set (release) once its platforms and devices are recorded */
} *meta;
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;

/* The devices of the loaded adapters, in adapter order. A load publishes
 * a new list; older ones stay until sx_fini, since readers may hold them. */
typedef struct device_list {
    uint32_t n;
    struct device_list *older;
    struct sx_device_s *d[];
} device_list;
static _Atomic(device_list *) devices;

uint32_t sxi_num_adapters(void) { return num_adapters; }
struct sx_adapter_s **sxi_adapters(void) { return adapters; }

struct sx_device_s **sxi_devices_snapshot(uint32_t *n)
{
    device_list *l = atomic_load_explicit(&devices, memory_order_acquire);
    *n = l ? l->n : 0;
    return l ? l->d : NULL;
}

bool sxi_adapter_loaded(uint32_t i)
{
    return i < num_adapters && atomic_load_explicit(&meta[i].loaded, memory_order_acquire);
}

static sx_backend backend_of_name(const char *name)
{
    static const struct { const char *name; sx_backend b; } map[] = {
        {"native", SX_BACKEND_NATIVE}, {"opencl", SX_BACKEND_OPENCL},
        {"cuda", SX_BACKEND_CUDA}, {"level_zero", SX_BACKEND_LEVEL_ZERO},
    };
    for (size_t i = 0; i < SXI_ARRAY_SIZE(map); i++)
        if (strcmp(name, map[i].name) == 0)
            return map[i].b;
    return SX_BACKEND_UNKNOWN;
}

bool sxi_adapter_wanted(uint32_t i, uint32_t backends)
{
    sx_backend b = meta[i].backend;
    return b == SX_BACKEND_UNKNOWN || (b < 32 && (backends & (1u << b)));
}


/* ---- core stubs for optional entries ---- */
static sx_result unsupported(const char *entry)
{
    return sxi_error(SX_ERROR_UNSUPPORTED_FEATURE, "the adapter does not implement %s", entry);
}
static sx_result stub_queue_flush(sxa_queue q) { return unsupported("queue.flush"); }
static sx_result stub_program_compile(sxa_program p, const char *o) { return unsupported("program.compile"); }
static sx_result stub_program_link(sxa_context c, sxa_device d, uint32_t n, const sxa_program *p,
                                   const char *o, sxa_program *out) { return unsupported("program.link"); }
static sx_result stub_program_get_binary(sxa_program p, sx_image_kind *k, size_t s, void *v, size_t *r)
{ return unsupported("program.get_binary"); }
static sx_result stub_program_get_global(sxa_program p, const char *n, size_t *s, void **ptr)
{ return unsupported("program.get_global"); }
static sx_result stub_kernel_get_info(sxa_kernel k, sxa_kernel_info p, size_t s, void *v, size_t *r)
{ return unsupported("kernel.get_info"); }
static sx_result stub_usm_fill(sxa_queue q, void *p, size_t ps, const void *pat, size_t s, uint32_t n,
                               const sxa_event *w, sxa_event *e) { return unsupported("enqueue.usm_fill"); }
static sx_result stub_global_write(sxa_queue q, sxa_program p, const char *n, int b, size_t c, size_t o,
                                   const void *src, uint32_t ne, const sxa_event *w, sxa_event *e)
{ return unsupported("enqueue.global_write"); }
static sx_result stub_global_read(sxa_queue q, sxa_program p, const char *n, int b, size_t c, size_t o,
                                  void *dst, uint32_t ne, const sxa_event *w, sxa_event *e)
{ return unsupported("enqueue.global_read"); }
static sx_result stub_barrier(sxa_queue q, uint32_t n, const sxa_event *w, sxa_event *e)
{ return unsupported("enqueue.barrier"); }
static sx_result stub_get_profiling(sxa_event e, sxa_profiling_info p, uint64_t *v)
{ return unsupported("event.get_profiling"); }
static sx_result stub_instance_create(sxa_context c, sxa_device d, size_t s, void **i)
{ return unsupported("global.instance_create"); }
static sx_result stub_instance_release(sxa_context c, void *i) { return unsupported("global.instance_release"); }
static sx_result stub_instance_copy(sxa_queue q, void *i, int w, size_t o, size_t c, void *h, int b, uint32_t n,
                                    const sxa_event *wl, sxa_event *e) { return unsupported("global.instance_copy"); }
static sx_result stub_bind(sxa_queue q, sxa_program p, const char *n, void *i) { return unsupported("global.bind"); }

#define ENTRY(tbl, fn, stub) \
    {offsetof(struct sxa_dispatch, tbl) + offsetof(sxa_##tbl##_table, fn), #tbl "." #fn, (void (*)(void))(stub)}
static const struct {
    size_t offset;
    const char *name;
    void (*stub)(void); /* NULL: mandatory */
} entries[] = {
    ENTRY(adapter, init, NULL), ENTRY(adapter, fini, NULL), ENTRY(adapter, get_info, NULL),
    ENTRY(platform, get, NULL), ENTRY(platform, get_info, NULL),
    ENTRY(device, get, NULL), ENTRY(device, get_info, NULL),
    ENTRY(context, create, NULL), ENTRY(context, release, NULL),
    ENTRY(queue, create, NULL), ENTRY(queue, release, NULL), ENTRY(queue, finish, NULL),
    ENTRY(queue, flush, stub_queue_flush),
    ENTRY(usm, alloc, NULL), ENTRY(usm, free, NULL),
    ENTRY(program, create, NULL), ENTRY(program, build, NULL), ENTRY(program, release, NULL),
    ENTRY(program, compile, stub_program_compile), ENTRY(program, link, stub_program_link),
    ENTRY(program, get_binary, stub_program_get_binary), ENTRY(program, get_global, stub_program_get_global),
    ENTRY(kernel, create, NULL), ENTRY(kernel, release, NULL), ENTRY(kernel, get_info, stub_kernel_get_info),
    ENTRY(enqueue, kernel_launch, NULL), ENTRY(enqueue, usm_memcpy, NULL),
    ENTRY(enqueue, usm_fill, stub_usm_fill), ENTRY(enqueue, global_write, stub_global_write),
    ENTRY(enqueue, global_read, stub_global_read), ENTRY(enqueue, barrier, stub_barrier),
    ENTRY(event, wait, NULL), ENTRY(event, get_status, NULL), ENTRY(event, release, NULL),
    ENTRY(event, get_profiling, stub_get_profiling),
    ENTRY(global, instance_create, stub_instance_create), ENTRY(global, instance_release, stub_instance_release),
    ENTRY(global, instance_copy, stub_instance_copy), ENTRY(global, bind, stub_bind),
};

static const struct {
    sxa_table_id id;
    size_t offset, size;
    const char *name;
} tables[] = {
#define TABLE(id, f) {id, offsetof(struct sxa_dispatch, f), sizeof(sxa_##f##_table), #f}
    TABLE(SXA_TABLE_ADAPTER, adapter), TABLE(SXA_TABLE_PLATFORM, platform),
    TABLE(SXA_TABLE_DEVICE, device), TABLE(SXA_TABLE_CONTEXT, context),
    TABLE(SXA_TABLE_QUEUE, queue), TABLE(SXA_TABLE_USM, usm),
    TABLE(SXA_TABLE_PROGRAM, program), TABLE(SXA_TABLE_KERNEL, kernel),
    TABLE(SXA_TABLE_ENQUEUE, enqueue), TABLE(SXA_TABLE_EVENT, event), TABLE(SXA_TABLE_GLOBAL, global),
#undef TABLE
};

/* ---- services handed to adapters ---- */
static void svc_log(sx_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sxi_vlog(level, fmt, ap);
    va_end(ap);
}
static sx_result svc_error(sx_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sxi_verror(code, fmt, ap);
    va_end(ap);
    return code;
}

sx_result sxi_trace_result(struct sx_adapter_s *a, const char *call, sx_result r, uint64_t t0)
{
    char line[512];
    double us = (double)(sxi_now_ns() - t0) / 1000.0;
    if (r == SX_SUCCESS)
        snprintf(line, sizeof(line), "trace %s %s -> SX_SUCCESS (%.1f us)", a->name, call, us);
    else
        snprintf(line, sizeof(line), "trace %s %s -> %s (%.1f us): %s", a->name, call, sx_result_name(r), us,
                 sx_last_error());
    sxi_log_emit(SX_LOG_INFO, line);
    return r;
}

/* One argument's text: "name=value", or the value alone for a literal
 * (0, NULL, "x"). */
static size_t put_arg(char *out, size_t size, const char *name, size_t name_len, const sxi_targ *v)
{
    if ((name_len && name[0] >= '0' && name[0] <= '9') || (name_len == 4 && !strncmp(name, "NULL", 4)) ||
        (name_len && name[0] == '"'))
        name_len = 0;
    int w = name_len ? snprintf(out, size, "%.*s=", (int)name_len, name) : 0;
    size_t n = w < 0 ? 0 : (size_t)w < size ? (size_t)w : size ? size - 1 : 0;
    out += n;
    size -= n;
    switch (v->kind) {
    case 0: w = snprintf(out, size, "%llu", v->v.u); break;
    case 1: w = snprintf(out, size, "%lld", v->v.i); break;
    case 3: w = v->v.s ? snprintf(out, size, "\"%.64s\"", v->v.s) : snprintf(out, size, "NULL"); break;
    default: w = v->v.p ? snprintf(out, size, "%p", v->v.p) : snprintf(out, size, "NULL");
    }
    return n + (w < 0 ? 0 : (size_t)w < size ? (size_t)w : size ? size - 1 : 0);
}

sx_result sxi_trace_call(struct sx_adapter_s *a, const char *call, const char *names, const sxi_targ *v, uint32_t n,
                         sx_result r, uint64_t t0)
{
    char line[1536];
    double us = (double)(sxi_now_ns() - t0) / 1000.0;
    size_t len = (size_t)snprintf(line, 256, "trace %s %s(", a->name, call);
    /* The source text of the arguments, split at the commas outside
     * brackets and string literals. */
    const char *p = names;
    for (uint32_t i = 0; i < n && len + 8 < sizeof(line) - 320; i++) {
        while (*p == ' ')
            p++;
        const char *b = p;
        int depth = 0;
        bool quoted = false;
        for (; *p && (depth || quoted || *p != ','); p++) {
            if (quoted) {
                if (*p == '\\' && p[1])
                    p++;
                else if (*p == '"')
                    quoted = false;
            } else if (*p == '"')
                quoted = true;
            else if (*p == '(' || *p == '[' || *p == '{')
                depth++;
            else if (*p == ')' || *p == ']' || *p == '}')
                depth--;
        }
        size_t nl = (size_t)(p - b);
        while (nl && b[nl - 1] == ' ')
            nl--;
        if (i)
            len += (size_t)snprintf(line + len, sizeof(line) - len, ", ");
        len += put_arg(line + len, sizeof(line) - 320 - len, b, nl > 48 ? 48 : nl, &v[i]);
        if (*p == ',')
            p++;
    }
    if (r == SX_SUCCESS)
        snprintf(line + len, sizeof(line) - len, ") -> SX_SUCCESS (%.1f us)", us);
    else
        snprintf(line + len, sizeof(line) - len, ") -> %s (%.1f us): %.200s", sx_result_name(r), us, sx_last_error());
    sxi_log_emit(SX_LOG_INFO, line);
    return r;
}

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void set_status(struct sx_adapter_s *a, sx_result r, const char *fmt, ...) SXI_PRINTF(3, 4);
static void set_status(struct sx_adapter_s *a, sx_result r, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    a->status = r;
    free(a->status_text);
    a->status_text = strdup(buf);
    sx_log_level lvl = r == SX_SUCCESS ? SX_LOG_INFO : SX_LOG_WARN;
    SXI_LOG(lvl, "adapter %s (%s): %s", a->name, a->path, buf);
}

/* Ask the entry point for every table, check and complete them, init. */
static void adapter_open(struct sx_adapter_s *a, sxa_get_proc_table_fn get)
{
    struct sxa_dispatch *d = &a->dispatch;
    memset(d, 0, sizeof(*d));
    d->owner = a;
    for (size_t i = 0; i < SXI_ARRAY_SIZE(tables); i++) {
        void *t = (char *)d + tables[i].offset;
        *(uint32_t *)t = (uint32_t)tables[i].size;
        sx_result r = get(SXA_ABI_VERSION, tables[i].id, t);
        if (r == SX_ERROR_UNSUPPORTED_VERSION) {
            set_status(a, r, "speaks no ABI %u.x (the core's is %u.%u): skipped", SXA_ABI_VERSION_MAJOR,
                       SXA_ABI_VERSION_MAJOR, SXA_ABI_VERSION_MINOR);
            return;
        }
        if (r == SX_ERROR_INVALID_ENUMERATION && tables[i].id != SXA_TABLE_ADAPTER) {
            memset((char *)t + sizeof(uint32_t), 0, tables[i].size - sizeof(uint32_t));
            continue;
        }
        if (r != SX_SUCCESS) {
            set_status(a, r, "%s(%s table) failed: %s", SXA_ENTRY_SYMBOL, tables[i].name, sx_result_name(r));
            return;
        }
        *(uint32_t *)t = (uint32_t)tables[i].size;
    }
    for (size_t i = 0; i < SXI_ARRAY_SIZE(entries); i++) {
        void (**slot)(void) = (void (**)(void))((char *)d + entries[i].offset);
        if (*slot)
            continue;
        if (!entries[i].stub) {
            set_status(a, SX_ERROR_INVALID_BINARY, "mandatory entry %s is missing: adapter rejected", entries[i].name);
            return;
        }
        *slot = entries[i].stub;
    }
    a->services = (sxa_services){
        .size = sizeof(sxa_services),
        .abi_version = SXA_ABI_VERSION,
        .dispatch = d,
        .log = svc_log,
        .error = svc_error,
        .getenv = sxi_getenv,
    };
    sx_result r = SXA_CALL(a, adapter, init, &a->services, &a->handle);
    if (r != SX_SUCCESS) {
        set_status(a, r, "init failed: %s: %s", sx_result_name(r), sx_last_error());
        a->handle = NULL;
        return;
    }
    char buf[256];
    if (SXA_CALL(a, adapter, get_info, a->handle, SXA_ADAPTER_INFO_NAME, sizeof(buf), buf, NULL) == SX_SUCCESS) {
        char *name = strdup(buf);
        if (name) { /* out of memory: keep the file's name, never NULL */
            free(a->name);
            a->name = name;
        }
    }
    SXA_CALL(a, adapter, get_info, a->handle, SXA_ADAPTER_INFO_BACKEND, sizeof(a->backend), &a->backend, NULL);
    SXA_CALL(a, adapter, get_info, a->handle, SXA_ADAPTER_INFO_VERSION, sizeof(a->version), &a->version, NULL);
    r = sxi_platforms_discover(a);
    if (r != SX_SUCCESS) {
        set_status(a, r, "platform discovery failed: %s: %s", sx_result_name(r), sx_last_error());
        sxi_platforms_free(a);
        SXA_CALL(a, adapter, fini, a->handle);
        a->handle = NULL;
        return;
    }
    char st[512] = "";
    if (SXA_CALL(a, adapter, get_info, a->handle, SXA_ADAPTER_INFO_STATUS, sizeof(st), st, NULL) != SX_SUCCESS)
        snprintf(st, sizeof(st), "%u platform(s)", a->num_platforms);
    set_status(a, SX_SUCCESS, "%s", st);
}

static struct sx_adapter_s *adapter_new(const char *name, const char *path)
{
    struct sx_adapter_s *a = calloc(1, sizeof(*a));
    if (!a)
        return NULL;
    a->tag = SXI_TAG_ADAPTER;
    a->dl_fd = -1;
    a->name = xstrdup(name);
    a->path = xstrdup(path);
    a->status = SX_ERROR_UNINITIALIZED;
    a->trace = sxi_trace_text_wanted(); /* SX_TRACE=FILE.json is the timeline instead (timeline.c) */
    if (!a->name || !a->path) {
        free(a->name);
        free(a->path);
        free(a);
        return NULL;
    }
    return a;
}

static sx_result adapter_add(struct sx_adapter_s *a, bool builtin)
{
    struct sx_adapter_s **n = realloc(adapters, (num_adapters + 1) * sizeof(*n));
    if (n)
        adapters = n;
    struct adapter_meta *m = n ? realloc(meta, (num_adapters + 1) * sizeof(*m)) : NULL;
    if (!m)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_init: out of memory recording adapters");
    meta = m;
    meta[num_adapters].backend = backend_of_name(a->name);
    meta[num_adapters].builtin = builtin;
    atomic_init(&meta[num_adapters].loaded, false);
    adapters[num_adapters++] = a;
    return SX_SUCCESS;
}

/* The file is opened and checked, then what was opened is loaded
 * (/proc/self/fd/N): a bare name is the file in the current directory, as
 * the check saw it, never one dlopen would find through LD_LIBRARY_PATH or
 * the cache of ld.so (issue 26, finding 10). Where /proc is missing, the
 * name is given to dlopen with a slash, which dlopen never searches. */
static void adapter_load_file(struct sx_adapter_s *a)
{
    char local[PATH_MAX + 2];
    const char *file = a->path;
    if (!strchr(file, '/')) {
        snprintf(local, sizeof(local), "./%s", file);
        file = local;
    }
    int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        set_status(a, SX_ERROR_IO, "cannot open %s: %s", a->path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        set_status(a, SX_ERROR_IO, "cannot load %s: not a regular file", a->path);
        close(fd);
        return;
    }
    char by_fd[64];
    snprintf(by_fd, sizeof(by_fd), "/proc/self/fd/%d", fd);
    bool proc = access(by_fd, F_OK) == 0;
    dlerror();
    a->dl = dlopen(proc ? by_fd : file, RTLD_NOW | RTLD_LOCAL);
    if (!a->dl) {
        const char *e = dlerror();
        set_status(a, SX_ERROR_INVALID_BINARY, "dlopen failed: %s", e ? e : "unknown error");
        close(fd);
        return;
    }
    /* Say what really loaded: the resolved file, not the name asked for.
     * The descriptor stays open while the module is loaded: ld.so knows
     * it by the name /proc/self/fd/N, which no other module may reuse. */
    struct link_map *lm = NULL;
    if (dlinfo(a->dl, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name) {
        char *p = realpath(lm->l_name, NULL);
        if (p) {
            free(a->path);
            a->path = p;
        }
    }
    if (proc)
        a->dl_fd = fd;
    else
        close(fd);
    dlerror();
    void *sym = dlsym(a->dl, SXA_ENTRY_SYMBOL);
    if (!sym) {
        set_status(a, SX_ERROR_INVALID_BINARY, "no %s symbol: not an sx adapter", SXA_ENTRY_SYMBOL);
        return;
    }
    sxa_get_proc_table_fn get;
    memcpy(&get, &sym, sizeof(get));
    adapter_open(a, get);
}

static void adapter_free(struct sx_adapter_s *a)
{
    if (a) {
        free(a->name);
        free(a->path);
        free(a);
    }
}

static sx_result add_builtin_native(void)
{
    struct sx_adapter_s *a = adapter_new("native", "(built in)");
    if (!a || adapter_add(a, true) != SX_SUCCESS) {
        adapter_free(a);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_init: out of memory");
    }
    return SX_SUCCESS;
}

static sx_result add_file(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[256];
    snprintf(name, sizeof(name), "%s", base);
    if (strncmp(name, "sx-adapter-", 11) == 0)
        memmove(name, name + 11, strlen(name + 11) + 1);
    char *dot = strstr(name, ".so");
    if (dot)
        *dot = '\0';
    struct sx_adapter_s *a = adapter_new(name, path);
    if (!a || adapter_add(a, false) != SX_SUCCESS) {
        adapter_free(a);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_init: out of memory");
    }
    return SX_SUCCESS;
}

/* SX_ADAPTERS=a,b,...: exactly these, in this order; "native" is the
 * built-in one; a path must name a file (no search). */
static sx_result load_forced(const char *list)
{
    char *copy = strdup(list);
    if (!copy)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_init: out of memory");
    sx_result r = SX_SUCCESS;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && r == SX_SUCCESS; tok = strtok_r(NULL, ",", &save)) {
        if (!*tok)
            continue;
        r = strcmp(tok, "native") == 0 ? add_builtin_native() : add_file(tok);
    }
    free(copy);
    return r;
}

/* The install's adapter directory; SX_ADAPTER_DIR replaces it (make check
 * points it away from an installed copy, so tests see the build tree). */
static const char *adapter_dir(void)
{
    const char *d = sxi_getenv("SX_ADAPTER_DIR");
    return d && *d ? d : SX_ADAPTER_DIR;
}

/* One discovered adapter file: its name (the part after "sx-adapter-"
 * and before ".so") and the path it was found at. */
typedef struct found_adapter {
    char name[128];
    char path[PATH_MAX];
} found_adapter;

static int found_cmp(const void *a, const void *b)
{
    return strcmp(((const found_adapter *)a)->name, ((const found_adapter *)b)->name);
}

/* Add every sx-adapter-NAME.so of `dir` whose NAME no earlier directory
 * gave (the first directory that has a name wins). */
static sx_result scan_dir(const char *dir, size_t dir_len, found_adapter **list, size_t *n, size_t *cap)
{
    char path[PATH_MAX];
    if (dir_len == 0 || dir_len >= sizeof(path) - 64)
        return SX_SUCCESS;
    snprintf(path, sizeof(path), "%.*s", (int)dir_len, dir);
    DIR *d = opendir(path);
    if (!d) {
        SXI_LOG(SX_LOG_DEBUG, "adapter directory %s: %s", path, strerror(errno));
        return SX_SUCCESS;
    }
    sx_result r = SX_SUCCESS;
    for (struct dirent *e; r == SX_SUCCESS && (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len <= 14 || strncmp(e->d_name, "sx-adapter-", 11) != 0 || strcmp(e->d_name + len - 3, ".so") != 0 ||
            len - 14 >= sizeof((*list)->name))
            continue;
        found_adapter f;
        snprintf(f.name, sizeof(f.name), "%.*s", (int)(len - 14), e->d_name + 11);
        if (strcmp(f.name, "native") == 0)
            continue; /* built in; the module form is for SX_ADAPTERS and the CTS */
        bool dup = false;
        for (size_t i = 0; i < *n && !dup; i++)
            dup = strcmp((*list)[i].name, f.name) == 0;
        if (dup || snprintf(f.path, sizeof(f.path), "%s/%s", path, e->d_name) >= (int)sizeof(f.path))
            continue;
        if (*n == *cap) {
            size_t nc = *cap ? *cap * 2 : 8;
            found_adapter *nl = realloc(*list, nc * sizeof(*nl));
            if (!nl) {
                r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_init: out of memory listing adapters");
                break;
            }
            *list = nl;
            *cap = nc;
        }
        (*list)[(*n)++] = f;
    }
    closedir(d);
    return r;
}

/* Default discovery: the built-in native adapter, then every
 * sx-adapter-NAME.so found in SX_ADAPTERS_PATH's directories (a
 * ':'-separated list) and then the configured adapter directory, each NAME
 * from the first directory that has it, loaded in NAME order (never
 * readdir order). Nothing is loaded from the current directory unless a
 * path says so. */
/* Issue 26, finding 16: in a process that changed identity (setuid or
 * setgid, file capabilities: AT_SECURE) default discovery loads only the
 * built-in adapter, unless the application asked for the installed ones
 * (SX_INIT_INSTALLED_ADAPTERS): the others run vendor runtimes that read
 * the caller's environment and write the caller's HOME as the new user. */
bool sxi_loader_test_secure; /* tests: behave as under AT_SECURE */
static uint32_t init_flags;
void sxi_adapters_set_init_flags(uint32_t flags) { init_flags = flags; }

static bool secure_process(void)
{
    return sxi_loader_test_secure || getauxval(AT_SECURE) != 0;
}

static sx_result load_default(void)
{
    sx_result r = add_builtin_native();
    if (secure_process() && !(init_flags & SX_INIT_INSTALLED_ADAPTERS)) {
        SXI_LOG(SX_LOG_INFO, "a setuid or setgid process: only the built-in adapter (sx_init with "
                "SX_INIT_INSTALLED_ADAPTERS loads the installed ones)");
        return r;
    }
    const char *search = sxi_getenv("SX_ADAPTERS_PATH");
    found_adapter *list = NULL;
    size_t n = 0, cap = 0;
    for (const char *p = search; r == SX_SUCCESS && p && *p;) {
        size_t len = strcspn(p, ":");
        r = scan_dir(p, len, &list, &n, &cap);
        p += len + (p[len] == ':');
    }
    if (r == SX_SUCCESS)
        r = scan_dir(adapter_dir(), strlen(adapter_dir()), &list, &n, &cap);
    if (n)
        qsort(list, n, sizeof(*list), found_cmp);
    for (size_t i = 0; i < n && r == SX_SUCCESS; i++)
        r = add_file(list[i].path);
    free(list);
    return r;
}

/* A new device list: the old one plus the devices of adapters loaded
 * since, all in adapter order. Load lock held. */
static sx_result collect_devices(void)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < num_adapters; i++)
        for (uint32_t p = 0; p < adapters[i]->num_platforms; p++)
            n += adapters[i]->platforms[p]->num_devices;
    device_list *old = atomic_load_explicit(&devices, memory_order_relaxed);
    if (old && old->n == n)
        return SX_SUCCESS;
    device_list *l = calloc(1, sizeof(*l) + (n ? n : 1) * sizeof(l->d[0]));
    if (!l)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory recording devices");
    l->older = old;
    uint32_t per_backend[8] = {0};
    for (uint32_t i = 0; i < num_adapters; i++)
        for (uint32_t p = 0; p < adapters[i]->num_platforms; p++)
            for (uint32_t k = 0; k < adapters[i]->platforms[p]->num_devices; k++) {
                struct sx_device_s *d = adapters[i]->platforms[p]->devices[k];
                uint32_t b = d->backend < 8 ? d->backend : 0;
                uint32_t index = per_backend[b]++;
                if (d->index == UINT32_MAX) { /* new: devices already published never change */
                    d->index = l->n;
                    d->backend_index = index;
                    d->selected = sxi_selector_accepts(d, index);
                }
                l->d[l->n++] = d;
            }
    atomic_store_explicit(&devices, l, memory_order_release);
    return SX_SUCCESS;
}

static void load_one(uint32_t i)
{
    struct sx_adapter_s *a = adapters[i];
    /* Said before trying: an adapter that crashes is then the last one named. */
    SXI_LOG(SX_LOG_INFO, "adapter %s (%s): trying", a->name, a->path);
    if (meta[i].builtin)
        adapter_open(a, sxn_get_proc_table);
    else
        adapter_load_file(a);
    for (uint32_t p = 0; p < a->num_platforms; p++)
        for (uint32_t k = 0; k < a->platforms[p]->num_devices; k++)
            a->platforms[p]->devices[k]->index = UINT32_MAX;
}

sx_result sxi_adapters_need(uint32_t backends)
{
    bool missing = false;
    for (uint32_t i = 0; i < num_adapters && !missing; i++)
        missing = sxi_adapter_wanted(i, backends) && !atomic_load_explicit(&meta[i].loaded, memory_order_acquire);
    if (SXI_LIKELY(!missing))
        return SX_SUCCESS;
    pthread_mutex_lock(&load_lock);
    bool loaded = false;
    for (uint32_t i = 0; i < num_adapters; i++)
        if (sxi_adapter_wanted(i, backends) && !atomic_load_explicit(&meta[i].loaded, memory_order_relaxed)) {
            load_one(i);
            atomic_store_explicit(&meta[i].loaded, true, memory_order_release);
            loaded = true;
        }
    sx_result r = loaded ? collect_devices() : SX_SUCCESS;
    pthread_mutex_unlock(&load_lock);
    return r;
}

sx_result sxi_adapters_load(void)
{
    const char *forced = sxi_getenv("SX_ADAPTERS");
    sx_result r = forced && *forced ? load_forced(forced) : load_default();
    device_list *l = r == SX_SUCCESS ? calloc(1, sizeof(*l) + sizeof(l->d[0])) : NULL;
    if (r == SX_SUCCESS && !l)
        r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_init: out of memory");
    if (r != SX_SUCCESS) {
        sxi_adapters_unload();
        return r;
    }
    atomic_store_explicit(&devices, l, memory_order_release);
    /* SX_ADAPTERS_EAGER=1: load everything now, as before lazy loading. */
    const char *eager = sxi_getenv("SX_ADAPTERS_EAGER");
    if (eager && *eager && strcmp(eager, "0") != 0 && (r = sxi_adapters_need(SXI_BACKENDS_ALL)) != SX_SUCCESS)
        sxi_adapters_unload();
    return r;
}

void sxi_adapters_unload(void)
{
    /* Reverse load order; each dlclose'd once. */
    for (uint32_t i = num_adapters; i-- > 0;) {
        struct sx_adapter_s *a = adapters[i];
        sxi_platforms_free(a);
        if (a->handle)
            SXA_CALL(a, adapter, fini, a->handle);
        if (a->dl)
            dlclose(a->dl);
        if (a->dl_fd >= 0)
            close(a->dl_fd);
        a->tag = SXI_TAG_DEAD;
        free(a->name);
        free(a->path);
        free(a->status_text);
        free(a);
    }
    free(adapters);
    adapters = NULL;
    free(meta);
    meta = NULL;
    num_adapters = 0;
    device_list *l = atomic_exchange(&devices, NULL);
    while (l) {
        device_list *older = l->older;
        free(l);
        l = older;
    }
}

/* ---- public adapter queries ---- */
SX_API sx_result sx_adapter_get(uint32_t count, sx_adapter *out, uint32_t *num)
{
    SXI_CHECK_INIT();
    if (!out && !num)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_adapter_get: adapters and num_adapters are both NULL");
    if (out && count == 0)
        return sxi_error(SX_ERROR_INVALID_SIZE, "sx_adapter_get: count is 0, but the adapters array is not NULL.");
    /* Asked for the adapters themselves: every one loaded, so each has its status. */
    sx_result r = sxi_adapters_need(SXI_BACKENDS_ALL);
    if (r != SX_SUCCESS)
        return r;
    if (num)
        *num = num_adapters;
    for (uint32_t i = 0; out && i < count && i < num_adapters; i++)
        out[i] = adapters[i];
    return SX_SUCCESS;
}

SX_API sx_result sx_adapter_get_info(sx_adapter a, sx_adapter_info param, size_t size, void *value,
                                     size_t *size_ret)
{
    SXI_CHECK_INIT();
    SXI_CHECK_HANDLE(a, SXI_TAG_ADAPTER, "adapter");
    sx_result r;
    switch (param) {
    case SX_ADAPTER_INFO_NAME: r = sxa_info_string(a->name, size, value, size_ret); break;
    case SX_ADAPTER_INFO_PATH: r = sxa_info_string(a->path, size, value, size_ret); break;
    case SX_ADAPTER_INFO_STATUS: r = sxa_info_copy(&a->status, sizeof(a->status), size, value, size_ret); break;
    case SX_ADAPTER_INFO_STATUS_TEXT:
        r = sxa_info_string(a->status_text ? a->status_text : "", size, value, size_ret);
        break;
    case SX_ADAPTER_INFO_BACKEND: r = sxa_info_copy(&a->backend, sizeof(a->backend), size, value, size_ret); break;
    case SX_ADAPTER_INFO_VERSION: r = sxa_info_copy(&a->version, sizeof(a->version), size, value, size_ret); break;
    case SX_ADAPTER_INFO_NUM_PLATFORMS:
        r = sxa_info_copy(&a->num_platforms, sizeof(a->num_platforms), size, value, size_ret);
        break;
    default:
        return sxi_error(SX_ERROR_INVALID_ENUMERATION, "sx_adapter_get_info: param %u is not an SX_ADAPTER_INFO_* this library knows.", param);
    }
    return r == SX_SUCCESS ? r : sxi_info_error(r, __func__, a->name, param, size);
}
