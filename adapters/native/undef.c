/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* undef.c: before a native image is dlopen'ed, find every undefined
 * symbol that nothing in the process provides (the builtins module is
 * loaded RTLD_GLOBAL first, libc is there), so a failed build names all of
 * them at once, as the user wrote them (clz(int4)), and says whether each
 * is an OpenCL C builtin the native device lacks or a symbol of the
 * program's own. dlopen would stop at the first. */
#include "undef.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins-names.h"
#include "demangle.h"

static int cmp_name(const void *k, const void *e) { return strcmp(k, *(const char *const *)e); }

bool sxn_is_builtin_name(const char *symbol)
{
    char name[128];
    if (strncmp(symbol, "_Z", 2) == 0) {
        /* _Z<len><name>... */
        const char *p = symbol + 2;
        size_t n = 0;
        while (*p >= '0' && *p <= '9' && n < 1000)
            n = n * 10 + (size_t)(*p++ - '0');
        if (n == 0 || n >= sizeof(name) || strnlen(p, n) < n)
            return false;
        memcpy(name, p, n);
        name[n] = 0;
    } else {
        snprintf(name, sizeof(name), "%s", symbol);
    }
    return bsearch(name, sxn_builtin_names, sizeof(sxn_builtin_names) / sizeof(sxn_builtin_names[0]),
                   sizeof(sxn_builtin_names[0]), cmp_name) != NULL;
}

static bool in_range(uint64_t off, uint64_t len, size_t size) { return off <= size && len <= size - off; }

/* Append one line to a growing report. */
static bool add(char **rep, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t c = (*cap ? *cap * 2 : 1024) + n;
        char *r = realloc(*rep, c);
        if (!r)
            return false;
        *rep = r;
        *cap = c;
    }
    memcpy(*rep + *len, s, n + 1);
    *len += n;
    return true;
}

int sxn_undefined_report(const unsigned char *b, size_t size, bool *has_needed, char **report)
{
    *report = NULL;
    *has_needed = false;
    Elf64_Ehdr eh;
    if (size < sizeof(eh))
        return -1;
    memcpy(&eh, b, sizeof(eh));
    if (eh.e_shnum == 0 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        !in_range(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), size))
        return -1;
    char *rep = NULL;
    size_t len = 0, cap = 0;
    int missing = 0, listed = 0;
    for (unsigned i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh, st;
        memcpy(&sh, b + eh.e_shoff + (uint64_t)i * sizeof(sh), sizeof(sh));
        if (sh.sh_type == SHT_DYNAMIC && in_range(sh.sh_offset, sh.sh_size, size)) {
            for (uint64_t o = 0; o + sizeof(Elf64_Dyn) <= sh.sh_size; o += sizeof(Elf64_Dyn)) {
                Elf64_Dyn dyn;
                memcpy(&dyn, b + sh.sh_offset + o, sizeof(dyn));
                if (dyn.d_tag == DT_NEEDED)
                    *has_needed = true;
            }
        }
        if (sh.sh_type != SHT_DYNSYM || sh.sh_entsize != sizeof(Elf64_Sym) ||
            !in_range(sh.sh_offset, sh.sh_size, size) || sh.sh_link >= eh.e_shnum)
            continue;
        memcpy(&st, b + eh.e_shoff + (uint64_t)sh.sh_link * sizeof(st), sizeof(st));
        if (st.sh_type != SHT_STRTAB || !in_range(st.sh_offset, st.sh_size, size))
            continue;
        const char *strs = (const char *)b + st.sh_offset;
        for (size_t s = 1; s < sh.sh_size / sizeof(Elf64_Sym); s++) {
            Elf64_Sym sym;
            memcpy(&sym, b + sh.sh_offset + s * sizeof(sym), sizeof(sym));
            if (sym.st_shndx != SHN_UNDEF || ELF64_ST_BIND(sym.st_info) == STB_WEAK ||
                sym.st_name == 0 || sym.st_name >= st.sh_size)
                continue;
            const char *name = strs + sym.st_name;
            if (!memchr(name, 0, st.sh_size - sym.st_name) || dlsym(RTLD_DEFAULT, name))
                continue;
            char user[512], line[1024];
            if (!sxn_demangle(name, user, sizeof(user)))
                snprintf(user, sizeof(user), "%.200s", name);
            bool bi = sxn_is_builtin_name(name);
            snprintf(line, sizeof(line), "\n  %s%s%.300s%s: %s", user, strcmp(user, name) ? " [" : "",
                     strcmp(user, name) ? name : "", strcmp(user, name) ? "]" : "",
                     bi ? "an OpenCL C builtin the native device does not provide"
                        : "not an OpenCL C builtin: a symbol of the program that no image defines");
            /* the error message holds about 4 KB: name the first ones */
            if (len < 3000) {
                if (!add(&rep, &len, &cap, line)) {
                    free(rep);
                    return -1;
                }
                listed++;
            }
            missing++;
        }
    }
    if (missing > listed) {
        char more[64];
        snprintf(more, sizeof(more), "\n  ... and %d more", missing - listed);
        if (!add(&rep, &len, &cap, more)) {
            free(rep);
            return -1;
        }
    }
    *report = rep;
    return missing;
}
