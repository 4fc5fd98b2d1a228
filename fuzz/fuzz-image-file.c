/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fuzz-image-file.c: fuzz target for the core's image-file parser
 * (lib/image-file.c): anything it accepts is walked byte by byte and dumped. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "image-file.h"

#include "proptool.h"
#include "sx-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one(const uint8_t *data, size_t size);

/* The input as given, then (a 1.1 file) without its checksum flag: a
 * mutation nearly always breaks a block's checksum, and the fields behind
 * it must be fuzzed too (a hostile file can have right checksums). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    one(data, size);
    if (size > SXIMG_H_FLAGS && (data[SXIMG_H_FLAGS] & SXIMG_FLAG_CHECKSUMS)) {
        uint8_t *copy = malloc(size);
        if (copy) {
            memcpy(copy, data, size);
            copy[SXIMG_H_FLAGS] &= (uint8_t)~SXIMG_FLAG_CHECKSUMS;
            one(copy, size);
            free(copy);
        }
    }
    return 0;
}

static void one(const uint8_t *data, size_t size)
{
    sx_device_binaries *d = NULL;
    if (sxi_image_file_parse(data, size, &d) != SX_SUCCESS)
        return;
    volatile unsigned sum = 0;
    for (uint16_t i = 0; i < d->num_device_binaries; i++) {
        const sx_device_binary *b = &d->device_binaries[i];
        for (const unsigned char *p = b->binary_start; p < b->binary_end; p++)
            sum += *p;
    }
    sxp_buf out = {0};
    sxp_dump(d, &out);  /* reads every name and property value */
    sum += (unsigned)out.len;
    sxp_buf_free(&out);
    sxi_image_file_free(d);
}
