/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* json-writer.h: a small streaming JSON writer for the tools' --json output
 * (sx-info, proptool --dump): objects, arrays, strings escaped per RFC 8259,
 * unsigned integers, booleans and null, indented two spaces a level. */
#ifndef SX_JSON_WRITER_H
#define SX_JSON_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SXJ_MAX_DEPTH 32

typedef struct sxj {
    FILE *f;
    int depth;
    bool has_items[SXJ_MAX_DEPTH]; /* a comma goes before the next member at this depth */
} sxj;

/* `key` names the member inside an object and is NULL inside an array. */
void sxj_init(sxj *j, FILE *f);
void sxj_object(sxj *j, const char *key);
void sxj_object_end(sxj *j);
void sxj_array(sxj *j, const char *key);
void sxj_array_end(sxj *j);
void sxj_string(sxj *j, const char *key, const char *value); /* NULL writes null */
void sxj_string_n(sxj *j, const char *key, const void *value, size_t len);
void sxj_uint(sxj *j, const char *key, uint64_t value);
void sxj_bool(sxj *j, const char *key, bool value);
void sxj_null(sxj *j, const char *key);
/* Bytes as lowercase hex, two digits a byte, no separators. */
void sxj_hex(sxj *j, const char *key, const void *data, size_t len);
/* Ends the document with a newline; false when writing failed. */
bool sxj_finish(sxj *j);

#endif
