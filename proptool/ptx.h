/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ptx.h: the PTX variant proptool makes itself from the processed SPIR-V
 * (CUDA adapter): llvm-spirv -r, then sx-ptx (LLVM 14's NVPTX back end with
 * the OpenCL C builtins and CUDA's libdevice). See proptool(1). */
#ifndef SXP_PTX_H
#define SXP_PTX_H

#include <stdbool.h>

#include "proptool.h"

typedef enum { SXP_PTX_AUTO, SXP_PTX_OFF, SXP_PTX_ON } sxp_ptx_mode;

typedef struct sxp_ptx_tools {
    const char *sx_ptx, *llvm_spirv;  /* NULL: defaults (see sxp_ptx_find) */
    const char *libdevice;            /* NULL: sx-ptx looks for CUDA's */
    const char *arch;                 /* NULL: sm_80 (JIT-compiled for newer GPUs) */
} sxp_ptx_tools;

/* Resolves the tools; false with *why (malloc'd) when one is missing. */
bool sxp_ptx_find(sxp_ptx_tools *t, char **why);
/* The PTX image of SPIR-V image `spv`; NULL when the toolchain fails (an
 * error if `must`, else a warning). */
sxp_image *sxp_ptx_variant(const sxp_ptx_tools *t, const sxp_image *spv, bool must);

#endif
