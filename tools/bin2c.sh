#!/bin/sh
# bin2c.sh NAME IN OUT: write IN as a C array `NAME` and its size `NAME_size`.
set -eu
name=$1 in=$2 out=$3
{
    printf '/* Generated from %s by bin2c.sh. */\n#include <stddef.h>\n' "$(basename "$in")"
    printf 'const unsigned char %s[] __attribute__((aligned(16))) = {\n' "$name"
    od -An -v -tx1 "$in" | sed 's/ *\([0-9a-f][0-9a-f]\)/0x\1,/g; s/^/  /'
    printf '};\nconst size_t %s_size = sizeof(%s);\n' "$name" "$name"
} > "$out.tmp" && mv "$out.tmp" "$out"
