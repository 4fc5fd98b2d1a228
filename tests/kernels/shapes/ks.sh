#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The kernel shapes (shapes.cl) on the native device and PoCL: ks-run runs
# the host build (scratch as __local arguments), PoCL (kernel-scope __local
# arrays) and, made here, the native variant of the kernel-scope source that
# proptool compiles from SPIR-V (clang -target spir64 -> llvm-spirv ->
# proptool --native), as users write kernels.
set -u
B=${SX_TEST_BUILDDIR:-$(pwd)}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
W="$B/tests/kernels/shapes/work"
rm -rf "$W"
mkdir -p "$W"
KS_SXIMG=
if [ -x "$B/proptool/sx-wgc" ] && [ -n "${CLANG:-}" ] && [ -n "${LLVM_SPIRV:-}" ]; then
    if "$CLANG" -target spir64 -cl-std=CL2.0 -O2 -c -emit-llvm -Xclang -finclude-default-header \
            -DKS_KERNEL_SCOPE "$S/tests/kernels/shapes/shapes.cl" -o "$W/shapes.bc" &&
       "$LLVM_SPIRV" "$W/shapes.bc" -o "$W/shapes.spv" &&
       "$B/proptool/proptool" --native -o "$W/shapes.sximg" "$W/shapes.spv"; then
        KS_SXIMG="$W/shapes.sximg"
    else
        echo "FAIL: cannot make the native variant of shapes.cl from SPIR-V"
        exit 1
    fi
else
    echo "note: no sx-wgc, clang or llvm-spirv: the kernel-scope native variant is not run"
fi
export KS_SXIMG
# the native device alone for the image file (its SPIR-V image would go to OpenCL)
SX_ADAPTERS=native SX_CACHE=0 POCL_CACHE_DIR="$W/pocl-cache" exec "$B/tests/kernels/shapes/ks-run"
