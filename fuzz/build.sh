#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# build.sh: build the libFuzzer targets with clang-14 (ASan + UBSan), out of
# the Automake build: fuzz/build.sh BUILDDIR [OUTDIR]. BUILDDIR is a
# configured build tree (for config.h and include/sycl-ext/version.h).
# Then: OUTDIR/fuzz-spirv -max_total_time=300 CORPUS_DIR fuzz/corpus/spirv
# (fuzz-register: CORPUS_DIR fuzz/corpus/register fuzz/corpus/image-file)
set -e
S=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: fuzz/build.sh BUILDDIR [OUTDIR]}
O=${2:-$B/fuzz}
CC=${FUZZ_CC:-clang-14}
mkdir -p "$O"
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$B -I$B/include -I$S/include -I$S/lib -I$S/proptool"
PT="$S/proptool/util.c $S/proptool/spv-read.c $S/proptool/spv-opnames.c $S/proptool/annot.c $S/proptool/analyse.c \
    $S/proptool/cleanup.c $S/proptool/ifdevice.c $S/proptool/accessors.c $S/proptool/image-write.c $S/proptool/dump.c $S/proptool/vfsplit.c"
STUB="$S/fuzz/stub-error.c"
$CC $FLAGS -o "$O/fuzz-spirv" "$S/fuzz/fuzz-spirv.c" $PT "$S/lib/image-file.c" "$STUB"
$CC $FLAGS -o "$O/fuzz-image-file" "$S/fuzz/fuzz-image-file.c" "$S/proptool/util.c" "$S/proptool/dump.c" \
    "$S/lib/image-file.c" "$STUB"
# Registration with the whole core and the native adapter (built in).
CORE=$(ls "$S"/lib/*.c)
NATIVE="$S/adapters/native/native.c $S/adapters/native/program.c $S/adapters/native/launch.c \
    $S/adapters/native/pool.c $S/adapters/native/fiber.c $S/adapters/native/link.c"
$CC $FLAGS -include "$B/config.h" -DSX_BUILDING_LIBRARY -DSXN_BUILTIN -DSX_ADAPTER_DIR='"/nonexistent"' \
    $(pkg-config --cflags libffi) -o "$O/fuzz-register" "$S/fuzz/fuzz-register.c" $CORE $NATIVE \
    $(pkg-config --libs libffi) $(pkg-config --libs libzstd 2>/dev/null) -ldl -lpthread -lm
echo "built $O/fuzz-spirv $O/fuzz-image-file $O/fuzz-register"
