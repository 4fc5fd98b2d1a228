# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# common.sh: sourced by groups.sh and differential.sh (issue 28): the build
# tree, the kernel build, runs on native and on Intel's CPU OpenCL runtime
# (tools/intel-opencl.sh installs it into the build tree) through wgc-run.
B=${SX_TEST_BUILDDIR:-$(pwd)}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
P="$B/proptool/proptool"
D="$S/tests/native-wgc"
RUN="$B/tests/native-wgc/wgc-run"
if [ ! -x "$B/proptool/sx-wgc" ]; then
    echo "SKIP: sx-wgc was not built (configure found no LLVM 14: apt-get install llvm-14-dev)"
    exit 77
fi
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: cannot build test kernels"
    exit 77
fi
unset SX_PROPTOOL_NATIVE SX_WGC
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit $?
}

# Intel's CPU runtime, or why not (then comparisons with it are skipped).
intel_dir=$(cd "$B" && pwd)/intel-opencl
intel_why=
if [ ! -f "$intel_dir/vendors/intel-cpu.icd" ]; then
    intel_why=$(cat "$intel_dir/UNAVAILABLE" 2>/dev/null)
    intel_why=${intel_why:-"not installed (tools/intel-opencl.sh BUILDDIR installs it)"}
elif [ ! -f "$B/adapters/opencl/.libs/sx-adapter-opencl.so" ]; then
    intel_why="the OpenCL adapter was not built"
fi

# build NAME.cl (from $D or a path) into NAME.sximg with the native variant
build() {
    src=$1 name=$(basename "$1" .cl)
    "$CLANG" -target spir64 -cl-std=CL2.0 -O2 -c -emit-llvm -Xclang -finclude-default-header "$src" -o "$name.bc" &&
        "$LLVM_SPIRV" --spirv-ext=+SPV_INTEL_subgroups "$name.bc" -o "$name.spv" &&
        "$P" --native -o "$name.sximg" "$name.spv"
}

# workdir NAME: a fresh folder for the script's files, NAME-work in the
# build tree ($W), entered
workdir() {
    W="$B/tests/native-wgc/$1-work"
    rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
}

# start NAME: workdir NAME, and $D/NAME.cl built there into NAME.sximg (a
# check; the script ends where it does not build)
start() {
    workdir "$1"
    if build "$D/$1.cl" 2> "$1.err"; then ok "$1.cl builds"; else cat "$1.err"; ko "$1.cl"; finish; fi
}

# wgc_ll NAME [OPTION]...: sx-wgc's own output for NAME.spv (with the
# options), as text in NAME.wg.ll: 0 made; 1 a step failed (counted a
# failure); 2 no llvm-dis here to read it (said)
wgc_ll() {
    name=$1
    shift
    dis=$(command -v llvm-dis-14 || command -v llvm-dis)
    if [ -z "$dis" ]; then
        echo "SKIP (checks of sx-wgc's output): no llvm-dis to read it"
        return 2
    fi
    if "$LLVM_SPIRV" -r "$name.spv" -o "$name.in.bc" && "$B/proptool/sx-wgc" "$@" -o "$name.wg.bc" "$name.in.bc" &&
       "$dis" "$name.wg.bc" -o "$name.wg.ll"; then
        return 0
    fi
    ko "sx-wgc on $name.spv"
    return 1
}

# on_native / on_intel OUT ARGS...: wgc-run on one device (bounded: a hang fails)
on_native() {
    SX_ADAPTERS=native SX_DEVICE_SELECTOR='native:*' SX_CACHE=0 timeout 300 "$RUN" "$@"
}
on_intel() {
    OCL_ICD_VENDORS="$intel_dir/vendors" SX_ADAPTERS="$B/adapters/opencl/.libs/sx-adapter-opencl.so" \
        SX_DEVICE_SELECTOR='opencl:*' SX_CACHE=0 timeout 300 "$RUN" "$@"
}

# differ WHAT IMG GLOBAL LOCAL SPEC KERNEL...: the same kernels on both, compared
differ() {
    what=$1
    shift
    if [ -n "$intel_why" ]; then
        echo "SKIP (one check): $what against Intel's CPU runtime: $intel_why"
        return 0
    fi
    img=$1
    shift
    if ! on_native "$img" native.txt "$@" > native.out 2>&1; then
        cat native.out; ko "$what: native run failed"
        return 0
    fi
    if ! on_intel "$img" intel.txt "$@" > intel.out 2>&1; then
        cat intel.out; ko "$what: Intel's runtime failed"
        return 0
    fi
    if "$RUN" --compare native.txt intel.txt > cmp.out 2>&1; then
        ok "$what: native = Intel's CPU runtime ($(cat cmp.out))"
    else
        head -c 2000 cmp.out; ko "$what: native differs from Intel's CPU runtime"
    fi
}
