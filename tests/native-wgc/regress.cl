// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// regress.cl: region formation's family of wrong results (issue 28).
// repro is the issue's reducer of SHOC's radix sort bottom_scan (PoCL and
// Intel's CPU runtime give 16 everywhere for one group of 16, n = 256);
// the others check themselves and write 1 where right, 0 where wrong.

// A private array zeroed by a loop (llvm.memset) inside a loop with a
// barrier: the memset's address, rematerialised at the region entry,
// lacked the per-work-item slots' base and overwrote the loop counter.
kernel void repro(global int *out, int n)
{
    int h[16];
    int i = get_local_id(0);
    for (int w = 0; w < n; w += get_local_size(0)) {
        for (int q = 0; q < 16; q++)
            h[q] = 0;
        h[i & 15]++;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] += h[i & 15];
        i += get_local_size(0);
    }
}

// A stable radix-sort pass by one work-group of 64 (the shape of SHOC's
// bottom_scan: a private histogram zeroed in a windowed loop with
// barriers, scans in local memory, a scatter); work-item 0 then checks
// that out is in[] stably partitioned by the digit and writes the number
// of wrong keys to bad[0].
#define LS 64
#define CH 4
kernel void radix_pass(global const int *in_, global int *out_, global int *bad, int n, int shift)
{
    global const uint *in = (global const uint *)in_;
    global uint *out = (global uint *)out_;
    local uint cnt[16][LS];
    local uint start[16];
    uint lid = get_local_id(0);
    uint hist[16];
    for (int q = 0; q < 16; q++)
        hist[q] = 0;
    for (int i = lid; i < n; i += LS)
        hist[(in[i] >> shift) & 15]++;
    for (int q = 0; q < 16; q++)
        cnt[q][lid] = hist[q];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        uint s = 0;
        for (int q = 0; q < 16; q++) {
            start[q] = s;
            for (int w = 0; w < LS; w++)
                s += cnt[q][w];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int win = 0; win < n; win += LS * CH) {
        for (int q = 0; q < 16; q++)
            hist[q] = 0;
        int first = win + lid * CH;
        for (int k = 0; k < CH && first + k < n; k++)
            hist[(in[first + k] >> shift) & 15]++;
        for (int q = 0; q < 16; q++)
            cnt[q][lid] = hist[q];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < 16) {
            uint s = start[lid];
            for (int w = 0; w < LS; w++) {
                uint c = cnt[lid][w];
                cnt[lid][w] = s;
                s += c;
            }
            start[lid] = s;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int q = 0; q < 16; q++)
            hist[q] = cnt[q][lid];
        for (int k = 0; k < CH && first + k < n; k++) {
            uint v = in[first + k];
            out[hist[(v >> shift) & 15]++] = v;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        uint pos[16], s = 0;
        for (int q = 0; q < 16; q++)
            hist[q] = 0;
        for (int i = 0; i < n; i++)
            hist[(in[i] >> shift) & 15]++;
        for (int q = 0; q < 16; q++) {
            pos[q] = s;
            s += hist[q];
        }
        int wrong = 0;
        for (int i = 0; i < n; i++)
            wrong += out[pos[(in[i] >> shift) & 15]++] != in[i];
        bad[0] = wrong;
    }
}

// A pointer into a private array made before a barrier and used after it.
kernel void derived_pointer(global int *ok, global const int *in)
{
    int a[8];
    int lid = get_local_id(0);
    for (int k = 0; k < 8; k++)
        a[k] = lid * 8 + k + in[k];
    int *p = &a[(lid + in[0]) & 7];
    barrier(CLK_LOCAL_MEM_FENCE);
    ok[get_global_id(0)] = *p == lid * 8 + ((lid + in[0]) & 7) + in[(lid + in[0]) & 7];
}

// Private arrays copied whole (llvm.memcpy) between barriers.
typedef struct { int v[12]; } blob;
kernel void private_copy(global int *ok, global const int *in)
{
    blob a, b;
    int lid = get_local_id(0);
    for (int k = 0; k < 12; k++)
        a.v[k] = lid * 100 + k * in[k & 3];
    barrier(CLK_LOCAL_MEM_FENCE);
    b = a;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = 0; k < 12; k++)
        a.v[k] = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    int k = (lid + in[1]) % 12;
    ok[get_global_id(0)] = b.v[k] == lid * 100 + k * in[k & 3];
}

// A private array whose address is stored in another private array.
kernel void escaped_address(global int *ok, global const int *in)
{
    int a[4], c[4];
    int *which[2];
    int lid = get_local_id(0);
    for (int k = 0; k < 4; k++) {
        a[k] = lid + k;
        c[k] = -lid - k;
    }
    which[0] = a;
    which[1] = c;
    int *p = which[(lid + in[2]) & 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    int want = (lid + in[2]) & 1 ? -lid - 3 : lid + 3;
    ok[get_global_id(0)] = p[3] == want;
}
