/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* link.c: program.compile and program.link. A linked program holds its
 * component images in one container (container.c), so its binary can be
 * cached and rebuilt by program.create + build without a program.link.
 *
 * Compiled work-group images (wg.h) link without limits: each image gets
 * its own dlopen in the application's namespace and its import slots are
 * filled from the program's images (wgload.c).
 *
 * Old per-work-item images live in a
 * private dynamic-linker namespace each (dlmopen(LM_ID_NEWLM)): the
 * namespace's first object is a stub shared object made here in memory
 * whose only content is DT_NEEDED entries for the builtins module and every
 * image, so they all form the namespace's global scope and resolve one
 * another's symbols (cycles included) while other programs stay apart.
 * glibc allows 16 namespaces per process (one is the application's), and
 * each namespace loads its own libc/libm: a process can hold about 15
 * linked programs at once (fewer where static TLS runs out). */
#include "internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Write bytes to a new memfd; returns the fd or -1. */
static int memfd_of(const char *name, const void *bytes, size_t size)
{
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, (const char *)bytes + done, size - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    return fd;
}

/* A minimal x86-64 ELF shared object: one PT_LOAD, a PT_DYNAMIC with
 * DT_NEEDED for each path, an empty symbol table and a one-bucket hash. */
static unsigned char *make_stub(const char *const *needed, unsigned n, size_t *size_out)
{
    size_t strsz = 1;
    for (unsigned i = 0; i < n; i++)
        strsz += strlen(needed[i]) + 1;
    size_t off_ph = sizeof(Elf64_Ehdr);
    size_t off_dyn = off_ph + 2 * sizeof(Elf64_Phdr);
    size_t ndyn = n + 7;  /* NEEDED..., STRTAB, STRSZ, SYMTAB, SYMENT, HASH, NULL (+1 spare) */
    size_t off_sym = off_dyn + ndyn * sizeof(Elf64_Dyn);
    size_t off_hash = off_sym + sizeof(Elf64_Sym);
    size_t off_str = off_hash + 4 * sizeof(uint32_t);
    size_t size = off_str + strsz;
    unsigned char *b = calloc(1, size);
    if (!b)
        return NULL;
    Elf64_Ehdr *eh = (Elf64_Ehdr *)b;
    memcpy(eh->e_ident, ELFMAG, SELFMAG);
    eh->e_ident[EI_CLASS] = ELFCLASS64;
    eh->e_ident[EI_DATA] = ELFDATA2LSB;
    eh->e_ident[EI_VERSION] = EV_CURRENT;
    eh->e_ident[EI_OSABI] = ELFOSABI_SYSV;
    eh->e_type = ET_DYN;
    eh->e_machine = EM_X86_64;
    eh->e_version = EV_CURRENT;
    eh->e_phoff = off_ph;
    eh->e_ehsize = sizeof(Elf64_Ehdr);
    eh->e_phentsize = sizeof(Elf64_Phdr);
    eh->e_phnum = 2;
    Elf64_Phdr *ph = (Elf64_Phdr *)(b + off_ph);
    ph[0].p_type = PT_LOAD;
    ph[0].p_flags = PF_R;
    ph[0].p_offset = 0;
    ph[0].p_vaddr = ph[0].p_paddr = 0;
    ph[0].p_filesz = ph[0].p_memsz = size;
    ph[0].p_align = 4096;
    ph[1].p_type = PT_DYNAMIC;
    ph[1].p_flags = PF_R;
    ph[1].p_offset = ph[1].p_vaddr = ph[1].p_paddr = off_dyn;
    ph[1].p_filesz = ph[1].p_memsz = ndyn * sizeof(Elf64_Dyn);
    ph[1].p_align = 8;
    Elf64_Dyn *dyn = (Elf64_Dyn *)(b + off_dyn);
    char *str = (char *)(b + off_str);
    size_t at = 1;
    unsigned d = 0;
    for (unsigned i = 0; i < n; i++) {
        dyn[d].d_tag = DT_NEEDED;
        dyn[d++].d_un.d_val = at;
        size_t len = strlen(needed[i]) + 1;
        memcpy(str + at, needed[i], len);
        at += len;
    }
    dyn[d].d_tag = DT_STRTAB;
    dyn[d++].d_un.d_ptr = off_str;
    dyn[d].d_tag = DT_STRSZ;
    dyn[d++].d_un.d_val = strsz;
    dyn[d].d_tag = DT_SYMTAB;
    dyn[d++].d_un.d_ptr = off_sym;
    dyn[d].d_tag = DT_SYMENT;
    dyn[d++].d_un.d_val = sizeof(Elf64_Sym);
    dyn[d].d_tag = DT_HASH;
    dyn[d++].d_un.d_ptr = off_hash;
    dyn[d].d_tag = DT_NULL;
    uint32_t *hash = (uint32_t *)(b + off_hash);
    hash[0] = 1;  /* nbucket */
    hash[1] = 1;  /* nchain: the null symbol */
    *size_out = size;
    return b;
}

/* The link map of `path` in namespace `lmid` (already loaded), or NULL. */
static struct link_map *map_in(Lmid_t lmid, const char *path)
{
    void *h = dlmopen(lmid, path, RTLD_NOW | RTLD_NOLOAD);
    if (!h)
        return NULL;
    struct link_map *lm = NULL;
    if (dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0)
        lm = NULL;
    dlclose(h);  /* the stub keeps it loaded */
    return lm;
}

sx_result sxn_program_compile(sxa_program p, const char *options)
{
    if (!p)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: program.compile: NULL program");
    pthread_mutex_lock(&p->lock);
    sx_result r = SX_SUCCESS;
    if (p->state == SXN_PROG_CREATED)
        p->state = SXN_PROG_COMPILED;
    else if (p->state != SXN_PROG_COMPILED)
        r = sxn_error(SX_ERROR_INVALID_OPERATION, "native: program.compile: program %p is already built",
                      (void *)p);
    pthread_mutex_unlock(&p->lock);
    return r;
}

/* Find a container program's parts and check each: ELF, and one kind
 * (compiled work-group images and per-work-item images do not mix). */
sx_result sxn_program_parts(sxa_program p)
{
    sx_result r = sxn_container_parse(p->bytes, p->size, &p->num_parts, &p->part_bytes, &p->part_size);
    if (r != SX_SUCCESS)
        return r;
    for (uint32_t i = 0; i < p->num_parts; i++) {
        bool barrier = false, wg = false;
        r = sxn_elf_check(p->part_bytes[i], p->part_size[i], &barrier, &wg);
        if (r != SX_SUCCESS)
            return r;
        if (i > 0 && wg != p->wg)
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: linked program: image %u is %s but image 0 is %s; the two kinds do not link",
                             i, wg ? "a compiled work-group image" : "a per-work-item image",
                             p->wg ? "a compiled work-group image" : "a per-work-item image");
        p->wg = wg;
        p->uses_barrier |= barrier;
    }
    return SX_SUCCESS;
}

/* The old way: a dlmopen namespace holding the builtins and every part. */
static sx_result link_namespace(sxa_program p)
{
    uint32_t count = p->num_parts;
    const char *builtins = sxn_builtins_path();
    int *fds = calloc(count, sizeof(int));
    char **paths = calloc(count + 1, sizeof(char *));
    if (!fds || !paths) {
        free(fds);
        free(paths);
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: program.link: out of memory");
    }
    for (uint32_t i = 0; i < count; i++)
        fds[i] = -1;
    int stub_fd = -1;
    unsigned char *stub = NULL;
    void *dl = NULL;
    sx_result r;
    paths[0] = strdup(builtins);
    if (!paths[0]) {
        r = sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: program.link: out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < count; i++) {
        fds[i] = memfd_of("sx-native-program", p->part_bytes[i], p->part_size[i]);
        paths[i + 1] = malloc(64);
        if (fds[i] < 0 || !paths[i + 1]) {
            r = sxn_error(SX_ERROR_OUT_OF_RESOURCES, "native: program.link: memfd for image %u: %s", i,
                          strerror(errno));
            goto fail;
        }
        snprintf(paths[i + 1], 64, "/proc/self/fd/%d", fds[i]);
    }
    size_t stub_size;
    stub = make_stub((const char *const *)paths, count + 1, &stub_size);
    stub_fd = stub ? memfd_of("sx-native-link", stub, stub_size) : -1;
    if (stub_fd < 0) {
        r = sxn_error(SX_ERROR_OUT_OF_RESOURCES, "native: program.link: cannot make the link stub");
        goto fail;
    }
    char stub_path[64];
    snprintf(stub_path, sizeof(stub_path), "/proc/self/fd/%d", stub_fd);
    dl = dlmopen(LM_ID_NEWLM, stub_path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *e = dlerror();
        r = sxn_error(SX_ERROR_LINK_FAILURE,
                      "native: program.link of %u programs: %s (each live linked program of per-work-item "
                      "images takes one of glibc's 16 link namespaces and static TLS for its own libc; "
                      "GLIBC_TUNABLES=glibc.rtld.optional_static_tls=N raises the latter; compiled "
                      "work-group images have no such limit)",
                      count, e ? e : "?");
        goto fail;
    }
    Lmid_t lmid;
    if (dlinfo(dl, RTLD_DI_LMID, &lmid) != 0) {
        r = sxn_error(SX_ERROR_LINK_FAILURE, "native: program.link: dlinfo failed");
        goto fail;
    }
    p->link_maps = calloc(count, sizeof(void *));
    if (!p->link_maps) {
        r = sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: program.link: out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < count; i++) {
        p->link_maps[i] = map_in(lmid, paths[i + 1]);
        if (!p->link_maps[i]) {
            r = sxn_error(SX_ERROR_LINK_FAILURE, "native: program.link: image %u is not in the namespace", i);
            goto fail;
        }
    }
    p->num_link_maps = count;
    p->set_item = (sxn_set_item_fn)dlsym(dl, SXN_BUILTINS_SET_SYMBOL);
    if (!p->set_item) {
        r = sxn_error(SX_ERROR_LINK_FAILURE, "native: program.link: no builtins in the namespace");
        goto fail;
    }
    p->dl = dl;
    p->link_map = p->link_maps[0];
    dl = NULL;
    r = SX_SUCCESS;
fail:
    if (dl)
        dlclose(dl);
    if (r != SX_SUCCESS) {
        free(p->link_maps);
        p->link_maps = NULL;
        p->num_link_maps = 0;
    }
    for (uint32_t i = 0; i < count; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (stub_fd >= 0)
        close(stub_fd);
    for (uint32_t i = 0; i <= count; i++)
        free(paths[i]);
    free(paths);
    free(fds);
    free(stub);
    return r;
}

sx_result sxn_link_build(sxa_program p)
{
    sx_result r = sxn_builtins_load();
    if (r != SX_SUCCESS)
        return r;
    if (p->wg) {
        r = sxn_wg_load(p, p->num_parts, p->part_bytes, p->part_size, SX_ERROR_LINK_FAILURE);
        if (r == SX_SUCCESS)
            p->set_item = sxn_set_item;
    } else {
        r = link_namespace(p);
    }
    if (r == SX_SUCCESS)
        p->state = SXN_PROG_BUILT;
    return r;
}

sx_result sxn_program_link(sxa_context context, sxa_device device, uint32_t count,
                           const sxa_program *programs, const char *options, sxa_program *out)
{
    if (!context || !device)
        return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: program.link: NULL handle");
    if (!out || (count && !programs))
        return sxn_error(SX_ERROR_INVALID_NULL_POINTER, "native: program.link: NULL argument");
    if (count == 0 || count > SXN_MAX_PARTS)
        return sxn_error(SX_ERROR_INVALID_VALUE, "native: program.link of %u programs (1 to %u)", count,
                         SXN_MAX_PARTS);
    for (uint32_t i = 0; i < count; i++) {
        if (!programs[i])
            return sxn_error(SX_ERROR_INVALID_NULL_HANDLE, "native: program.link: program %u is NULL", i);
        if (programs[i]->num_parts)
            return sxn_error(SX_ERROR_INVALID_PROGRAM,
                             "native: program.link: program %u is itself linked; link its images instead", i);
        if (programs[i]->wg != programs[0]->wg)
            return sxn_error(SX_ERROR_LINK_FAILURE,
                             "native: program.link: program %u is %s but program 0 is not; compiled work-group "
                             "images and per-work-item images do not link together", i,
                             programs[i]->wg ? "a compiled work-group image" : "a per-work-item image");
    }
    const unsigned char **parts = calloc(count, sizeof(*parts));
    size_t *sizes = calloc(count, sizeof(*sizes));
    struct sxa_program_s *p = calloc(1, sizeof(*p));
    if (!parts || !sizes || !p) {
        free(parts);
        free(sizes);
        free(p);
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: program.link: out of memory");
    }
    p->obj.dispatch = sxn_services->dispatch;
    p->context = context;
    atomic_init(&p->refs, 1);
    pthread_mutex_init(&p->lock, NULL);
    for (uint32_t i = 0; i < count; i++) {
        parts[i] = programs[i]->bytes;
        sizes[i] = programs[i]->size;
    }
    sx_result r = sxn_container_make(count, parts, sizes, &p->bytes, &p->size);
    free(parts);
    free(sizes);
    if (r == SX_SUCCESS)
        r = sxn_program_parts(p);

    /* signatures of every input */
    uint32_t nsigs = 0;
    for (uint32_t i = 0; i < count; i++)
        nsigs += programs[i]->num_sigs;
    if (r == SX_SUCCESS && !(p->sigs = calloc(nsigs ? nsigs : 1, sizeof(*p->sigs))))
        r = sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: program.link: out of memory");
    for (uint32_t i = 0; i < count && r == SX_SUCCESS; i++) {
        const struct sxa_program_s *in = programs[i];
        for (uint32_t s = 0; s < in->num_sigs && r == SX_SUCCESS; s++) {
            r = sxn_sig_copy(&p->sigs[p->num_sigs], &in->sigs[s]);
            p->num_sigs++;
        }
    }
    if (r == SX_SUCCESS) {
        pthread_mutex_lock(&p->lock);
        r = sxn_link_build(p);
        pthread_mutex_unlock(&p->lock);
    }
    if (r != SX_SUCCESS) {
        sxn_program_unref(p);
        return r;
    }
    *out = p;
    return SX_SUCCESS;
}
