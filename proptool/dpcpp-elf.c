/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dpcpp-elf.c: the device images a DPC++-built executable or shared library
 * carries, read from the file without running any of its code: its loadable
 * segments are laid out at their addresses, its relative relocations
 * applied (the descriptors' pointers are relocated data), and the
 * registration descriptors found by their shape (doc/image-format.md,
 * "DPC++'s layouts"). Each one is copied into a descriptor of version-2
 * records with host pointers, which the dumps print. */
#include "config.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "dpcpp-elf.h"

#define MAX_SPAN ((uint64_t)4 << 30) /* the most address space a file may ask us to lay out */

typedef struct {
    uint8_t *mem;   /* the segments at vaddr - lo, plus one zero byte */
    uint64_t lo, size;
    const char *path;
} space;

static const uint8_t *at(const space *s, uint64_t va, uint64_t n)
{
    if (va < s->lo || va - s->lo > s->size || n > s->size - (va - s->lo))
        return NULL;
    return s->mem + (va - s->lo);
}

static uint64_t rd64(const space *s, uint64_t va)
{
    uint64_t v = 0;
    const uint8_t *p = at(s, va, 8);
    if (p)
        memcpy(&v, p, 8);
    return v;
}

/* A NUL-terminated string at va, inside the space, or NULL. */
static const char *str(const space *s, uint64_t va)
{
    const uint8_t *p = at(s, va, 1);
    if (!p)
        return NULL;
    size_t left = s->size - (va - s->lo);
    return memchr(p, 0, left) ? (const char *)p : NULL;
}

static bool fail(const char *path, const char *what)
{
    sxp_error(path, SXP_NONE, "%s", what);
    return false;
}

/* Lay out PT_LOAD segments and apply R_X86_64_RELATIVE and R_X86_64_64 (to
 * symbols this file defines) relocations: what the loader would write,
 * with the file loaded at address 0. */
static bool load(space *s, const uint8_t *f, size_t n)
{
    if (n < sizeof(Elf64_Ehdr))
        return fail(s->path, "too short for an ELF header");
    Elf64_Ehdr eh;
    memcpy(&eh, f, sizeof(eh));
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
        return fail(s->path, "not a little-endian 64-bit x86-64 ELF file (DPC++'s host layout is x86-64)");
    if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > n || (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr) > n - eh.e_phoff)
        return fail(s->path, "program headers outside the file");
    uint64_t lo = UINT64_MAX, hi = 0;
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, f + eh.e_phoff + i * sizeof(ph), sizeof(ph));
        if (ph.p_type != PT_LOAD)
            continue;
        if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr || ph.p_filesz > ph.p_memsz || ph.p_offset > n ||
            ph.p_filesz > n - ph.p_offset)
            return fail(s->path, "a loadable segment lies outside the file");
        lo = ph.p_vaddr < lo ? ph.p_vaddr : lo;
        hi = ph.p_vaddr + ph.p_memsz > hi ? ph.p_vaddr + ph.p_memsz : hi;
    }
    if (lo >= hi || hi - lo > MAX_SPAN)
        return fail(s->path, "no loadable segment, or segments spanning more than 4 GiB");
    s->lo = lo;
    s->size = hi - lo;
    s->mem = calloc(s->size + 1, 1);
    if (!s->mem)
        return fail(s->path, "out of memory laying out the segments");
    for (unsigned i = 0; i < eh.e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, f + eh.e_phoff + i * sizeof(ph), sizeof(ph));
        if (ph.p_type == PT_LOAD)
            memcpy(s->mem + (ph.p_vaddr - lo), f + ph.p_offset, ph.p_filesz);
    }
    /* Relocations from the section headers (kept by strip). */
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > n ||
        (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > n - eh.e_shoff)
        return true; /* no section headers: absolute pointers (ET_EXEC) still read */
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, f + eh.e_shoff + i * sizeof(sh), sizeof(sh));
        if ((sh.sh_type != SHT_RELA && sh.sh_type != SHT_RELR) || sh.sh_offset > n || sh.sh_size > n - sh.sh_offset)
            continue;
        /* RELR (packed relative) relocations keep the addend in the place:
         * loaded at 0, the value there is already right. */
        if (sh.sh_type == SHT_RELR)
            continue;
        /* The symbol table a RELA section names (sh_link), for R_X86_64_64. */
        Elf64_Shdr sym = {0};
        if (sh.sh_link < eh.e_shnum)
            memcpy(&sym, f + eh.e_shoff + sh.sh_link * sizeof(sym), sizeof(sym));
        if (sym.sh_offset > n || sym.sh_size > n - sym.sh_offset)
            sym.sh_size = 0;
        for (uint64_t k = 0; k + sizeof(Elf64_Rela) <= sh.sh_size; k += sizeof(Elf64_Rela)) {
            Elf64_Rela r;
            memcpy(&r, f + sh.sh_offset + k, sizeof(r));
            uint32_t type = ELF64_R_TYPE(r.r_info);
            uint64_t v;
            if (type == R_X86_64_RELATIVE) {
                v = (uint64_t)r.r_addend;
            } else if (type == R_X86_64_64) {
                uint64_t si = ELF64_R_SYM(r.r_info);
                Elf64_Sym y;
                if ((si + 1) * sizeof(y) > sym.sh_size)
                    continue;
                memcpy(&y, f + sym.sh_offset + si * sizeof(y), sizeof(y));
                if (y.st_shndx == SHN_UNDEF)
                    continue; /* another library's: not ours to know */
                v = y.st_value + (uint64_t)r.r_addend;
            } else {
                continue;
            }
            uint8_t *p = (uint8_t *)at(s, r.r_offset, 8);
            if (p)
                memcpy(p, &v, 8);
        }
    }
    return true;
}

/* ------------------------------------------------ descriptors by shape */

typedef struct {
    sxp_elf_desc *v;
    size_t n, cap;
    /* Host copies: every block malloc'd for the descriptors, freed at the end. */
    void **blocks;
    size_t nblocks, capblocks;
} found;

static void *keep(found *fd, size_t size)
{
    void *p = sxp_xcalloc(1, size ? size : 1);
    sxp_grow(&fd->blocks, &fd->capblocks, fd->nblocks + 1, sizeof(void *));
    fd->blocks[fd->nblocks++] = p;
    return p;
}

static size_t record_size(uint16_t version)
{
    return version == 1 || version == 2 ? sizeof(sx_device_binary) : version == 3 ? sizeof(sx_device_binary_v3) : 0;
}

/* Whether a device-binary record starts at va (its first 8 bytes). */
static bool record_head(const space *s, uint64_t va)
{
    const uint8_t *p = at(s, va, 8);
    if (!p)
        return false;
    uint16_t version;
    memcpy(&version, p, 2);
    return record_size(version) && p[2] == SX_OFFLOAD_KIND_SYCL && p[3] <= SX_BINARY_FORMAT_COMPRESSED_NONE &&
           p[4] == 0 && p[5] == 0 && p[6] == 0 && p[7] == 0;
}

/* Copy one property set array into host form; false if anything lies
 * outside the file. */
static bool copy_sets(const space *s, found *fd, uint64_t b, uint64_t e, sx_device_binary *out)
{
    if (!b && !e)
        return true;
    if (e < b || (e - b) % 24 || !at(s, b, e - b))
        return false;
    size_t ns = (size_t)((e - b) / 24);
    sx_device_binary_property_set *sets = keep(fd, ns * sizeof(*sets));
    for (size_t i = 0; i < ns; i++) {
        uint64_t name = rd64(s, b + i * 24), pb = rd64(s, b + i * 24 + 8), pe = rd64(s, b + i * 24 + 16);
        sets[i].name = (char *)str(s, name);
        if (!sets[i].name || pe < pb || (pe - pb) % 32 || (pb && !at(s, pb, pe - pb)))
            return false;
        size_t np = (size_t)((pe - pb) / 32);
        sx_device_binary_property *props = keep(fd, np * sizeof(*props));
        for (size_t k = 0; k < np; k++) {
            uint64_t pa = pb + k * 32;
            uint64_t pname = rd64(s, pa), val = rd64(s, pa + 8), size = rd64(s, pa + 24);
            uint32_t type;
            memcpy(&type, at(s, pa + 16, 4), 4);
            props[k].name = (char *)str(s, pname);
            props[k].type = type;
            props[k].value_size = size;
            if (!props[k].name)
                return false;
            if (type == SX_PROPERTY_TYPE_BYTE_ARRAY && val) {
                props[k].value_addr = (void *)at(s, val, size);
                if (!props[k].value_addr)
                    return false;
            } else if (type == SX_PROPERTY_TYPE_STRING && val) {
                props[k].value_addr = (void *)str(s, val);
                if (!props[k].value_addr)
                    return false;
            } else if (val) {
                props[k].value_addr = (void *)at(s, val, 1);
            }
        }
        sets[i].properties_begin = props;
        sets[i].properties_end = props + np;
    }
    out->property_sets_begin = sets;
    out->property_sets_end = sets + ns;
    return true;
}

/* Entries: both layouts into legacy 32-byte records with host names. */
static bool copy_entries(const space *s, found *fd, uint64_t b, uint64_t e, sx_device_binary *out, uint8_t *layout)
{
    *layout = 0;
    if (!b && !e)
        return true;
    if (e < b || !at(s, b, e - b))
        return false;
    const uint8_t *p = at(s, b, e - b);
    uint64_t bytes = e - b;
    sx_offload_entry_llvm h;
    bool llvm = false;
    if (bytes >= 56) {
        memcpy(&h, p, 16);
        llvm = h.reserved == 0 && h.version == 1 && h.kind == 8 && h.flags == 0;
    }
    size_t step = llvm ? 56 : 32, name_at = llvm ? 24 : 8;
    if (!bytes || bytes % step)
        return false;
    size_t ne = (size_t)(bytes / step);
    sx_offload_entry *ents = keep(fd, ne * sizeof(*ents));
    for (size_t i = 0; i < ne; i++) {
        ents[i].name = (char *)str(s, rd64(s, b + i * step + name_at));
        if (!ents[i].name)
            return false;
    }
    out->entries_begin = ents;
    out->entries_end = ents + ne;
    *layout = (uint8_t)step;
    return true;
}

/* A descriptor candidate at va: version 1, a count, padding, an array
 * whose records all read. */
static bool try_desc(const space *s, found *fd, uint64_t va)
{
    const uint8_t *p = at(s, va, 32);
    if (!p)
        return false;
    uint16_t version, count;
    memcpy(&version, p, 2);
    memcpy(&count, p + 2, 2);
    if (version != SX_DEVICE_BINARIES_VERSION || !count || p[4] || p[5] || p[6] || p[7])
        return false;
    uint64_t arr = rd64(s, va + 8);
    if (!record_head(s, arr))
        return false;
    uint64_t cur = arr;
    for (uint32_t i = 0; i < count; i++) {
        if (!record_head(s, cur))
            return false;
        uint16_t v;
        memcpy(&v, at(s, cur, 2), 2);
        cur += record_size(v);
    }
    sx_device_binary *bins = keep(fd, count * sizeof(*bins));
    sxp_elf_image *info = keep(fd, count * sizeof(*info));
    cur = arr;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *r = at(s, cur, 8);
        uint16_t v;
        memcpy(&v, r, 2);
        /* Pointer fields by version: v1/v2 have the manifest pair after
         * link_options, v3 does not. */
        uint64_t f[12];
        size_t nf = v == 3 ? 9 : 11;
        for (size_t k = 0; k < nf; k++)
            f[k] = rd64(s, cur + 8 + k * 8);
        size_t o = v == 3 ? 3 : 5; /* index of binary_start */
        sx_device_binary *b = &bins[i];
        b->version = v;
        b->kind = r[2];
        b->format = r[3];
        b->device_target_spec = str(s, f[0]);
        b->compile_options = f[1] ? str(s, f[1]) : NULL;
        b->link_options = f[2] ? str(s, f[2]) : NULL;
        if (!b->device_target_spec || f[o + 1] < f[o] || !at(s, f[o], f[o + 1] - f[o]))
            return false;
        b->binary_start = at(s, f[o], f[o + 1] - f[o]);
        b->binary_end = b->binary_start + (f[o + 1] - f[o]);
        if (!copy_entries(s, fd, f[o + 2], f[o + 3], b, &info[i].entry_size) ||
            !copy_sets(s, fd, f[o + 4], f[o + 5], b))
            return false;
        info[i].version = v;
        info[i].record_address = cur;
        cur += record_size(v);
    }
    sxp_grow(&fd->v, &fd->cap, fd->n + 1, sizeof(*fd->v));
    sxp_elf_desc *d = &fd->v[fd->n++];
    memset(d, 0, sizeof(*d));
    d->address = va;
    d->images = info;
    d->desc.version = version;
    d->desc.num_device_binaries = count;
    d->desc.device_binaries = bins;
    return true;
}

bool sxp_elf_read(const char *path, const uint8_t *file, size_t size, sxp_elf *out)
{
    memset(out, 0, sizeof(*out));
    space s = {.path = path};
    if (!load(&s, file, size)) {
        free(s.mem);
        return false;
    }
    found fd = {0};
    /* Descriptors are 8-aligned data; records are checked only where a
     * version-1 header with a count and zero padding sits, so a scan costs
     * a few reads per word. */
    for (uint64_t off = 0; off + 32 <= s.size; off += 8) {
        const uint8_t *p = s.mem + off;
        if (p[0] != 1 || p[1] != 0 || p[4] || p[5] || p[6] || p[7] || (!p[2] && !p[3]))
            continue;
        size_t before = fd.nblocks;
        if (!try_desc(&s, &fd, s.lo + off)) {
            /* Drop what a failed candidate copied. */
            for (size_t i = before; i < fd.nblocks; i++)
                free(fd.blocks[i]);
            fd.nblocks = before;
        }
    }
    out->mem = s.mem;
    out->descs = fd.v;
    out->num_descs = fd.n;
    out->blocks = fd.blocks;
    out->num_blocks = fd.nblocks;
    return true;
}

void sxp_elf_free(sxp_elf *e)
{
    for (size_t i = 0; i < e->num_blocks; i++)
        free(e->blocks[i]);
    free(e->blocks);
    free(e->descs);
    free(e->mem);
    memset(e, 0, sizeof(*e));
}

bool sxp_is_elf(const uint8_t *data, size_t size)
{
    return size >= 4 && memcmp(data, ELFMAG, SELFMAG) == 0;
}
