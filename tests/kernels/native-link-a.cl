/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-link-a.cl: half of a program linked at run time; imports helper()
 * and `scale` from native-link-b.cl, which imports base() from here. */
int base(int x);
int helper(int x);
extern int scale;
int shared_val = 3;

int base(int x) { return x + shared_val; }

kernel void linked(global int *out)
{
    size_t i = get_global_id(0);
    out[i] = helper((int)i) * scale;
}
