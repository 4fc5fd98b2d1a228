/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vendor-kern.c: the host-ELF kernels tests/abi/vendor-kit.sh runs on its
 * out-of-tree serial-CPU adapter: plain C, builtins by their OpenCL names. */
#include <stddef.h>

size_t _Z13get_global_idj(unsigned d);
size_t _Z12get_local_idj(unsigned d);
void _Z7barrierj(unsigned flags);

void vk_scale(float *out, const float *in, float a);
void vk_scale(float *out, const float *in, float a)
{
    size_t g = _Z13get_global_idj(0);
    out[g] = in[g] * a + 1.0f;
}

/* Needs a barrier: the serial device must refuse it, not run it wrong. */
void vk_reverse(int *out, int *tmp);
void vk_reverse(int *out, int *tmp)
{
    size_t l = _Z12get_local_idj(0), g = _Z13get_global_idj(0);
    tmp[l] = (int)g;
    _Z7barrierj(1);
    out[g] = tmp[3 - l];
}
