#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ptx.sh: the PTX variant proptool makes from SPIR-V (sx-ptx, issue 31).
# ptx.cl goes through the real clang + llvm-spirv; proptool --ptx-variant
# writes PTX that ptxas (CUDA's, where installed) assembles for sm_90, and
# whose .entry, .global and .shared directives say what the CUDA adapter
# relies on: kernels by name, device globals by name, __local parameters
# as 32-bit offsets into the one dynamic shared block.
set -u
B=${SX_TEST_BUILDDIR:-$(pwd)}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
P="$B/proptool/proptool"
D="$S/tests/proptool"
if [ ! -x "$B/proptool/sx-ptx" ]; then
    echo "SKIP: sx-ptx was not built (configure found no LLVM 14 with NVPTX: apt-get install llvm-14-dev)"
    exit 77
fi
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: cannot build test kernels"
    exit 77
fi
unset SX_PROPTOOL_PTX SX_PTX
W="$B/tests/proptool/ptx-work"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
PTXAS=${PTXAS:-}
[ -z "$PTXAS" ] && for c in ${CUDA_HOME:+$CUDA_HOME/bin/ptxas} /usr/local/cuda/bin/ptxas; do
    [ -x "$c" ] && PTXAS=$c && break
done
[ -z "$PTXAS" ] && PTXAS=$(command -v ptxas || true)

if ! "$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header "$D/ptx.cl" -o ptx.bc ||
   ! "$LLVM_SPIRV" ptx.bc -o ptx.spv; then
    echo "FAIL: cannot build ptx.cl"
    exit 1
fi

# --- proptool makes the PTX variant (sx-ptx beside it)
libdev=$(ls /usr/local/cuda/nvvm/libdevice/libdevice.10.bc /usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc 2>/dev/null | head -1)
[ -n "${SX_LIBDEVICE:-}" ] && libdev=$SX_LIBDEVICE
if [ -z "$libdev" ]; then
    # without libdevice the math kernel cannot be made: the others can
    sed '/^__kernel void math/,$d' "$D/ptx.cl" > nomath.cl
    "$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header nomath.cl -o ptx.bc &&
        "$LLVM_SPIRV" ptx.bc -o ptx.spv || exit 1
    echo "note: no CUDA libdevice here: the math kernel is left out"
fi
if "$P" --no-native --ptx-variant -o ptx.sximg ptx.spv 2> p.err; then ok "proptool --ptx-variant"; else cat p.err; ko "proptool --ptx-variant"; fi
"$P" --dump ptx.sximg > dump.txt 2>&1
if [ "$(grep -c '^  target: nvptx64' dump.txt)" -eq 1 ] && [ "$(grep -c '^  target: spir64' dump.txt)" -eq 1 ]; then
    ok "one SPIR-V and one nvptx64 image"
else
    cat dump.txt; ko "images in the file"
fi
rm -rf ex && mkdir ex && "$P" --dump ptx.sximg --extract ex > /dev/null 2>&1
ptx=$(ls ex/*.ptx 2>/dev/null | head -1)
if [ -n "$ptx" ] && grep -q '^\.version' "$ptx" && grep -q '^\.target sm_80' "$ptx"; then
    ok "the nvptx64 image is PTX for sm_80"
else
    ko "no PTX extracted"; ptx=/dev/null
fi
for k in saxpy reduce atomics by_value; do
    if grep -q "^\.visible \.entry $k(" "$ptx"; then ok "kernel $k is a .entry"; else ko ".entry $k"; fi
done
if grep -q '^\.visible \.global \.align 4 \.u32 counter' "$ptx" || grep -q '^\.visible \.global .*\bcounter\b' "$ptx"; then
    ok "the device global 'counter' is a visible .global"
else
    ko ".global counter"
fi
if grep -q '^\.visible \.global .*table\[64\] = {' "$ptx"; then ok "'table' keeps its initializer"; else ko ".global table"; fi
if grep -q '^\.extern \.shared \.align 128 \.b8 __sx_local\[\];' "$ptx"; then
    ok "__local arguments use the one dynamic shared block"
else
    ko "dynamic shared block"
fi
# reduce's third parameter (the __local one) is a 32-bit offset; by_value's
# struct is a .param byte array of its size (20 bytes)
if sed -n '/^\.visible \.entry reduce(/,/^)/p' "$ptx" | grep -q '\.param \.u32 reduce_param_2'; then
    ok "a __local parameter is a .u32 offset"
else
    sed -n '/^\.visible \.entry reduce(/,/^)/p' "$ptx"; ko "__local parameter"
fi
if sed -n '/^\.visible \.entry by_value(/,/^)/p' "$ptx" | grep -q '\.param \.align 4 \.b8 by_value_param_1\[20\]'; then
    ok "a struct by value is a 20-byte .param"
else
    sed -n '/^\.visible \.entry by_value(/,/^)/p' "$ptx"; ko "struct by value"
fi
if grep -q 'bar\.sync' "$ptx" && grep -q 'atom\.shared\.add' "$ptx" && grep -q 'atom\.global\.max\.s32' "$ptx" &&
   grep -q 'mov\.u32.*%tid\.x' "$ptx" && grep -q '\.shared \.align 4 \.b8 reduce_\$_scale\[16\]' "$ptx"; then
    ok "barriers, atomics, special registers and kernel-scope __local arrays"
else
    ko "barrier/atomics/registers"
fi
if [ -n "$PTXAS" ]; then
    if "$PTXAS" -arch=sm_90 "$ptx" -o ptx.cubin 2> as.err; then ok "ptxas assembles it for sm_90"; else cat as.err; ko "ptxas"; fi
else
    echo "note: no ptxas here (CUDA not installed): the directives above are the check"
fi

# --- virtual functions (vfsets.clcpp): split into a kernel image, the set
# images and a dummy, each with its PTX variant; the kernel image's vtable
# holds the functions' addresses, the sets' functions are visible .func
# definitions, and what an image takes from another is .extern (cuLink*).
if "$CLANG" -x clcpp -cl-std=clc++ -target spir64 -O1 -c -emit-llvm -Xclang -finclude-default-header \
       "$D/vfsets.clcpp" -o vf.bc && "$LLVM_SPIRV" --spirv-ext=+SPV_INTEL_function_pointers vf.bc -o vf.spv &&
   "$P" --no-native --ptx-variant -o vf.sximg vf.spv 2> vf.err; then
    n_spv=$("$P" --dump vf.sximg | grep -c '^  target: spir64')
    n_ptx=$("$P" --dump vf.sximg | grep -c '^  target: nvptx64')
    if [ "$n_spv" -ge 3 ] && [ "$n_ptx" -eq "$n_spv" ]; then ok "every split image has its PTX variant ($n_ptx)"; else ko "split: $n_spv SPIR-V, $n_ptx PTX"; fi
    rm -rf exv && mkdir exv && "$P" --dump vf.sximg --extract exv > /dev/null 2>&1
    if grep -l '^\.visible \.global .* _ZTV4Base\[5\] = {0, 0, ' exv/*.ptx > /dev/null &&
       grep -l '^\.extern \.func' exv/*.ptx > /dev/null && grep -l '^\.visible \.func .*Base3foo' exv/*.ptx > /dev/null; then
        ok "vtable with function addresses, .extern imports, exported set functions"
    else
        ko "virtual-function PTX"
    fi
    if [ -n "$PTXAS" ]; then
        bad=0
        for f in exv/*.ptx; do "$PTXAS" -c -arch=sm_90 "$f" -o vf.o 2>> vfas.err || bad=1; done
        if [ $bad = 0 ]; then ok "ptxas -c assembles every split image's PTX"; else cat vfas.err; ko "ptxas -c of the split"; fi
    fi
else
    cat vf.err 2>/dev/null; ko "virtual functions through the PTX variant"
fi

# --- options: off, the environment, --ptx given, a missing tool
if "$P" --no-native --no-ptx-variant -o off.sximg ptx.spv && [ "$("$P" --dump off.sximg | grep -c '^  target: nvptx64')" -eq 0 ] &&
   SX_PROPTOOL_PTX=off "$P" --no-native -o env.sximg ptx.spv && [ "$("$P" --dump env.sximg | grep -c '^  target: nvptx64')" -eq 0 ]; then
    ok "--no-ptx-variant and SX_PROPTOOL_PTX=off make no PTX variant"
else
    ko "--no-ptx-variant"
fi
if "$P" --no-native -o def.sximg ptx.spv 2> def.err && [ "$("$P" --dump def.sximg | grep -c '^  target: nvptx64')" -eq 1 ]; then
    ok "the PTX variant is made by default"
else
    cat def.err; ko "default PTX variant"
fi
cp "$ptx" given.ptx
if "$P" --no-native -o given.sximg ptx.spv --ptx given.ptx 2> given.err &&
   [ "$("$P" --dump given.sximg | grep -c '^  target: nvptx64')" -eq 1 ]; then
    ok "--ptx FILE: no second PTX variant"
else
    cat given.err; ko "--ptx FILE"
fi
if "$P" --no-native --ptx-variant --sx-ptx /nonexistent/sx-ptx -o x.sximg ptx.spv 2> miss.err; then
    ko "--ptx-variant with a missing sx-ptx succeeded"
elif grep -q "error: --ptx-variant: '/nonexistent/sx-ptx' cannot be run" miss.err; then
    ok "--ptx-variant with a missing sx-ptx is an error naming it"
else
    cat miss.err; ko "missing sx-ptx: wrong message"
fi
if "$P" --no-native --sx-ptx /nonexistent/sx-ptx -o y.sximg ptx.spv 2> note.err &&
   grep -q "note: no PTX variants made from SPIR-V: '/nonexistent/sx-ptx' cannot be run" note.err &&
   [ "$("$P" --dump y.sximg | grep -c '^  target: nvptx64')" -eq 0 ]; then
    ok "a missing sx-ptx by default: a note, no PTX variant"
else
    cat note.err; ko "missing sx-ptx by default"
fi
if "$P" --ptx-arch 80 -o z.sximg ptx.spv 2> arch.err; then
    ko "--ptx-arch 80 accepted"
elif grep -q "ptx-arch takes sm_NN" arch.err; then
    ok "--ptx-arch checks its value"
else
    cat arch.err; ko "--ptx-arch: wrong message"
fi
# a builtin the variant lacks (printf): a warning by default, an error with --ptx-variant
cat > img.cl <<'CL'
__kernel void img(__global int *o) { printf("%d\n", o[0]); }
CL
if "$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header img.cl -o img.bc 2>/dev/null &&
   "$LLVM_SPIRV" img.bc -o img.spv 2>/dev/null; then
    if "$P" --no-native -o img.sximg img.spv 2> img.err && grep -q "warning: img.spv: no PTX variant" img.err &&
       grep -q "no PTX definition of printf" img.err &&
       ! "$P" --no-native --ptx-variant -o img2.sximg img.spv 2> img2.err && grep -q "error: img.spv: PTX variant: " img2.err &&
       grep -q "no PTX definition of printf" img2.err; then
        ok "a missing builtin: warning by default, error with --ptx-variant"
    else
        cat img.err img2.err 2>/dev/null; ko "missing builtin"
    fi
fi

echo "ptx tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
