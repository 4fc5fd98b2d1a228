/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-info-json.h: sx-info's --json output (doc/json.md). */
#ifndef SX_INFO_JSON_H
#define SX_INFO_JSON_H

#include <stdio.h>

/* Bumped when a member changes meaning or goes away; adding members does not. */
#define SX_INFO_JSON_VERSION 1

/* Initialises the library, writes the document to `out`; the exit status. */
int sx_info_json(FILE *out);

#endif
