#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# abi-globals.sh: the ocl-abi-globals suite on PoCL and on Oclgrind.
exec "${SX_TEST_SRCDIR:-.}/tests/opencl/run-drivers.sh" ocl-abi-globals
