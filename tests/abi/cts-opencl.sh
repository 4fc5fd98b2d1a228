#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# cts-opencl.sh: sx-adapter-cts on the OpenCL adapter, on PoCL, on
# Oclgrind and on Intel's CPU runtime (tools/intel-opencl.sh) (each through its own OCL_ICD_VENDORS directory, as
# tests/opencl/run-drivers.sh does), with an image file of
# tools/sx-adapter-cts.cl made by clang + llvm-spirv + proptool (SPIR-V and
# SPIR bitcode). SKIP when no driver or no clang/llvm-spirv.
set -u
B=${SX_TEST_BUILDDIR:-.}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
cts=$B/tools/sx-adapter-cts
mod=$B/adapters/opencl/.libs/sx-adapter-opencl.so
[ -f "$mod" ] || { echo "SKIP: the OpenCL adapter is not built (configure found no CL/cl.h)"; exit 77; }
[ -x "$cts" ] || { echo "SKIP: $cts not built"; exit 77; }
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: cannot build the CTS kernels"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-cts-ocl.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
"$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header \
    "$S/tools/sx-adapter-cts.cl" -o "$tmp/cts.bc" && "$LLVM_SPIRV" "$tmp/cts.bc" -o "$tmp/cts.spv" &&
    "$B/proptool/proptool" -q -o "$tmp/cts.sximg" "$tmp/cts.spv" --spir-bc --llvm-spirv "$LLVM_SPIRV" ||
    { echo "FAIL: cannot build the CTS image"; exit 1; }
mkdir -p "$tmp/pocl" "$tmp/oclgrind"
for icd in /etc/OpenCL/vendors/*.icd; do
    [ -f "$icd" ] && grep -qi pocl "$icd" && cp "$icd" "$tmp/pocl/"
done
for so in /usr/lib/oclgrind/liboclgrind-rt-icd.so /usr/lib/*/oclgrind/liboclgrind-rt-icd.so \
          /usr/local/lib/oclgrind/liboclgrind-rt-icd.so /usr/local/lib/liboclgrind-rt-icd.so; do
    if [ -f "$so" ]; then echo "$so" > "$tmp/oclgrind/oclgrind.icd"; break; fi
done
[ -f "$B/intel-opencl/vendors/intel-cpu.icd" ] && ln -s "$(cd "$B" && pwd)/intel-opencl/vendors" "$tmp/intel"
passed=0 failed=0
for driver in pocl oclgrind intel; do
    if ! ls "$tmp/$driver"/*.icd >/dev/null 2>&1; then
        echo "== $driver: SKIP: not installed (no ICD for it found)"
        continue
    fi
    echo "== $driver"
    # Oclgrind leaks at exit (~138 KB): leak checks off for it.
    out=$(ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} OCL_ICD_VENDORS="$tmp/$driver" \
          "$cts" -i "$tmp/cts.sximg" "$mod"); rc=$?
    echo "$out"
    musts="handshake.mandatory dispatch.program dispatch.kernel loader.adapter"
    # PoCL has SVM: the launch with every argument kind runs there.
    [ $driver = pocl ] && musts="$musts launch.args usm.round-trip launch.barrier launch.null-local launch.scalars
        launch.double launch.nd launch.offset launch.threads launch.wait-list"
    # Oclgrind shares program variables: host reads and writes work, and the
    # launch writes its output to one (it has no USM).
    [ $driver = oclgrind ] && musts="$musts global.write-read global.bounds launch.args"
    # Intel's runtime: USM, its own program-variable access, SPIR-V linking.
    [ $driver = intel ] && musts="$musts launch.args usm.round-trip global.write-read global.bounds program.link"
    for c in $musts; do
        echo "$out" | grep -q "^PASS $c" || { echo "FAIL: $driver: check $c did not pass"; rc=1; }
    done
    if [ $rc -eq 0 ]; then passed=$((passed + 1)); echo "== $driver: PASS"; else failed=$((failed + 1)); echo "== $driver: FAIL"; fi
done
[ $failed -gt 0 ] && exit 1
[ $passed -gt 0 ] && exit 0
exit 77
