#!/bin/sh
# gpu-run.sh: build and run everything GPU-related (CUDA adapter tests, bench) in one go on the GPU machine.
#
# Usage: tools/gpu-run.sh [SRCDIR]   (SRCDIR: a tree with include/, adapters/,
# tests/cuda, bench/cuda; default: this script's tree). Builds with plain
# gcc + nvcc (no autotools needed there), writes logs to $OUT (default
# ./gpu-out) and prints a summary. With SX_GPU_FULL=1 and autoreconf
# present it also runs the whole autotools build and `make check`.
set -u
HERE=$(cd "$(dirname "$0")/.." && pwd)
SRC=$(cd "${1:-$HERE}" && pwd)
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
B=$(mktemp -d /tmp/sx-gpu.XXXXXX)
CC=${CC:-gcc}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_INC=${CUDA_INC:-$(dirname "$(dirname "$NVCC")")/include}
W="-std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla"
fail=0

{
  echo "== environment"; date -u; uname -a
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
  "$NVCC" --version 2>&1 | tail -2
  $CC --version 2>&1 | head -1
  for t in autoreconf make pkg-config valgrind compute-sanitizer clang-14 llvm-spirv-14; do printf '%s: %s\n' "$t" "$(command -v $t || echo absent)"; done
  ldconfig -p | grep -E 'libffi|libsubunit|libcheck|libcuda\.so' 2>&1
  ls /usr/lib/x86_64-linux-gnu/libcheck* /usr/lib/x86_64-linux-gnu/pkgconfig/check.pc 2>&1
  grep PRETTY /etc/os-release; ldd --version | head -1
} >"$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

echo "== build"
(
  set -e
  mkdir -p "$B/adapters/cuda/.libs" "$B/tests/cuda"
  $CC $W -fPIC -fvisibility=hidden -shared -I"$SRC/include" -I"$CUDA_INC" "$SRC"/adapters/cuda/*.c \
      -o "$B/adapters/cuda/.libs/sx-adapter-cuda.so" -Wl,--version-script="$SRC/adapters/adapter.map" \
      -Wl,--no-undefined -lpthread
  $CC $W -I"$SRC/include" "$SRC/tests/cuda/test-cuda-abi.c" -o "$B/tests/cuda/test-cuda-abi" -lpthread -ldl
  $CC $W -I"$SRC/include" "$SRC/tests/cuda/test-cuda-nodriver.c" -o "$B/tests/cuda/test-cuda-nodriver" -ldl
  $CC $W -I"$SRC/include" -I"$CUDA_INC" -I"$SRC/adapters/cuda" -I"$SRC/tests/cuda" \
      "$SRC/bench/cuda/bench-cuda.c" -o "$B/bench-cuda" -ldl
  for f in kernels link_a link_b; do
    "$NVCC" -ptx -rdc=true -arch=sm_90 -o "$B/tests/cuda/$f.ptx" "$SRC/tests/cuda/$f.cu"
  done
  "$NVCC" -cubin -arch=sm_90 -o "$B/tests/cuda/kernels.cubin" "$SRC/tests/cuda/kernels.cu"
  "$NVCC" -cubin -rdc=true -arch=sm_90 -o "$B/tests/cuda/link_b.cubin" "$SRC/tests/cuda/link_b.cu"
) >"$OUT/build.log" 2>&1 || { echo "BUILD FAILED"; fail=1; }
tail -20 "$OUT/build.log"

export SX_TEST_BUILDDIR="$B"
run() { # name, timeout, command...
  n=$1; t=$2; shift 2
  echo "== $n"
  timeout "$t" "$@" >"$OUT/$n.log" 2>&1
  rc=$?
  cat "$OUT/$n.log" | tail -60
  echo "-- $n: exit $rc"
  case $rc in 0) ;; 77) echo "SKIP $n" ;; *) fail=1 ;; esac
}
if [ $fail = 0 ]; then
  run test-cuda-nodriver 60 "$B/tests/cuda/test-cuda-nodriver"
  run test-cuda-abi 300 "$B/tests/cuda/test-cuda-abi"
  run bench-cuda 300 "$B/bench-cuda"
  if command -v compute-sanitizer >/dev/null && [ "${SX_GPU_SANITIZE:-1}" = 1 ]; then
    run sanitizer 300 compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 \
        "$B/tests/cuda/test-cuda-abi"
  fi
fi

if [ "${SX_GPU_FULL:-0}" = 1 ] && command -v autoreconf >/dev/null; then
  echo "== full autotools build + make check"
  (
    set -e
    cp -a "$SRC" "$B/full" && cd "$B/full" && autoreconf -fi >/dev/null 2>&1
    mkdir _build && cd _build && ../configure --with-cuda="$(dirname "$CUDA_INC")" >/dev/null
    make -j8 >/dev/null && make -j8 check
  ) >"$OUT/full-check.log" 2>&1 || fail=1
  grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|# )' "$OUT/full-check.log" | tail -40
fi
echo "== gpu-run: $( [ $fail = 0 ] && echo ALL OK || echo FAILURES )"
exit $fail
