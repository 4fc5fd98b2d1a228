#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# dg-plain.sh: the ocl-dg suite with images that have no accessor kernels,
# on Intel's CPU runtime only (the driver reaches program variables itself:
# clEnqueueWrite/ReadGlobalVariableINTEL); skips where it is not installed.
SX_OCL_DRIVERS=intel SXO_DG_PLAIN=1 exec "${SX_TEST_SRCDIR:-.}/tests/opencl/run-drivers.sh" ocl-dg
