/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dgacc.cl: device globals for the accessor-kernel test through the core
 * and the OpenCL adapter (no optional aspects, so Oclgrind takes it). */
__attribute__((annotate("sycl-unique-id=dg_acc_scope;sycl-device-global-size=16;device_image_scope")))
global int acc_scope[4] = {5, 6, 7, 8};

__attribute__((annotate("sycl-unique-id=dg_acc_ro;sycl-device-global-size=4;device_image_scope;host_access=read")))
global int acc_ro = 42;

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_acc_sum(global int *out)
{
    out[0] = acc_scope[0] + acc_scope[1] + acc_scope[2] + acc_scope[3] + acc_ro;
    acc_scope[3] = -1;
}
