#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# multi.sh: virtual functions across separately built modules (issue 29,
# points 1 and 2). Each source goes through clang-14 + llvm-spirv-14 +
# proptool on its own (no llvm-link): lib.clcpp (four sets, the vtables
# and a device global one set uses, no kernels), use.clcpp (a kernel that creates objects, one that
# calls set_area/set_perim, one that calls set_fp64, one with a barrier inside
# the virtual function it calls), make.clcpp (a kernel
# that only creates), and the OpenCL C pair ops-lib.cl / ops-use.cl (a
# table of imported function pointers and direct calls). The images run on
# the native adapter (proptool's native variant; with fp64 hidden too) and
# on Intel's CPU OpenCL runtime where tools/intel-opencl.sh installed it.
# Where sx-ptx is built, every image also gets proptool's PTX variant
# (ptxas, where CUDA is installed, must assemble each part) and the same
# cases run on the CUDA adapter when it finds a GPU (reported as skipped
# without one).
# Oclgrind is not run: it cannot call through function pointers.
#   multi.sh               build, check and run (make check)
#   multi.sh --build-only  build and check, keep the work folder (staged by
#                          tools/gpu-check.sh --stage)
#   multi.sh --prebuilt    only run the images of a kept work folder (the GPU
#                          machine, which has no clang); a CUDA run that
#                          finds no GPU fails there
set -u
MODE=${1:-all}
case $MODE in all | --build-only | --prebuilt) ;; *) echo "usage: multi.sh [--build-only | --prebuilt]"; exit 2 ;; esac
B=${SX_TEST_BUILDDIR:-$(pwd)}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$B/tests/proptool/config.sh"
P="$B/proptool/proptool"
D="$S/tests/vf/multi"
W="$B/tests/vf/multiwork"
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
NATIVE=
PTX=
if [ "$MODE" = --prebuilt ]; then
    cd "$W" 2> /dev/null && [ -x multi-run ] || { echo "FAIL: no images built in $W (multi.sh --build-only)"; exit 1; }
    [ -n "$(ls lib-*.so 2> /dev/null)" ] && NATIVE=--native
    [ -n "$(ls lib-*.ptx 2> /dev/null)" ] && PTX=--ptx-variant
else
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: cannot build test kernels"
    exit 77
fi
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1

[ -x "$B/proptool/sx-wgc" ] && NATIVE=--native
[ -x "$B/proptool/sx-ptx" ] && PTX=--ptx-variant
CLCPP="-x clcpp -cl-std=clc++ -target spir64 -O1 -c -emit-llvm -Xclang -finclude-default-header -I$D"
CL="-target spir64 -cl-std=CL2.0 -Xclang -cl-ext=+__cl_clang_function_pointers -O1 -c -emit-llvm -Xclang -finclude-default-header"
build() { # NAME FLAGS SOURCE
    "$CLANG" $2 "$3" -o "$1.bc" && "$LLVM_SPIRV" --spirv-ext=+SPV_INTEL_function_pointers "$1.bc" -o "$1.spv" &&
        "$P" $NATIVE $PTX -o "$1.sximg" "$1.spv" 2> "$1.err"
}
for m in lib use make; do
    if build $m "$CLCPP" "$D/$m.clcpp"; then ok "$m.clcpp through clang, llvm-spirv and proptool"; else cat $m.err; ko "$m.clcpp"; fi
done
for m in ops-lib ops-use; do
    if build $m "$CL" "$D/$m.cl"; then ok "$m.cl through clang, llvm-spirv and proptool"; else cat $m.err; ko "$m.cl"; fi
done
# proptool says which exported symbols it drops (the typeinfo objects) and
# nothing else.
if grep -q 'exported typeinfo dropped.*_ZTI4Rect' lib.err; then
    ok "proptool names the exported typeinfo it drops"
else
    cat lib.err; ko "dropped typeinfo not named"
fi
if [ -n "$NATIVE" ] && ! grep -v 'exported typeinfo dropped' lib.err ops-use.err | grep -q warning; then
    ok "native variants of the library and of a module with imports in a constant initializer"
elif [ -n "$NATIVE" ]; then
    cat lib.err ops-use.err; ko "native variants made with warnings"
fi

# Point 2: the library's vtables stay, exported, in an image that links the
# sets they point at; the set images name their functions.
"$P" --dump lib.sximg > lib.dump
if sed -n '/^image 0/,/^image 1/p' lib.dump | grep -q '_ZTV4Rect: uint32 1' &&
   sed -n '/^image 0/,/^image 1/p' lib.dump | grep -q 'creates-virtual-functions-set: .*"set_area,set_fp64,set_perim,set_sync"' &&
   grep -q '_ZNU3AS4K4Rect4areaEv: uint32 1' lib.dump && grep -q 'dummy-image: uint32 1' lib.dump; then
    ok "the library's vtables are kept and exported; its sets list their functions; set_fp64 has a dummy"
else
    ko "the library's images"; grep -n 'image\|_ZTV\|set' lib.dump
fi
"$P" --dump use.sximg > use.dump
if grep -q '_ZTV4Rect: uint32 1' use.dump && [ "$(grep -c '^  entries (1)' use.dump)" -ge 3 ]; then
    ok "the kernel module imports the vtables; kernels calling different sets get their own images"
else
    ko "the kernel module's images"; grep -n 'entries\|_ZTV\|set' use.dump
fi

# The PTX variant: one per image, each assembled by ptxas (CUDA's, where
# installed) as relocatable code, as cuLink* takes it. The parts are kept
# beside the images (NAME-N.ptx, NAME-N.so) for --prebuilt.
PTXAS=${PTXAS:-}
[ -z "$PTXAS" ] && for c in ${CUDA_HOME:+$CUDA_HOME/bin/ptxas} /usr/local/cuda/bin/ptxas; do
    [ -x "$c" ] && PTXAS=$c && break
done
[ -z "$PTXAS" ] && PTXAS=$(command -v ptxas || true)
for m in lib use make ops-lib ops-use; do
    [ -f $m.sximg ] || continue
    rm -rf x && mkdir x && "$P" --dump $m.sximg --extract x > /dev/null 2>&1
    for f in x/*; do [ -f "$f" ] && cp "$f" "$m-$(basename "$f" | tr -dc 0-9).${f##*.}"; done
    [ -n "$PTX" ] || continue
    n_spv=$(ls x/*.spv 2> /dev/null | wc -l)
    n_ptx=$(ls x/*.ptx 2> /dev/null | wc -l)
    if [ "$n_ptx" -eq "$n_spv" ]; then ok "$m: every image has its PTX variant ($n_ptx)"; else ko "$m: $n_spv SPIR-V images, $n_ptx PTX"; fi
    if [ -n "$PTXAS" ]; then
        bad=
        for f in x/*.ptx; do "$PTXAS" -c -arch=sm_90 "$f" -o x/a.o 2>> ptxas.err || bad="$bad $(basename "$f")"; done
        if [ -z "$bad" ]; then ok "$m: ptxas -c assembles every part's PTX"; else cat ptxas.err; ko "$m: ptxas refuses$bad"; fi
    fi
done
rm -rf x
# The library holds no kernels: ptxas gets no 64-bit division there
# (sx-ptx expands it in functions other images call; set_sync's size_t %).
if [ -n "$PTX" ]; then
    if ! grep -q -E '(div|rem)\.[us]64' lib-*.ptx; then ok "no 64-bit division left to ptxas in the set images"
    else grep -n -E '(div|rem)\.[us]64' lib-*.ptx; ko "64-bit division left to ptxas in a set image"; fi
fi
[ -n "$PTX" ] && [ -z "$PTXAS" ] && echo "note: no ptxas here (CUDA not installed): the PTX is not assembled"

CCLINE="$CC $CPPFLAGS -I$S/include -I$B/include -o"
LIBS="-L$B/lib/.libs -lsycl-ext -lm -Wl,-rpath,$B/lib/.libs"
$CCLINE multi-run "$D/multi-run.c" $LIBS 2> cc.err || { cat cc.err; ko "multi-run builds"; }
fi

if [ "$MODE" = --build-only ]; then
    echo "multi-module virtual-function builds: $pass passed, $fail failed (kept in $W)"
    [ $fail -eq 0 ]
    exit
fi
if [ -x multi-run ]; then
    run() { # WHAT ENV... -- ARGS
        what=$1; shift
        env "$@" > run.out 2>&1; rc=$?
        cat run.out
        case $rc in 0) ok "$what" ;; 77) echo "SKIP: $what: $(cat run.out)" ;; *) ko "$what" ;; esac
    }
    cuda=$B/adapters/cuda/.libs/sx-adapter-cuda.so
    if [ -n "$PTX" ] && [ -f "$cuda" ]; then
        # The adapter links each kernel image with the set images and the
        # library's exporter image (vtables, the device global) by cuLink*.
        # No CUDA device hides fp64: set_fp64's dummy is not run here.
        for c in "three modules (fp64)|shapes lib.sximg use.sximg make.sximg fp64" \
                 "OpenCL C functions of another module|ops ops-lib.sximg ops-use.sximg"; do
            env SX_ADAPTERS="$cuda" SX_CACHE=0 ./multi-run ${c#*|} > run.out 2>&1; rc=$?
            cat run.out
            case $rc in
                0) ok "CUDA: ${c%%|*}" ;;
                77) if [ "$MODE" = --prebuilt ]; then ko "CUDA: ${c%%|*}: no GPU"; else echo "SKIP: CUDA: ${c%%|*}: $(cat run.out)"; fi ;;
                *) ko "CUDA: ${c%%|*}" ;;
            esac
        done
    elif [ "$MODE" = --prebuilt ]; then
        ko "CUDA: no PTX variants or no CUDA adapter in this build"
    else
        echo "SKIP: CUDA runs: $([ -n "$PTX" ] && echo 'the CUDA adapter is not built' || echo 'no sx-ptx, so no PTX variants')"
    fi
    if [ -n "$NATIVE" ]; then
        run "native: three modules (fp64)" SX_ADAPTERS=native SX_CACHE=0 \
            ./multi-run shapes lib.sximg use.sximg make.sximg fp64
        run "native: three modules, fp64 hidden (set_fp64's dummy)" SX_ADAPTERS=native SX_CACHE=0 \
            SX_NATIVE_HIDE_ASPECTS=fp64 ./multi-run shapes lib.sximg use.sximg make.sximg nofp64
        run "native: OpenCL C functions of another module" SX_ADAPTERS=native SX_CACHE=0 \
            ./multi-run ops ops-lib.sximg ops-use.sximg
    else
        echo "SKIP: native runs: proptool made no native variant (no sx-wgc)"
    fi
    [ "$MODE" = --prebuilt ] && intel=/nonexistent || intel=$B/intel-opencl/vendors
    ocl=$B/adapters/opencl/.libs/sx-adapter-opencl.so
    if [ -f "$intel/intel-cpu.icd" ] && [ -f "$ocl" ]; then
        # Its CPU compiler does not synchronise a barrier reached through a
        # function pointer (intel/llvm#15080): reported, not failed.
        run "Intel CPU runtime: three modules (fp64)" OCL_ICD_VENDORS="$intel" SX_ADAPTERS="$ocl" SX_CACHE=0 \
            SX_TEST_VF_BARRIER_UNSYNCED=1 ./multi-run shapes lib.sximg use.sximg make.sximg fp64
        run "Intel CPU runtime: three modules, fp64 hidden" OCL_ICD_VENDORS="$intel" SX_ADAPTERS="$ocl" SX_CACHE=0 \
            SX_TEST_VF_BARRIER_UNSYNCED=1 SX_OPENCL_HIDE_ASPECTS=6 ./multi-run shapes lib.sximg use.sximg make.sximg nofp64
        run "Intel CPU runtime: OpenCL C functions of another module" OCL_ICD_VENDORS="$intel" SX_ADAPTERS="$ocl" \
            SX_CACHE=0 ./multi-run ops ops-lib.sximg ops-use.sximg
    else
        echo "SKIP: Intel's CPU OpenCL runtime: $(cat "$B/intel-opencl/UNAVAILABLE" 2>/dev/null || echo 'not installed (tools/intel-opencl.sh)')"
    fi
fi

echo "multi-module virtual-function tests: $pass passed, $fail failed"
[ $fail -eq 0 ] || exit 1
[ "$MODE" = all ] && cd "$B" && rm -rf "$W"
exit 0
