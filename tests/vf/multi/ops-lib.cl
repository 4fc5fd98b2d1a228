/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ops-lib.cl: the OpenCL C library module (issue 29): two sets of plain
 * functions, no kernels. Its functions are SYCL_EXTERNAL-like: other
 * modules declare them (the declarations lose the set annotation). */
__attribute__((annotate("indirectly-callable=set_ops"))) int op_add(int a, int b)
{
    return a + b;
}
__attribute__((annotate("indirectly-callable=set_ops"))) int op_mul(int a, int b)
{
    return a * b;
}
__attribute__((annotate("indirectly-callable=set_more"))) int op_sub(int a, int b)
{
    return a - b;
}
