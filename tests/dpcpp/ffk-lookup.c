/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ffk-lookup.c: load an image file and find free-function kernels by
 * function name, as an application would (issue 14, points 1 and 2).
 * Usage: ffk-lookup FILE.sximg NAME=KIND[:DIMS]... where KIND is
 * single_task or nd_range; prints one line per name, exits 1 on a
 * mismatch or a lookup error (with the library's message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

int main(int argc, char **argv)
{
    sx_image_file file;
    int rc = 0;
    if (argc < 3) {
        fprintf(stderr, "usage: ffk-lookup FILE.sximg NAME=KIND[:DIMS]...\n");
        return 2;
    }
    if (sx_init(0) != SX_SUCCESS || sx_image_file_load(argv[1], &file) != SX_SUCCESS) {
        fprintf(stderr, "ffk-lookup: %s\n", sx_last_error());
        return 1;
    }
    for (int i = 2; i < argc; i++) {
        char name[512];
        const char *eq = strchr(argv[i], '=');
        if (!eq || (size_t)(eq - argv[i]) >= sizeof(name)) {
            fprintf(stderr, "ffk-lookup: bad argument '%s'\n", argv[i]);
            rc = 1;
            continue;
        }
        memcpy(name, argv[i], (size_t)(eq - argv[i]));
        name[eq - argv[i]] = '\0';
        uint32_t want_dims = 0;
        const char *colon = strchr(eq, ':');
        if (colon)
            want_dims = (uint32_t)atoi(colon + 1);
        uint32_t want = !strncmp(eq + 1, "single_task", 11) ? SX_KERNEL_KIND_SINGLE_TASK : SX_KERNEL_KIND_ND_RANGE;
        sx_kernel k;
        uint32_t kind = 0, dims = 0;
        char entry[512] = "";
        if (sx_kernel_get_free_function(name, &k) != SX_SUCCESS) {
            printf("%s: %s\n", name, sx_last_error());
            rc = 1;
            continue;
        }
        sx_kernel_get_info(k, SX_KERNEL_INFO_KIND, sizeof(kind), &kind, NULL);
        sx_kernel_get_info(k, SX_KERNEL_INFO_DIMENSIONS, sizeof(dims), &dims, NULL);
        sx_kernel_get_info(k, SX_KERNEL_INFO_NAME, sizeof(entry), entry, NULL);
        sx_kernel_release(k);
        printf("%s: %s kind %u dims %u\n", name, entry, kind, dims);
        if (kind != want || dims != want_dims)
            rc = 1;
    }
    sx_image_file_release(file);
    sx_fini();
    return rc;
}
