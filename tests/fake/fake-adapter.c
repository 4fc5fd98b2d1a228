/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fake-adapter.c: a TEST adapter (no device behind it) built several ways
 * to exercise the loader: FAKE_GOOD works (one platform, one "custom"
 * device, host memory, programs that accept any bytes, launches that only
 * count); FAKE_MISSING_ENTRY leaves out a mandatory entry; FAKE_WRONG_ABI
 * speaks ABI 99.0; FAKE_INIT_FAILS fails init; FAKE_UNDEFINED_SYMBOL
 * references a symbol nothing defines (dlopen fails); FAKE_INIT_CRASHES
 * crashes in init (sx-info --isolate). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/adapter.h>

#ifdef FAKE_UNDEFINED_SYMBOL
extern int fake_symbol_nobody_defines(void);
int fake_use(void);
int fake_use(void) { return fake_symbol_nobody_defines(); }
#endif

/* FAKE_FAULT_INJECT (fault-inject.so): every entry is a fault point; the
 * SX_FAULT_AT-th call since init fails with SX_ERROR_OUT_OF_RESOURCES
 * (a failing release frees first, as drivers that report an error after
 * destroying the object do: the core cannot free adapter objects itself)
 * (tests/test-fault-inject.c sweeps it over a whole flow); at fini the
 * number of calls is written to SX_FAULT_COUNT_FILE. */
#ifdef FAKE_FAULT_INJECT
static unsigned long fault_calls, fault_at;
static sx_result (*fault_error)(sx_result, const char *, ...);
#define FAULT_POINT(name)                                                              \
    do {                                                                               \
        unsigned long n_ = __atomic_add_fetch(&fault_calls, 1, __ATOMIC_RELAXED);      \
        if (fault_at && n_ == fault_at)                                                \
            return fault_error(SX_ERROR_OUT_OF_RESOURCES, "fault injected at adapter call %lu (%s)", n_, name); \
    } while (0)
#else
#define FAULT_POINT(name) ((void)0)
#endif

#ifndef FAKE_NAME
#define FAKE_NAME "fake"
#endif

static const sxa_services *svc;
struct sxa_adapter_s { sxa_object base; };
struct sxa_platform_s { sxa_object base; };
struct sxa_device_s { sxa_object base; };
struct sxa_context_s { sxa_object base; };
struct sxa_queue_s { sxa_object base; };
/* Programs keep their bytes so compile/link/get_binary can be checked:
 * a linked program's binary is "FAKELINK" + each input's size and bytes. */
struct sxa_program_s { sxa_object base; unsigned char *data; size_t size; int compiled, executable; };
struct sxa_kernel_s { sxa_object base; };
struct sxa_event_s { sxa_object base; };

static struct sxa_adapter_s adapter;
static struct sxa_platform_s platform;
static struct sxa_device_s device, device2;  /* device2: only with FAKE_TWO_DEVICES */
static unsigned long launches;

static sx_result f_init(const sxa_services *s, sxa_adapter *out)
{
#ifdef FAKE_FAULT_INJECT
    const char *at = getenv("SX_FAULT_AT");
    fault_at = at ? strtoul(at, NULL, 10) : 0;
    fault_calls = 0;
    fault_error = s->error;
#endif
    FAULT_POINT("init");
#ifdef FAKE_INIT_FAILS
    return s->error(SX_ERROR_DEVICE_LOST, "fake init failure on purpose");
#endif
#ifdef FAKE_INIT_CRASHES
    raise(SIGSEGV);
#endif
    svc = s;
    adapter.base.dispatch = platform.base.dispatch = device.base.dispatch = device2.base.dispatch = s->dispatch;
    *out = &adapter;
    return SX_SUCCESS;
}
static sx_result f_fini(sxa_adapter a)
{
#ifdef FAKE_FAULT_INJECT
    const char *cf = getenv("SX_FAULT_COUNT_FILE");
    FILE *f = cf ? fopen(cf, "w") : NULL;
    if (f) {
        fprintf(f, "%lu\n", fault_calls + 1);
        fclose(f);
    }
#endif
    FAULT_POINT("fini");
    return SX_SUCCESS;
}
static sx_result f_adapter_info(sxa_adapter a, sxa_adapter_info p, size_t size, void *v, size_t *r)
{ FAULT_POINT("adapter_info");
    sx_backend b = SX_BACKEND_OTHER;
    uint32_t ver = SXA_ABI_VERSION;
    switch (p) {
    case SXA_ADAPTER_INFO_NAME: return sxa_info_string(FAKE_NAME, size, v, r);
    case SXA_ADAPTER_INFO_BACKEND: return sxa_info_copy(&b, sizeof(b), size, v, r);
    case SXA_ADAPTER_INFO_VERSION: return sxa_info_copy(&ver, sizeof(ver), size, v, r);
    case SXA_ADAPTER_INFO_STATUS: return sxa_info_string("test adapter: 1 platform, 1 device", size, v, r);
    default: return SX_ERROR_INVALID_ENUMERATION;
    }
}
static sx_result f_platform_get(sxa_adapter a, uint32_t n, sxa_platform *p, uint32_t *np)
{ FAULT_POINT("platform_get");
    if (np)
        *np = 1;
    if (p && n)
        p[0] = &platform;
    return SX_SUCCESS;
}
static sx_result f_platform_info(sxa_platform p, sx_platform_info param, size_t size, void *v, size_t *r)
{ FAULT_POINT("platform_info");
    sx_backend b = SX_BACKEND_OTHER;
    switch (param) {
    case SX_PLATFORM_INFO_NAME: return sxa_info_string("fake platform", size, v, r);
    case SX_PLATFORM_INFO_VENDOR: return sxa_info_string("libsycl-ext tests", size, v, r);
    case SX_PLATFORM_INFO_VERSION: return sxa_info_string("0", size, v, r);
    case SX_PLATFORM_INFO_BACKEND: return sxa_info_copy(&b, sizeof(b), size, v, r);
    default: return SX_ERROR_INVALID_ENUMERATION;
    }
}
/* Misbehaviours the core must catch (issue 15), chosen by environment:
 * FAKE_NULL_DEVICE (success with a NULL device), FAKE_COUNT_CHANGES (a
 * different device count on the second call), FAKE_NULL_CONTEXT (success
 * with a NULL context), FAKE_QUEUE_RELEASE_FAILS. */
static int misbehave(const char *what)
{
    return svc && svc->getenv && svc->getenv(what) != NULL;
}
static sx_result f_device_get(sxa_platform p, sx_device_type t, uint32_t n, sxa_device *d, uint32_t *nd)
{ FAULT_POINT("device_get");
    /* FAKE_TWO_DEVICES: a second device, for contexts of two devices. */
    uint32_t have = (t & SX_DEVICE_TYPE_CUSTOM) ? (misbehave("FAKE_TWO_DEVICES") ? 2 : 1) : 0;
    if (nd)
        *nd = have + (d && misbehave("FAKE_COUNT_CHANGES"));
    if (d && n && have)
        d[0] = misbehave("FAKE_NULL_DEVICE") ? NULL : &device;
    if (d && n > 1 && have > 1)
        d[1] = &device2;
    return have ? SX_SUCCESS : SX_ERROR_DEVICE_NOT_FOUND;
}
static sx_result f_device_info(sxa_device d, sx_device_info p, size_t size, void *v, size_t *r)
{ FAULT_POINT("device_info");
    sx_device_type t = SX_DEVICE_TYPE_CUSTOM;
    size_t wg = 64, items[3] = {64, 64, 64};
    uint64_t local = 1024;
    sx_aspect_set aspects = SX_ASPECT_BIT(SX_ASPECT_CUSTOM) | SX_ASPECT_BIT(SX_ASPECT_USM_HOST_ALLOCATIONS);
    sx_image_kind kinds[] = {SX_IMAGE_KIND_NATIVE};
    uint32_t nonuniform = 1; /* as Intel's CPU runtime (OpenCL 2.0): the core still refuses them (SYCL's nd_range) */
    if (svc->getenv("FAKE_FP64")) /* a device with fp64, for the virtual-function tests */
        aspects |= SX_ASPECT_BIT(SX_ASPECT_FP64);
    switch (p) {
    case SX_DEVICE_INFO_TYPE: return sxa_info_copy(&t, sizeof(t), size, v, r);
    case SX_DEVICE_INFO_NAME: return sxa_info_string(d == &device2 ? FAKE_NAME " device 2" : FAKE_NAME " device", size, v, r);
    case SX_DEVICE_INFO_VENDOR: return sxa_info_string("libsycl-ext tests", size, v, r);
    case SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE: return sxa_info_copy(&wg, sizeof(wg), size, v, r);
    case SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES: return sxa_info_copy(items, sizeof(items), size, v, r);
    case SX_DEVICE_INFO_LOCAL_MEM_SIZE: return sxa_info_copy(&local, sizeof(local), size, v, r);
    case SX_DEVICE_INFO_ASPECTS: return sxa_info_copy(&aspects, sizeof(aspects), size, v, r);
    case SX_DEVICE_INFO_IMAGE_KINDS: return sxa_info_copy(kinds, sizeof(kinds), size, v, r);
    case SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS: return sxa_info_copy(&nonuniform, sizeof(nonuniform), size, v, r);
    default: return SX_ERROR_UNSUPPORTED_FEATURE;
    }
}
#define NEW(type, out)                                                         \
    do {                                                                       \
        struct type *o_ = calloc(1, sizeof(*o_));                              \
        if (!o_)                                                               \
            return SX_ERROR_OUT_OF_HOST_MEMORY;                                \
        o_->base.dispatch = svc->dispatch;                                     \
        *(out) = o_;                                                           \
    } while (0)
static sx_result f_context_create(uint32_t n, const sxa_device *d, sxa_context *out)
{ FAULT_POINT("context_create");
    if (misbehave("FAKE_NULL_CONTEXT")) {
        *out = NULL;
        return SX_SUCCESS;
    }
    NEW(sxa_context_s, out);
    return SX_SUCCESS;
}
static sx_result f_context_release(sxa_context c) { free(c); FAULT_POINT("context_release"); return SX_SUCCESS; }
static sx_result f_queue_create(sxa_context c, sxa_device d, uint32_t f, sxa_queue *out) { FAULT_POINT("queue_create"); NEW(sxa_queue_s, out); return SX_SUCCESS; }
static sx_result f_queue_release(sxa_queue q)
{
    free(q);
    FAULT_POINT("queue_release");
    if (misbehave("FAKE_QUEUE_RELEASE_FAILS"))
        return svc->error(SX_ERROR_DEVICE_LOST, "fake: queue release fails on purpose");
    return SX_SUCCESS;
}
static sx_result f_queue_finish(sxa_queue q) { FAULT_POINT("queue_finish"); return SX_SUCCESS; }
static sx_result f_usm_alloc(sxa_context c, sxa_device d, sx_usm_type t, size_t s, size_t a, void **out)
{ FAULT_POINT("usm_alloc");
    *out = calloc(1, s);
    return *out ? SX_SUCCESS : SX_ERROR_OUT_OF_HOST_MEMORY;
}
static sx_result f_usm_free(sxa_context c, void *p) { free(p); FAULT_POINT("usm_free"); return SX_SUCCESS; }
/* FAKE_LINK_LOG: one line per program call ("create SIZE", "build",
 * "compile", "link N", "get_binary"), for tests that count them. */
static void program_log(const char *what, unsigned long v)
{
    const char *log = svc->getenv("FAKE_LINK_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%s %lu\n", what, v);
        fclose(f);
    }
}
static int has_bytes(const sxa_program p, const char *what)
{
    size_t n = strlen(what);
    for (size_t i = 0; i + n <= p->size; i++)
        if (memcmp(p->data + i, what, n) == 0)
            return 1;
    return 0;
}
static sx_result f_program_create(sxa_context c, sxa_device d, sx_image_kind k, const void *data, size_t size,
                                  const sxa_program_desc *desc, sxa_program *out)
{ FAULT_POINT("program_create");
    if (size >= 4 && memcmp(data, "BAD!", 4) == 0)
        return svc->error(SX_ERROR_INVALID_BINARY, "fake program create rejects images starting with BAD!");
    struct sxa_program_s *p = calloc(1, sizeof(*p));
    if (!p || !(p->data = malloc(size ? size : 1))) {
        free(p);
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    }
    p->base.dispatch = svc->dispatch;
    memcpy(p->data, data, size);
    p->size = size;
    program_log("create", (unsigned long)size);
    *out = p;
    return SX_SUCCESS;
}
static sx_result f_program_build(sxa_program p, const char *o)
{ FAULT_POINT("program_build");
    program_log("build", 0);
    if (o && strstr(o, "-fail-build"))
        return svc->error(SX_ERROR_BUILD_FAILURE, "fake build log: error: failed on purpose");
    if (has_bytes(p, "FAKE-REFUSE"))
        return svc->error(SX_ERROR_INVALID_BINARY, "fake build refuses a binary containing FAKE-REFUSE");
    p->executable = 1;
    return SX_SUCCESS;
}
static sx_result f_program_compile(sxa_program p, const char *o)
{ FAULT_POINT("program_compile");
    program_log("compile", 0);
    if (svc->getenv("FAKE_NO_LINK"))
        return SX_ERROR_UNSUPPORTED_FEATURE;
    if (has_bytes(p, "FAKE-BADCOMPILE"))
        return svc->error(SX_ERROR_BUILD_FAILURE, "fake compile log: error: failed on purpose");
    p->compiled = 1;
    return SX_SUCCESS;
}
/* An input holding "UNRESOLVED:" fails the link with a log naming what follows. */
static sx_result f_program_link(sxa_context c, sxa_device d, uint32_t n, const sxa_program *in, const char *o,
                                sxa_program *out)
{ FAULT_POINT("program_link");
    program_log("link", n);
    if (svc->getenv("FAKE_NO_LINK"))
        return SX_ERROR_UNSUPPORTED_FEATURE;
    size_t total = 8;
    for (uint32_t i = 0; i < n; i++) {
        if (!in[i]->compiled)
            return svc->error(SX_ERROR_INVALID_OPERATION, "fake link: input %u of %u was not compiled", i, n);
        for (size_t b = 0; b + 11 <= in[i]->size; b++)
            if (memcmp(in[i]->data + b, "UNRESOLVED:", 11) == 0) {
                size_t left = in[i]->size - b - 11;
                return svc->error(SX_ERROR_LINK_FAILURE, "fake link log: error: undefined symbol '%.*s' in input %u",
                                  (int)(left < 8 ? left : 8), (const char *)in[i]->data + b + 11, i);
            }
        total += 8 + in[i]->size;
    }
    struct sxa_program_s *p = calloc(1, sizeof(*p));
    if (!p || !(p->data = malloc(total))) {
        free(p);
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    }
    p->base.dispatch = svc->dispatch;
    memcpy(p->data, "FAKELINK", 8);
    p->size = 8;
    for (uint32_t i = 0; i < n; i++) {
        unsigned long long sz = in[i]->size;
        memcpy(p->data + p->size, &sz, 8);
        memcpy(p->data + p->size + 8, in[i]->data, in[i]->size);
        p->size += 8 + in[i]->size;
    }
    p->executable = 1;
    *out = p;
    return SX_SUCCESS;
}
/* FAKE_NO_BINARY: like Level Zero for linked programs. */
static sx_result f_program_get_binary(sxa_program p, sx_image_kind *kind, size_t size, void *value, size_t *size_ret)
{ FAULT_POINT("program_get_binary");
    program_log("get_binary", 0);
    if (svc->getenv("FAKE_NO_BINARY"))
        return SX_ERROR_UNSUPPORTED_FEATURE;
    if (!p->executable)
        return svc->error(SX_ERROR_INVALID_OPERATION, "fake get_binary: program is not built");
    *kind = SX_IMAGE_KIND_NATIVE;
    return sxa_info_copy(p->data, p->size, size, value, size_ret);
}
static sx_result f_program_release(sxa_program p)
{
    free(p->data);
    free(p);
    FAULT_POINT("program_release");
    return SX_SUCCESS;
}
static sx_result f_kernel_create(sxa_program p, const char *name, sxa_kernel *out)
{ FAULT_POINT("kernel_create");
    if (strncmp(name, "missing", 7) == 0)
        return svc->error(SX_ERROR_INVALID_KERNEL_NAME, "fake program has no kernel '%s'", name);
    NEW(sxa_kernel_s, out);
    return SX_SUCCESS;
}
static sx_result f_kernel_release(sxa_kernel k) { free(k); FAULT_POINT("kernel_release"); return SX_SUCCESS; }
__attribute__((unused)) static sx_result f_launch(sxa_queue q, sxa_kernel k, uint32_t dims, const size_t *off, const size_t *g,
                          const size_t *l, uint32_t na, const sx_arg *args, uint32_t ne, const sxa_event *w,
                          sxa_event *out)
{ FAULT_POINT("launch");
    unsigned long count = __atomic_add_fetch(&launches, 1, __ATOMIC_RELAXED);
    /* A pointer argument gets the number of launches written into it, so
     * tests can see the arguments really arrive. */
    for (uint32_t i = 0; i < na; i++)
        if (args[i].type == SX_ARG_POINTER && args[i].value)
            __atomic_store_n((unsigned long *)args[i].value, count, __ATOMIC_RELAXED); /* launches from many threads */
    /* FAKE_LAUNCH_LOG: one line per launch, "dims global local | index:type:size:bytes ...". */
    const char *log = svc->getenv("FAKE_LAUNCH_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "%u %zu %zu |", dims, g[0], l ? l[0] : 0);
        for (uint32_t i = 0; i < na; i++) {
            fprintf(f, " %u:%c:%zu:", args[i].index, "VPL"[args[i].type % 3], args[i].size);
            if (args[i].type == SX_ARG_VALUE)
                for (size_t b = 0; b < args[i].size; b++)
                    fprintf(f, "%02x", ((const unsigned char *)args[i].value)[b]);
            else if (args[i].type == SX_ARG_POINTER)
                fprintf(f, "%p", args[i].value);
        }
        fprintf(f, "\n");
        fclose(f);
    }
    if (out)
        NEW(sxa_event_s, out);
    return SX_SUCCESS;
}
static sx_result f_memcpy(sxa_queue q, int b, void *d, const void *s, size_t n, uint32_t ne, const sxa_event *w,
                          sxa_event *out)
{ FAULT_POINT("memcpy");
    memcpy(d, s, n);
    if (out)
        NEW(sxa_event_s, out);
    return SX_SUCCESS;
}
/* Program variables: only logged (FAKE_LINK_LOG "global_write NAME"), so
 * tests see which programs got their device-global addresses. */
static sx_result f_global_write(sxa_queue q, sxa_program p, const char *name, int blocking, size_t count,
                                size_t offset, const void *src, uint32_t ne, const sxa_event *w, sxa_event *out)
{ FAULT_POINT("global_write");
    const char *log = svc->getenv("FAKE_LINK_LOG");
    FILE *f = log ? fopen(log, "a") : NULL;
    if (f) {
        fprintf(f, "global_write %s\n", name);
        fclose(f);
    }
    if (out)
        NEW(sxa_event_s, out);
    return SX_SUCCESS;
}
static sx_result f_event_wait(uint32_t n, const sxa_event *e) { FAULT_POINT("event_wait"); return SX_SUCCESS; }
static sx_result f_event_status(sxa_event e, sx_event_status *s) { FAULT_POINT("event_status"); *s = SX_EVENT_STATUS_COMPLETE; return SX_SUCCESS; }
static sx_result f_event_release(sxa_event e) { free(e); FAULT_POINT("event_release"); return SX_SUCCESS; }

static const sxa_adapter_table t_adapter = {sizeof(t_adapter), f_init, f_fini, f_adapter_info};
static const sxa_platform_table t_platform = {sizeof(t_platform), f_platform_get, f_platform_info};
static const sxa_device_table t_device = {sizeof(t_device), f_device_get, f_device_info};
static const sxa_context_table t_context = {sizeof(t_context), f_context_create, f_context_release};
static const sxa_queue_table t_queue = {sizeof(t_queue), .create = f_queue_create, .release = f_queue_release,
                                        .finish = f_queue_finish};
static const sxa_usm_table t_usm = {sizeof(t_usm), f_usm_alloc, f_usm_free};
static const sxa_program_table t_program = {sizeof(t_program), .create = f_program_create, .build = f_program_build,
                                            .compile = f_program_compile, .link = f_program_link,
                                            .release = f_program_release, .get_binary = f_program_get_binary};
static const sxa_kernel_table t_kernel = {sizeof(t_kernel), .create = f_kernel_create, .release = f_kernel_release};
static const sxa_enqueue_table t_enqueue = {
    sizeof(t_enqueue),
#ifndef FAKE_MISSING_ENTRY
    .kernel_launch = f_launch,
#endif
    .usm_memcpy = f_memcpy,
    .global_write = f_global_write};
static const sxa_event_table t_event = {sizeof(t_event), .wait = f_event_wait, .get_status = f_event_status,
                                        .release = f_event_release};

SXA_EXPORT sx_result sxa_get_proc_table(uint32_t version, sxa_table_id id, void *table);
SXA_EXPORT sx_result sxa_get_proc_table(uint32_t version, sxa_table_id id, void *table)
{
    static const void *const tables[SXA_TABLE_COUNT_] = {
        [SXA_TABLE_ADAPTER] = &t_adapter, [SXA_TABLE_PLATFORM] = &t_platform, [SXA_TABLE_DEVICE] = &t_device,
        [SXA_TABLE_CONTEXT] = &t_context, [SXA_TABLE_QUEUE] = &t_queue,       [SXA_TABLE_USM] = &t_usm,
        [SXA_TABLE_PROGRAM] = &t_program, [SXA_TABLE_KERNEL] = &t_kernel,     [SXA_TABLE_ENQUEUE] = &t_enqueue,
        [SXA_TABLE_EVENT] = &t_event,
    };
#ifdef FAKE_WRONG_ABI
    /* Speaks only ABI 99: every version the core asks for is refused. */
    if (SXA_MAJOR_VERSION(version) != 99)
        return SX_ERROR_UNSUPPORTED_VERSION;
#endif
    return sxa_serve_table(version, id, table, tables, SXA_TABLE_COUNT_);
}
