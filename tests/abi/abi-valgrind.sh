#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# abi-valgrind.sh: the registration-order suite (no fork, so plugins and
# constructors run in the process valgrind watches), sx-adapter-cts on the
# native module, and an application with the trace layer preloaded, under
# valgrind: any error or definite leak fails.
set -u
B=${SX_TEST_BUILDDIR:-.}
[ -n "${VALGRIND:-}" ] && [ -x "$VALGRIND" ] || { echo "SKIP: valgrind not found"; exit 77; }
vg="$VALGRIND -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9"
status=0
run() { # NAME COMMAND...
    name=$1
    shift
    log=$(mktemp)
    if "$@" > "$log" 2>&1; then
        echo "PASS: $name under valgrind"
    else
        echo "FAIL: $name under valgrind"; tail -n 40 "$log"; status=1
    fi
    rm -f "$log"
}
if [ -x "$B/tests/abi/test-order" ]; then
    # A libtool wrapper: --mode=execute puts valgrind on the real program.
    run test-order env CK_FORK=no SX_ADAPTERS=native "$B/libtool" --mode=execute $vg "$B/tests/abi/test-order"
fi
run "sx-adapter-cts on the native module" $vg "$B/tools/sx-adapter-cts" "$B/adapters/native/.libs/sx-adapter-native.so"
run "swap-app with libsycl-ext-trace.so preloaded" env SX_ADAPTERS=native SX_TRACE_FILE=/dev/null \
    $vg --trace-children=yes env LD_PRELOAD="$B/trace/.libs/libsycl-ext-trace.so" \
    "$B/tests/abi/swap-app" "$B/tests/abi/abi-a.sximg"
exit $status
