/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dump-json.h: `proptool --dump --json` (doc/json.md), and the names the
 * text listing (dump.c) lends it. */
#ifndef SXP_DUMP_JSON_H
#define SXP_DUMP_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <sycl-ext/binaries.h>

/* Bumped when a member changes meaning or goes away; adding members does not. */
#define SXP_DUMP_JSON_VERSION 1

/* The parsed image file `desc` (read from `path`) as one JSON document on
 * `out`; false when writing failed. */
bool sxp_dump_json(const char *path, const sx_device_binaries *desc, FILE *out);

/* What a DPC++-built file wrote for an image beyond the descriptor fields
 * (proptool --dump of an ELF file, issue 27). */
typedef struct {
    uint16_t record_version;  /* the record's layout: 1, 2 or 3 */
    uint8_t entry_size;       /* 0, 32 or 56 */
    uint64_t record_address;  /* in the file's address space */
    const char *contents;     /* what the bytes are (SPIR-V, ...), or why unknown */
    bool compressed;          /* zstd */
    uint64_t decompressed_size;
} sxp_dump_extra;
/* Fill `x` for image `d` (contents detected from its bytes, through the
 * compression when there is one). `why` holds the text `contents` may point to. */
void sxp_dump_extra_fill(const sx_device_binary *d, uint16_t record_version, uint8_t entry_size,
                         uint64_t record_address, sxp_dump_extra *x, char *why, size_t why_size);
/* With `extra` (one per image, or NULL), as sxp_dump_json / sxp_dump. */
struct sxp_buf;
void sxp_dump_ex(const sx_device_binaries *desc, const sxp_dump_extra *extra, struct sxp_buf *out);
bool sxp_dump_json_ex(const char *path, const sx_device_binaries *desc, const sxp_dump_extra *extra, FILE *out);

/* dump.c */
const char *sxp_format_name(uint8_t format);
const char *sxp_kernel_kind_name(uint32_t kind);
const char *sxp_param_kind_name(uint32_t kind);
const char *sxp_address_space_name(uint32_t as);
bool sxp_printable(const uint8_t *d, size_t n); /* ASCII text, a trailing NUL allowed */

#endif
