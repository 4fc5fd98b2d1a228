/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-layout.c: the width, signedness and layout of everything that
 * crosses the ABI, checked by the compiler (doc/abi.md): enum-valued types
 * are fixed-width integer typedefs, never C enums, and the installed
 * structs keep their sizes and offsets (binaries.h: DPC++'s x86-64 layout). */
#include <stddef.h>
#include <stdio.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/sx.h>

#define SAME_TYPE(T, U) _Generic((T)0, U: 1, default: 0)
#define FIXED(T, U) _Static_assert(SAME_TYPE(T, U), #T " is " #U)

/* Every enum-valued type is a typedef of a fixed-width integer. */
FIXED(sx_result, int32_t);
FIXED(sx_event_status, int32_t);
FIXED(sx_device_type, uint32_t);
FIXED(sx_backend, uint32_t);
FIXED(sx_aspect, uint32_t);
FIXED(sx_aspect_set, uint64_t);
FIXED(sx_image_kind, uint32_t);
FIXED(sx_usm_type, uint32_t);
FIXED(sx_log_level, uint32_t);
FIXED(sx_platform_info, uint32_t);
FIXED(sx_device_info, uint32_t);
FIXED(sx_arg_type, uint32_t);
FIXED(sx_adapter_info, uint32_t);
FIXED(sx_kernel_info, uint32_t);
FIXED(sx_profiling_info, uint32_t);
FIXED(sxa_adapter_info, uint32_t);
FIXED(sxa_kernel_info, uint32_t);
FIXED(sxa_profiling_info, uint32_t);
FIXED(sxa_table_id, uint32_t);

/* Enumerators fit an int (ISO C) and keep their values. */
_Static_assert(SX_RESULT_COUNT_ == 36, "result codes are append-only: update doc/abi.md when adding");
_Static_assert(SX_DEVICE_TYPE_ALL == 0xffffffffu, "SX_DEVICE_TYPE_ALL");
_Static_assert(sizeof(SX_DEVICE_TYPE_ALL) == 4, "SX_DEVICE_TYPE_ALL is 32 bits");

/* Installed structs. */
_Static_assert(sizeof(sx_arg) == 24 && offsetof(sx_arg, size) == 8 && offsetof(sx_arg, value) == 16, "sx_arg");
_Static_assert(sizeof(sx_launch_properties) == 16 && offsetof(sx_launch_properties, work_group_scratch_size) == 8,
               "sx_launch_properties");
_Static_assert(sizeof(sx_offload_entry) == 32, "sx_offload_entry: DPC++'s legacy 32-byte entry");
_Static_assert(sizeof(sx_device_binary_property) == 32 && offsetof(sx_device_binary_property, value_size) == 24,
               "sx_device_binary_property");
_Static_assert(sizeof(sx_device_binary_property_set) == 24, "sx_device_binary_property_set");
_Static_assert(sizeof(sx_device_binary) == 96 && offsetof(sx_device_binary, device_target_spec) == 8 &&
                   offsetof(sx_device_binary, binary_start) == 48 && offsetof(sx_device_binary, property_sets_end) == 88,
               "sx_device_binary");
_Static_assert(sizeof(sx_device_binaries) == 32 && offsetof(sx_device_binaries, device_binaries) == 8,
               "sx_device_binaries");
/* Adapter ABI: the services and every table start with their size. */
_Static_assert(offsetof(sxa_services, size) == 0 && offsetof(sxa_services, dispatch) == 8, "sxa_services");
_Static_assert(offsetof(sxa_object, dispatch) == 0, "sxa_object");
/* 32 bytes until issue 29 appended flags: adapters read it only when size covers it. */
_Static_assert(offsetof(sxa_program_desc, size) == 0 && offsetof(sxa_program_desc, flags) == 32 &&
               sizeof(sxa_program_desc) == 40, "sxa_program_desc");
_Static_assert(sizeof(sxa_kernel_param) == 32 && sizeof(sxa_kernel_signature) == 24, "sxa_kernel_param");
#define TABLE(t, n) _Static_assert(offsetof(t, size) == 0 && sizeof(t) == 8 + 8 * (n), #t " has " #n " entries")
TABLE(sxa_adapter_table, 3);
TABLE(sxa_platform_table, 2);
TABLE(sxa_device_table, 2);
TABLE(sxa_context_table, 2);
TABLE(sxa_queue_table, 4);
TABLE(sxa_usm_table, 2);
TABLE(sxa_program_table, 7);
TABLE(sxa_kernel_table, 3);
TABLE(sxa_enqueue_table, 6);
TABLE(sxa_event_table, 4);
TABLE(sxa_global_table, 4); /* ABI 1.1 */

int main(void)
{
    printf("PASS: 19 enum-valued types are fixed-width typedefs; struct and table layouts as documented\n");
    return 0;
}
