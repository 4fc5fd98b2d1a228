#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# mkimages.sh OUTDIR SRCDIR CC PROPTOOL: the ABI tests' images, all host
# ELF from kern.c (plain C, so no clang is needed): for X in a b c d,
# kern-X.so, abi-X.sximg and the registration C abi-X-reg.c (prefix abi_X;
# abi-d-reg.c registers nothing by itself: the tests do it by hand).
set -eu
out=$1 src=$2 cc=$3 proptool=$4
mkdir -p "$out"
for x in a b c d; do
    $cc -O2 -fPIC -shared -nostdlib -DK=abi_$x -o "$out/kern-$x.so" "$src/kern.c"
    cat > "$out/abi-$x.manifest" <<MAN
sximg-manifest 1
image host kern-$x.so
kernel abi_${x}_fill nd-range 1
param pointer global
param value i32
global abi_${x}_dg size 4 image-scope host-access read_write symbol abi_${x}_dg
MAN
    "$proptool" -q -o "$out/abi-$x.sximg" --emit-c "$out/abi-$x-reg.tmp" --c-prefix "abi_$x" \
        --manifest "$out/abi-$x.manifest"
    if [ $x = d ]; then
        { echo '#define SX_NO_AUTO_REGISTER 1'; cat "$out/abi-$x-reg.tmp"; } > "$out/abi-$x-reg.c"
        rm -f "$out/abi-$x-reg.tmp"
    else
        mv "$out/abi-$x-reg.tmp" "$out/abi-$x-reg.c"
    fi
done
