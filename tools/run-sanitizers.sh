#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# run-sanitizers.sh: CI's second command. Two builds of the core and the
# native adapter, one with ASan+UBSan and one with TSan (configure
# --enable-sanitize), each running the core unit suites, the end-to-end
# suites and the stress program (tests/stress.c, with image churn). Any
# sanitizer report fails the run (halt_on_error, exit status checked).
#
#   sh tools/run-sanitizers.sh [asan|tsan|all]     (default all)
#
# Environment: SX_SAN_BUILDDIR (default _build-san), SX_STRESS_SECONDS
# (default 10 here), JOBS (make -j, default 2). About 15 minutes on 2 cores.
set -eu
S=$(cd "$(dirname "$0")/.." && pwd)
which=${1:-all}
base=${SX_SAN_BUILDDIR:-$S/_build-san}
jobs=${JOBS:-2}
stress_s=${SX_STRESS_SECONDS:-10}

# The sanitizer runtimes (gcc's) and the tools the e2e images need.
if [ "$(id -u)" = 0 ] && command -v apt-get > /dev/null; then
    missing=
    for p in libasan8 libubsan1 libtsan2 check clang-14 llvm-spirv-14 libffi-dev nettle-dev pkg-config; do
        dpkg -s "$p" > /dev/null 2>&1 || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing > /dev/null
    fi
fi
[ -x "$S/configure" ] || (cd "$S" && autoreconf -fi > /dev/null)

SUITES="tests/test-api tests/test-register tests/test-defects tests/test-ffk tests/e2e/test-e2e-ffk \
tests/e2e/test-e2e-dg tests/e2e/test-reliability tests/native/test-native-wg"
# The native adapter's compiled work-group images, linked without dlmopen:
# under the sanitizers too. Left out: linking per-work-item images, which
# needs a dlmopen namespace with its own libc (and so its own sanitizer
# runtime, which cannot work), and, under TSan, the 1000-program link (slow).
WG_KERNELS="tests/kernels/native-link-a.hso tests/kernels/native-link-b.hso tests/kernels/native-link-c.hso \
tests/kernels/native-wg.hso tests/kernels/native-wg-link-a.hso tests/kernels/native-wg-link-b.hso \
tests/kernels/native-wg-link-missing.hso tests/kernels/native-wg-bad1.hso tests/kernels/native-wg-bad2.hso \
tests/kernels/native-wg-bad3.hso tests/kernels/native-wg-bad4.hso tests/kernels/native-wg-bad5.hso \
tests/kernels/native-wg-bad6.hso tests/kernels/native-wg-bad7.hso"
TARGETS="$SUITES $WG_KERNELS tests/stress tests/e2e/ffk.sximg tests/e2e/dg.sximg tests/e2e/scope2.sximg tests/e2e/decomp-host.so \
adapters/native/sx-native-builtins.la tests/fake/fake-good.la tests/fake/fake-missing.la \
tests/fake/fake-wrongabi.la tests/fake/fake-initfails.la tests/fake/fake-undefined.la"

status=0
run_one() { # KIND SANITIZE
    kind=$1 san=$2 b=$base/$1
    mkdir -p "$b"
    echo "== $kind: configure --enable-sanitize=$san in $b"
    if [ ! -f "$b/Makefile" ]; then
        (cd "$b" && "$S/configure" -q --enable-silent-rules --enable-sanitize="$san" --disable-adapter-cuda \
            --disable-adapter-level-zero --disable-adapter-opencl CFLAGS="-O1 -g") > "$b/configure.out" 2>&1 ||
            { tail -n 20 "$b/configure.out"; return 1; }
    fi
    echo "== $kind: build"
    (cd "$b" && make -j"$jobs" $TARGETS > make.out 2>&1) || { tail -n 30 "$b/make.out"; return 1; }
    export SX_TEST_BUILDDIR=$b SX_TEST_SRCDIR=$S SX_ADAPTER_DIR=$b/tests/no-installed-adapters
    export SX_NATIVE_BUILTINS=$b/adapters/native/.libs/sx-native-builtins.so CK_DEFAULT_TIMEOUT=600
    export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:abort_on_error=0:exitcode=66
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=66
    export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:suppressions=$S/tools/tsan.supp"
    if [ "$kind" = tsan ]; then export NT_SKIP=linked_binary,wg_link_1000; else export NT_SKIP=linked_binary; fi
    fails=0
    for t in $SUITES; do
        if (cd "$b" && ./libtool --mode=execute "./$t") > "$b/run.out" 2>&1; then
            echo "PASS: $t ($kind)"
        else
            echo "FAIL: $t ($kind)"; tail -n 40 "$b/run.out"; fails=1
        fi
    done
    if (cd "$b" && SX_STRESS_SECONDS=$stress_s ./libtool --mode=execute ./tests/stress) > "$b/run.out" 2>&1; then
        echo "PASS: tests/stress ($kind, $stress_s s)"; sed -n '1,10p' "$b/run.out"
    else
        echo "FAIL: tests/stress ($kind)"; tail -n 60 "$b/run.out"; fails=1
    fi
    return $fails
}

case $which in
    asan | all) run_one asan address,undefined || status=1 ;;
esac
case $which in
    tsan | all) run_one tsan thread || status=1 ;;
esac
[ $status = 0 ] && echo "sanitizers: no report" || echo "sanitizers: FAILED"
exit $status
