/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* rowshare.cl: loads whose address is the same on every row of a 2-D
 * group but not consecutive in x (a gather), inside a loop every
 * work-item runs alike: sx-wgc loads them once per region into scratch
 * and every row reads that (issue 28, PolyBench's syr2k; wgc.cl has syrk,
 * checked against a host reference by wgc-e2e). n is
 * the matrices' order; the group may be any shape, rows of 1 to 13 and
 * widths that 16 does not divide. rowshare.sh compares with Intel's CPU
 * runtime. */

/* syr2k: two gathers, a[j][k] and b[j][k] */
kernel void rs_syr2k(global const float *a, global const float *b, global float *c, int n)
{
    int j = get_global_id(0), i = get_global_id(1);
    if (i < n && j < n) {
        float s = c[i * n + j] * 0.25f;
        for (int k = 0; k < n; k++)
            s += a[i * n + k] * b[j * n + k] + b[i * n + k] * a[j * n + k];
        c[i * n + j] = s;
    }
}

/* a gather from local memory, the group's tile transposed (t[lx][k], the
 * tile's width w at most 16), and an int gather with a stride of 3; a
 * holds 16 w floats, m 3 times the global width plus 16 ints */
kernel void rs_local(global const float *a, global const int *m, global float *c)
{
    local float t[16][17];
    int h = get_local_size(1), w = get_local_size(0);
    for (int r = get_local_id(1); r < 16; r += h)
        t[get_local_id(0)][r] = a[r * w + get_local_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    int lx = get_local_id(0), gx = get_global_id(0), gy = get_global_id(1);
    float acc = 0.0f;
    int s = 0;
    for (int k = 0; k < 16; k++) {
        acc += t[lx][k] * (float)(gy + k);
        s += m[3 * gx + k];
    }
    c[gy * get_global_size(0) + gx] = acc + (float)s;
}

/* a gather after the work-item's own store, which may write what it reads
 * (c and d may be one buffer): not shared */
kernel void rs_after_store(global float *c, global const float *d, int n)
{
    int j = get_global_id(0), i = get_global_id(1);
    if (i < n && j < n)
        for (int k = 0; k < n; k++) {
            c[i * n + j] += 1.0f;
            c[i * n + j] += d[j * n + k];
        }
}
