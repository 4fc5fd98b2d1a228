/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-cuda-multi.c: device_global instances are per device: on every CUDA
 * GPU, write a different value, let a kernel add to it, read each back.
 * Exits 77 unless there are two GPUs (the device tool's nvidia-h200-x2). */
#include <stdio.h>
#include <stdlib.h>

#include <sycl-ext/device-global.h>

SX_DEVICE_GLOBAL(int, pt_counter, "pt_counter", SX_HOST_ACCESS_READ_WRITE);

#define OK(call)                                                                                    \
    do {                                                                                            \
        sx_result r_ = (call);                                                                      \
        if (r_ != SX_SUCCESS) {                                                                     \
            printf("FAIL: %s: %s: %s\n", #call, sx_result_name(r_), sx_last_error());               \
            return 1;                                                                               \
        }                                                                                           \
    } while (0)

int main(int argc, char **argv)
{
    const char *img = argc > 1 ? argv[1] : "tests/cuda/props-ptx.sximg";
    sx_image_file f;
    OK(sx_image_file_load(img, &f));
    OK(sx_init(0));
    sx_device gpus[8];
    uint32_t n = 0;
    if (sx_device_get(NULL, SX_DEVICE_TYPE_GPU, 8, gpus, &n) != SX_SUCCESS || n < 2) {
        printf("SKIP: %u GPU(s): per-device instances need two\n", n);
        sx_fini();
        sx_image_file_release(f);
        return 77;
    }
    if (n > 8)
        n = 8;
    sx_context ctx[8];
    sx_queue q[8];
    sx_kernel k;
    OK(sx_kernel_get_free_function("pt_add", &k));
    for (uint32_t i = 0; i < n; i++) {
        char name[128];
        OK(sx_device_get_info(gpus[i], SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
        printf("GPU %u: %s\n", i, name);
        OK(sx_context_create(1, &gpus[i], &ctx[i]));
        OK(sx_queue_create(ctx[i], gpus[i], 0, &q[i]));
        int v = 1000 * (int)(i + 1);
        OK(sx_queue_device_global_write(q[i], &pt_counter, &v, sizeof(v), 0, 1, 0, NULL, NULL));
    }
    for (uint32_t i = 0; i < n; i++) {
        sx_args a;
        int add = (int)i + 1;
        OK(sx_args_create(k, &a));
        OK(sx_args_set(a, 0, sizeof(add), &add));
        size_t g[1] = {256}, l[1] = {64};
        OK(sx_nd_launch(q[i], a, 1, g, l, NULL, 0, NULL, NULL));
        OK(sx_args_release(a));
    }
    int bad = 0;
    for (uint32_t i = 0; i < n; i++) {
        int v = 0, want = 1000 * (int)(i + 1) + 256 * (int)(i + 1);
        OK(sx_queue_wait(q[i]));
        OK(sx_queue_device_global_read(q[i], &v, &pt_counter, sizeof(v), 0, 1, 0, NULL, NULL));
        printf("GPU %u: pt_counter = %d (want %d)\n", i, v, want);
        bad += v != want;
        OK(sx_queue_release(q[i]));
        OK(sx_context_release(ctx[i]));
    }
    OK(sx_kernel_release(k));
    OK(sx_fini());
    OK(sx_image_file_release(f));
    printf("%s: per-device instances on %u GPUs\n", bad ? "FAIL" : "PASS", n);
    return bad ? 1 : 0;
}
