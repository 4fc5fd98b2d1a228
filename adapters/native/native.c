/* native.c: placeholder until the native adapter lands. */
#include "native.h"
__attribute__((visibility("hidden"))) sx_result sxn_get_proc_table(uint32_t abi_version, sxa_table_id id, void *table)
{
    return SX_ERROR_UNSUPPORTED_VERSION;
}
