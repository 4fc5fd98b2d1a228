/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* params.c: every kind of kernel parameter set from the host (params.cl):
 * sx_args_set_pointer for buffers, sx_args_set for scalars, vectors and
 * structs (the value's bytes, its size checked against the signature),
 * sx_args_set_local for work_group_memory, and the launch property
 * work_group_scratch_size for work-group scratch memory (no argument set).
 * Prints OK when the kernels saw what was set. */
#include <stdio.h>
#include <stdlib.h>

#include <sycl-ext/sx.h>

#include "params.h"

#define CHECK(call)                                                                                    \
    do {                                                                                               \
        sx_result r_ = (call);                                                                         \
        if (r_ != SX_SUCCESS) {                                                                        \
            fprintf(stderr, "params: %s failed: %s: %s\n", #call, sx_result_name(r_), sx_last_error()); \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

int main(void)
{
    CHECK(sx_init(0));
    sx_device dev;
    uint32_t n = 0;
    CHECK(sx_device_select("*:*", 1, &dev, &n));
    sx_context ctx;
    sx_queue q;
    CHECK(sx_context_create(1, &dev, &ctx));
    CHECK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    double *out;
    int *in, *sums;
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 5 * sizeof(double), 0, (void **)&out));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 64 * sizeof(int), 0, (void **)&in));
    CHECK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 4 * sizeof(int), 0, (void **)&sums));
    for (int i = 0; i < 64; i++)
        in[i] = i;

    sx_kernel k;
    sx_args a;
    CHECK(sx_kernel_get_free_function(SX_KERNEL_NAME(every_kind), &k));
    CHECK(sx_args_create(k, &a));
    signed char c = -3;
    unsigned char uc = 200;
    short s = -300;
    int i = -70000;
    unsigned u = 3000000000u;
    long l = -5000000000L;
    unsigned long ul = 6000000000UL;
    float f = 1.5f;
    double d = 0.25;
    float v4[4] = {1, 2, 3, 4}; /* float4: 16 bytes */
    int v2[2] = {10, 20};       /* int2: 8 bytes */
    struct mixed m = {5, 2.5, 100};
    CHECK(sx_args_set_pointer(a, 0, out));
    CHECK(sx_args_set_pointer(a, 1, in));
    CHECK(sx_args_set(a, 2, sizeof(c), &c));
    CHECK(sx_args_set(a, 3, sizeof(uc), &uc));
    CHECK(sx_args_set(a, 4, sizeof(s), &s));
    CHECK(sx_args_set(a, 5, sizeof(i), &i));
    CHECK(sx_args_set(a, 6, sizeof(u), &u));
    CHECK(sx_args_set(a, 7, sizeof(l), &l));
    CHECK(sx_args_set(a, 8, sizeof(ul), &ul));
    CHECK(sx_args_set(a, 9, sizeof(f), &f));
    CHECK(sx_args_set(a, 10, sizeof(d), &d));
    CHECK(sx_args_set(a, 11, sizeof(v4), v4));
    CHECK(sx_args_set(a, 12, sizeof(v2), v2));
    CHECK(sx_args_set(a, 13, sizeof(m), &m));
    CHECK(sx_single_task(q, a, NULL, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    double want[5] = {(double)c + uc + s + i + u + l + ul, f + d, 1 + 2 + 3 + 4 + 10 + 20, 5 + 2.5 + 100, 0 + 1};
    int wrong = 0;
    for (int j = 0; j < 5; j++)
        if (out[j] != want[j]) {
            fprintf(stderr, "params: every_kind out[%d] = %.17g, expected %.17g\n", j, out[j], want[j]);
            wrong++;
        }
    CHECK(sx_args_release(a));
    CHECK(sx_kernel_release(k));

    /* work_group_memory: 16 ints per work-group of 16. */
    CHECK(sx_kernel_get_free_function(SX_KERNEL_NAME(group_sums), &k));
    CHECK(sx_args_create(k, &a));
    CHECK(sx_args_set_pointer(a, 0, in));
    CHECK(sx_args_set_pointer(a, 1, sums));
    CHECK(sx_args_set_local(a, 2, 16 * sizeof(int)));
    const size_t global[1] = {64}, local[1] = {16};
    CHECK(sx_nd_launch(q, a, 1, global, local, NULL, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    for (int g = 0; g < 4; g++) {
        int w = 0;
        for (int j = 0; j < 16; j++)
            w += 16 * g + j;
        if (sums[g] != w) {
            fprintf(stderr, "params: group_sums[%d] = %d, expected %d\n", g, sums[g], w);
            wrong++;
        }
    }
    CHECK(sx_args_release(a));
    CHECK(sx_kernel_release(k));

    /* Work-group scratch memory: 3 arguments set (the scratch parameter
     * has no source index), 16 ints of scratch per group from the launch. */
    CHECK(sx_kernel_get_free_function(SX_KERNEL_NAME(scratch_sums), &k));
    CHECK(sx_args_create(k, &a));
    int bias = 1000;
    CHECK(sx_args_set_pointer(a, 0, in));
    CHECK(sx_args_set_pointer(a, 1, sums));
    CHECK(sx_args_set(a, 2, sizeof(bias), &bias));
    const sx_launch_properties scratch = {sizeof(scratch), 0, 16 * sizeof(int)};
    CHECK(sx_nd_launch(q, a, 1, global, local, &scratch, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    for (int g = 0; g < 4; g++) {
        int w = bias;
        for (int j = 0; j < 16; j++)
            w += 16 * g + j;
        if (sums[g] != w) {
            fprintf(stderr, "params: scratch_sums[%d] = %d, expected %d\n", g, sums[g], w);
            wrong++;
        }
    }
    CHECK(sx_args_release(a));
    CHECK(sx_kernel_release(k));
    CHECK(sx_usm_free(ctx, out));
    CHECK(sx_usm_free(ctx, in));
    CHECK(sx_usm_free(ctx, sums));
    CHECK(sx_queue_release(q));
    CHECK(sx_context_release(ctx));
    CHECK(sx_fini());
    if (wrong)
        return 1;
    printf("OK: every parameter kind (pointers, scalars, vectors, a struct, work_group_memory, work-group scratch) arrived\n");
    return 0;
}
