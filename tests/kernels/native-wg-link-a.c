/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-wg-link-a.c: one half of a linked program of compiled work-group
 * images (wg.h). Exports wg_twice and wg_scale; calls wg_plus_one, which
 * the other half exports, through an import slot the adapter fills. */
#include <stddef.h>
#include <stdint.h>

#include "../../adapters/native/wg.h"

const uint32_t __sx_wg_abi = SXN_WG_ABI;

int wg_scale = 10;  /* one copy per linked program */

int wg_twice(int x)
{
    return 2 * x;
}

static int (*plus_one)(int);
static int *shared_base;

const sxn_wg_import __sx_wg_imports[] = {
    {"wg_plus_one", (void **)&plus_one},
    {"wg_base", (void **)&shared_base},
    {NULL, NULL},
};

/* out[i] = (plus_one(i) + base) * scale */
static void linked(const sxn_wg_ctx *ctx)
{
    int *out = *(int *const *)ctx->args[0];
    size_t base = ctx->group_id[0] * ctx->geo->local_size[0];
    for (size_t i = base; i < base + ctx->geo->local_size[0]; i++)
        out[i] = (plus_one((int)i) + *shared_base) * wg_scale;
}

const sxn_wg_entry __sx_wg_table[] = {
    {"linked", linked, 0, 0, 0, 0},
    {NULL, NULL, 0, 0, 0, 0},
};
