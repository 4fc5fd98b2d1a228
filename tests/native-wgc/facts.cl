// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// facts.cl: divisions by powers of two that are no constants (issue 28).
kernel void pow2_facts(global int *out, global const int *in, int n)
{
    local int t[64];
    int lid = get_local_id(0);
    int acc = 0;
    for (int s = 1; s < n; s *= 2) {  // s: a power of two, a loop phi kept across the barriers
        t[lid] = in[get_global_id(0)] + s;
        barrier(CLK_LOCAL_MEM_FENCE);
        int v = t[(lid + s) & 63];  // negative values too: signed / and %
        if (lid % (2 * s) == 0)
            acc += v / s + v % (2 * s);
        acc += (uint)v % (uint)s + (uint)v / (uint)(4 * s);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int p = 1 << (n & 7);  // uniform, made before a barrier, used after it
    t[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = t[lid ^ 1] % p + t[lid] / p + (int)((uint)t[lid] >> 3) / p;
}

// The edges: p = 1 << (n & 31) is 1, 2^30 or 2^31 (negative as a signed
// divisor) for n = 32, 30, 31; x spans INT_MIN, INT_MAX, -1, -2^30 and the
// input.
constant int edge[4] = {INT_MIN, INT_MAX, -1, -(1 << 30)};
kernel void pow2_edges(global int *out, global const int *in, int n)
{
    int i = get_global_id(0);
    int p = 1 << (n & 31);
    int x = in[i] * 7654321;
    if (i < 4)
        x = edge[i];
    int y = ~x;  // another dividend for %: clang pairs x / p and x % p with a freeze llvm-spirv-14 cannot write
    out[4 * i] = x / p;
    out[4 * i + 1] = y % p;
    out[4 * i + 2] = (int)((uint)x / (uint)p);
    out[4 * i + 3] = (int)((uint)y % (uint)p);
}
