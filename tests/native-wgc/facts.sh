#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# facts.sh: divisions by powers of two that are no constants (facts.cl: a
# loop's p *= 2 kept across barriers, a uniform 1 << k made before a
# barrier) leave sx-wgc as shifts and masks, and compute what Intel's CPU
# runtime computes (issue 28: x % p became a division once p was kept
# across a barrier).
set -u
. "$(dirname "$0")/common.sh"
start facts
if "$P" --dump facts.sximg | grep 'string "fiber'; then ko "facts.cl fell back to fibers"; else ok "facts.cl runs as regions"; fi

# sx-wgc's own output (before the host compiler): no udiv, sdiv, urem, srem
if wgc_ll facts; then
    if grep -qE '= (u|s)(div|rem) ' facts.wg.ll; then
        grep -E '= (u|s)(div|rem) ' facts.wg.ll | head; ko "sx-wgc left divisions by powers of two"
    else
        ok "sx-wgc left no division by a power of two ($(grep -c 'cttz' facts.wg.ll) cttz)"
    fi
fi

# the results: Intel's CPU runtime as the oracle; n = 40 and 45 give strides
# 1 .. 32 and p = 1 << 0 and 1 << 5; inputs negative and positive
for n in 40 45 3; do
    differ "facts.cl, n = $n" facts.sximg 128 64 o:128,i:128,n:$n pow2_facts
done
for n in 32 30 31 4; do
    differ "facts.cl's edges, p = 1 << ($n & 31)" facts.sximg 64 16 o:256,i:64,n:$n pow2_edges
done
finish
