/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-link-a.cl: a kernel importing a function and a variable that ze-link-b.cl exports. */
extern int ze_helper(int x);
extern global int ze_linked_base;

kernel void ze_use_helper(global int *out)
{
    size_t i = get_global_id(0);
    out[i] = ze_helper((int)i) + ze_linked_base;
}
