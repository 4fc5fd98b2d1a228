#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# promote.sh: loops storing to one address in every iteration (promote.cl:
# PolyBench's covariance and correlation, and columns that a work-item
# accumulates into itself) are versioned by sx-wgc on a run-time
# alias check, the triangular ones made uniform first (issue 28); each
# table the CPU has computes what Intel's CPU runtime computes, with the
# store's buffer apart from, next to and overlapping what the loop reads
# (there the original loop must run).
set -u
. "$(dirname "$0")/common.sh"
start promote
if "$P" --dump promote.sximg | grep 'string "fiber'; then ko "a promote.cl kernel fell back to fibers"; fi

# sx-wgc's own output: every kernel's loop has its copy without the store
# (blocks .sx.fast), the triangular ones made uniform (sx.active)
if wgc_ll promote; then
    fn() { awk -v f="@__sx_wg.$1(" 'index($0, "define ") && index($0, f) {on=1} on; on && /^}/ {exit}' promote.wg.ll; }
    miss= flat=
    for k in col_self col_down tri_self covar corr; do
        fn $k | grep -q '^[^ ]*\.sx\.fast[^ ]*:' || miss="$miss $k"
    done
    for k in tri_self covar corr; do
        fn $k | grep -q 'sx\.active' || flat="$flat $k"
    done
    if [ -z "$miss" ]; then ok "each kernel's loop is versioned on the alias check"; else ko "not versioned:$miss"; fi
    if [ -z "$flat" ]; then ok "the triangular loops are made uniform"; else ko "not made uniform:$flat"; fi
    # syrk's c[i * nj + j] is one vector of the lanes: no copy, no check
    if fn syrk | grep -q '^[^ ]*\.sx\.fast[^ ]*:'; then ko "syrk's contiguous store was versioned"; else ok "syrk's contiguous store is left to the implicit barriers"; fi
fi

for table in base v3 v4; do
    export SX_NATIVE_WG_TABLE=$table
    for gl in 48/16 40/20 26/13; do
        g=${gl%/*} l=${gl#*/}
        # columns: row off + x of column x accumulates rows 0..8; off 0 and
        # 4 inside them, 9 just after, 20 apart
        for off in 0 4 9 20; do
            rows=$((off + g))
            differ "table $table, $g/$l, columns, row $off" promote.sximg $g $l f:$((g * rows)),n:9,n:$off col_self col_down
        done
        # triangle of m = g - 3: rows off .. off + m - 1 against rows 0..6
        m=$((g - 3))
        for off in 0 3 7 30; do
            differ "table $table, $g/$l, triangle, rows from $off" promote.sximg $g $l \
                f:$((g * (off + m))),n:$m,n:7,n:$off tri_self
        done
        # covariance with symmat after data (m = g - 3, n = 11) and further on
        for off in $((11 * m)) $((11 * m + 100)); do
            differ "table $table, $g/$l, covariance, symmat at $off" promote.sximg $g $l \
                f:$((off + m * m)),n:$m,n:11,n:$off covar
        done
        differ "table $table, $g/$l, correlation" promote.sximg $g $l f:$((m * m)),f:$((11 * m)),n:$m,n:11 corr
    done
    differ "table $table, syrk 29 x 29 in 16x8" promote.sximg 32x32 16x8 f:377,f:841,F:1.5,F:0.5,n:13,n:29 syrk
    differ "table $table, syrk 13 x 13 in 13x1" promote.sximg 13x13 13x1 f:130,f:169,F:-2,F:3,n:10,n:13 syrk
done
finish
