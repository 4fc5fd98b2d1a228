#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# vmath.sh: vmath.cl's math builtins (in work-item loops the vectoriser
# widens, and on float4/float16/double3/double8) on the native device from
# each table of the compiled image this CPU can run (base, v3, v4), every
# result within the OpenCL C ulp bound against long double libm
# (vmath-e2e); and each table calls the builtins module's vector math of
# its own ISA only (issue 28).
set -u
. "$(dirname "$0")/common.sh"
W="$B/tests/native-wgc/work-vmath"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
if ! "$CLANG" -target spir64 -cl-std=CL2.0 -O2 -c -emit-llvm -Xclang -finclude-default-header "$D/vmath.cl" -o vmath.bc ||
   ! "$LLVM_SPIRV" vmath.bc -o vmath.spv || ! "$P" -q --native -o vmath.sximg vmath.spv; then
    echo "FAIL: cannot build vmath.cl into a native variant"
    exit 1
fi
"$P" --dump vmath.sximg --extract ex > /dev/null
so=$(ls ex/*.so | head -n 1)
objdump -d --no-show-raw-insn "$so" > vmath.s
# The calls of the vector math in the functions of one table (suffix: the
# table's functions end in .x86_64_v3 or .x86_64_v4, baseline ones in none;
# fib8_tanh's shared fiber body, inlined anywhere, is baseline code).
calls() {
    awk -v t="$1" '/^[0-9a-f]+ <.*>:$/ { f = $2; on = (t == "base") ? (f !~ /x86_64_v[34]/) : (index(f, t) > 0)
                                          if (f ~ /fib8/) on = 0 }  # fibers: baseline code in every table
                   on && /call.*__sx_vm_/ { sub(/.*</, ""); sub(/@plt>.*/, ""); print }' vmath.s | sort -u
}
check_isa() {  # table, the suffixes it may call, one it must call
    got=$(calls "$1")
    other=$(echo "$got" | grep -v -E "_($2)\$" | tr '\n' ' ')
    if [ -n "$other" ]; then ko "the $1 table calls vector math of another ISA: $other"; else ok "the $1 table calls only its own ISA's vector math ($(echo "$got" | grep -c .) entry points)"; fi
    if echo "$got" | grep -q "^$3\$"; then ok "the $1 table calls $3"; else ko "the $1 table does not call $3"; fi
}
check_isa base sse2 __sx_vm_exp_f4_sse2
check_isa x86_64_v3 avx2 __sx_vm_pow_f8_avx2
check_isa x86_64_v4 "avx2|avx512" __sx_vm_sin_f16_avx512
if "$P" --dump vmath.sximg | grep -A3 'fib8_tanh' | grep -q fiber; then
    ok "fib8_tanh runs on fibers (its body is shared by the tables: baseline vector math)"
else
    ko "fib8_tanh does not run on fibers: the test no longer covers that path"
fi
if grep -E 'call.*<_Z[0-9]+(min|max|clamp|abs|popcount|clz|ctz|mix|rsqrt|mul24|mad24|rotate|select|bitselect)[A-Z_a-z]' vmath.s; then
    ko "common builtins are still calls (above)"
else
    ok "min, max, clamp, abs, popcount, clz, ctz, mix, rsqrt, mul24, mad24, rotate, select and bitselect are inline"
fi
if grep -q 'call.*<ldexp' vmath.s; then ko "pow(2, k) still calls ldexp"; else ok "pow(2, k) calls no ldexp"; fi

flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { for f in "$@"; do case " $flags " in *" $f "*) ;; *) return 1 ;; esac; done; }
for table in base v3 v4; do
    case $table in
    v3) has avx2 fma bmi2 || { echo "SKIP: table v3: this CPU has no AVX2/FMA/BMI2"; continue; } ;;
    v4) has avx2 fma bmi2 avx512f avx512bw avx512cd avx512dq avx512vl ||
            { echo "SKIP: table v4: this CPU has no AVX-512"; continue; } ;;
    esac
    if SX_NATIVE_WG_TABLE=$table SX_ADAPTERS=native SX_DEVICE_SELECTOR='native:*' SX_CACHE=0 \
        "$B/tests/native-wgc/vmath-e2e" vmath.sximg > e2e-$table.out 2>&1; then
        ok "table $table: every result within the OpenCL C bound ($(grep -c '^ok ' e2e-$table.out) kernels)"
        sed "s/^ok /  $table: /" e2e-$table.out
    else
        cat e2e-$table.out
        ko "table $table: results outside the OpenCL C bounds"
    fi
done
finish
