#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# narrow.sh: narrow.cl's kernels (work-item loops split at a branch on the
# local id, uniform loops run once; issue 28) on native, on each table the
# CPU has, and on Intel's CPU OpenCL runtime, compared; local sizes that
# are and are not whole vectors.
set -u
. "$(dirname "$0")/common.sh"
start narrow
if "$P" --dump narrow.sximg | grep 'string "fiber'; then ko "a narrow.cl kernel fell back to fibers"; fi
# No work-item peeled off an x loop (LLVM's loop peeling for `l == 0`):
# the tree's levels would then run ids 1 .. s - 1, never whole vectors,
# and take the masked copy every time (bench/native-vs-pocl's reduce: 1.5x)
if wgc_ll narrow; then
    if grep -q '\.peel' narrow.wg.ll; then ko "sx-wgc peeled a work-item off an x loop"; else ok "no work-item peeled"; fi
fi
if [ -n "$intel_why" ]; then
    echo "SKIP (the rest): no oracle: Intel's CPU OpenCL runtime: $intel_why"
    finish
fi
K="tree_ult tree_int bounds unsigned_wrap uniform_work neighbours points"
for table in base v3 v4; do
    export SX_NATIVE_WG_TABLE=$table
    for l in 16 24 13 64 1; do
        for n in 0 5 -4 23; do
            differ "table $table, local size $l, n $n" narrow.sximg $((l * 4)) $l i:256,o:512,o:256,n:$n $K
        done
    done
    differ "table $table, 2-D 8x3" narrow.sximg 16x6 8x3 i:96,o:96,o:96,n:3 two_d
    differ "table $table, 2-D 13x2" narrow.sximg 26x4 13x2 i:104,o:104,o:104,n:-1 two_d
done
finish
