/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ptx.c: the PTX variant made from the processed SPIR-V (after the
 * if_device pass and the virtual-function split, so both apply to it):
 *     llvm-spirv -r IMAGE.spv                -> SPIR IR (OpenCL builtins)
 *     sx-ptx [--import NAME]... -o IMAGE.ptx -> PTX (target nvptx64, format none)
 * sx-ptx and the LLVM 14 toolchain are build-time dependencies of proptool
 * only; without them --ptx FILE still works. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sycl-ext/sx.h>

#include "native.h"
#include "ptx.h"

#ifndef SXP_WGC_LLVM_SPIRV
#define SXP_WGC_LLVM_SPIRV "llvm-spirv-14"
#endif

static bool required;

#define fail(origin, ...) sxp_variant_fail(origin, required, "PTX", "the CUDA adapter", __VA_ARGS__)

bool sxp_ptx_find(sxp_ptx_tools *t, char **why)
{
    static char *self;
    if (!t->sx_ptx) {
        const char *env = getenv("SX_PTX");
        if (env && *env)
            t->sx_ptx = env;
        else if (self || (self = sxp_beside_self("sx-ptx")))
            t->sx_ptx = self;
    }
    if (!t->sx_ptx) {
#ifdef SXP_HAVE_SX_PTX
        *why = sxp_xstrdup("sx-ptx is not installed beside proptool (give --sx-ptx PATH or set SX_PTX)");
#else
        *why = sxp_xstrdup("proptool was built without sx-ptx: configure found no LLVM 14 with its NVPTX back "
                           "end (install llvm-14-dev and reconfigure, or give --sx-ptx PATH)");
#endif
        return false;
    }
    if (!t->llvm_spirv) {
        const char *env = getenv("LLVM_SPIRV");
        t->llvm_spirv = env && *env ? env : SXP_WGC_LLVM_SPIRV;
    }
    const char *missing = !sxp_runnable(t->sx_ptx) ? t->sx_ptx : !sxp_runnable(t->llvm_spirv) ? t->llvm_spirv : NULL;
    if (missing) {
        *why = sxp_xasprintf("'%s' cannot be run (the PTX variant needs sx-ptx and llvm-spirv-14)", missing);
        return false;
    }
    return true;
}

static bool run(const char *origin, char *const argv[], const char *log)
{
    char *why = NULL;
    if (sxp_tool_run(argv, log, &why))
        return true;
    fail(origin, "%s", why);
    free(why);
    return false;
}

sxp_image *sxp_ptx_variant(const sxp_ptx_tools *t, const sxp_image *spv, bool must)
{
    required = must;
    char **imports = NULL;
    size_t nimports = 0;
    sxp_buf plain = {0};
    if (!sxp_plain_spirv(spv, &plain, &imports, &nimports))
        return NULL;
    sxp_scratch sc;
    char *why = NULL;
    sxp_image *v = NULL;
    bool ok = sxp_scratch_open(&sc, &why);
    if (!ok) {
        fail(spv->origin, "%s", why);
        free(why);
    }
    const char *spvp = NULL, *bc = NULL, *ptx = NULL, *log = NULL;
    if (ok) {
        spvp = sxp_scratch_path(&sc, "image.spv");
        bc = sxp_scratch_path(&sc, "image.bc");
        ptx = sxp_scratch_path(&sc, "image.ptx");
        log = sxp_scratch_path(&sc, "stderr.txt");
        ok = sxp_write_file_atomic(spvp, plain.data, plain.len);
    }
    sxp_buf_free(&plain);
    if (ok) {
        char *const a1[] = {(char *)t->llvm_spirv, "-r", (char *)spvp, "-o", (char *)bc, NULL};
        ok = run(spv->origin, a1, log);
    }
    if (ok) {
        char **a = sxp_xmalloc((10 + 2 * nimports) * sizeof *a);
        size_t n = 0;
        a[n++] = (char *)t->sx_ptx;
        for (size_t i = 0; i < nimports; i++) {
            a[n++] = "--import";
            a[n++] = imports[i];
        }
        if (t->libdevice) {
            a[n++] = "--libdevice";
            a[n++] = (char *)t->libdevice;
        }
        if (t->arch) {
            a[n++] = "--arch";
            a[n++] = (char *)t->arch;
        }
        a[n++] = "-o";
        a[n++] = (char *)ptx;
        a[n++] = (char *)bc;
        a[n] = NULL;
        ok = run(spv->origin, a, log);
        free(a);
    }
    size_t n = 0;
    uint8_t *bytes = ok ? sxp_read_file(ptx, &n) : NULL;
    if (bytes)
        v = sxp_variant_image(spv, SX_TARGET_NVPTX64, SX_BINARY_FORMAT_NONE, bytes, n);
    sxp_scratch_close(&sc);
    for (size_t i = 0; i < nimports; i++)
        free(imports[i]);
    free(imports);
    return v;
}
