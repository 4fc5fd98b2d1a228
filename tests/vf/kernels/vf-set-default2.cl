/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-set-default2.cl: a second library's image of the default set: Base::baz. */
#include "vf-base.h"

int Base::baz(int x) { return x - 100; }
