/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-entry.c: the adapter's one exported symbol, handing the core its tables. */
#include "ze-adapter.h"

SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table);

SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table)
{
    static const void *const tables[SXA_TABLE_COUNT_] = {
        [SXA_TABLE_ADAPTER] = &sxz_adapter_table,
        [SXA_TABLE_PLATFORM] = &sxz_platform_table,
        [SXA_TABLE_DEVICE] = &sxz_device_table,
        [SXA_TABLE_CONTEXT] = &sxz_context_table,
        [SXA_TABLE_QUEUE] = &sxz_queue_table,
        [SXA_TABLE_USM] = &sxz_usm_table,
        [SXA_TABLE_PROGRAM] = &sxz_program_table,
        [SXA_TABLE_KERNEL] = &sxz_kernel_table,
        [SXA_TABLE_ENQUEUE] = &sxz_enqueue_table,
        [SXA_TABLE_EVENT] = &sxz_event_table,
    };
    return sxa_serve_table(abi_version, id, table, tables, SXA_TABLE_COUNT_);
}
