/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* wi.h: the work-item state the native adapter shares with the builtins
 * module (sx-native-builtins.so). Both sides are built from this header;
 * the builtins export SXN_BUILTINS_ABI_SYMBOL so a mismatched pair is
 * refused at load instead of misreading the state. */
#ifndef SXN_WI_H
#define SXN_WI_H

#include <stddef.h>
#include <stdint.h>

/* The layout and the symbols are the public host-ELF contract. */
#include <sycl-ext/host-elf.h>

#define SXN_BUILTINS_ABI SX_HOST_BUILTINS_ABI
#define SXN_BUILTINS_ABI_SYMBOL SX_HOST_BUILTINS_ABI_SYMBOL
#define SXN_BUILTINS_SET_SYMBOL SX_HOST_BUILTINS_SET_SYMBOL
#define SXN_BUILTINS_GET_SYMBOL SX_HOST_BUILTINS_GET_SYMBOL

#endif /* SXN_WI_H */
