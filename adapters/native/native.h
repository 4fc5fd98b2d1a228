/* native.h: the built-in native adapter's entry point. */
#ifndef SX_NATIVE_H
#define SX_NATIVE_H
#include <sycl-ext/adapter.h>
sx_result sxn_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table);
#endif
