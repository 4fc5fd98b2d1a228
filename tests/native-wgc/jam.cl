/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* jam.cl: a tiled matrix product (16-wide local tiles, as in
 * bench/native-vs-pocl's matmul) whose inner product reads tb[k][lx], the
 * same on every row of the group: sx-wgc jams the y work-item loop around
 * the x loop (issue 28). The group's height is any (1 .. 16): the rows of
 * tb a work-item loads step by the height, so a height that the step does not
 * divide leaves rows to the remainder loop (8 rows a step). c (rows x n) = a (rows x n)
 * times b (n x n), n a multiple of 16; jam.sh compares with Intel's CPU
 * runtime. */
#define T 16

kernel void jam_mm(global const float *a, global const float *b, global float *c, int n)
{
    local float ta[T][T], tb[T][T];
    int lx = get_local_id(0), ly = get_local_id(1), lh = get_local_size(1);
    int gx = get_global_id(0), gy = get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n / T; t++) {
        ta[ly][lx] = a[gy * n + t * T + lx];
        for (int r = ly; r < T; r += lh)
            tb[r][lx] = b[(t * T + r) * n + gx];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < T; k++)
            acc += ta[ly][k] * tb[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[gy * n + gx] = acc;
}
