#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# cuda.sh: a one-image PTX program from the persistent cache in a second
# process, with the driver's JIT cache off (GPU machine; 77 without a GPU).
exec "${SX_TEST_SRCDIR:-.}/tests/pcache/second-process.sh" cuda
