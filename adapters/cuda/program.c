/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* program.c: PTX/cubin programs (JIT, cuLink*), their variables, and kernels.
 *
 * One self-contained PTX (no .extern) is built the way the driver builds it
 * fastest, cuModuleLoadDataEx, whose JIT goes through the driver's JIT
 * cache; its cubin for the persistent cache is linked only when get_binary
 * asks (once per process that writes the entry). PTX with external
 * references, relocatable cubins and multi-image links go through cuLink*.
 *
 * Build options that map onto JIT/link options (everything else is ignored,
 * with an info log line, since images carry options meant for other
 * backends such as -cl-fast-relaxed-math):
 *   -maxrregcount=N, --maxrregcount=N, -maxrregcount N -> CU_JIT_MAX_REGISTERS
 *   -O0 .. -O4, --opt-level=N                         -> CU_JIT_OPTIMIZATION_LEVEL
 *   -lineinfo, --generate-line-info                   -> CU_JIT_GENERATE_LINE_INFO
 *   -g, -G, --device-debug                            -> CU_JIT_GENERATE_DEBUG_INFO
 *   -v, --verbose                                     -> CU_JIT_LOG_VERBOSE
 * They apply to build() and to link() alike (cuLinkCreate takes the same
 * CUjit_option set). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "sxc.h"

#define LOG_SIZE 16384
#define MAX_JIT_OPTS 12
#define JIT_LOG_OPTS 4

/* Small enough for the stack: the two log buffers are allocated only when
 * a log is wanted (a link, a failed load, -v), so a load that succeeds,
 * such as every cubin from the persistent cache, costs no 32 KiB to touch. */
typedef struct jit_opts {
    CUjit_option keys[MAX_JIT_OPTS];
    void *values[MAX_JIT_OPTS];
    unsigned n;
    char *logs; /* info log, then error log, LOG_SIZE each; NULL until wanted */
} jit_opts;

static void jit_add(jit_opts *o, CUjit_option k, uintptr_t v)
{
    for (unsigned i = 0; i < o->n; i++)
        if (o->keys[i] == k) {
            o->values[i] = (void *)v;
            return;
        }
    if (o->n < MAX_JIT_OPTS) {
        o->keys[o->n] = k;
        o->values[o->n++] = (void *)v;
    }
}

static int parse_uint(const char *s, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (end == s || *end || v > 0xffff)
        return 0;
    *out = (unsigned)v;
    return 1;
}

static void jit_parse(jit_opts *o, const char *options)
{
    if (!options)
        return;
    char tok[256], next[256];
    const char *s = options;
    int have_next = 0;
    for (;;) {
        if (have_next) {
            memcpy(tok, next, sizeof(tok));
            have_next = 0;
        } else {
            while (isspace((unsigned char)*s))
                s++;
            if (!*s)
                break;
            size_t n = 0;
            while (s[n] && !isspace((unsigned char)s[n]))
                n++;
            snprintf(tok, sizeof(tok), "%.*s", (int)n, s);
            s += n;
        }
        unsigned v;
        const char *arg = NULL;
        if (!strncmp(tok, "-maxrregcount=", 14))
            arg = tok + 14;
        else if (!strncmp(tok, "--maxrregcount=", 15))
            arg = tok + 15;
        else if (!strcmp(tok, "-maxrregcount") || !strcmp(tok, "--maxrregcount")) {
            while (isspace((unsigned char)*s))
                s++;
            size_t n = 0;
            while (s[n] && !isspace((unsigned char)s[n]))
                n++;
            snprintf(next, sizeof(next), "%.*s", (int)n, s);
            s += n;
            arg = next;
        }
        if (arg) {
            if (parse_uint(arg, &v))
                jit_add(o, CU_JIT_MAX_REGISTERS, v);
            else
                sxc_services->log(SX_LOG_WARN, "cuda: bad register count '%s' ignored", arg);
            continue;
        }
        if (tok[0] == '-' && tok[1] == 'O' && tok[2] >= '0' && tok[2] <= '4' && !tok[3]) {
            jit_add(o, CU_JIT_OPTIMIZATION_LEVEL, (unsigned)(tok[2] - '0'));
        } else if (!strncmp(tok, "--opt-level=", 12) && parse_uint(tok + 12, &v) && v <= 4) {
            jit_add(o, CU_JIT_OPTIMIZATION_LEVEL, v);
        } else if (!strcmp(tok, "-lineinfo") || !strcmp(tok, "--generate-line-info")) {
            jit_add(o, CU_JIT_GENERATE_LINE_INFO, 1);
        } else if (!strcmp(tok, "-g") || !strcmp(tok, "-G") || !strcmp(tok, "--device-debug")) {
            jit_add(o, CU_JIT_GENERATE_DEBUG_INFO, 1);
        } else if (!strcmp(tok, "-v") || !strcmp(tok, "--verbose")) {
            jit_add(o, CU_JIT_LOG_VERBOSE, 1);
        } else {
            sxc_services->log(SX_LOG_INFO, "cuda: build option '%s' has no CUDA JIT meaning; ignored",
                              tok);
        }
    }
}

/* The log options come first (JIT_LOG_OPTS of them); their buffers are
 * set by jit_want_logs. */
static void jit_init(jit_opts *o, const char *a, const char *b)
{
    o->n = 0;
    o->logs = NULL;
    jit_add(o, CU_JIT_INFO_LOG_BUFFER, 0);
    jit_add(o, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, LOG_SIZE);
    jit_add(o, CU_JIT_ERROR_LOG_BUFFER, 0);
    jit_add(o, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, LOG_SIZE);
    jit_parse(o, a);
    jit_parse(o, b);
}

/* Give the log options their buffers; false when out of memory. */
static int jit_want_logs(jit_opts *o)
{
    if (!o->logs && !(o->logs = calloc(2, LOG_SIZE)))
        return 0;
    o->values[0] = o->logs;
    o->values[2] = o->logs + LOG_SIZE;
    return 1;
}

static void jit_fini(jit_opts *o)
{
    free(o->logs);
    o->logs = NULL;
}

/* The error log, else the info log, for messages. */
static const char *jit_log(const jit_opts *o)
{
    if (!o->logs)
        return "(no log)";
    if (o->logs[LOG_SIZE])
        return o->logs + LOG_SIZE;
    if (o->logs[0])
        return o->logs;
    return "(empty log)";
}

/* ---- image kinds ---- */

enum { BIN_PTX, BIN_CUBIN_EXEC, BIN_CUBIN_REL, BIN_FATBIN };

static int binary_class(const sxc_program_t *p)
{
    const unsigned char *b = p->image;
    if (p->kind == SX_IMAGE_KIND_PTX)
        return BIN_PTX;
    if (p->image_size >= 4 && b[0] == 0x50 && b[1] == 0xed && b[2] == 0x55 && b[3] == 0xba)
        return BIN_FATBIN;
    /* ELF: e_type at byte 16 (little-endian); 1 = relocatable (-rdc). */
    if (p->image_size >= 18 && b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F' &&
        b[16] == 1 && b[17] == 0)
        return BIN_CUBIN_REL;
    return BIN_CUBIN_EXEC;
}

static CUjitInputType jit_input(int cls)
{
    switch (cls) {
    case BIN_PTX:
        return CU_JIT_INPUT_PTX;
    case BIN_FATBIN:
        return CU_JIT_INPUT_FATBINARY;
    default:
        return CU_JIT_INPUT_CUBIN;
    }
}

/* ---- program objects ---- */

static sxc_program_t *program_new(sxc_context_t *c, sxc_device_t *d)
{
    static _Atomic uint64_t serials;
    sxc_program_t *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->serial = atomic_fetch_add_explicit(&serials, 1, memory_order_relaxed) + 1;
    p->base.dispatch = SXC_DISPATCH();
    p->context = c;
    p->device = d;
    pthread_mutex_init(&p->lock, NULL);
    return p;
}

static void program_free(sxc_program_t *p)
{
    if (!p)
        return;
    if (p->module) {
        CUcontext cu;
        if (sxc_device_context(p->device, &cu) == SX_SUCCESS && sxc_make_current(cu) == CUDA_SUCCESS)
            sxc_cu.cuModuleUnload(p->module);
    }
    for (uint32_t i = 0; i < p->num_globals; i++)
        free(p->globals[i].name);
    free(p->globals);
    free(p->image);
    free(p->link_options_desc);
    free(p->build_options);
    free(p->cubin);
    free(p->entries);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static sx_result program_create(sxa_context ctx, sxa_device dev, sx_image_kind kind,
                                const void *data, size_t size, const sxa_program_desc *desc,
                                sxa_program *out)
{
    sxc_context_t *c = (sxc_context_t *)ctx;
    sxc_device_t *d = (sxc_device_t *)dev;
    if (kind != SX_IMAGE_KIND_PTX && kind != SX_IMAGE_KIND_CUBIN)
        return sxc_services->error(SX_ERROR_INVALID_BINARY,
                                   "image kind %u: the CUDA adapter takes PTX or cubin", kind);
    if (!data || !size)
        return sxc_services->error(SX_ERROR_INVALID_BINARY, "empty %s image",
                                   kind == SX_IMAGE_KIND_PTX ? "PTX" : "cubin");
    sxc_program_t *p = program_new(c, d);
    if (!p)
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    p->kind = kind;
    /* PTX goes to the driver as a C string: make sure it is one. */
    p->image = malloc(size + 1);
    if (!p->image) {
        program_free(p);
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(p->image, data, size);
    p->image[size] = 0;
    p->image_size = kind == SX_IMAGE_KIND_PTX ? strnlen((const char *)p->image, size) + 1 : size;
    p->state = SXC_PROG_SOURCE;
    if (desc && desc->size >= offsetof(sxa_program_desc, link_options) + sizeof(char *) &&
        desc->link_options && *desc->link_options) {
        p->link_options_desc = strdup(desc->link_options);
    }
    /* desc->kernels is not kept: the driver reports each kernel's
     * parameter sizes itself (cuFuncGetParamInfo), which is all a launch
     * needs; image compile options are applied by the core through build. */
    *out = (sxa_program)p;
    return SX_SUCCESS;
}

/* The log buffers are jit_init's first JIT_LOG_OPTS options. Asking for
 * them costs the driver's JIT-cache hit about a tenth (H100), so a load
 * goes without them and only a failed one is retried with them, for its
 * message (unless -v asked for the log). */

static sx_result load_module(sxc_program_t *p, jit_opts *o)
{
    int verbose = 0;
    for (unsigned i = JIT_LOG_OPTS; i < o->n; i++)
        verbose |= o->keys[i] == CU_JIT_LOG_VERBOSE;
    CUresult r = verbose ? CUDA_ERROR_UNKNOWN
                         : sxc_cu.cuModuleLoadDataEx(&p->module, p->image, o->n - JIT_LOG_OPTS,
                                                     o->keys + JIT_LOG_OPTS, o->values + JIT_LOG_OPTS);
    if (r != CUDA_SUCCESS) {
        if (!jit_want_logs(o))
            return SX_ERROR_OUT_OF_HOST_MEMORY;
        r = sxc_cu.cuModuleLoadDataEx(&p->module, p->image, o->n, o->keys, o->values);
    }
    if (r != CUDA_SUCCESS) {
        p->module = NULL;
        return sxc_error(SX_ERROR_BUILD_FAILURE, r, "cuModuleLoadDataEx for program %p (%s, %zu bytes): %s",
                         (void *)p, p->kind == SX_IMAGE_KIND_PTX ? "PTX" : "cubin", p->image_size,
                         jit_log(o));
    }
    return SX_SUCCESS;
}

/* Link `n` inputs into a cubin (malloc'ed copy in *cubin); `who` names the
 * program in messages. */
static sx_result link_cubin(const void *who, uint32_t n, sxc_program_t *const *in, const char *options,
                            const char *options2, sx_result fail_code, unsigned char **cubin_out,
                            size_t *size_out)
{
    jit_opts opts, *o = &opts;
    jit_init(o, options, options2);
    if (!jit_want_logs(o))
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    CUlinkState ls = NULL;
    sx_result rc = SX_SUCCESS;
    CUresult r = sxc_cu.cuLinkCreate_v2(o->n, o->keys, o->values, &ls);
    if (r != CUDA_SUCCESS) {
        rc = sxc_error(SX_SUCCESS, r, "cuLinkCreate for program %p", who);
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        int cls = binary_class(in[i]);
        char label[32];
        snprintf(label, sizeof(label), "input%u", i);
        r = sxc_cu.cuLinkAddData_v2(ls, jit_input(cls), in[i]->image, in[i]->image_size, label, 0,
                                    NULL, NULL);
        if (r != CUDA_SUCCESS) {
            rc = sxc_error(fail_code, r, "cuLinkAddData of program %p (input %u of %u) for program %p: %s",
                           (void *)in[i], i, n, who, jit_log(o));
            goto done;
        }
    }
    void *cubin = NULL;
    size_t cubin_size = 0;
    r = sxc_cu.cuLinkComplete(ls, &cubin, &cubin_size);
    if (r != CUDA_SUCCESS) {
        rc = sxc_error(fail_code, r, "cuLinkComplete for program %p (%u inputs): %s", who, n,
                       jit_log(o));
        goto done;
    }
    unsigned char *copy = malloc(cubin_size);
    if (!copy) {
        rc = SX_ERROR_OUT_OF_HOST_MEMORY;
        goto done;
    }
    memcpy(copy, cubin, cubin_size);
    *cubin_out = copy;
    *size_out = cubin_size;
done:
    if (ls)
        sxc_cu.cuLinkDestroy(ls);
    jit_fini(o);
    return rc;
}

/* Link `n` inputs into a cubin held by the new program `out` and load it. */
static sx_result link_into(sxc_program_t *out, uint32_t n, sxc_program_t *const *in,
                           const char *options, const char *options2, sx_result fail_code)
{
    unsigned char *cubin = NULL;
    size_t size = 0;
    sx_result rc = link_cubin(out, n, in, options, options2, fail_code, &cubin, &size);
    if (rc != SX_SUCCESS)
        return rc;
    free(out->image);
    out->image = cubin;
    out->image_size = size;
    out->kind = SX_IMAGE_KIND_CUBIN;
    /* The JIT already ran at link time: load with the logs only. */
    jit_opts o;
    jit_init(&o, NULL, NULL);
    rc = load_module(out, &o);
    if (rc == SX_SUCCESS)
        out->state = SXC_PROG_EXECUTABLE;
    jit_fini(&o);
    return rc;
}

/* Does the PTX refer to a function or variable outside itself? Dynamic
 * shared memory (.extern .shared) does not count; a mention in a comment
 * only sends it the slower, equally correct way. */
static int ptx_has_extern(const sxc_program_t *p)
{
    const char *s = (const char *)p->image, *end = s + p->image_size;
    while ((s = memmem(s, (size_t)(end - s), ".extern", 7)) != NULL) {
        s += 7;
        const char *t = s;
        while (t < end && (*t == ' ' || *t == '\t'))
            t++;
        if ((size_t)(end - t) < 7 || memcmp(t, ".shared", 7) != 0)
            return 1;
    }
    return 0;
}

static sx_result program_current(sxc_program_t *p)
{
    CUcontext cu;
    sx_result rc = sxc_device_context(p->device, &cu);
    if (rc != SX_SUCCESS)
        return rc;
    CUresult r = sxc_make_current(cu);
    if (r != CUDA_SUCCESS)
        return sxc_error(SX_SUCCESS, r, "cuCtxSetCurrent for device %s", p->device->name);
    return SX_SUCCESS;
}

static sx_result program_build(sxa_program program, const char *options)
{
    sxc_program_t *p = (sxc_program_t *)program;
    if (p->state == SXC_PROG_EXECUTABLE)
        return sxc_services->error(SX_ERROR_INVALID_OPERATION, "program %p is already built",
                                   (void *)p);
    sx_result rc = program_current(p);
    if (rc != SX_SUCCESS)
        return rc;
    int cls = binary_class(p);
    if (cls == BIN_CUBIN_EXEC || cls == BIN_FATBIN) {
        jit_opts o;
        jit_init(&o, options, NULL);
        rc = load_module(p, &o);
        jit_fini(&o);
        if (rc == SX_SUCCESS)
            p->state = SXC_PROG_EXECUTABLE;
        return rc;
    }
    if (cls == BIN_PTX && !ptx_has_extern(p)) {
        jit_opts o;
        jit_init(&o, options, p->link_options_desc);
        rc = load_module(p, &o);
        jit_fini(&o);
        if (rc == SX_SUCCESS) {
            p->build_options = options && *options ? strdup(options) : NULL;
            if (options && *options && !p->build_options) {
                sxc_cu.cuModuleUnload(p->module);
                p->module = NULL;
                return SX_ERROR_OUT_OF_HOST_MEMORY;
            }
            p->state = SXC_PROG_EXECUTABLE;
            return SX_SUCCESS;
        }
        /* Whatever the whole-module JIT refused, the linker decides (its
         * log then says why a bad PTX is bad). */
        sxc_services->log(SX_LOG_INFO, "cuda: program %p: cuModuleLoadDataEx refused the PTX; linking instead",
                          (void *)p);
    }
    /* PTX with external references and relocatable cubins go through the
     * linker: it resolves what -rdc left open and hands back the cubin
     * that get_binary returns for the persistent cache. */
    sxc_program_t *self = p;
    return link_into(p, 1, &self, options, p->link_options_desc, SX_ERROR_BUILD_FAILURE);
}

static sx_result program_compile(sxa_program program, const char *options)
{
    sxc_program_t *p = (sxc_program_t *)program;
    if (p->state == SXC_PROG_EXECUTABLE)
        return sxc_services->error(SX_ERROR_INVALID_OPERATION, "program %p is already built",
                                   (void *)p);
    int cls = binary_class(p);
    if (cls == BIN_CUBIN_EXEC)
        return sxc_services->error(SX_ERROR_INVALID_OPERATION,
                                   "program %p is an executable cubin: it cannot be linked (build it, "
                                   "or give a relocatable one from nvcc -rdc=true)",
                                   (void *)p);
    /* PTX stays PTX: the JIT runs once, at link time, over all inputs. */
    p->state = SXC_PROG_OBJECT;
    return SX_SUCCESS;
}

static sx_result program_link(sxa_context ctx, sxa_device dev, uint32_t count,
                              const sxa_program *programs, const char *options, sxa_program *out)
{
    sxc_context_t *c = (sxc_context_t *)ctx;
    sxc_device_t *d = (sxc_device_t *)dev;
    if (!count || !programs || !out)
        return sxc_services->error(SX_ERROR_INVALID_VALUE, "link of %u programs", count);
    for (uint32_t i = 0; i < count; i++) {
        const sxc_program_t *in = (const sxc_program_t *)programs[i];
        if (!in)
            return sxc_services->error(SX_ERROR_INVALID_NULL_HANDLE, "link input %u is NULL", i);
        if (in->device != d)
            return sxc_services->error(SX_ERROR_INVALID_DEVICE,
                                       "link input %u (program %p) is for %s, not %s", i,
                                       (const void *)in, in->device->name, d->name);
        if (binary_class(in) == BIN_CUBIN_EXEC)
            return sxc_services->error(SX_ERROR_INVALID_OPERATION,
                                       "link input %u (program %p) is an executable cubin", i,
                                       (const void *)in);
    }
    sxc_program_t *p = program_new(c, d);
    if (!p)
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    sx_result rc = program_current(p);
    if (rc == SX_SUCCESS)
        rc = link_into(p, count, (sxc_program_t *const *)programs, options, NULL,
                       SX_ERROR_LINK_FAILURE);
    if (rc != SX_SUCCESS) {
        program_free(p);
        return rc;
    }
    *out = (sxa_program)p;
    return SX_SUCCESS;
}

static sx_result program_release(sxa_program program)
{
    program_free((sxc_program_t *)program);
    return SX_SUCCESS;
}

static sx_result program_get_binary(sxa_program program, sx_image_kind *kind, size_t size,
                                    void *value, size_t *size_ret)
{
    sxc_program_t *p = (sxc_program_t *)program;
    if (p->state != SXC_PROG_EXECUTABLE)
        return sxc_services->error(SX_ERROR_INVALID_OPERATION, "program %p is not built", (void *)p);
    if (p->kind != SX_IMAGE_KIND_PTX) {
        if (kind)
            *kind = p->kind;
        return sxa_info_copy(p->image, p->image_size, size, value, size_ret);
    }
    /* A PTX loaded whole: its cubin, linked with the same options on first
     * request (the driver's JIT cache makes that cheap after the load). */
    pthread_mutex_lock(&p->lock);
    sx_result rc = SX_SUCCESS;
    if (!p->cubin && (rc = program_current(p)) == SX_SUCCESS)
        rc = link_cubin(p, 1, &p, p->build_options, p->link_options_desc, SX_ERROR_BUILD_FAILURE, &p->cubin,
                        &p->cubin_size);
    if (rc == SX_SUCCESS) {
        if (kind)
            *kind = SX_IMAGE_KIND_CUBIN;
        rc = sxa_info_copy(p->cubin, p->cubin_size, size, value, size_ret);
    }
    pthread_mutex_unlock(&p->lock);
    return rc;
}

/* This thread's last variable found: a repeated copy of one variable (the
 * usual loop) needs no lock and no search. The caller keeps `p` alive for
 * the call; the serial tells it from a later program at the same address,
 * and a variable's address is fixed for its module's life. */
typedef struct {
    const sxc_program_t *program;
    uint64_t serial;
    CUdeviceptr ptr;
    size_t size;
    char name[64];
} global_memo;
static _Thread_local global_memo last_global;

static sx_result program_global_find(sxc_program_t *p, const char *name, CUdeviceptr *ptr, size_t *size);

sx_result sxc_program_global(sxc_program_t *p, const char *name, CUdeviceptr *ptr, size_t *size)
{
    if (!name)
        return sxc_services->error(SX_ERROR_INVALID_NULL_POINTER, "global name is NULL");
    if (p->state != SXC_PROG_EXECUTABLE)
        return sxc_services->error(SX_ERROR_INVALID_OPERATION, "program %p is not built", (void *)p);
    global_memo *m = &last_global;
    if (m->program == p && m->serial == p->serial && strcmp(m->name, name) == 0) {
        *ptr = m->ptr;
        *size = m->size;
        return SX_SUCCESS;
    }
    CUdeviceptr dp = 0;
    size_t bytes = 0;
    sx_result rc = program_global_find(p, name, &dp, &bytes);
    if (rc == SX_SUCCESS && strlen(name) < sizeof(m->name)) {
        *m = (global_memo){p, p->serial, dp, bytes, ""};
        memcpy(m->name, name, strlen(name) + 1);
    }
    *ptr = dp;
    *size = bytes;
    return rc;
}

/* The variable's address and size: the program's list, else the driver. */
static sx_result program_global_find(sxc_program_t *p, const char *name, CUdeviceptr *ptr, size_t *size)
{
    pthread_mutex_lock(&p->lock);
    for (uint32_t i = 0; i < p->num_globals; i++) {
        if (!strcmp(p->globals[i].name, name)) {
            *ptr = p->globals[i].ptr;
            *size = p->globals[i].size;
            pthread_mutex_unlock(&p->lock);
            return SX_SUCCESS;
        }
    }
    CUdeviceptr dp = 0;
    size_t bytes = 0;
    CUresult r = sxc_cu.cuModuleGetGlobal_v2(&dp, &bytes, p->module, name);
    if (r != CUDA_SUCCESS) {
        pthread_mutex_unlock(&p->lock);
        if (r == CUDA_ERROR_NOT_FOUND)
            return sxc_error(SX_ERROR_INVALID_GLOBAL_NAME, r,
                             "cuModuleGetGlobal: program %p has no variable '%s'", (void *)p, name);
        return sxc_error(SX_SUCCESS, r, "cuModuleGetGlobal for '%s' in program %p", name, (void *)p);
    }
    if (p->num_globals == p->cap_globals) {
        uint32_t cap = p->cap_globals ? p->cap_globals * 2 : 8;
        sxc_global *g = realloc(p->globals, cap * sizeof(*g));
        if (g) {
            p->globals = g;
            p->cap_globals = cap;
        }
    }
    char *copy = p->num_globals < p->cap_globals ? strdup(name) : NULL;
    if (copy) {
        p->globals[p->num_globals].name = copy;
        p->globals[p->num_globals].ptr = dp;
        p->globals[p->num_globals].size = bytes;
        p->num_globals++;
    }
    pthread_mutex_unlock(&p->lock);
    *ptr = dp;
    *size = bytes;
    return SX_SUCCESS;
}

static sx_result program_get_global(sxa_program program, const char *name, size_t *size,
                                    void **ptr)
{
    CUdeviceptr dp;
    size_t bytes;
    sx_result rc = sxc_program_global((sxc_program_t *)program, name, &dp, &bytes);
    if (rc != SX_SUCCESS)
        return rc;
    if (size)
        *size = bytes;
    if (ptr)
        *ptr = (void *)(uintptr_t)dp;
    return SX_SUCCESS;
}

const sxa_program_table sxc_program_table = {
    .size = sizeof(sxa_program_table),
    .create = program_create,
    .build = program_build,
    .compile = program_compile,
    .link = program_link,
    .release = program_release,
    .get_binary = program_get_binary,
    .get_global = program_get_global,
};

/* ---- kernels ---- */

static sx_result kernel_create(sxa_program program, const char *name, sxa_kernel *out)
{
    sxc_program_t *p = (sxc_program_t *)program;
    if (!name)
        return sxc_services->error(SX_ERROR_INVALID_NULL_POINTER, "kernel name is NULL");
    if (p->state != SXC_PROG_EXECUTABLE)
        return sxc_services->error(SX_ERROR_INVALID_PROGRAM, "program %p is not built", (void *)p);
    CUfunction fn;
    CUresult r = sxc_cu.cuModuleGetFunction(&fn, p->module, name);
    if (r == CUDA_ERROR_NOT_FOUND)
        return sxc_error(SX_ERROR_INVALID_KERNEL_NAME, r,
                         "cuModuleGetFunction: program %p has no kernel '%s'", (void *)p, name);
    if (r != CUDA_SUCCESS)
        return sxc_error(SX_SUCCESS, r, "cuModuleGetFunction for '%s' in program %p", name,
                         (void *)p);
    size_t len = strlen(name);
    sxc_kernel_t *k = calloc(1, sizeof(*k) + len + 1);
    if (!k)
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    k->base.dispatch = SXC_DISPATCH();
    k->program = p;
    k->fn = fn;
    memcpy(k->name, name, len + 1);
    pthread_mutex_init(&k->lock, NULL);
    /* The parameter list: launches check argument indices and value sizes
     * against it, so a wrong call cannot make the driver read past an
     * argument. The program's bytes say it for free; the driver's answer
     * (one call per parameter, and one past the last) costs far more
     * before the first launch. */
    k->num_params = UINT32_MAX;
    int got = sxc_params_from_image(p, name, &k->param_size, &k->num_params);
    if (got < 0) {
        pthread_mutex_destroy(&k->lock);
        free(k);
        return SX_ERROR_OUT_OF_HOST_MEMORY;
    }
    if (got == 0 && sxc_cu.cuFuncGetParamInfo) {
        uint32_t n = 0, cap = 0, *sizes = NULL;
        size_t off, sz;
        while (n < 65536 && sxc_cu.cuFuncGetParamInfo(fn, n, &off, &sz) == CUDA_SUCCESS) {
            if (n == cap) {
                uint32_t *g = realloc(sizes, (cap = cap ? cap * 2 : 8) * sizeof(uint32_t));
                if (!g) {
                    free(sizes);
                    pthread_mutex_destroy(&k->lock);
                    free(k);
                    return SX_ERROR_OUT_OF_HOST_MEMORY;
                }
                sizes = g;
            }
            sizes[n++] = (uint32_t)sz;
        }
        k->param_size = sizes;
        k->num_params = n;
    }
    *out = (sxa_kernel)k;
    return SX_SUCCESS;
}

void sxc_kernel_attrs(sxc_kernel_t *k)
{
    if (atomic_load_explicit(&k->attrs_known, memory_order_acquire))
        return;
    pthread_mutex_lock(&k->lock);
    if (!atomic_load_explicit(&k->attrs_known, memory_order_relaxed)) {
        int v = 0;
        if (sxc_cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn) == CUDA_SUCCESS)
            k->max_threads = v;
        if (sxc_cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn) == CUDA_SUCCESS)
            k->static_smem = v;
        if (sxc_cu.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, k->fn) == CUDA_SUCCESS)
            atomic_store_explicit(&k->dyn_smem_limit, v, memory_order_relaxed);
        atomic_store_explicit(&k->attrs_known, 1, memory_order_release);
    }
    pthread_mutex_unlock(&k->lock);
}

static sx_result kernel_release(sxa_kernel kernel)
{
    sxc_kernel_t *k = (sxc_kernel_t *)kernel;
    if (k) {
        pthread_mutex_destroy(&k->lock);
        free(k->param_size);
        free(k);
    }
    return SX_SUCCESS;
}

static sx_result kernel_get_info(sxa_kernel kernel, sxa_kernel_info param, size_t size,
                                 void *value, size_t *size_ret)
{
    sxc_kernel_t *k = (sxc_kernel_t *)kernel;
    if (param == SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE || param == SXA_KERNEL_INFO_LOCAL_MEM_SIZE)
        sxc_kernel_attrs(k);
    switch (param) {
    case SXA_KERNEL_INFO_NUM_ARGS:
        if (k->num_params == UINT32_MAX)
            return sxc_services->error(SX_ERROR_UNSUPPORTED_FEATURE,
                                       "kernel '%s': the driver lacks cuFuncGetParamInfo", k->name);
        return sxa_info_copy(&k->num_params, sizeof(uint32_t), size, value, size_ret);
    case SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE: {
        size_t v = (size_t)k->max_threads;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SXA_KERNEL_INFO_LOCAL_MEM_SIZE: {
        uint64_t v = (uint64_t)k->static_smem;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    default:
        return sxc_services->error(SX_ERROR_INVALID_ENUMERATION, "kernel info %u unknown", param);
    }
}

const sxa_kernel_table sxc_kernel_table = {
    .size = sizeof(sxa_kernel_table),
    .create = kernel_create,
    .release = kernel_release,
    .get_info = kernel_get_info,
};
