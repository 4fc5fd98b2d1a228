#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# loader-bare-name.sh: issue 26, finding 10: SX_ADAPTERS with a bare name
# means that file in the current directory, the one the loader checked;
# never a file dlopen would find through LD_LIBRARY_PATH (before: the
# check saw ./NAME missing or different, and dlopen loaded the other).
set -u
b=${SX_TEST_BUILDDIR:-.}
good=$b/tests/fake/.libs/fake-good.so
[ -f "$good" ] || { echo "SKIP: $good not built"; exit 77; }
info="$b/libtool --mode=execute $b/tools/sx-info"
tmp=$(mktemp -d /tmp/sx-bare-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/libs" "$tmp/cwd"
cp "$good" "$tmp/libs/sx-adapter-evil.so"
# Not in the current directory, only on LD_LIBRARY_PATH: not loaded.
out=$(cd "$tmp/cwd" && LD_LIBRARY_PATH="$tmp/libs" SX_ADAPTERS=sx-adapter-evil.so $info 2>&1)
echo "$out"
echo "$out" | grep -q "cannot open sx-adapter-evil.so" || { echo "FAIL: a bare name was searched for"; exit 1; }
if echo "$out" | grep -q "fake  *ok"; then echo "FAIL: the LD_LIBRARY_PATH copy was loaded"; exit 1; fi
# In the current directory: that file is loaded.
cp "$good" "$tmp/cwd/sx-adapter-evil.so"
out=$(cd "$tmp/cwd" && LD_LIBRARY_PATH="$tmp/libs" SX_ADAPTERS=sx-adapter-evil.so $info 2>&1)
echo "$out"
echo "$out" | grep -q "fake  *ok  *$tmp/cwd/sx-adapter-evil.so" || { echo "FAIL: ./sx-adapter-evil.so not loaded"; exit 1; }
echo "PASS"
