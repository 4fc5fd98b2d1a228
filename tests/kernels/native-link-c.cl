/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-link-c.cl: imports a symbol nobody defines (a link must fail). */
int missing_function(int x);

kernel void unresolved(global int *out) { out[0] = missing_function(1); }
