#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# check-license.sh: the tree states its license (issue 25): LICENSE holds
# Apache-2.0 and the LLVM exception, debian/copyright names them, and every
# source file (code, scripts, build files, man pages) carries the SPDX line.
set -u
src=${SX_TEST_SRCDIR:-.}
id='SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception'
fail=0
bad() { echo "FAIL: $*"; fail=1; }
grep -q 'Apache License' "$src/LICENSE" 2>/dev/null || bad "LICENSE is missing or lacks the Apache License text"
grep -q 'LLVM Exceptions to the Apache 2.0 License' "$src/LICENSE" 2>/dev/null || bad "LICENSE lacks the LLVM exception"
grep -q '^License: Apache-2.0 WITH LLVM-exception' "$src/debian/copyright" || bad "debian/copyright does not name Apache-2.0 WITH LLVM-exception"
if ! git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
    echo "SKIP: $src is not a git checkout; the per-file check needs its file list"
    [ "$fail" = 0 ] && exit 77
    exit 1
fi
missing=$(git -C "$src" ls-files | while read -r f; do
    case "$f" in
        debian/rules) ;;
        debian/*|fuzz/corpus/*|tests/dpcpp/cases/*) continue ;;
        *.c|*.h|*.cl|*.cu|*.cuh|*.cpp|*.clcpp|*.map|*.in|*.sh|*.am|*.inc|*.py|*.m4|*.ac|*.cmake|*.awk|*.supp|*.spvasm|*.1|*/CMakeLists.txt|.ci/run) ;;
        *) continue ;;
    esac
    head -n 3 "$src/$f" | grep -qF "$id" || echo "$f"
done)
[ -z "$missing" ] || bad "files without the SPDX line in their first lines: $(echo $missing)"
[ "$fail" = 0 ] && echo "license: LICENSE, debian/copyright and $(git -C "$src" ls-files | wc -l) tracked files checked"
exit $fail
