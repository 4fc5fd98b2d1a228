#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# groups.sh: region formation's wrong results (regress.cl: the issue's
# reducer, a radix-sort pass, pointers into and copies of private arrays
# across barriers; their oracles are the specification, self-checked), and
# the sub-group and work-group builtins compiled by sx-wgc (groups.cl)
# against Intel's CPU OpenCL runtime, with local sizes the sub-group size
# does not divide, in 1, 2 and 3 dimensions (issue 28).
set -u
. "$(dirname "$0")/common.sh"
workdir groups

# --- the reducer and its family: compiled into regions, right on native
if build "$D/regress.cl" 2> regress.err; then ok "regress.cl builds"; else cat regress.err; ko "regress.cl"; finish; fi
if "$P" --dump regress.sximg | grep -q 'string "fiber'; then ko "a regress.cl kernel fell back to fibers"; else ok "every regress.cl kernel runs as regions"; fi
want16="o 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16 16"
if on_native regress.sximg repro.txt 16 16 o:16,n:256 repro > repro.out 2>&1 && [ "$(sed -n 2p repro.txt)" = "$want16" ]; then
    ok "the issue's reducer: 16 everywhere (as PoCL and Intel's runtime), no hang"
else
    cat repro.out repro.txt; ko "the issue's reducer"
fi
for sh in 0 4 12; do
    if on_native regress.sximg radix.txt 64 64 i:1000,o:1000,o:1,n:1000,n:$sh radix_pass > radix.out 2>&1 &&
       [ "$(sed -n 4p radix.txt)" = "o 0" ]; then
        ok "radix-sort pass (shift $sh): every key where a stable sort puts it"
    else
        cat radix.out; sed -n 4p radix.txt; ko "radix-sort pass (shift $sh)"
    fi
done
ones=$(printf ' 1%.0s' $(seq 40))
if on_native regress.sximg fam.txt 40 20 o:40,i:16 derived_pointer private_copy escaped_address > fam.out 2>&1 &&
   [ "$(grep -c "^o$ones\$" fam.txt)" -eq 3 ]; then
    ok "pointers into private arrays, whole copies and escaped addresses across barriers"
else
    cat fam.out fam.txt; ko "private arrays across barriers"
fi
differ "regress.cl" regress.sximg 64 64 i:1000,o:1000,o:1,n:1000,n:4 radix_pass
differ "regress.cl" regress.sximg 16 16 o:16,n:256 repro

# --- sub-groups and collectives
if build "$D/groups.cl" 2> groups.err; then ok "groups.cl builds"; else cat groups.err; ko "groups.cl"; finish; fi
"$P" --dump groups.sximg > groups.dump
if grep -q 'string "fiber' groups.dump; then
    grep 'string "fiber' groups.dump; ko "a groups.cl kernel fell back to fibers"
else
    ok "every sub-group and work-group builtin of groups.cl is compiled (no fiber fallback)"
fi
K=
for s in 8 16; do
    for k in sg_queries sg_reduce sg_long sg_shuffle sg_block wg_collectives loops; do K="$K ${k}_$s"; done
done
# sub-group size 8: 60/20 -> sub-groups 8, 8, 4 per group
if on_native groups.sximg q.txt 60 20 o:1300,i:400,g:400,f:400 sg_queries_8 > q.out 2>&1 &&
   sed -n 2p q.txt | cut -d' ' -f2-19 | grep -qx '8 8 3 0 0 3 8 8 3 0 1 3 8 8 3 0 2 3' &&
   sed -n 2p q.txt | cut -d' ' -f98-103 | grep -qx '4 8 3 2 0 3'; then
    ok "sub-group queries: sizes 8, 8, 4 in a group of 20 (OpenCL: the last sub-group is smaller)"
else
    cat q.out; sed -n 2p q.txt | cut -c1-300; ko "sub-group queries"
fi
# the sizes the device reports (SX_DEVICE_INFO_SUB_GROUP_SIZES) hold the
# default size sx-wgc compiles kernels without a required size for
if [ "$(on_native --sub-group-sizes 2>&1)" = "4 8 16 32 64" ]; then
    ok "native reports sub-group sizes 4 8 16 32 64 (16 the default)"
else
    on_native --sub-group-sizes; ko "native's sub-group sizes"
fi
if [ -z "$intel_why" ]; then
    if on_intel --sub-group-sizes > sgs.out 2>&1 && grep -qw 8 sgs.out && grep -qw 16 sgs.out; then
        ok "the OpenCL adapter reports Intel's sub-group sizes ($(cat sgs.out))"
    else
        cat sgs.out; ko "sub-group sizes through the OpenCL adapter"
    fi
fi
for geo in 60:20 64:32 7:7 20x6:10x3 12x4x2:6x2x2; do
    differ "groups.cl ${geo%%:*}/${geo#*:}" groups.sximg "${geo%%:*}" "${geo#*:}" o:1300,i:400,g:400,f:400 $K
done
# a collective under a loop over the sub-group size: compiled for full
# sub-groups; other local sizes are refused with a message
if grep -q 'sg_full_8: string "regions: .*; local size in x a multiple of 8"' groups.dump &&
   grep -q 'sg_full_16: string "regions: .*; local size in x a multiple of 16"' groups.dump; then
    ok "a scan over log2 of the sub-group size compiles for full sub-groups (--dump says so)"
else
    grep 'sg_full' groups.dump; ko "full sub-groups"
fi
for geo in 64:32 96x2:48x2; do
    differ "full sub-groups ${geo%%:*}/${geo#*:}" groups.sximg "${geo%%:*}" "${geo#*:}" o:1300,i:400,g:400,f:400 sg_full_8 sg_full_16
done
if ! on_native groups.sximg full.txt 60 20 o:1300,i:400,g:400,f:400 sg_full_8 > full.out 2>&1 &&
   grep -q 'SX_ERROR_INVALID_WORK_GROUP_SIZE: .*compiled for full sub-groups of 8 work-items: local size 20 in x' full.out; then
    ok "a local size the compiled sub-group size does not divide is refused, naming both"
else
    cat full.out; ko "full sub-groups with a local size of 20"
fi

# --- collectives in divergent control flow (groups-branch.cl): under a
# branch on the sub-group id, in loops whose trip count differs between
# work-items; compiled, the regions run per work-item state
if build "$D/groups-branch.cl" 2> branch.err; then ok "groups-branch.cl builds"; else cat branch.err; ko "groups-branch.cl"; finish; fi
"$P" --dump groups-branch.sximg > branch.dump
if grep -q 'string "fiber' branch.dump; then
    grep 'string "fiber' branch.dump; ko "a groups-branch.cl kernel fell back to fibers"
elif [ "$(grep -c 'string "regions: .*collectives in divergent control flow"' branch.dump)" -ge 8 ]; then
    ok "sub-group collectives in divergent control flow are compiled (--dump says so)"
else
    grep 'string "regions' branch.dump; ko "divergent collectives"
fi
# br_sgid's branches are pure functions of the sub-group id: a copy runs
# the groups whose sub-groups all branch alike (one sub-group: 7/7 below)
if [ "$(grep -c 'br_sgid_.*: string "regions: .*; a copy for groups whose work-items branch alike, else collectives in divergent control flow"' branch.dump)" -eq 2 ]; then
    ok "branches on the sub-group id get a copy for the groups that take them alike (--dump says so)"
else
    grep 'br_sgid' branch.dump; ko "the copy for branches taken alike"
fi
KB=
for s in 8 16; do
    for k in br_sgid br_trip br_window br_elect; do KB="$KB ${k}_$s"; done
done
for geo in 60:20 64:32 7:7 20x6:10x3 12x4x2:6x2x2 256:128; do
    differ "groups-branch.cl ${geo%%:*}/${geo#*:}" groups-branch.sximg "${geo%%:*}" "${geo#*:}" o:1300,i:400,g:400,f:400 $KB
done
# DPC++'s work-group scan; at most S sub-groups a group (Intel's runtime
# loses the carry of br_scan's second round over the sub-group totals)
for geo in 60:20 64:32 7:7 20x6:10x3 12x4x2:6x2x2 256:64; do
    differ "groups-branch.cl scan ${geo%%:*}/${geo#*:}" groups-branch.sximg "${geo%%:*}" "${geo#*:}" \
        o:1300,i:400,g:400,f:400,l:512 br_scan_8 br_scan_16
done

# --- the fiber path (a kernel sx-wgc leaves to fibers for another reason):
# sx-native-builtins.so's sub-group and work-group functions, against the
# same kernel compiled (Intel's runtime gives a kernel with a variable-length
# array sub-groups of 1, so it is no oracle for that one)
if "$CLANG" -target spir64 -cl-std=CL2.0 -O2 -c -emit-llvm -Xclang -finclude-default-header "$D/groups-fiber.cl" -o groups-fiber.bc &&
   "$LLVM_SPIRV" --spirv-ext=+SPV_INTEL_subgroups,+SPV_INTEL_variable_length_array groups-fiber.bc -o groups-fiber.spv &&
   "$P" --native -o groups-fiber.sximg groups-fiber.spv 2> fiber.err; then
    "$P" --dump groups-fiber.sximg > fiber.dump
    if grep -q 'fb_groups: string "fiber: has a variable-size private array"' fiber.dump &&
       grep -q 'fb_groups_c: string "regions: ' fiber.dump; then
        ok "groups-fiber.cl: fb_groups runs on fibers, fb_groups_c compiled"
    else
        grep 'fb_groups' fiber.dump; ko "groups-fiber.cl's paths"
    fi
    for geo in 60:20 64:32 7:7 20x6:10x3 12x4x2:6x2x2; do
        g=${geo%%:*} l=${geo#*:}
        if on_native groups-fiber.sximg fiber.txt "$g" "$l" o:2000,i:400,g:400,f:400 fb_groups > fiber.out 2>&1 &&
           on_native groups-fiber.sximg compiled.txt "$g" "$l" o:2000,i:400,g:400,f:400 fb_groups_c > compiled.out 2>&1 &&
           sed -i 's/^kernel fb_groups_c$/kernel fb_groups/' compiled.txt &&
           "$RUN" --compare fiber.txt compiled.txt > cmp.out 2>&1; then
            ok "fiber path's sub-group and work-group functions $g/$l = the compiled ones"
        else
            cat fiber.out compiled.out; head -c 2000 cmp.out; ko "fiber path's collectives $g/$l"
        fi
    done
    differ "groups-fiber.cl compiled 20x6/10x3" groups-fiber.sximg 20x6 10x3 o:2000,i:400,g:400,f:400 fb_groups_c
else
    cat fiber.err; ko "groups-fiber.cl"
fi

# --- under valgrind: the steps' per-work-item arrays sized right (partial
# sub-groups, 2-D groups), no uninitialised value steering a step
if [ -n "${VALGRIND:-}" ]; then
    exe="$B/tests/native-wgc/.libs/wgc-run"
    [ -x "$exe" ] || exe="$RUN"
    if LD_LIBRARY_PATH="$B/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" SX_NATIVE_THREADS=2 SX_ADAPTERS=native \
       SX_DEVICE_SELECTOR='native:*' SX_CACHE=0 "$VALGRIND" -q --error-exitcode=9 "$exe" groups.sximg vg.txt 20x6 10x3 \
       o:1300,i:400,g:400,f:400 $K > vg.out 2>&1; then
        ok "valgrind: compiled sub-group and work-group steps run clean"
    else
        head -40 vg.out; ko "valgrind reports errors in compiled collectives"
    fi
fi

# --- what is not compiled falls back, and --dump says why
if build "$D/groups-divergent.cl" 2> div.err; then
    "$P" --dump groups-divergent.sximg > div.dump
    if grep -q "clustered: string \"fiber: uses the work-group function 'sub_group_clustered_reduce_add'\"" div.dump; then
        ok "--dump names the sub-group functions left to fibers and why"
    else
        grep fiber div.dump; ko "fallback reasons"
    fi
else
    cat div.err; ko "groups-divergent.cl"
fi
finish
