/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ops-use.cl: an OpenCL C kernel module calling ops-lib.cl's functions
 * through a table of function pointers (a constant initializer naming
 * imported symbols) and directly; its declarations carry no annotation
 * (clang-14 drops them), the kernel names the sets it calls. */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
int op_add(int a, int b);
int op_mul(int a, int b);
int op_sub(int a, int b);
typedef int (*op_fn)(int, int);
global op_fn ops[3] = {op_add, op_mul, op_sub};

__attribute__((annotate("calls-indirectly=set_ops,set_more")))
kernel void ops_run(global int *out)
{
    int i = (int)get_global_id(0);
    out[2 * i] = ops[i % 3](i, 3);
    out[2 * i + 1] = op_add(i, 1000);
}
