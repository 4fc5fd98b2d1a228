#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# second-process.sh opencl|cuda: a one-image program is built and stored by
# one process and served from the persistent cache in the next (no build),
# and runs right. opencl: PoCL (its SPIR image); cuda: the PTX of
# tests/cuda/props.cu, the second time with the driver's JIT cache off,
# so only our cache can spare the JIT. Exit 77 where the backend is absent.
set -u
build=${SX_TEST_BUILDDIR:-.}
run=$build/tests/pcache/pcache-run
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-pcache.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM
export SX_CACHE_DIR=$tmp/cache
case ${1:-} in
opencl)
    image=$build/tests/kernels/ocl-e2e.sximg
    [ -f "$image" ] || { echo "SKIP: $image not built (no clang-14 / llvm-spirv-14)"; exit 77; }
    mkdir -p "$tmp/icd"
    for icd in /etc/OpenCL/vendors/*.icd; do
        [ -f "$icd" ] && grep -qi pocl "$icd" && cp "$icd" "$tmp/icd/"
    done
    ls "$tmp/icd"/*.icd >/dev/null 2>&1 || { echo "SKIP: PoCL is not installed"; exit 77; }
    export OCL_ICD_VENDORS=$tmp/icd SX_ADAPTERS=$build/adapters/opencl/.libs/sx-adapter-opencl.so
    mode=axpy want=3,4,5,6 ;;
cuda)
    image=$build/tests/cuda/props-ptx.sximg
    [ -f "$image" ] || { echo "SKIP: $image not built (no nvcc)"; exit 77; }
    export SX_ADAPTERS=$build/adapters/cuda/.libs/sx-adapter-cuda.so
    mode=tile want=2,4,6,8 ;;
*)
    echo "usage: second-process.sh opencl|cuda"; exit 99 ;;
esac
check() { # name output expected-fields...
    name=$1 out=$2; shift 2
    for f in "$@"; do
        case " $out " in
            *" $f "*) ;;
            *) echo "FAIL: $name: want $f in: $out"; exit 1 ;;
        esac
    done
    echo "ok: $name: $out"
}
out=$("$run" "$image" $mode); rc=$?
[ $rc -eq 77 ] && { echo "SKIP: no device for this backend"; exit 77; }
[ $rc -eq 0 ] || { echo "FAIL: first process exited $rc"; exit 1; }
check "first process builds and stores" "$out" builds=1 disk_hits=0 disk_writes=1 out=$want
n=$(ls "$SX_CACHE_DIR"/*.bin | wc -l)
[ "$n" -eq 1 ] || { echo "FAIL: $n cache entries, want 1"; exit 1; }
out=$(CUDA_CACHE_DISABLE=1 "$run" "$image" $mode) || { echo "FAIL: second process failed"; exit 1; }
check "second process from the cache" "$out" builds=0 disk_hits=1 disk_writes=0 disk_rejects=0 out=$want
# Off: built again, nothing read or written.
out=$(SX_CACHE=0 "$run" "$image" $mode) || { echo "FAIL: third process failed"; exit 1; }
check "cache off" "$out" builds=1 disk_hits=0 disk_writes=0 out=$want
