#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# build.sh: build the libFuzzer targets with clang-14 (ASan + UBSan), out of
# the Automake build: fuzz/build.sh BUILDDIR [OUTDIR]. BUILDDIR is a
# configured build tree (for config.h and include/sycl-ext/version.h).
# The source lists come from the Makefile fragments (PROPTOOL_CORE,
# SXN_SOURCES, the core's sources), so a file added there is built here too.
# Then: OUTDIR/fuzz-spirv -max_total_time=300 -timeout=10 CORPUS_DIR fuzz/corpus/spirv
# (fuzz-register: fuzz/corpus/register fuzz/corpus/image-file; fuzz-bitcode:
# fuzz/corpus/bitcode); fuzz/ci.sh builds and runs them all for a while.
set -e
S=$(cd "$(dirname "$0")/.." && pwd)
B=${1:?usage: fuzz/build.sh BUILDDIR [OUTDIR]}
O=${2:-$B/fuzz}
CC=${FUZZ_CC:-clang-14}
mkdir -p "$O"
# The .c files of a Makefile variable (with its continuation lines and +=).
mkvar() { # FILE VAR
    awk -v v="$2" '
        $1 == v && ($2 == "=" || $2 == "+=") { on = 1; sub(/^[^=]*=/, ""); }
        on { line = $0; cont = sub(/\\$/, "", line); print line; if (!cont) on = 0; }
    ' "$S/$1" | tr ' \t' '\n\n' | grep '\.c$' | sed "s|^|$S/|"
}
FLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$B -I$B/include -I$S/include -I$S/lib -I$S/proptool"
PT=$(mkvar proptool/Makefile.inc PROPTOOL_CORE)
CORE=$(mkvar lib/Makefile.inc lib_libsx_core_la_SOURCES)
NATIVE=$(mkvar adapters/native/Makefile.inc SXN_SOURCES)
[ -n "$PT" ] && [ -n "$CORE" ] && [ -n "$NATIVE" ] || { echo "build.sh: cannot read the source lists" >&2; exit 1; }
STUB="$S/fuzz/stub-error.c"
NETTLE=$(pkg-config --cflags --libs nettle)
# fuzz-spirv: proptool's passes need only the image-file parser of the core.
$CC $FLAGS -o "$O/fuzz-spirv" "$S/fuzz/fuzz-spirv.c" $PT "$S/lib/image-file.c" "$STUB"
$CC $FLAGS -o "$O/fuzz-image-file" "$S/fuzz/fuzz-image-file.c" "$S/proptool/util.c" "$S/proptool/dump.c" \
    "$S/lib/image-file.c" "$STUB"
# The OpenCL adapter's bitcode reader alone.
$CC $FLAGS -DCL_TARGET_OPENCL_VERSION=300 -o "$O/fuzz-bitcode" "$S/fuzz/fuzz-bitcode.c" "$S/adapters/opencl/bitcode.c"
# Registration with the whole core and the native adapter (built in).
# No installed adapter directory (the header make writes from configure's paths).
printf '#define SX_ADAPTER_DIR "/nonexistent"\n' >"$O/sx-paths.h"
$CC -I"$O" -I"$S/adapters/native" $FLAGS -include "$B/config.h" -DSX_BUILDING_LIBRARY -DSXN_BUILTIN \
    $(pkg-config --cflags libffi) -o "$O/fuzz-register" "$S/fuzz/fuzz-register.c" $CORE $NATIVE \
    $(pkg-config --libs libffi) $NETTLE $(pkg-config --libs libzstd 2>/dev/null) -ldl -lpthread -lm
echo "built $O/fuzz-spirv $O/fuzz-image-file $O/fuzz-bitcode $O/fuzz-register"
