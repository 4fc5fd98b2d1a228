#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# load.sh: the DPC++-built modules of the dpctl 0.22.1 and dpnp 0.20.0
# wheels (PyPI), loaded with libsycl-ext-dpcpp.so preloaded: all 7871
# device images register, and unloading the modules (out of load order)
# unregisters every one. Twice: passing each call on to DPC++'s own
# libsycl.so.9 (from intel-sycl-rt), and without it under valgrind (no
# error, no definite leak). Skips (77) offline, saying why.
set -u
b=${SX_TEST_BUILDDIR:-.}
s=${SX_TEST_SRCDIR:-$(dirname "$0")/../..}
sh "$s/tools/dpcpp-wheels.sh" "$b" 2>&1 | sed 's/^/  /'
if [ -f "$b/dpcpp-wheels/UNAVAILABLE" ]; then
    echo "SKIP: DPC++-built wheels: $(cat "$b/dpcpp-wheels/UNAVAILABLE")"
    exit 77
fi
# The modules need libintlc.so.5 (intel-cmplr-lib-rt): Intel's OpenCL
# runtime install has it.
sh "$s/tools/intel-opencl.sh" "$b" 2>&1 | sed 's/^/  /'
if [ ! -f "$b/intel-opencl/lib/libintlc.so.5" ]; then
    echo "SKIP: libintlc.so.5 (intel-cmplr-lib-rt) missing: $(cat "$b/intel-opencl/UNAVAILABLE" 2>/dev/null)"
    exit 77
fi
w=$b/dpcpp-wheels/lib
bridge=$b/dpcpp/.libs/libsycl-ext-dpcpp.so
mods="libDPCTLSyclInterface.so $(cd "$w" && ls _tensor_impl*.so _tensor_elementwise_impl*.so)"
export LD_LIBRARY_PATH="$b/lib/.libs:$w:$b/intel-opencl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SX_TEST_EXPECT_IMAGES=7871
echo "== proptool --dump of each module, from the file alone"
total=0
for m in $mods; do
    line=$("$b/proptool/proptool" --dump "$w/$m" | head -n 1) || { echo "FAIL: proptool --dump $m"; exit 1; }
    echo "$line"
    n=$(echo "$line" | sed -n 's/.* \([0-9][0-9]*\) images*$/\1/p')
    total=$((total + ${n:-0}))
done
[ "$total" -eq "$SX_TEST_EXPECT_IMAGES" ] || { echo "FAIL: proptool listed $total images, not $SX_TEST_EXPECT_IMAGES"; exit 1; }
echo "== with DPC++'s runtime beside it"
LD_PRELOAD=$bridge "$b/tests/wheels/.libs/load" "$w" $mods || exit 1
if [ -n "${VALGRIND:-}" ] && [ "${SX_TEST_NO_VALGRIND:-0}" != 1 ]; then
    echo "== alone, under valgrind"
    SX_DPCPP_FORWARD=0 LD_PRELOAD=$bridge $VALGRIND -q --error-exitcode=9 --leak-check=full \
        --errors-for-leak-kinds=definite --suppressions="$s/tests/wheels/ld.supp" \
        "$b/tests/wheels/.libs/load" "$w" $mods || exit 1
else
    echo "== valgrind: not run (no valgrind, or SX_TEST_NO_VALGRIND=1)"
fi
exit 0
