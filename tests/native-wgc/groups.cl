// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// groups.cl: every sub-group and work-group builtin sx-wgc compiles
// (groups.cpp), for groups.sh to run on native and on Intel's CPU OpenCL
// runtime and compare. Each kernel is made for sub-group sizes 8 and 16
// (intel_reqd_sub_group_size, which Intel's runtime honours), and run
// with local sizes the sub-group size does not divide. Arguments of
// every kernel: int out[], const int in[], float fout[], const float fin[].
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_intel_subgroups : enable

// clang-14 declares cl_intel_subgroups only for targets that have it.
#define OVL __attribute__((overloadable))
int OVL intel_sub_group_shuffle(int x, uint c);
float OVL intel_sub_group_shuffle(float x, uint c);
int OVL intel_sub_group_shuffle_xor(int x, uint c);
int OVL intel_sub_group_shuffle_down(int cur, int next, uint c);
int OVL intel_sub_group_shuffle_up(int prev, int cur, uint c);
uint OVL intel_sub_group_block_read(const global uint *p);
uint2 OVL intel_sub_group_block_read2(const global uint *p);
void OVL intel_sub_group_block_write(global uint *p, uint data);
uint4 OVL sub_group_ballot(int predicate);

#define LIN ((get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + get_local_id(0))
#define GLIN (get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2)))
#define WI (GLIN * get_local_size(0) * get_local_size(1) * get_local_size(2) + LIN)
#define ARGS global int *out, global const int *in, global float *fout, global const float *fin

#define KERNELS(S)                                                                                      \
__attribute__((intel_reqd_sub_group_size(S))) kernel void sg_queries_##S(ARGS)                          \
{                                                                                                       \
    size_t w = WI;                                                                                      \
    out[w * 6 + 0] = get_sub_group_size();                                                              \
    out[w * 6 + 1] = get_max_sub_group_size();                                                          \
    out[w * 6 + 2] = get_num_sub_groups();                                                              \
    out[w * 6 + 3] = get_sub_group_id();                                                                \
    out[w * 6 + 4] = get_sub_group_local_id();                                                          \
    out[w * 6 + 5] = get_enqueued_num_sub_groups();                                                     \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void sg_reduce_##S(ARGS)                           \
{                                                                                                       \
    size_t w = WI;                                                                                      \
    int x = in[w];                                                                                      \
    out[w * 8 + 0] = sub_group_reduce_add(x);                                                           \
    out[w * 8 + 1] = sub_group_reduce_min(x);                                                           \
    out[w * 8 + 2] = sub_group_reduce_max(x);                                                           \
    out[w * 8 + 3] = (int)sub_group_reduce_max((uint)x);                                                \
    out[w * 8 + 4] = sub_group_scan_inclusive_add(x);                                                   \
    out[w * 8 + 5] = sub_group_scan_exclusive_add(x);                                                   \
    out[w * 8 + 6] = sub_group_scan_inclusive_min(x);                                                   \
    out[w * 8 + 7] = sub_group_scan_exclusive_max(x);                                                   \
    fout[w * 3 + 0] = sub_group_reduce_add(fin[w]);                                                     \
    fout[w * 3 + 1] = sub_group_scan_inclusive_max(fin[w]);                                             \
    fout[w * 3 + 2] = sub_group_scan_exclusive_add(fin[w]);                                             \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void sg_long_##S(ARGS)                             \
{                                                                                                       \
    size_t w = WI;                                                                                      \
    long x = (long)in[w] << 20;                                                                         \
    out[w * 2 + 0] = (int)(sub_group_reduce_add(x) >> 20);                                              \
    out[w * 2 + 1] = (int)(sub_group_scan_inclusive_min((ulong)x) >> 20);                               \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void sg_shuffle_##S(ARGS)                          \
{                                                                                                       \
    size_t w = WI;                                                                                      \
    int x = in[w];                                                                                      \
    uint l = get_sub_group_local_id(), n = get_sub_group_size();                                        \
    out[w * 7 + 0] = sub_group_broadcast(x, 1);                                                         \
    out[w * 7 + 1] = intel_sub_group_shuffle(x, (l * 3 + 1) % n);                                       \
    out[w * 7 + 2] = intel_sub_group_shuffle_xor(x, 1) * (n % 2 == 0 || l + 1 < n);                     \
    out[w * 7 + 3] = intel_sub_group_shuffle_down(x, x + 1000, 1) * (n == S);                           \
    out[w * 7 + 4] = intel_sub_group_shuffle_up(x - 1000, x, 2) * (n == S);                             \
    out[w * 7 + 5] = sub_group_any(x > 600);                                                            \
    out[w * 7 + 6] = sub_group_all(x > -250);                                                           \
    fout[w] = intel_sub_group_shuffle(fin[w], n - 1 - l);                                               \
    uint4 b = sub_group_ballot(x > 100);                                                                \
    out[1000 + w] = (int)(b.x ^ (b.y * 3u) ^ (b.z * 5u) ^ (b.w * 7u));                                  \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void sg_block_##S(ARGS)                            \
{                                                                                                       \
    size_t w = WI;                                                                                      \
    size_t base = w - get_sub_group_local_id();                                                         \
    uint a = intel_sub_group_block_read((const global uint *)in + base);                                \
    uint2 b = intel_sub_group_block_read2((const global uint *)in + 2 * base);                          \
    out[w * 3 + 0] = (int)a;                                                                            \
    out[w * 3 + 1] = (int)b.x;                                                                          \
    out[w * 3 + 2] = (int)b.y;                                                                          \
    intel_sub_group_block_write((global uint *)fout + base, a + 1u);                                    \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void wg_collectives_##S(ARGS)                      \
{                                                                                                       \
    size_t w = WI;                                                                                      \
    int x = in[w];                                                                                      \
    out[w * 10 + 0] = work_group_reduce_add(x);                                                         \
    out[w * 10 + 1] = work_group_reduce_min(x);                                                         \
    out[w * 10 + 2] = work_group_reduce_max(x);                                                         \
    out[w * 10 + 3] = work_group_scan_inclusive_add(x);                                                 \
    out[w * 10 + 4] = work_group_scan_exclusive_add(x);                                                 \
    out[w * 10 + 5] = work_group_scan_inclusive_max(x);                                                 \
    out[w * 10 + 6] = work_group_scan_exclusive_min((uint)x);                                           \
    out[w * 10 + 7] = get_work_dim() == 1 ? work_group_broadcast(x, 3)                                  \
                    : get_work_dim() == 2 ? work_group_broadcast(x, 1, 1)                               \
                                          : work_group_broadcast(x, 2, 1, 1);                           \
    out[w * 10 + 8] = work_group_any(x > 690);                                                          \
    out[w * 10 + 9] = work_group_all(x > -299);                                                         \
    fout[w * 2 + 0] = work_group_reduce_add(fin[w]);                                                    \
    fout[w * 2 + 1] = work_group_scan_inclusive_add(fin[w]);                                            \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void sg_full_##S(ARGS)                            \
{                                                                                                       \
    /* a scan over log2 of the sub-group size (DPC++'s shape): compiled */                              \
    /* for full sub-groups, so local sizes in x must be multiples of S */                               \
    size_t w = WI;                                                                                      \
    int x = in[w];                                                                                      \
    uint l = get_sub_group_local_id();                                                                  \
    for (uint s = 1; s < get_sub_group_size(); s *= 2) {                                                \
        int y = intel_sub_group_shuffle(x, l >= s ? l - s : l);                                         \
        if (l >= s)                                                                                     \
            x += y;                                                                                     \
    }                                                                                                   \
    out[w] = x;                                                                                         \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void loops_##S(ARGS)                               \
{                                                                                                       \
    /* collectives in a uniform loop and under a uniform branch, a */                                   \
    /* sub-group barrier, values kept across them */                                                    \
    size_t w = WI;                                                                                      \
    int acc = 0, x = in[w];                                                                             \
    for (int k = 0; k < 3 + (int)get_group_id(0); k++) {                                                \
        acc += sub_group_scan_inclusive_add(x + k);                                                     \
        sub_group_barrier(CLK_LOCAL_MEM_FENCE);                                                         \
        if (get_group_id(0) % 2)                                                                        \
            acc ^= work_group_reduce_max(acc);                                                          \
        x = intel_sub_group_shuffle(x, (get_sub_group_local_id() + 1) % get_sub_group_size());          \
    }                                                                                                   \
    out[w] = acc;                                                                                       \
}

KERNELS(8)
KERNELS(16)
