#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# run-drivers.sh PROGRAM: run one OpenCL test program on PoCL, on Oclgrind
# and on Intel's CPU OpenCL runtime (installed from PyPI into the build by
# tools/intel-opencl.sh), each through its own OCL_ICD_VENDORS directory.
# PASS if every run passed or skipped and one passed; SKIP (77) if all
# skipped; FAIL otherwise. Each run's skip reason is printed.
# SX_OCL_DRIVERS="pocl intel" picks among them.
set -u
prog=$1
build=${SX_TEST_BUILDDIR:-.}
bin=$build/tests/opencl/$prog
if [ ! -x "$bin" ]; then
    echo "SKIP: $bin not built (Check missing?)"
    exit 77
fi
if [ ! -f "$build/tests/kernels/ocl-basic.spv" ]; then
    echo "SKIP: test kernels not built (no clang-14 / llvm-spirv-14)"
    exit 77
fi
export SXO_TEST_ADAPTER="$build/adapters/opencl/.libs/sx-adapter-opencl.so"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-ocl.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

# PoCL: its own .icd file from the system's vendor directory.
mkdir -p "$tmp/pocl" "$tmp/oclgrind"
intel_why=
for icd in /etc/OpenCL/vendors/*.icd; do
    [ -f "$icd" ] && grep -qi pocl "$icd" && cp "$icd" "$tmp/pocl/"
done
# Oclgrind installs no .icd file: write one.
for so in /usr/lib/oclgrind/liboclgrind-rt-icd.so /usr/lib/*/oclgrind/liboclgrind-rt-icd.so \
          /usr/local/lib/oclgrind/liboclgrind-rt-icd.so /usr/local/lib/liboclgrind-rt-icd.so; do
    if [ -f "$so" ]; then echo "$so" > "$tmp/oclgrind/oclgrind.icd"; break; fi
done
# Intel's CPU runtime: the .icd file tools/intel-opencl.sh wrote, or why not.
intel_dir=$(cd "$build" && pwd)/intel-opencl
if [ -f "$intel_dir/vendors/intel-cpu.icd" ]; then
    ln -s "$intel_dir/vendors" "$tmp/intel"
elif [ -f "$intel_dir/UNAVAILABLE" ]; then
    intel_why=$(cat "$intel_dir/UNAVAILABLE")
else
    intel_why="not installed (tools/intel-opencl.sh $build installs it; README's test command runs it)"
fi

# SX_TEST_VALGRIND=1: run under valgrind (no fork, our suppressions).
vg=
if [ -n "${SX_TEST_VALGRIND:-}" ] && [ -n "${VALGRIND:-}" ]; then
    vg="$VALGRIND -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite \
--suppressions=${SX_TEST_SRCDIR:-.}/tests/opencl/valgrind.supp"
    export CK_FORK=no
    # ocl-api is a libtool wrapper script: let libtool run the real binary.
    [ -x "$build/libtool" ] && vg="$build/libtool --mode=execute $vg"
fi

passed=0 failed=0
for driver in ${SX_OCL_DRIVERS:-pocl oclgrind intel}; do
    if ! ls "$tmp/$driver"/*.icd >/dev/null 2>&1; then
        if [ "$driver" = intel ]; then
            echo "== intel: SKIP: Intel CPU OpenCL runtime: $intel_why"
        else
            echo "== $driver: SKIP: not installed (no ICD for it found)"
        fi
        continue
    fi
    echo "== $driver ($(cat "$tmp/$driver"/*.icd))"
    # Oclgrind leaks at exit (~138 KB): leak checks off for its runs only.
    if [ "$driver" = oclgrind ]; then
        ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS} OCL_ICD_VENDORS="$tmp/$driver" $vg "$bin"
    else
        OCL_ICD_VENDORS="$tmp/$driver" $vg "$bin"
    fi
    rc=$?
    case $rc in
        0) echo "== $driver: PASS"; passed=$((passed + 1)) ;;
        77) echo "== $driver: SKIP" ;;
        *) echo "== $driver: FAIL ($rc)"; failed=$((failed + 1)) ;;
    esac
done
[ "$failed" -gt 0 ] && exit 1
[ "$passed" -gt 0 ] && exit 0
exit 77
