/* fuzz-spirv.c: fuzz target for proptool's SPIR-V reader and everything
 * after it (analysis, cleanup, if_device, writer, image file round trip). */
#include "config.h"

#include <stdlib.h>

#include "proptool.h"
#include "sx-internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sxp_silent = true;
    sxp_module m;
    sxp_analysis a = {0};
    sxp_options opt = {.if_device = true};
    if (sxp_module_parse(&m, "fuzz.spv", data, size) && sxp_analyse(&m, &opt, &a)) {
        sxp_cleanup(&m);
        sxp_if_device_pass(&m, &a);
        /* The accessor pass on about half the inputs (by their size). */
        if (size % 8 == 0)
            sxp_add_global_accessors(&m, &a);
        sxp_image *img = sxp_image_new("fuzz.spv", SX_TARGET_SPIRV64, SX_BINARY_FORMAT_SPIRV);
        sxp_buf w = {0};
        sxp_module_write(&m, &w);
        img->data = w.data;
        img->size = w.len ? w.len : 0;
        sxp_analysis_to_image(&a, img, true);
        if (img->size) {
            /* What proptool writes must parse back. */
            sxp_buf f = {0};
            sxp_image_file_write(&img, 1, &f);
            sx_device_binaries *d = NULL;
            if (sxi_image_file_parse(f.data, f.len, &d) != SX_SUCCESS)
                abort();
            sxp_buf out = {0};
            sxp_dump(d, &out);
            sxp_buf_free(&out);
            sxi_image_file_free(d);
            sxp_buf_free(&f);
        }
        sxp_image_free(img);
    }
    sxp_analysis_free(&a);
    sxp_module_free(&m);
    return 0;
}
