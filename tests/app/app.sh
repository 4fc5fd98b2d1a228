#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tests/app/app.sh: the newcomer's application (examples/app, written with
# sycl-ext/device.h, built by hand with the producer recipe; its two
# virtual-function sets in a library module built apart) runs right on
# the native device and on Intel's CPU OpenCL runtime (skipped, saying why,
# where tools/intel-opencl.sh installed none); on native once more with
# SX_TRACE=FILE.json, and the timeline is checked (check-trace.py): valid
# JSON, spans nested and ordered per thread, launch and copy arguments.
set -u
B=${SX_TEST_BUILDDIR:?} S=${SX_TEST_SRCDIR:?}
W=$B/tests/app/work
rm -rf "$W" && mkdir -p "$W" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
unset SX_TRACE SX_LOG SX_DEVICE_SELECTOR SX_ADAPTERS OCL_ICD_VENDORS OCL_ICD_FILENAMES
export SX_CACHE_DIR="$W/cache"
app=$B/examples/app/app

# The virtual-function sets live in a module of their own (shapes-lib.clcpp,
# its own proptool run: shapes-lib.sximg): its images are the two sets and
# the vtables' exporter, no kernel; the kernels' images (app.sximg) call
# them and import the vtables, and define no set.
P=$B/proptool/proptool
"$P" --dump "$B/examples/app/shapes-lib.sximg" >"$W/lib.dump" && "$P" --dump "$B/examples/app/app.sximg" >"$W/app.dump" ||
    fail "proptool --dump of the app's images"
grep -q '^    virtual-functions-set: .*"set_area"' "$W/lib.dump" && grep -q '^    virtual-functions-set: .*"set_perim"' "$W/lib.dump" &&
    grep -q '_ZTV6Square: uint32 1' "$W/lib.dump" && ! grep -q '^  entries ([1-9]' "$W/lib.dump" ||
    { cat "$W/lib.dump"; fail "shapes-lib.sximg is not the two sets and the vtables' exporter"; }
grep -q '^    virtual-functions-set:' "$W/app.dump" && { cat "$W/app.dump"; fail "app.sximg defines a virtual-function set"; }
grep -q 'calls-virtual-functions-set: .*"set_perim"' "$W/app.dump" && grep -q '_ZTV6Square: uint32 1' "$W/app.dump" ||
    { cat "$W/app.dump"; fail "app.sximg's kernels do not call the library's sets"; }
echo "PASS: the sets are shapes-lib.clcpp's images, apart from the kernels that use them"

SX_DEVICE_SELECTOR='native:*' "$app" >"$W/native.out" 2>&1 || { cat "$W/native.out"; fail "app on native"; }
grep -q '^OK: ' "$W/native.out" || { cat "$W/native.out"; fail "app on native: no OK"; }
echo "PASS: the app on native"
# examples/params: every parameter kind, work_group_memory included.
SX_DEVICE_SELECTOR='native:*' "$B/examples/params/params" >"$W/params.out" 2>&1 && grep -q '^OK: ' "$W/params.out" ||
    { cat "$W/params.out"; fail "examples/params on native"; }
echo "PASS: every parameter kind on native"

# With the timeline: a cold cache (the writer thread's spans too), then
# the checker. The file is complete when the process has ended.
SX_TRACE="$W/trace-%p.json" SX_CACHE_DIR="$W/cache2" SX_DEVICE_SELECTOR='native:*' "$app" >"$W/trace.out" 2>&1 ||
    { cat "$W/trace.out"; fail "app on native with SX_TRACE=FILE.json"; }
t=$(ls "$W"/trace-*.json 2>/dev/null | head -n 1)
[ -n "$t" ] || fail "SX_TRACE=$W/trace-%p.json wrote no file"
if command -v python3 >/dev/null 2>&1; then
    python3 "$S/tests/app/check-trace.py" "$t" || fail "the timeline $t"
    echo "PASS: the timeline parses, nests per thread and carries the launch and copy arguments"
else
    echo "SKIP: python3 not installed: the timeline is not parsed"
fi
# SX_TRACE=1 is still the text trace, now with each call's arguments.
SX_TRACE=1 SX_DEVICE_SELECTOR='native:*' "$app" >"$W/text.out" 2>&1 || { cat "$W/text.out"; fail "app with SX_TRACE=1"; }
grep -q 'trace native enqueue.kernel_launch -> SX_SUCCESS {.*dims=2, .*num_args=.*} ([0-9.]* us)' "$W/text.out" ||
    { grep trace "$W/text.out" | head; fail "SX_TRACE=1 does not show the launch's arguments"; }
# SX_LOG=debug says what the runtime decided.
SX_LOG=debug SX_CACHE_DIR="$W/cache3" SX_DEVICE_SELECTOR='native:*' "$app" >"$W/debug.out" 2>&1 ||
    { cat "$W/debug.out"; fail "app with SX_LOG=debug"; }
for what in "registered [0-9]* image" "resolved to [0-9]* image" "program cache miss" "built image\|linked [0-9]* images" \
            "launch of '__sycl_kernel_blur2d'"; do
    grep -q "sycl-ext debug: .*$what\|sycl-ext info: .*$what" "$W/debug.out" || { cat "$W/debug.out"; fail "SX_LOG=debug does not say '$what'"; }
done
echo "PASS: SX_TRACE=1 shows arguments; SX_LOG=debug logs registration, resolution, cache, builds, launches"

icd=$B/intel-opencl/vendors
if [ ! -f "$icd/intel-cpu.icd" ]; then
    why="not installed (tools/intel-opencl.sh $B installs it)"
    [ -f "$B/intel-opencl/UNAVAILABLE" ] && why=$(cat "$B/intel-opencl/UNAVAILABLE")
    echo "SKIP: Intel's CPU OpenCL runtime: $why"
    exit 0
fi
OCL_ICD_VENDORS=$icd SX_OPENCL_PLATFORM=Intel SX_ADAPTERS_PATH="$B/adapters/opencl/.libs" SX_DEVICE_SELECTOR='opencl:*' \
    "$app" >"$W/intel.out" 2>&1 || { cat "$W/intel.out"; fail "app on Intel's CPU OpenCL runtime"; }
grep -q '^OK: ' "$W/intel.out" || { cat "$W/intel.out"; fail "app on Intel: no OK"; }
echo "PASS: the app on Intel's CPU OpenCL runtime"
OCL_ICD_VENDORS=$icd SX_OPENCL_PLATFORM=Intel SX_ADAPTERS_PATH="$B/adapters/opencl/.libs" SX_DEVICE_SELECTOR='opencl:*' \
    "$B/examples/params/params" >"$W/params-intel.out" 2>&1 && grep -q '^OK: ' "$W/params-intel.out" ||
    { cat "$W/params-intel.out"; fail "examples/params on Intel's CPU OpenCL runtime"; }
echo "PASS: every parameter kind on Intel's CPU OpenCL runtime"
rm -rf "$W"
