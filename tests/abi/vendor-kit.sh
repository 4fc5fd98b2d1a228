#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# vendor-kit.sh: an adapter made the way a vendor makes one, outside the
# build system. The tree is installed into a scratch DESTDIR; the serial-CPU
# example adapter (adapters/template/serialcpu.c, installed with the kit) is
# compiled against the installed headers and `pkg-config sycl-ext-adapter`
# alone and dropped into the installed adapter directory. Then, with no
# SX_ADAPTERS: the core discovers it, SX_DEVICE_SELECTOR=serialcpu:* picks its
# device by adapter name, an application built against the installed library
# runs a kernel on it, and the installed sx-adapter-cts passes it (with
# launch.barrier a SKIP: the device runs work-items one after another).
set -u
B=${SX_TEST_BUILDDIR:-.}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$B/tests/abi/config.sh"
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }
pkg-config --exists libffi || { echo "SKIP: libffi's pkg-config file is missing (libffi-dev)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-vendor.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }

# 1. Install, as a user would (into a scratch root).
$MAKE -C "$B" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 || { tail -20 "$tmp/install.log"; fail "make install"; }
pc=$(find "$tmp/root" -name sycl-ext-adapter.pc | head -1)
[ -n "$pc" ] || fail "sycl-ext-adapter.pc was not installed"
prefix=$(sed -n 's/^prefix=//p' "$pc")
export PKG_CONFIG_PATH="$(dirname "$pc")"
# The scratch root stands in for /: point pkg-config's prefix at it.
PC="pkg-config --define-variable=prefix=$tmp/root$prefix"
adapterdir=$($PC --variable=adapterdir sycl-ext-adapter)
kit=$($PC --variable=datadir sycl-ext-adapter)/libsycl-ext/adapter-kit
libdir=$($PC --variable=libdir sycl-ext)
bindir=$tmp/root$prefix/bin
for f in "$kit/serialcpu.c" "$kit/template.c" "$adapterdir/sx-native-builtins.so" "$bindir/proptool" \
         "$bindir/sx-adapter-cts" "$libdir/libsycl-ext.so"; do
    [ -e "$f" ] || fail "$f was not installed"
done
case "$($PC --libs sycl-ext-adapter)" in *-lsycl-ext*) fail "sycl-ext-adapter.pc links libsycl-ext";; esac
echo "PASS installed: the adapter kit ($kit), sycl-ext-adapter.pc, the builtins module"

# 2. The adapter, from the installed kit alone: no -I into the source tree.
# shellcheck disable=SC2046
$CC -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror $($PC --cflags sycl-ext-adapter) $(pkg-config --cflags libffi) \
    -DSERIAL_BUILTINS_DIR="\"$adapterdir\"" "$kit/serialcpu.c" \
    $($PC --libs sycl-ext-adapter) $(pkg-config --libs libffi) -o "$adapterdir/sx-adapter-serialcpu.so" ||
    fail "serialcpu.c does not build against the installed kit"
$CC -std=c11 -Wall -Werror $($PC --cflags sycl-ext-adapter) "$kit/template.c" $($PC --libs sycl-ext-adapter) \
    -o "$tmp/sx-adapter-template.so" || fail "template.c does not build against the installed kit"
echo "PASS built: sx-adapter-serialcpu.so and the template with pkg-config sycl-ext-adapter"

# 3. Kernels and an application against the installed library.
$CC -O2 -fPIC -shared -nostdlib "$S/tests/abi/vendor-kern.c" -o "$tmp/kern.so" || fail "kernels"
cat > "$tmp/vk.manifest" <<MAN
sximg-manifest 1
image host kern.so
kernel vk_scale nd-range 1
param pointer global
param pointer global
param value f32
kernel vk_reverse nd-range 1
param pointer global
param local
MAN
(cd "$tmp" && "$bindir/proptool" -q -o vk.sximg --manifest vk.manifest) || fail "proptool"
# shellcheck disable=SC2046
$CC -std=c11 $($PC --cflags sycl-ext) "$S/tests/abi/vendor-app.c" $($PC --libs sycl-ext) -o "$tmp/app" ||
    fail "the application does not build against the installed library"
# Discovery from the installed adapter directory: the library was built for
# $prefix, so SX_ADAPTERS_PATH names the same directory under the scratch root.
run() {
    env -u SX_ADAPTERS -u SX_NATIVE_BUILTINS LD_LIBRARY_PATH="$libdir" SX_ADAPTERS_PATH="$adapterdir" "$@"
}
out=$(run SX_DEVICE_SELECTOR='serialcpu:*' "$tmp/app" "$tmp/vk.sximg" serialcpu 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "the application on the discovered serial CPU"
out=$(run SX_DEVICE_SELECTOR='serialcpu:0' "$bindir/sx-info" 2>&1)
echo "$out" | grep -q 'serialcpu' || { echo "$out"; fail "sx-info does not list the discovered adapter"; }
echo "PASS sx-info lists the discovered adapter"

# 4. The installed conformance suite on it.
out=$(run "$bindir/sx-adapter-cts" "$adapterdir/sx-adapter-serialcpu.so" 2>&1); rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "sx-adapter-cts on the serial CPU"
for c in 'launch.args\[host ELF\]' 'launch.scalars\[host ELF\]' 'launch.double\[host ELF\]' 'launch.nd\[host ELF\]' \
         'launch.offset\[host ELF\]' 'launch.threads\[host ELF\]' 'launch.wait-list\[host ELF\]' \
         'launch.null-local\[host ELF\]' 'global.kernel-sees-write\[host ELF\]' loader.adapter; do
    echo "$out" | grep -q "^PASS $c" || fail "check $c did not pass"
done
echo "$out" | grep -q '^SKIP launch.barrier\[host ELF\].*barrier' || fail "launch.barrier is not a SKIP naming barrier()"
echo "PASS the extended CTS on an out-of-tree adapter without barriers"
