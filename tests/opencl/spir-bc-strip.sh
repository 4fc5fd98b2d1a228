#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# spir-bc-strip.sh -r IN.spv -o OUT.bc: `llvm-spirv -r` after dropping the
# UserSemantic decorations (the SYCL annotations, already read by proptool).
# Given to proptool --llvm-spirv for the OpenCL e2e image: llvm-spirv turns
# them back into llvm.global.annotations, and on those PoCL 3.1 aborts at
# the first launch of an annotated kernel ("undefined symbol: _group_id_x")
# and Oclgrind 21.10 refuses kernels using an annotated variable
# ("Unsupported constant pointer value"). Needs SPIRV_DIS, SPIRV_AS, LLVM_SPIRV.
set -eu
[ "$1" = -r ] && [ "$3" = -o ] || { echo "usage: $0 -r IN.spv -o OUT.bc" >&2; exit 2; }
in=$2 out=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/spir-strip.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
"${SPIRV_DIS:-spirv-dis}" "$in" -o "$tmp/in.spvasm"
ver=$(sed -n 's/^; Version: \([0-9]*\.[0-9]*\).*/\1/p' "$tmp/in.spvasm" | head -1)
grep -v 'OpDecorate .* UserSemantic ' "$tmp/in.spvasm" > "$tmp/out.spvasm"
"${SPIRV_AS:-spirv-as}" --target-env "spv${ver:-1.0}" "$tmp/out.spvasm" -o "$tmp/out.spv"
exec "${LLVM_SPIRV:-llvm-spirv-14}" -r "$tmp/out.spv" -o "$out"
