# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# deps.sh: the Debian 12 packages building and testing need; sourced by
# run-demo.sh and run-tests.sh. Installs only what is missing.
SX_PACKAGES="build-essential autoconf automake libtool pkg-config check libffi-dev nettle-dev \
spirv-headers spirv-tools clang-14 llvm-spirv-14 llvm-spirv-15 llvm-14-dev \
ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-c-headers pocl-opencl-icd oclgrind clinfo \
libze1 libze-dev valgrind python3-pip"

# DPC++ compressed device images (issue 27).
SX_PACKAGES="$SX_PACKAGES libzstd-dev"

# Vector math for the native compiled kernels (issue 28).
SX_PACKAGES="$SX_PACKAGES libsleef-dev"

# CMake package, MPI example and JSON tests (issue 17).
SX_PACKAGES="$SX_PACKAGES cmake openmpi-bin libopenmpi-dev python3"

# The API reference (make doc, tests/check-api-docs.sh; issue 25).
SX_PACKAGES="$SX_PACKAGES doxygen"

sx_install_deps() {
    missing=""
    for p in $SX_PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    echo "installing:$missing"
    if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing
}

# Configure and build in _build (out of tree), reusing an earlier configure.
sx_build() {
    top=$(cd "$(dirname "$0")/.." && pwd)
    cd "$top"
    [ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
    mkdir -p _build
    cd _build
    [ -f Makefile ] || ../configure --enable-silent-rules
    make -j"$(nproc)"
}
