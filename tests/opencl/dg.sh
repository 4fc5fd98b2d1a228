#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# dg.sh: the ocl-dg suite (ordinary device globals) on PoCL and on Oclgrind.
exec "${SX_TEST_SRCDIR:-.}/tests/opencl/run-drivers.sh" ocl-dg
