/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* A kernel the native device cannot build: three OpenCL C builtins it does
 * not provide (half-precision math) and a function of the program's own
 * that nothing defines. test-undef expects all four named in one build
 * error, and not clz nor the group functions (the builtins module has them
 * for kernels on fibers since issue 28). */
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
int helper(float4 x, __global int *p);

kernel void needs_four(global int *out, global float4 *v)
{
    out[0] = sub_group_reduce_add((int)get_global_id(0));
    out[1] = work_group_reduce_max(out[2]);
    out[3] = helper(v[0], out);
    out[4] = clz(out[5]);
    out[6] = (int)sin((half)v[0].x);
    out[7] = (int)cos((half)v[0].y) + (int)exp((half)v[0].z);
}
