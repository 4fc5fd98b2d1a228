#!/bin/sh
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# producer.sh: the producer recipe (doc/producer.md) translates what the
# plain clang-14 -O1 | llvm-spirv-14 route cannot (producer-shapes.cl:
# freeze from x / d with x % d, a switch narrowed to i31 or i3), at -O1,
# -O2 and -O3, and the kernels compute what the same C code does on the
# host: on the native device (proptool's native variant of that SPIR-V)
# and on Intel's CPU OpenCL runtime where tools/intel-opencl.sh put one.
set -u
B=${SX_TEST_BUILDDIR:?} S=${SX_TEST_SRCDIR:?}
[ -n "${CLANG:-}" ] && [ -n "${LLVM_SPIRV:-}" ] || { echo "SKIP: clang or llvm-spirv not found by configure"; exit 77; }
[ -x "$B/proptool/sx-spir-opt" ] || { echo "SKIP: no sx-spir-opt (configure found no llvm-14-dev)"; exit 77; }
W=$B/tests/proptool/producer-work
rm -rf "$W" && mkdir -p "$W" && cd "$W" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
src=$S/tests/proptool/producer-shapes.cl
F="-target spir64 -cl-std=CL2.0 -c -emit-llvm -Xclang -finclude-default-header"

# What the plain route does with these shapes (said, not asserted: it is
# clang's and llvm-spirv's behaviour, not ours).
if "$CLANG" $F -O1 "$src" -o plain.bc && "$LLVM_SPIRV" plain.bc -o plain.spv 2>plain.err; then
    echo "note: clang -O1 | $LLVM_SPIRV translated producer-shapes.cl without the recipe"
else
    echo "note: clang -O1 | $LLVM_SPIRV fails without the recipe: $(head -c 160 plain.err | tr '\n' ' ')"
fi

cat >run.c <<'EOT'
#include <stdio.h>
#include <stdlib.h>
#include <sycl-ext/sx.h>
#define N 64
#define CK(c) do { sx_result r_ = (c); if (r_ != SX_SUCCESS) { fprintf(stderr, "%s: %s: %s\n", #c, sx_result_name(r_), sx_last_error()); exit(1); } } while (0)
static sx_queue q;
static void run(const char *name, int nargs, sx_arg *a)
{
    sx_kernel k;
    CK(sx_kernel_get(name, &k));
    size_t g[1] = {N};
    CK(sx_queue_launch(q, k, 1, NULL, g, NULL, (uint32_t)nargs, a, 0, NULL, NULL));
    CK(sx_queue_wait(q));
    CK(sx_kernel_release(k));
}
#define P(i, p) {SX_ARG_POINTER, i, sizeof(void *), p}
#define V(i, v) {SX_ARG_VALUE, i, sizeof(v), &v}
int main(int argc, char **argv)
{
    sx_image_file f;
    sx_device dev;
    sx_context c;
    uint32_t n = 0;
    CK(sx_init(0));
    CK(sx_image_file_load(argv[1], &f));
    CK(sx_device_select("*:*", 1, &dev, &n));
    CK(sx_context_create(1, &dev, &c));
    CK(sx_queue_create(c, dev, SX_QUEUE_IN_ORDER, &q));
    int *x, *a, *b; long *lx, *lo; unsigned *u;
    CK(sx_usm_alloc(c, dev, SX_USM_TYPE_SHARED, N * 4, 0, (void **)&x));
    CK(sx_usm_alloc(c, dev, SX_USM_TYPE_SHARED, N * 4, 0, (void **)&a));
    CK(sx_usm_alloc(c, dev, SX_USM_TYPE_SHARED, N * 4, 0, (void **)&b));
    CK(sx_usm_alloc(c, dev, SX_USM_TYPE_SHARED, N * 8, 0, (void **)&lx));
    CK(sx_usm_alloc(c, dev, SX_USM_TYPE_SHARED, 2 * N * 8, 0, (void **)&lo));
    CK(sx_usm_alloc(c, dev, SX_USM_TYPE_SHARED, N * 4, 0, (void **)&u));
    for (int i = 0; i < N; i++) { x[i] = i * 37 - 1000; lx[i] = (long)i * 123456789L - 99999; }
    int bad = 0, d = 7; unsigned w = 5, nn = N; long ld = -13; int cnt = 11;
    sx_arg a1[] = {P(0, a), P(1, b), P(2, x), V(3, d)};
    run("divrem_int", 4, a1);
    for (int i = 0; i < N; i++) bad += a[i] != x[i] / d || b[i] != x[i] % d;
    sx_arg a2[] = {P(0, u), V(1, w), V(2, nn)};
    run("index2d", 3, a2);
    for (unsigned i = 0; i < N; i++) bad += u[i] != (i / w) * 1000u + i % w;
    sx_arg a3[] = {P(0, lo), P(1, lx), V(2, ld)};
    run("divrem_long", 3, a3);
    for (int i = 0; i < N; i++) bad += lo[2 * i] != lx[i] / ld || lo[2 * i + 1] != lx[i] % ld;
    sx_arg a4[] = {P(0, a), P(1, x)};
    run("switch_counter", 2, a4);
    for (int i = 0; i < N; i++) { int acc = x[i]; acc *= 3; acc -= x[i] >> 1; acc ^= 5; bad += a[i] != acc; }
    sx_arg a5[] = {P(0, a), P(1, x), V(2, cnt)};
    run("switch_masked", 3, a5);
    for (int i = 0; i < N; i++) {
        int acc = 0;
        for (int k = 0; k < cnt; k++)
            switch (k & 7) { case 0: acc += x[i]; break; case 1: acc *= 3; break; case 5: acc -= x[i] >> 1; break; default: acc ^= k; break; }
        bad += a[i] != acc;
    }
    printf("%d wrong\n", bad);
    return bad != 0;
}
EOT
${CC:-cc} -O1 -I"$S/include" -I"$B/include" run.c -o run -L"$B/lib/.libs" -lsycl-ext -Wl,-rpath,"$B/lib/.libs" || fail "the runner"
icd=$B/intel-opencl/vendors
for O in 1 2 3; do
    "$CLANG" $F -O$O -Xclang -disable-llvm-passes "$src" -o in$O.bc &&
        "$B/proptool/sx-spir-opt" -O$O in$O.bc -o opt$O.bc || fail "-O$O: clang | sx-spir-opt"
    "$LLVM_SPIRV" opt$O.bc -o k$O.spv 2>spirv.err || { cat spirv.err; fail "-O$O: llvm-spirv does not translate the recipe's output"; }
    "$B/proptool/proptool" -q --native --wgc "$B/proptool/sx-wgc" -o k$O.sximg k$O.spv || fail "-O$O: proptool --native"
    SX_CACHE=0 SX_DEVICE_SELECTOR='native:*' ./run k$O.sximg >out.txt 2>&1 || { cat out.txt; fail "-O$O: results on native"; }
    echo "PASS: -O$O: translated; right on native"
    if [ -f "$icd/intel-cpu.icd" ]; then
        SX_CACHE=0 OCL_ICD_VENDORS=$icd SX_OPENCL_PLATFORM=Intel SX_ADAPTERS_PATH="$B/adapters/opencl/.libs" \
            SX_DEVICE_SELECTOR='opencl:*' ./run k$O.sximg >out.txt 2>&1 || { cat out.txt; fail "-O$O: results on Intel's CPU runtime"; }
        echo "PASS: -O$O: right on Intel's CPU OpenCL runtime"
    fi
done
rm -rf "$W"
