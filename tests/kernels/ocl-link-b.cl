/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-link-b.cl: the function ocl-link-a.cl imports. */
int ocl_link_helper(int x) { return x * 3 + 1; }
