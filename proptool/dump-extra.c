/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dump-extra.c: what the listing of a DPC++-built file adds per image (the
 * bytes' kind, through the compression), from the core's own readers; kept
 * out of dump.c, which the fuzz targets link without the core. */
#include "config.h"

#include <string.h>

#include "dump-json.h"
#include "proptool.h"
#include "sx-internal.h"

void sxp_dump_extra_fill(const sx_device_binary *d, uint16_t record_version, uint8_t entry_size,
                         uint64_t record_address, sxp_dump_extra *x, char *why, size_t why_size)
{
    memset(x, 0, sizeof(*x));
    x->record_version = record_version;
    x->entry_size = entry_size;
    x->record_address = record_address;
    why[0] = '\0';
    sx_image_kind k = sxi_image_kind_detect(d, why, why_size);
    x->contents = k == SX_IMAGE_KIND_UNKNOWN ? why : sxi_image_kind_name(k);
    if (d->format == SX_BINARY_FORMAT_COMPRESSED_NONE) {
        x->compressed = true;
        uint64_t n = 0;
        if (sxi_zstd_check(0, d->binary_start, (size_t)(d->binary_end - d->binary_start), &n) == SX_SUCCESS)
            x->decompressed_size = n;
        else
            x->contents = sx_last_error();
    }
}

