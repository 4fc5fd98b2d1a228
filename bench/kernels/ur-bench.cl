/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ur-bench.cl: what bench/ur-vs-sx runs through our library, through
 * Unified Runtime and through OpenCL itself: an empty kernel, and a
 * device_image_scope device global (a plain program variable, reached by
 * clEnqueueWrite/ReadGlobalVariableINTEL on all three sides). */
__attribute__((annotate("sycl-unique-id=ur_bench_value;sycl-device-global-size=4;device_image_scope")))
global int ur_bench_value;

kernel void ur_bench_empty(void) {}

/* ur_bench_value += by: the launches are checked by what it reads back */
kernel void ur_bench_add(int by) { ur_bench_value += by; }
