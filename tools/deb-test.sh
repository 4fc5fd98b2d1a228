#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# deb-test.sh: build the Debian packages from this tree, check them with
# lintian, install them on this machine and run sx-info and the demo
# (built with CMake and with pkg-config) against the installed system
# library; remove them again at the end. Not part of `make check` (a
# package build takes minutes). Debian 12, as root or with sudo.
#
#   sh tools/deb-test.sh [--check] [--keep] [--dir DIR]
#     --check  run `make check` inside the package build (default: nocheck)
#     --keep   leave the packages installed
#     --dir    build in DIR (default: a new directory under /tmp); the .debs stay there
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
check=no keep=no dir=""
while [ $# -gt 0 ]; do
    case $1 in
    --check) check=yes ;;
    --keep) keep=yes ;;
    --dir) dir=$2; shift ;;
    *) echo "usage: sh tools/deb-test.sh [--check] [--keep] [--dir DIR]" >&2; exit 2 ;;
    esac
    shift
done
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
say() { printf '\n== %s\n' "$*"; }
fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)

say "build tools and build dependencies"
need=""
for p in dpkg-dev debhelper lintian cmake pkgconf python3; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need="$need $p"
done
[ -z "$need" ] || { $sudo apt-get update -qq; DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need; }
DEBIAN_FRONTEND=noninteractive $sudo apt-get build-dep -y -qq "$top" >/dev/null

say "stage the tree (tracked and new files; no build outputs)"
[ -n "$dir" ] || dir=$(mktemp -d /tmp/sycl-ext-deb.XXXXXX)
mkdir -p "$dir"
ver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
src=$dir/libsycl-ext-${ver%-*}
rm -rf "$src" && mkdir -p "$src"
(cd "$top" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf - --no-recursion) | tar -xf - -C "$src"
rm -f "$dir"/*.deb "$dir"/*.changes "$dir"/*.buildinfo

say "dpkg-buildpackage -us -uc -b"
opts="parallel=$(nproc)"
[ "$check" = yes ] || opts="$opts nocheck"
profiles=""
[ -f "${CUDA_HOME:-/usr/local/cuda}/include/cuda.h" ] || profiles="-Pnocuda"
start=$(date +%s)
(cd "$src" && DEB_BUILD_OPTIONS="$opts" dpkg-buildpackage -us -uc -b $profiles) >"$dir/build.log" 2>&1 ||
    { tail -n 60 "$dir/build.log"; fail "dpkg-buildpackage (log: $dir/build.log)"; }
echo "built in $(($(date +%s) - start)) s:"
ls -1 "$dir"/*.deb

say "lintian"
changes=$(ls "$dir"/*.changes)
# Remaining tags are overridden with the reason beside them (debian/*.lintian-overrides).
st=0
lintian --fail-on error,warning --info "$changes" >"$dir/lintian.txt" 2>&1 || st=$?
grep -v '^N:' "$dir/lintian.txt" | grep -v 'running with root privileges' || true
[ "$st" -eq 0 ] || fail "lintian reports errors or warnings ($dir/lintian.txt)"
echo "lintian: no error or warning"

say "the library does not pull in a vendor runtime"
deb() { ls "$dir"/"$1"_*.deb; }
for p in libsycl-ext1 libsycl-ext-dev sycl-ext-tools; do
    fields=$(dpkg-deb -f "$(deb $p)" Depends Recommends Pre-Depends)
    echo "$p: $(echo "$fields" | tr '\n' ' ')"
    echo "$fields" | grep -Eiq 'pocl|opencl|libze|level-zero|cuda|nvidia' && fail "$p depends on a vendor runtime"
done
dpkg-deb -c "$(deb libsycl-ext1)" | grep -q "sycl-ext/sx-adapter-opencl.so" && fail "libsycl-ext1 ships the OpenCL adapter"

say "install"
debs="$(deb libsycl-ext1) $(deb libsycl-ext-dev) $(deb sycl-ext-tools) $(deb sycl-ext-adapter-opencl) $(deb sycl-ext-adapter-level-zero)"
ls "$dir"/sycl-ext-adapter-cuda_*.deb >/dev/null 2>&1 && debs="$debs $(deb sycl-ext-adapter-cuda)"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $debs >/dev/null
cleanup() {
    [ "$keep" = yes ] || DEBIAN_FRONTEND=noninteractive $sudo apt-get purge -y -qq libsycl-ext1 libsycl-ext-dev \
        sycl-ext-tools sycl-ext-adapter-opencl sycl-ext-adapter-level-zero sycl-ext-adapter-cuda >/dev/null 2>&1 || true
}
trap cleanup EXIT
dpkg-query -W -f='${Package} ${Version} ${Status}\n' libsycl-ext1 libsycl-ext-dev sycl-ext-tools \
    sycl-ext-adapter-opencl sycl-ext-adapter-level-zero 2>/dev/null

# Nothing from the build tree may leak in.
unset SX_ADAPTERS SX_ADAPTERS_PATH SX_NATIVE_BUILTINS LD_LIBRARY_PATH || true
cd "$dir"

say "sx-info (installed)"
[ "$(command -v sx-info)" = /usr/bin/sx-info ] || fail "sx-info is not /usr/bin/sx-info"
sx-info | tee sx-info.txt
grep -q "/usr/lib/$arch/sycl-ext/sx-adapter-opencl.so" sx-info.txt || fail "sx-info does not list the installed OpenCL adapter"
sx-info --json >sx-info.json
python3 -c 'import json,sys; d=json.load(open("sx-info.json")); assert d["schema"]=="sycl-ext/sx-info" and d["devices"], d; print("sx-info --json: %d adapters, %d devices" % (len(d["adapters"]), len(d["devices"])))'

say "the demo, built with CMake against the installed package"
rm -rf demo-cmake
cmake -S "$src/examples" -B demo-cmake >demo-cmake.log 2>&1 || { cat demo-cmake.log; fail "cmake configure"; }
grep -q "proptool: /usr/bin/proptool" demo-cmake.log || fail "the CMake package did not give /usr/bin/proptool"
cmake --build demo-cmake >>demo-cmake.log 2>&1 || { cat demo-cmake.log; fail "cmake --build"; }
ldd demo-cmake/demo | grep -q "libsycl-ext.so.1 => /usr/lib/$arch/libsycl-ext.so.1\|libsycl-ext.so.1 => /lib/$arch/libsycl-ext.so.1" ||
    { ldd demo-cmake/demo; fail "the demo does not use the system library"; }
SX_CACHE=0 ./demo-cmake/demo | tee demo.txt
grep -q "^OK: 0 of 1024" demo.txt || fail "demo (CMake build)"

say "the demo, built with pkg-config against the installed package"
rm -rf demo-pc && mkdir demo-pc
clang-14 -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header "$src/examples/saxpy.cl" -o demo-pc/saxpy.bc
llvm-spirv-14 demo-pc/saxpy.bc -o demo-pc/saxpy.spv
clang-14 -x cl -cl-std=CL2.0 -Xclang -finclude-default-header -Dkernel= -D__kernel= -target x86_64-linux-gnu \
    -O2 -fPIC -shared -nostdlib "$src/examples/saxpy.cl" -o demo-pc/saxpy-host.so
proptool -q -o demo-pc/saxpy.sximg --emit-c demo-pc/saxpy-images.c demo-pc/saxpy.spv --host demo-pc/saxpy-host.so
# shellcheck disable=SC2046
cc -o demo-pc/demo "$src/examples/demo.c" demo-pc/saxpy-images.c $(pkg-config --cflags --libs sycl-ext) -lm
SX_CACHE=0 ./demo-pc/demo | tee demo-pc.txt
grep -q "^OK: 0 of 1024" demo-pc.txt || fail "demo (pkg-config build)"

say "PASS: packages in $dir"
