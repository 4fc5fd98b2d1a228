#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# e2e.sh: the ocl-e2e suite on PoCL and on Oclgrind.
exec "${SX_TEST_SRCDIR:-.}/tests/opencl/run-drivers.sh" ocl-e2e
