/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* propfile.c: sycl-post-link's text files: the property file (.prop) and
 * the file table (.table) that lists each split image's code and .prop.
 *
 * .prop (llvm/lib/Support/PropertySetIO.cpp): "[set name]" opens a set;
 * then "name=1|decimal" (UINT32) or "name=2|base64" (BYTE_ARRAY, the value
 * with its 64-bit bit-count prefix). DPC++'s base64 (llvm/Support/Base64)
 * is not RFC 4648: bytes are taken as a little-endian bit stream, 6 bits a
 * character, first bits first, no padding. "name=3|text" is ours (STRING
 * properties, which DPC++ has no text form for).
 *
 * .table: a header "[Code|Properties|Symbols]" (columns in any order,
 * Code required), then one row per image, columns separated by '|'. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proptool.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int b64_value(char c)
{
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

void sxp_b64_encode(const uint8_t *d, size_t n, sxp_buf *out)
{
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= (uint32_t)d[i] << bits;
        bits += 8;
        while (bits >= 6) {
            sxp_buf_u8(out, (uint8_t)b64[acc & 63]);
            acc >>= 6;
            bits -= 6;
        }
    }
    if (bits)
        sxp_buf_u8(out, (uint8_t)b64[acc & 63]);
}

/* Decode `n` characters; NULL (and *bad = the offending offset) when one
 * is not in the alphabet or the length is one DPC++ never writes. */
static uint8_t *b64_decode(const char *s, size_t n, size_t *len, size_t *bad)
{
    if (n % 4 == 1) {
        *bad = n;
        return NULL;
    }
    uint8_t *out = sxp_xmalloc(n * 6 / 8 + 1);
    uint32_t acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        int v = b64_value(s[i]);
        if (v < 0) {
            free(out);
            *bad = i;
            return NULL;
        }
        acc |= (uint32_t)v << bits;
        bits += 6;
        if (bits >= 8) {
            out[o++] = (uint8_t)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
    *len = o;
    return out;
}

bool sxp_prop_parse(const char *path, const char *text, size_t size, sxp_image *img)
{
    sxp_propset *cur = NULL;
    unsigned line = 0;
    size_t pos = 0;
    bool ok = true, any = false;
    while (pos < size && ok) {
        const char *l = text + pos;
        const char *nl = memchr(l, '\n', size - pos);
        size_t len = nl ? (size_t)(nl - l) : size - pos;
        pos += len + (nl ? 1 : 0);
        line++;
        if (len && l[len - 1] == '\r')
            len--;
        if (!len)
            continue;
        if (memchr(l, 0, len)) {
            sxp_error(path, SXP_NONE, "line %u: a NUL byte", line);
            return false;
        }
        if (l[0] == '[') {
            const char *close = len > 1 ? memchr(l, ']', len) : NULL;
            const char *last = l + len - 1;
            while (close && close < last && memchr(close + 1, ']', (size_t)(last - close)))
                close = memchr(close + 1, ']', (size_t)(last - close));
            if (!close || close == l + 1) {
                sxp_error(path, SXP_NONE, "line %u: a set name needs \"[name]\"", line);
                return false;
            }
            char *name = sxp_xstrndup(l + 1, (size_t)(close - l - 1));
            cur = sxp_image_set(img, name);
            free(name);
            any = true;
            continue;
        }
        const char *eq = memchr(l, '=', len);
        const char *bar = eq ? memchr(eq, '|', len - (size_t)(eq - l)) : NULL;
        if (!cur) {
            sxp_error(path, SXP_NONE, "line %u: a property before any [set]", line);
            return false;
        }
        if (!eq || eq == l || !bar || bar == eq + 1 || bar == l + len - 1) {
            sxp_error(path, SXP_NONE, "line %u: not name=type|value", line);
            return false;
        }
        char *name = sxp_xstrndup(l, (size_t)(eq - l));
        char *type = sxp_xstrndup(eq + 1, (size_t)(bar - eq - 1));
        const char *val = bar + 1;
        size_t vlen = len - (size_t)(val - l);
        if (sxp_set_find(cur, name)) {
            sxp_error(path, SXP_NONE, "line %u: property '%s' twice in [%s]", line, name, cur->name);
            ok = false;
        } else if (!strcmp(type, "1")) {
            char *v = sxp_xstrndup(val, vlen), *end;
            errno = 0;
            unsigned long long x = strtoull(v, &end, 10);
            if (*v < '0' || *v > '9' || *end || errno || x > UINT32_MAX) {
                sxp_error(path, SXP_NONE, "line %u: '%s' is not a UINT32", line, v);
                ok = false;
            } else {
                sxp_set_u32(cur, name, (uint32_t)x);
            }
            free(v);
        } else if (!strcmp(type, "2")) {
            size_t n = 0, bad = 0;
            uint8_t *d = b64_decode(val, vlen, &n, &bad);
            uint64_t bits = 0;
            for (int i = 0; d && n >= 8 && i < 8; i++)
                bits |= (uint64_t)d[i] << (8 * i);
            if (!d) {
                sxp_error(path, SXP_NONE, "line %u: property '%s': bad base64 at character %zu", line, name, bad);
                ok = false;
            } else if (n < 8 || (bits + 7) / 8 > n - 8) {
                sxp_error(path, SXP_NONE, "line %u: property '%s': %zu bytes do not hold the %llu bits its prefix says",
                          line, name, n, (unsigned long long)bits);
                ok = false;
            } else {
                /* The decoded length rounds up to whole characters: keep
                 * what the prefix says (bit vectors may end mid-byte). */
                sxp_set_bits(cur, name, d + 8, bits);
            }
            free(d);
        } else if (!strcmp(type, "3")) {
            char *v = sxp_xstrndup(val, vlen);
            sxp_set_string(cur, name, v);
            free(v);
        } else {
            sxp_error(path, SXP_NONE, "line %u: property '%s': unknown type '%s' (1 UINT32, 2 BYTE_ARRAY)", line, name,
                      type);
            ok = false;
        }
        free(name);
        free(type);
    }
    if (ok && !any) {
        sxp_error(path, SXP_NONE, "no property set in the file");
        ok = false;
    }
    return ok;
}

bool sxp_prop_load(const char *path, sxp_image *img)
{
    size_t size;
    uint8_t *d = sxp_read_file(path, &size);
    if (!d)
        return false;
    bool ok = sxp_prop_parse(path, (const char *)d, size, img);
    free(d);
    return ok;
}

void sxp_prop_write(const sx_device_binary *b, sxp_buf *out)
{
    for (const sx_device_binary_property_set *s = b->property_sets_begin; s != b->property_sets_end; s++) {
        sxp_buf_u8(out, '[');
        sxp_buf_put(out, s->name, strlen(s->name));
        sxp_buf_put(out, "]\n", 2);
        for (const sx_device_binary_property *p = s->properties_begin; p != s->properties_end; p++) {
            sxp_buf_put(out, p->name, strlen(p->name));
            if (p->type == SX_PROPERTY_TYPE_UINT32) {
                char *v = sxp_xasprintf("=1|%llu\n", (unsigned long long)p->value_size);
                sxp_buf_put(out, v, strlen(v));
                free(v);
            } else if (p->type == SX_PROPERTY_TYPE_BYTE_ARRAY) {
                sxp_buf_put(out, "=2|", 3);
                sxp_b64_encode(p->value_addr, (size_t)p->value_size, out);
                sxp_buf_u8(out, '\n');
            } else {
                sxp_buf_put(out, "=3|", 3);
                sxp_buf_put(out, p->value_addr, strlen(p->value_addr));
                sxp_buf_u8(out, '\n');
            }
        }
    }
}

/* ------------------------------------------------------------ file table */

static char *resolve(const char *table, const char *file)
{
    const char *slash = strrchr(table, '/');
    if (file[0] == '/' || !slash)
        return sxp_xstrdup(file);
    /* Relative to the table's directory when not found as given, as a
     * table moved with its files still works. */
    FILE *f = fopen(file, "rb");
    if (f) {
        fclose(f);
        return sxp_xstrdup(file);
    }
    return sxp_xasprintf("%.*s/%s", (int)(slash - table), table, file);
}

bool sxp_table_load(const char *path, sxp_table_row **rows, size_t *nrows)
{
    size_t size;
    uint8_t *d = sxp_read_file(path, &size);
    *rows = NULL;
    *nrows = 0;
    if (!d)
        return false;
    char *text = sxp_xstrndup((const char *)d, size);
    free(d);
    bool ok = true;
    int col_code = -1, col_prop = -1, col_sym = -1, ncols = 0;
    unsigned line = 0;
    char *save = NULL;
    for (char *l = strtok_r(text, "\n", &save); l && ok; l = strtok_r(NULL, "\n", &save)) {
        line++;
        size_t len = strlen(l);
        if (len && l[len - 1] == '\r')
            l[--len] = 0;
        if (!len)
            continue;
        char *cols[16];
        int n = 0;
        char *p = l;
        if (!ncols) {
            if (l[0] != '[' || l[len - 1] != ']') {
                sxp_error(path, SXP_NONE, "line %u: the first line must be the header, e.g. [Code|Properties]", line);
                ok = false;
                break;
            }
            l[len - 1] = 0;
            p = l + 1;
        }
        for (char *c = p;; c++)
            if (*c == '|' || !*c) {
                bool end = !*c;
                *c = 0;
                if (n == 16) {
                    sxp_error(path, SXP_NONE, "line %u: more than 16 columns", line);
                    ok = false;
                    break;
                }
                cols[n++] = p;
                p = c + 1;
                if (end)
                    break;
            }
        if (!ok)
            break;
        if (!ncols) {
            ncols = n;
            for (int i = 0; i < n; i++) {
                if (!strcmp(cols[i], "Code"))
                    col_code = i;
                else if (!strcmp(cols[i], "Properties"))
                    col_prop = i;
                else if (!strcmp(cols[i], "Symbols"))
                    col_sym = i;
            }
            if (col_code < 0) {
                sxp_error(path, SXP_NONE, "line %u: the header has no Code column", line);
                ok = false;
            }
            continue;
        }
        if (n != ncols) {
            sxp_error(path, SXP_NONE, "line %u: %d columns, the header has %d", line, n, ncols);
            ok = false;
            break;
        }
        *rows = sxp_xrealloc(*rows, (*nrows + 1) * sizeof **rows);
        sxp_table_row *r = &(*rows)[(*nrows)++];
        r->code = resolve(path, cols[col_code]);
        r->prop = col_prop >= 0 && *cols[col_prop] ? resolve(path, cols[col_prop]) : NULL;
        r->sym = col_sym >= 0 && *cols[col_sym] ? resolve(path, cols[col_sym]) : NULL;
    }
    if (ok && !ncols) {
        sxp_error(path, SXP_NONE, "empty file table");
        ok = false;
    }
    if (ok && !*nrows) {
        sxp_error(path, SXP_NONE, "the file table lists no image");
        ok = false;
    }
    free(text);
    if (!ok) {
        sxp_table_free(*rows, *nrows);
        *rows = NULL;
        *nrows = 0;
    }
    return ok;
}

void sxp_table_free(sxp_table_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(rows[i].code);
        free(rows[i].prop);
        free(rows[i].sym);
    }
    free(rows);
}
