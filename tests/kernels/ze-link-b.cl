/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-link-b.cl: exports ze_helper and ze_linked_base for ze-link-a.cl. */
global int ze_linked_base = 100;

int ze_helper(int x)
{
    return x * 2;
}
