/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* image-file.h: the image file's fixed layout (version 1), shared by proptool's
 * writer and the core's parser (lib/image-file.c); doc/image-format.md
 * describes every byte. All fields little-endian. */
#ifndef SX_IMAGE_FILE_H
#define SX_IMAGE_FILE_H

#define SXIMG_MAGIC "SXIMG\r\n\x1a"
#define SXIMG_MAGIC_SIZE 8
#define SXIMG_VERSION_MAJOR 1
#define SXIMG_VERSION_MINOR 1 /* 1.1: the checksum trailer (SXIMG_FLAG_CHECKSUMS) */
#define SXIMG_HEADER_SIZE 64
#define SXIMG_IMAGE_RECORD_SIZE 64
#define SXIMG_SET_RECORD_SIZE 16
#define SXIMG_PROP_RECORD_SIZE 24
#define SXIMG_NO_STRING 0xffffffffu

/* Header offsets. */
#define SXIMG_H_MAJOR 8
#define SXIMG_H_MINOR 10
#define SXIMG_H_HEADER_SIZE 12
#define SXIMG_H_FILE_SIZE 16
#define SXIMG_H_NUM_IMAGES 24
#define SXIMG_H_IMAGE_RECORD_SIZE 28
#define SXIMG_H_SET_RECORD_SIZE 30
#define SXIMG_H_PROP_RECORD_SIZE 32
#define SXIMG_H_RESERVED 34
#define SXIMG_H_FLAGS 36
/* Header flags (1.1). CHECKSUMS: the file ends with a table of CRC-32C
 * values, one per block of the bytes before it, and a 16-byte trailer:
 * u64 the table's offset (= the bytes covered), u32 the block size (a power
 * of two, 4 KiB..16 MiB), u32 the CRC-32C of the table and the trailer's
 * first 12 bytes. */
#define SXIMG_FLAG_CHECKSUMS 1u
#define SXIMG_TRAILER_SIZE 16
#define SXIMG_CHECKSUM_BLOCK 65536u
#define SXIMG_H_IMAGES_OFFSET 40
#define SXIMG_H_STRINGS_OFFSET 48
#define SXIMG_H_STRINGS_SIZE 56

/* Image record offsets. */
#define SXIMG_I_BINARY_VERSION 0
#define SXIMG_I_KIND 2
#define SXIMG_I_FORMAT 3
#define SXIMG_I_TARGET 4
#define SXIMG_I_COMPILE_OPTIONS 8
#define SXIMG_I_LINK_OPTIONS 12
#define SXIMG_I_DATA_OFFSET 16
#define SXIMG_I_DATA_SIZE 24
#define SXIMG_I_ENTRIES_OFFSET 32
#define SXIMG_I_NUM_ENTRIES 40
#define SXIMG_I_NUM_SETS 44
#define SXIMG_I_SETS_OFFSET 48
#define SXIMG_I_RESERVED 56

/* Property-set record offsets. */
#define SXIMG_S_NAME 0
#define SXIMG_S_NUM_PROPS 4
#define SXIMG_S_PROPS_OFFSET 8

/* Property record offsets. */
#define SXIMG_P_NAME 0
#define SXIMG_P_TYPE 4
#define SXIMG_P_VALUE_OFFSET 8
#define SXIMG_P_VALUE_SIZE 16


#include <stddef.h>
#include <stdint.h>
/* CRC-32C of `n` bytes: the 1.1 checksums (lib/image-file.c; proptool's writer too). */
uint32_t sxi_crc32c(const void *data, size_t n);

#endif /* SX_IMAGE_FILE_H */
