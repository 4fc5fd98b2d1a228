#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# coexist.sh: no symbol of a vendor API (cl*, ze*, cu*), of the ur*
# namespace or of the C++ runtime is exported by libsycl-ext.so, the trace
# layer or any adapter module, and none of them links a vendor library or
# the C++ runtime; then coexist (linking libOpenCL and, where present,
# libze_loader itself) runs sx with its adapters beside its own OpenCL and
# Level Zero use, on PoCL and the Level Zero TEST DRIVER.
set -u
B=${SX_TEST_BUILDDIR:-.}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$B/tests/abi/config.sh"
fail=0 pass=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
lib=$B/lib/.libs/libsycl-ext.so
[ -f "$lib" ] || { echo "SKIP: $lib not built"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-coexist.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

leak='^(cl|ze|zet|zes|zel|cu|cuda|nvrtc|ur|urn|urx)[A-Z]|^_Z|^__cxa_|^__gxx_|^_ZSt|^_ZNSt'
for f in "$lib" "$B"/trace/.libs/libsycl-ext-trace.so "$B"/adapters/*/.libs/sx-adapter-*.so; do
    [ -f "$f" ] || continue
    n=$(basename "$f")
    bad=$(nm -D --defined-only "$f" | awk '{print $NF}' | sed 's/@.*//' | grep -E "$leak" || true)
    if [ -n "$bad" ]; then ko "$n exports vendor/ur/C++ symbols: $(echo $bad)"; else ok "$n exports no vendor, ur or C++ symbol"; fi
    deps=$(readelf -d "$f" | sed -n 's/.*Shared library: \[\(.*\)\].*/\1/p' |
           grep -E 'OpenCL|ze_loader|libcuda|libnvrtc|stdc\+\+|libc\+\+|ur_loader' || true)
    if [ -n "$deps" ]; then ko "$n links $(echo $deps)"; else ok "$n links no vendor library and no C++ runtime"; fi
done

ocl=$B/adapters/opencl/.libs/sx-adapter-opencl.so
ze=$B/adapters/level_zero/.libs/sx-adapter-level_zero.so
drv=$B/tests/level_zero/.libs/libze_sx_test_driver.so
img=$B/tests/abi/abi-a.sximg
pocl=
for icd in /etc/OpenCL/vendors/*.icd; do
    [ -f "$icd" ] && grep -qi pocl "$icd" && { mkdir -p "$tmp/icd"; cp "$icd" "$tmp/icd/"; pocl=yes; }
done
if [ ! -f "$ocl" ] || [ -z "$pocl" ] || [ ! -f "$img" ]; then
    echo "SKIP (process test): needs the OpenCL adapter, PoCL and $img"
else
    zeflags= adapters=$ocl
    if [ -f "$ze" ] && [ -f "$drv" ]; then zeflags="-DHAVE_ZE -lze_loader"; adapters="$ocl $ze"; fi
    if $CC -I"$S/include" -I"$B/include" -o "$tmp/coexist" "$S/tests/abi/coexist.c" -L"$B/lib/.libs" -lsycl-ext \
            -lOpenCL $zeflags -Wl,-rpath,"$B/lib/.libs" 2> "$tmp/cc.err"; then
        if OCL_ICD_VENDORS=$tmp/icd ZE_ENABLE_ALT_DRIVERS=$drv SX_NATIVE_BUILTINS=${SX_NATIVE_BUILTINS:-} \
                "$tmp/coexist" "$img" $adapters; then
            ok "sx and its adapters beside the program's own OpenCL${zeflags:+ and Level Zero}"
        else
            ko "the coexistence program"
        fi
    else
        cat "$tmp/cc.err"; echo "SKIP (process test): cannot link a program with -lOpenCL here"
    fi
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
