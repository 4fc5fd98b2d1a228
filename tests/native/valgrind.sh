#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# valgrind.sh: the native adapter's suites again under valgrind, without
# fork so every allocation is seen: any error or definite leak fails.
# "structs" is left out: memcheck reports a value a kernel read from a
# struct passed in memory by libffi 3.4's ffi_call as uninitialised
# (reproduced with libffi alone, no libsycl-ext code involved), and
# "link_many" fills glibc's link namespaces and "wg_link_1000" links a
# thousand programs, which is slow under valgrind.
set -u
b=${SX_TEST_BUILDDIR:-.}
[ -n "${VALGRIND:-}" ] && [ -x "$VALGRIND" ] || { echo "SKIP: valgrind not found"; exit 77; }
status=0
for t in tests/native/test-native-api tests/native/test-native-abi tests/native/test-native-wg; do
    [ -x "$b/$t" ] || { echo "SKIP: $t not built"; exit 77; }
    log=$(mktemp)
    if CK_FORK=no NT_SKIP=structs,link_many,wg_link_1000 "$b/libtool" --mode=execute "$VALGRIND" -q \
        --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 "$b/$t" > "$log" 2>&1; then
        echo "PASS: $t under valgrind"
    else
        echo "FAIL: $t under valgrind"; tail -n 40 "$log"; status=1
    fi
    rm -f "$log"
done
exit $status
