#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# smoke.sh: `make check`'s short run of the fuzz targets over the committed
# corpus (no fuzzing; the real runs use fuzz/build.sh and libFuzzer).
set -e
B=${SX_TEST_BUILDDIR:-.}
S=${SX_TEST_SRCDIR:-.}
"$B/fuzz/fuzz-spirv-smoke" "$S/fuzz/corpus/spirv"
"$B/fuzz/fuzz-image-file-smoke" "$S/fuzz/corpus/image-file"
"$B/fuzz/fuzz-register-smoke" "$S/fuzz/corpus/image-file" "$S/fuzz/corpus/register"
