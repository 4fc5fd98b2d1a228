#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# device-header.sh: every macro of sycl-ext/device.h (device-header.cl)
# through the producer recipe (clang-14, sx-spir-opt, llvm-spirv-14) and
# proptool: the dump shows what each wrote (device globals with id, size
# from the type, host_access, scope; nd_range dims and single_task; the
# required work-group size; aspects; the sets a kernel calls and each set's
# image; if_device; the work-group scratch parameter as "SYCL/implicit local
# arg"). The host side compiles as C and C++ with warnings as
# errors, with the shared header included from two files.
set -u
B=${SX_TEST_BUILDDIR:?} S=${SX_TEST_SRCDIR:?}
[ -n "${CLANG:-}" ] && [ -n "${LLVM_SPIRV:-}" ] || { echo "SKIP: clang or llvm-spirv not found by configure"; exit 77; }
[ -x "$B/proptool/sx-spir-opt" ] || { echo "SKIP: no sx-spir-opt (configure found no llvm-14-dev)"; exit 77; }
W=$B/tests/proptool/dh-work
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
P=$B/proptool/proptool

"$CLANG" -target spir64 -cl-std=CL2.0 -O1 -Xclang -disable-llvm-passes -c -emit-llvm -Xclang -finclude-default-header \
    -I"$S/include" "$S/tests/proptool/device-header.cl" -o dh.in.bc &&
    "$B/proptool/sx-spir-opt" -O1 dh.in.bc -o dh.bc &&
    "$LLVM_SPIRV" --spirv-ext=+SPV_INTEL_function_pointers dh.bc -o dh.spv || fail "building device-header.cl"
"$P" --no-native -o dh.sximg dh.spv 2>warn.txt || { cat warn.txt; fail "proptool"; }
[ -s warn.txt ] && { cat warn.txt; fail "proptool warned about what the header wrote"; }
"$P" --dump dh.sximg --extract x >dump.txt || fail "proptool --dump"
expect() { grep -q -- "$1" dump.txt || { cat dump.txt; fail "no '$1' in the dump ($2)"; }; }
expect "dh_rw_id: uint32 2 (read_write)" "host_access read_write"
expect "dh_ro_id: uint32 0 (read)" "host_access read"
expect "dh_wo_id: uint32 1 (write)" "host_access write"
expect "dh_none_id: uint32 3 (none)" "host_access none"
expect "dh_rw_id: bytes(64 bits) size 4, device_image_scope 0" "size from int"
expect "dh_ro_id: bytes(64 bits) size 8, device_image_scope 0" "size from long"
expect "dh_none_id: bytes(64 bits) size 2, device_image_scope 0" "size from short"
expect "dh_img_id: bytes(64 bits) size 16, device_image_scope 1" "image scope, size from int4"
expect "dh_pair_id: bytes(64 bits) size 16, device_image_scope 1" "image scope struct with an initial value"
expect "__sycl_kernel_dh_nd2: bytes(608 bits) version 1, nd_range 2-d" "SX_ND_RANGE_KERNEL(2, ...)"
expect "1: local local size 8" "a local (work_group_memory) parameter"
expect "__sycl_kernel_dh_nd3: .* nd_range 3-d" "SX_ND_RANGE_KERNEL(3, ...)"
expect "__sycl_kernel_dh_task: .* single_task" "SX_SINGLE_TASK_KERNEL"
expect "__sycl_kernel_dh_nd2@reqd_work_group_size: bytes(64 bits) 8 4" "SX_P_WORK_GROUP_SIZE(4, 8), SYCL order"
expect "aspects: bytes(32 bits) fp64(6)" "SX_P_USES_ASPECTS(fp64)"
expect "calls-virtual-functions-set: bytes(96 bits) \"_ZTSv,dh_set\"" "SX_P_CALLS_INDIRECTLY(dh_set) and _DEFAULT"
expect "virtual-functions-set: bytes(48 bits) \"dh_set\"" "SX_INDIRECTLY_CALLABLE(dh_set): its own image"
expect "virtual-functions-set: bytes(40 bits) \"_ZTSv\"" "SX_INDIRECTLY_CALLABLE_DEFAULT"
expect "dh_plain: .* plain" "SX_KERNEL: a plain kernel"
# SX_P_WORK_GROUP_SCRATCH: "SYCL/implicit local arg" names the scratch
# parameter, which belongs to no source parameter.
sed -n '/\[SYCL\/implicit local arg\]/,/^  \[/p' dump.txt >implicit.txt
grep -q "__sycl_kernel_dh_scratch: uint32 2" implicit.txt ||
    { cat dump.txt; fail "no \"SYCL/implicit local arg\" __sycl_kernel_dh_scratch: uint32 2 (SX_P_WORK_GROUP_SCRATCH)"; }
grep -q "__sycl_kernel_dh_scratch_at: uint32 1" implicit.txt ||
    { cat dump.txt; fail "no \"SYCL/implicit local arg\" __sycl_kernel_dh_scratch_at: uint32 1 (SX_P_WORK_GROUP_SCRATCH_ARG(1))"; }
grep -q "__sycl_kernel_dh_nd2: uint32" implicit.txt && fail "a kernel without the scratch key has an implicit local arg"
expect "__sycl_kernel_dh_scratch: .* nd_range 1-d, 2 source params, 3 params" "the scratch parameter is no source parameter"
expect "__sycl_kernel_dh_scratch_at: .* nd_range 1-d, 2 source params, 3 params" "SX_P_WORK_GROUP_SCRATCH_ARG: no source parameter"
# if_device: the host-only body (4242) is gone from the device image, the
# device-only one (7) stays.
spv=$(grep -l . x/*.spv | xargs grep -l dh_host_only | head -n 1)
[ -n "$spv" ] || fail "no image with dh_host_only"
if command -v spirv-dis >/dev/null 2>&1; then
    spirv-dis "$spv" >task.spvasm || fail "spirv-dis"
    grep -q "OpConstant %uint 4242" task.spvasm && fail "the sycl-call-if-on-host body is still in the device image"
    grep -q "OpConstant %uint 7" task.spvasm || fail "the sycl-call-if-on-device body is gone"
fi
echo "PASS: every device.h macro writes what proptool reads"

# SX_DEVICE_GLOBALS_AS_USED (a library module built apart): the ordinary
# device global it uses is its own, with the shared unique id and access;
# the unused one and the image-scope one are not in its images.
cat >asused.h <<'EOT'
#include <sycl-ext/device.h>
SX_SHARED_DEVICE_GLOBAL(int, used_dg, read_write);
SX_SHARED_DEVICE_GLOBAL(int, unused_dg, read);
SX_SHARED_DEVICE_GLOBAL_IMAGE_SCOPE(int, tile_dg, write);
EOT
printf '#define SX_DEVICE_GLOBALS_AS_USED 1\n#include "asused.h"\nSX_INDIRECTLY_CALLABLE(lib_set) int lib_f(int x) { return x + *used_dg; }\n' >asused.cl
"$CLANG" -target spir64 -cl-std=CL2.0 -O1 -Xclang -disable-llvm-passes -c -emit-llvm -Xclang -finclude-default-header \
    -I"$S/include" -I. asused.cl -o asused.in.bc &&
    "$B/proptool/sx-spir-opt" -O1 asused.in.bc -o asused.bc &&
    "$LLVM_SPIRV" --spirv-ext=+SPV_INTEL_function_pointers asused.bc -o asused.spv &&
    "$P" --no-native -o asused.sximg asused.spv 2>asused.err && "$P" --dump asused.sximg >asused.txt ||
    { cat asused.err; fail "a SX_DEVICE_GLOBALS_AS_USED module"; }
grep -q "used_dg: uint32 2 (read_write)" asused.txt && ! grep -q "unused_dg\|tile_dg" asused.txt ||
    { cat asused.txt; fail "SX_DEVICE_GLOBALS_AS_USED: not just the used device global, with its id and access"; }
echo "PASS: SX_DEVICE_GLOBALS_AS_USED defines the device globals the module uses, nothing else"

# The shared declarations on the host: C and C++, two files including them.
cat >shared.h <<'EOT'
#include <sycl-ext/device.h>
SX_SHARED_DEVICE_GLOBAL(int, counter, read_write);
SX_SHARED_DEVICE_GLOBAL_INIT(float, factor, read, 2.5f);
SX_SHARED_DEVICE_GLOBAL_IMAGE_SCOPE(int, tile, write);
SX_SHARED_KERNEL(scale2d);
SX_SHARED_VF_SET(shapes);
EOT
cat >a.c <<'EOT'
#include <stdio.h>
#include <string.h>
#include "shared.h"
void *other(void);
int main(void)
{
    if (strcmp(SX_KERNEL_NAME(scale2d), "scale2d") || strcmp(SX_VF_SET_NAME(shapes), "shapes") ||
        other() != (void *)&counter || factor.value != 2.5f || sizeof tile.value != sizeof(int))
        return 1;
    sx_result r = sx_init(0);
    /* registered once however many files include the header: a second add
       of the same object is refused, so the constructor's was the only one */
    if (r != SX_SUCCESS || sx_device_global_add(&counter, "counter", sizeof(int), 0, SX_HOST_ACCESS_READ_WRITE) == SX_SUCCESS)
        return 2;
    puts("OK");
    return sx_fini() == SX_SUCCESS ? 0 : 3;
}
EOT
printf '#include "shared.h"\nvoid *other(void);\nvoid *other(void) { return &counter; }\n' >b.c
CC=${CC:-cc}
$CC -Wall -Wextra -Wmissing-prototypes -Werror -I"$S/include" -I"$B/include" a.c b.c -o shared-c -L"$B/lib/.libs" -lsycl-ext \
    -Wl,-rpath,"$B/lib/.libs" || fail "the shared header on the host (C)"
./shared-c >out.txt 2>&1 && grep -q OK out.txt || { cat out.txt; fail "the shared header's host objects"; }
if command -v c++ >/dev/null 2>&1; then
    c++ -x c++ -Wall -Wextra -Wmissing-declarations -Werror -I"$S/include" -I"$B/include" -c a.c -o a-cxx.o || fail "the shared header on the host (C++)"
fi
echo "PASS: the shared declarations compile and register once from C (and compile as C++)"
rm -rf "$W"
