/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* program.c: host shared-object programs. Validates the ELF bytes, loads
 * them from memory (memfd + dlopen, no file left behind), finds kernels
 * and program-scope variables by name, and builds each kernel's libffi
 * call interface once from its signature. Also loads the builtins module. */
#include "internal.h"
#include "undef.h"
#include "sx-paths.h" /* SX_ADAPTER_DIR: the builtins module installed beside the adapter */

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------ builtins */

static pthread_mutex_t builtins_lock = PTHREAD_MUTEX_INITIALIZER;
static void *builtins_dl;
sxn_set_item_fn sxn_set_item;
sxn_get_item_fn sxn_get_item;

const char *sxn_builtins_path(void)
{
    const char *path = sxn_getenv("SX_NATIVE_BUILTINS");
    if (!path || !*path)
        path = SX_ADAPTER_DIR "/sx-native-builtins.so";
    return path;
}

sx_result sxn_builtins_load(void)
{
    pthread_mutex_lock(&builtins_lock);
    if (builtins_dl) {
        pthread_mutex_unlock(&builtins_lock);
        return SX_SUCCESS;
    }
    const char *path = sxn_builtins_path();
    /* RTLD_GLOBAL: every program resolves its builtin imports here. */
    void *dl = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
    if (!dl) {
        const char *e = dlerror();
        pthread_mutex_unlock(&builtins_lock);
        return sxn_error(SX_ERROR_OUT_OF_RESOURCES,
                         "native: cannot load the builtins module %s: %s (set SX_NATIVE_BUILTINS)",
                         path, e ? e : "?");
    }
    const uint32_t *abi = dlsym(dl, SXN_BUILTINS_ABI_SYMBOL);
    sxn_set_item_fn set = (sxn_set_item_fn)dlsym(dl, SXN_BUILTINS_SET_SYMBOL);
    sxn_get_item_fn get = (sxn_get_item_fn)dlsym(dl, SXN_BUILTINS_GET_SYMBOL);
    if (!abi || *abi != SXN_BUILTINS_ABI || !set || !get) {
        dlclose(dl);
        pthread_mutex_unlock(&builtins_lock);
        return sxn_error(SX_ERROR_UNSUPPORTED_VERSION,
                         "native: %s is not a builtins module of ABI %u (found %d)", path,
                         SXN_BUILTINS_ABI, abi ? (int)*abi : -1);
    }
    sxn_set_item = set;
    sxn_get_item = get;
    builtins_dl = dl;
    pthread_mutex_unlock(&builtins_lock);
    return SX_SUCCESS;
}

void *sxn_builtins_symbol(const char *name)
{
    pthread_mutex_lock(&builtins_lock);
    void *addr = builtins_dl ? dlsym(builtins_dl, name) : NULL;
    pthread_mutex_unlock(&builtins_lock);
    return addr;
}

void sxn_builtins_unload(void)
{
    pthread_mutex_lock(&builtins_lock);
    if (builtins_dl)
        dlclose(builtins_dl);
    builtins_dl = NULL;
    sxn_set_item = NULL;
    sxn_get_item = NULL;
    pthread_mutex_unlock(&builtins_lock);
}

/* ------------------------------------------------------------ ELF checks */

static bool range_ok(uint64_t off, uint64_t len, size_t size)
{
    return off <= size && len <= size - off;
}

/* Check that the bytes are an x86-64 ELF shared object and note whether
 * it imports a barrier builtin (those kernels run one fiber per work-item)
 * and whether it is a compiled work-group image (exports __sx_wg_table).
 * Every offset read from the file is bounds-checked. */
sx_result sxn_elf_check(const unsigned char *b, size_t size, bool *uses_barrier, bool *wg)
{
    *wg = false;
    Elf64_Ehdr eh;
    if (size < sizeof(eh))
        return sxn_error(SX_ERROR_INVALID_BINARY, "native: image of %zu bytes is too small for an ELF header", size);
    memcpy(&eh, b, sizeof(eh));
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return sxn_error(SX_ERROR_INVALID_BINARY, "native: image is not ELF (bad magic)");
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: ELF class %u / data %u: need 64-bit little-endian",
                         eh.e_ident[EI_CLASS], eh.e_ident[EI_DATA]);
    if (eh.e_machine != EM_X86_64)
        return sxn_error(SX_ERROR_INVALID_BINARY, "native: ELF machine %u is not x86-64 (%u)",
                         eh.e_machine, EM_X86_64);
    if (eh.e_type != ET_DYN)
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: ELF type %u is not a shared object (ET_DYN); build with -shared -fPIC",
                         eh.e_type);
    if (eh.e_phnum == 0 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        !range_ok(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr), size))
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: ELF program headers (offset %llu, %u x %u) outside the %zu-byte image",
                         (unsigned long long)eh.e_phoff, eh.e_phnum, eh.e_phentsize, size);
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, b + eh.e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
        if (ph.p_type == PT_LOAD && !range_ok(ph.p_offset, ph.p_filesz, size))
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: ELF segment %u (offset %llu, %llu bytes) outside the %zu-byte image",
                             i, (unsigned long long)ph.p_offset, (unsigned long long)ph.p_filesz, size);
    }
    /* Without section headers we cannot see the imports: assume barrier. */
    *uses_barrier = true;
    if (eh.e_shnum == 0 || eh.e_shoff == 0)
        return SX_SUCCESS;
    if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !range_ok(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: ELF section headers (offset %llu, %u x %u) outside the %zu-byte image",
                         (unsigned long long)eh.e_shoff, eh.e_shnum, eh.e_shentsize, size);
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, b + eh.e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
        if (sh.sh_type != SHT_DYNSYM)
            continue;
        if (sh.sh_entsize != sizeof(Elf64_Sym) || !range_ok(sh.sh_offset, sh.sh_size, size) ||
            sh.sh_link >= eh.e_shnum)
            return sxn_error(SX_ERROR_INVALID_BINARY, "native: ELF .dynsym section %u is damaged", i);
        Elf64_Shdr st;
        memcpy(&st, b + eh.e_shoff + (uint64_t)sh.sh_link * sizeof(st), sizeof(st));
        if (st.sh_type != SHT_STRTAB || !range_ok(st.sh_offset, st.sh_size, size))
            return sxn_error(SX_ERROR_INVALID_BINARY, "native: ELF .dynstr section %u is damaged",
                             sh.sh_link);
        const char *strs = (const char *)b + st.sh_offset;
        size_t nsyms = sh.sh_size / sizeof(Elf64_Sym);
        bool barrier = false;
        for (size_t s = 1; s < nsyms; s++) {
            Elf64_Sym sym;
            memcpy(&sym, b + sh.sh_offset + s * sizeof(sym), sizeof(sym));
            if (sym.st_name >= st.sh_size)
                continue;
            const char *name = strs + sym.st_name;
            size_t max = st.sh_size - sym.st_name;
            if (!memchr(name, 0, max))
                return sxn_error(SX_ERROR_INVALID_BINARY, "native: ELF symbol %zu name is not terminated", s);
            if (sym.st_shndx != SHN_UNDEF) {
                if (strcmp(name, SXN_WG_TABLE_SYMBOL) == 0)
                    *wg = true;
                continue;
            }
            /* wait_group_events is a barrier too (async copies), and so is
             * a sub-group or work-group collective (groups.c) */
            if (strstr(name, "barrier") || strstr(name, "wait_group_events") ||
                ((strstr(name, "sub_group_") || strstr(name, "work_group_")) && !strstr(name, "get_")))
                barrier = true;
        }
        *uses_barrier = barrier;
        return SX_SUCCESS;
    }
    return SX_SUCCESS;
}

/* ------------------------------------------------------------ loading */

/* Load ELF bytes through an anonymous memory file. glibc recognises an
 * already-loaded object by its path string, and fd numbers are reused, so
 * each load gets a path of its own: "/proc/self/fd/" then a load counter
 * spelt in 24 tokens "./" (0) or ".//" (1), which the kernel reads as the
 * same directory, then N. Should a path still name a loaded program (the
 * counter wrapped), the next count is tried. */
static atomic_uint load_count;

static bool load_path(char *path, size_t size, int fd)
{
    unsigned c = atomic_fetch_add(&load_count, 1);
    static atomic_bool wrapped;
    if (c >= (1u << 24))
        atomic_store(&wrapped, true);
    size_t at = (size_t)snprintf(path, size, "/proc/self/fd/");
    for (int b = 0; b < 24; b++)
        at += (size_t)snprintf(path + at, size - at, "%s", (c >> b) & 1 ? ".//" : "./");
    snprintf(path + at, size - at, "%d", fd);
    return !atomic_load(&wrapped);
}

sx_result sxn_load_bytes(const unsigned char *bytes, size_t size, void **out)
{
    int fd = memfd_create("sx-native-program", MFD_CLOEXEC);
    if (fd < 0)
        return sxn_error(SX_ERROR_OUT_OF_RESOURCES, "native: memfd_create: %s", strerror(errno));
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, bytes + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            return sxn_error(SX_ERROR_OUT_OF_RESOURCES, "native: writing the image to a memfd: %s",
                             strerror(e));
        }
        done += (size_t)n;
    }
    char path[128];
    sx_result r = SX_SUCCESS;
    void *dl = NULL;
    for (int tries = 0;; tries++) {
        /* until the counter wraps every path is new: no need to ask */
        if (load_path(path, sizeof(path), fd))
            break;
        void *old = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
        if (!old)
            break;
        dlclose(old);
        if (tries == 16) {
            r = sxn_error(SX_ERROR_OUT_OF_RESOURCES, "native: no free path to load the image");
            goto out;
        }
    }
    dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *e = dlerror();
        r = sxn_error(SX_ERROR_BUILD_FAILURE, "native: dlopen of the image failed: %s",
                      e ? e : "?");
    }
out:
    close(fd);
    *out = dl;
    return r;
}

/* ------------------------------------------------------------ programs */

static void sigs_free(struct sxn_sig *sigs, uint32_t n)
{
    if (!sigs)
        return;
    for (uint32_t i = 0; i < n; i++) {
        free(sigs[i].name);
        free(sigs[i].params);
        free(sigs[i].members);
    }
    free(sigs);
}

sx_result sxn_sig_copy(struct sxn_sig *d, const struct sxn_sig *s)
{
    size_t nm = 0;
    for (uint32_t j = 0; j < s->num_params; j++)
        nm += s->params[j].num_members;
    d->name = strdup(s->name);
    d->num_params = s->num_params;
    d->params = calloc(s->num_params ? s->num_params : 1, sizeof(*d->params));
    d->members = calloc(nm ? nm : 1, sizeof(*d->members));
    if (!d->name || !d->params || !d->members)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for signatures");
    size_t at = 0;
    for (uint32_t j = 0; j < s->num_params; j++) {
        d->params[j] = s->params[j];
        d->params[j].members = s->params[j].num_members ? &d->members[at] : NULL;
        if (s->params[j].num_members)
            memcpy(&d->members[at], s->params[j].members, s->params[j].num_members * sizeof(*d->members));
        at += s->params[j].num_members;
    }
    return SX_SUCCESS;
}

static sx_result sigs_copy(sxa_program p, const sxa_program_desc *desc)
{
    if (!desc || desc->size < offsetof(sxa_program_desc, kernels) + sizeof(desc->kernels))
        return SX_SUCCESS;
    if (desc->num_kernels == 0)
        return SX_SUCCESS;
    if (!desc->kernels)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER,
                         "native: program desc lists %u kernels but no array", desc->num_kernels);
    p->sigs = calloc(desc->num_kernels, sizeof(*p->sigs));
    if (!p->sigs)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for signatures");
    p->num_sigs = desc->num_kernels;
    for (uint32_t i = 0; i < desc->num_kernels; i++) {
        const sxa_kernel_signature *ks = &desc->kernels[i];
        struct sxn_sig *s = &p->sigs[i];
        if (!ks->name || (ks->num_params && !ks->params))
            return sxn_error(SX_ERROR_INVALID_NULL_POINTER,
                             "native: kernel signature %u has a NULL name or parameter list", i);
        if (ks->num_params > SXN_MAX_ARGS)
            return sxn_error(SX_ERROR_OUT_OF_RESOURCES,
                             "native: kernel %s has %u parameters; at most %u are supported",
                             ks->name, ks->num_params, SXN_MAX_ARGS);
        s->name = strdup(ks->name);
        s->num_params = ks->num_params;
        size_t nm = 0;
        for (uint32_t j = 0; j < ks->num_params; j++) {
            if (ks->params[j].num_members && !ks->params[j].members)
                return sxn_error(SX_ERROR_INVALID_NULL_POINTER,
                                 "native: kernel %s parameter %u lists %u members but no array",
                                 ks->name, j, ks->params[j].num_members);
            if (ks->params[j].num_members > 4096)
                return sxn_error(SX_ERROR_INVALID_VALUE,
                                 "native: kernel %s parameter %u has %u struct members",
                                 ks->name, j, ks->params[j].num_members);
            nm += ks->params[j].num_members;
        }
        s->params = calloc(ks->num_params ? ks->num_params : 1, sizeof(*s->params));
        s->members = calloc(nm ? nm : 1, sizeof(*s->members));
        if (!s->name || !s->params || !s->members)
            return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for signatures");
        size_t at = 0;
        for (uint32_t j = 0; j < ks->num_params; j++) {
            s->params[j] = ks->params[j];
            if (ks->params[j].num_members) {
                memcpy(&s->members[at], ks->params[j].members,
                       ks->params[j].num_members * sizeof(*s->members));
                s->params[j].members = &s->members[at];
                at += ks->params[j].num_members;
            } else {
                s->params[j].members = NULL;
            }
        }
    }
    return SX_SUCCESS;
}

static void program_free(sxa_program p)
{
    if (p->dl)
        dlclose(p->dl);
    sxn_wg_unload(p);
    free(p->part_bytes);
    free(p->part_size);
    free(p->link_maps);
    sigs_free(p->sigs, p->num_sigs);
    free(p->bytes);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

void sxn_program_unref(sxa_program p)
{
    if (atomic_fetch_sub(&p->refs, 1) == 1)
        program_free(p);
}

static sx_result program_create(sxa_context context, sxa_device device, sx_image_kind kind,
                                const void *data, size_t size, const sxa_program_desc *desc,
                                sxa_program *out)
{
    if (!context || !device)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: program.create: NULL handle");
    if (!data || !out)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: program.create: NULL %s",
                         data ? "out" : "data");
    if (kind != SX_IMAGE_KIND_HOST_ELF)
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: program.create: image kind %u is not a host ELF (%u)",
                         (unsigned)kind, SX_IMAGE_KIND_HOST_ELF);
    bool uses_barrier = false, wg = false, container = sxn_container_is(data, size);
    sx_result r = container ? SX_SUCCESS : sxn_elf_check(data, size, &uses_barrier, &wg);
    if (r != SX_SUCCESS)
        return r;
    struct sxa_program_s *p = calloc(1, sizeof(*p));
    if (!p)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: program.create: out of memory");
    p->obj.dispatch = sxn_services->dispatch;
    p->context = context;
    atomic_init(&p->refs, 1);
    pthread_mutex_init(&p->lock, NULL);
    p->uses_barrier = uses_barrier;
    p->bytes = malloc(size);
    p->size = size;
    if (!p->bytes) {
        program_free(p);
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: program.create: out of memory for %zu bytes", size);
    }
    memcpy(p->bytes, data, size);
    p->wg = wg;
    if (container)
        r = sxn_program_parts(p);
    if (r == SX_SUCCESS)
        r = sigs_copy(p, desc);
    if (r != SX_SUCCESS) {
        program_free(p);
        return r;
    }
    *out = p;
    return SX_SUCCESS;
}

/* Every symbol the image needs that nothing defines, named as the user
 * wrote it, before dlopen (which would name only the first). An image with
 * libraries of its own (DT_NEEDED) may get them there: then only when
 * dlopen fails too. */
static sx_result check_undefined(sxa_program p)
{
    bool needed;
    char *list = NULL;
    int n = sxn_undefined_report(p->bytes, p->size, &needed, &list);
    sx_result r = SX_SUCCESS;
    if (n > 0 && needed) {
        void *dl = NULL;
        r = sxn_load_bytes(p->bytes, p->size, &dl);
        if (dl)
            dlclose(dl);
    }
    if (n > 0 && (!needed || r != SX_SUCCESS))
        r = sxn_error(SX_ERROR_BUILD_FAILURE, "native: the image has %d undefined symbol%s that nothing defines:%s",
                      n, n == 1 ? "" : "s", list);
    free(list);
    return r;
}

static sx_result program_build(sxa_program p, const char *options)
{
    if (!p)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: program.build: NULL program");
    sx_result r = sxn_builtins_load();
    if (r != SX_SUCCESS)
        return r;
    pthread_mutex_lock(&p->lock);
    if (p->state == SXN_PROG_BUILT) {
        pthread_mutex_unlock(&p->lock);
        return SX_SUCCESS;
    }
    void *dl = NULL;
    if (p->num_parts) {
        r = sxn_link_build(p);
        pthread_mutex_unlock(&p->lock);
        return r;
    }
    r = check_undefined(p);
    if (r != SX_SUCCESS) {
        pthread_mutex_unlock(&p->lock);
        return r;
    }
    if (p->wg) {
        r = sxn_wg_load(p, 1, (const unsigned char *const *)&p->bytes, &p->size, SX_ERROR_BUILD_FAILURE);
        if (r == SX_SUCCESS) {
            p->set_item = sxn_set_item;
            p->state = SXN_PROG_BUILT;
        }
        pthread_mutex_unlock(&p->lock);
        return r;
    }
    r = sxn_load_bytes(p->bytes, p->size, &dl);
    if (r == SX_SUCCESS) {
        struct link_map *lm = NULL;
        if (dlinfo(dl, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
            dlclose(dl);
            r = sxn_error(SX_ERROR_BUILD_FAILURE, "native: dlinfo on the loaded image failed");
        } else {
            p->dl = dl;
            p->link_map = lm;
            p->set_item = sxn_set_item;
            p->state = SXN_PROG_BUILT;
        }
    }
    pthread_mutex_unlock(&p->lock);
    return r;
}

static sx_result program_release(sxa_program p)
{
    if (!p)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: program.release: NULL program");
    sxn_program_unref(p);
    return SX_SUCCESS;
}

static sx_result program_get_binary(sxa_program p, sx_image_kind *kind, size_t size, void *value,
                                    size_t *size_ret)
{
    if (!p)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: program.get_binary: NULL program");
    if (kind)
        *kind = SX_IMAGE_KIND_HOST_ELF;
    return sxa_info_copy(p->bytes, p->size, size, value, size_ret);
}

/* Look a symbol up in the program itself (not in what it can see) and
 * return its ELF symbol entry. */
static void *find_symbol(sxa_program p, const char *name, const Elf64_Sym **sym)
{
    for (uint32_t i = 0; i < p->num_images; i++) {
        void *a = sxn_wg_symbol(&p->images[i], name, (const void **)sym);
        if (a)
            return a;
    }
    if (!p->dl)
        return NULL;
    dlerror();
    void *addr = dlsym(p->dl, name);
    if (!addr)
        return NULL;
    Dl_info info;
    struct link_map *lm = NULL;
    if (!dladdr1(addr, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm)
        return NULL;
    bool ours = lm == p->link_map;
    for (uint32_t i = 0; i < p->num_link_maps && !ours; i++)
        ours = lm == p->link_maps[i];
    if (!ours)
        return NULL;
    const Elf64_Sym *s = NULL;
    if (!dladdr1(addr, &info, (void **)&s, RTLD_DL_SYMENT) || !s || !info.dli_sname ||
        strcmp(info.dli_sname, name) != 0)
        return NULL;
    *sym = s;
    return addr;
}

sx_result sxn_global_find(sxa_program p, const char *name, void **addr, size_t *size)
{
    if (p->state != SXN_PROG_BUILT)
        return sxn_error(SX_ERROR_INVALID_PROGRAM,
                         "native: program %p is not built; cannot reach variable '%s'", (void *)p, name);
    const Elf64_Sym *s;
    void *a = find_symbol(p, name, &s);
    if (!a || (ELF64_ST_TYPE(s->st_info) != STT_OBJECT && ELF64_ST_TYPE(s->st_info) != STT_COMMON))
        return sxn_error(SX_ERROR_INVALID_GLOBAL_NAME,
                         "native: program %p has no program-scope variable '%s'", (void *)p, name);
    *addr = a;
    *size = s->st_size;
    return SX_SUCCESS;
}

static sx_result program_get_global(sxa_program p, const char *name, size_t *size, void **ptr)
{
    if (!p)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: program.get_global: NULL program");
    if (!name)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: program.get_global: NULL name");
    void *a;
    size_t s;
    sx_result r = sxn_global_find(p, name, &a, &s);
    if (r != SX_SUCCESS)
        return r;
    if (size)
        *size = s;
    if (ptr)
        *ptr = a;
    return SX_SUCCESS;
}

/* ------------------------------------------------------------ kernels */

static ffi_type *scalar_type(uint32_t scalar)
{
    switch (scalar) {
    case SX_SCALAR_I8: return &ffi_type_sint8;
    case SX_SCALAR_U8: return &ffi_type_uint8;
    case SX_SCALAR_I16: return &ffi_type_sint16;
    case SX_SCALAR_U16: return &ffi_type_uint16;
    case SX_SCALAR_I32: return &ffi_type_sint32;
    case SX_SCALAR_U32: return &ffi_type_uint32;
    case SX_SCALAR_I64: return &ffi_type_sint64;
    case SX_SCALAR_U64: return &ffi_type_uint64;
    case SX_SCALAR_F32: return &ffi_type_float;
    case SX_SCALAR_F64: return &ffi_type_double;
    case SX_SCALAR_PTR: return &ffi_type_pointer;
    default: return NULL;  /* F16 has no libffi type; NONE is not a value */
    }
}

static void kernel_free(sxa_kernel k)
{
    struct sxn_fallback *fb = atomic_load(&k->fallback);
    if (fb) {
        free(fb->types);
        free(fb->arg_type);
        free(fb->size);
        free(fb);
    }
    free(k->types);
    free(k->structs);
    free(k->elements);
    free(k->name);
    pthread_mutex_destroy(&k->fallback_lock);
    free(k);
}

/* Build the one call interface of a kernel from its signature. */
static sx_result kernel_prepare(sxa_kernel k, const struct sxn_sig *sig)
{
    uint32_t n = sig->num_params;
    size_t nstructs = 0, nelems = 0;
    for (uint32_t i = 0; i < n; i++)
        if (sig->params[i].kind == SX_PARAM_STRUCT) {
            nstructs++;
            nelems += sig->params[i].num_members + 1;
        }
    k->types = calloc(n ? n : 1, sizeof(*k->types));
    k->structs = calloc(nstructs ? nstructs : 1, sizeof(*k->structs));
    k->elements = calloc(nelems ? nelems : 1, sizeof(*k->elements));
    if (!k->types || !k->structs || !k->elements)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for kernel %s", k->name);
    size_t si = 0, ei = 0;
    for (uint32_t i = 0; i < n; i++) {
        const sxa_kernel_param *p = &sig->params[i];
        switch (p->kind) {
        case SX_PARAM_VALUE: {
            ffi_type *t = scalar_type(p->scalar);
            if (!t)
                return sxn_error(SX_ERROR_UNSUPPORTED_FEATURE,
                                 "native: kernel %s parameter %u: scalar type %u cannot be passed",
                                 k->name, i, p->scalar);
            if (t->size != p->size)
                return sxn_error(SX_ERROR_INVALID_BINARY,
                                 "native: kernel %s parameter %u: size %u does not match scalar type %u (%zu bytes)",
                                 k->name, i, p->size, p->scalar, t->size);
            k->types[i] = t;
            break;
        }
        case SX_PARAM_POINTER:
        case SX_PARAM_LOCAL:
            k->types[i] = &ffi_type_pointer;
            break;
        case SX_PARAM_STRUCT: {
            if (p->num_members == 0)
                return sxn_error(SX_ERROR_UNSUPPORTED_FEATURE,
                                 "native: kernel %s parameter %u: a struct without members", k->name, i);
            ffi_type *st = &k->structs[si++];
            st->type = FFI_TYPE_STRUCT;
            st->elements = &k->elements[ei];
            for (uint32_t m = 0; m < p->num_members; m++) {
                ffi_type *t = scalar_type(p->members[m].scalar);
                if (!t)
                    return sxn_error(SX_ERROR_UNSUPPORTED_FEATURE,
                                     "native: kernel %s parameter %u member %u: scalar type %u cannot be passed",
                                     k->name, i, m, p->members[m].scalar);
                k->elements[ei++] = t;
            }
            k->elements[ei++] = NULL;
            k->types[i] = st;
            break;
        }
        default:
            return sxn_error(SX_ERROR_INVALID_BINARY, "native: kernel %s parameter %u: kind %u unknown",
                             k->name, i, p->kind);
        }
    }
    ffi_status st = ffi_prep_cif(&k->cif, FFI_DEFAULT_ABI, n, &ffi_type_void, k->types);
    if (st != FFI_OK)
        return sxn_error(SX_ERROR_INVALID_BINARY, "native: kernel %s: ffi_prep_cif failed (%d)",
                         k->name, (int)st);
    /* libffi has now laid the structs out; they must match the image's. */
    for (uint32_t i = 0; i < n; i++) {
        const sxa_kernel_param *p = &sig->params[i];
        if (p->kind != SX_PARAM_STRUCT)
            continue;
        size_t offs[4096];
        if (ffi_get_struct_offsets(FFI_DEFAULT_ABI, k->types[i], offs) != FFI_OK)
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: kernel %s parameter %u: libffi cannot lay out the struct", k->name, i);
        for (uint32_t m = 0; m < p->num_members; m++)
            if (offs[m] != p->members[m].offset)
                return sxn_error(SX_ERROR_INVALID_BINARY,
                                 "native: kernel %s parameter %u member %u: offset %u given, the C layout puts it at %zu",
                                 k->name, i, m, p->members[m].offset, offs[m]);
        if (k->types[i]->size != p->size)
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: kernel %s parameter %u: struct size %u given, the C layout gives %zu",
                             k->name, i, p->size, k->types[i]->size);
    }
    return SX_SUCCESS;
}

static sx_result kernel_create(sxa_program p, const char *name, sxa_kernel *out)
{
    if (!p)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: kernel.create: NULL program");
    if (!name || !out)
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: kernel.create: NULL %s",
                         name ? "out" : "name");
    if (p->state != SXN_PROG_BUILT)
        return sxn_error(SX_ERROR_INVALID_PROGRAM, "native: kernel.create %s: program %p is not built",
                         name, (void *)p);
    const Elf64_Sym *sym;
    /* in compiled work-group images only table entries are kernels */
    const sxn_wg_entry *wg = p->num_images ? sxn_wg_find(p, name) : NULL;
    void *fn = wg ? (void *)wg->fn : p->num_images ? NULL : find_symbol(p, name, &sym);
    if (!fn || (!wg && ELF64_ST_TYPE(sym->st_info) != STT_FUNC))
        return sxn_error(SX_ERROR_INVALID_KERNEL_NAME, "native: program %p has no kernel function '%s'",
                         (void *)p, name);
    struct sxa_kernel_s *k = calloc(1, sizeof(*k));
    if (!k)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: kernel.create: out of memory");
    k->obj.dispatch = sxn_services->dispatch;
    pthread_mutex_init(&k->fallback_lock, NULL);
    k->name = strdup(name);
    if (!k->name) {
        kernel_free(k);
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: kernel.create: out of memory");
    }
    k->program = p;
    k->fn = (void (*)(void))fn;
    k->set_item = p->set_item;
    k->uses_barrier = p->uses_barrier;
    k->wg = wg;
    k->compiled = wg != NULL;
    const struct sxn_sig *sig = NULL;
    for (uint32_t i = 0; i < p->num_sigs; i++)
        if (strcmp(p->sigs[i].name, name) == 0) {
            sig = &p->sigs[i];
            break;
        }
    if (sig) {
        k->has_sig = true;
        k->num_params = sig->num_params;
        k->params = sig->params;
        /* a compiled work-group function takes its arguments as an array:
         * no libffi interface */
        sx_result r = wg ? SX_SUCCESS : kernel_prepare(k, sig);
        if (r != SX_SUCCESS) {
            kernel_free(k);
            return r;
        }
    }
    atomic_fetch_add(&p->refs, 1);
    *out = k;
    return SX_SUCCESS;
}

static sx_result kernel_release(sxa_kernel k)
{
    if (!k)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: kernel.release: NULL kernel");
    sxa_program p = k->program;
    kernel_free(k);
    sxn_program_unref(p);
    return SX_SUCCESS;
}

static sx_result kernel_get_info(sxa_kernel k, sxa_kernel_info param, size_t size, void *value,
                                 size_t *size_ret)
{
    if (!k)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: kernel.get_info: NULL kernel");
    switch (param) {
    case SXA_KERNEL_INFO_NUM_ARGS: {
        uint32_t n = k->num_params;
        if (!k->has_sig) {
            struct sxn_fallback *fb = atomic_load(&k->fallback);
            if (!fb)
                return sxn_error(SX_ERROR_UNSUPPORTED_FEATURE,
                                 "native: kernel %s has no signature; its argument count is unknown",
                                 k->name);
            n = fb->num_params;
        }
        return sxa_info_copy(&n, sizeof(n), size, value, size_ret);
    }
    case SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE: {
        size_t v = SXN_MAX_WORK_GROUP;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SXA_KERNEL_INFO_LOCAL_MEM_SIZE: {
        uint64_t v = k->wg ? k->wg->local_bytes : 0;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    default:
        return sxn_error(SX_ERROR_INVALID_ENUMERATION, "native: kernel info %u unknown", (unsigned)param);
    }
}

const sxa_program_table sxn_program_table = {
    .size = sizeof(sxa_program_table),
    .create = program_create,
    .build = program_build,
    .compile = sxn_program_compile,
    .link = sxn_program_link,
    .release = program_release,
    .get_binary = program_get_binary,
    .get_global = program_get_global,
};

const sxa_kernel_table sxn_kernel_table = {
    .size = sizeof(sxa_kernel_table),
    .create = kernel_create,
    .release = kernel_release,
    .get_info = kernel_get_info,
};
