#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# abi-headers.sh: the promises of doc/abi.md that the headers and the
# library file carry: SONAME libsycl-ext.so.N with N = libtool current - age,
# one version node per release in the map, every public header compiles
# alone as ISO C11 (and C++ where a compiler is there), and no C enum type
# crosses the ABI (enum constants only; values travel as fixed-width
# typedefs, which test-layout checks by type).
set -u
B=${SX_TEST_BUILDDIR:-.}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$B/tests/abi/config.sh"
lib=$B/lib/.libs/libsycl-ext.so
[ -f "$lib" ] || { echo "SKIP: $lib not built"; exit 77; }
fail=0 pass=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-abi.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# SONAME from the libtool version: current:revision:age -> .so.(current - age)
cur=${SX_LT_VERSION%%:*}
age=${SX_LT_VERSION##*:}
want="libsycl-ext.so.$((cur - age))"
soname=$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$soname" = "$want" ]; then ok "SONAME $soname (libtool $SX_LT_VERSION)"; else ko "SONAME '$soname', expected $want"; fi

# The version script: nodes named SYCL_EXT_<major>.<minor>, each inheriting the one before.
nodes=$(sed -n 's/^\(SYCL_EXT_[0-9][0-9]*\.[0-9][0-9]*\) *{.*/\1/p' "$S/lib/libsycl-ext.map")
bad=$(grep -n '^[A-Za-z_].*{' "$S/lib/libsycl-ext.map" | grep -v '^[0-9]*:SYCL_EXT_[0-9]*\.[0-9]* *{' || true)
if [ -n "$nodes" ] && [ -z "$bad" ]; then ok "version nodes: $(echo $nodes)"; else ko "version script nodes: '$nodes' $bad"; fi
vers=$(nm -D --defined-only "$lib" | sed -n 's/.*@@\(SYCL_EXT_[0-9.]*\)$/\1/p' | sort -u)
for v in $vers; do
    echo "$nodes" | grep -qx "$v" || ko "export version $v is not a node of lib/libsycl-ext.map"
done
[ -n "$vers" ] && ok "exports carry the map's nodes: $(echo $vers)"

# No C enum type in the public headers: anonymous enums of constants only.
if sed 's|/\*.*\*/||g; s|/\*.*||; /^ *\*/d' "$S"/include/sycl-ext/*.h | grep -nE '(^|[^A-Za-z_])enum[[:space:]]+[A-Za-z_]'; then
    ko "a named enum type in a public header (values must travel as fixed-width typedefs)"
else
    ok "no named enum type in the public headers"
fi
# A typedef that names an enum's constants is a fixed-width integer.
if $AWK '/^typedef .*;/ {t = $0; n = NR} /^enum *\{/ && n == NR - 1 && t !~ /^typedef u?int(8|16|32|64)_t [a-z_]+;/ {print FILENAME ": " t; bad = 1} END {exit bad}' \
        "$S"/include/sycl-ext/*.h; then
    ok "every typedef before an enum is a fixed-width integer"
else
    ko "an enum's typedef is not fixed-width"
fi

# Each header alone, strict ISO C11 (and C++11).
for h in sx.h types.h binaries.h device-global.h adapter.h; do
    printf '#include <sycl-ext/%s>\nint sx_abi_header_check;\n' "$h" > "$tmp/h.c"
    if $CC -std=c11 -pedantic-errors -Wall -Wextra -Werror -I"$S/include" -I"$B/include" -c "$tmp/h.c" -o "$tmp/h.o" 2> "$tmp/err"; then
        ok "$h compiles alone as ISO C11 (-pedantic-errors)"
    else
        cat "$tmp/err"; ko "$h as ISO C11"
    fi
    if command -v c++ >/dev/null 2>&1; then
        cp "$tmp/h.c" "$tmp/h.cc"
        if c++ -std=c++11 -pedantic-errors -Wall -Wextra -Werror -I"$S/include" -I"$B/include" -c "$tmp/h.cc" -o "$tmp/h.o" 2> "$tmp/err"; then
            ok "$h compiles alone as C++11"
        else
            cat "$tmp/err"; ko "$h as C++11"
        fi
    fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
