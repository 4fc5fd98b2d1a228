/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* shapes.cl: kernels of the shapes people write (prefix scan, bitonic sort,
 * tiled GEMM and transpose, local-atomic histogram, 2-D and 3-D stencils,
 * async work-group copies, vector loads and stores), run by ks-run on the
 * native device and on PoCL and checked against a host reference.
 *
 * Work-group scratch is declared with LOCAL_ARRAY: with KS_KERNEL_SCOPE it
 * is a kernel-scope __local array (as users write it; PoCL, and the native
 * device once its images come from SPIR-V with compiled work-groups),
 * otherwise a __local pointer argument of the same size (the native
 * device's host build, where clang rejects kernel-scope __local). */
#ifdef KS_KERNEL_SCOPE
#define LOCAL_PARAM(T, name)
#define LOCAL_ARRAY(T, name, n) __local T name[n]
#else
#define LOCAL_PARAM(T, name) , __local T *name
#define LOCAL_ARRAY(T, name, n)
#endif

#define WG 256
#define TILE 16

/* Inclusive prefix sum of each work-group's segment (Hillis-Steele: a
 * barrier in every round of the loop), and the segment totals. */
kernel void ks_scan(global const int *in, global int *out, global int *sums LOCAL_PARAM(int, buf))
{
    LOCAL_ARRAY(int, buf, 2 * WG);
    size_t l = get_local_id(0), n = get_local_size(0);
    int src = 0;
    buf[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t off = 1; off < n; off <<= 1) {
        int v = buf[src * n + l];
        if (l >= off)
            v += buf[src * n + l - off];
        buf[(1 - src) * n + l] = v;
        src = 1 - src;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = buf[src * n + l];
    if (l == n - 1)
        sums[get_group_id(0)] = buf[src * n + l];
}

/* Bitonic sort of each work-group's segment, ascending. */
kernel void ks_bitonic(global int *data LOCAL_PARAM(int, v))
{
    LOCAL_ARRAY(int, v, WG);
    size_t l = get_local_id(0), n = get_local_size(0);
    v[l] = data[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t k = 2; k <= n; k <<= 1)
        for (size_t j = k >> 1; j > 0; j >>= 1) {
            size_t p = l ^ j;
            if (p > l) {
                bool up = (l & k) == 0;
                int a = v[l], b = v[p];
                if ((a > b) == up) {
                    v[l] = b;
                    v[p] = a;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    data[get_global_id(0)] = v[l];
}

/* C = A * B, n x n, TILE x TILE local tiles of A and B. */
kernel void ks_gemm(global const float *a, global const float *b, global float *c, int n
                    LOCAL_PARAM(float, ta) LOCAL_PARAM(float, tb))
{
    LOCAL_ARRAY(float, ta, TILE * TILE);
    LOCAL_ARRAY(float, tb, TILE * TILE);
    int col = get_global_id(0), row = get_global_id(1);
    int lx = get_local_id(0), ly = get_local_id(1);
    float acc = 0;
    for (int t = 0; t < n; t += TILE) {
        ta[ly * TILE + lx] = a[row * n + t + lx];
        tb[ly * TILE + lx] = b[(t + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TILE; k++)
            acc = mad(ta[ly * TILE + k], tb[k * TILE + lx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    c[row * n + col] = acc;
}

/* out = transpose(in), w x h floats, through a padded local tile. */
kernel void ks_transpose(global const float *in, global float *out, int w, int h LOCAL_PARAM(float, tile))
{
    LOCAL_ARRAY(float, tile, TILE * (TILE + 1));
    int x = get_global_id(0), y = get_global_id(1);
    int lx = get_local_id(0), ly = get_local_id(1);
    tile[ly * (TILE + 1) + lx] = in[y * w + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    int ox = get_group_id(1) * TILE + lx, oy = get_group_id(0) * TILE + ly;
    out[oy * h + ox] = tile[lx * (TILE + 1) + ly];
}

/* 256-bin histogram: local atomics per group, then one global add per bin. */
kernel void ks_histogram(global const uchar *in, global uint *hist, int per_item LOCAL_PARAM(uint, bins))
{
    LOCAL_ARRAY(uint, bins, 256);
    size_t l = get_local_id(0), n = get_local_size(0);
    for (size_t i = l; i < 256; i += n)
        bins[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t base = get_global_id(0) * per_item;
    for (int i = 0; i < per_item; i++)
        atomic_inc(&bins[in[base + i]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t i = l; i < 256; i += n)
        if (bins[i])
            atomic_add(&hist[i], bins[i]);
}

/* 5-point 2-D stencil on a TILE x TILE tile with a one-cell halo. */
kernel void ks_stencil2d(global const float *in, global float *out, int w, int h LOCAL_PARAM(float, t))
{
    LOCAL_ARRAY(float, t, (TILE + 2) * (TILE + 2));
    int x = get_global_id(0), y = get_global_id(1);
    int lx = get_local_id(0) + 1, ly = get_local_id(1) + 1;
#define AT(xx, yy) in[clamp((yy), 0, h - 1) * w + clamp((xx), 0, w - 1)]
    t[ly * (TILE + 2) + lx] = AT(x, y);
    if (lx == 1)
        t[ly * (TILE + 2)] = AT(x - 1, y);
    if (lx == TILE)
        t[ly * (TILE + 2) + TILE + 1] = AT(x + 1, y);
    if (ly == 1)
        t[lx] = AT(x, y - 1);
    if (ly == TILE)
        t[(TILE + 1) * (TILE + 2) + lx] = AT(x, y + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    float c = t[ly * (TILE + 2) + lx];
    out[y * w + x] = 0.5f * c + 0.125f * (t[ly * (TILE + 2) + lx - 1] + t[ly * (TILE + 2) + lx + 1] +
                                          t[(ly - 1) * (TILE + 2) + lx] + t[(ly + 1) * (TILE + 2) + lx]);
#undef AT
}

/* 7-point 3-D stencil over a 3-D range (global memory, clamped edges). */
kernel void ks_stencil3d(global const float *in, global float *out)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int nx = get_global_size(0), ny = get_global_size(1), nz = get_global_size(2);
#define V(xx, yy, zz) in[(clamp(zz, 0, nz - 1) * ny + clamp(yy, 0, ny - 1)) * nx + clamp(xx, 0, nx - 1)]
    out[(z * ny + y) * nx + x] = 0.4f * V(x, y, z) + 0.1f * (V(x - 1, y, z) + V(x + 1, y, z) + V(x, y - 1, z) +
                                                           V(x, y + 1, z) + V(x, y, z - 1) + V(x, y, z + 1));
#undef V
}

/* Async copies: a group's segment global -> local, every item works on its
 * neighbour's element, then local -> global with a stride of 2. */
kernel void ks_async(global const float *in, global float *out LOCAL_PARAM(float, seg))
{
    LOCAL_ARRAY(float, seg, WG);
    size_t n = get_local_size(0), l = get_local_id(0), g = get_group_id(0);
#ifdef KS_POCL /* PoCL 3.1 crashes in wait_group_events: the same copies by hand */
    seg[l] = in[g * n + l];
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    event_t e = async_work_group_copy(seg, in + g * n, n, 0);
    wait_group_events(1, &e);
#endif
    float v = seg[(l + 1) % n] * 2.0f + (float)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    seg[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
#ifdef KS_POCL
    out[2 * (g * n + l)] = seg[l];
#else
    e = async_work_group_strided_copy(out + 2 * g * n, seg, n, 2, 0);
    wait_group_events(1, &e);
#endif
}

/* Vector loads and stores: float4 (vload4), float3 (vload3), half4. */
kernel void ks_vectors(global const float *in, global float *out3, global float *out4, global half *outh)
{
    size_t i = get_global_id(0);
    float4 a = vload4(i, in);
    float3 b = vload3(i, in + 1);
    vstore4(a * 2.0f + (float4)(1.0f, 2.0f, 3.0f, 4.0f), i, out4);
    vstore3(b.zxy - 1.0f, i, out3);
    vstore_half4_rte(a * 0.5f, i, outh);
}
