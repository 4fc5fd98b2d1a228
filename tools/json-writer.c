/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* json-writer.c: the streaming JSON writer behind the tools' --json. */
#include "json-writer.h"

#include <inttypes.h>
#include <string.h>

void sxj_init(sxj *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->has_items[0] = false;
}

static void raw_string(sxj *j, const unsigned char *s, size_t n)
{
    fputc('"', j->f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        switch (c) {
        case '"': fputs("\\\"", j->f); break;
        case '\\': fputs("\\\\", j->f); break;
        case '\n': fputs("\\n", j->f); break;
        case '\r': fputs("\\r", j->f); break;
        case '\t': fputs("\\t", j->f); break;
        default:
            /* Control bytes escaped; bytes >= 0x80 that are not UTF-8 are
             * written as U+FFFD's escape so the document stays valid. */
            if (c < 0x20) {
                fprintf(j->f, "\\u%04x", c);
            } else if (c < 0x80) {
                fputc(c, j->f);
            } else {
                size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
                bool ok = len && i + len <= n && c < 0xf5;
                for (size_t k = 1; ok && k < len; k++)
                    ok = (s[i + k] & 0xc0) == 0x80;
                if (ok) {
                    fwrite(s + i, 1, len, j->f);
                    i += len - 1;
                } else {
                    fputs("\\ufffd", j->f);
                }
            }
        }
    }
    fputc('"', j->f);
}

/* The separator, indentation and key before a member. */
static void member(sxj *j, const char *key)
{
    if (j->depth > 0) {
        if (j->has_items[j->depth])
            fputc(',', j->f);
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    j->has_items[j->depth] = true;
    if (key) {
        raw_string(j, (const unsigned char *)key, strlen(key));
        fputs(": ", j->f);
    }
}

static void open_(sxj *j, const char *key, char c)
{
    member(j, key);
    fputc(c, j->f);
    if (j->depth + 1 < SXJ_MAX_DEPTH)
        j->depth++;
    j->has_items[j->depth] = false;
}

static void close_(sxj *j, char c)
{
    bool any = j->has_items[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (any) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(c, j->f);
}

void sxj_object(sxj *j, const char *key) { open_(j, key, '{'); }
void sxj_object_end(sxj *j) { close_(j, '}'); }
void sxj_array(sxj *j, const char *key) { open_(j, key, '['); }
void sxj_array_end(sxj *j) { close_(j, ']'); }

void sxj_string(sxj *j, const char *key, const char *value)
{
    if (!value) {
        sxj_null(j, key);
        return;
    }
    sxj_string_n(j, key, value, strlen(value));
}

void sxj_string_n(sxj *j, const char *key, const void *value, size_t len)
{
    member(j, key);
    raw_string(j, value, len);
}

void sxj_uint(sxj *j, const char *key, uint64_t value)
{
    member(j, key);
    fprintf(j->f, "%" PRIu64, value);
}

void sxj_bool(sxj *j, const char *key, bool value)
{
    member(j, key);
    fputs(value ? "true" : "false", j->f);
}

void sxj_null(sxj *j, const char *key)
{
    member(j, key);
    fputs("null", j->f);
}

void sxj_hex(sxj *j, const char *key, const void *data, size_t len)
{
    const unsigned char *d = data;
    member(j, key);
    fputc('"', j->f);
    for (size_t i = 0; i < len; i++)
        fprintf(j->f, "%02x", d[i]);
    fputc('"', j->f);
}

bool sxj_finish(sxj *j)
{
    fputc('\n', j->f);
    return fflush(j->f) == 0 && !ferror(j->f);
}
