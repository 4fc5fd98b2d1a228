#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# differential.sh: kernels made by wgc-gen (private arrays, loops with
# barriers, breaks, nested uniform branches, local exchanges, divergent
# code, collectives) on native and on Intel's CPU OpenCL runtime, compared
# (issue 28). make check runs one seed of 24 kernels; a longer run:
#   SX_WGC_DIFF_SEEDS="$(seq 1 100)" SX_WGC_DIFF_COUNT=40 make check TESTS=tests/native-wgc/differential.sh
# A failing seed is reproduced with: wgc-gen SEED COUNT > gen.cl
set -u
. "$(dirname "$0")/common.sh"
if [ -n "$intel_why" ]; then
    echo "SKIP: no oracle: Intel's CPU OpenCL runtime: $intel_why"
    exit 77
fi
workdir differential
count=${SX_WGC_DIFF_COUNT:-24}
for seed in ${SX_WGC_DIFF_SEEDS:-1}; do
    "$B/tests/native-wgc/wgc-gen" "$seed" "$count" > gen.cl
    if ! build gen.cl 2> gen.err; then
        if grep -q 'InvalidBitWidth' gen.err; then  # clang -O2 made an i33 trip count: a producer limit
            echo "SKIP (seed $seed): llvm-spirv-14 cannot write clang's IR: $(grep InvalidBitWidth gen.err | head -n 1)"
        else
            cat gen.err; ko "seed $seed: generated kernels do not build"
        fi
        continue
    fi
    if "$P" --dump gen.sximg | grep 'string "fiber'; then
        ko "seed $seed: a generated kernel fell back to fibers"
        continue
    fi
    K=$(i=0; while [ $i -lt "$count" ]; do printf 'g%03d ' $i; i=$((i + 1)); done)
    for l in 16 24; do
        differ "seed $seed, $count kernels, local size $l" gen.sximg 48 $l o:48,i:64,n:5 $K
    done
done
finish
