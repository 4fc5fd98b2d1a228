#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# kernels.sh: 21 real DPC++ kernels of the dpctl/dpnp wheels (elementwise,
# casts, where, clip, constructors, reductions, search, scan, sort, fill),
# registered through libsycl-ext-dpcpp.so, launched through the opencl
# adapter on Intel's CPU runtime and compared with raw OpenCL running the
# same SPIR-V with the same arguments. An empty program cache, so the
# first-launch times printed are cold. Skips (77) without the wheels or
# Intel's runtime, saying why.
set -u
b=${SX_TEST_BUILDDIR:-.}
s=${SX_TEST_SRCDIR:-$(dirname "$0")/../..}
sh "$s/tools/dpcpp-wheels.sh" "$b" 2>&1 | sed 's/^/  /'
if [ -f "$b/dpcpp-wheels/UNAVAILABLE" ]; then
    echo "SKIP: DPC++-built wheels: $(cat "$b/dpcpp-wheels/UNAVAILABLE")"
    exit 77
fi
sh "$s/tools/intel-opencl.sh" "$b" 2>&1 | sed 's/^/  /'
if [ ! -f "$b/intel-opencl/vendors/intel-cpu.icd" ]; then
    echo "SKIP: Intel's CPU OpenCL runtime: $(cat "$b/intel-opencl/UNAVAILABLE" 2>/dev/null)"
    exit 77
fi
cache=$(mktemp -d "${TMPDIR:-/tmp}/sx-kernels.XXXXXX") || exit 99
trap 'rm -rf "$cache"' EXIT INT TERM
w=$b/dpcpp-wheels/lib
LD_LIBRARY_PATH="$b/lib/.libs:$w:$b/intel-opencl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
OCL_ICD_VENDORS="$b/intel-opencl/vendors" SX_ADAPTERS="$b/adapters/opencl/.libs/sx-adapter-opencl.so" \
SX_CACHE_DIR="$cache" SX_DPCPP_FORWARD=0 LD_PRELOAD="$b/dpcpp/.libs/libsycl-ext-dpcpp.so" \
    "$b/tests/wheels/.libs/kernels" "$w"
