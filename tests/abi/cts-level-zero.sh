#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# cts-level-zero.sh: sx-adapter-cts on the Level Zero adapter through the
# real Level Zero loader and the TEST DRIVER (tests/level_zero/README.md),
# with a SPIR-V image file of tools/sx-adapter-cts.cl. The TEST DRIVER does
# not run these kernels, so --launch-only: launches are checked to
# complete, not what they computed (tests/level_zero checks results).
set -u
B=${SX_TEST_BUILDDIR:-.}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cts=$B/tools/sx-adapter-cts
mod=$B/adapters/level_zero/.libs/sx-adapter-level_zero.so
drv=$B/tests/level_zero/.libs/libze_sx_test_driver.so
[ -f "$mod" ] || { echo "SKIP: the Level Zero adapter is not built (no level_zero/ze_api.h)"; exit 77; }
[ -f "$drv" ] || { echo "SKIP: the Level Zero TEST DRIVER is not built"; exit 77; }
[ -x "$cts" ] || { echo "SKIP: $cts not built"; exit 77; }
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: cannot build the CTS kernels"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-cts-ze.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
"$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header \
    "$S/tools/sx-adapter-cts.cl" -o "$tmp/cts.bc" && "$LLVM_SPIRV" "$tmp/cts.bc" -o "$tmp/cts.spv" &&
    "$B/proptool/proptool" -q -o "$tmp/cts.sximg" "$tmp/cts.spv" || { echo "FAIL: cannot build the CTS image"; exit 1; }
out=$(ZE_ENABLE_ALT_DRIVERS=$drv "$cts" --launch-only -i "$tmp/cts.sximg" "$mod"); rc=$?
echo "$out"
[ $rc -eq 0 ] || exit 1
for c in handshake.mandatory dispatch.kernel 'launch.args\[SPIR-V\]' 'global.write-read\[SPIR-V\]' \
         'global.bounds\[SPIR-V\]' 'program.get_binary\[SPIR-V\]' 'program.link\[SPIR-V\]' loader.adapter; do
    echo "$out" | grep -q "^PASS $c" || { echo "FAIL: check $c did not pass"; exit 1; }
done
