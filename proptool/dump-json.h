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

/* dump.c */
const char *sxp_format_name(uint8_t format);
const char *sxp_kernel_kind_name(uint32_t kind);
const char *sxp_param_kind_name(uint32_t kind);
const char *sxp_address_space_name(uint32_t as);
bool sxp_printable(const uint8_t *d, size_t n); /* ASCII text, a trailing NUL allowed */

#endif
