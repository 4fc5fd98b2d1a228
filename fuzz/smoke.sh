#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# smoke.sh: `make check`'s short run of the fuzz targets over the committed
# corpus (no fuzzing; the real runs use fuzz/build.sh and libFuzzer, in CI
# fuzz/ci.sh). Each input has SX_FUZZ_TIMEOUT seconds (20 by default): an
# input that hangs a pass (proptool's walks over hostile SPIR-V: issue 26)
# fails the run and is named.
set -e
B=${SX_TEST_BUILDDIR:-.}
S=${SX_TEST_SRCDIR:-.}
export SX_FUZZ_TIMEOUT=${SX_FUZZ_TIMEOUT:-20}
"$B/fuzz/fuzz-spirv-smoke" "$S/fuzz/corpus/spirv"
"$B/fuzz/fuzz-image-file-smoke" "$S/fuzz/corpus/image-file"
"$B/fuzz/fuzz-register-smoke" "$S/fuzz/corpus/image-file" "$S/fuzz/corpus/register"
if [ -x "$B/fuzz/fuzz-bitcode-smoke" ]; then
    "$B/fuzz/fuzz-bitcode-smoke" "$S/fuzz/corpus/bitcode"
fi
