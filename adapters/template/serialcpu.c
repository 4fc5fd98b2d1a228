/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* serialcpu.c: a complete small adapter grown from template.c, as a vendor
 * would write it outside the tree: a pretend "serial CPU" device that runs
 * host-ELF images (sycl-ext/host-elf.h) one work-item after another on the
 * calling thread, through libffi, with the builtins module every host-ELF
 * adapter shares. It has no fibers, so a kernel that reaches barrier() in a
 * group of more than one work-item fails its launch with
 * SX_ERROR_UNSUPPORTED_FEATURE (sx-adapter-cts reports launch.barrier as a
 * SKIP), while the image's other kernels run.
 * Build it against the installed kit alone:
 *   cc -std=gnu11 $(pkg-config --cflags sycl-ext-adapter libffi) serialcpu.c \
 *      -DSERIAL_BUILTINS_DIR="\"$(pkg-config --variable=adapterdir sycl-ext-adapter)\"" \
 *      $(pkg-config --libs sycl-ext-adapter libffi) -o sx-adapter-serialcpu.so
 * and install it in the adapter directory to have it discovered; select its
 * device with SX_DEVICE_SELECTOR=serialcpu:*. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <ffi.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/host-elf.h>

#ifndef SERIAL_BUILTINS_DIR
#define SERIAL_BUILTINS_DIR "/usr/local/lib/sycl-ext"
#endif
#define SERIAL_MAX_GROUP 1024
#define SERIAL_LOCAL_MEM (64u * 1024u)

struct sxa_adapter_s {
    sxa_object base;
    void *builtins;            /* the shared builtins module, loaded at the first program */
    sxn_set_item_fn set_item;
    pthread_mutex_t lock;
};
struct sxa_platform_s {
    sxa_object base;
};
struct sxa_device_s {
    sxa_object base;
};
struct sxa_context_s {
    sxa_object base;
};
struct sxa_queue_s {
    sxa_object base;
};
struct sxa_event_s {
    sxa_object base;
};
typedef struct serial_sig {
    char *name;
    uint32_t num_params;
    sxa_kernel_param *params;  /* members point into `members` */
    sxa_param_member *members;
} serial_sig;
struct sxa_program_s {
    sxa_object base;
    void *dl;
    int fd;                    /* the memfd holding the image */
    uint32_t num_sigs;
    serial_sig *sigs;          /* copied: the desc is valid only during create */
};
struct sxa_kernel_s {
    sxa_object base;
    sxa_program program;
    const serial_sig *sig;
    void (*fn)(void);
    ffi_cif cif;
    ffi_type **types;          /* one per parameter */
    ffi_type *structs;         /* one per parameter, used by struct ones */
    ffi_type **elements;       /* the struct members' types, NULL-terminated per struct */
};

static const sxa_services *svc;
static struct sxa_adapter_s the_adapter = {.lock = PTHREAD_MUTEX_INITIALIZER};
static struct sxa_platform_s the_platform;
static struct sxa_device_s the_device;

static sx_result serial_error(sx_result code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static sx_result serial_error(sx_result code, const char *fmt, ...)
{
    if (!svc)
        return code;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return svc->error(code, "serialcpu: %s", msg);
}
#define OOM() serial_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory in %s", __func__)

/* ----------------------------------------------------------- adapter */

static sx_result serial_init(const sxa_services *services, sxa_adapter *out)
{
    if (!services || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    svc = services;
    the_adapter.base.dispatch = the_platform.base.dispatch = the_device.base.dispatch = services->dispatch;
    *out = &the_adapter;
    return SX_SUCCESS;
}

static sx_result serial_fini(sxa_adapter adapter)
{
    /* The builtins module stays: other adapters may share it, and unloading
     * code at exit only invites teardown-order crashes. */
    svc = NULL;
    return SX_SUCCESS;
}

static sx_result serial_adapter_get_info(sxa_adapter adapter, sxa_adapter_info param, size_t size, void *value,
                                         size_t *size_ret)
{
    switch (param) {
    case SXA_ADAPTER_INFO_NAME: return sxa_info_string("serialcpu", size, value, size_ret);
    case SXA_ADAPTER_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_OTHER;
        return sxa_info_copy(&b, sizeof b, size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_VERSION: {
        uint32_t v = SXA_MAKE_VERSION(0, 1);
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    case SXA_ADAPTER_INFO_STATUS:
        return sxa_info_string("1 platform: a serial CPU running host-ELF images one work-item at a time", size,
                               value, size_ret);
    }
    return serial_error(SX_ERROR_INVALID_ENUMERATION, "adapter info %u unknown", param);
}

/* ---------------------------------------------------- platform, device */

static sx_result serial_platform_get(sxa_adapter adapter, uint32_t count, sxa_platform *platforms, uint32_t *num)
{
    if (num)
        *num = 1;
    if (platforms && count)
        platforms[0] = &the_platform;
    return SX_SUCCESS;
}

static sx_result serial_platform_get_info(sxa_platform platform, sx_platform_info param, size_t size, void *value,
                                          size_t *size_ret)
{
    switch (param) {
    case SX_PLATFORM_INFO_NAME: return sxa_info_string("serial CPU platform", size, value, size_ret);
    case SX_PLATFORM_INFO_VENDOR: return sxa_info_string("libsycl-ext example", size, value, size_ret);
    case SX_PLATFORM_INFO_VERSION: return sxa_info_string("0.1", size, value, size_ret);
    case SX_PLATFORM_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_OTHER;
        return sxa_info_copy(&b, sizeof b, size, value, size_ret);
    }
    }
    return serial_error(SX_ERROR_INVALID_ENUMERATION, "platform info %u unknown", param);
}

static sx_result serial_device_get(sxa_platform platform, sx_device_type type, uint32_t count, sxa_device *devices,
                                   uint32_t *num)
{
    uint32_t n = (type & SX_DEVICE_TYPE_CPU) ? 1 : 0;
    if (num)
        *num = n;
    if (devices && count && n)
        devices[0] = &the_device;
    return SX_SUCCESS;
}

static sx_result serial_device_get_info(sxa_device device, sx_device_info param, size_t size, void *value,
                                        size_t *size_ret)
{
    switch (param) {
    case SX_DEVICE_INFO_TYPE: {
        sx_device_type t = SX_DEVICE_TYPE_CPU;
        return sxa_info_copy(&t, sizeof t, size, value, size_ret);
    }
    case SX_DEVICE_INFO_NAME: return sxa_info_string("serial CPU", size, value, size_ret);
    case SX_DEVICE_INFO_VENDOR: return sxa_info_string("libsycl-ext example", size, value, size_ret);
    case SX_DEVICE_INFO_DRIVER_VERSION: return sxa_info_string("0.1", size, value, size_ret);
    case SX_DEVICE_INFO_BACKEND: {
        sx_backend b = SX_BACKEND_OTHER;
        return sxa_info_copy(&b, sizeof b, size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE: {
        size_t v = SERIAL_MAX_GROUP;
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_WORK_ITEM_SIZES: {
        size_t v[3] = {SERIAL_MAX_GROUP, SERIAL_MAX_GROUP, SERIAL_MAX_GROUP};
        return sxa_info_copy(v, sizeof v, size, value, size_ret);
    }
    case SX_DEVICE_INFO_LOCAL_MEM_SIZE: {
        uint64_t v = SERIAL_LOCAL_MEM;
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    case SX_DEVICE_INFO_GLOBAL_MEM_SIZE: {
        uint64_t v = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    case SX_DEVICE_INFO_MAX_COMPUTE_UNITS: {
        uint32_t v = 1;
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    case SX_DEVICE_INFO_ASPECTS: {
        sx_aspect_set a = SX_ASPECT_BIT(SX_ASPECT_CPU) | SX_ASPECT_BIT(SX_ASPECT_FP64) |
                          SX_ASPECT_BIT(SX_ASPECT_USM_DEVICE_ALLOCATIONS) |
                          SX_ASPECT_BIT(SX_ASPECT_USM_HOST_ALLOCATIONS) |
                          SX_ASPECT_BIT(SX_ASPECT_USM_SHARED_ALLOCATIONS);
        return sxa_info_copy(&a, sizeof a, size, value, size_ret);
    }
    case SX_DEVICE_INFO_IMAGE_KINDS: {
        sx_image_kind k = SX_IMAGE_KIND_HOST_ELF;
        return sxa_info_copy(&k, sizeof k, size, value, size_ret);
    }
    case SX_DEVICE_INFO_NONUNIFORM_WORK_GROUPS: {
        uint32_t v = 0;
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    case SX_DEVICE_INFO_PLATFORM: {
        sxa_platform p = &the_platform;
        return sxa_info_copy(&p, sizeof p, size, value, size_ret);
    }
    }
    return serial_error(SX_ERROR_INVALID_ENUMERATION, "device info %u unknown", param);
}

/* ----------------------------------------------- context, queue, events */

static sx_result serial_context_create(uint32_t n, const sxa_device *devices, sxa_context *out)
{
    struct sxa_context_s *c = malloc(sizeof *c);
    if (!c)
        return OOM();
    c->base.dispatch = svc->dispatch;
    *out = c;
    return SX_SUCCESS;
}
static sx_result serial_context_release(sxa_context c)
{
    free(c);
    return SX_SUCCESS;
}
static sx_result serial_queue_create(sxa_context c, sxa_device d, uint32_t flags, sxa_queue *out)
{
    struct sxa_queue_s *q = malloc(sizeof *q);
    if (!q)
        return OOM();
    q->base.dispatch = svc->dispatch;
    *out = q;
    return SX_SUCCESS;
}
static sx_result serial_queue_release(sxa_queue q)
{
    free(q);
    return SX_SUCCESS;
}
/* Every command runs to completion before its enqueue returns. */
static sx_result serial_queue_finish(sxa_queue q)
{
    return SX_SUCCESS;
}
static sx_result event_new(sxa_event *out)
{
    if (!out)
        return SX_SUCCESS;
    struct sxa_event_s *e = malloc(sizeof *e);
    if (!e)
        return OOM();
    e->base.dispatch = svc->dispatch;
    *out = e;
    return SX_SUCCESS;
}
static sx_result serial_event_wait(uint32_t n, const sxa_event *events)
{
    return SX_SUCCESS;
}
static sx_result serial_event_status(sxa_event e, sx_event_status *st)
{
    *st = SX_EVENT_STATUS_COMPLETE;
    return SX_SUCCESS;
}
static sx_result serial_event_release(sxa_event e)
{
    free(e);
    return SX_SUCCESS;
}

/* ---------------------------------------------------------------- USM */

static sx_result serial_usm_alloc(sxa_context c, sxa_device d, sx_usm_type type, size_t size, size_t align, void **out)
{
    if (align & (align - 1))
        return serial_error(SX_ERROR_INVALID_VALUE, "USM alignment %zu is not a power of two", align);
    void *p = NULL;
    if (posix_memalign(&p, align > 64 ? align : 64, size ? size : 1) != 0)
        return serial_error(SX_ERROR_OUT_OF_DEVICE_MEMORY, "cannot allocate %zu bytes of USM", size);
    *out = p;
    return SX_SUCCESS;
}
static sx_result serial_usm_free(sxa_context c, void *p)
{
    free(p);
    return SX_SUCCESS;
}
static sx_result serial_memcpy(sxa_queue q, int blocking, void *dst, const void *src, size_t size, uint32_t n,
                               const sxa_event *wait, sxa_event *out)
{
    memmove(dst, src, size);
    return event_new(out);
}
static sx_result serial_fill(sxa_queue q, void *ptr, size_t psize, const void *pattern, size_t size, uint32_t n,
                             const sxa_event *wait, sxa_event *out)
{
    if (!psize || size % psize)
        return serial_error(SX_ERROR_INVALID_SIZE, "fill of %zu bytes with a %zu-byte pattern", size, psize);
    for (size_t i = 0; i < size; i += psize)
        memcpy((char *)ptr + i, pattern, psize);
    return event_new(out);
}
static sx_result serial_barrier(sxa_queue q, uint32_t n, const sxa_event *wait, sxa_event *out)
{
    return event_new(out);
}

/* ------------------------------------------------------------ programs */

/* Load the builtins module every host-ELF adapter shares (host-elf.h). */
static sx_result builtins_load(void)
{
    sx_result r = SX_SUCCESS;
    pthread_mutex_lock(&the_adapter.lock);
    if (!the_adapter.set_item) {
        const char *env = svc->getenv ? svc->getenv("SX_NATIVE_BUILTINS") : NULL;
        char path[4096];
        snprintf(path, sizeof path, "%s", env && *env ? env : SERIAL_BUILTINS_DIR "/" SX_HOST_BUILTINS_FILE);
        void *dl = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
        const uint32_t *abi = dl ? dlsym(dl, SX_HOST_BUILTINS_ABI_SYMBOL) : NULL;
        void *set = dl ? dlsym(dl, SX_HOST_BUILTINS_SET_SYMBOL) : NULL;
        if (!dl)
            r = serial_error(SX_ERROR_BUILD_FAILURE, "cannot load the builtins module: %s", dlerror());
        else if (!abi || *abi != SX_HOST_BUILTINS_ABI || !set)
            r = serial_error(SX_ERROR_BUILD_FAILURE, "%s speaks builtins ABI %u, not %u", path, abi ? *abi : 0,
                             SX_HOST_BUILTINS_ABI);
        else {
            the_adapter.builtins = dl;
            memcpy(&the_adapter.set_item, &set, sizeof set);
        }
    }
    pthread_mutex_unlock(&the_adapter.lock);
    return r;
}

/* A first look at the bytes, for a clear message; dlopen checks the rest. */
static sx_result check_elf(const unsigned char *b, size_t n)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
    if (n < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_machine != EM_X86_64 || eh->e_type != ET_DYN)
        return serial_error(SX_ERROR_INVALID_BINARY, "the %zu-byte image is not an x86-64 ELF shared object", n);
    return SX_SUCCESS;
}

static void sigs_free(serial_sig *sigs, uint32_t n)
{
    for (uint32_t i = 0; sigs && i < n; i++) {
        free(sigs[i].name);
        free(sigs[i].params);
        free(sigs[i].members);
    }
    free(sigs);
}

/* The desc lives only during program.create: keep copies. */
static sx_result sigs_copy(const sxa_program_desc *desc, serial_sig **out, uint32_t *num)
{
    *out = NULL;
    *num = 0;
    if (!desc || !desc->num_kernels)
        return SX_SUCCESS;
    serial_sig *s = calloc(desc->num_kernels, sizeof *s);
    if (!s)
        return OOM();
    for (uint32_t k = 0; k < desc->num_kernels; k++) {
        const sxa_kernel_signature *ks = &desc->kernels[k];
        uint32_t nm = 0;
        for (uint32_t i = 0; i < ks->num_params; i++)
            nm += ks->params[i].num_members;
        s[k].name = strdup(ks->name ? ks->name : "");
        s[k].num_params = ks->num_params;
        s[k].params = calloc(ks->num_params ? ks->num_params : 1, sizeof *s[k].params);
        s[k].members = calloc(nm ? nm : 1, sizeof *s[k].members);
        if (!s[k].name || !s[k].params || !s[k].members) {
            sigs_free(s, k + 1);
            return OOM();
        }
        nm = 0;
        for (uint32_t i = 0; i < ks->num_params; i++) {
            s[k].params[i] = ks->params[i];
            s[k].params[i].members = &s[k].members[nm];
            for (uint32_t m = 0; m < ks->params[i].num_members; m++)
                s[k].members[nm++] = ks->params[i].members[m];
        }
    }
    *out = s;
    *num = desc->num_kernels;
    return SX_SUCCESS;
}

static sx_result serial_program_release(sxa_program p)
{
    if (p->dl)
        dlclose(p->dl);
    if (p->fd >= 0)
        close(p->fd);
    sigs_free(p->sigs, p->num_sigs);
    free(p);
    return SX_SUCCESS;
}

static sx_result serial_program_create(sxa_context c, sxa_device d, sx_image_kind kind, const void *data,
                                       size_t size, const sxa_program_desc *desc, sxa_program *out)
{
    if (kind != SX_IMAGE_KIND_HOST_ELF)
        return serial_error(SX_ERROR_INVALID_BINARY, "image kind %u: only host ELF images run here", kind);
    struct sxa_program_s *p = calloc(1, sizeof *p);
    if (!p)
        return OOM();
    p->base.dispatch = svc->dispatch;
    p->fd = -1;
    sx_result r = check_elf(data, size);
    if (r == SX_SUCCESS)
        r = builtins_load();
    if (r == SX_SUCCESS)
        r = sigs_copy(desc, &p->sigs, &p->num_sigs);
    if (r == SX_SUCCESS) {
        /* From memory: no file written, and each program its own copy. */
        p->fd = memfd_create("serialcpu-image", MFD_CLOEXEC);
        char path[64];
        snprintf(path, sizeof path, "/proc/self/fd/%d", p->fd);
        if (p->fd < 0 || write(p->fd, data, size) != (ssize_t)size)
            r = serial_error(SX_ERROR_OUT_OF_RESOURCES, "cannot stage the %zu-byte image in a memfd", size);
        else if (!(p->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
            r = serial_error(SX_ERROR_BUILD_FAILURE, "dlopen of the image failed: %s", dlerror());
        else if (dlsym(p->dl, "__sx_wg_abi"))
            r = serial_error(SX_ERROR_INVALID_BINARY, "a compiled work-group image (doc/host-elf.md): this "
                             "device runs only images of one function per work-item");
    }
    if (r != SX_SUCCESS) {
        serial_program_release(p);
        return r;
    }
    *out = p;
    return SX_SUCCESS;
}

/* Host-ELF images arrive built. */
static sx_result serial_program_build(sxa_program p, const char *options)
{
    return SX_SUCCESS;
}

static sx_result serial_program_get_global(sxa_program p, const char *name, size_t *size, void **ptr)
{
    void *addr = dlsym(p->dl, name);
    const ElfW(Sym) *sym = NULL;
    Dl_info info;
    if (!addr || !dladdr1(addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
        ELF64_ST_TYPE(sym->st_info) != STT_OBJECT)
        return serial_error(SX_ERROR_INVALID_GLOBAL_NAME, "the program has no variable '%s'", name);
    *size = sym->st_size;
    *ptr = addr;
    return SX_SUCCESS;
}

static sx_result global_range(sxa_program p, const char *name, size_t count, size_t offset, char **at)
{
    size_t size;
    void *ptr;
    sx_result r = serial_program_get_global(p, name, &size, &ptr);
    if (r != SX_SUCCESS)
        return r;
    if (offset > size || count > size - offset)
        return serial_error(SX_ERROR_INVALID_VALUE, "variable '%s': %zu bytes at offset %zu pass its %zu", name,
                            count, offset, size);
    *at = (char *)ptr + offset;
    return SX_SUCCESS;
}
static sx_result serial_global_write(sxa_queue q, sxa_program p, const char *name, int blocking, size_t count,
                                     size_t offset, const void *src, uint32_t n, const sxa_event *w, sxa_event *out)
{
    char *at;
    sx_result r = global_range(p, name, count, offset, &at);
    if (r == SX_SUCCESS)
        memcpy(at, src, count);
    return r == SX_SUCCESS ? event_new(out) : r;
}
static sx_result serial_global_read(sxa_queue q, sxa_program p, const char *name, int blocking, size_t count,
                                    size_t offset, void *dst, uint32_t n, const sxa_event *w, sxa_event *out)
{
    char *at;
    sx_result r = global_range(p, name, count, offset, &at);
    if (r == SX_SUCCESS)
        memcpy(dst, at, count);
    return r == SX_SUCCESS ? event_new(out) : r;
}

/* ------------------------------------------------------------- kernels */

static ffi_type *scalar_type(uint32_t scalar)
{
    switch (scalar) {
    case SX_SCALAR_I8: return &ffi_type_sint8;
    case SX_SCALAR_U8: return &ffi_type_uint8;
    case SX_SCALAR_I16: return &ffi_type_sint16;
    case SX_SCALAR_U16: case SX_SCALAR_F16: return &ffi_type_uint16;
    case SX_SCALAR_I32: return &ffi_type_sint32;
    case SX_SCALAR_U32: return &ffi_type_uint32;
    case SX_SCALAR_I64: return &ffi_type_sint64;
    case SX_SCALAR_U64: return &ffi_type_uint64;
    case SX_SCALAR_F32: return &ffi_type_float;
    case SX_SCALAR_F64: return &ffi_type_double;
    case SX_SCALAR_PTR: return &ffi_type_pointer;
    }
    return NULL;
}

static sx_result serial_kernel_release(sxa_kernel k)
{
    free(k->types);
    free(k->structs);
    free(k->elements);
    free(k);
    return SX_SUCCESS;
}

static sx_result serial_kernel_create(sxa_program p, const char *name, sxa_kernel *out)
{
    const serial_sig *sig = NULL;
    for (uint32_t i = 0; i < p->num_sigs && !sig; i++)
        if (strcmp(p->sigs[i].name, name) == 0)
            sig = &p->sigs[i];
    void *fn = dlsym(p->dl, name);
    if (!fn)
        return serial_error(SX_ERROR_INVALID_KERNEL_NAME, "the program has no kernel '%s'", name);
    if (!sig)
        return serial_error(SX_ERROR_INVALID_BINARY, "kernel '%s' has no signature (\"SX/kernel signatures\")", name);
    struct sxa_kernel_s *k = calloc(1, sizeof *k);
    uint32_t n = sig->num_params, nm = 0;
    for (uint32_t i = 0; i < n; i++)
        nm += sig->params[i].num_members + 1;
    if (k) {
        k->types = calloc(n ? n : 1, sizeof *k->types);
        k->structs = calloc(n ? n : 1, sizeof *k->structs);
        k->elements = calloc(nm ? nm : 1, sizeof *k->elements);
    }
    if (!k || !k->types || !k->structs || !k->elements) {
        if (k)
            serial_kernel_release(k);
        return OOM();
    }
    k->base.dispatch = svc->dispatch;
    k->program = p;
    k->sig = sig;
    memcpy(&k->fn, &fn, sizeof fn);
    nm = 0;
    for (uint32_t i = 0; i < n; i++) {
        const sxa_kernel_param *prm = &sig->params[i];
        if (prm->kind == SX_PARAM_STRUCT) {
            k->structs[i].type = FFI_TYPE_STRUCT;
            k->structs[i].elements = &k->elements[nm];
            for (uint32_t m = 0; m < prm->num_members; m++)
                if (!(k->elements[nm++] = scalar_type(prm->members[m].scalar))) {
                    serial_kernel_release(k);
                    return serial_error(SX_ERROR_INVALID_BINARY, "kernel '%s' parameter %u: member %u of scalar %u",
                                        name, i, m, prm->members[m].scalar);
                }
            k->elements[nm++] = NULL;
            k->types[i] = &k->structs[i];
        } else {
            k->types[i] = prm->kind == SX_PARAM_VALUE ? scalar_type(prm->scalar) : &ffi_type_pointer;
        }
        if (!k->types[i]) {
            serial_kernel_release(k);
            return serial_error(SX_ERROR_INVALID_BINARY, "kernel '%s' parameter %u: scalar %u unknown", name, i,
                                prm->scalar);
        }
    }
    if (ffi_prep_cif(&k->cif, FFI_DEFAULT_ABI, n, &ffi_type_void, k->types) != FFI_OK) {
        serial_kernel_release(k);
        return serial_error(SX_ERROR_INVALID_BINARY, "kernel '%s': libffi cannot call its %u parameters", name, n);
    }
    *out = k;
    return SX_SUCCESS;
}

static sx_result serial_kernel_get_info(sxa_kernel k, sxa_kernel_info param, size_t size, void *value,
                                        size_t *size_ret)
{
    switch (param) {
    case SXA_KERNEL_INFO_NUM_ARGS: return sxa_info_copy(&k->sig->num_params, sizeof(uint32_t), size, value, size_ret);
    case SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE: {
        size_t v = SERIAL_MAX_GROUP;
        return sxa_info_copy(&v, sizeof v, size, value, size_ret);
    }
    }
    return serial_error(SX_ERROR_INVALID_ENUMERATION, "kernel info %u unknown", param);
}

/* Check the arguments against the signature and point values[] at them. */
static sx_result bind_args(sxa_kernel k, uint32_t num_args, const sx_arg *args, void **values, void **slots,
                           size_t *local_bytes)
{
    uint32_t n = k->sig->num_params;
    if (num_args != n || (n && !args))
        return serial_error(SX_ERROR_INVALID_KERNEL_ARGS, "kernel '%s' takes %u arguments, %u given", k->sig->name,
                            n, num_args);
    memset(values, 0, n * sizeof *values);
    *local_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = args[i].index;
        if (x >= n || values[x])
            return serial_error(SX_ERROR_INVALID_ARGUMENT_INDEX, "kernel '%s': argument index %u out of %u or twice",
                                k->sig->name, x, n);
        const sxa_kernel_param *prm = &k->sig->params[x];
        bool value = prm->kind == SX_PARAM_VALUE || prm->kind == SX_PARAM_STRUCT;
        sx_arg_type want = value ? SX_ARG_VALUE : prm->kind == SX_PARAM_LOCAL ? SX_ARG_LOCAL : SX_ARG_POINTER;
        if (args[i].type != want || (want == SX_ARG_VALUE && (args[i].size != prm->size || !args[i].value)))
            return serial_error(SX_ERROR_INVALID_KERNEL_ARGS, "kernel '%s' argument %u: type %u of %zu bytes, "
                                "expected type %u of %u", k->sig->name, x, args[i].type, args[i].size, want, prm->size);
        if (want == SX_ARG_VALUE) {
            values[x] = (void *)args[i].value;
        } else if (want == SX_ARG_POINTER) {
            slots[x] = (void *)args[i].value;
            values[x] = &slots[x];
        } else {
            if (!args[i].size || args[i].value)
                return serial_error(SX_ERROR_INVALID_VALUE, "kernel '%s' argument %u: local memory needs a size and "
                                    "a NULL value (%zu bytes, %p)", k->sig->name, x, args[i].size, args[i].value);
            /* the offset now, the buffer's address once it exists */
            slots[x] = (void *)*local_bytes;
            values[x] = &slots[x];
            *local_bytes += (args[i].size + 63) & ~(size_t)63;
        }
    }
    if (*local_bytes > SERIAL_LOCAL_MEM)
        return serial_error(SX_ERROR_OUT_OF_RESOURCES, "kernel '%s': %zu bytes of local memory, %u available",
                            k->sig->name, *local_bytes, SERIAL_LOCAL_MEM);
    return SX_SUCCESS;
}

/* barrier(): with one work-item per group there is nothing to wait for;
 * otherwise the launch is abandoned (a failed launch leaves its output
 * undefined, as in OpenCL): the other work-items cannot run to it first. */
static _Thread_local jmp_buf *barrier_escape;
static void serial_yield(sxn_item *item)
{
    const sxn_geometry *g = item->geo;
    if (g->local_size[0] * g->local_size[1] * g->local_size[2] > 1)
        longjmp(*barrier_escape, 1);
}

static sx_result serial_launch(sxa_queue q, sxa_kernel k, uint32_t dim, const size_t *offset, const size_t *global,
                               const size_t *local, uint32_t num_args, const sx_arg *args, uint32_t num_events,
                               const sxa_event *wait, sxa_event *out)
{
    if (dim < 1 || dim > 3 || !global)
        return serial_error(SX_ERROR_INVALID_WORK_DIMENSION, "kernel '%s': %u dimensions", k->sig->name, dim);
    sxn_geometry geo = {.work_dim = dim};
    size_t items = 1;
    for (uint32_t d = 0; d < 3; d++) {
        geo.global_size[d] = d < dim ? global[d] : 1;
        geo.local_size[d] = d < dim && local ? local[d] : 1;
        geo.global_offset[d] = d < dim && offset ? offset[d] : 0;
        if (!geo.global_size[d] || !geo.local_size[d] || geo.global_size[d] % geo.local_size[d])
            return serial_error(SX_ERROR_INVALID_WORK_GROUP_SIZE, "kernel '%s': dimension %u: global %zu, local %zu",
                                k->sig->name, d, geo.global_size[d], geo.local_size[d]);
        geo.num_groups[d] = geo.global_size[d] / geo.local_size[d];
        items *= geo.local_size[d];
    }
    if (items > SERIAL_MAX_GROUP)
        return serial_error(SX_ERROR_INVALID_WORK_GROUP_SIZE, "kernel '%s': %zu work-items per group, at most %u",
                            k->sig->name, items, SERIAL_MAX_GROUP);
    uint32_t n = k->sig->num_params;
    void **values = calloc(n ? n : 1, sizeof *values), **slots = calloc(n ? n : 1, sizeof *slots);
    size_t local_bytes = 0;
    sx_result r = values && slots ? bind_args(k, num_args, args, values, slots, &local_bytes) : OOM();
    char *lmem = NULL;
    if (r == SX_SUCCESS && local_bytes && posix_memalign((void **)&lmem, 64, local_bytes) != 0)
        r = OOM();
    if (r == SX_SUCCESS) {
        for (uint32_t i = 0; i < n; i++)
            if (k->sig->params[i].kind == SX_PARAM_LOCAL)
                slots[i] = lmem + (size_t)slots[i];
        /* One group after another; local memory is reused, as a new group's
         * local memory is undefined anyway. */
        sxn_item item = {.geo = &geo, .yield = serial_yield};
        size_t *g = item.group_id, *l = item.local_id;
        jmp_buf escape;
        barrier_escape = &escape;
        if (setjmp(escape)) {
            r = serial_error(SX_ERROR_UNSUPPORTED_FEATURE, "kernel '%s' reached barrier() in a group of %zu "
                             "work-items: this device runs them one after another", k->sig->name, items);
            goto done;
        }
        for (g[2] = 0; g[2] < geo.num_groups[2]; g[2]++)
            for (g[1] = 0; g[1] < geo.num_groups[1]; g[1]++)
                for (g[0] = 0; g[0] < geo.num_groups[0]; g[0]++) {
                    for (int d = 0; d < 3; d++)
                        item.group_base[d] = g[d] * geo.local_size[d] + geo.global_offset[d];
                    for (l[2] = 0; l[2] < geo.local_size[2]; l[2]++)
                        for (l[1] = 0; l[1] < geo.local_size[1]; l[1]++)
                            for (l[0] = 0; l[0] < geo.local_size[0]; l[0]++) {
                                the_adapter.set_item(&item);
                                ffi_call(&k->cif, k->fn, NULL, values);
                            }
                }
        r = event_new(out);
    done:
        the_adapter.set_item(NULL);
    }
    free(lmem);
    free(values);
    free(slots);
    return r;
}

/* ------------------------------------------------------------- tables */

static const sxa_adapter_table adapter_table = {sizeof adapter_table, serial_init, serial_fini,
                                                serial_adapter_get_info};
static const sxa_platform_table platform_table = {sizeof platform_table, serial_platform_get,
                                                  serial_platform_get_info};
static const sxa_device_table device_table = {sizeof device_table, serial_device_get, serial_device_get_info};
static const sxa_context_table context_table = {sizeof context_table, serial_context_create,
                                                serial_context_release};
static const sxa_queue_table queue_table = {
    .size = sizeof queue_table,
    .create = serial_queue_create,
    .release = serial_queue_release,
    .finish = serial_queue_finish,
};
static const sxa_usm_table usm_table = {sizeof usm_table, serial_usm_alloc, serial_usm_free};
static const sxa_program_table program_table = {
    .size = sizeof program_table,
    .create = serial_program_create,
    .build = serial_program_build,
    .release = serial_program_release,
    .get_global = serial_program_get_global,
};
static const sxa_kernel_table kernel_table = {sizeof kernel_table, serial_kernel_create, serial_kernel_release,
                                              serial_kernel_get_info};
static const sxa_enqueue_table enqueue_table = {
    .size = sizeof enqueue_table,
    .kernel_launch = serial_launch,
    .usm_memcpy = serial_memcpy,
    .usm_fill = serial_fill,
    .global_write = serial_global_write,
    .global_read = serial_global_read,
    .barrier = serial_barrier,
};
static const sxa_event_table event_table = {
    .size = sizeof event_table,
    .wait = serial_event_wait,
    .get_status = serial_event_status,
    .release = serial_event_release,
};

SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table)
{
    static const void *const tables[SXA_TABLE_COUNT_] = {
        [SXA_TABLE_ADAPTER] = &adapter_table,   [SXA_TABLE_PLATFORM] = &platform_table,
        [SXA_TABLE_DEVICE] = &device_table,     [SXA_TABLE_CONTEXT] = &context_table,
        [SXA_TABLE_QUEUE] = &queue_table,       [SXA_TABLE_USM] = &usm_table,
        [SXA_TABLE_PROGRAM] = &program_table,   [SXA_TABLE_KERNEL] = &kernel_table,
        [SXA_TABLE_ENQUEUE] = &enqueue_table,   [SXA_TABLE_EVENT] = &event_table,
    };
    return sxa_serve_table(abi_version, id, table, tables, SXA_TABLE_COUNT_);
}
