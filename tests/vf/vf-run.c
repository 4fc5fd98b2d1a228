/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-run.c: a second process for the persistent-cache tests and the
 * benchmark: registers the virtual-function example for the fake TEST
 * adapter, launches one kernel and prints the program-cache counters.
 * Usage: vf-run KERNEL [-opts] [-refuse] */
#include <stdio.h>
#include <string.h>

#include "sx-internal.h"
#include "vf-images.h"

int main(int argc, char **argv)
{
    const char *kernel = argc > 1 ? argv[1] : "construct";
    vf_spec specs[SXI_ARRAY_SIZE(vf_example)];
    memcpy(specs, vf_example, sizeof(specs));
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "-opts") == 0)
            for (unsigned k = 0; k < SXI_ARRAY_SIZE(specs); k++)
                specs[k].compile_options = "-O2";
        else if (strcmp(argv[i], "-refuse") == 0) /* the fake refuses to build it from a binary */
            specs[0].bytes = "kernel image: Constructor FAKE-REFUSE";
    }
    if (!getenv("SX_ADAPTERS")) {
        const char *b = getenv("SX_TEST_BUILDDIR");
        char path[4096];
        snprintf(path, sizeof(path), "%s/tests/fake/.libs/fake-good.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
    vf_lib *l = vf_lib_new(specs, SXI_ARRAY_SIZE(specs));
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    sx_kernel k;
    size_t g = 1;
    sx_result r = sx_init(0);
    if (r == SX_SUCCESS)
        r = sx_register_images(&l->desc);
    if (r == SX_SUCCESS)
        r = sx_device_get_default(&dev);
    if (r == SX_SUCCESS)
        r = sx_context_create(1, &dev, &ctx);
    if (r == SX_SUCCESS)
        r = sx_queue_create(ctx, dev, 0, &q);
    if (r == SX_SUCCESS)
        r = sx_kernel_get(kernel, &k);
    if (r == SX_SUCCESS)
        r = sx_queue_launch(q, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL);
    if (r == SX_SUCCESS) {
        sx_kernel_release(k);
        sx_queue_release(q);
        sx_context_release(ctx);
    }
    sxi_program_stats s;
    sxi_program_stats_get(&s);
    printf("links=%llu disk_hits=%llu disk_writes=%llu disk_rejects=%llu\n", (unsigned long long)s.links,
           (unsigned long long)s.disk_hits, (unsigned long long)s.disk_writes, (unsigned long long)s.disk_rejects);
    if (r != SX_SUCCESS)
        fprintf(stderr, "vf-run %s: %s: %s\n", kernel, sx_result_name(r), sx_last_error());
    sx_fini();
    sx_unregister_images(&l->desc);
    vf_lib_free(l);
    return r == SX_SUCCESS ? 0 : 1;
}
