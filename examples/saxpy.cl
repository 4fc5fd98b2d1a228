/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* saxpy.cl: the demo's kernel, a free-function kernel in OpenCL C written
 * with sycl-ext/device.h (doc/device-header.md). The build compiles it to
 * SPIR-V, proptool makes the images (and the native variant), with the
 * registration code, into the demo. */
#include <sycl-ext/device.h>

SX_ND_RANGE_KERNEL(1, saxpy)(global float *y, global const float *x, float a)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
