#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# trace.sh: libsycl-ext-trace.so preloaded in front of swap-app: one line
# per sx_ call with decoded arguments, result names and durations; the
# program's own output unchanged; SX_TRACE_FILE and SX_TRACE_API=0; and the
# layer wraps exactly the library's exports (names and version nodes).
set -u
B=${SX_TEST_BUILDDIR:-.}
trace=$B/trace/.libs/libsycl-ext-trace.so
lib=$B/lib/.libs/libsycl-ext.so
app=$B/tests/abi/swap-app
img=$B/tests/abi/abi-a.sximg
for f in "$trace" "$lib" "$app" "$img"; do
    [ -f "$f" ] || { echo "SKIP: $f not built"; exit 77; }
done
export SX_ADAPTERS=native
fail=0 pass=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sx-trace.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# Same exports, same version nodes: the wrappers cannot miss a function.
nm -D --defined-only "$lib" | awk '$2 == "T" {print $3}' | sort > "$tmp/lib.syms"
nm -D --defined-only "$trace" | awk '$2 == "T" {print $3}' | sort > "$tmp/trace.syms"
if diff -u "$tmp/lib.syms" "$tmp/trace.syms"; then
    ok "the layer exports the library's $(wc -l < "$tmp/lib.syms") functions with their versions"
else
    ko "the layer's exports differ from the library's (- library only, + layer only)"
fi

"$app" "$img" > "$tmp/plain.out" 2> "$tmp/plain.err" || { cat "$tmp/plain.err"; ko "swap-app without the layer"; }
LD_PRELOAD=$trace "$app" "$img" > "$tmp/traced.out" 2> "$tmp/traced.err"
rc=$?
if [ $rc -eq 0 ] && cmp -s "$tmp/plain.out" "$tmp/traced.out"; then
    ok "same output and status with the layer preloaded"
else
    cat "$tmp/traced.err"; ko "traced run: status $rc or output differs"
fi
expect() { # DESCRIPTION EXTENDED-REGEX
    if grep -Eq "$2" "$tmp/traced.err"; then ok "$1"; else ko "$1: no line matches /$2/"; fi
}
T='^sx-trace [0-9]+ '
D=' \([0-9]+\.[0-9]{3} us\)'
expect "sx_get_version with its outputs" "${T}sx_get_version\(major=0x[0-9a-f]+, minor=0x[0-9a-f]+, patch=0x[0-9a-f]+\) -> SX_SUCCESS \*major=[0-9]+ \*minor=[0-9]+ \*patch=[0-9]+$D\$"
expect "a path argument quoted, a handle returned" "${T}sx_image_file_load\(path=\".*abi-a\.sximg\", file=0x[0-9a-f]+\) -> SX_SUCCESS \*file=0x[0-9a-f]+$D\$"
expect "flags in hex" "${T}sx_init\(flags=0x0\) -> SX_SUCCESS$D\$"
expect "a failing call: result name and the error message" "${T}sx_kernel_get\(name=\"abi_no_such_kernel\", kernel=0x[0-9a-f]+\) -> SX_ERROR_INVALID_KERNEL_NAME$D: .*abi_no_such_kernel"
expect "the application's own sx_result_name calls" "${T}sx_result_name\(result=SX_ERROR_INVALID_KERNEL_NAME\) -> \"SX_ERROR_INVALID_KERNEL_NAME\"$D\$"
expect "enum arguments by name, sizes in bytes" "${T}sx_usm_alloc\(context=0x[0-9a-f]+, device=0x[0-9a-f]+, type=SX_USM_TYPE_SHARED, size=128, align=0, ptr=0x[0-9a-f]+\) -> SX_SUCCESS \*ptr=0x[0-9a-f]+$D\$"
expect "handle arrays" "${T}sx_context_create\(num_devices=1, devices=\[0x[0-9a-f]+\], context=0x[0-9a-f]+\) -> SX_SUCCESS \*context=0x[0-9a-f]+$D\$"
expect "a launch: sizes and every argument decoded" "${T}sx_queue_launch\(queue=0x[0-9a-f]+, kernel=0x[0-9a-f]+, work_dim=1, global_offset=NULL, global_size=\{32\}, local_size=NULL, num_args=2, args=\[#0 ptr 0x[0-9a-f]+, #1 value 4 \(0x00000003\)\], num_events=0, wait_list=NULL, event=NULL\) -> SX_SUCCESS$D\$"
expect "NULL pointers" "${T}sx_queue_launch\(.*global_offset=NULL"
expect "teardown" "${T}sx_fini\(\) -> SX_SUCCESS$D\$"
# Calls the library makes to its own exports are not traced (one line per
# application call): the app calls sx_kernel_get once for the missing name
# and once through abi_run_fill.
n=$(grep -Ec "${T}sx_kernel_get\\(" "$tmp/traced.err")
if [ "$n" -eq 2 ]; then ok "one line per application call (2 sx_kernel_get)"; else ko "$n sx_kernel_get lines, expected 2"; fi
if grep -v '^sx-trace ' "$tmp/traced.err" | grep -v '^library file:' | grep -q .; then
    grep -v '^sx-trace ' "$tmp/traced.err"; ko "stray output on stderr"
else
    ok "$(grep -c '^sx-trace ' "$tmp/traced.err") trace lines, nothing else"
fi

# To a file; off.
SX_TRACE_FILE=$tmp/trace.log LD_PRELOAD=$trace "$app" "$img" > /dev/null 2> "$tmp/file.err"
if grep -q '^sx-trace ' "$tmp/file.err"; then
    ko "SX_TRACE_FILE: lines still on stderr"
elif [ "$(grep -c '^sx-trace ' "$tmp/trace.log" 2>/dev/null)" = "$(grep -c '^sx-trace ' "$tmp/traced.err")" ]; then
    ok "SX_TRACE_FILE: every line in the file"
else
    ko "SX_TRACE_FILE: $(grep -c '^sx-trace ' "$tmp/trace.log" 2>/dev/null) lines in the file"
fi
SX_TRACE_API=0 LD_PRELOAD=$trace "$app" "$img" > "$tmp/off.out" 2> "$tmp/off.err"
rc=$?
if [ $rc -eq 0 ] && ! grep -q '^sx-trace ' "$tmp/off.err" && cmp -s "$tmp/plain.out" "$tmp/off.out"; then
    ok "SX_TRACE_API=0: silent, same output"
else
    ko "SX_TRACE_API=0: status $rc or trace lines"
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
