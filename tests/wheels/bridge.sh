#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# bridge.sh: libsycl-ext-dpcpp.so offline (bridge.c): linked into the
# program, and preloaded into one that does not link it, passing calls on
# to a stand-in libsycl and not (SX_DPCPP_FORWARD=0).
set -u
b=${SX_TEST_BUILDDIR:-.}
mods=$b/tests/wheels/.libs
export LD_LIBRARY_PATH="$b/lib/.libs:$b/dpcpp/.libs:$mods${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "== linked"
"$b/tests/wheels/.libs/bridge-linked" "$mods" || exit 1
echo "== preloaded"
LD_PRELOAD="$b/dpcpp/.libs/libsycl-ext-dpcpp.so" "$b/tests/wheels/.libs/bridge-preloaded" "$mods" || exit 1
echo "== preloaded, SX_DPCPP_FORWARD=0"
SX_DPCPP_FORWARD=0 LD_PRELOAD="$b/dpcpp/.libs/libsycl-ext-dpcpp.so" "$b/tests/wheels/.libs/bridge-preloaded" "$mods" || exit 1
