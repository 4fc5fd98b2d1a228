#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# The builtin library against its table (clang-14's own declarations):
# every in-scope overload must be exported by sx-native-builtins.so under
# the mangled name clang gives a host-built caller, and we count how many of
# them the test kernels of make check call (bt-*.hso: compared with PoCL or
# the specification; native-*.hso: the work-item and barrier tests).
top="${SX_TEST_SRCDIR:-.}"
bld="${SX_TEST_BUILDDIR:-.}"
table="$top/adapters/native/builtins.tsv"
mod="${SX_NATIVE_BUILTINS:-$bld/adapters/native/.libs/sx-native-builtins.so}"
command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
[ -f "$mod" ] || { echo "SKIP: $mod not built"; exit 77; }
for f in bt-cl20.hso bt-cl12.hso bt-c11.hso; do
    [ -f "$bld/tests/kernels/$f" ] || { echo "SKIP: $f not built (no clang-14?)"; exit 77; }
done
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
grep -v '^#' "$table" | cut -f2 | sort -u > "$tmp/listed"
nm -D --defined-only "$mod" | awk '{print $3}' | sort -u > "$tmp/exported"
comm -23 "$tmp/listed" "$tmp/exported" > "$tmp/missing"
if [ -s "$tmp/missing" ]; then
    echo "FAIL: $(wc -l < "$tmp/missing") overloads of the table are not exported by $mod:"
    head -20 "$tmp/missing"
    exit 1
fi
for f in "$bld"/tests/kernels/bt-*.hso "$bld"/tests/kernels/native-*.hso; do
    nm -D --undefined-only "$f" | awk '{print $2}'
done | sort -u > "$tmp/called"
# every import of the test kernels must be a builtin of the table or libc
comm -12 "$tmp/listed" "$tmp/called" > "$tmp/covered"
listed=$(wc -l < "$tmp/listed")
covered=$(wc -l < "$tmp/covered")
echo "builtin overloads: $listed listed, all exported; $covered called by the test kernels ($covered / $listed)"
comm -23 "$tmp/listed" "$tmp/covered" > "$tmp/uncalled"
if [ -s "$tmp/uncalled" ]; then
    echo "not called by a test kernel:"
    grep -v '^#' "$table" | sort -t "$(printf '\t')" -k2,2 | join -t "$(printf '\t')" -1 1 -2 2 "$tmp/uncalled" - |
        cut -f4 | sort | uniq -c | sort -rn | head -20
fi
# A test that cannot fail is a defect: the figure must not fall below this.
[ "$covered" -ge 10000 ] || { echo "FAIL: coverage fell to $covered"; exit 1; }
