#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# run.sh: proptool end to end. Real .cl sources go through clang + llvm-spirv;
# proptool's output is checked against golden dumps, spirv-val, the core's
# loader (image file and generated registration C, launching on the native
# adapter), and every bad-input case must fail cleanly.
set -u
B=${SX_TEST_BUILDDIR:-$(pwd)}
S=${SX_TEST_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$B/tests/proptool/config.sh"
P="$B/proptool/proptool"
M="$B/tests/proptool/mangle"
D="$S/tests/proptool"
if [ -z "${CLANG:-}" ] || [ -z "${LLVM_SPIRV:-}" ]; then
    echo "SKIP: clang or llvm-spirv not found by configure: cannot build test kernels"
    exit 77
fi
W="$B/tests/proptool/work"
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "PASS: $*"; }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# --- --help, --version, and the man page lists every option --help does
if "$P" --help > help.txt && "$P" --version | grep -q '^proptool (libsycl-ext) ' &&
   [ "$("$P" --bogus 2>/dev/null; echo $?)" -eq 2 ]; then
    ok "--help, --version, bad option exits 2"
else
    ko "--help/--version"
fi
missing=
for o in $(grep -o -- '--[a-z][a-z-]*' help.txt | sort -u); do
    grep -q -- "$(echo "$o" | sed 's/-/\\\\-/g')" "$S/proptool/proptool.1" || missing="$missing $o"
done
if [ -z "$missing" ]; then ok "the man page documents every option of --help"; else ko "proptool.1 lacks:$missing"; fi

# --- kernels from OpenCL C
for f in kernels second dup scope2 conflict unknown-key; do
    if ! "$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header \
            "$D/$f.cl" -o "$f.bc" || ! "$LLVM_SPIRV" "$f.bc" -o "$f.spv"; then
        echo "FAIL: cannot build $f.cl"
        exit 1
    fi
done
HOSTFLAGS="-x cl -cl-std=CL2.0 -Xclang -finclude-default-header -Dkernel= -D__kernel= -target x86_64-linux-gnu -O2 -fPIC -shared -nostdlib"
"$CLANG" $HOSTFLAGS "$D/kernels.cl" -o kernels.so || { echo "FAIL: cannot build kernels.so"; exit 1; }
have_as=no
if [ -n "${SPIRV_AS:-}" ]; then
    have_as=yes
    for f in dangling conflict-decor hostaccess if-host; do
        "$SPIRV_AS" "$D/$f.spvasm" -o "$f.spv" || { echo "FAIL: cannot assemble $f.spvasm"; exit 1; }
    done
fi

# Golden comparison: binary sizes depend on the toolchain, the rest must not.
golden() { # NAME SXIMG
    "$P" --dump "$2" | sed '/^  binary: /d' > "$1.dump"
    if diff -u "$D/$1.golden" "$1.dump"; then ok "dump of $1 matches golden"; else ko "dump of $1 differs from golden"; fi
}

# --- the main run: two SPIR-V inputs, host variant, generated C
if "$P" -o main.sximg --emit-c main-reg.c --c-prefix testimg kernels.spv --host kernels.so second.spv 2> main.err; then
    ok "proptool main run"
else
    cat main.err; ko "proptool main run"
fi
golden main main.sximg

# --- issue 14: --emit-prop writes sycl-post-link's files; --table reads
# them back into the same images, property for property (the host variant
# is no SPIR-V, so only the SPIR-V inputs go round).
if "$P" -q -o rt1.sximg --emit-prop rt kernels.spv second.spv && "$P" -q -o rt2.sximg --table rt.table &&
   "$P" --dump rt1.sximg > rt1.dump && "$P" --dump rt2.sximg > rt2.dump && cmp -s rt1.dump rt2.dump &&
   grep -qx '\[SYCL/device globals\]' rt_0.prop && grep -q '^dg_usm=2|' rt_0.prop && [ -s rt_0.sym ] &&
   grep -qx 'rt_1.spv|rt_1.prop|rt_1.sym' rt.table; then
    ok "--emit-prop and --table round trip"
else
    diff rt1.dump rt2.dump | head -20; ko "--emit-prop and --table round trip"
fi
printf '[SYCL/x]\nk=2|A\n' > bad.prop
if ! "$P" -o bp.sximg kernels.spv --prop bad.prop 2> bp.err && grep -q 'bad.prop: line 2' bp.err &&
   ! "$P" --prop bad.prop -o bp.sximg kernels.spv 2>/dev/null && [ ! -e bp.sximg ]; then
    ok "a damaged .prop is refused with its line"
else
    cat bp.err; ko "damaged .prop"
fi

# spirv-val on every SPIR-V image proptool wrote
if [ -n "${SPIRV_VAL:-}" ]; then
    "$P" --dump main.sximg --extract ex >/dev/null
    for f in ex/*.spv; do
        if "$SPIRV_VAL" "$f"; then ok "spirv-val $f"; else ko "spirv-val $f"; fi
    done
    if [ -n "${SPIRV_DIS:-}" ]; then
        # if_device: only_on_host's body is gone, only_on_device's kept, no DontInline left
        "$SPIRV_DIS" ex/image0.spv > image0.dis
        if awk '/= OpFunction .*only_on_host|%only_on_host = OpFunction/{f=1;n=0} f{n++; if(/OpFunctionEnd/){print n; exit}}' image0.dis | grep -qx 5; then
            ok "if_device: only_on_host is an immediate return"
        else
            ko "if_device: only_on_host still has a body"; sed -n '/only_on_host = OpFunction/,/OpFunctionEnd/p' image0.dis
        fi
        if grep -q 'OpStore.*2000\|uint_2000' image0.dis; then ok "if_device: only_on_device keeps its body"; else ko "if_device: only_on_device lost its body"; fi
        if grep -q DontInline image0.dis; then ko "if_device: DontInline left"; else ok "if_device: no DontInline left"; fi
    fi
else
    echo "SKIP: spirv-val not found"
fi

# The core: generated registration C and the image file, launching on native
CCLINE="$CC $CPPFLAGS -I$S/include -I$B/include -o"
LIBS="-L$B/lib/.libs -lsycl-ext -lm -Wl,-rpath,$B/lib/.libs"
export SX_DEVICE_SELECTOR='native:*'
if $CCLINE reg-c "$D/reg-main.c" main-reg.c $LIBS 2> cc.err; then
    if ./reg-c; then ok "generated C registers the images; kernels found and launched"; else ko "generated C run"; fi
else
    cat cc.err; ko "generated C compiles"
fi
if $CCLINE reg-file -DUSE_IMAGE_FILE "$D/reg-main.c" $LIBS 2> cc.err; then
    if ./reg-file main.sximg; then ok "image file loads in the core; kernels found and launched"; else ko "image file run"; fi
else
    cat cc.err; ko "image-file program compiles"
fi
unset SX_DEVICE_SELECTOR

# --- SPIR bitcode variant
if "$P" -o bc.sximg kernels.spv --spir-bc --llvm-spirv "$LLVM_SPIRV" 2> bc.err &&
   "$P" --dump bc.sximg | grep -q 'format: llvmir_bitcode (3)'; then
    ok "--spir-bc adds a bitcode variant"
else
    cat bc.err; ko "--spir-bc"
fi

# --- device-global accessor kernels: valid SPIR-V, and working on Oclgrind
if "$P" --device-global-accessors --spir-bc --llvm-spirv "$LLVM_SPIRV" -o acc.sximg kernels.spv 2> acc.err; then
    "$P" --dump acc.sximg --extract exacc > acc.dump
    if [ -z "${SPIRV_VAL:-}" ] || "$SPIRV_VAL" exacc/image0.spv; then
        ok "accessor kernels pass spirv-val"
    else
        ko "accessor kernels fail spirv-val"
    fi
    SACC=$(sed -n 's/^    dg_scope: string "\(.*\)"$/\1/p' acc.dump | head -n 1)
    UACC=$(sed -n 's/^    dg_usm: string "\(.*\)"$/\1/p' acc.dump | head -n 1)
    if [ -n "$SACC" ] && [ -n "$UACC" ] && grep -q "^    $SACC\$" acc.dump; then
        ok "accessor kernels listed in entries and \"SX/device global accessors\""
    else
        ko "accessor kernels not recorded"
    fi
    OCLGRIND_ICD=/usr/lib/oclgrind/liboclgrind-rt-icd.so
    if [ -f "$OCLGRIND_ICD" ] && $CC $CPPFLAGS -o accessor-ocl "$D/accessor-ocl.c" -lOpenCL 2> cc.err; then
        mkdir -p icd && echo "$OCLGRIND_ICD" > icd/oclgrind.icd
        if OCL_ICD_VENDORS="$W/icd" ASAN_OPTIONS=detect_leaks=0 ./accessor-ocl exacc/image1.bc "$SACC" "$UACC"; then
            ok "accessor kernels read, write and bind (op 3) device globals on Oclgrind (SPIR bitcode)"
        else
            ko "accessor kernels on Oclgrind"
        fi
        # The same through the core and the OpenCL adapter.
        OCLA="$B/adapters/opencl/.libs/sx-adapter-opencl.so"
        if [ -f "$OCLA" ] &&
           "$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header "$D/dgacc.cl" -o dgacc.bc &&
           "$LLVM_SPIRV" dgacc.bc -o dgacc.spv &&
           "$P" --spir-bc --device-global-accessors --llvm-spirv "$LLVM_SPIRV" -o dgacc.sximg dgacc.spv &&
           $CCLINE dg-ocl "$D/dg-ocl.c" $LIBS 2> cc.err; then
            SX_ADAPTERS="$OCLA" OCL_ICD_VENDORS="$W/icd" SX_DEVICE_SELECTOR='opencl:*' ASAN_OPTIONS=detect_leaks=0 \
                ./dg-ocl dgacc.sximg
            case $? in
            0) ok "device globals through the core and the OpenCL adapter use proptool's accessor kernels" ;;
            77) echo "SKIP: device globals through the OpenCL adapter" ;;
            *) ko "device globals through the core and the OpenCL adapter" ;;
            esac
        else
            echo "SKIP: no OpenCL adapter built"; cat cc.err 2>/dev/null
        fi
    else
        echo "SKIP: accessor kernels on OpenCL: no Oclgrind or OpenCL headers"
    fi
else
    cat acc.err; ko "--device-global-accessors"
fi

# --- SPIR-V 1.0 input (no globals in entry-point interfaces), with accessors
if [ $have_as = yes ]; then
    if "$SPIRV_AS" --target-env spv1.0 "$D/dg10.spvasm" -o dg10.spv &&
       "$P" --device-global-accessors -o dg10.sximg dg10.spv && "$P" --dump dg10.sximg --extract ex10 > dg10.dump &&
       [ "$(grep -c '^    __sx_dg_access_[A-Za-z0-9_]*$' dg10.dump)" -eq 2 ] &&
       { [ -z "${SPIRV_VAL:-}" ] || "$SPIRV_VAL" ex10/image0.spv; }; then
        ok "SPIR-V 1.0 input with accessor kernels passes spirv-val"
    else
        ko "SPIR-V 1.0 input with accessor kernels"
    fi
fi

# --- C++ for OpenCL virtual functions (function-pointer constants)
if "$CLANG" -x clcpp -cl-std=clc++ -target spir64 -O1 -c -emit-llvm -Xclang -finclude-default-header \
        "$D/vf.clcpp" -o vf.bc 2> vf.err && "$LLVM_SPIRV" --spirv-ext=+SPV_INTEL_function_pointers vf.bc -o vf.spv; then
    if "$P" -o vf.sximg vf.spv 2>> vf.err && "$P" --dump vf.sximg > vf.dump &&
       grep -q 'calls-virtual-functions-set: .* "set_a"$' vf.dump &&
       grep -q 'uses-virtual-functions-set: .* "set_a"$' vf.dump &&
       grep -q ' virtual-functions-set: .* "set_a"$' vf.dump; then
        ok "virtual-function sets from C++ for OpenCL"
    else
        cat vf.err; ko "virtual-function sets"
    fi
else
    echo "SKIP: C++ for OpenCL virtual functions do not build here"; cat vf.err
fi

# --- no leaks or bad reads in proptool itself
if [ -n "${VALGRIND:-}" ]; then
    if "$VALGRIND" -q --leak-check=full --error-exitcode=9 "$P" --device-global-accessors -o vg.sximg \
            --emit-c vg.c kernels.spv --host kernels.so second.spv &&
       "$VALGRIND" -q --leak-check=full --error-exitcode=9 "$P" --dump vg.sximg > /dev/null &&
       { "$VALGRIND" -q --leak-check=full --error-exitcode=9 "$P" -o vg2.sximg kernels.spv dup.spv 2>/dev/null; [ $? -eq 1 ]; }; then
        ok "valgrind: proptool runs clean (success, dump, failure paths)"
    else
        ko "valgrind reports errors in proptool"
    fi
fi

# --- manifest
cat > m.manifest <<MAN
sximg-manifest 1
# a host image described by hand
image host kernels.so
kernel __sycl_kernel_once single-task
param pointer global
kernel "__sycl_kernel_scale" nd-range 1
param pointer global
param struct 24 8 i32@0 f32@4 i8@8 f64@16
param local
param value i32
global dg_scope size 4 image-scope host-access read symbol counter
aspects fp64 atomic64
property "SYCL/misc properties" optLevel uint32 2
MAN
if "$P" -o man.sximg --manifest m.manifest 2> man.err; then
    golden manifest man.sximg
else
    cat man.err; ko "manifest run"
fi

# --- hand-written corner cases
if [ $have_as = yes ]; then
    # Issue 14: a decoration proptool does not know on a variable is kept
    # and warned about (never dropped silently); 6147..6149 are known.
    cat > unknown-decor.spvasm <<'SPV'
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Kernel
               OpMemoryModel Physical64 OpenCL
               OpEntryPoint Kernel %k "k"
               OpDecorate %g !6147 !0 "dg_legacy"
               OpDecorate %g !6148 !0
               OpDecorate %g !6149 !1
               OpDecorate %g !6300 !7
       %void = OpTypeVoid
        %int = OpTypeInt 32 0
         %pg = OpTypePointer CrossWorkgroup %int
         %c0 = OpConstant %int 0
       %fnty = OpTypeFunction %void
          %g = OpVariable %pg CrossWorkgroup %c0
          %k = OpFunction %void None %fnty
          %l = OpLabel
               OpReturn
               OpFunctionEnd
SPV
    if "$SPIRV_AS" unknown-decor.spvasm -o unknown-decor.spv && "$P" -o ud.sximg unknown-decor.spv 2> ud.err &&
       [ "$(grep -c 'warning' ud.err)" -eq 1 ] && grep -q 'decoration 6300 on variable .*kept in the SPIR-V' ud.err &&
       ! "$P" --werror -o ud2.sximg unknown-decor.spv 2>/dev/null &&
       "$P" --dump ud.sximg | grep -q 'dg_legacy: uint32 0 (read)'; then
        ok "unknown decoration on a variable: warned, kept; HostAccessINTEL 6147 read as DPC++'s enum"
    else
        cat ud.err; ko "unknown decoration on a variable"
    fi
    if "$P" -o if-host.sximg if-host.spv && "$P" --dump if-host.sximg --extract exh >/dev/null &&
       { [ -z "${SPIRV_VAL:-}" ] || "$SPIRV_VAL" exh/image0.spv; }; then
        ok "if_device on a non-void function with names and decoration groups passes spirv-val"
    else
        ko "if_device on if-host.spvasm"
    fi
    if "$P" -o ha.sximg hostaccess.spv; then golden hostaccess ha.sximg; else ko "HostAccessINTEL module"; fi
    # Issue 26, finding 6: walks over constants remember what they visited.
    # A composite that contains itself is refused by the reader (it looped
    # forever in the vtables pass); towers of shared composites cost their
    # size (4^18 paths in 18 constants).
    for f in selfref tower tower-fp; do
        "$SPIRV_AS" "$D/hostile-$f.spvasm" -o "hostile-$f.spv" || ko "cannot assemble hostile-$f.spvasm"
    done
    timeout 60 "$P" --no-native -o hs.sximg hostile-selfref.spv 2> hs.err; rc=$?
    if [ $rc -eq 1 ] && [ ! -e hs.sximg ] &&
       grep -q 'OpConstantComposite %[0-9]* refers to itself' hs.err; then
        ok "a self-containing composite is refused (exit 1, named), not walked forever"
    else
        cat hs.err; ko "self-containing composite: exit $rc"
    fi
    for f in tower tower-fp; do
        if timeout 60 "$P" --no-native -o ht.sximg "hostile-$f.spv" 2> ht.err; then
            ok "a tower of shared composites ($f) is processed in time"
        else
            cat ht.err; ko "tower of shared composites ($f): exit $?"
        fi
    done
fi
# big-endian module
"$M" kernels.spv be.spv swap
if "$P" -o be.sximg be.spv && "$P" --dump be.sximg | grep -q __sycl_kernel_scale; then
    ok "a big-endian module reads"
else
    ko "big-endian module"
fi
# unknown opcode: skipped by word count with a warning
"$M" kernels.spv unk.spv insert 5 0x00037abc 1 2
if "$P" -o unk.sximg unk.spv 2> unk.err && grep -q 'unk.spv: word 5: unknown opcode 31420' unk.err; then
    ok "unknown opcode skipped with a warning naming file and word"
else
    cat unk.err; ko "unknown opcode"
fi
# unknown annotation key: an error by default (a typo must not pass
# silently), naming the key and the nearest known one; no output
rm -f uk.sximg
if ! "$P" -o uk.sximg unknown-key.spv 2> uk.err &&
   grep -q "unknown-key.spv: word [0-9]*: unknown annotation key 'sycl-frobnicate'" uk.err && [ ! -f uk.sximg ]; then
    ok "unknown annotation key is an error"
else
    cat uk.err; ko "unknown annotation key is an error"
fi
# a typo of host_access on a device global: an error that says what was meant
cat > typo.cl <<'EOT'
__attribute__((annotate("sycl-unique-id=t;sycl-device-global-size=4;hots_access=read")))
global int *global t;
kernel void k(global int *o) { o[0] = *t; }
EOT
"$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header typo.cl -o typo.bc &&
    "$LLVM_SPIRV" typo.bc -o typo.spv || ko "building typo.cl"
if ! "$P" -o typo.sximg typo.spv 2> typo.err && grep -q "unknown annotation key 'hots_access'.*did you mean 'host_access'" typo.err &&
   [ "$(grep -c "hots_access" typo.err)" -eq 1 ]; then
    ok "a misspelt host_access is an error, once, with the key meant"
else
    cat typo.err; ko "misspelt host_access"
fi
# --lax-annotations: a warning, said once, and the output is written
if "$P" --lax-annotations -o uk.sximg unknown-key.spv 2> uk.err &&
   [ "$(grep -c "warning: .*unknown annotation key 'sycl-frobnicate'" uk.err)" -eq 1 ] && [ -f uk.sximg ]; then
    ok "--lax-annotations: unknown key warns once and keeps going"
else
    cat uk.err; ko "--lax-annotations unknown annotation key"
fi
if "$P" --lax-annotations --werror -o ukw.sximg unknown-key.spv 2>/dev/null || [ -f ukw.sximg ]; then
    ko "--werror turns the warning into a failure"
else
    ok "--werror turns the warning into a failure"
fi
# a key on the wrong kind of entity: an error, a warning with the option
cat > misplaced.cl <<'EOT'
__attribute__((annotate("host_access=read")))
kernel void k(global int *o) { o[0] = 1; }
EOT
"$CLANG" -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header misplaced.cl -o misplaced.bc &&
    "$LLVM_SPIRV" misplaced.bc -o misplaced.spv || ko "building misplaced.cl"
if ! "$P" -o mp.sximg misplaced.spv 2> mp.err && grep -q "key 'host_access' on function k does not belong there: it belongs on variables" mp.err &&
   "$P" --lax-annotations -o mp.sximg misplaced.spv 2> mp2.err && [ "$(grep -c 'warning: .*host_access' mp2.err)" -eq 1 ]; then
    ok "a misplaced key is an error; a warning once with --lax-annotations"
else
    cat mp.err mp2.err; ko "misplaced key"
fi

# --- bad input: each must fail (status 1), name the file (and word), leave no output
expect_fail() { # NAME PATTERN ARGS...
    name=$1 pat=$2
    shift 2
    rm -f out.sximg out.c
    "$P" -o out.sximg --emit-c out.c "$@" > bad.out 2> bad.err
    rc=$?
    left=$(ls out.sximg out.c out.sximg.tmp* out.c.tmp* 2>/dev/null)
    if [ $rc -eq 1 ] && grep -q -- "$pat" bad.err && [ -z "$left" ]; then
        ok "bad input: $name ($(head -n1 bad.err))"
    else
        ko "bad input: $name: status $rc, left '$left', stderr:"; cat bad.err
    fi
}
"$M" kernels.spv trunc.spv truncate 1001
expect_fail "truncated (not a word multiple)" "trunc.spv: size 1001 is not a multiple of 4" trunc.spv
"$M" kernels.spv trunc2.spv truncate 1000
expect_fail "truncated mid-instruction" "trunc2.spv: word [0-9]*: .* only [0-9]* words remain" trunc2.spv
"$M" kernels.spv trunc3.spv truncate 12
expect_fail "truncated header" "trunc3.spv: truncated: 12 bytes" trunc3.spv
"$M" kernels.spv magic.spv set 0 0x12345678
expect_fail "wrong magic" "magic.spv: word 0: wrong magic number 0x12345678" magic.spv
"$M" kernels.spv wc0.spv set 5 0x00000011
expect_fail "word count 0" "wc0.spv: word 5: instruction (opcode 17) has word count 0" wc0.spv
"$M" kernels.spv wcbig.spv set 5 0xfff00011
expect_fail "word count too large" "wcbig.spv: word 5: OpCapability has word count 65520" wcbig.spv
"$M" kernels.spv bound.spv set 3 20
expect_fail "id out of bound" "bound.spv: word [0-9]*: .*id [0-9]* is out of bound (bound 20)" bound.spv
"$M" kernels.spv version.spv set 1 0x00020000
expect_fail "unsupported version" "version.spv: word 1: unsupported SPIR-V version" version.spv
if [ $have_as = yes ]; then
    expect_fail "dangling decoration" "dangling.spv: word 18: dangling decoration" dangling.spv
    expect_fail "conflicting keys (two decorations)" "conflict-decor.spv: word [0-9]*: conflicting values for key 'sycl-unique-id'" conflict-decor.spv
fi
expect_fail "conflicting keys (one string)" "conflict.spv: word [0-9]*: kernel '__sycl_kernel_both': conflicting keys" conflict.spv
expect_fail "duplicate kernel across inputs" "dup.spv: duplicate kernel name '__sycl_kernel_once': also defined in kernels.spv" kernels.spv dup.spv
expect_fail "device_image_scope in two images" "device_global variable 'dg_scope' with property \"device_image_scope\" is used in more than one device image" kernels.spv scope2.spv
expect_fail "missing input" "nothere.spv: cannot open" nothere.spv
"$CLANG" $HOSTFLAGS "$D/second.cl" -o second.so 2>/dev/null
expect_fail "host variant lacking a kernel" "second.so: host variant lacks kernel '__sycl_kernel_scale' of kernels.spv" kernels.spv --host second.so
printf 'sximg-manifest 1\nimage host kernels.so\nparam local\n' > bad.manifest
expect_fail "manifest: param before kernel" "bad.manifest: line 3: param before any kernel" --manifest bad.manifest

# --- damaged image files: --dump must fail with the parser's message
dump_fail() { # NAME PATTERN FILE
    if "$P" --dump "$3" > /dev/null 2> dump.err; then
        ko "damaged image file: $1 was accepted"
    elif grep -q -- "$2" dump.err; then
        ok "damaged image file: $1 ($(head -n1 dump.err))"
    else
        ko "damaged image file: $1: stderr:"; cat dump.err
    fi
}
"$M" main.sximg t.sximg truncate 100
dump_fail "truncated" "the header says [0-9]* bytes but there are 100 (truncated)" t.sximg
"$M" main.sximg v.sximg set32 8 2
dump_fail "major version 2" "version 2.0: this library reads 1.x" v.sximg
# A field damaged in a 1.1 file: its block's checksum catches it first.
"$M" main.sximg c.sximg set64 40 0xffffffffffff0000
dump_fail "checksum of the damaged block" "bytes 0\.\.[0-9]* (block 0 of [0-9]*) do not match their checksum" c.sximg
# Without the checksums (flags cleared: a 1.0 file, or hostile ones that are
# right), each field's own check catches it.
"$M" main.sximg n.sximg set32 36 0
"$M" n.sximg o.sximg set64 40 0xffffffffffff0000
dump_fail "image table out of the file" "image records at 18446744073709486080 run past the end" o.sximg
"$M" main.sximg x.sximg append 0
dump_fail "trailing byte" "(trailing data)" x.sximg
"$M" n.sximg d.sximg set64 80 0x7fffffff
dump_fail "binary past the end" "image 0 (record at byte 64): binary at 2147483647" d.sximg

echo "proptool tests: $pass passed, $fail failed"
# Keep the work directory only when something failed (to look at).
if [ $fail -eq 0 ]; then
    cd "$B" && rm -rf "$W"
    exit 0
fi
exit 1
