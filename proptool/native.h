/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native.h: the native (host) variant proptool makes itself from the
 * processed SPIR-V: llvm-spirv -r, sx-wgc (compiled work-group functions,
 * adapters/native/wg.h), clang -O3 -shared. See proptool(1). */
#ifndef SXP_NATIVE_H
#define SXP_NATIVE_H

#include <stdbool.h>

#include "proptool.h"

/* Ours: one STRING property per kernel of a compiled work-group image:
 * "regions: ..." or "fiber: <why region formation could not be used>". */
#define SXP_PROP_SET_NATIVE_WG "SX/native work-groups"

typedef enum { SXP_NATIVE_AUTO, SXP_NATIVE_OFF, SXP_NATIVE_ON } sxp_native_mode;

typedef struct sxp_native_tools {
    const char *wgc, *clang, *llvm_spirv;  /* NULL: defaults (see sxp_native_find) */
    const char *march;                     /* NULL: the baseline x86-64 */
} sxp_native_tools;

/* tools.c: `name` as a command (a path, or a file in $PATH) can be run. */
bool sxp_runnable(const char *name);
/* tools.c: runs argv with its stderr in `log`; false with *why (malloc'd:
 * the status and the first lines of the log) when it fails. */
bool sxp_tool_run(char *const argv[], const char *log, char **why);
/* tools.c: a variant proptool could not make: an error where it was asked
 * for (`required`: --native, --ptx-variant), else a warning saying what the
 * image goes without (made by default: a module the toolchain cannot take
 * costs that variant, not the run). */
void sxp_variant_fail(const char *origin, bool required, const char *variant, const char *device,
                      const char *fmt, ...) SXP_PRINTF(5, 6);
/* tools.c: a private temporary directory for one variant's files; every
 * path handed out is removed, then the directory, by sxp_scratch_close. */
typedef struct sxp_scratch {
    char *dir;
    char *files[8];
    size_t n;
} sxp_scratch;
bool sxp_scratch_open(sxp_scratch *s, char **why);
const char *sxp_scratch_path(sxp_scratch *s, const char *name);
void sxp_scratch_close(sxp_scratch *s);
/* tools.c: a variant of SPIR-V image `spv` holding `data` (taken), with
 * spv's options, properties and virtual-function set. */
sxp_image *sxp_variant_image(const sxp_image *spv, const char *target, uint8_t format, uint8_t *data, size_t size);
/* The same file beside this proptool (NULL when it is not there). */
char *sxp_beside_self(const char *file);

/* The SPIR-V of `spv` as llvm-spirv -r takes it (no UserSemantic) and the
 * names it imports (malloc'd); false when it does not parse. */
bool sxp_plain_spirv(const sxp_image *spv, sxp_buf *plain, char ***imports, size_t *nimports);

/* Resolves the tools; false with *why (malloc'd) when one is missing. */
bool sxp_native_find(sxp_native_tools *t, char **why);
/* The compiled work-group image of SPIR-V image `spv`; NULL when the
 * toolchain fails (an error if `must`, else a warning). */
sxp_image *sxp_native_variant(const sxp_native_tools *t, const sxp_image *spv, bool must);
/* The old flow (--host): kernels using kernel-scope __local variables get
 * one copy shared by every work-group from a host object; say which. */
void sxp_native_check_host_locals(const sxp_module *m, const char *host_path);

#endif
