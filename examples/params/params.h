/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* params.h: the kernels' names and the struct, shared by params.c and params.cl. */
#ifndef PARAMS_H
#define PARAMS_H
#include <sycl-ext/device.h>

/* A struct by value, with padding (char then double), as the host lays it out. */
struct mixed {
    char tag;
    double weight;
    int count;
};

SX_SHARED_KERNEL(every_kind);
SX_SHARED_KERNEL(group_sums);
SX_SHARED_KERNEL(scratch_sums);
#endif
