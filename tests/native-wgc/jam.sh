#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# jam.sh: the unroll-and-jam of the y work-item loop (issue 28): sx-wgc's
# output for jam.cl's tiled matrix product has the jammed loop (wi.jam)
# and its remainder (wi.jam.rest), and native computes what Intel's CPU
# runtime computes on each table, with group heights the step (8 rows) divides and does
# not (16, 13, 6, 3, 1), and with the jam turned off (SX_WGC_JAM=0).
set -u
. "$(dirname "$0")/common.sh"
start jam
if "$P" --dump jam.sximg | grep 'string "fiber'; then ko "jam.cl fell back to fibers"; fi

if wgc_ll jam; then
    if grep -q '^wi\.jam.*:' jam.wg.ll && grep -q '^wi\.jam\.rest.*:' jam.wg.ll; then
        ok "sx-wgc jammed the y loop of jam_mm ($(grep -c '^wi\.jam:' jam.wg.ll) loops)"
    else
        ko "sx-wgc did not jam the y loop of jam_mm"
    fi
    if (export SX_WGC_JAM=0 && wgc_ll jam) && ! grep -q '^wi\.jam' jam.wg.ll; then
        ok "SX_WGC_JAM=0 leaves the y loops as they are"
    else
        ko "SX_WGC_JAM=0"
    fi
fi

n=32
for table in base v3 v4; do
    export SX_NATIVE_WG_TABLE=$table
    for h in 16 13 6 3 1; do
        rows=$((h * 3))
        differ "table $table, group 16x$h" jam.sximg ${n}x$rows 16x$h f:$((rows * n)),f:$((n * n)),g:$((rows * n)),n:$n jam_mm
    done
done
unset SX_NATIVE_WG_TABLE
SX_WGC_JAM=0 "$P" --native -o jam0.sximg jam.spv > /dev/null 2>&1 || ko "jam.cl without the jam"
differ "without the jam, group 16x13" jam0.sximg ${n}x39 16x13 f:$((39 * n)),f:$((n * n)),g:$((39 * n)),n:$n jam_mm
finish
