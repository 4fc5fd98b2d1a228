/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fake-module.c: a shared library that registers its device image the way
 * DPC++'s offload wrapper makes it (a constructor calling
 * __sycl_register_lib, a destructor calling __sycl_unregister_lib), in the
 * layout of the dpctl/dpnp wheels: a version-3 record, here with LLVM
 * entries and a zstd-compressed image. Built twice (MODULE_NAME a, b) and
 * linked with fake-libsycl, as DPC++-built modules link libsycl.so. */
#include <sycl-ext/binaries.h>

#define STR2(x) #x
#define STR(x) STR2(x)

void __sycl_register_lib(void *);
void __sycl_unregister_lib(void *);

/* zstd -19 of a 61-byte SPIR-V-headed file (zstd 1.5.4), as in sample.c. */
static const unsigned char packed[] = {
    0x28, 0xb5, 0x2f, 0xfd, 0x24, 0x3d, 0x4d, 0x01, 0x00, 0xf8, 0x03, 0x02, 0x23, 0x07, 0x00, 0x00, 0x01, 0x00,
    0x10, 0x00, 0x73, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x2d, 0x73, 0x70, 0x69, 0x72, 0x76, 0x2d, 0x70, 0x61, 0x79,
    0x6c, 0x6f, 0x61, 0x64, 0x2d, 0x03, 0x00, 0x71, 0x52, 0x06, 0x10, 0x5b, 0x80, 0x0b, 0xf5, 0x71, 0xb1, 0x90};
static sx_offload_entry_llvm entries[] = {
    {0, 1, 8, 0, 0, (char *)"_ZTS8kernel_" STR(MODULE_NAME) "1", 0, 0, 0},
    {0, 1, 8, 0, 0, (char *)"_ZTS8kernel_" STR(MODULE_NAME) "2", 0, 0, 0},
};
static sx_device_binary_property misc[] = {{(char *)"optLevel", 0, SX_PROPERTY_TYPE_UINT32, 3}};
static sx_device_binary_property_set sets[] = {{(char *)SX_PROP_SET_MISC, misc, misc + 1}};
static sx_device_binary_v3 image[] = {{3, SX_OFFLOAD_KIND_SYCL, SX_BINARY_FORMAT_COMPRESSED_NONE, "spir64",
                                       "-ftarget-register-alloc-mode=pvc:-ze-intel-enable-auto-large-GRF-mode", "",
                                       packed, packed + sizeof(packed), (sx_offload_entry *)(void *)entries,
                                       (sx_offload_entry *)(void *)(entries + 2), sets, sets + 1}};
static sx_device_binaries desc = {1, 1, (sx_device_binary *)(void *)image, 0, 0};

__attribute__((constructor)) static void reg(void) { __sycl_register_lib(&desc); }
__attribute__((destructor)) static void unreg(void) { __sycl_unregister_lib(&desc); }
