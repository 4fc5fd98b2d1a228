/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-set-fp64.cl: set_fp64's image: Base::bar uses double. */
#include "vf-base.h"
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

int Base::bar(int x) { double d = x; return (int)(d * 2.5); }
