/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native.h: the built-in native adapter's entry point, for the core. */
#ifndef SXN_NATIVE_H
#define SXN_NATIVE_H

#include <sycl-ext/adapter.h>

/* The entry point under its built-in name (the core calls it directly);
 * the loadable module exports the same function as sxa_get_proc_table. */
__attribute__((visibility("hidden"))) sx_result sxn_get_proc_table(uint32_t abi_version,
                                                                   sxa_table_id id, void *table);

#endif /* SXN_NATIVE_H */
