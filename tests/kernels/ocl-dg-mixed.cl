/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-dg-mixed.cl: one image with a device_image_scope variable and an
 * ordinary device global (tests/opencl/dg-scope.c): a copy of the first
 * builds the image's program, which writes the second's address into it. */
__attribute__((annotate("sycl-unique-id=mix_scale;sycl-device-global-size=4;device_image_scope")))
global int mix_scale;

__attribute__((annotate("sycl-unique-id=mix_count;sycl-device-global-size=4")))
global int *global mix_count;

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_mix_bump(int by)
{
    mix_count[0] += by * mix_scale;
}
