#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# opencl.sh: a one-image program from the persistent cache in a second process, on PoCL.
exec "${SX_TEST_SRCDIR:-.}/tests/pcache/second-process.sh" opencl
