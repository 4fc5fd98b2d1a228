#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# sx-info-isolate.sh: an adapter that crashes in its init: plain sx-info
# names it (the last line printed before the crash), and sx-info --isolate
# reports it as CRASHED while the others are still listed.
set -u
b=${SX_TEST_BUILDDIR:-.}
crash=$b/tests/fake/.libs/fake-initcrashes.so
[ -f "$crash" ] || { echo "SKIP: $crash not built"; exit 77; }
info="$b/libtool --mode=execute $b/tools/sx-info"
out=$(SX_ADAPTERS="native,$crash" $info 2>&1)
rc=$?
echo "$out"
[ $rc -ne 0 ] || { echo "FAIL: sx-info survived a crashing adapter?"; exit 1; }
echo "$out" | tail -n 1 | grep -q "trying fake-initcrashes" || { echo "FAIL: the crashing adapter is not the last line"; exit 1; }
out=$(SX_ADAPTERS="native,$crash" $info --isolate 2>&1)
rc=$?
echo "$out"
[ $rc -eq 3 ] || { echo "FAIL: sx-info --isolate exited $rc (want 3)"; exit 1; }
echo "$out" | grep -q "CRASHED .*fake-initcrashes.so" || { echo "FAIL: no CRASHED line"; exit 1; }
echo "$out" | grep -q "native  *ok" || { echo "FAIL: native not listed as ok"; exit 1; }
echo "PASS"
