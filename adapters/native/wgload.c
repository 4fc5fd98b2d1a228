/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* wgload.c: loading compiled work-group images (wg.h). Each image gets its
 * own memfd copy and dlopen (RTLD_LOCAL, the application's namespace), so
 * every program has its own program-scope variables and nothing limits how
 * many are alive (no dlmopen namespaces, no static TLS). The ABI value and
 * every table entry are checked against the image's own mapped segments
 * before a kernel can run; then each __sx_wg_imports slot is filled with the
 * address of the symbol of that name exported by one of the program's
 * images (the program's link). */
#include "internal.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Find the image's dynamic symbol table in its bytes (program.create has
 * bounds-checked the section headers, .dynsym and its string table). */
static void find_dynsym(struct sxn_wg_image *im)
{
    const unsigned char *b = im->elf;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        Elf64_Shdr sh, st;
        memcpy(&sh, b + eh->e_shoff + (size_t)i * sizeof(sh), sizeof(sh));
        if (sh.sh_type != SHT_DYNSYM)
            continue;
        memcpy(&st, b + eh->e_shoff + (size_t)sh.sh_link * sizeof(st), sizeof(st));
        im->syms = b + sh.sh_offset;
        im->num_syms = sh.sh_size / sizeof(Elf64_Sym);
        im->strs = (const char *)b + st.sh_offset;
        im->strs_size = st.sh_size;
        return;
    }
}

void *sxn_wg_symbol(const struct sxn_wg_image *im, const char *name, const void **sym)
{
    /* From the bytes, not dlsym/dladdr: those walk every loaded object, so
     * with thousands of linked programs they would dominate the link. */
    const Elf64_Sym *syms = im->syms;
    for (size_t i = 1; i < im->num_syms; i++) {
        const Elf64_Sym *s = &syms[i];
        if (s->st_shndx == SHN_UNDEF || s->st_name >= im->strs_size || ELF64_ST_BIND(s->st_info) == STB_LOCAL)
            continue;
        int type = ELF64_ST_TYPE(s->st_info);
        if (type != STT_FUNC && type != STT_OBJECT && type != STT_COMMON)
            continue;
        const char *n = im->strs + s->st_name;
        size_t max = im->strs_size - s->st_name;
        if (strncmp(n, name, max) != 0 || !memchr(n, 0, max))
            continue;
        if (sym)
            *sym = s;
        return (char *)((struct link_map *)im->link_map)->l_addr + s->st_value;
    }
    return NULL;
}

/* Does [addr, addr + len) lie in one loaded segment of the image with all
 * of `flags` (PF_R/PF_W/PF_X)? Writable ranges must also be outside
 * PT_GNU_RELRO, which becomes read-only after relocation. The program
 * headers were bounds-checked at program.create. */
static bool in_segment(const struct sxn_wg_image *im, uintptr_t addr, size_t len, uint32_t flags,
                       uintptr_t *seg_end)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->elf;
    uintptr_t base = ((struct link_map *)im->link_map)->l_addr;
    bool found = false;
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        Elf64_Phdr ph;
        memcpy(&ph, im->elf + eh->e_phoff + (size_t)i * sizeof(ph), sizeof(ph));
        uintptr_t lo = base + ph.p_vaddr, hi = lo + ph.p_memsz;
        if (ph.p_type == PT_GNU_RELRO && (flags & PF_W) && addr < hi && addr + len > lo)
            return false;
        if (ph.p_type != PT_LOAD || (ph.p_flags & flags) != flags)
            continue;
        if (addr >= lo && addr <= hi && len <= hi - addr) {
            found = true;
            if (seg_end)
                *seg_end = hi;
        }
    }
    return found;
}

/* A NUL-terminated, non-empty string inside a readable segment. */
static bool string_ok(const struct sxn_wg_image *im, const char *s)
{
    uintptr_t end;
    if (!s || !in_segment(im, (uintptr_t)s, 1, PF_R, &end))
        return false;
    return *s && memchr(s, 0, end - (uintptr_t)s) != NULL;
}

/* The highest table level to run: 4 (x86-64-v4: AVX-512 F/BW/CD/DQ/VL
 * with the OS's ZMM state), 3 (x86-64-v3: AVX2, FMA, BMI2) or 0 (baseline),
 * the best the CPU runs unless SX_NATIVE_WG_TABLE caps it: `base` (or
 * `x86-64`; `v2`, `x86-64-v2`, which has no table of its own) the baseline table, `v3` (or `x86-64-v3`) at most that one,
 * `v4`, `x86-64-v4` or `auto` the CPU's best; never above what the CPU has,
 * so tests run each table in turn whatever the CPU's best. */
static int table_level(void)
{
    int level = 0;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
        level = 3;
    if (level == 3 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
        level = 4;
#endif
    const char *env = sxn_getenv("SX_NATIVE_WG_TABLE");
    if (env && (strcmp(env, "base") == 0 || strcmp(env, "x86-64") == 0 || strcmp(env, "v2") == 0 ||
                strcmp(env, "x86-64-v2") == 0))
        level = 0;
    else if (env && (strcmp(env, "v3") == 0 || strcmp(env, "x86-64-v3") == 0) && level > 3)
        level = 3;
    return level;
}

static sx_result check_table(const struct sxn_wg_image *im, const char *what, const char *symbol,
                             const sxn_wg_entry **out, size_t *count);

/* Open image `i` (already loaded as im->dl) and check its table. */
static sx_result open_image(struct sxn_wg_image *im, uint32_t i, uint32_t n)
{
    char what[64];
    if (n == 1)
        snprintf(what, sizeof(what), "compiled work-group image");
    else
        snprintf(what, sizeof(what), "compiled work-group image %u of %u", i, n);
    struct link_map *lm = NULL;
    if (dlinfo(im->dl, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
        return sxn_error(SX_ERROR_BUILD_FAILURE, "native: %s: dlinfo failed", what);
    im->link_map = lm;
    find_dynsym(im);
    const Elf64_Sym *sym = NULL;
    const uint32_t *abi = sxn_wg_symbol(im, SXN_WG_ABI_SYMBOL, (const void **)&sym);
    if (!abi || sym->st_size < sizeof(uint32_t) || !in_segment(im, (uintptr_t)abi, sizeof(*abi), PF_R, NULL))
        return sxn_error(SX_ERROR_INVALID_BINARY, "native: %s: no 4-byte %s data symbol", what,
                         SXN_WG_ABI_SYMBOL);
    if (*abi != SXN_WG_ABI)
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: %s: %s is %u; this adapter runs work-group ABI %u (rebuild the image with a "
                         "matching proptool)", what, SXN_WG_ABI_SYMBOL, *abi, SXN_WG_ABI);
    const sxn_wg_entry *t;
    size_t e;
    sx_result r = check_table(im, what, SXN_WG_TABLE_SYMBOL, &t, &e);
    if (r != SX_SUCCESS)
        return r;
    im->table = t;
    im->num_entries = (uint32_t)e;
    /* the x86-64-v3 and v4 twins, where the CPU runs them */
    int level = table_level();
    static const char *const twins[2] = {SXN_WG_TABLE_V3_SYMBOL, SXN_WG_TABLE_V4_SYMBOL};
    for (int k = 0; k < 2; k++) {
        const sxn_wg_entry *v = sxn_wg_symbol(im, twins[k], NULL);
        if (!v)
            continue;
        size_t nv;
        r = check_table(im, what, twins[k], &v, &nv);
        if (r != SX_SUCCESS)
            return r;
        for (size_t x = 0; x < e || x < nv; x++)
            if (x >= e || x >= nv || strcmp(t[x].name, v[x].name) != 0 || t[x].local_bytes != v[x].local_bytes ||
                t[x].private_bytes != v[x].private_bytes || t[x].flags != v[x].flags)
                return sxn_error(SX_ERROR_INVALID_BINARY,
                                 "native: %s: entry %zu of %s ('%s') does not match that of %s ('%s')", what, x,
                                 twins[k], x < nv ? v[x].name : "(end)", SXN_WG_TABLE_SYMBOL,
                                 x < e ? t[x].name : "(end)");
        if (level >= 3 + k)
            im->table = v;
    }
    return SX_SUCCESS;
}

/* Check a table symbol of the image: every entry, and its NULL end. */
static sx_result check_table(const struct sxn_wg_image *im, const char *what, const char *symbol,
                             const sxn_wg_entry **out, size_t *count)
{
    const Elf64_Sym *sym = NULL;
    const sxn_wg_entry *t = sxn_wg_symbol(im, symbol, (const void **)&sym);
    if (!t || sym->st_size < sizeof(*t) || !in_segment(im, (uintptr_t)t, sym->st_size, PF_R, NULL))
        return sxn_error(SX_ERROR_INVALID_BINARY, "native: %s: %s is missing, empty or outside the image", what,
                         symbol);
    size_t max = sym->st_size / sizeof(*t);
    size_t e = 0;
    for (; e < max && t[e].name; e++) {
        const sxn_wg_entry *x = &t[e];
        if (!string_ok(im, x->name))
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: %s: table entry %zu: the name is not a string inside the image", what, e);
        if (!x->fn || !in_segment(im, (uintptr_t)x->fn, 1, PF_X, NULL))
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: %s: entry %zu ('%s'): the function %p is not in the image's code", what, e,
                             x->name, (void *)x->fn);
        if (x->flags & ~(uint32_t)(SXN_WG_FIBER | SXN_WG_BARRIER) || x->reserved)
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: %s: entry %zu ('%s'): flags 0x%x / reserved %u unknown to work-group ABI %u",
                             what, e, x->name, x->flags, x->reserved, SXN_WG_ABI);
        if (x->local_bytes > SXN_LOCAL_MEM)
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: %s: entry %zu ('%s'): %llu bytes of local memory pass the %u available",
                             what, e, x->name, (unsigned long long)x->local_bytes, SXN_LOCAL_MEM);
        if (x->private_bytes > SXN_MAX_PRIVATE)
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: %s: entry %zu ('%s'): %llu private bytes per work-item pass the %u supported",
                             what, e, x->name, (unsigned long long)x->private_bytes, SXN_MAX_PRIVATE);
        for (size_t o = 0; o < e; o++)
            if (strcmp(t[o].name, x->name) == 0)
                return sxn_error(SX_ERROR_INVALID_BINARY, "native: %s: entries %zu and %zu are both '%s'", what, o,
                                 e, x->name);
    }
    if (e == max)
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: %s: %s (%zu entries of room) does not end with a NULL name", what, symbol, max);
    *out = t;
    *count = e;
    return SX_SUCCESS;
}

/* Write every import slot of image i from the program's images' exports. */
static sx_result fill_imports(sxa_program p, uint32_t i, sx_result fail)
{
    struct sxn_wg_image *im = &p->images[i];
    const Elf64_Sym *sym = NULL;
    const sxn_wg_import *imp = sxn_wg_symbol(im, SXN_WG_IMPORTS_SYMBOL, (const void **)&sym);
    if (!imp)
        return SX_SUCCESS;
    size_t max = sym->st_size / sizeof(*imp);
    if (!in_segment(im, (uintptr_t)imp, max * sizeof(*imp), PF_R, NULL))
        return sxn_error(SX_ERROR_INVALID_BINARY, "native: image %u: %s lies outside the image", i,
                         SXN_WG_IMPORTS_SYMBOL);
    size_t k = 0;
    for (; k < max && imp[k].name; k++) {
        const char *name = imp[k].name;
        void **slot = imp[k].slot;
        if (!string_ok(im, name))
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: image %u: import %zu: the name is not a string inside the image", i, k);
        if (!slot || ((uintptr_t)slot & (sizeof(void *) - 1)) ||
            !in_segment(im, (uintptr_t)slot, sizeof(*slot), PF_R | PF_W, NULL))
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: image %u: import %zu ('%s'): slot %p is not an aligned writable word of the image",
                             i, k, name, (void *)slot);
        void *addr = NULL;
        for (uint32_t j = 0; j < p->num_images && !addr; j++)
            addr = sxn_wg_symbol(&p->images[j], name, NULL);
        if (!addr)
            addr = sxn_builtins_symbol(name);  /* a builtin the compiler routed here */
        if (!addr)
            return sxn_error(fail,
                             "native: image %u imports '%s', which none of the program's %u images (nor the builtins "
                             "module) exports", i, name, p->num_images);
        *slot = addr;
    }
    if (k == max)
        return sxn_error(SX_ERROR_INVALID_BINARY, "native: image %u: %s does not end with a NULL name", i,
                         SXN_WG_IMPORTS_SYMBOL);
    return SX_SUCCESS;
}

void sxn_wg_unload(sxa_program p)
{
    for (uint32_t i = 0; i < p->num_images; i++)
        if (p->images[i].dl)
            dlclose(p->images[i].dl);
    free(p->images);
    p->images = NULL;
    p->num_images = 0;
}

sx_result sxn_wg_load(sxa_program p, uint32_t n, const unsigned char *const *bytes, const size_t *sizes,
                      sx_result fail)
{
    p->images = calloc(n, sizeof(*p->images));
    if (!p->images)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory loading %u images", n);
    p->num_images = n;
    sx_result r = SX_SUCCESS;
    for (uint32_t i = 0; i < n && r == SX_SUCCESS; i++) {
        struct sxn_wg_image *im = &p->images[i];
        im->elf = bytes[i];
        im->elf_size = sizes[i];
        r = sxn_load_bytes(bytes[i], sizes[i], &im->dl);
        if (r == SX_SUCCESS)
            r = open_image(im, i, n);
    }
    for (uint32_t i = 0; i < n && r == SX_SUCCESS; i++)
        r = fill_imports(p, i, fail);
    if (r != SX_SUCCESS)
        sxn_wg_unload(p);
    return r;
}

const sxn_wg_entry *sxn_wg_find(sxa_program p, const char *name)
{
    for (uint32_t i = 0; i < p->num_images; i++)
        for (uint32_t e = 0; e < p->images[i].num_entries; e++)
            if (strcmp(p->images[i].table[e].name, name) == 0)
                return &p->images[i].table[e];
    return NULL;
}
