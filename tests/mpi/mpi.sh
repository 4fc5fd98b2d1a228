#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tests/mpi/mpi.sh: examples/mpi-ranks under Open MPI, 4 ranks on the native
# device (the cores shared out between them), one persistent cache directory.
# Every rank's device_global and virtual-function results must be right; the
# cache must hold only whole entries; every program rank 0 stored is served
# from the cache to the others, the linked one too where the adapter gives a
# binary of it, else (the native adapter today) rank 0 alone records that
# and the others link without trying. Then all ranks at once on an empty
# cache (a race): results right, no damaged or half-written entry.
set -u
B=${SX_TEST_BUILDDIR:?} S=${SX_TEST_SRCDIR:?}
MPICC=$(command -v mpicc) MPIRUN=$(command -v mpirun)
[ -n "$MPICC" ] && [ -n "$MPIRUN" ] || { echo "SKIP: mpicc/mpirun not installed (apt-get install openmpi-bin libopenmpi-dev)"; exit 77; }
[ -n "${CLANG:-}" ] && [ -n "${LLVM_SPIRV:-}" ] || { echo "SKIP: clang or llvm-spirv not found by configure"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }
W=$B/tests/mpi/work
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

INC="-I$S/include -I$S/examples"
HOSTCL="-x cl -cl-std=CL2.0 -Xclang -finclude-default-header -Dkernel= -D__kernel= -target x86_64-linux-gnu -O2 -fPIC -shared -nostdlib $INC"
for k in mpi-scale mpi-kernels; do
    "$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header $INC "$S/examples/$k.cl" -o "$k.bc" &&
        "$LLVM_SPIRV" "$k.bc" -o "$k.spv" && "$CLANG" $HOSTCL "$S/examples/$k.cl" -o "$k.so" || fail "building $k.cl"
done
"$B/proptool/proptool" -q -o k.sximg --emit-c k-images.c mpi-scale.spv --host mpi-scale.so \
    mpi-kernels.spv --host mpi-kernels.so --host-vf _ZTSv=mpi-kernels.so || fail "proptool"
"$MPICC" -O2 -I"$S/include" -I"$B/include" -o mpi-ranks "$S/examples/mpi-ranks.c" k-images.c \
    -L"$B/lib/.libs" -lsycl-ext -Wl,-rpath,"$B/lib/.libs" || fail "mpicc"

# Root needs Open MPI's consent; 4 ranks on fewer cores need --oversubscribe.
flags="--oversubscribe --tag-output"
[ "$(id -u)" -eq 0 ] && flags="$flags --allow-run-as-root"
export SX_ADAPTERS=native SX_LOG=info
run() { # CACHE-DIR LOG [ARGS]
    cache=$1 log=$2
    shift 2
    SX_CACHE_DIR=$cache timeout 300 "$MPIRUN" $flags -np 4 -x SX_ADAPTERS -x SX_NATIVE_BUILTINS -x SX_CACHE_DIR -x SX_LOG \
        ./mpi-ranks "$@" >"$log" 2>&1
}

mkdir -m 700 cache
run "$PWD/cache" ordered.log || { cat ordered.log; fail "mpirun -np 4 (rank 0 first)"; }
grep '<stdout>' ordered.log
grep -q '<stdout>:OK: 4 of 4 ranks right' ordered.log || fail "not every rank got the right results"
share=$(($(nproc) / 4)); [ "$share" -ge 1 ] || share=1
for r in 0 1 2 3; do
    grep -q "^\[[0-9]*,$r\]<stdout>:rank $r (local $r): .*(native threads $share): device_global 100$r, vf_apply: ok" ordered.log ||
        fail "rank $r: wrong results, local rank or thread share"
done
n=$(python3 "$S/tests/mpi/check-cache.py" cache) || fail "a damaged cache entry"
rank_of() { sed -n "s/^\[[0-9]*,\([0-9]*\)\]<stderr>:.*$1.*/\1/p" ordered.log | sort -u | tr '\n' ' '; }
count() { grep -c "^\[[0-9]*,$1\]<stderr>:.*$2" ordered.log; }
# Each entry is written once, by rank 0, and read from disk by each other rank.
writes=$(grep -c 'program cache: wrote' ordered.log)
[ "$writes" -eq "$n" ] || fail "$n cache entries but $writes writes"
[ "$n" -eq 0 ] || [ "$(rank_of 'program cache: wrote')" = "0 " ] ||
    fail "entries written by ranks $(rank_of 'program cache: wrote'), not rank 0 alone"
for r in 1 2 3; do
    [ "$(count $r 'from disk')" -eq "$n" ] || fail "rank $r read $(count $r 'from disk') programs from the cache, not the $n rank 0 stored"
done
# The linked (virtual-function) program: built by rank 0 alone; the other
# ranks take it from the cache (the native adapter gives a linked program's
# binary). A one-image host-ELF program is the image itself: not cached.
[ "$(rank_of 'linked [0-9]* images')" = "0 " ] || fail "ranks $(rank_of 'linked [0-9]* images') linked; only rank 0 should"
for r in 1 2 3; do
    [ "$(count $r 'program of [0-9]* image(s) .*from disk')" -ge 1 ] || fail "rank $r did not take the linked program from the cache"
done
linked="the linked program built by rank 0 alone, ranks 1-3 took it from the cache"
echo "cache: $n program(s) stored by rank 0, each read from disk by ranks 1-3; $linked"

# The race: every rank at once on an empty cache.
mkdir -m 700 race
run "$PWD/race" together.log --together || { cat together.log; fail "mpirun -np 4 --together"; }
grep -q '<stdout>:OK: 4 of 4 ranks right' together.log || { cat together.log; fail "not every rank right (together)"; }
python3 "$S/tests/mpi/check-cache.py" race >/dev/null || fail "a damaged or half-written entry after the race"
grep -q 'is damaged' ordered.log together.log && fail "a rank found a damaged entry"
echo "race: 4 ranks at once, results right, cache entries whole"
rm -rf "$W"
echo PASS
