/* ze-entry.c: the adapter's one exported symbol, handing the core its tables. */
#include "ze-adapter.h"

SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table);

SXA_EXPORT sx_result sxa_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table)
{
    if (SXA_MAJOR_VERSION(abi_version) != SXA_ABI_VERSION_MAJOR)
        return SX_ERROR_UNSUPPORTED_VERSION;
    if (!table)
        return SX_ERROR_INVALID_NULL_POINTER;
    switch (id) {
    case SXA_TABLE_ADAPTER: SXA_FILL_TABLE((sxa_adapter_table *)table, &sxz_adapter_table); break;
    case SXA_TABLE_PLATFORM: SXA_FILL_TABLE((sxa_platform_table *)table, &sxz_platform_table); break;
    case SXA_TABLE_DEVICE: SXA_FILL_TABLE((sxa_device_table *)table, &sxz_device_table); break;
    case SXA_TABLE_CONTEXT: SXA_FILL_TABLE((sxa_context_table *)table, &sxz_context_table); break;
    case SXA_TABLE_QUEUE: SXA_FILL_TABLE((sxa_queue_table *)table, &sxz_queue_table); break;
    case SXA_TABLE_USM: SXA_FILL_TABLE((sxa_usm_table *)table, &sxz_usm_table); break;
    case SXA_TABLE_PROGRAM: SXA_FILL_TABLE((sxa_program_table *)table, &sxz_program_table); break;
    case SXA_TABLE_KERNEL: SXA_FILL_TABLE((sxa_kernel_table *)table, &sxz_kernel_table); break;
    case SXA_TABLE_ENQUEUE: SXA_FILL_TABLE((sxa_enqueue_table *)table, &sxz_enqueue_table); break;
    case SXA_TABLE_EVENT: SXA_FILL_TABLE((sxa_event_table *)table, &sxz_event_table); break;
    default:
        return SX_ERROR_INVALID_ENUMERATION;
    }
    return SX_SUCCESS;
}
