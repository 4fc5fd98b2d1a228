/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mpi-scale.cl: the MPI example's device_global kernel, in a module of its
 * own so that its program is one image (the virtual-function kernel's,
 * in mpi-kernels.cl, is linked from two). */
#include "mpi-shared.h"

SX_ND_RANGE_KERNEL(1, scale)(global int *out)
{
    size_t i = get_global_id(0);
    out[i] = (int)i * *rank_scale;
}
