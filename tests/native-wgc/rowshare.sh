#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# rowshare.sh: the gathers the rows of a region share (issue 28): sx-wgc's
# output for rowshare.cl loads them once per region (wi.x.fill) in the
# kernels where every row reads the same addresses, not where the
# work-item's own store comes first, and native computes what Intel's CPU
# runtime computes on each table, with group heights 1 to 13 and widths
# that 16 does and does not divide.
set -u
. "$(dirname "$0")/common.sh"
start rowshare
if "$P" --dump rowshare.sximg | grep 'string "fiber'; then ko "rowshare.cl fell back to fibers"; fi

if wgc_ll rowshare; then
    # the kernels whose work-group functions (each table's) load once per region
    shared=$(awk '/^define/ { f = $0; sub(/.*@__sx_wg\./, "", f); sub(/[.(].*/, "", f) }
                  /^wi\.x\.fill:/ { print f }' rowshare.wg.ll | sort -u | tr '\n' ' ')
    if [ "$shared" = "rs_local rs_syr2k " ]; then
        ok "sx-wgc shares the rows' gathers of $shared"
    else
        ko "sx-wgc shares the rows' gathers of '$shared', expected rs_local rs_syr2k"
    fi
fi

n=40
for table in base v3 v4; do
    export SX_NATIVE_WG_TABLE=$table
    for g in 16x8 16x13 20x3 12x1 32x4; do
        w=${g%x*} h=${g#*x}
        gw=$(( (n + w - 1) / w * w )) gh=$(( (n + h - 1) / h * h ))
        differ "table $table, group $g: syr2k" rowshare.sximg ${gw}x$gh $g \
            f:$((n * n)),f:$((n * n)),g:$((n * n)),n:$n rs_syr2k
        differ "table $table, group $g: the store first" rowshare.sximg ${gw}x$gh $g \
            g:$((n * n)),f:$((n * n)),n:$n rs_after_store
        [ "$w" -le 16 ] && differ "table $table, group $g: local memory" rowshare.sximg ${w}0x$((h * 2)) $g \
            f:$((16 * w)),i:$((30 * w + 16)),g:$((w * 10 * h * 2)) rs_local
    done
done
unset SX_NATIVE_WG_TABLE
finish
