#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# gpu-run.sh: build and run everything GPU-related (CUDA adapter tests, benches) in one go on the GPU machine.
#
#   tools/gpu-run.sh --stage DEST [BUILDDIR]
#       here: copy the sources this needs into DEST/src and the core built
#       in BUILDDIR (default _build: lib/.libs/libsycl-ext.so*, config.h)
#       into DEST/prebuilt, e.g. DEST=/work/main/.gpu for the `run` tool.
#   tools/gpu-run.sh [SRCDIR]
#       there: build the adapter, tests and benches with plain gcc + nvcc
#       (no autotools or libffi-dev needed), run them, write logs to $OUT
#       (default ./gpu-out) and print a summary. The core-level test and
#       bench need SRCDIR/../prebuilt (a libsycl-ext built elsewhere; it
#       needs only libffi.so.8 and glibc at run time).
set -u
if [ "${1:-}" = --stage ]; then
  DEST=$2; BUILD=${3:-_build}
  TOP=$(cd "$(dirname "$0")/.." && pwd)
  rm -rf "$DEST/src" "$DEST/prebuilt"
  mkdir -p "$DEST/src" "$DEST/prebuilt/lib" "$DEST/prebuilt/include/sycl-ext"
  (cd "$TOP" && tar -cf - include/sycl-ext/*.h adapters/adapter.map adapters/cuda tests/cuda/*.c \
      tests/cuda/*.h tests/cuda/*.cu bench/cuda/*.c lib/sx-internal.h lib/hash.h tools/gpu-run.sh) |
    tar -xf - -C "$DEST/src"
  cp -a "$BUILD"/lib/.libs/libsycl-ext.so* "$DEST/prebuilt/lib/"
  mkdir -p "$DEST/prebuilt/data"
  # image files need clang, llvm-spirv and proptool, which the GPU machine lacks
  cp "$BUILD"/tests/cuda/*.sximg "$DEST/prebuilt/data/" 2>/dev/null || true
  cp "$BUILD/config.h" "$DEST/prebuilt/include/"
  cp "$BUILD/include/sycl-ext/version.h" "$DEST/prebuilt/include/sycl-ext/"
  du -sh "$DEST"
  exit 0
fi

HERE=$(cd "$(dirname "$0")/.." && pwd)
SRC=$(cd "${1:-$HERE}" && pwd)
PRE=$SRC/../prebuilt
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
B=$(mktemp -d /tmp/sx-gpu.XXXXXX)
CC=${CC:-gcc}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUDA_INC=${CUDA_INC:-$(dirname "$(dirname "$NVCC")")/include}
W="-std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla"
fail=0

{
  echo "== environment"; date -u; uname -r
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1
  "$NVCC" --version 2>&1 | tail -1
  $CC --version 2>&1 | head -1
  grep PRETTY /etc/os-release
} 2>&1

echo "== build"
have_core=0
[ -e "$PRE/lib/libsycl-ext.so" ] && have_core=1
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
  if [ $have_core = 1 ]; then
    CI="-I$PRE/include -I$SRC/include -I$SRC/lib -I$CUDA_INC -I$SRC/adapters/cuda -I$SRC/tests/cuda"
    $CC $W $CI "$SRC/tests/cuda/test-cuda-core.c" -o "$B/tests/cuda/test-cuda-core" -L"$PRE/lib" -lsycl-ext -lpthread
    $CC $W $CI "$SRC/bench/cuda/bench-cuda-core.c" -o "$B/bench-cuda-core" -L"$PRE/lib" -lsycl-ext -ldl
    $CC $W $CI "$SRC/tests/cuda/test-cuda-e2e.c" -o "$B/tests/cuda/test-cuda-e2e" -L"$PRE/lib" -lsycl-ext
    cp "$PRE"/data/*.sximg "$B/tests/cuda/" 2>/dev/null || true
  fi
  for f in kernels link_a link_b; do
    "$NVCC" -ptx -rdc=true -arch=sm_90 -o "$B/tests/cuda/$f.ptx" "$SRC/tests/cuda/$f.cu"
  done
  "$NVCC" -cubin -arch=sm_90 -o "$B/tests/cuda/kernels.cubin" "$SRC/tests/cuda/kernels.cu"
  "$NVCC" -cubin -rdc=true -arch=sm_90 -o "$B/tests/cuda/link_b.cubin" "$SRC/tests/cuda/link_b.cu"
) >"$OUT/build.log" 2>&1
# (not "|| ...": that would switch set -e off inside the subshell)
[ $? = 0 ] || { echo "BUILD FAILED"; fail=1; }
tail -20 "$OUT/build.log"

# The core links images (virtual functions) once it has the resolver.
if [ $have_core = 1 ] && grep -q calls-virtual-functions-set "$PRE/lib/libsycl-ext.so"; then
  export SXC_TEST_VIRTUAL=1 XDG_CACHE_HOME="$B/cache"
fi
export SX_TEST_BUILDDIR="$B" SXC_TEST_DATA="$B/tests/cuda" LD_LIBRARY_PATH="$PRE/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
summary=""
# At most 8 files come back from the GPU machine: the small logs stay in
# $B/logs (their tails are in the printed summary), the large ones go to $OUT.
mkdir -p "$B/logs"
run() { # name, timeout, command...
  n=$1; t=$2; shift 2
  echo "== $n"
  case $n in test-cuda-abi|test-cuda-core|test-cuda-e2e|bench-cuda|bench-cuda-core|sanitizer) log=$OUT/$n.log ;; *) log=$B/logs/$n.log ;; esac
  timeout "$t" "$@" >"$log" 2>&1
  rc=$?
  tail -60 "$log"
  echo "-- $n: exit $rc"
  case $rc in 0) summary="$summary PASS:$n" ;; 77) summary="$summary SKIP:$n" ;; *) summary="$summary FAIL:$n"; fail=1 ;; esac
}
if [ $fail = 0 ]; then
  run test-cuda-nodriver 60 "$B/tests/cuda/test-cuda-nodriver"
  run test-cuda-abi 300 "$B/tests/cuda/test-cuda-abi"
  [ $have_core = 1 ] && run test-cuda-core 300 "$B/tests/cuda/test-cuda-core"
  [ $have_core = 1 ] && run test-cuda-e2e 300 "$B/tests/cuda/test-cuda-e2e"
  run bench-cuda 300 "$B/bench-cuda"
  [ $have_core = 1 ] && run bench-cuda-core 300 "$B/bench-cuda-core"
  if [ -n "${SXC_TEST_VIRTUAL:-}" ]; then
    # a second process with the same cache directory: the persistent cache's first launch
    run bench-vf-pass2 120 env SXC_BENCH_PASS=2 SXC_BENCH_VF_ONLY=1 "$B/bench-cuda-core"
  fi
  if command -v compute-sanitizer >/dev/null && [ "${SX_GPU_SANITIZE:-1}" = 1 ]; then
    # API errors are expected (the tests provoke them); memory errors and leaks are not.
    cs="compute-sanitizer --tool memcheck --leak-check full --report-api-errors no --error-exitcode 9"
    list="$B/tests/cuda/test-cuda-abi"
    [ $have_core = 1 ] && list="$list $B/tests/cuda/test-cuda-core $B/tests/cuda/test-cuda-e2e"
    run sanitizer 400 sh -c 'rc=0; for t in "$@"; do echo "### $t"; '"$cs"' "$t"; r=$?; [ $r = 0 ] || [ $r = 77 ] || rc=1; done; exit $rc' sh $list
  fi
fi
echo "== gpu-run:$summary: $( [ $fail = 0 ] && echo ALL OK || echo FAILURES )"
exit $fail
