/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-dg-nobind.cl: an ordinary device global whose hand-written accessor
 * predates op 3 (bind): the OpenCL adapter must refuse it plainly on a
 * device without USM instead of letting kernels use a NULL pointer. */
__attribute__((annotate("sycl-unique-id=ocl_dg_nobind;sycl-device-global-size=4")))
global int *global ocl_nobind;

kernel void __sx_dg_access_ocl_nobind(global uchar *buf, ulong offset, ulong count, uint op)
{
    global uchar *p = (global uchar *)&ocl_nobind;
    if (op == 0)
        *(global ulong *)buf = sizeof(ocl_nobind);
    else if (op == 1)
        for (ulong i = 0; i < count; i++)
            buf[i] = p[offset + i];
    else if (op == 2)
        for (ulong i = 0; i < count; i++)
            p[offset + i] = buf[i];
}

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_ocl_dg_nobind_inc(void)
{
    ocl_nobind[0] += 1;
}
