/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-set-default.cl: the default set's image: Base::foo. */
#include "vf-base.h"

int Base::foo(int x) { return x * 3 + 1; }
