/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-link-b.cl: the other half (see native-link-a.cl). */
int base(int x);
int scale = 2;

int helper(int x) { return base(x) * 10; }
