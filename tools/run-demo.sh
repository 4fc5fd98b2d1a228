#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# run-demo.sh: install what is missing, build, run the demo on the default device.
set -eu
. "$(dirname "$0")/deps.sh"
sx_install_deps
sx_build
# Show the adapters built here too (they are not installed).
SX_ADAPTERS_PATH=$PWD/adapters/opencl/.libs:$PWD/adapters/cuda/.libs:$PWD/adapters/level_zero/.libs
export SX_ADAPTERS_PATH
./tools/sx-info
make demo
