#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# dg-scope.sh: ocl-dg-scope (device_image_scope copies that cannot be made: named, never an abort) on each OpenCL driver.
exec "${SX_TEST_SRCDIR:-.}/tests/opencl/run-drivers.sh" ocl-dg-scope
