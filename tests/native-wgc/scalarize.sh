#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# scalarize.sh: vector values split into lanes (sx-wgc's scalarize.cpp,
# issue 28): scalarize.cl's float4 kernel with exp and log1p under
# branches calls the AVX-512 vector exp and log1p in the v4 table (the
# work-items in vector lanes) and computes what Intel's CPU runtime does,
# on each table, with local sizes 16 does and does not divide.
set -u
. "$(dirname "$0")/common.sh"
start scalarize
if "$P" --dump scalarize.sximg | grep 'string "fiber'; then ko "scalarize.cl fell back to fibers"; fi
"$P" --dump scalarize.sximg --extract ex > /dev/null
so=$(ls ex/*.so 2>/dev/null | head -n 1)
if [ -z "$so" ] || ! command -v objdump > /dev/null 2>&1; then
    echo "SKIP (one check): no objdump or no code object to read"
else
    objdump -d --no-show-raw-insn "$so" |
        awk '/^[0-9a-f]+ <.*>:$/ { on = index($2, "vec_logaddexp.x86_64_v4") > 0 } on && /call/' > v4.calls
    if grep -q '__sx_vm_exp_f16_avx512' v4.calls && grep -q '__sx_vm_log1p_f16_avx512' v4.calls; then
        ok "the v4 table calls the 16-lane exp and log1p"
    else
        cat v4.calls; ko "the v4 table does not call the 16-lane exp and log1p"
    fi
fi
for table in base v3 v4; do
    export SX_NATIVE_WG_TABLE=$table
    for l in 16 24 13; do
        differ "table $table, local size $l" scalarize.sximg $((l * 8)) $l f:$((l * 32)),f:$((l * 32)),g:$((l * 32)) vec_logaddexp
    done
done
unset SX_NATIVE_WG_TABLE
finish
