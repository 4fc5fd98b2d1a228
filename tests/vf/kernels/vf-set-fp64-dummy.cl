/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-set-fp64-dummy.cl: set_fp64's dummy image: the same function, body emptied. */
#include "vf-base.h"

int Base::bar(int x) { return 0; }
