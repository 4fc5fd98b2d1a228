/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* producer-shapes.cl: code shapes of public OpenCL programs that the plain
 * clang-14 -O1 + llvm-spirv-14 recipe cannot translate (issue 30):
 * x / d and x % d by one non-constant divisor (DivRemPairs writes freeze:
 * Rodinia's, Parboil's and SHOC's 2-D index from a 1-D id), and a switch
 * on a small loop counter (InstCombine narrows it to i31 or i3).
 * tests/proptool/producer.sh builds them with the producer recipe and
 * compares every kernel with the same code run on the host. */
kernel void divrem_int(global int *q, global int *r, global const int *restrict x, int d)
{
    size_t i = get_global_id(0);
    int v = x[i];
    q[i] = v / d;
    r[i] = v % d;
}

kernel void index2d(global uint *o, uint w, uint n)
{
    uint i = get_global_id(0);
    if (i < n) {
        uint row = i / w, col = i % w;
        o[i] = row * 1000u + col;
    }
}

kernel void divrem_long(global long *o, global const long *restrict x, long d)
{
    size_t i = get_global_id(0);
    long v = x[i];
    o[2 * i] = v / d;
    o[2 * i + 1] = v % d;
}

kernel void switch_counter(global int *o, global const int *restrict x)
{
    size_t i = get_global_id(0);
    int acc = 0;
    for (int k = 0; k < 4; k++) {
        switch (k) {
        case 0: acc += x[i]; break;
        case 1: acc *= 3; break;
        case 2: acc -= x[i] >> 1; break;
        default: acc ^= 5; break;
        }
    }
    o[i] = acc;
}

kernel void switch_masked(global int *o, global const int *restrict x, int n)
{
    size_t i = get_global_id(0);
    int acc = 0;
    for (int k = 0; k < n; k++) {
        switch (k & 7) {
        case 0: acc += x[i]; break;
        case 1: acc *= 3; break;
        case 5: acc -= x[i] >> 1; break;
        default: acc ^= k; break;
        }
    }
    o[i] = acc;
}
