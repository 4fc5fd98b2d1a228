#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# relational.sh: relational tests and plain conversions inlined by sx-wgc
# (relational.cl) against Intel's CPU OpenCL runtime, with group sizes that
# leave a vector loop's remainder; none is left a call into the builtins
# module (issue 28).
set -u
. "$(dirname "$0")/common.sh"
workdir relational
if "$CLANG" -target spir64 -cl-std=CL1.2 -O2 -c -emit-llvm -Xclang -finclude-default-header "$D/relational.cl" -o relational.bc &&
   "$LLVM_SPIRV" relational.bc -o relational.spv && "$LLVM_SPIRV" -r relational.spv -o rel.in.bc &&
   "$B/proptool/sx-wgc" -o rel.wg.bc rel.in.bc 2> build.err &&
   "$P" --native -o relational.sximg relational.spv 2>> build.err; then
    ok "relational.cl builds"
else
    cat build.err; ko "relational.cl"; finish
fi
left=$(llvm-dis-14 -o - rel.wg.bc 2>/dev/null | grep -o 'call [^(]*@_Z[0-9]*\(isnan\|isinf\|isfinite\|isnormal\|signbit\|convert_[a-z0-9]*\)[A-Za-z0-9_]*' | sort -u)
if command -v llvm-dis-14 > /dev/null 2>&1 && [ -z "$left" ]; then
    ok "no relational test or plain conversion is left a call"
elif ! command -v llvm-dis-14 > /dev/null 2>&1; then
    echo "SKIP (one check): no llvm-dis-14 to read sx-wgc's output"
else
    echo "$left"; ko "calls left"
fi
for geo in 96:32 77:7 300:100; do
    differ "relational.cl ${geo%%:*}/${geo#*:}" relational.sximg "${geo%%:*}" "${geo#*:}" o:2000,i:400 rel_float rel_double
done
finish
