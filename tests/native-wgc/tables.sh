#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tables.sh TABLE: the kernels of wgc.cl and simd.cl (work-items in SIMD
# lanes) on the native device from one table of the compiled images:
# base (x86-64), v3 (AVX2, FMA, BMI2) or v4 (AVX-512); skips (77) where
# this CPU lacks what the table needs. Run as table-base.sh, table-v3.sh,
# table-v4.sh.
set -u
table=${1:?usage: tables.sh base|v3|v4}
B=${SX_TEST_BUILDDIR:-$(pwd)}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
P="$B/proptool/proptool"
D="$S/tests/native-wgc"
if [ ! -x "$B/proptool/sx-wgc" ]; then
    echo "SKIP: sx-wgc was not built (configure found no LLVM 14: apt-get install llvm-14-dev)"
    exit 77
fi
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: cannot build test kernels"
    exit 77
fi
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { for f in "$@"; do case " $flags " in *" $f "*) ;; *) return 1 ;; esac; done; }
case $table in
base) sym=__sx_wg_table ;;
v3) sym=__sx_wg_table_x86_64_v3
    has avx2 fma bmi2 || { echo "SKIP: this CPU has no AVX2/FMA/BMI2 (x86-64-v3)"; exit 77; } ;;
v4) sym=__sx_wg_table_x86_64_v4
    has avx2 fma bmi2 avx512f avx512bw avx512cd avx512dq avx512vl ||
        { echo "SKIP: this CPU has no AVX-512 F/BW/CD/DQ/VL (x86-64-v4)"; exit 77; } ;;
*) echo "tables.sh: unknown table '$table' (base, v3 or v4)"; exit 2 ;;
esac
unset SX_PROPTOOL_NATIVE SX_WGC
W="$B/tests/native-wgc/work-$table"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

for f in wgc simd; do
    if ! "$CLANG" -target spir64 -cl-std=CL2.0 -O2 -c -emit-llvm -Xclang -finclude-default-header "$D/$f.cl" -o $f.bc ||
       ! "$LLVM_SPIRV" $f.bc -o $f.spv || ! "$P" -q --native -o $f.sximg $f.spv; then
        echo "FAIL: cannot build $f.cl into a native variant"
        exit 1
    fi
done
"$P" --dump simd.sximg --extract ex > /dev/null
so=$(ls ex/*.so | head -n 1)
if nm -D --defined-only "$so" | grep -q " $sym\$"; then ok "the image has the $table table ($sym)"; else ko "no $sym in $so"; fi
if nm -D --undefined-only "$so" | grep -q 'atomic_\|atom_'; then
    ko "atomics left as calls: $(nm -D --undefined-only "$so" | grep 'atomic_\|atom_' | tr '\n' ' ')"
else
    ok "integer atomics are inline (no call into the builtins module)"
fi
if [ "$table" = v4 ]; then
    # the AVX-512 functions use 512-bit registers in the work-item loops
    if objdump -d --no-show-raw-insn "$so" | awk '/x86_64_v4>:$/ {on=1} /^$/ {on=0} on' | grep -q zmm; then
        ok "the x86-64-v4 work-group functions use AVX-512 (zmm) vectors"
    else
        ko "no zmm instruction in the x86-64-v4 functions"
    fi
fi
run_e2e() {
    SX_NATIVE_WG_TABLE=$table SX_ADAPTERS=native SX_DEVICE_SELECTOR='native:*' SX_CACHE=0 "$@"
}
if run_e2e "$B/tests/native-wgc/wgc-e2e" wgc.sximg > wgc-e2e.out 2>&1; then
    ok "wgc.cl's kernels match the host reference on table $table ($(grep -c '^ok ' wgc-e2e.out) checks)"
else
    cat wgc-e2e.out; ko "wgc.cl's kernels on table $table"
fi
if run_e2e "$B/tests/native-wgc/simd-e2e" simd.sximg > simd-e2e.out 2>&1; then
    ok "simd.cl's kernels match the host reference on table $table ($(grep -c '^ok ' simd-e2e.out) checks)"
else
    cat simd-e2e.out; ko "simd.cl's kernels on table $table"
fi
# the same kernels without implicit loop barriers give the same results
printf '#!/bin/sh\nexec "%s" --no-implicit-barriers "$@"\n' "$B/proptool/sx-wgc" > wgc-noimp.sh
chmod +x wgc-noimp.sh
if "$P" -q --native --wgc "$W/wgc-noimp.sh" -o simd-noimp.sximg simd.spv &&
   run_e2e "$B/tests/native-wgc/simd-e2e" simd-noimp.sximg > noimp.out 2>&1; then
    ok "simd.cl without implicit loop barriers matches too"
else
    cat noimp.out 2>/dev/null; ko "simd.cl without implicit loop barriers"
fi
# and with the loops that start at the work-item made uniform (covtri)
printf '#!/bin/sh\nexec "%s" --uniformize-loops "$@"\n' "$B/proptool/sx-wgc" > wgc-uni.sh
chmod +x wgc-uni.sh
if "$P" -q --native --wgc "$W/wgc-uni.sh" -o simd-uni.sximg simd.spv &&
   run_e2e "$B/tests/native-wgc/simd-e2e" simd-uni.sximg > uni.out 2>&1; then
    ok "simd.cl with --uniformize-loops matches too"
else
    cat uni.out 2>/dev/null; ko "simd.cl with --uniformize-loops"
fi
echo "native-wgc tables ($table): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
