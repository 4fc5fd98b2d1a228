#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# wg-cache.sh: a linked program of compiled work-group images lands in the
# persistent program cache: the first process links (program.link in the
# SX_TRACE log of adapter calls), a second process's first launch of the
# same kernel builds it from the cached binary with no program.link, and
# both get right results. A damaged cache entry is refused and relinked.
set -u
run=${SX_TEST_BUILDDIR:-.}/tests/native/wg-cache-run
[ -x "$run" ] || { echo "SKIP: $run not built"; exit 77; }
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
export SX_CACHE_DIR="$dir/cache" SX_TRACE=1 SX_LOG=info
unset SX_CACHE
fail() { echo "FAIL: $*"; sed 's/^/  | /' "$dir/out"; exit 1; }

"$run" > "$dir/out" 2>&1; rc=$?
[ $rc = 77 ] && { cat "$dir/out"; exit 77; }
[ $rc = 0 ] || fail "first process exited $rc"
grep -q 'program.link -> SX_SUCCESS' "$dir/out" || fail "the first process did not link"
grep -q 'results checked' "$dir/out" || fail "first process: no checked results"
ls "$dir/cache" > /dev/null 2>&1 || fail "nothing written to the cache"

"$run" > "$dir/out" 2>&1 || fail "second process exited $?"
grep -q 'program.link' "$dir/out" && fail "the second process linked again"
grep -q 'program.create -> SX_SUCCESS' "$dir/out" || fail "the second process created no program"
grep -q 'results checked' "$dir/out" || fail "second process: no checked results"

# a damaged entry: refused with a clear error, linked again, results right
for f in $(find "$dir/cache" -type f); do
    printf 'SXNATLNK\001\000\000\000\377\377' | dd of="$f" bs=1 seek=64 conv=notrunc 2> /dev/null
done
"$run" > "$dir/out" 2>&1 || fail "process with a damaged cache exited $?"
grep -q 'results checked' "$dir/out" || fail "damaged cache: no checked results"
echo "PASS: second process built the linked program from the cache without program.link"
