#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# gpu-check.sh: run every GPU test and benchmark of a build made here, on the
# GPU machine, in one go (the device tool's `run`; CI has no GPU).
#
#   tools/gpu-check.sh --stage [BUILDDIR]   here: copy what runs (binaries,
#       modules, image files; no objects) into .gpu/build and make the CTS
#       image (needs clang, llvm-spirv, nvcc, proptool)
#   tools/gpu-check.sh                       there: run it all; logs in $OUT
#   tools/gpu-check.sh --ptx-only            there: only the suites and the
#       bench of proptool's PTX variant (made from SPIR-V, issue 31)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
B=$TOP/.gpu/build
if [ "${1:-}" = --stage ]; then
    BUILD=$(cd "${2:-$TOP/_build}" && pwd)
    rm -rf "$B" && mkdir -p "$B"
    # Virtual functions across separately built modules (issue 29): the
    # images with their PTX variants and multi-run, kept in the build tree's
    # tests/vf/multiwork for `multi.sh --prebuilt` there.
    SX_TEST_BUILDDIR=$BUILD SX_TEST_SRCDIR=$TOP CLANG=${CLANG:-clang-14} LLVM_SPIRV=${LLVM_SPIRV:-llvm-spirv-14} \
        sh "$TOP/tests/vf/multi/multi.sh" --build-only > "$BUILD/vf-multi-stage.log" 2>&1 ||
        { tail -n 20 "$BUILD/vf-multi-stage.log"; echo "no multi-module VF images"; }
    (cd "$BUILD" && find . -name '*.o' -prune -o -name '*.lo' -prune -o -name .deps -prune -o \
        -name '*.log' -prune -o -name '*.trs' -prune -o -name '*.bc' -prune -o \( -type f -o -type l \) -print |
        grep -v -e '^./fuzz/' -e '^./fuzz-bin/' -e '^./fuzz-artifacts/' -e '^./tests/xdg-cache/' -e '^./tests/dpcpp/work/' -e '^./tests/kernels/bt-' -e '^./tests/native-wgc/[a-z]*-work/' -e '^./tests/native-wgc/work-vmath/' -e '^./doc/' -e '^./intel-opencl/' -e '^./tests/program-cache/' -e '^./tests/mpi/work/' \
            -e '^./dpcpp-wheels/' -e '^./tests/wheels/' -e '^./tests/api-docs-work/' -e '/pocl-cache/' -e '^./tests/opencl/' -e '^./tests/level_zero/' -e '^./tests/native-wgc/wheels/' -e '^./tests/native-wgc/dpnp-work/' \
            -e '^./proptool/\(\.libs/\)\{0,1\}sx-\(wgc\|ptx\|spir-opt\)$' -e '/libsx-.*\.a$' | tar -cf - -T -) | tar -xf - -C "$B"
    # Libraries the test binaries need that the GPU image lacks.
    for l in libsubunit.so.0 libffi.so.8 libsleef.so.3; do cp -L "$(ldconfig -p | awk -v l=$l '$1 == l {print $NF; exit}')" "$B/lib/.libs/" 2>/dev/null; done
    t=$(mktemp -d)
    "${CLANG:-clang-14}" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header \
        "$TOP/tools/sx-adapter-cts.cl" -o "$t/cts.bc" && "${LLVM_SPIRV:-llvm-spirv-14}" "$t/cts.bc" -o "$t/cts.spv" &&
        "${NVCC:-/usr/local/cuda/bin/nvcc}" -ptx -rdc=true -arch=sm_90 "$TOP/tools/sx-adapter-cts.cu" -o "$t/cts.ptx" &&
        "$BUILD/proptool/proptool" -q -o "$B/cts.sximg" "$t/cts.spv" --ptx "$t/cts.ptx" || echo "no CTS image"
    # Virtual functions from C++ for OpenCL through proptool's PTX variants
    # (split into set images, linked by cuLink*), and the program that runs
    # them (issue 31).
    "${CLANG:-clang-14}" -x clcpp -cl-std=clc++ -target spir64 -O1 -c -emit-llvm -Xclang -finclude-default-header \
        "$TOP/tests/proptool/vfsets.clcpp" -o "$t/vf.bc" &&
        "${LLVM_SPIRV:-llvm-spirv-14}" --spirv-ext=+SPV_INTEL_function_pointers "$t/vf.bc" -o "$t/vf.spv" &&
        "$BUILD/proptool/proptool" -q --no-native --ptx-variant -o "$B/vf-ptx.sximg" "$t/vf.spv" &&
        ${CC:-gcc} -I"$TOP/include" -I"$BUILD/include" -o "$B/vf-e2e" "$TOP/tests/proptool/vf-e2e.c" \
            -L"$BUILD/lib/.libs" -lsycl-ext -lm || echo "no VF PTX image"
    rm -rf "$t"
    du -sh "$B"
    exit 0
fi

OUT=${OUT:-$TOP/gpu-out}
mkdir -p "$OUT"
export SX_TEST_BUILDDIR=$B SX_TEST_SRCDIR=$TOP LD_LIBRARY_PATH=$B/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export SX_NATIVE_BUILTINS=$B/adapters/native/.libs/sx-native-builtins.so SX_CACHE_DIR=$OUT/cache
export SXC_TEST_DATA=$B/tests/cuda
pass=0 fail=0 skip=0
bin() { [ -x "$B/$(dirname "$1")/.libs/$(basename "$1")" ] && echo "$B/$(dirname "$1")/.libs/$(basename "$1")" || echo "$B/$1"; }
step() { # name command...: run, log, count
    name=$1; shift
    log=$OUT/$(echo "$name" | tr '/ ' '__').log
    start=$(date +%s)
    "$@" > "$log" 2>&1; rc=$?
    case $rc in
        0) pass=$((pass + 1)); r=PASS ;;
        77) skip=$((skip + 1)); r=SKIP ;;
        *) fail=$((fail + 1)); r="FAIL (exit $rc)" ;;
    esac
    echo "$r: $name ($(( $(date +%s) - start )) s)"
    [ "$r" = PASS ] || tail -n 15 "$log"
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
# sx-info shows every adapter of the build (default discovery, search path
# first), each loaded on the spot.
SX_ADAPTERS_PATH=$B/adapters/cuda/.libs:$B/adapters/opencl/.libs:$B/adapters/level_zero/.libs \
    step sx-info "$(bin tools/sx-info)"
cat "$OUT/sx-info.log"
# The native suites' OpenCL C sources on the GPU through proptool's PTX
# variant (made from their SPIR-V): free-function kernels, device globals,
# virtual functions (issue 31).
CUDA_SO=$B/adapters/cuda/.libs/sx-adapter-cuda.so
for t in ffk dg; do
    SX_E2E_ADAPTERS=$CUDA_SO SX_E2E_TARGET=nvptx64 step "ptx-e2e-$t" "$(bin "tests/e2e/test-e2e-$t")"
done
# again: the programs come from the persistent cache now
SX_E2E_ADAPTERS=$CUDA_SO SX_E2E_TARGET=nvptx64 step ptx-e2e-ffk-cached "$(bin tests/e2e/test-e2e-ffk)"
step ptx-test-vf-cuda-spv "$(bin tests/vf/test-vf-cuda-spv)"
[ -f "$B/vf-ptx.sximg" ] && SX_ADAPTERS=$CUDA_SO SX_CACHE=0 step ptx-vf-e2e "$B/vf-e2e" "$B/vf-ptx.sximg" fp64
[ -x "$B/tests/vf/multiwork/multi-run" ] && step ptx-vf-multi sh "$TOP/tests/vf/multi/multi.sh" --prebuilt
[ -f "$B/bench/cuda/ptx-bench-ours.ptx" ] && step bench-ptx-vs-nvcc "$(bin bench/cuda/ptx-vs-nvcc)" \
    "$B/bench/cuda/ptx-bench-ours.ptx" "$B/bench/cuda/ptx-bench-nvcc.ptx"
if [ "${1:-}" != --ptx-only ]; then
for t in tests/cuda/test-cuda-nodriver tests/cuda/test-cuda-abi tests/cuda/test-cuda-core tests/cuda/test-cuda-e2e tests/cuda/test-cuda-params \
         tests/vf/test-vf-cuda; do
    step "$t" "$(bin "$t")"
done
SX_ADAPTERS=$B/adapters/cuda/.libs/sx-adapter-cuda.so \
    step tests/cuda/test-cuda-multi "$(bin tests/cuda/test-cuda-multi)" "$B/tests/cuda/props-ptx.sximg"
[ -f "$B/cts.sximg" ] && step "sx-adapter-cts cuda" "$(bin tools/sx-adapter-cts)" -i "$B/cts.sximg" \
    "$B/adapters/cuda/.libs/sx-adapter-cuda.so"
command -v compute-sanitizer >/dev/null &&
    step "compute-sanitizer test-cuda-core" compute-sanitizer --leak-check full --report-api-errors no --error-exitcode 9 \
        env CK_FORK=no "$(bin tests/cuda/test-cuda-core)"
step "tests/pcache/cuda.sh" sh "$TOP/tests/pcache/cuda.sh"
step bench-cuda "$(bin bench/cuda/bench-cuda)"
step bench-first-launch "$(bin bench/cuda/first-launch)"
step bench-cuda-core "$(bin bench/cuda/bench-cuda-core)"
step bench-dg-copy-cuda "$(bin bench/cuda/dg-copy-cuda)"
rm -rf "$OUT/cache"
step "vf-cache cuda" "$(bin bench/vf-cache)" 20 --cuda
fi
# The native device's suites on this machine's CPU (another x86-64 CPU,
# with AVX-512: issue 25): the suites that run on the native device (the
# core's fake-adapter suites do not depend on the CPU), the stress
# program, and the compiled work-group images of make check's table tests
# (tests/native-wgc/work-TABLE, built here) on every table the CPU runs.
grep -m1 'model name' /proc/cpuinfo
for t in tests/test-defects tests/native/test-native-api tests/native/test-native-wg tests/e2e/test-e2e-ffk tests/e2e/test-e2e-dg \
         tests/e2e/test-reliability; do
    [ -e "$B/$t" ] && SX_ADAPTERS=native SX_DEVICE_SELECTOR='native:*' step "cpu $t" "$(bin "$t")"
done
SX_ADAPTERS=native SX_STRESS_SECONDS=5 step "cpu stress" "$(bin tests/stress)"
for tbl in base v3 v4; do
    W=$B/tests/native-wgc/work-$tbl
    for k in wgc simd; do
        [ -f "$W/$k.sximg" ] && SX_NATIVE_WG_TABLE=$tbl SX_ADAPTERS=native SX_DEVICE_SELECTOR='native:*' SX_CACHE=0 \
            step "cpu $k-e2e table $tbl" "$(bin tests/native-wgc/$k-e2e)" "$W/$k.sximg"
    done
done
for f in ptx-e2e-ffk ptx-e2e-dg ptx-test-vf-cuda-spv ptx-vf-e2e ptx-vf-multi bench-ptx-vs-nvcc bench-cuda bench-cuda-core bench-dg-copy-cuda bench-first-launch vf-cache_cuda sx-adapter-cts_cuda tests_cuda_test-cuda-multi \
         tests_pcache_cuda.sh; do
    [ -f "$OUT/$f.log" ] && { echo "== $f"; grep -v '^PASS ' "$OUT/$f.log" | tail -n 40; }
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
