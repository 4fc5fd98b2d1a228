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
# Oclgrind is not run: it cannot call through function pointers.
set -u
B=${SX_TEST_BUILDDIR:-$(pwd)}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../../.." && pwd)}
. "$B/tests/proptool/config.sh"
P="$B/proptool/proptool"
D="$S/tests/vf/multi"
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: cannot build test kernels"
    exit 77
fi
W="$B/tests/vf/multiwork"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

NATIVE=
[ -x "$B/proptool/sx-wgc" ] && NATIVE=--native
CLCPP="-x clcpp -cl-std=clc++ -target spir64 -O1 -c -emit-llvm -Xclang -finclude-default-header -I$D"
CL="-target spir64 -cl-std=CL2.0 -Xclang -cl-ext=+__cl_clang_function_pointers -O1 -c -emit-llvm -Xclang -finclude-default-header"
build() { # NAME FLAGS SOURCE
    "$CLANG" $2 "$3" -o "$1.bc" && "$LLVM_SPIRV" --spirv-ext=+SPV_INTEL_function_pointers "$1.bc" -o "$1.spv" &&
        "$P" $NATIVE -o "$1.sximg" "$1.spv" 2> "$1.err"
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

CCLINE="$CC $CPPFLAGS -I$S/include -I$B/include -o"
LIBS="-L$B/lib/.libs -lsycl-ext -lm -Wl,-rpath,$B/lib/.libs"
if ! $CCLINE multi-run "$D/multi-run.c" $LIBS 2> cc.err; then
    cat cc.err; ko "multi-run builds"
else
    run() { # WHAT ENV... -- ARGS
        what=$1; shift
        env "$@" > run.out 2>&1; rc=$?
        cat run.out
        case $rc in 0) ok "$what" ;; 77) echo "SKIP: $what: $(cat run.out)" ;; *) ko "$what" ;; esac
    }
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
    intel=$B/intel-opencl/vendors
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
if [ $fail -eq 0 ]; then
    cd "$B" && rm -rf "$W"
    exit 0
fi
exit 1
