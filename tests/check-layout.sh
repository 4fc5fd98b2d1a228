#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# check-layout.sh: the top-level layout the product names (issue 15, defect
# 6): local macros and libtool's live in m4/, which configure.ac and
# Makefile.am name, and the tree's other top-level directories exist.
set -u
src=${SX_TEST_SRCDIR:-.}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
for d in m4 include/sycl-ext lib adapters proptool tests bench examples; do
    [ -d "$src/$d" ] || bad "no $d/ in $src"
done
grep -q '^AC_CONFIG_MACRO_DIRS(\[m4\])' "$src/configure.ac" || bad "configure.ac does not say AC_CONFIG_MACRO_DIRS([m4])"
grep -q '^ACLOCAL_AMFLAGS = -I m4' "$src/Makefile.am" || bad "Makefile.am does not say ACLOCAL_AMFLAGS = -I m4"
[ -f "$src/m4/sx-sanitize.m4" ] || bad "the project's own macro m4/sx-sanitize.m4 is missing"
# libtoolize copies its macros there (autoreconf -fi), never to the top level.
[ -f "$src/m4/libtool.m4" ] || bad "m4/libtool.m4 missing: was configure made with autoreconf -fi?"
for f in "$src"/*.m4; do
    [ -e "$f" ] && [ "$(basename "$f")" != aclocal.m4 ] && bad "macro file $f at the top level (belongs in m4/)"
done
[ "$fail" = 0 ] && echo "layout: m4/ holds the macros; configure.ac and Makefile.am name it"
exit $fail
