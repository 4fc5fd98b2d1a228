#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# ze-valgrind.sh: the Level Zero suites under valgrind (it follows the forked tests): no leaks, no bad accesses in the adapter or the TEST DRIVER.
b=${SX_TEST_BUILDDIR:-.}
if test -z "$VALGRIND"; then
  echo "SKIP: valgrind not found"; exit 77
fi
status=0
for t in test-ze-adapter test-ze-program test-ze-sx; do
  prog="$b/tests/level_zero/$t"
  test -x "$prog" || { echo "SKIP: $prog not built"; exit 77; }
  log="$b/tests/level_zero/$t.valgrind"
  "$VALGRIND" --quiet --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    --log-file="$log" "$prog" >"$log.out" 2>&1
  rc=$?
  case $rc in
    0) echo "PASS: $t under valgrind";;
    77) echo "SKIP: $t: $(tail -n 1 "$log.out")"; exit 77;;
    99) echo "FAIL: $t: valgrind errors:"; cat "$log"; status=1;;
    *) echo "FAIL: $t exited $rc under valgrind:"; tail -n 30 "$log.out"; status=1;;
  esac
done
exit $status
