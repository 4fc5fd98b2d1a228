#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# run.sh: native variants made by proptool from SPIR-V (sx-wgc, issue 13).
# wgc.cl goes through the real clang + llvm-spirv; proptool --native
# compiles each kernel into a work-group function (barrier regions) or a
# fiber fallback and says which in --dump; wgc-e2e runs every kernel on
# the native device and compares with a host reference.
set -u
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
unset SX_PROPTOOL_NATIVE SX_WGC
table_skipped=
W="$B/tests/native-wgc/work"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

if ! "$CLANG" -target spir64 -cl-std=CL2.0 -O2 -c -emit-llvm -Xclang -finclude-default-header "$D/wgc.cl" -o wgc.bc ||
   ! "$LLVM_SPIRV" wgc.bc -o wgc.spv; then
    echo "FAIL: cannot build wgc.cl"
    exit 1
fi

# --- proptool makes the native variant by default (sx-wgc is beside it)
if "$P" -o wgc.sximg wgc.spv 2> p.err; then ok "proptool with the native variant"; else cat p.err; ko "proptool"; fi
"$P" --dump wgc.sximg > dump.txt
if [ "$(grep -c '^  target: host_x86_64' dump.txt)" -eq 1 ] && [ "$(grep -c '^  target: spir64' dump.txt)" -eq 1 ]; then
    ok "one SPIR-V and one native image"
else
    ko "images: $(grep '^  target:' dump.txt | tr '\n' ' ')"
fi
# which kernels run as regions, which fall back, and why
for k in saxpy:0 reduce:2 loop_barrier:3 branch_nested:5 matmul:2 local_copies:1 ids3:0 if_device:0 atomics:2 by_value:0 divergent:1; do
    name=${k%%:*} nb=${k#*:}
    if grep -q "^    $name: string \"regions: $nb barrier" dump.txt; then ok "$name: regions, $nb barriers"; else ko "$name: $(grep "^    $name: string" dump.txt)"; fi
done
if grep -q "^    fallback: string \"fiber: calls 'depth', which cannot be inlined (recursion) and uses barriers or work-item functions\"" dump.txt; then
    ok "--dump says which kernel falls back to fibers and why"
else
    ko "fallback: $(grep '^    fallback: string' dump.txt)"
fi
if grep -q '^    local_copies: string "regions: 1 barrier, local 128 bytes' dump.txt; then
    ok "kernel-scope __local arrays are laid out per work-group (local_bytes)"
else
    ko "local_copies: $(grep '^    local_copies: string' dump.txt)"
fi
"$P" --dump wgc.sximg --extract ex > /dev/null
if nm -D --defined-only ex/image1.so | grep -q ' __sx_wg_table$' && nm -D --defined-only ex/image1.so | grep -q ' __sx_wg_abi$' &&
   nm -D --defined-only ex/image1.so | grep -q ' __sx_wg_table_x86_64_v3$' &&
   ! nm -D --defined-only ex/image1.so | grep -q ' saxpy$\| reduce$'; then
    ok "the image exports the work-group tables (baseline and x86-64-v3); kernels are reached through them only"
else
    nm -D ex/image1.so; ko "image symbols"
fi

# --- every kernel on the native device against a host reference, from
# each work-group table the CPU runs (SX_NATIVE_WG_TABLE picks it whatever
# the CPU's best): the baseline, x86-64-v3 where the CPU has AVX2, FMA and
# BMI2 (else the run is skipped, and the script exits 77 after the rest)
cpu_lacks=
for f in avx2 fma bmi2; do grep -qw "$f" /proc/cpuinfo 2>/dev/null || cpu_lacks="$cpu_lacks $f"; done
for table in base x86-64-v3; do
    if [ "$table" = x86-64-v3 ] && [ -n "$cpu_lacks" ]; then
        table_skipped="the x86-64-v3 work-group table: this CPU lacks$cpu_lacks"
        echo "SKIP: $table_skipped"
        continue
    fi
    if SX_NATIVE_WG_TABLE=$table SX_ADAPTERS=native SX_DEVICE_SELECTOR='native:*' SX_CACHE=0 \
       "$B/tests/native-wgc/wgc-e2e" wgc.sximg > e2e-$table.out 2>&1; then
        ok "all kernels on the native device match the host reference ($(grep -c '^ok ' e2e-$table.out) checks, table $table)"
    else
        cat e2e-$table.out; ko "kernels on the native device (table $table)"
    fi
done

# --- the same under valgrind: private and local blocks sized right, no
# uninitialised value steering a compiled region
if [ -n "${VALGRIND:-}" ]; then
    exe="$B/tests/native-wgc/.libs/wgc-e2e"
    [ -x "$exe" ] || exe="$B/tests/native-wgc/wgc-e2e"
    if LD_LIBRARY_PATH="$B/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" SX_NATIVE_THREADS=2 SX_ADAPTERS=native \
       SX_DEVICE_SELECTOR='native:*' SX_CACHE=0 "$VALGRIND" -q --error-exitcode=9 "$exe" wgc.sximg reduce loop_barrier \
       branch_nested matmul local_copies fallback > vg.out 2>&1; then
        ok "valgrind: compiled regions and the fallback run clean"
    else
        cat vg.out; ko "valgrind reports errors in compiled kernels"
    fi
fi

# --- two images importing from each other (a function and a variable each
# way): the kernel calls into the other image, so it runs as fibers
for f in a b; do
    "$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header \
        "$S/tests/kernels/native-link-$f.cl" -o link-$f.bc && "$LLVM_SPIRV" link-$f.bc -o link-$f.spv
done
if "$P" --native -o link.sximg link-a.spv link-b.spv 2> link.err &&
   "$P" --dump link.sximg | grep -q "^    linked: string \"fiber: calls 'helper' of another image" &&
   SX_ADAPTERS=native SX_DEVICE_SELECTOR='native:*' SX_CACHE=0 "$B/tests/native-wgc/wgc-e2e" link.sximg linked > link.out 2>&1; then
    ok "imports between native variants go through __sx_wg_imports; the importing kernel falls back and says why"
else
    cat link.err link.out 2>/dev/null; ko "linked native variants"
fi

# --- vectors the builtins module takes in other registers or in memory
# (needs a builtins module with vload8/vstore2/abs_diff..., issue 19's)
if nm -D --defined-only "${SX_NATIVE_BUILTINS:-/nonexistent}" 2>/dev/null | grep -q ' _Z7vstore2Dv2_cmPU9CLgenericc$'; then
    if "$CLANG" -target spir64 -cl-std=CL2.0 -O2 -c -emit-llvm -Xclang -finclude-default-header "$D/vecabi.cl" -o vecabi.bc &&
       "$LLVM_SPIRV" vecabi.bc -o vecabi.spv && "$P" --native -o vecabi.sximg vecabi.spv &&
       SX_ADAPTERS=native SX_DEVICE_SELECTOR='native:*' SX_CACHE=0 "$B/tests/native-wgc/wgc-e2e" vecabi.sximg vec_abi fract_ptr > vec.out 2>&1; then
        ok "builtins with 2-, 4-, 8- and 32-byte vectors called with clang's x86-64 ABI, and with pointers"
    else
        cat vec.out; ko "vector builtins ABI"
    fi
else
    echo "SKIP (one check): the builtins module lacks the vector builtins of vecabi.cl"
fi

# --- options: --no-native, the environment, a missing compiler
if "$P" --no-native -o off.sximg wgc.spv && [ "$("$P" --dump off.sximg | grep -c '^  target: host_x86_64')" -eq 0 ] &&
   SX_PROPTOOL_NATIVE=off "$P" -o env.sximg wgc.spv && [ "$("$P" --dump env.sximg | grep -c '^  target: host_x86_64')" -eq 0 ]; then
    ok "--no-native and SX_PROPTOOL_NATIVE=off make no native variant"
else
    ko "--no-native"
fi
if "$P" --native --wgc /nonexistent/sx-wgc -o x.sximg wgc.spv 2> miss.err; then
    ko "--native without a compiler succeeded"
elif grep -q "error: --native: '/nonexistent/sx-wgc' cannot be run" miss.err && [ ! -e x.sximg ]; then
    ok "--native without a compiler is an error naming it"
else
    cat miss.err; ko "--native without a compiler: wrong message"
fi
if "$P" --wgc /nonexistent/sx-wgc -o y.sximg wgc.spv 2> miss.err && grep -q "note: no native variants made from SPIR-V" miss.err &&
   [ "$("$P" --dump y.sximg | grep -c '^  target: host_x86_64')" -eq 0 ]; then
    ok "without a compiler proptool says so and still writes the SPIR-V image"
else
    cat miss.err; ko "without a compiler (default mode)"
fi

# --- the old flow: --host keeps working, and a kernel with kernel-scope
# __local variables is named (a host object shares them between groups)
# (OpenCL C cannot declare them outside kernels, so the host object here
# is C with the kernels' names: proptool only reads its symbols).
for k in saxpy reduce loop_barrier branch_nested matmul syrk local_copies ids3 fallback if_device atomics by_value divergent; do
    echo "void $k(void) {}"
done > host.c
if ${CC:-cc} -shared -fPIC -o host.so host.c 2> cc.err; then
    if "$P" -o host.sximg wgc.spv --host host.so 2> host.err && [ "$("$P" --dump host.sximg | grep -c '^  target: host_x86_64')" -eq 1 ] &&
       ! "$P" --dump host.sximg | grep -q 'SX/native work-groups'; then
        ok "--host still gives the host image (and no native variant beside it)"
    else
        cat host.err; ko "--host"
    fi
    if grep -q "warning: host.so: kernel 'reduce' has the kernel-scope __local variable 'reduce.l'" host.err &&
       grep -q "warning: host.so: kernel 'matmul' has the kernel-scope __local variable" host.err &&
       ! grep -q "kernel 'saxpy'\|kernel 'loop_barrier'" host.err; then
        ok "--host names the kernels with kernel-scope __local variables"
    else
        cat host.err; ko "--host: kernel-scope __local warning"
    fi
else
    cat cc.err; ko "host object"
fi

echo "native-wgc tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ] || exit 1
if [ -n "${table_skipped:-}" ]; then
    echo "SKIP: everything else passed, but not run: $table_skipped"
    exit 77
fi
