#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# dgstatic.sh: device globals with internal linkage (`static`, issue 29,
# point 5): proptool exports them under their name, the image's symbol for
# the unique id, and they work through the public API on the native
# adapter and on Intel's CPU OpenCL runtime (which finds program variables
# only by exported names).
set -u
B=${SX_TEST_BUILDDIR:-$(pwd)}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$B/tests/proptool/config.sh"
P="$B/proptool/proptool"
D="$S/tests/proptool"
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: cannot build test kernels"
    exit 77
fi
W="$B/tests/proptool/dgstaticwork"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

NATIVE=
[ -x "$B/proptool/sx-wgc" ] && NATIVE=--native
"$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header "$D/dgstatic.cl" -o dgs.bc &&
    "$LLVM_SPIRV" dgs.bc -o dgs.spv || { echo "FAIL: cannot build dgstatic.cl"; exit 1; }
if "$P" $NATIVE -o dgs.sximg dgs.spv 2> dgs.err && ! grep -q warning dgs.err && rm -rf ex &&
   "$P" --dump dgs.sximg --extract ex > dgs.dump && grep -q 'uid_static_usm@global_id_mapping: .*"StaticUsm"' dgs.dump &&
   { [ -z "${SPIRV_DIS:-}" ] || "$SPIRV_DIS" ex/image0.spv | grep -q 'OpDecorate %StaticUsm LinkageAttributes "StaticUsm" Export'; } &&
   { [ -z "${SPIRV_VAL:-}" ] || "$SPIRV_VAL" ex/image0.spv; }; then
    ok "static device globals are exported under their names (valid SPIR-V)"
else
    cat dgs.err; ko "static device globals exported"
fi

CCLINE="$CC $CPPFLAGS -I$S/include -I$B/include -o"
LIBS="-L$B/lib/.libs -lsycl-ext -lm -Wl,-rpath,$B/lib/.libs"
if ! $CCLINE dgstatic-run "$D/dgstatic-run.c" $LIBS 2> cc.err; then
    cat cc.err; ko "dgstatic-run builds"
else
    if [ -n "$NATIVE" ]; then
        SX_ADAPTERS=native SX_CACHE=0 ./dgstatic-run dgs.sximg; rc=$?
        case $rc in 0) ok "native: static device globals" ;; 77) echo "SKIP: native" ;; *) ko "native: static device globals" ;; esac
    else
        echo "SKIP: native run: proptool made no native variant (no sx-wgc)"
    fi
    intel=$B/intel-opencl/vendors
    ocl=$B/adapters/opencl/.libs/sx-adapter-opencl.so
    if [ -f "$intel/intel-cpu.icd" ] && [ -f "$ocl" ]; then
        OCL_ICD_VENDORS=$intel SX_ADAPTERS=$ocl SX_CACHE=0 ./dgstatic-run dgs.sximg; rc=$?
        case $rc in 0) ok "Intel's CPU runtime: static device globals" ;; 77) echo "SKIP: Intel" ;; *) ko "Intel: static device globals" ;; esac
    else
        echo "SKIP: Intel's CPU OpenCL runtime: $(cat "$B/intel-opencl/UNAVAILABLE" 2>/dev/null || echo 'not installed (tools/intel-opencl.sh)')"
    fi
fi
echo "static device-global tests: $pass passed, $fail failed"
if [ $fail -eq 0 ]; then
    cd "$B" && rm -rf "$W"
    exit 0
fi
exit 1
