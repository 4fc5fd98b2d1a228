/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mpi-shared.h: what mpi-ranks.c and mpi-scale.cl share (sycl-ext/device.h):
 * the device_global each rank writes and the kernel's name, written once. */
#ifndef MPI_SHARED_H
#define MPI_SHARED_H
#include <sycl-ext/device.h>
SX_SHARED_DEVICE_GLOBAL(int, rank_scale, read_write);
SX_SHARED_KERNEL(scale);
#endif
