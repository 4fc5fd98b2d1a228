/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* elf.c: the defined dynamic symbols of a host shared object, so a host
 * variant can be checked against the kernels its SPIR-V companion lists. */
#include "config.h"

#include <elf.h>
#include <string.h>

#include "proptool.h"

static bool in(size_t size, uint64_t off, uint64_t len)
{
    return off <= size && len <= size - off;
}

bool sxp_elf_has_symbol(const uint8_t *d, size_t size, const char *name, bool *found)
{
    *found = false;
    if (size < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG) || d[EI_CLASS] != ELFCLASS64 ||
        d[EI_DATA] != ELFDATA2LSB)
        return false;
    Elf64_Ehdr eh;
    memcpy(&eh, d, sizeof eh);
    if (eh.e_shentsize != sizeof(Elf64_Shdr) || !in(size, eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr)))
        return false;
    for (uint16_t i = 0; i < eh.e_shnum; i++) {
        Elf64_Shdr sh;
        memcpy(&sh, d + eh.e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_DYNSYM)
            continue;
        if (sh.sh_entsize != sizeof(Elf64_Sym) || !in(size, sh.sh_offset, sh.sh_size) || sh.sh_link >= eh.e_shnum)
            return false;
        Elf64_Shdr st;
        memcpy(&st, d + eh.e_shoff + (size_t)sh.sh_link * sizeof st, sizeof st);
        if (!in(size, st.sh_offset, st.sh_size))
            return false;
        const char *strs = (const char *)d + st.sh_offset;
        size_t nlen = strlen(name);
        for (uint64_t k = 0; k < sh.sh_size / sizeof(Elf64_Sym); k++) {
            Elf64_Sym sym;
            memcpy(&sym, d + sh.sh_offset + k * sizeof sym, sizeof sym);
            if (sym.st_shndx == SHN_UNDEF || sym.st_name >= st.sh_size || st.sh_size - sym.st_name <= nlen)
                continue;
            if (!memcmp(strs + sym.st_name, name, nlen + 1)) {
                *found = true;
                return true;
            }
        }
        return true;
    }
    return false;
}
