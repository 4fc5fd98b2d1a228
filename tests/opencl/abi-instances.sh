#!/bin/sh
# abi-instances.sh: the ocl-abi-instances suite on PoCL and on Oclgrind.
exec "${SX_TEST_SRCDIR:-.}/tests/opencl/run-drivers.sh" ocl-abi-instances
