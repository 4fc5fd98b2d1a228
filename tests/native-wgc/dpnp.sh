#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# dpnp.sh: DPC++'s SPIR-V as DPC++ writes it through proptool's native
# variant (issue 28). The dpnp 0.20.0 wheel (PyPI, built with DPC++) is
# downloaded once into the build tree; spirv-images.py takes every STEP-th
# of its one-kernel SPIR-V modules (SX_DPNP_STEP, default 250; 1: all
# 17684, hours); proptool makes each native variant. Counts compiled
# kernels and fallbacks by reason, and fails on an image proptool cannot
# take or a fallback whose reason dpnp-fallbacks.txt does not name; runs
# the sample's element-wise kernels on native and Intel's CPU runtime.
set -u
. "$(dirname "$0")/common.sh"
step=${SX_DPNP_STEP:-250}
W="$B/tests/native-wgc/dpnp-work"
wheels="$B/tests/native-wgc/wheels"
mkdir -p "$wheels"
py=
for p in python3 python; do
    command -v $p > /dev/null 2>&1 && $p -m pip --version > /dev/null 2>&1 && { py=$p; break; }
done
[ -n "$py" ] || { echo "SKIP: no python3 with pip to download dpnp's wheel"; exit 77; }
whl=$(ls "$wheels"/dpnp-0.20.0-*.whl 2>/dev/null | head -n 1)
if [ -z "$whl" ]; then
    if ! $py -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.11 \
         -d "$wheels" dpnp==0.20.0 > "$wheels/pip.log" 2>&1; then
        echo "SKIP: cannot download dpnp 0.20.0 from PyPI (offline?): $(tail -n 1 "$wheels/pip.log")"
        exit 77
    fi
    whl=$(ls "$wheels"/dpnp-0.20.0-*.whl 2>/dev/null | head -n 1)
    [ -n "$whl" ] || { echo "SKIP: pip left no dpnp wheel in $wheels"; exit 77; }
fi
rm -rf "$W"
mkdir -p "$W/spv"
cd "$W" || exit 1
if $py "$D/spirv-images.py" "$whl" spv "$step" > images.txt; then
    ok "$(cat images.txt) (every ${step}th) from $(basename "$whl")"
else
    ko "cannot list the SPIR-V images of $whl"
    finish
fi
# proptool over the images in batches; an image without a native variant
# is a warning naming it and why (reads, sx-wgc errors)
ls spv/*.spv > list.txt
: > warn.txt
: > dump.txt
split -l 16 list.txt batch.
for b in batch.*; do
    "$P" -o "$b.sximg" $(cat "$b") 2>> warn.txt || echo "proptool failed on $(tr '\n' ' ' < "$b")" >> warn.txt
    "$P" --dump "$b.sximg" >> dump.txt 2>/dev/null
    rm -f "$b.sximg"
done
compiled=$(grep -c '^    [^ ]*: string "regions: ' dump.txt)
fibers=$(grep -c '^    [^ ]*: string "fiber: ' dump.txt)
echo "compiled into regions: $compiled kernels; fibers: $fibers"
grep '^    [^ ]*: string "fiber: ' dump.txt | sed 's/^[^"]*"fiber: //; s/"$//' | sort | uniq -c | sort -rn
grep 'note: .* cannot read the SPIR-V' warn.txt | sed 's/^.*cannot read the SPIR-V (//; s/); read with.*//' | sort | uniq -c |
    sed 's/^/read by the newer llvm-spirv: /'
allowed=$(grep -v '^#' "$D/dpnp-fallbacks.txt" | grep .)
bad=0
while IFS= read -r why; do
    [ -n "$why" ] || continue
    known=0
    while IFS= read -r a; do
        [ -n "$a" ] || continue
        case $why in *"$a"*) known=1 ;; esac
    done <<EOL
$allowed
EOL
    [ $known = 1 ] || { echo "not on dpnp-fallbacks.txt: $why"; bad=$((bad + 1)); }
done <<EOL
$(grep '^    [^ ]*: string "fiber: ' dump.txt | sed 's/^[^"]*"fiber: //; s/"$//' | sort -u | grep .)
EOL
if [ $bad = 0 ]; then ok "every fallback is on dpnp-fallbacks.txt"; else ko "$bad fallback reasons not on dpnp-fallbacks.txt"; fi
# the sample's contiguous element-wise kernels (bench/dpnp picks one per
# operation) on native and on Intel's CPU runtime with a ragged element
# count: the last group's sub-groups take both sides of DPC++'s
# "slice in range" branch (sx-wgc's per-work-item-state copy), the others
# one (its copy for groups that branch alike); every buffer compared
if [ -n "$intel_why" ]; then
    echo "SKIP (one check): dpnp's kernels against Intel's CPU runtime: $intel_why"
else
    SX_TEST_BUILDDIR="$B" timeout 600 "$B/bench/dpnp" --images spv --rounds 1 --max 64 --elems 9999 --ragged > run.txt 2>&1
    rc=$?
    if [ $rc = 0 ]; then
        ok "dpnp's element-wise kernels, 9999 elements: native = Intel's CPU runtime ($(tail -n 1 run.txt | sed 's/.*kernels: [^;]*; //'), $(grep -c 'native/intel' run.txt) kernels)"
    elif [ $rc = 77 ] || grep -q 'no contiguous element-wise kernel' run.txt; then
        echo "SKIP (one check): $(tail -n 1 run.txt)"
    else
        grep -v 'native/intel' run.txt | head -20; ko "dpnp's element-wise kernels differ from Intel's CPU runtime (status $rc)"
    fi
fi
if grep -q 'no native variant\|proptool failed\|error' warn.txt; then
    grep 'no native variant\|proptool failed\|error' warn.txt | head -20
    ko "$(grep -c 'no native variant\|proptool failed' warn.txt) images without a native variant"
else
    ok "every image has its native variant ($(grep -c '^  target: host_x86_64' dump.txt) of $(wc -l < list.txt))"
fi
finish
