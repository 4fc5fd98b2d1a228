/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fuzz-spirv.c: fuzz target for proptool's SPIR-V reader and everything
 * after it (analysis, cleanup, vtables, if_device, writer, image file round trip). */
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
        sxp_vtables_pass(&m);
        sxp_if_device_pass(&m, &a);
        /* The virtual-functions split (issue 6), JIT or AOT by the size;
         * every image it writes must parse again. */
        uint32_t fp64 = 6;
        opt.aot = size % 3 == 0;
        opt.aot_aspects = &fp64;
        opt.naot_aspects = size % 5 == 0;
        sxp_vf_plan *plan = NULL;
        sxp_image **vimgs = NULL;
        size_t nv = 0, vcap = 0;
        if (sxp_vf_plan_make(&m, &a, &opt, &plan) && plan) {
            sxp_vf_write_sets(plan, &m, &a, &vimgs, &nv, &vcap);
            sxp_vf_write_kernels(plan, &m, &a, &vimgs, &nv, &vcap);
        }
        for (size_t i = 0; i < nv; i++) {
            sxp_module vm;
            sxp_any_bound = true;
            if (!sxp_module_parse(&vm, "split.spv", vimgs[i]->data, vimgs[i]->size))
                abort();
            sxp_any_bound = false;
            sxp_module_free(&vm);
            sxp_image_free(vimgs[i]);
        }
        free(vimgs);
        sxp_vf_plan_free(plan);
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
