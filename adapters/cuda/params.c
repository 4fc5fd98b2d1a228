/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* params.c: a kernel's parameter sizes read from the program's own bytes
 * (the PTX .entry declaration, or the cubin's .nv.info.<kernel> records),
 * so that creating a kernel asks the driver nothing more than
 * cuModuleGetFunction: before a function's first launch, cuFuncGetParamInfo
 * and cuFuncGetAttribute cost about 35 us together (H100, driver 580), a
 * quarter of a whole first launch. Whatever is not understood here says
 * "unknown" and the caller asks the driver, as before. */
#include <stdlib.h>
#include <string.h>

#include "sxc.h"

/* ---------------------------------------------------------------- PTX */

typedef struct {
    const char *s, *end;
} ptx_lexer;

/* The next token: a run of characters other than blanks and ",()[]", or
 * one of those five; comments and strings are skipped. Length 0 at the end. */
static size_t ptx_token(ptx_lexer *x, const char **tok)
{
    for (;;) {
        while (x->s < x->end && (*x->s == ' ' || *x->s == '\t' || *x->s == '\n' || *x->s == '\r'))
            x->s++;
        if (x->end - x->s >= 2 && x->s[0] == '/' && x->s[1] == '/') {
            while (x->s < x->end && *x->s != '\n')
                x->s++;
        } else if (x->end - x->s >= 2 && x->s[0] == '/' && x->s[1] == '*') {
            const char *e = memmem(x->s + 2, (size_t)(x->end - x->s - 2), "*/", 2);
            x->s = e ? e + 2 : x->end;
        } else if (x->s < x->end && *x->s == '"') {
            const char *e = memchr(x->s + 1, '"', (size_t)(x->end - x->s - 1));
            x->s = e ? e + 1 : x->end;
        } else {
            break;
        }
    }
    *tok = x->s;
    if (x->s == x->end)
        return 0;
    if (strchr(",()[]", *x->s)) {
        x->s++;
        return 1;
    }
    while (x->s < x->end && !strchr(" \t\r\n,()[]\"", *x->s) &&
           !(x->end - x->s >= 2 && x->s[0] == '/' && (x->s[1] == '/' || x->s[1] == '*')))
        x->s++;
    return (size_t)(x->s - *tok);
}

static int tok_is(const char *t, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(t, word, n) == 0;
}

static uint32_t ptx_type_size(const char *t, size_t n)
{
    static const struct {
        const char *name;
        uint32_t size;
    } types[] = {{".u8", 1},   {".s8", 1},    {".b8", 1},    {".u16", 2},    {".s16", 2},     {".b16", 2},
                 {".f16", 2},  {".bf16", 2},  {".u32", 4},   {".s32", 4},    {".b32", 4},     {".f32", 4},
                 {".f16x2", 4}, {".bf16x2", 4}, {".u64", 8}, {".s64", 8},    {".b64", 8},     {".f64", 8},
                 {".b128", 16}};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        if (tok_is(t, n, types[i].name))
            return types[i].size;
    return 0;
}

static int ptx_number(const char *t, size_t n, uint64_t *v)
{
    if (!n || n > 12)
        return 0;
    *v = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return 0;
        *v = *v * 10 + (uint64_t)(t[i] - '0');
    }
    return 1;
}

/* One ".param ..." declaration up to its ',' or ')': its size in bytes,
 * 0 if not understood. *last: it ended with ')'. */
static uint32_t ptx_param(ptx_lexer *x, int *last)
{
    const char *t;
    size_t n = ptx_token(x, &t);
    if (!tok_is(t, n, ".param"))
        return 0;
    uint64_t elem = 0, count = 1, v;
    int named = 0;
    for (;;) {
        n = ptx_token(x, &t);
        if (!n)
            return 0;
        if (tok_is(t, n, ",") || tok_is(t, n, ")")) {
            *last = *t == ')';
            break;
        }
        if (tok_is(t, n, ".align")) {
            n = ptx_token(x, &t);
            if (!ptx_number(t, n, &v))
                return 0;
        } else if (n >= 4 && memcmp(t, ".ptr", 4) == 0) {
            /* .ptr.global.align 8 (pointer attributes): no size of its own */
            if (n >= 6 && memcmp(t + n - 6, ".align", 6) == 0) {
                n = ptx_token(x, &t);
                if (!ptx_number(t, n, &v))
                    return 0;
            }
        } else if (*t == '.') {
            if (elem || !(elem = ptx_type_size(t, n)))
                return 0;
        } else if (tok_is(t, n, "[")) {
            n = ptx_token(x, &t);
            if (!named || !ptx_number(t, n, &v) || !v || v > (1u << 20))
                return 0;
            count *= v;
            n = ptx_token(x, &t);
            if (!tok_is(t, n, "]") || count > (1u << 20))
                return 0;
        } else {
            if (named++)
                return 0;
        }
    }
    return named == 1 && elem ? (uint32_t)(elem * count) : 0;
}

/* The parameter list that follows an entry's name (lexer just past it):
 * "(" declarations ")" or nothing. */
static int ptx_list(ptx_lexer x, uint32_t **out, uint32_t *count)
{
    const char *t;
    ptx_lexer look = x;
    size_t n = ptx_token(&look, &t);
    *out = NULL;
    *count = 0;
    if (!tok_is(t, n, "("))
        return 1;
    x = look;
    n = ptx_token(&look, &t);
    if (tok_is(t, n, ")"))
        return 1;
    uint32_t *sizes = NULL, num = 0, cap = 0;
    for (int last = 0; !last;) {
        uint32_t sz = ptx_param(&x, &last);
        if (!sz || num == 65536) {
            free(sizes);
            return 0;
        }
        if (num == cap) {
            uint32_t *g = realloc(sizes, (cap = cap ? cap * 2 : 8) * sizeof(*g));
            if (!g) {
                free(sizes);
                return -1;
            }
            sizes = g;
        }
        sizes[num++] = sz;
    }
    *out = sizes;
    *count = num;
    return 1;
}

static int name_char(char c)
{
    return c && !strchr(" \t\r\n,()[]\"", c);
}

/* Append to a growing index; 0 when out of memory (the index is freed). */
static int push_entry(sxc_image_entry **e, uint32_t *n, uint32_t *cap, sxc_image_entry v)
{
    if (*n == *cap) {
        sxc_image_entry *g = realloc(*e, (*cap = *cap ? *cap * 2 : 16) * sizeof(*g));
        if (!g) {
            free(*e);
            *e = NULL;
            return 0;
        }
        *e = g;
    }
    (*e)[(*n)++] = v;
    return 1;
}

/* Index the PTX's entries once per program: each ".entry" (memmem, fast on
 * megabytes of PTX) not behind a "//" or a quote on its line, with its name.
 * PTX with block comments is not indexed (-1): each kernel then has the
 * text read token by token. */
static int ptx_index(sxc_program_t *p)
{
    const char *s = (const char *)p->image, *end = s + strnlen(s, p->image_size);
    if (memmem(s, (size_t)(end - s), "/*", 2))
        return -1;
    sxc_image_entry *e = NULL;
    uint32_t n = 0, cap = 0;
    for (const char *h = s; (h = memmem(h, (size_t)(end - h), ".entry", 6)) != NULL; h += 6) {
        const char *line = h;
        while (line > s && line[-1] != '\n')
            line--;
        if ((line < h && !strchr(" \t\r", h[-1])) || h + 6 == end || !strchr(" \t\r\n", h[6]) ||
            memmem(line, (size_t)(h - line), "//", 2) || memchr(line, '"', (size_t)(h - line)))
            continue;
        const char *nm = h + 6;
        while (nm < end && strchr(" \t\r\n", *nm))
            nm++;
        const char *ne = nm;
        while (ne < end && name_char(*ne) && !(ne[0] == '/' && ne + 1 < end && ne[1] == '/'))
            ne++;
        if (ne != nm && !push_entry(&e, &n, &cap, (sxc_image_entry){(size_t)(nm - s), (size_t)(ne - nm), 0, 0}))
            return -1;
    }
    p->entries = e;
    p->num_entries = n;
    p->text_len = (size_t)(end - s);
    return 1;
}

/* PTX that could not be indexed: read token by token. */
static int from_ptx_text(const sxc_program_t *p, const char *name, uint32_t **out, uint32_t *count)
{
    const char *s = (const char *)p->image, *t;
    ptx_lexer x = {s, s + strnlen(s, p->image_size)};
    size_t n;
    while ((n = ptx_token(&x, &t)) != 0) {
        if (!tok_is(t, n, ".entry"))
            continue;
        n = ptx_token(&x, &t);
        if (tok_is(t, n, name))
            return ptx_list(x, out, count);
    }
    return 0;
}

/* -------------------------------------------------------------- cubin */

/* .nv.info records: a format byte, an attribute byte, then two bytes (no
 * value, EIFMT_NVAL; a byte and a pad, EIFMT_BVAL; a 16-bit value,
 * EIFMT_HVAL) or a 16-bit size and that many bytes (EIFMT_SVAL). */
#define EIFMT_NVAL 1
#define EIFMT_HVAL 3
#define EIFMT_SVAL 4
#define EIATTR_PARAM_CBANK 0x0a  /* symbol, cbank offset (16 bits), parameter bytes (16 bits) */
#define EIATTR_KPARAM_INFO 0x17  /* index, ordinal (16 bits), offset (16 bits), flags: size in bits 18-31 */

static uint16_t rd16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const unsigned char *p) { return (uint32_t)rd16(p) | (uint32_t)rd16(p + 2) << 16; }
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* Index a cubin's kernels once per program: each ".nv.info.<kernel>"
 * section's name and bytes (a little-endian ELF64; -1 if it is none). */
static int cubin_index(sxc_program_t *p)
{
    const unsigned char *b = p->image;
    size_t size = p->image_size;
    if (size < 64 || memcmp(b, "\177ELF", 4) != 0 || b[4] != 2 || b[5] != 1)
        return -1;
    uint64_t shoff = rd64(b + 0x28);
    uint16_t entsize = rd16(b + 0x3a), num = rd16(b + 0x3c), strndx = rd16(b + 0x3e);
    if (entsize < 64 || strndx >= num || shoff > size || (uint64_t)num * entsize > size - shoff)
        return -1;
    const unsigned char *strsh = b + shoff + (size_t)strndx * entsize;
    uint64_t stroff = rd64(strsh + 0x18), strsize = rd64(strsh + 0x20);
    if (stroff > size || strsize > size - stroff)
        return -1;
    sxc_image_entry *e = NULL;
    uint32_t n = 0, cap = 0;
    for (uint16_t i = 0; i < num; i++) {
        const unsigned char *sh = b + shoff + (size_t)i * entsize;
        uint64_t name = rd32(sh), off = rd64(sh + 0x18), sz = rd64(sh + 0x20);
        if (name >= strsize || strsize - name <= 9 || memcmp(b + stroff + name, ".nv.info.", 9) != 0 || off > size ||
            sz > size - off)
            continue;
        const char *nm = (const char *)b + stroff + name + 9;
        size_t len = strnlen(nm, strsize - name - 9);
        /* no name, or no NUL before the table's end: not a kernel's */
        if (len && len < strsize - name - 9 &&
            !push_entry(&e, &n, &cap, (sxc_image_entry){(size_t)(nm - (const char *)b), len, (size_t)off, (size_t)sz}))
            return -1;
    }
    p->entries = e;
    p->num_entries = n;
    return 1;
}

/* The parameters in a kernel's .nv.info records (`len` bytes at `p`). */
static int from_info(const unsigned char *p, size_t len, uint32_t **out, uint32_t *count)
{
    /* Two passes: count and check, then fill. */
    uint32_t num = 0, cbank = UINT32_MAX, end = 0;
    uint32_t *sizes = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i + 4 <= len;) {
            unsigned fmt = p[i], attr = p[i + 1];
            size_t rec = 4;
            if (fmt == EIFMT_SVAL)
                rec += rd16(p + i + 2);
            else if (fmt < EIFMT_NVAL || fmt > EIFMT_HVAL)
                goto unknown; /* a record whose length this does not know */
            if (rec > len - i)
                goto unknown;
            const unsigned char *v = p + i + 4;
            if (fmt == EIFMT_SVAL && attr == EIATTR_PARAM_CBANK && rec >= 12 && pass == 0)
                cbank = rd16(v + 6);
            if (fmt == EIFMT_SVAL && attr == EIATTR_KPARAM_INFO) {
                if (rec < 16)
                    goto unknown;
                uint32_t ord = rd16(v + 4), off = rd16(v + 6), sz = (rd32(v + 8) >> 18) & 0x3fff;
                if (pass == 0) {
                    if (!sz || ord >= 65536)
                        goto unknown;
                    num = ord + 1 > num ? ord + 1 : num;
                    end = off + sz > end ? off + sz : end;
                } else {
                    if (ord >= num || sizes[ord])
                        goto unknown; /* an ordinal twice */
                    sizes[ord] = sz;
                }
            }
            i += rec;
        }
        if (pass == 0) {
            /* The parameter bytes must be exactly what the records cover,
             * and small enough that no 14-bit size can have wrapped. */
            /* No records at all reads the same as a format this does not
             * know: a kernel without parameters asks the driver. */
            if (cbank != end || cbank > 0x3fff || num == 0)
                goto unknown;
            if (!(sizes = calloc(num, sizeof(*sizes))))
                return -1;
        }
    }
    for (uint32_t i = 0; i < num; i++)
        if (!sizes[i])
            goto unknown; /* an ordinal missing */
    *out = sizes;
    *count = num;
    return 1;
unknown:
    free(sizes);
    return 0;
}

int sxc_params_from_image(sxc_program_t *p, const char *name, uint32_t **sizes, uint32_t *count)
{
    int ptx = p->kind == SX_IMAGE_KIND_PTX;
    pthread_mutex_lock(&p->lock);
    if (!p->indexed)
        p->indexed = ptx ? ptx_index(p) : cubin_index(p);
    int indexed = p->indexed;
    pthread_mutex_unlock(&p->lock);
    if (indexed < 0)
        return ptx ? from_ptx_text(p, name, sizes, count) : 0;
    /* The index is complete and never changes once published under the lock. */
    size_t len = strlen(name);
    for (uint32_t i = 0; i < p->num_entries; i++) {
        const sxc_image_entry *e = &p->entries[i];
        if (e->len != len || memcmp(p->image + e->name, name, len) != 0)
            continue;
        if (!ptx)
            return from_info(p->image + e->off, e->size, sizes, count);
        ptx_lexer x = {(const char *)p->image + e->name + len, (const char *)p->image + p->text_len};
        return ptx_list(x, sizes, count);
    }
    return 0;
}
