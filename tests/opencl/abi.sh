#!/bin/sh
# abi.sh: the ocl-abi suite on PoCL and on Oclgrind.
exec "${SX_TEST_SRCDIR:-.}/tests/opencl/run-drivers.sh" ocl-abi
