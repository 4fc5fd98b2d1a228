/* wi.h: the work-item state the native adapter shares with the builtins
 * module (sx-native-builtins.so). Both sides are built from this header;
 * the builtins export SXN_BUILTINS_ABI_SYMBOL so a mismatched pair is
 * refused at load instead of misreading the state. */
#ifndef SXN_WI_H
#define SXN_WI_H

#include <stddef.h>
#include <stdint.h>

#define SXN_BUILTINS_ABI 1
#define SXN_BUILTINS_ABI_SYMBOL "sxn_builtins_abi"
#define SXN_BUILTINS_SET_SYMBOL "sxn_builtins_set_item"
#define SXN_BUILTINS_GET_SYMBOL "sxn_builtins_get_item"

/* Read-only for the whole launch; every dimension past work_dim holds the
 * OpenCL defaults (size 1, offset 0) so the builtins never branch on it. */
typedef struct sxn_geometry {
    uint32_t work_dim;
    size_t global_size[3];
    size_t local_size[3];
    size_t num_groups[3];
    size_t global_offset[3];
} sxn_geometry;

struct sxn_item;
typedef void (*sxn_yield_fn)(struct sxn_item *item);

/* One work-item as the builtins see it. In the plain-loop mode one item is
 * rewritten per work-item; in fiber mode each fiber owns one, and `yield`
 * is the barrier (NULL in loop mode, where kernels import no barrier). */
typedef struct sxn_item {
    const sxn_geometry *geo;
    size_t group_id[3];
    size_t group_base[3];  /* group_id * local_size + global_offset */
    size_t local_id[3];
    sxn_yield_fn yield;
    void *fiber;           /* the adapter's fiber record */
} sxn_item;

typedef void (*sxn_set_item_fn)(sxn_item *item);
typedef sxn_item *(*sxn_get_item_fn)(void);

#endif /* SXN_WI_H */
