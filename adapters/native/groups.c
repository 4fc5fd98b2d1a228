/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* groups.c: the sub-group and work-group functions of kernels that run as
 * fibers (sx-wgc's fallback, host-compiled OpenCL C), part of
 * sx-native-builtins.so; groups.cl defines each overload on these helpers.
 * A work-group runs on one thread, one fiber per work-item, and barrier()
 * yields to the adapter's round-robin scheduler (fiber.c), which runs every
 * other work-item to its next barrier before resuming. A collective stores
 * the work-item's operand in its slot of a per-thread array, yields (every
 * work-item of the group has stored its own), computes from the slots of
 * its sub-group or group, and yields again (none overwrites a slot another
 * still reads). So every work-item of the group must reach the collective,
 * as OpenCL requires of the work-group ones; a sub-group one reached by
 * some sub-groups only is not supported on this path (sx-wgc compiles
 * those). A sub-group is a run of SXN_SUB_GROUP_SIZE consecutive local x
 * ids of one (y, z) row, the last of a row shorter: the layout and the
 * default size of sx-wgc's compiled sub-groups and of Intel's CPU runtime. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wi.h"

#define SXN_SUB_GROUP_SIZE 16  /* sx-wgc's DEFAULT_SUB_GROUP_SIZE */
#define SLOT 128               /* bytes per work-item: the widest operand, a double16 */

#define HIDDEN __attribute__((visibility("hidden")))

sxn_item *sxn_builtins_get_item(void);

static __thread unsigned char *slots;
static __thread size_t slots_cap;

static void yield_now(sxn_item *it)
{
    __asm__ volatile("" ::: "memory");
    if (it && it->yield)
        it->yield(it);
    __asm__ volatile("" ::: "memory");
}

/* what: 0 size, 1 maximum size, 2 number, 3 id, 4 local id */
HIDDEN uint32_t sxn_sg_query(int what);
uint32_t sxn_sg_query(int what)
{
    const sxn_item *it = sxn_builtins_get_item();
    if (!it)
        return what == 0 || what == 1 || what == 2 ? 1 : 0;
    const size_t *ls = it->geo->local_size, *id = it->local_id, S = SXN_SUB_GROUP_SIZE;
    size_t nsx = (ls[0] + S - 1) / S, q = id[0] / S, rest = ls[0] - q * S;
    switch (what) {
    case 0: return (uint32_t)(rest < S ? rest : S);
    case 1: return (uint32_t)S;
    case 2: return (uint32_t)(nsx * ls[1] * ls[2]);
    case 3: return (uint32_t)((id[2] * ls[1] + id[1]) * nsx + q);
    default: return (uint32_t)(id[0] % S);
    }
}

HIDDEN void sxn_coll_wait(void);
void sxn_coll_wait(void)
{
    yield_now(sxn_builtins_get_item());
}

/* Stores `size` bytes of v in this work-item's slot and waits for the
 * group; returns the slots (SLOT bytes apart), this work-item's index and
 * the first index and length of its sub-group (sub) or of the group. Null
 * when the slots cannot be allocated (the operand is then its own result). */
HIDDEN const unsigned char *sxn_coll_enter(const void *v, uint32_t size, int sub, size_t *me, size_t *start,
                                           size_t *len);
const unsigned char *sxn_coll_enter(const void *v, uint32_t size, int sub, size_t *me, size_t *start, size_t *len)
{
    sxn_item *it = sxn_builtins_get_item();
    size_t l0 = 1, l1 = 1, l2 = 1, x = 0, y = 0, z = 0;
    if (it) {
        l0 = it->geo->local_size[0], l1 = it->geo->local_size[1], l2 = it->geo->local_size[2];
        x = it->local_id[0], y = it->local_id[1], z = it->local_id[2];
    }
    size_t n = l0 * l1 * l2, lin = (z * l1 + y) * l0 + x;
    if (n * SLOT > slots_cap) {
        unsigned char *p = realloc(slots, n * SLOT);
        if (p) {
            slots = p;
            slots_cap = n * SLOT;
        }
    }
    bool ok = n * SLOT <= slots_cap && size <= SLOT;
    if (ok)
        memcpy(slots + lin * SLOT, v, size);
    yield_now(it);
    *me = lin;
    if (sub) {
        size_t S = SXN_SUB_GROUP_SIZE, q = x / S, rest = l0 - q * S;
        *start = lin - x + q * S;
        *len = rest < S ? rest : S;
    } else {
        *start = 0;
        *len = n;
    }
    if (!ok) {  /* as if alone */
        *me = *start = 0;
        *len = 1;
        return (const unsigned char *)v;
    }
    return slots;
}
