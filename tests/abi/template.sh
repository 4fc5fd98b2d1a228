#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# template.sh: adapters/template/template.c compiles with nothing but
# include/ on the include path (strict ISO C11, warnings as errors), links
# exporting one symbol, and sx-adapter-cts passes it: every check passes
# except the device checks, skipped because it has 0 platforms.
set -u
B=${SX_TEST_BUILDDIR:-.}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$B/tests/abi/config.sh"
cts=$B/tools/sx-adapter-cts
[ -x "$cts" ] || { echo "SKIP: $cts not built"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-tmpl.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
# Only the source tree's include/: not the build's (version.h), not lib/.
if ! $CC -std=c11 -pedantic-errors -Wall -Wextra -Wno-unused-parameter -Werror -fPIC -shared -fvisibility=hidden \
        -I"$S/include" "$S/adapters/template/template.c" \
        -Wl,--version-script="$S/adapters/adapter.map" -Wl,--no-undefined -o "$tmp/sx-adapter-template.so"; then
    echo "FAIL: the template does not compile against include/sycl-ext/adapter.h alone"
    exit 1
fi
echo "PASS: compiled with -I include only"
out=$("$cts" "$tmp/sx-adapter-template.so"); rc=$?
echo "$out"
[ $rc -eq 0 ] || exit 1
skips=$(echo "$out" | grep '^SKIP' | grep -v '0 platforms' || true)
[ -z "$skips" ] || { echo "FAIL: unexpected skips: $skips"; exit 1; }
echo "$out" | grep -q '^PASS loader.adapter' || { echo "FAIL: the core's loader did not take it"; exit 1; }
