#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# list.sh: proptool --dump of an ELF file shaped like DPC++'s output
# (sample.c, built in the tree): both descriptors and their three images
# are listed from the file alone (its constructor aborts if run), as text
# and JSON, and --extract writes each image decoded.
set -u
b=${SX_TEST_BUILDDIR:-.}
so=$b/tests/wheels/.libs/libsample.so
pt=$b/proptool/proptool
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$pt" --dump "$so" > "$tmp/out.txt" || fail "proptool --dump exited $?"
cat "$tmp/out.txt"
for want in "2 DPC++ descriptors, 3 images" "record: version 3 layout (80 bytes, no manifest)" \
    "record: version 2 layout (96 bytes)" "56-byte LLVM entries" "compression: zstd, 54 bytes -> 61 bytes" \
    "contents: SPIR-V" "contents: PTX" "_ZTS10packed_k" "_ZTS8plain_k2" "[SYCL/misc properties] (1)" \
    "optLevel: uint32 3" "[SYCL/registered kernels] (1)" "eliminated [01]" 'compile options: "-O2"'; do
    grep -qF -- "$want" "$tmp/out.txt" || fail "the listing lacks: $want"
done
"$pt" --dump "$so" --json > "$tmp/out.json" || fail "proptool --dump --json exited $?"
if command -v python3 >/dev/null 2>&1; then
    python3 - "$tmp/out.json" <<'PY' || fail "JSON listing"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "sycl-ext/proptool-elf-dump" and d["num_images"] == 3, d
imgs = [i for x in d["descriptors"] for i in x["images"]]
packed = [i for i in imgs if i["compression"] == "zstd"][0]
assert packed["decompressed_size"] == 61 and packed["contents"] == "SPIR-V" and packed["entry_size"] == 56, packed
assert packed["entries"] == ["_ZTS10packed_k"], packed
assert sorted(i["record_version"] for i in imgs) == [2, 3, 3]
print("JSON: %d images" % len(imgs))
PY
fi
"$pt" --dump "$so" --extract "$tmp/x" > /dev/null || fail "--extract exited $?"
ls "$tmp/x"
[ "$(ls "$tmp/x" | wc -l)" -eq 3 ] || fail "--extract wrote $(ls "$tmp/x" | wc -l) files, not 3"
n=$(cat "$tmp"/x/*image1.spv | wc -c)
[ "$n" -eq 61 ] || fail "the compressed image extracted as $n bytes, not 61"
grep -q "^\.version 7.0" "$tmp"/x/*image0.ptx || fail "no PTX extracted"
echo PASS
