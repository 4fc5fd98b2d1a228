#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tests/hostile-env.sh: tests are hermetic against the caller's environment.
# Runs tests that read the environment (the loader, the API, the native
# device, virtual functions with the persistent cache, OpenCL through the
# ICD loader, sx-info, the installed CMake package) under a caller's
# environment that would break each of them: another libsycl-ext first on
# LD_LIBRARY_PATH and in LD_PRELOAD, every SX_* variable of the README set
# to something wrong, the ICD loader pointed elsewhere, XDG_CACHE_HOME
# unwritable. The harness (tests/test-env.sh) must clear or override all of
# it, exactly as `make check` runs them.
#   SX_HOSTILE_TESTS="tests/test-api ..." picks others.
set -u
b=${SX_TEST_BUILDDIR:?} s=${SX_TEST_SRCDIR:?}
w=$b/tests/hostile-work
rm -rf "$w" && mkdir -p "$w/lib"
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || { echo "SKIP: no C compiler to build the impostor libsycl-ext"; exit 77; }

# An impostor libsycl-ext.so.1 and trace library: a program that calls
# into either (instead of the build's library) ends with status 99 and
# says so; a program linked with libsycl-ext cannot even start on the
# impostor (its other symbols are missing).
cat >"$w/impostor.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
static void impostor(void)
{
    fputs("HOSTILE: the caller's libsycl-ext was called\n", stderr);
    exit(99);
}
int sx_init(unsigned flags) { (void)flags; impostor(); return 0; }
int sx_register_images(const void *b) { (void)b; impostor(); return 0; }
int sx_image_file_load(const char *p, void *f) { (void)p; (void)f; impostor(); return 0; }
int sxa_get_proc_table(unsigned v, unsigned id, void *t) { (void)v; (void)id; (void)t; impostor(); return 0; }
EOF
"$cc" -shared -fPIC -Wl,-soname,libsycl-ext.so.1 "$w/impostor.c" -o "$w/lib/libsycl-ext.so.1" &&
    ln -s libsycl-ext.so.1 "$w/lib/libsycl-ext.so" &&
    "$cc" -shared -fPIC "$w/impostor.c" -o "$w/lib/libsycl-ext-trace.so" ||
    { echo "FAIL: cannot build the impostor library"; exit 1; }
mkdir -p "$w/lib/sycl-ext" "$w/icd"
cp "$w/lib/libsycl-ext.so.1" "$w/lib/sycl-ext/sx-adapter-native.so"
cp "$w/lib/libsycl-ext.so.1" "$w/lib/sycl-ext/sx-adapter-opencl.so"
echo "$w/lib/libsycl-ext.so.1" >"$w/icd/impostor.icd"
ro=$w/read-only && mkdir -p "$ro" && chmod 0555 "$ro"

# The proof that test-env.sh leaves none of it: the environment it makes.
hostile() {
    env LD_LIBRARY_PATH="$w/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        LD_PRELOAD="$w/lib/libsycl-ext-trace.so" \
        SX_ADAPTERS="$w/lib/sycl-ext/sx-adapter-opencl.so" SX_ADAPTERS_PATH="$w/lib/sycl-ext" \
        SX_ADAPTER_DIR="$w/lib/sycl-ext" SX_ADAPTERS_EAGER=1 SX_DEVICE_SELECTOR='level_zero:gpu' \
        SX_TRACE=1 SX_LOG=debug SX_NATIVE_BUILTINS="$w/lib/libsycl-ext.so.1" SX_NATIVE_HIDE_ASPECTS=fp64,atomic64 \
        SX_NATIVE_THREADS=1 SX_NATIVE_STACK_SIZE=1 SX_NATIVE_WG_TABLE=base \
        SX_OPENCL_LOADER="$w/lib/libsycl-ext.so.1" SX_CUDA_LIBRARY="$w/lib/libsycl-ext.so.1" \
        SX_ZE_LOADER="$w/lib/libsycl-ext.so.1" SX_CACHE=0 SX_CACHE_DIR="$ro" SX_CACHE_MAX_SIZE=1 \
        SX_OPENCL_SERIALIZE=1 SX_OPENCL_PLATFORM=no-such-platform SX_OPENCL_HIDE_ASPECTS=6,8 \
        SX_CUDA_SMALL_WRITES=copy SX_TRACE_API=1 SX_TRACE_FILE="$ro/trace.log" \
        OCL_ICD_VENDORS="$w/icd" OCL_ICD_FILENAMES="$w/lib/libsycl-ext.so.1" POCL_DEVICES=no-such-device \
        XDG_CACHE_HOME="$ro" CK_RUN_SUITE=no-such-suite CK_FORK=no \
        SX_TEST_BUILDDIR="$b" SX_TEST_SRCDIR="$s" \
        sh -c '. "$SX_TEST_SRCDIR/tests/test-env.sh"; exec "$@"' hostile "$@"
}
bad=0
hostile env >"$w/env.txt" 2>&1 || { cat "$w/env.txt"; echo "FAIL: env under test-env.sh"; exit 1; }
for v in SX_ADAPTERS SX_ADAPTERS_PATH SX_ADAPTERS_EAGER SX_DEVICE_SELECTOR SX_TRACE SX_LOG SX_NATIVE_HIDE_ASPECTS \
    SX_NATIVE_THREADS SX_NATIVE_STACK_SIZE SX_NATIVE_WG_TABLE SX_OPENCL_LOADER SX_CUDA_LIBRARY SX_ZE_LOADER SX_CACHE \
    SX_CACHE_MAX_SIZE SX_OPENCL_SERIALIZE SX_OPENCL_PLATFORM SX_OPENCL_HIDE_ASPECTS SX_CUDA_SMALL_WRITES SX_TRACE_API \
    SX_TRACE_FILE OCL_ICD_VENDORS OCL_ICD_FILENAMES POCL_DEVICES CK_RUN_SUITE CK_FORK LD_PRELOAD; do
    grep -q "^$v=" "$w/env.txt" && { echo "FAIL: test-env.sh keeps the caller's $(grep "^$v=" "$w/env.txt")"; bad=1; }
done
grep "^LD_LIBRARY_PATH=" "$w/env.txt" | grep -q "$w/lib" && { echo "FAIL: LD_LIBRARY_PATH keeps $w/lib"; bad=1; }
for v in SX_ADAPTER_DIR SX_CACHE_DIR SX_NATIVE_BUILTINS XDG_CACHE_HOME; do
    grep "^$v=" "$w/env.txt" | grep -q "=$b/" || { echo "FAIL: $v is not the build tree's: $(grep "^$v=" "$w/env.txt")"; bad=1; }
done

# Then the tests themselves.
tests=${SX_HOSTILE_TESTS:-"tests/test-loader tests/test-api tests/native/test-native-api tests/sx-info-isolate.sh
    tests/native-builtins/bt-c11 tests/vf/test-vf tests/opencl/e2e.sh tests/cmake/install.sh"}
ran=0
for t in $tests; do
    p=$b/$t
    [ -x "$p" ] || p=$s/$t
    [ -x "$p" ] || { echo "(not built: $t)"; continue; }
    hostile "$p" >"$w/$(basename "$t").log" 2>&1
    rc=$?
    case $rc in
    0) echo "PASS under a hostile environment: $t"; ran=$((ran + 1)) ;;
    77) echo "SKIP ($t skipped itself): $(tail -n 1 "$w/$(basename "$t").log")" ;;
    *) echo "FAIL under a hostile environment: $t (exit $rc)"; tail -n 15 "$w/$(basename "$t").log"; bad=1 ;;
    esac
done
[ $ran -gt 0 ] || [ $bad -ne 0 ] || { echo "SKIP: none of the tests ran"; exit 77; }
exit $bad
