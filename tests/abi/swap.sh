#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# swap.sh: the runtime swap. swap-app is built once against this build's
# library installed in one place; a second build of the library (another
# configure: -O0, no vendor adapters) is installed in another; the same
# binary then runs on the first, on the second through LD_PRELOAD and on
# the second through LD_LIBRARY_PATH, and must print the same results.
# The second build reuses nothing but the sources (a VPATH configure +
# make of the library alone, about a minute on two cores).
set -u
B=$(cd "${SX_TEST_BUILDDIR:-.}" && pwd)
S=$(cd "${SX_TEST_SRCDIR:-$(dirname "$0")/../..}" && pwd)
. "$B/tests/abi/config.sh"
img=$B/tests/abi/abi-a.sximg
[ -f "$img" ] || { echo "SKIP: $img not built"; exit 77; }
if [ -f "$S/config.status" ]; then
    echo "SKIP: the source tree is configured in place: a second VPATH build of it is impossible"
    exit 77
fi
W=$B/tests/abi/swap
rm -rf "$W"
mkdir -p "$W"
[ -n "${SX_TEST_KEEP:-}" ] || trap 'rm -rf "$W"' EXIT INT TERM
unset MAKEFLAGS MFLAGS MAKELEVEL
fail=0 pass=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# 1: this build, installed (library, adapters, headers) under a DESTDIR.
if ! (cd "$B" && $MAKE -s install-libLTLIBRARIES install-adapterLTLIBRARIES install-syclextincHEADERS \
        install-nodist_syclextincHEADERS DESTDIR="$W/one") > "$W/install1.log" 2>&1; then
    cat "$W/install1.log"; echo "FAIL: make install into $W/one"; exit 1
fi
lib1=$(dirname "$(find "$W/one" -name 'libsycl-ext.so.*' -type f | head -n 1)")
inc1=$(dirname "$(find "$W/one" -name sx.h | head -n 1)")/..
builtins1=$(find "$W/one" -name sx-native-builtins.so | head -n 1)

# 2: a second build, configured differently, installed under another prefix.
mkdir -p "$W/build2"
if ! (cd "$W/build2" && "$S/configure" -q --prefix="$W/two" --disable-adapter-opencl --disable-adapter-cuda \
        --disable-adapter-level-zero CFLAGS=-O0 > ../configure2.log 2>&1 &&
      $MAKE -s lib/libsycl-ext.la adapters/native/sx-native-builtins.la > ../make2.log 2>&1 &&
      $MAKE -s install-libLTLIBRARIES install-adapterLTLIBRARIES >> ../make2.log 2>&1); then
    tail -n 30 "$W/configure2.log" "$W/make2.log"; echo "FAIL: second build"; exit 1
fi
so=$(basename "$(find "$W/two/lib" -maxdepth 1 -name 'libsycl-ext.so.*' -type f | head -n 1)")
soname=$(readelf -d "$lib1/$so" | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
lib2=$W/two/lib
builtins2=$(find "$W/two" -name sx-native-builtins.so | head -n 1)
if cmp -s "$lib1/$so" "$lib2/$so"; then ko "the two builds are the same file"; else ok "two different builds of $soname"; fi

# The application: built once, against the first install only.
if ! $CC -I"$inc1" -o "$W/app" "$S/tests/abi/swap-app.c" -L"$lib1" -lsycl-ext -Wl,-rpath,"$lib1" 2> "$W/cc.err"; then
    cat "$W/cc.err"; echo "FAIL: building the application"; exit 1
fi
needed=$(readelf -d "$W/app" | sed -n 's/.*Shared library: \[\(libsycl-ext[^]]*\)\].*/\1/p')
if [ "$needed" = "$soname" ]; then ok "the application needs $needed"; else ko "the application needs '$needed', not $soname"; fi

export SX_ADAPTERS=native
run() { # NAME BUILTINS ENV...
    name=$1 bi=$2
    shift 2
    env SX_NATIVE_BUILTINS="$bi" "$@" "$W/app" "$img" > "$W/$name.out" 2> "$W/$name.err"
}
check_file() { # NAME DIR
    got=$(sed -n 's/^library file: //p' "$W/$1.err")
    case $got in
        "$2"/*) ok "$1: runs on $got" ;;
        *) cat "$W/$1.err"; ko "$1: ran on '$got', expected a file in $2" ;;
    esac
}
run first "$builtins1" || { cat "$W/first.err"; ko "the application on its own library"; }
check_file first "$lib1"
run preload "$builtins2" LD_PRELOAD="$lib2/$soname" || { cat "$W/preload.err"; ko "LD_PRELOAD run"; }
check_file preload "$lib2"
run path "$builtins2" LD_LIBRARY_PATH="$lib2" || { cat "$W/path.err"; ko "LD_LIBRARY_PATH run"; }
check_file path "$lib2"
cat "$W/first.out"
grep -q 'out\[i\] = 3 \* i: OK' "$W/first.out" || ko "the first run's results are wrong"
for r in preload path; do
    if cmp -s "$W/first.out" "$W/$r.out"; then ok "$r: same results"; else diff "$W/first.out" "$W/$r.out"; ko "$r: results differ"; fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
