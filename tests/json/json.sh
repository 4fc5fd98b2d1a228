#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tests/json/json.sh: `sx-info --json` and `proptool --dump --json` parse as
# JSON (python3's json), carry their schema and version (doc/json.md) and
# say the same as the text listings.
set -u
B=${SX_TEST_BUILDDIR:?} S=${SX_TEST_SRCDIR:?}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not installed"; exit 77; }
W=$B/tests/json/work
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
export SX_ADAPTERS_PATH="$B/adapters/opencl/.libs:$B/adapters/level_zero/.libs:$B/adapters/cuda/.libs"

# --- sx-info: every adapter and device of the listing, in the same order.
"$B/tools/sx-info" >info.txt || fail "sx-info"
"$B/tools/sx-info" --json >info.json || fail "sx-info --json"
python3 "$S/tests/json/check-sx-info.py" info.json info.txt || fail "sx-info --json does not match sx-info"
# Selected down to one device by the selector the JSON gives for it.
sel=$(python3 -c 'import json; print(json.load(open("info.json"))["devices"][0]["selector"])')
SX_DEVICE_SELECTOR=$sel "$B/tools/sx-info" --json >one.json || fail "sx-info --json with SX_DEVICE_SELECTOR=$sel"
python3 -c 'import json,sys; d=json.load(open("one.json")); a=json.load(open("info.json"))["devices"][0]; \
assert len(d["devices"]) == 1 and d["devices"][0]["name"] == a["name"], d' || fail "selector $sel"
# Text that needs escaping (quotes, backslashes, control characters) stays valid JSON.
mkdir -p 'odd"dir\x' && printf 'not an ELF\001\n' >'odd"dir\x/sx-adapter-bad.so'
SX_ADAPTERS="native,$W/odd\"dir\\x/sx-adapter-bad.so" "$B/tools/sx-info" --json >odd.json || fail "sx-info --json with an odd adapter path"
python3 -c 'import json,sys; d=json.load(open("odd.json")); bad=[a for a in d["adapters"] if a["path"].endswith("sx-adapter-bad.so")]; \
assert len(bad) == 1 and "odd\"dir\\x" in bad[0]["path"] and not bad[0]["usable"] and bad[0]["message"], d["adapters"]' ||
    { cat odd.json; fail "a skipped adapter with an odd path"; }
echo "PASS: sx-info --json"

# --- proptool --dump --json on an image file with device globals, host
# access, signatures (struct by value, local memory), aspects, exports.
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: no image file for proptool --dump --json"
    exit 77
fi
P=$B/proptool/proptool
D=$S/tests/proptool
"$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header "$D/kernels.cl" -o k.bc &&
    "$LLVM_SPIRV" k.bc -o k.spv || fail "building kernels.cl"
"$CLANG" -x cl -cl-std=CL2.0 -Xclang -finclude-default-header -Dkernel= -D__kernel= -target x86_64-linux-gnu -O2 \
    -fPIC -shared -nostdlib "$D/kernels.cl" -o k.so || fail "building kernels.cl for the host"
"$P" -q -o k.sximg k.spv --host k.so --spir-bc || fail "proptool"
"$P" --dump k.sximg >dump.txt || fail "proptool --dump"
"$P" --dump k.sximg --json >dump.json || fail "proptool --dump --json"
python3 "$S/tests/json/check-dump.py" dump.json dump.txt k.sximg || fail "proptool --dump --json does not match --dump"
# Misuse and damage: a usage error, a clean failure with nothing on stdout.
"$P" --json -o x.sximg k.spv >/dev/null 2>&1; [ $? -eq 2 ] || fail "--json without --dump is not a usage error"
head -c 100 k.sximg >cut.sximg
"$P" --dump cut.sximg --json >cut.json 2>cut.err; [ $? -eq 1 ] || fail "a cut file does not fail"
[ -s cut.json ] && fail "a cut file left JSON on stdout"
echo "PASS: proptool --dump --json"
rm -rf "$W"
