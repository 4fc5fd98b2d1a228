#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# tests/options.sh: the command lines of proptool and sx-info as documented.
# proptool's option table (long_opts in proptool/main.c, what getopt
# accepts), its --help and the OPTIONS section of proptool(1) name the same
# options; the same for sx-info (its table prints --help) and sx-info(1).
# Options are taken in any order (--dump --json FILE), and '--' ends them.
set -u
b=${SX_TEST_BUILDDIR:?} s=${SX_TEST_SRCDIR:?}
w=$b/tests/options-work
rm -rf "$w" && mkdir -p "$w"
bad=0
fail() { echo "FAIL: $*"; bad=1; }
run() { "$b/libtool" --mode=execute "$@"; }
pt=$b/proptool/proptool
[ -x "$pt" ] || { echo "SKIP: proptool not built"; exit 77; }

# Long options named in the item lines of a man page's OPTIONS section (the
# line after each .TP), one per line.
man_opts() {
    awk '/^\.SH /{in_o = ($2 == "OPTIONS")} in_o && prev == ".TP" {print} {prev = $0}' "$1" |
        sed 's/\\-/-/g; s/\\f[BIRP]//g' | grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}
# Long options at the start of --help's option lines ("  -o, --output FILE").
help_opts() {
    grep -E '^  +(-[a-zA-Z], )?--[a-z]' | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
        grep -o -- '--[a-z][a-z0-9-]*' | sort -u
}
compare() { # WHAT LIST-A NAME-A LIST-B NAME-B
    for o in $(comm -23 "$2" "$4"); do fail "$1: $o is in $3 but not in $5"; done
}

# ---- proptool: the table, --help, the man page
sed -n '/long_opts\[\] = {/,/^};/p' "$s/proptool/main.c" | grep -o '{"[a-z][a-z0-9-]*"' |
    sed 's/{"/--/; s/"//' | sort -u >"$w/pt-table"
[ -s "$w/pt-table" ] || fail "no options read from proptool/main.c's long_opts"
run "$pt" --help >"$w/pt-help.txt" || fail "proptool --help exited $?"
help_opts <"$w/pt-help.txt" >"$w/pt-help"
man_opts "$s/proptool/proptool.1" >"$w/pt-man"
compare proptool "$w/pt-table" "the option table" "$w/pt-help" "--help"
compare proptool "$w/pt-table" "the option table" "$w/pt-man" "proptool(1) OPTIONS"
compare proptool "$w/pt-help" "--help" "$w/pt-table" "the option table"
compare proptool "$w/pt-man" "proptool(1) OPTIONS" "$w/pt-table" "the option table"
# getopt takes every one of them (a wrong name in the table or a typo in
# the test would say "unrecognized option")
for o in $(cat "$w/pt-table"); do
    run "$pt" "$o" >/dev/null 2>"$w/err" </dev/null
    grep -q "unrecognized option\|invalid option" "$w/err" && fail "proptool does not take $o: $(cat "$w/err")"
done
# the SYNOPSIS is the two command forms, nothing spliced into it
syn=$(awk '/^\.SH /{in_s = ($2 == "SYNOPSIS")} in_s && !/^\.SH/' "$s/proptool/proptool.1")
case $syn in *.TP*|*"Also write"*) fail "proptool(1) SYNOPSIS holds option text: $syn";; esac

# ---- proptool: any order, '--'
img=$(ls "$s"/fuzz/corpus/image-file/*.sximg | head -n 1)
run "$pt" --dump "$img" >"$w/d0.txt" || fail "proptool --dump FILE"
for args in "--dump --json $img" "--json --dump $img" "--dump $img --json" "$img --json --dump" \
    "--dump=$img --json" "--json --dump -- $img"; do
    # shellcheck disable=SC2086
    if run "$pt" $args >"$w/d.json" 2>"$w/err"; then
        head -c 1 "$w/d.json" | grep -q '{' || fail "proptool $args: not JSON"
    else
        fail "proptool $args: $(cat "$w/err")"
    fi
done
run "$pt" --dump "$img" "$img" >/dev/null 2>"$w/err" && fail "proptool --dump with two files succeeded"
grep -q "one image file" "$w/err" || fail "proptool --dump FILE FILE: $(cat "$w/err")"
run "$pt" --dump >/dev/null 2>"$w/err"; [ $? -eq 2 ] || fail "proptool --dump without a file: not a usage error"
# an input whose name starts with '-', after '--'
if [ -n "${CLANG:-}" ] && [ -n "${LLVM_SPIRV:-}" ]; then
    ( cd "$w" && $CLANG -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header \
        "$s/tests/proptool/kernels.cl" -o k.bc && $LLVM_SPIRV k.bc -o ./-k.spv ) >"$w/cc.log" 2>&1 ||
        { cat "$w/cc.log"; fail "building a SPIR-V input"; }
    if [ -f "$w/-k.spv" ]; then
        ( cd "$w" && run "$pt" --no-native -o dash.sximg -- -k.spv ) >"$w/err" 2>&1 || fail "proptool -o F -- -k.spv: $(cat "$w/err")"
        ( cd "$w" && run "$pt" --dump -- dash.sximg ) >/dev/null 2>"$w/err" || fail "proptool --dump -- F: $(cat "$w/err")"
    fi
fi

# ---- sx-info: its table prints --help; the man page and the parser agree
info=$b/tools/sx-info
run "$info" --help >"$w/si-help.txt" || fail "sx-info --help exited $?"
help_opts <"$w/si-help.txt" >"$w/si-help"
man_opts "$s/debian/sx-info.1" >"$w/si-man"
for o in --json --isolate --version --help; do
    grep -qx -- "$o" "$w/si-help" || fail "sx-info --help does not list $o"
done
compare sx-info "$w/si-help" "--help" "$w/si-man" "sx-info(1) OPTIONS"
compare sx-info "$w/si-man" "sx-info(1) OPTIONS" "$w/si-help" "--help"
syn=$(awk '/^\.SH /{in_s = ($2 == "SYNOPSIS")} in_s && !/^\.SH/' "$s/debian/sx-info.1" | sed 's/\\-/-/g; s/\\f[BIRP]//g')
for o in $(cat "$w/si-help"); do
    case " $syn " in *[!a-z-]"$o"[!a-z-]*) ;; *) fail "sx-info(1) SYNOPSIS lacks $o: $syn";; esac
done
run "$info" --no-such-option >/dev/null 2>"$w/err"; rc=$?
[ $rc -eq 2 ] || fail "sx-info --no-such-option exited $rc (want 2, a usage error)"
grep -q "unknown option '--no-such-option'" "$w/err" || fail "sx-info --no-such-option said: $(cat "$w/err")"
SX_ADAPTERS=native run "$info" --version >"$w/v" 2>&1 || fail "sx-info --version"
grep -q '^sx-info (libsycl-ext) ' "$w/v" || fail "sx-info --version said: $(cat "$w/v")"

[ $bad -eq 0 ] && echo "proptool: $(wc -l <"$w/pt-table") options in table, --help and man page; sx-info: $(wc -l <"$w/si-help")"
exit $bad
