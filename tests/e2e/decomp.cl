/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* decomp.cl: the host entry point of a free-function kernel whose source
 * signature is  f(int a, struct { int *p; long n } s, float dead,
 * work_group_memory<int> w)  plus work-group scratch memory, after the
 * compiler decomposed `s`, eliminated `dead` and appended the scratch
 * argument. The test describes that with a hand-built signature. */
kernel void __sycl_kernel_decomp(int a, global int *p, long n, local int *w, local int *scratch)
{
    size_t i = get_global_id(0), l = get_local_id(0);
    w[l] = a;
    scratch[l] = (int)n;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t o = (l + 1) % get_local_size(0);
    p[i] = w[o] * 1000 + scratch[o];
}
