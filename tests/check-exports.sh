#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# check-exports.sh: the shared library exports exactly the SX_API
# functions the public headers declare, and no data objects.
set -eu
src=${SX_TEST_SRCDIR:-$(dirname "$0")/..}
lib=${SX_TEST_BUILDDIR:-.}/lib/.libs/libsycl-ext.so
[ -f "$lib" ] || { echo "SKIP: $lib not built"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Declarations: "SX_API <type> [*]name(" possibly across the type.
grep -h 'SX_API' "$src"/include/sycl-ext/*.h | grep -o 'sx_[a-z0-9_]*(' | tr -d '(' | sort -u > "$tmp/headers"
nm -D --defined-only "$lib" | awk '$2 != "A" {print $2, $3}' > "$tmp/all"
awk '{print $2}' "$tmp/all" | sed 's/@.*//' | sort -u > "$tmp/exports"
if awk '$1 ~ /^[BDGRSV]$/' "$tmp/all" | grep -q .; then
    echo "FAIL: exported data objects:"; awk '$1 ~ /^[BDGRSV]$/' "$tmp/all"; exit 1
fi
if ! diff -u "$tmp/headers" "$tmp/exports"; then
    echo "FAIL: exports differ from the SX_API declarations (- header only, + export only)"; exit 1
fi
# Every export carries the version node.
if nm -D --defined-only "$lib" | awk '$2 == "T"' | grep -v '@@SYCL_EXT_' | grep -q .; then
    echo "FAIL: unversioned exports"; exit 1
fi
# The DPC++ bridge: exactly its SX_DPCPP_API declarations (issue 27).
bridge=${SX_TEST_BUILDDIR:-.}/dpcpp/.libs/libsycl-ext-dpcpp.so
if [ -f "$bridge" ]; then
    grep -h 'SX_DPCPP_API [a-z]' "$src"/include/sycl-ext/dpcpp.h | grep -o '[a-z_][a-z0-9_]*(' | tr -d '(' | sort -u > "$tmp/bh"
    nm -D --defined-only "$bridge" | awk '$2 == "T" {print $3}' | sed 's/@.*//' | sort -u > "$tmp/be"
    diff -u "$tmp/bh" "$tmp/be" || { echo "FAIL: libsycl-ext-dpcpp.so's exports differ from SX_DPCPP_API"; exit 1; }
fi
echo "PASS: $(wc -l < "$tmp/exports") exports match the headers"
