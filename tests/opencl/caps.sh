#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# caps.sh: ocl-caps (what the driver offers, measured) on PoCL, Oclgrind and Intel's CPU runtime.
exec "${SX_TEST_SRCDIR:-.}/tests/opencl/run-drivers.sh" ocl-caps
