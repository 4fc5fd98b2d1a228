#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Every builtin overload on the native device (CL2.0 and CL1.2 host builds)
# against PoCL; bt-run skips (77) without PoCL or clang-14.
BT_SOURCE="${SX_TEST_SRCDIR:-.}/tests/native-builtins/bt-kernels.cl"
export BT_SOURCE
# PoCL keeps its compiled kernels in a cache; a private one keeps runs apart.
POCL_CACHE_DIR="${SX_TEST_BUILDDIR:-.}/tests/native-builtins/pocl-cache"
export POCL_CACHE_DIR
mkdir -p "$POCL_CACHE_DIR"
exec "${SX_TEST_BUILDDIR:-.}/tests/native-builtins/bt-run" "$@"
