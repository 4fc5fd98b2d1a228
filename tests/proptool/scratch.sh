#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# scratch.sh: the work-group scratch argument made by proptool (issue 29,
# points 3 and 4): the `sycl-work-group-scratch` key writes "SYCL/implicit
# local arg" and hides the parameter from the source signature; a .prop
# naming it does the same; one naming an argument that is not a local
# pointer, or past the parameters, or disagreeing with the key, is refused
# by proptool (nothing written). The image then runs on the native adapter
# (proptool's native variant) and on Intel's CPU OpenCL runtime where
# installed (tools/intel-opencl.sh).
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
W="$B/tests/proptool/scratchwork"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

CLFLAGS="-target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header"
"$CLANG" $CLFLAGS "$D/scratch.cl" -o scratch.bc && "$LLVM_SPIRV" scratch.bc -o scratch.spv &&
"$CLANG" $CLFLAGS -DNO_KEY "$D/scratch.cl" -o plain.bc && "$LLVM_SPIRV" plain.bc -o plain.spv ||
    { echo "FAIL: cannot build scratch.cl"; exit 1; }

# The key: "SYCL/implicit local arg" names parameter 2, the source signature
# has 2 parameters and the third belongs to none. With sx-wgc built, the
# native variant too (make check turns it off by default).
NATIVE=
[ -x "$B/proptool/sx-wgc" ] && NATIVE=--native
if "$P" $NATIVE -o scratch.sximg scratch.spv 2> s.err && "$P" --dump scratch.sximg > s.dump &&
   grep -q '__sycl_kernel_scratch_sum: uint32 2' s.dump && ! grep -q '__sycl_kernel_no_scratch: uint32' s.dump; then
    ok "sycl-work-group-scratch: proptool writes \"SYCL/implicit local arg\""
else
    cat s.err; sed -n '/implicit/,/^\[/p' s.dump 2>/dev/null; ko "sycl-work-group-scratch"
fi

# A .prop (DPC++'s sycl-post-link output) naming the argument.
prop() { # FILE INDEX
    printf '[SYCL/implicit local arg]\n__sycl_kernel_scratch_sum=1|%s\n' "$2" > "$1"
}
prop good.prop 2
if "$P" -o fromprop.sximg plain.spv --prop good.prop 2> p.err &&
   "$P" --dump fromprop.sximg | grep -q '__sycl_kernel_scratch_sum: uint32 2'; then
    ok "a .prop naming the scratch argument is taken"
else
    cat p.err; ko "a .prop naming the scratch argument"
fi
refused() { # WHAT EXPECTED-MESSAGE ARGS...
    what=$1 want=$2; shift 2
    rm -f bad.sximg
    if "$P" -o bad.sximg "$@" 2> bad.err; then
        ko "$what: accepted"
    elif [ -e bad.sximg ] || ! grep -q "$want" bad.err; then
        cat bad.err; ko "$what: wrong message or output written"
    else
        ok "$what: refused by proptool ($(grep -o "$want" bad.err | head -1))"
    fi
}
prop wrong.prop 0
refused "a .prop naming a global pointer as the scratch argument" "names parameter 0, which is not a local" \
    plain.spv --prop wrong.prop
prop past.prop 3
refused "a .prop naming a parameter past the end" "names parameter 3, but it has 3" plain.spv --prop past.prop
prop other.prop 1
refused "a .prop disagreeing with the key" "sycl-work-group-scratch names parameter 2, the .prop" \
    scratch.spv --prop other.prop

# Run it: native (proptool's own native variant), then Intel's CPU runtime.
CCLINE="$CC $CPPFLAGS -I$S/include -I$B/include -o"
LIBS="-L$B/lib/.libs -lsycl-ext -lm -Wl,-rpath,$B/lib/.libs"
if ! $CCLINE scratch-run "$D/scratch-run.c" $LIBS 2> cc.err; then
    cat cc.err; ko "scratch-run builds"
else
    if "$P" --dump scratch.sximg | grep -q 'target: host_x86_64'; then
        SX_ADAPTERS=native SX_CACHE=0 ./scratch-run scratch.sximg; rc=$?
        case $rc in 0) ok "native runs the scratch kernel" ;; 77) echo "SKIP: native" ;; *) ko "native run" ;; esac
    else
        echo "SKIP: native run: proptool made no native variant (no sx-wgc)"
    fi
    intel=$B/intel-opencl/vendors
    if [ -f "$intel/intel-cpu.icd" ]; then
        OCL_ICD_VENDORS=$intel SX_ADAPTERS=opencl SX_CACHE=0 ./scratch-run scratch.sximg; rc=$?
        case $rc in 0) ok "Intel's CPU runtime runs the scratch kernel" ;; 77) echo "SKIP: Intel" ;; *) ko "Intel run" ;; esac
    else
        echo "SKIP: Intel's CPU OpenCL runtime: $(cat "$B/intel-opencl/UNAVAILABLE" 2>/dev/null || echo 'not installed (tools/intel-opencl.sh)')"
    fi
fi

echo "scratch tests: $pass passed, $fail failed"
if [ $fail -eq 0 ]; then
    cd "$B" && rm -rf "$W"
    exit 0
fi
exit 1
