/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dpcpp-elf.h: the registration descriptors in a DPC++-built ELF file,
 * read statically (dpcpp-elf.c). */
#ifndef SXP_DPCPP_ELF_H
#define SXP_DPCPP_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sycl-ext/binaries.h>

#include "proptool.h"

/* What the file wrote for one image, beside its host copy. */
typedef struct {
    uint16_t version;        /* 1, 2 or 3 */
    uint8_t entry_size;      /* 0, 32 or 56 */
    uint64_t record_address; /* the record's address in the file's address space */
} sxp_elf_image;

typedef struct {
    uint64_t address;        /* where the descriptor sits (file's address space) */
    sx_device_binaries desc; /* host copy: records in the sx_device_binary layout, keeping each
                              * one's version and format; 32-byte entries */
    sxp_elf_image *images;   /* num_device_binaries */
} sxp_elf_desc;

typedef struct {
    uint8_t *mem;
    sxp_elf_desc *descs;
    size_t num_descs;
    void **blocks;
    size_t num_blocks;
} sxp_elf;

bool sxp_is_elf(const uint8_t *data, size_t size);
/* Find every descriptor; false (with a diagnostic) if the file cannot be
 * laid out. No descriptor found is success with num_descs 0. */
bool sxp_elf_read(const char *path, const uint8_t *file, size_t size, sxp_elf *out);
void sxp_elf_free(sxp_elf *e);

#endif
