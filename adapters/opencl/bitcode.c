/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bitcode.c: finds the program-scope variables a SPIR (LLVM bitcode) module declares without defining.
 *
 * Why: Oclgrind 21.10 initialises every program-scope variable of a module
 * when clCreateProgramWithBinary makes the program, and on a variable that
 * is only declared (external, defined by another module it would be linked
 * with: a virtual-function set image reading a device global of its kernel
 * image) LLVM's GlobalVariable::getInitializer asserts and the whole
 * process aborts. The adapter asks here first and refuses such a module.
 *
 * How: no LLVM here. Since LLVM 5 a bitcode file carries, after its module,
 * a string table block (STRTAB, id 23) and a symbol table block (SYMTAB,
 * id 25, llvm/Object/IRSymtab.h), each one blob record. The symbol table
 * flags every symbol undefined or not and executable (a function) or not:
 * an undefined, non-executable, non-format-specific symbol is a variable
 * declared without a definition. Only the top level of the bitstream is
 * walked (the blocks are skipped by their length); a module without these
 * tables (an older producer) answers "cannot tell". Every read is bounded. */
#include "opencl.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum {
    BLOCK_STRTAB = 23,
    BLOCK_SYMTAB = 25,
    /* irsymtab::storage::Symbol::FlagBits */
    FB_UNDEFINED = 3,
    FB_FORMAT_SPECIFIC = 11,
    FB_EXECUTABLE = 13,
    SYMBOL_WORDS = 6,   /* Str Name, Str IRName, Word ComdatIndex, Word Flags */
    MAX_ABBREVS = 16,
    MAX_OPS = 8,
};

typedef struct {
    const uint8_t *p;
    size_t bits, pos;   /* size and position in bits */
    int bad;
} reader;

static uint64_t fixed(reader *r, unsigned n)
{
    uint64_t v = 0;
    if (n > 64 || r->pos + n > r->bits) {
        r->bad = 1;
        return 0;
    }
    for (unsigned i = 0; i < n; i++, r->pos++)
        v |= (uint64_t)((r->p[r->pos / 8] >> (r->pos % 8)) & 1) << i;
    return v;
}

/* A VBR field of `n`-bit chunks; LLVM's bitstream allows 2..32 (its
 * MaxChunkSize): a width from the file outside that is refused before any
 * shift by it (issue 26, finding 12: a width of 265 shifted by 264). */
static uint64_t vbr(reader *r, unsigned n)
{
    uint64_t v = 0;
    if (n < 2 || n > 32) {
        r->bad = 1;
        return 0;
    }
    for (unsigned shift = 0; !r->bad; shift += n - 1) {
        uint64_t chunk = fixed(r, n);
        if (shift < 64)
            v |= (chunk & ((1ull << (n - 1)) - 1)) << shift;
        if (!(chunk >> (n - 1)))
            return v;
        if (shift > 70)
            r->bad = 1;
    }
    return v;
}

static void align32(reader *r)
{
    r->pos = (r->pos + 31) & ~(size_t)31;
    if (r->pos > r->bits)
        r->bad = 1;
}

typedef struct {
    unsigned nops;
    uint8_t lit[MAX_OPS], enc[MAX_OPS];
    uint64_t val[MAX_OPS];
} abbrev;

/* The blob of the first record of the block just entered (abbrev width
 * `w`): STRTAB and SYMTAB hold one record, [blob]. */
static int block_blob(reader *r, unsigned w, const uint8_t **blob, size_t *len)
{
    abbrev ab[MAX_ABBREVS];
    unsigned nab = 0;
    while (!r->bad) {
        uint64_t id = fixed(r, w);
        if (id == 0) /* END_BLOCK */
            return 0;
        if (id == 2) { /* DEFINE_ABBREV */
            if (nab == MAX_ABBREVS)
                return 0;
            abbrev *a = &ab[nab++];
            a->nops = (unsigned)vbr(r, 5);
            if (a->nops > MAX_OPS)
                return 0;
            for (unsigned i = 0; i < a->nops && !r->bad; i++) {
                a->lit[i] = (uint8_t)fixed(r, 1);
                a->val[i] = 0;
                if (a->lit[i]) {
                    a->val[i] = vbr(r, 8);
                    continue;
                }
                a->enc[i] = (uint8_t)fixed(r, 3);
                if (a->enc[i] == 1 || a->enc[i] == 2) {
                    a->val[i] = vbr(r, 5);
                    /* Fixed fields up to 64 bits, VBR chunks 2..32 (checked again where read). */
                    if (a->val[i] > (a->enc[i] == 1 ? 64u : 32u))
                        return 0;
                }
            }
            continue;
        }
        if (id < 4 || id - 4 >= nab)
            return 0; /* an unabbreviated record or a nested block: not the blob layout */
        const abbrev *a = &ab[id - 4];
        for (unsigned i = 0; i < a->nops && !r->bad; i++) {
            if (a->lit[i])
                continue;
            switch (a->enc[i]) {
            case 1: fixed(r, (unsigned)a->val[i]); break;
            case 2: vbr(r, (unsigned)a->val[i]); break;
            case 5: { /* blob: vbr6 length, aligned bytes */
                uint64_t n = vbr(r, 6);
                align32(r);
                if (r->bad || n > (r->bits - r->pos) / 8)
                    return 0;
                *blob = r->p + r->pos / 8;
                *len = (size_t)n;
                return 1;
            }
            default: return 0; /* arrays and char6 are not in these blocks */
            }
        }
    }
    return 0;
}

static uint32_t word(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int sxo_bitcode_undefined_variable(const void *data, size_t size, char *name, size_t name_size)
{
    const uint8_t *b = data;
    if (size >= 20 && word(b) == 0x0B17C0DEu) { /* the wrapper header: offset, size */
        uint32_t off = word(b + 8), n = word(b + 12);
        if (off > size || n > size - off)
            return -1;
        b += off;
        size = n;
    }
    if (size < 8 || memcmp(b, "BC\xC0\xDE", 4) != 0)
        return -1;
    reader r = {b, size * 8, 32, 0};
    const uint8_t *strtab = NULL, *symtab = NULL;
    size_t strtab_len = 0, symtab_len = 0;
    while (!r.bad && r.pos + 64 <= r.bits) {
        if (fixed(&r, 2) != 1) /* top level: only ENTER_SUBBLOCK */
            break;
        uint64_t id = vbr(&r, 8);
        unsigned w = (unsigned)vbr(&r, 4);
        align32(&r);
        uint64_t words = fixed(&r, 32);
        if (r.bad || words > (r.bits - r.pos) / 32)
            return -1;
        size_t end = r.pos + (size_t)words * 32;
        if (id == BLOCK_STRTAB || id == BLOCK_SYMTAB) {
            reader in = {b, end, r.pos, 0};
            if (w < 2 || w > 32 || !block_blob(&in, w, id == BLOCK_STRTAB ? &strtab : &symtab,
                                             id == BLOCK_STRTAB ? &strtab_len : &symtab_len))
                return -1;
        }
        r.pos = end;
    }
    /* Header: Version, Producer (2 words), Modules, Comdats (2 each), Symbols {offset, count}. */
    if (!strtab || !symtab || symtab_len < 9 * 4)
        return -1;
    uint32_t off = word(symtab + 7 * 4), count = word(symtab + 8 * 4);
    if (off > symtab_len || count > (symtab_len - off) / (SYMBOL_WORDS * 4))
        return -1;
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *s = symtab + off + (size_t)i * SYMBOL_WORDS * 4;
        uint32_t flags = word(s + 5 * 4);
        if (!(flags >> FB_UNDEFINED & 1) || (flags >> FB_EXECUTABLE & 1) || (flags >> FB_FORMAT_SPECIFIC & 1))
            continue;
        uint32_t at = word(s), len = word(s + 4);
        if (at > strtab_len || len > strtab_len - at)
            return -1;
        snprintf(name, name_size, "%.*s", (int)(len < 512 ? len : 512), (const char *)strtab + at);
        return 1;
    }
    return 0;
}
