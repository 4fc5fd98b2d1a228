#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tests/cmake/install.sh: the CMake package as a user meets it. make install
# into a directory of the build (DESTDIR), build examples/ with CMake against
# that tree through find_package(sycl-ext 0.1) and sycl_ext_add_device_code,
# run the demo, check what an edit rebuilds and that a missing tool stops
# configure with a message naming it.
set -u
b=${SX_TEST_BUILDDIR:?} s=${SX_TEST_SRCDIR:?}
command -v cmake >/dev/null 2>&1 || { echo "SKIP: cmake not installed"; exit 77; }
[ -n "${CLANG:-}" ] && [ -n "${LLVM_SPIRV:-}" ] || { echo "SKIP: clang-14 / llvm-spirv-14 not found by configure"; exit 77; }
w=$b/tests/cmake/work
rm -rf "$w" && mkdir -p "$w/src"
fail() { echo "FAIL: $*"; exit 1; }
# CMake wraps its messages: match across lines.
said() { tr -s '\n ' '  ' <"$1" | grep -q "$2"; }

make -s -C "$b" install DESTDIR="$w/root" >"$w/install.log" 2>&1 || { cat "$w/install.log"; fail "make install DESTDIR"; }
# The adapter directory holds modules, no libtool .la files (issue 25).
la=$(find "$w/root" -path '*/sycl-ext/*.la')
[ -z "$la" ] || fail "libtool files installed into the adapter directory: $la"
[ -n "$(find "$w/root" -path '*/sycl-ext/sx-adapter-*.so')" ] || fail "no adapter installed"
# The API reference where the build made it (configure found doxygen).
if [ -f "$b/doc/api/stamp" ]; then
    [ -n "$(find "$w/root" -path '*/doc/libsycl-ext/api/html/index.html')" ] || fail "no API reference (HTML) installed"
    [ -n "$(find "$w/root" -path '*/man3/sx_nd_launch.3')" ] || fail "no man page sx_nd_launch(3) installed"
fi
cfg=$(find "$w/root" -name sycl-ext-config.cmake | head -n 1)
[ -n "$cfg" ] || fail "no sycl-ext-config.cmake installed"
[ -f "$(dirname "$cfg")/sycl-ext-config-version.cmake" ] || fail "no version file beside $cfg"
case $cfg in */lib/cmake/sycl-ext/sycl-ext-config.cmake) ;; *) fail "config file at $cfg, not LIBDIR/cmake/sycl-ext";; esac
prefix=${cfg%/lib/cmake/sycl-ext/sycl-ext-config.cmake}
builtins=$(find "$w/root" -name sx-native-builtins.so | head -n 1)
cp "$s/examples/CMakeLists.txt" "$s/examples/demo.c" "$s/examples/saxpy.cl" "$s/examples/saxpy.cu" \
    "$s/examples/mpi-ranks.c" "$s/examples/mpi-kernels.cl" "$s/examples/mpi-scale.cl" "$s/examples/mpi-shared.h" "$w/src/"
cp -r "$s/examples/app" "$w/src/app" && rm -f "$w/src/app/"*.o "$w/src/app/app" "$w/src/app/app-images.c"

variants="spirv;native;spir-bc"
NVCC=${NVCC:-}
[ -n "$NVCC" ] && variants="$variants;ptx"
cmake -S "$w/src" -B "$w/bld" -DCMAKE_PREFIX_PATH="$prefix" -DSX_EXAMPLE_VARIANTS="$variants" \
    ${NVCC:+-DSYCL_EXT_NVCC="$NVCC"} >"$w/configure.log" 2>&1 || { cat "$w/configure.log"; fail "cmake configure"; }
grep -q "proptool: $prefix/bin/proptool" "$w/configure.log" || { cat "$w/configure.log"; fail "SYCL_EXT_PROPTOOL is not the installed proptool"; }
# It says what it runs: the producer recipe and proptool's native variant.
grep -q "sycl_ext_add_device_code(demo): saxpy: .*clang.* -O1 -Xclang -disable-llvm-passes | sx-spir-opt -O1 | .*llvm-spirv" "$w/configure.log" &&
    grep -q "sycl_ext_add_device_code(demo): demo_device: proptool .*--native" "$w/configure.log" &&
    grep -q "sycl_ext_add_device_code(app-one-image): app_one_image_device: .*llvm-link.* of 3 sources" "$w/configure.log" &&
    grep -q "sycl_ext_add_device_code(app-shapes): shapes-lib: .*sx-spir-opt" "$w/configure.log" ||
    { cat "$w/configure.log"; fail "configure does not say the commands sycl_ext_add_device_code runs"; }
cmake --build "$w/bld" >"$w/build.log" 2>&1 || { cat "$w/build.log"; fail "cmake --build"; }
ldd "$w/bld/demo" | grep -q "$w/root.*libsycl-ext.so.1" || { ldd "$w/bld/demo"; fail "demo does not use the installed libsycl-ext"; }

run_demo() {
    SX_ADAPTERS=native SX_NATIVE_BUILTINS="$builtins" SX_CACHE=0 "$w/bld/demo" >"$w/demo.out" 2>&1
}
run_demo || { cat "$w/demo.out"; fail "demo failed"; }
grep -q "^OK: 0 of 1024 elements wrong" "$w/demo.out" || { cat "$w/demo.out"; fail "demo output"; }
cat "$w/demo.out"
# The old host-build route (HOST_BUILD) still builds and runs.
SX_ADAPTERS=native SX_NATIVE_BUILTINS="$builtins" SX_CACHE=0 "$w/bld/demo-host-build" >"$w/demo-host.out" 2>&1 &&
    grep -q "^OK: 0 of 1024 elements wrong" "$w/demo-host.out" || { cat "$w/demo-host.out"; fail "demo-host-build (HOST_BUILD)"; }
[ -f "$w/bld/demo_host_build_device.sx/saxpy-host.so" ] || fail "HOST_BUILD made no host object"
# The newcomer's app (sycl-ext/device.h; a .cl and a .clcpp source whose
# kernels use two virtual-function sets of a library module, app-shapes'
# shapes-lib.clcpp, built apart; if_device: its where_am_i checks that the
# sycl-call-if-on-host body does not run on the device), per image and as
# ONE_IMAGE, on native.
for a in app app-one-image; do
    SX_ADAPTERS=native SX_NATIVE_BUILTINS="$builtins" SX_CACHE=0 "$w/bld/app/$a" >"$w/$a.out" 2>&1 &&
        grep -q "^OK: " "$w/$a.out" || { cat "$w/$a.out"; fail "$a built with CMake"; }
done
echo "app, app-one-image (CMake, proptool's native variant): OK"
# The virtual-function sets are the library's (app-shapes: its own module
# and proptool run): its images are the sets and the vtables' exporter,
# with no kernel; the app's images have kernels that call or create the
# sets and import the vtables, and no set of their own.
"$prefix/bin/proptool" --dump "$w/bld/app/app_shapes_device.sx/app_shapes_device.sximg" >"$w/lib.dump" || fail "dump of app-shapes' images"
"$prefix/bin/proptool" --dump "$w/bld/app/app_device.sx/app_device.sximg" >"$w/app.dump" || fail "dump of app's images"
grep -q '^    virtual-functions-set: .*"set_area"' "$w/lib.dump" && grep -q '^    virtual-functions-set: .*"set_perim"' "$w/lib.dump" &&
    grep -q '_ZTV6Square: uint32 1' "$w/lib.dump" && ! grep -q '^  entries ([1-9]' "$w/lib.dump" ||
    { cat "$w/lib.dump"; fail "app-shapes' images are not the two sets and the vtables' exporter"; }
grep -q '^    virtual-functions-set:' "$w/app.dump" && { cat "$w/app.dump"; fail "app's own images define a virtual-function set"; }
grep -q 'calls-virtual-functions-set: .*"set_area"' "$w/app.dump" && grep -q '_ZTV6Square: uint32 1' "$w/app.dump" ||
    { cat "$w/app.dump"; fail "app's images do not call the library's sets"; }
echo "app's sets come from app-shapes, a module and proptool run of their own"
# ... and on Intel's CPU OpenCL runtime, where tools/intel-opencl.sh put one.
if [ -f "$b/intel-opencl/vendors/intel-cpu.icd" ]; then
    for a in app app-one-image; do
        OCL_ICD_VENDORS="$b/intel-opencl/vendors" SX_OPENCL_PLATFORM=Intel SX_ADAPTERS_PATH="$b/adapters/opencl/.libs" \
            SX_DEVICE_SELECTOR='opencl:*' SX_CACHE=0 "$w/bld/app/$a" >"$w/$a-intel.out" 2>&1 &&
            grep -q "^OK: " "$w/$a-intel.out" || { cat "$w/$a-intel.out"; fail "$a built with CMake on Intel's CPU runtime"; }
    done
    echo "app, app-one-image (CMake) on Intel's CPU OpenCL runtime: OK"
else
    echo "app (CMake) on Intel's CPU OpenCL runtime: not run (tools/intel-opencl.sh installed none)"
fi
# The MPI example, where CMake found an MPI: its virtual-function set's
# native image is proptool's, from the SPIR-V.
if [ -x "$w/bld/mpi-ranks" ] && command -v mpirun >/dev/null 2>&1; then
    root=""; [ "$(id -u)" -eq 0 ] && root=--allow-run-as-root
    SX_ADAPTERS=native SX_NATIVE_BUILTINS="$builtins" SX_CACHE=0 mpirun $root --oversubscribe -np 2 \
        -x SX_ADAPTERS -x SX_NATIVE_BUILTINS -x SX_CACHE "$w/bld/mpi-ranks" >"$w/mpi.out" 2>&1 ||
        { cat "$w/mpi.out"; fail "mpi-ranks built with CMake"; }
    grep -q "^OK: 2 of 2 ranks right" "$w/mpi.out" || { cat "$w/mpi.out"; fail "mpi-ranks output"; }
    echo "mpi-ranks (CMake build): 2 ranks right"
fi
# The images it carries: SPIR-V, proptool's native variant, SPIR bitcode (and PTX).
img=$w/bld/demo_device.sx/demo_device.sximg
"$prefix/bin/proptool" --dump "$img" >"$w/dump.txt" || fail "proptool --dump $img"
for f in "spirv (" "native (" "llvmir_bitcode ("; do
    grep -q "format: $f" "$w/dump.txt" || { cat "$w/dump.txt"; fail "no '$f' image in $img"; }
done
[ -z "$NVCC" ] || grep -q "target: nvptx64" "$w/dump.txt" || fail "no PTX image although nvcc is there"

# Dependencies: the device steps re-run for an edited kernel, not for host code.
d=$w/bld/demo_device.sx
touch "$w/stamp0"
sleep 1
echo "/* edited */" >>"$w/src/demo.c"
cmake --build "$w/bld" >"$w/rebuild1.log" 2>&1 || { cat "$w/rebuild1.log"; fail "rebuild after editing demo.c"; }
[ "$w/bld/demo" -nt "$w/stamp0" ] || fail "demo not relinked after editing demo.c"
[ -f "$d/saxpy-host.so" ] && fail "a host object was built although proptool makes the native variant"
for f in saxpy.bc saxpy.spv demo_device-images.c; do
    [ "$d/$f" -nt "$w/stamp0" ] && fail "$f remade although only demo.c changed"
done
touch "$w/stamp1"
sleep 1
echo "/* edited */" >>"$w/src/saxpy.cl"
cmake --build "$w/bld" >"$w/rebuild2.log" 2>&1 || { cat "$w/rebuild2.log"; fail "rebuild after editing saxpy.cl"; }
for f in saxpy.bc saxpy.spv demo_device-images.c demo_device.sximg; do
    [ "$d/$f" -nt "$w/stamp1" ] || fail "$f not remade after editing saxpy.cl"
done
[ "$w/bld/demo" -nt "$w/stamp1" ] || fail "demo not relinked after editing saxpy.cl"
[ -z "$NVCC" ] || { [ "$d/saxpy.ptx" -nt "$w/stamp1" ] && fail "saxpy.ptx remade although saxpy.cu did not change"; }
run_demo || { cat "$w/demo.out"; fail "demo failed after the rebuild"; }
echo "rebuilds: demo.c edit -> link only; saxpy.cl edit -> its SPIR-V, images, link"

# A missing tool stops configure and names it.
cmake -S "$w/src" -B "$w/bld-notool" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_COMPILER="$(command -v cc)" -DCMAKE_MAKE_PROGRAM="$(command -v make)" \
    -DCMAKE_IGNORE_PATH="/usr/bin;/bin;/usr/local/bin;/usr/lib/llvm-14/bin" >"$w/notool.log" 2>&1 &&
    fail "configure succeeded without clang-14"
said "$w/notool.log" "clang-14 not found; it is needed to compile OpenCL C device sources" ||
    { cat "$w/notool.log"; fail "no clear message for a missing clang-14"; }
if ! command -v nvcc >/dev/null 2>&1; then
    cmake -S "$w/src" -B "$w/bld-nonvcc" -DCMAKE_PREFIX_PATH="$prefix" -DSX_EXAMPLE_VARIANTS="spirv;ptx" \
        -DCMAKE_IGNORE_PATH="/usr/local/cuda/bin" >"$w/nonvcc.log" 2>&1 && fail "configure succeeded with the ptx variant and no nvcc"
    said "$w/nonvcc.log" "nvcc not found; it is needed for the ptx variant" || { cat "$w/nonvcc.log"; fail "no clear message for a missing nvcc"; }
fi
# A version this install does not satisfy is refused.
printf 'cmake_minimum_required(VERSION 3.20)\nproject(v C)\nfind_package(sycl-ext 0.2 CONFIG REQUIRED)\n' >"$w/v.cmake.txt"
mkdir -p "$w/vsrc" && mv "$w/v.cmake.txt" "$w/vsrc/CMakeLists.txt"
cmake -S "$w/vsrc" -B "$w/vbld" -DCMAKE_PREFIX_PATH="$prefix" >"$w/version.log" 2>&1 && fail "find_package(sycl-ext 0.2) accepted 0.1"
grep -q "0.1.0" "$w/version.log" || { cat "$w/version.log"; fail "version refusal does not name the version found"; }
rm -rf "$w"
echo "PASS"
