#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# run-tests.sh: install what is missing, build, run the whole test suite,
# end with one "N passed, N failed, N skipped" line.
set -eu
. "$(dirname "$0")/deps.sh"
sx_install_deps
sx_build
# Intel's CPU OpenCL runtime from PyPI into the build (a third OpenCL platform).
sh "$top/tools/intel-opencl.sh" .
status=0
# Results of an earlier run must not count in this one's summary.
find . -name '*.trs' -exec rm -f {} +
make -j"$(nproc)" check || status=$?
# The suites' own logs hold the details; this is the line CI reads.
pass=0 fail=0 skip=0
for trs in $(find . -name '*.trs'); do
    case "$(sed -n 's/^:test-result: //p' "$trs" | head -1)" in
        PASS|XFAIL) pass=$((pass + 1)) ;;
        SKIP) skip=$((skip + 1)) ;;
        *) fail=$((fail + 1)); echo "failed: ${trs%.trs}"; tail -n 20 "${trs%.trs}.log" ;;
    esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$status" -eq 0 ]
