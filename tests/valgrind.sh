#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# valgrind.sh: the core and end-to-end suites again under valgrind (no
# fork, so every allocation is seen): any error or definite leak fails.
set -u
b=${SX_TEST_BUILDDIR:-.}
[ -n "${VALGRIND:-}" ] && [ -x "$VALGRIND" ] || { echo "SKIP: valgrind not found"; exit 77; }
status=0
for t in tests/test-api tests/test-register tests/test-defects tests/test-fault-inject tests/test-ffk tests/e2e/test-e2e-ffk tests/e2e/test-e2e-dg tests/e2e/test-reliability tests/vf/test-vf tests/vf/test-vf-native tests/dpcpp/test-dpcpp-runtime; do
    [ -x "$b/$t" ] || { echo "skip $t (not built)"; continue; }
    log=$(mktemp)
    if CK_FORK=no SX_TEST_UNDER_VALGRIND=1 "$b/libtool" --mode=execute "$VALGRIND" -q --leak-check=full --errors-for-leak-kinds=definite \
        --error-exitcode=9 "$b/$t" > "$log" 2>&1; then
        echo "PASS: $t under valgrind"
    else
        echo "FAIL: $t under valgrind"; tail -n 40 "$log"; status=1
    fi
    rm -f "$log"
done
exit $status
