/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-fptr.cl: a program-scope table of function pointers and a call
 * through it (SPV_INTEL_function_pointers): what a vtable needs of a
 * driver. ocl-caps probes whether the driver builds and runs it. */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

int ocl_fptr_twice(int x) { return 2 * x; }
int ocl_fptr_inc(int x) { return x + 1; }

typedef int (*ocl_fptr_fn)(int);
global const ocl_fptr_fn ocl_fptr_table[2] = {ocl_fptr_twice, ocl_fptr_inc};
global int ocl_fptr_result;

/* result = table[1](table[0](x)) */
kernel void ocl_fptr_call(int x) { ocl_fptr_result = ocl_fptr_table[1](ocl_fptr_table[0](x)); }
