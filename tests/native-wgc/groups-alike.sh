#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# groups-alike.sh: sub-group block reads, writes, barriers and a reduction
# under a branch on the sub-group id that every sub-group of a group takes
# alike but at the array's end (groups-alike.cl: DPC++'s element-wise
# kernels' shape). sx-wgc compiles a copy for the groups that take it alike
# beside the per-work-item-state regions (--dump says so); sizes where the
# last group is mixed, where a whole group takes the scalar path, and local
# sizes the sub-group size does not divide run both, against the
# specification (modelled below) and, for one group, Intel's CPU OpenCL
# runtime (issue 28).
set -u
. "$(dirname "$0")/common.sh"
start groups-alike
"$P" --dump groups-alike.sximg > dump.txt
if [ "$(grep -c 'alike_[0-9]*: string "regions: .*; a copy for groups whose work-items branch alike, else collectives in divergent control flow"' dump.txt)" -eq 2 ]; then
    ok "the branch on the sub-group id gets a copy for the groups that take it alike (--dump says so)"
else
    grep 'alike_' dump.txt; ko "no copy for the groups that branch alike"
fi
# The specification, modelled: which elements each sub-group writes (2 in[i])
# and its sum, for GLOBAL, LOCAL, N and the kernel's sub-group size. Intel's
# CPU runtime is no oracle here: with the sub-group barriers in a group
# whose sub-groups branch differently, it leaves the block path's work
# undone (without them it agrees) -- DPC++'s own kernels it runs right.
spec_check() {
    awk -v G="$1" -v L="$2" -v n="$3" '
        function abs(x) { return x < 0 ? -x : x }
        function near(a, b) { return abs(a - b) <= 1e-4 * (abs(b) > 1 ? abs(b) : 1) }
        /^kernel/ { k = $2; S = substr(k, index(k, "_") + 1) + 0; line = 0; next }
        { line++ }
        line == 1 { split($0, in_); next }
        line == 2 { split($0, out_); next }
        line == 3 {
            split("", want); nsg = int((L + S - 1) / S)
            for (g = 0; g < G / L; g++)
                for (s = 0; s < nsg; s++) {
                    sz = L - s * S < S ? L - s * S : S
                    base = 8 * (g * L + s * S); sum = 0
                    for (l = 0; l < sz; l++)
                        if (base + 8 * S < n) {
                            for (it = 0; it < 8; it += 4)
                                for (j = 0; j < 4; j++) {
                                    i = base + it * sz + l + j * sz
                                    want[i] = 2 * in_[i + 2]; sum += want[i]
                                }
                        } else {
                            for (i = base + l; i < n; i += S) { want[i] = 2 * in_[i + 2]; sum += want[i] }
                        }
                    idx = g * nsg + s
                    if (!near($(idx + 2), sum)) { printf "%s: sums[%d] = %s, want %.9g\n", k, idx, $(idx + 2), sum; bad = 1; exit }
                }
            for (i = 0; i < 8 * G; i++)
                if (!near(out_[i + 2], (i in want) ? want[i] : 0)) {
                    printf "%s: out[%d] = %s, want %.9g\n", k, i, out_[i + 2], (i in want) ? want[i] : 0; bad = 1; exit
                }
        }
        END { exit bad }' spec.txt
}
# GLOBAL:LOCAL:N, 8 elements a work-item: the last group mixed, a whole
# group on the element path, local sizes the sub-group size does not divide
for geo in 256:128:2048 384:128:2053 256:128:2000 1024:256:8189 64:32:500 60:20:480 60:20:400 7:7:56 7:7:40 40:8:300; do
    g=${geo%%:*} rest=${geo#*:} l=${rest%%:*} n=${rest#*:}
    spec=f:$((8 * g)),g:$((8 * g)),g:$g,n:$n
    if on_native groups-alike.sximg spec.txt "$g" "$l" "$spec" alike_8 alike_16 > spec.out 2>&1 && spec_check "$g" "$l" "$n"; then
        ok "groups-alike.cl $g/$l, n = $n: every element and sum as specified"
    else
        cat spec.out; ko "groups-alike.cl $g/$l, n = $n against the specification"
    fi
done
# groups whose sub-groups all branch alike: Intel's runtime agrees
for geo in 7:7:56 7:7:40 16:16:200 8:8:30; do
    g=${geo%%:*} rest=${geo#*:} l=${rest%%:*} n=${rest#*:}
    differ "groups-alike.cl $g/$l, n = $n" groups-alike.sximg "$g" "$l" f:$((8 * g)),g:$((8 * g)),g:$g,n:$n alike_8 alike_16
done
finish
