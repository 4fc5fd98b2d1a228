#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# cts-native.sh: sx-adapter-cts on the native adapter module, with its
# built-in host-ELF image; every check must pass or skip, none fail.
set -u
B=${SX_TEST_BUILDDIR:-.}
cts=$B/tools/sx-adapter-cts
mod=$B/adapters/native/.libs/sx-adapter-native.so
for f in "$cts" "$mod"; do [ -x "$f" ] || [ -f "$f" ] || { echo "SKIP: $f not built"; exit 77; }; done
out=$("$cts" "$mod"); rc=$?
echo "$out"
[ $rc -eq 0 ] || exit 1
# What must have run, not merely not failed.
for c in handshake.wrong-major handshake.mandatory dispatch.kernel 'launch.args\[host ELF\]' \
         'launch.barrier\[host ELF\]' 'launch.null-local\[host ELF\]' 'launch.scalars\[host ELF\]' \
         'launch.double\[host ELF\]' 'launch.nd\[host ELF\]' 'launch.offset\[host ELF\]' \
         'launch.threads\[host ELF\]' 'launch.wait-list\[host ELF\]' \
         'global.bounds\[host ELF\]' 'global.kernel-sees-write\[host ELF\]' 'usm.round-trip\[device\]' loader.adapter; do
    echo "$out" | grep -q "^PASS $c" || { echo "FAIL: check $c did not pass"; exit 1; }
done
