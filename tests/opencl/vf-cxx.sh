#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# vf-cxx.sh: ocl-vf-cxx (virtual functions with real C++ vtables, linked from SPIR-V) on each OpenCL driver; PoCL and Oclgrind skip (no SPIR-V IL).
exec "${SX_TEST_SRCDIR:-.}/tests/opencl/run-drivers.sh" ocl-vf-cxx
