/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fuzz-image-file.c: fuzz target for the core's image-file parser
 * (lib/image-file.c): anything it accepts is walked byte by byte and dumped. */
#include "config.h"

#include <string.h>

#include "proptool.h"
#include "sx-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sx_device_binaries *d = NULL;
    if (sxi_image_file_parse(data, size, &d) != SX_SUCCESS)
        return 0;
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
    return 0;
}
