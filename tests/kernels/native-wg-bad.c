/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-wg-bad.c: damaged compiled work-group images, one defect per
 * value of WG_BAD, each of which the adapter must refuse at build with
 * SX_ERROR_INVALID_BINARY naming the image and entry:
 *   1 __sx_wg_abi is 2          2 the table has no NULL-name end
 *   3 unknown flag bits         4 fn points at data, not code
 *   5 two entries of one name   6 too much local memory
 *   7 an x86-64-v3 table whose entries differ from the baseline's */
#include <stddef.h>
#include <stdint.h>

#include "../../adapters/native/wg.h"

const uint32_t __sx_wg_abi = WG_BAD == 1 ? 2 : SXN_WG_ABI;

static void good(const sxn_wg_ctx *ctx)
{
    (void)ctx;
}

int not_code[64];

const sxn_wg_entry __sx_wg_table[] = {
    {"good", good, 0, 0, 0, 0},
#if WG_BAD == 3
    {"flagged", good, 0, 0, 1u << 7, 0},
#elif WG_BAD == 4
    {"data", (sxn_wg_fn)(void *)not_code, 0, 0, 0, 0},
#elif WG_BAD == 5
    {"good", good, 0, 0, 0, 0},
#elif WG_BAD == 6
    {"huge", good, 1u << 20, 0, 0, 0},
#endif
#if WG_BAD != 2
    {NULL, NULL, 0, 0, 0, 0},
#endif
};

#if WG_BAD == 7
const sxn_wg_entry __sx_wg_table_x86_64_v3[] = {
    {"good", good, 64, 0, 0, 0},
    {NULL, NULL, 0, 0, 0, 0},
};
#endif
