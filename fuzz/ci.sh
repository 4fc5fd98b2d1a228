#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ci.sh: CI's fuzzing step: build every libFuzzer target (fuzz/build.sh,
# clang-14, ASan + UBSan) and run each for SX_FUZZ_SECONDS (60 by
# default) from the committed corpus, an input over 10 s a failure (a hang
# is a bug: work is bounded by the input). New corpus entries go to a
# scratch directory, not into the tree, and a failing input to
# BUILDDIR/fuzz-artifacts. Prints runs and seconds per target.
#   sh fuzz/ci.sh BUILDDIR
set -eu
S=$(cd "$(dirname "$0")/.." && pwd)
B=$(cd "${1:?usage: fuzz/ci.sh BUILDDIR}" && pwd)
secs=${SX_FUZZ_SECONDS:-60}
command -v clang-14 > /dev/null || { echo "fuzz/ci.sh: no clang-14; skipped"; exit 0; }
sh "$S/fuzz/build.sh" "$B" "$B/fuzz-bin"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
run() { # TARGET CORPUS...
    t=$1
    shift
    mkdir -p "$work/$t" "$B/fuzz-artifacts"
    if "$B/fuzz-bin/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
        -artifact_prefix="$B/fuzz-artifacts/$t-" \
        "$work/$t" "$@" > "$work/$t.log" 2>&1; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")
        echo "PASS: $t: ${runs:-?} runs in $secs s"
    else
        echo "FAIL: $t"
        tail -n 40 "$work/$t.log"
        status=1
    fi
}
run fuzz-spirv "$S/fuzz/corpus/spirv"
run fuzz-image-file "$S/fuzz/corpus/image-file"
run fuzz-register "$S/fuzz/corpus/register" "$S/fuzz/corpus/image-file"
run fuzz-bitcode "$S/fuzz/corpus/bitcode"
exit $status
