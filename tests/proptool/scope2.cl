/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* scope2.cl: kernels.cl's device_image_scope global again (an error across images). */
__attribute__((annotate("sycl-unique-id=dg_scope;sycl-device-global-size=4;device_image_scope")))
global int counter_again;

kernel void use_scope(global int *out)
{
    out[0] = counter_again;
}
