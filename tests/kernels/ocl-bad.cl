/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-bad.cl: compiles to SPIR-V but calls a function nobody defines: building it alone fails. */
int ocl_missing_function(int x);
kernel void ocl_bad(global int *io) { io[0] = ocl_missing_function(io[0]); }
