/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* swap-app: the application the swap, trace and coexistence tests run:
 * loads an image file, runs abi_a_fill on the native adapter, prints what
 * it computed and whether it is right. Built once against an installed
 * library, then run with others. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include <sycl-ext/sx.h>

#include "abi-util.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: swap-app FILE.sximg\n");
        return 2;
    }
    uint32_t major = 0, minor = 0, patch = 0;
    sx_result r = sx_get_version(&major, &minor, &patch);
    printf("library %u.%u.%u (headers %s)\n", major, minor, patch, SX_VERSION_STRING);
    /* Which file the dynamic linker chose (the swap test checks it; stderr,
     * so the results on stdout stay comparable). */
    Dl_info info;
    if (dladdr((void *)(uintptr_t)sx_init, &info) && info.dli_fname)
        fprintf(stderr, "library file: %s\n", info.dli_fname);
    sx_image_file file;
    if ((r = sx_image_file_load(argv[1], &file)) != SX_SUCCESS) {
        fprintf(stderr, "swap-app: %s: %s: %s\n", argv[1], sx_result_name(r), sx_last_error());
        return 1;
    }
    if ((r = sx_init(0)) != SX_SUCCESS) {
        fprintf(stderr, "swap-app: sx_init: %s: %s\n", sx_result_name(r), sx_last_error());
        return 1;
    }
    /* One failing call on purpose: its result name is part of the output. */
    sx_kernel none;
    r = sx_kernel_get("abi_no_such_kernel", &none);
    printf("missing kernel: %s\n", sx_result_name(r));
    r = abi_run_fill("abi_a_fill", 3, NULL, 0);
    printf("abi_a_fill(v=3) on %d items: %s\n", ABI_N, r == SX_SUCCESS ? "out[i] = 3 * i: OK" : sx_result_name(r));
    sx_result r2 = sx_fini();
    sx_result r3 = sx_image_file_release(file);
    return r || r2 || r3 ? 1 : 0;
}
