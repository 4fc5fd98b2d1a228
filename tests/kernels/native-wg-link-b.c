/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-wg-link-b.c: the other half of native-wg-link-a.c: exports
 * wg_plus_one and wg_base and imports wg_twice back (a cycle). Built with
 * -DWG_MISSING it imports a symbol nobody exports (a link failure). */
#include <stddef.h>
#include <stdint.h>

#include "../../adapters/native/wg.h"

const uint32_t __sx_wg_abi = SXN_WG_ABI;

int wg_base = 3;

static int (*twice)(int);
#ifdef WG_MISSING
static void *missing;
#endif

const sxn_wg_import __sx_wg_imports[] = {
    {"wg_twice", (void **)&twice},
#ifdef WG_MISSING
    {"wg_nobody_exports_this", &missing},
#endif
    {NULL, NULL},
};

/* (2 * x) / 2 + 1, through the other image */
int wg_plus_one(int x)
{
    return twice(x) / 2 + 1;
}

static void plus(const sxn_wg_ctx *ctx)
{
    int *out = *(int *const *)ctx->args[0];
    out[ctx->group_id[0]] = wg_plus_one((int)ctx->group_id[0]);
}

const sxn_wg_entry __sx_wg_table[] = {
    {"plus", plus, 0, 0, 0, 0},
    {NULL, NULL, 0, 0, 0, 0},
};
