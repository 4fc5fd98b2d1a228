#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# cts-cuda.sh: sx-adapter-cts on the CUDA adapter with an image file of
# sx-adapter-cts.cl (SPIR-V, for the signatures) plus the PTX of
# tools/sx-adapter-cts.cu (nvcc). Without a driver (no libcuda.so.1) the
# module and handshake checks still run and the device checks skip, and
# the test says SKIP; on a GPU machine every launch is checked.
set -u
B=${SX_TEST_BUILDDIR:-.}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cts=$B/tools/sx-adapter-cts
mod=$B/adapters/cuda/.libs/sx-adapter-cuda.so
[ -f "$mod" ] || { echo "SKIP: the CUDA adapter is not built (no cuda.h)"; exit 77; }
[ -x "$cts" ] || { echo "SKIP: $cts not built"; exit 77; }
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ] || [ -z "${NVCC:-}" ]; then
    echo "SKIP: clang, llvm-spirv or nvcc not found by configure: cannot build the CTS kernels"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-cts-cuda.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
"$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header \
    "$S/tools/sx-adapter-cts.cl" -o "$tmp/cts.bc" && "$LLVM_SPIRV" "$tmp/cts.bc" -o "$tmp/cts.spv" &&
    "$NVCC" -ptx -rdc=true -arch=sm_90 "$S/tools/sx-adapter-cts.cu" -o "$tmp/cts.ptx" &&
    "$B/proptool/proptool" -q -o "$tmp/cts.sximg" "$tmp/cts.spv" --ptx "$tmp/cts.ptx" ||
    { echo "FAIL: cannot build the CTS image"; exit 1; }
out=$("$cts" -i "$tmp/cts.sximg" "$mod"); rc=$?
echo "$out"
[ $rc -eq 0 ] || exit 1
if echo "$out" | grep -q '^SKIP platform.get: 0 platforms'; then
    echo "SKIP: no CUDA driver or GPU here: module and handshake checks passed, device checks not run"
    exit 77
fi
# CUDA has no global offsets: launch.offset is a SKIP there.
for c in handshake.mandatory dispatch.kernel 'launch.args\[PTX\]' 'global.write-read\[PTX\]' \
         'launch.barrier\[PTX\]' 'launch.null-local\[PTX\]' 'launch.scalars\[PTX\]' 'launch.double\[PTX\]' \
         'launch.nd\[PTX\]' 'launch.threads\[PTX\]' 'launch.wait-list\[PTX\]' \
         'global.kernel-sees-write\[PTX\]' 'usm.round-trip\[device\]' loader.adapter; do
    echo "$out" | grep -q "^PASS $c" || { echo "FAIL: check $c did not pass"; exit 1; }
done
