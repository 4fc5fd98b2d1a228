/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* scratch-run.c: runs scratch.cl's kernels as proptool bundled them, on the
 * device SX_ADAPTERS/SX_DEVICE_SELECTOR pick: the scratch argument gets the
 * launch's work_group_scratch_size (issue 29, point 3), a kernel without
 * scratch memory ignores one (point 4), none for the scratch kernel is
 * refused. Usage: scratch-run FILE.sximg; exit 0 pass, 1 fail, 77 no device. */
#include <stdio.h>
#include <string.h>

#include <sycl-ext/sx.h>

#define TRY(call)                                                                                     \
    do {                                                                                              \
        sx_result r_ = (call);                                                                        \
        if (r_ != SX_SUCCESS) {                                                                       \
            fprintf(stderr, "scratch-run: %s: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            return 1;                                                                                 \
        }                                                                                             \
    } while (0)

int main(int argc, char **argv)
{
    enum { N = 256, WG = 32 };
    if (argc != 2) {
        fprintf(stderr, "usage: scratch-run FILE.sximg\n");
        return 2;
    }
    sx_image_file file;
    TRY(sx_image_file_load(argv[1], &file));
    TRY(sx_init(0));
    sx_device dev;
    if (sx_device_get_default(&dev) != SX_SUCCESS) {
        printf("SKIP: no device: %s\n", sx_last_error());
        return 77;
    }
    char name[256] = "";
    sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL);
    sx_context ctx;
    sx_queue q;
    TRY(sx_context_create(1, &dev, &ctx));
    TRY(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    int *out;
    TRY(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, N * sizeof(int), 0, (void **)&out));
    memset(out, 0, N * sizeof(int));

    sx_kernel k;
    sx_args a;
    TRY(sx_kernel_get_free_function("scratch_sum", &k));
    uint32_t nargs = 0;
    TRY(sx_kernel_get_info(k, SX_KERNEL_INFO_NUM_ARGS, sizeof(nargs), &nargs, NULL));
    if (nargs != 2) {
        fprintf(stderr, "scratch-run: FAIL: scratch_sum has %u source arguments, expected 2 (the scratch one is hidden)\n",
                nargs);
        return 1;
    }
    TRY(sx_args_create(k, &a));
    int bias = 1000;
    TRY(sx_args_set_pointer(a, 0, out));
    TRY(sx_args_set(a, 1, sizeof(bias), &bias));
    size_t g = N, l = WG;
    if (sx_nd_launch(q, a, 1, &g, &l, NULL, 0, NULL, NULL) != SX_ERROR_INVALID_VALUE ||
        !strstr(sx_last_error(), "work_group_scratch_size")) {
        fprintf(stderr, "scratch-run: FAIL: a launch without a scratch size was not refused: %s\n", sx_last_error());
        return 1;
    }
    sx_launch_properties props = {sizeof(props), 0, WG * sizeof(int)};
    TRY(sx_nd_launch(q, a, 1, &g, &l, &props, 0, NULL, NULL));
    TRY(sx_queue_wait(q));
    int bad = 0;
    for (int grp = 0; grp < N / WG; grp++) {
        int want = bias;
        for (int i = 0; i < WG; i++)
            want += grp * WG + i + 1;
        if (out[grp] != want && bad++ < 4)
            fprintf(stderr, "scratch-run: FAIL: group %d summed %d, expected %d\n", grp, out[grp], want);
    }
    TRY(sx_args_release(a));
    TRY(sx_kernel_release(k));

    /* The same launch properties for a kernel without scratch memory. */
    TRY(sx_kernel_get_free_function("no_scratch", &k));
    TRY(sx_args_create(k, &a));
    TRY(sx_args_set_pointer(a, 0, out));
    TRY(sx_nd_launch(q, a, 1, &g, &l, &props, 0, NULL, NULL));
    TRY(sx_queue_wait(q));
    for (int i = 0; i < N; i++)
        if (out[i] != 7 && bad++ < 8)
            fprintf(stderr, "scratch-run: FAIL: no_scratch wrote out[%d] = %d, expected 7\n", i, out[i]);
    TRY(sx_args_release(a));
    TRY(sx_kernel_release(k));
    TRY(sx_usm_free(ctx, out));
    TRY(sx_queue_release(q));
    TRY(sx_context_release(ctx));
    TRY(sx_fini());
    TRY(sx_image_file_release(file));
    printf("%s: scratch_sum and no_scratch on %s\n", bad ? "FAIL" : "PASS", name);
    return bad ? 1 : 0;
}
