#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tests/build-deps.sh: a path configure chose and an object compiled in is
# rebuilt when a reconfigure changes it. A scratch build directory is
# configured with one --prefix, the native adapter (which loads its
# builtins module from the installed adapter directory) built, then the
# directory reconfigured with another --prefix and built again: the objects
# holding the path are rebuilt and hold the new one, an object that does
# not hold it is not rebuilt, and a make with nothing changed rebuilds
# nothing. (Before: the old builtins path stayed in the adapter, which
# failed only at its first launch.)
set -u
b=${SX_TEST_BUILDDIR:?} s=${SX_TEST_SRCDIR:?}
[ -x "$s/configure" ] || { echo "SKIP: $s/configure not generated"; exit 77; }
if [ -f "$s/config.status" ]; then
    echo "SKIP: the source tree is configured in place; an out-of-tree build beside it is refused"
    exit 77
fi
w=$b/tests/build-deps-work
rm -rf "$w" && mkdir -p "$w/bld"
fail() { echo "FAIL: $*"; exit 1; }
conf() { # PREFIX
    ( cd "$w/bld" && "$s/configure" --prefix="$1" --enable-silent-rules --disable-adapter-opencl \
        --disable-adapter-cuda --disable-adapter-level-zero --without-llvm-config ) >"$w/configure.log" 2>&1 ||
        { tail -n 30 "$w/configure.log"; fail "configure --prefix=$1"; }
}
target=adapters/native/sx-adapter-native.la
mk() { make -C "$w/bld" "$target" >"$w/make.log" 2>&1 || { tail -n 30 "$w/make.log"; fail "make $target"; }; }
so=$w/bld/adapters/native/.libs/sx-adapter-native.so
uses=$w/bld/adapters/native/sx_adapter_native_la-program.lo      # compiles in SX_ADAPTER_DIR
other=$w/bld/adapters/native/sx_adapter_native_la-fiber.lo       # does not

conf "$w/p1"
mk
for f in "$uses" "$other" "$so"; do [ -f "$f" ] || fail "$f was not built (object names changed? update this test)"; done
grep -q "$w/p1/lib/sycl-ext/sx-native-builtins.so" "$so" || fail "the adapter does not hold the first prefix's builtins path"
touch "$w/stamp0"
sleep 1
mk
[ "$uses" -nt "$w/stamp0" ] && fail "make with nothing changed rebuilt $uses"
[ "$so" -nt "$w/stamp0" ] && fail "make with nothing changed relinked the adapter"
conf "$w/p2"
mk
[ "$uses" -nt "$w/stamp0" ] || fail "reconfigured with another --prefix: $uses was not rebuilt"
[ "$other" -nt "$w/stamp0" ] && fail "reconfigured with another --prefix: $other (no path in it) was rebuilt"
grep -q "$w/p2/lib/sycl-ext/sx-native-builtins.so" "$so" || fail "after the reconfigure the adapter lacks the new builtins path"
grep -q "$w/p1/lib/sycl-ext" "$so" && fail "after the reconfigure the adapter still holds the old path"
rm -rf "$w"
echo "reconfigured with another --prefix: the objects holding the path rebuilt, the others not"
