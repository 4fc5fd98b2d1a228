#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# run.sh: DPC++'s own test cases, ported as data (issue 14). Each
# tests/dpcpp/cases/*.case names the DPC++ test it comes from, says how its
# input was converted to what proptool reads (SPIR-V text for spirv-as,
# sycl-post-link .prop/.table files), carries DPC++'s expected values
# decoded from the CHECK lines, and runs proptool; its output (written as
# sycl-post-link's .prop files by --emit-prop) is compared value for value.
#
# Case file syntax (lines starting "#" before the first "@@" are headers):
#   # case: NAME          # dpcpp: the DPC++ test    # status: pass | deliberate
#   # run: COMMAND        (sh; $P is proptool; repeatable)
#   @@ file NAME          the lines up to the next @@ are file NAME
#                         (NAME.spvasm is also assembled to NAME.spv)
#   @@ expect FILE        [set] lines and name=type|value lines: the
#                         property is in that set of FILE and its value
#                         starts with the one given (FileCheck's substring
#                         match, which DPC++'s CHECK lines rely on); a bare
#                         name: the property is there
#   @@ exact FILE         the same, and each set listed has exactly these
#                         properties with exactly these values
#   @@ absent FILE        each line must not occur in FILE (CHECK-NOT)
#   @@ fail               the run must fail, stderr matching each line (grep -E)
#   @@ stderr             stderr must match each line (grep -E)
# "deliberate" cases check our documented behaviour; each must be listed in
# doc/dpcpp-differences.md with the reason.
set -u
B=${SX_TEST_BUILDDIR:-$(pwd)}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
P="$B/proptool/proptool"
DOC="$S/doc/dpcpp-differences.md"
SPIRV_AS=${SPIRV_AS:-$(command -v spirv-as || true)}
if [ -z "$SPIRV_AS" ]; then
    echo "SKIP: spirv-as (SPIRV-Tools) not found: the cases' SPIR-V is text"
    exit 77
fi
W="$B/tests/dpcpp/work"
rm -rf "$W"
mkdir -p "$W"

pass=0
diff=0
fail=0

# prop_line FILE SET NAME: the "name=type|value" line of NAME in [SET] of FILE.
prop_line() {
    awk -v set="[$2]" -v name="$3" '
        /^\[/ { in_set = ($0 == set); next }
        in_set && index($0, name "=") == 1 { print; exit }' "$1"
}

# check_expect FILE SECTION EXACT: 0 if every expectation holds.
check_expect() {
    f=$1
    sec=$2
    exact=$3
    [ -f "$f" ] || { echo "no output file $(basename "$f")"; return 1; }
    set_name=
    rc=0
    while IFS= read -r line; do
        case $line in
        '') continue ;;
        \[*\])
            set_name=${line#[}
            set_name=${set_name%]}
            if ! grep -qxF "$line" "$f"; then echo "no set $line"; rc=1; fi
            if [ "$exact" = 1 ]; then
                want=$(awk -v set="$line" '/^\[/ { in_set = ($0 == set); next } in_set' "$sec" | sort)
                have=$(awk -v set="$line" '/^\[/ { in_set = ($0 == set); next } in_set' "$f" | sort)
                if [ "$want" != "$have" ]; then
                    echo "set $line differs: want"; echo "$want" | sed 's/^/    /'
                    echo "  have"; echo "$have" | sed 's/^/    /'
                    rc=1
                fi
            fi
            continue ;;
        esac
        name=${line%%=*}
        have=$(prop_line "$f" "$set_name" "$name")
        if [ -z "$have" ]; then
            echo "[$set_name] has no $name"; rc=1
        elif [ "$name" != "$line" ]; then
            case $have in
            "$line"*) ;;
            *) echo "[$set_name] $name: want $line..., have $have"; rc=1 ;;
            esac
        fi
    done < "$sec"
    return $rc
}

run_case() {
    c=$1
    base=$(basename "$c" .case)
    d="$W/$base"
    mkdir -p "$d"
    name=$(sed -n 's/^# case: *//p' "$c" | head -n 1)
    status=$(sed -n 's/^# status: *//p' "$c" | head -n 1)
    [ -n "$name" ] || name=$base
    # Split the case into files and check sections.
    awk -v dir="$d" '
        /^@@ / {
            if (out) close(out)
            n++
            if ($2 == "file") out = dir "/" $3
            else { out = sprintf("%s/check.%02d", dir, n); print $2 " " $3 > (out ".kind"); close(out ".kind") }
            printf "" > out
            next
        }
        out { print >> out }' "$c"
    why=
    for s in "$d"/*.spvasm; do
        [ -f "$s" ] || continue
        "$SPIRV_AS" --target-env spv1.2 "$s" -o "${s%.spvasm}.spv" 2> "$d/as.err" ||
            why="spirv-as $(basename "$s"): $(cat "$d/as.err")"
    done
    runs=$(sed -n 's/^# run: *//p' "$c")
    must_fail=no
    for k in "$d"/check.*.kind; do
        [ -f "$k" ] || continue
        [ "$(cut -d' ' -f1 < "$k")" = fail ] && must_fail=yes
    done
    rc=0
    if [ -z "$why" ] && [ -n "$runs" ]; then
        ( cd "$d" && P="$P" B="$B" && export P B && echo "$runs" | while IFS= read -r r; do
            sh -c "$r" || exit 1
          done ) > "$d/out.txt" 2> "$d/err.txt" || rc=1
        if [ $must_fail = no ] && [ $rc != 0 ]; then why="run failed: $(tail -n 3 "$d/err.txt")"; fi
        if [ $must_fail = yes ] && [ $rc = 0 ]; then why="run should have failed"; fi
    fi
    for k in "$d"/check.*.kind; do
        [ -f "$k" ] && [ -z "$why" ] || continue
        sec=${k%.kind}
        kind=$(cut -d' ' -f1 < "$k")
        file=$(cut -d' ' -f2 < "$k")
        case $kind in
        expect) msg=$(check_expect "$d/$file" "$sec" 0) || why="$file: $msg" ;;
        exact) msg=$(check_expect "$d/$file" "$sec" 1) || why="$file: $msg" ;;
        absent)
            while IFS= read -r line; do
                [ -z "$line" ] || ! grep -qF -- "$line" "$d/$file" 2>/dev/null || why="$file has '$line'"
            done < "$sec" ;;
        fail|stderr)
            while IFS= read -r line; do
                [ -z "$line" ] || grep -qE -- "$line" "$d/err.txt" || why="stderr lacks /$line/: $(head -c 400 "$d/err.txt")"
            done < "$sec" ;;
        *) why="unknown check '$kind'" ;;
        esac
    done
    if [ -n "$why" ]; then
        fail=$((fail + 1))
        echo "FAIL: $name: $why"
    elif [ "$status" = deliberate ]; then
        if grep -qF -- "$name" "$DOC"; then
            diff=$((diff + 1))
            echo "DIFF: $name (deliberate difference, doc/dpcpp-differences.md)"
        else
            fail=$((fail + 1))
            echo "FAIL: $name: a deliberate difference not listed in doc/dpcpp-differences.md"
        fi
    elif [ "$status" = pass ]; then
        pass=$((pass + 1))
        echo "PASS: $name"
    else
        fail=$((fail + 1))
        echo "FAIL: $name: status '$status' is neither pass nor deliberate"
    fi
}

for c in "$S"/tests/dpcpp/cases/*.case; do
    run_case "$c"
done
echo "DPC++ cases: $((pass + diff + fail)): $pass pass, $diff deliberate differences, $fail failing"
[ $fail -eq 0 ]
