/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-reg.c: the images of proptool's virtual-functions split seen by the
 * core: the image file registers (set and dummy images have no kernels)
 * and every kernel named on the command line is found, with its argument
 * count. Linking the sets is the runtime's part (tests/vf). */
#include <stdio.h>

#include <sycl-ext/sx.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: vf-reg FILE.sximg KERNEL...\n");
        return 2;
    }
    sx_image_file file;
    sx_result r = sx_image_file_load(argv[1], &file);
    if (r != SX_SUCCESS) {
        fprintf(stderr, "vf-reg: sx_image_file_load(%s): %s: %s\n", argv[1], sx_result_name(r), sx_last_error());
        return 1;
    }
    r = sx_init(0);
    if (r != SX_SUCCESS) {
        fprintf(stderr, "vf-reg: sx_init: %s: %s\n", sx_result_name(r), sx_last_error());
        return 1;
    }
    int failures = 0;
    for (int i = 2; i < argc; i++) {
        sx_kernel k;
        r = sx_kernel_get(argv[i], &k);
        if (r != SX_SUCCESS) {
            fprintf(stderr, "vf-reg: FAIL sx_kernel_get(%s): %s: %s\n", argv[i], sx_result_name(r), sx_last_error());
            failures++;
            continue;
        }
        uint32_t nargs = 0;
        r = sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_BACKEND_ARGS, sizeof nargs, &nargs, NULL);
        if (r != SX_SUCCESS || nargs != 1) {
            fprintf(stderr, "vf-reg: FAIL %s: %u arguments (%s), expected 1\n", argv[i], nargs, sx_result_name(r));
            failures++;
        }
        sx_kernel_release(k);
    }
    sx_image_file_release(file);
    return failures ? 1 : 0;
}
