/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// link_b.cu: the device function link_a imports.
extern "C" __device__ int link_helper(int x)
{
    return 3 * x + 1;
}
