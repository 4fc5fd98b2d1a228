/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* second.cl: a second module: other kernels, the same USM device global
 * (allowed in several images), an import resolved by kernels.cl's image. */
__attribute__((annotate("sycl-unique-id=dg_usm;sycl-device-global-size=16")))
global int *global dg_usm_ptr2;

extern int triple(int x);

__attribute__((annotate("indirectly-callable=set_a")))
int vf_a(int x)
{
    return x + 1;
}

__attribute__((annotate("sycl-single-task-kernel;calls-indirectly=set_a,set_b;sycl-used-aspects=fp16,9")))
kernel void __sycl_kernel_second(global int *out)
{
    out[0] = triple(out[0]) + vf_a(1);
}
