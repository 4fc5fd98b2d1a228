// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// groups-branch.cl: sub-group collectives in divergent control flow, the
// shapes DPC++ writes (dpnp's scans: a shuffle loop under `if (sub-group
// id == 0)` between work-group barriers; its sliding windows: a loop whose
// trip count differs between work-items), compiled by sx-wgc with regions
// run per work-item state (groups.cpp). groups.sh runs them on native and
// on Intel's CPU OpenCL runtime and compares. Every shuffle reads a
// work-item that reached the same call (cl_intel_subgroups leaves the
// others undefined). Arguments as groups.cl's.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_intel_subgroups : enable

#define OVL __attribute__((overloadable))
int OVL intel_sub_group_shuffle(int x, uint c);
float OVL intel_sub_group_shuffle(float x, uint c);
int OVL intel_sub_group_shuffle_xor(int x, uint c);
int OVL intel_sub_group_shuffle_down(int cur, int next, uint c);
uint4 OVL sub_group_ballot(int predicate);

#define LIN ((get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + get_local_id(0))
#define GLIN (get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2)))
#define WI (GLIN * get_local_size(0) * get_local_size(1) * get_local_size(2) + LIN)
#define ARGS global int *out, global const int *in, global float *fout, global const float *fin

#define KERNELS(S)                                                                                      \
__attribute__((intel_reqd_sub_group_size(S))) kernel void br_sgid_##S(ARGS)                             \
{                                                                                                       \
    /* collectives under branches on the sub-group id: uniform per */                                   \
    /* sub-group, divergent in the work-group */                                                        \
    size_t w = WI;                                                                                      \
    int x = in[w];                                                                                      \
    uint l = get_sub_group_local_id(), g = get_sub_group_id();                                          \
    int r0 = -1, r1 = -1, r2 = -1, r3 = -1;                                                             \
    if (g == 0) {                                                                                       \
        r0 = sub_group_reduce_add(x);                                                                   \
        r1 = sub_group_scan_exclusive_add(x);                                                           \
    } else if (g % 2) {                                                                                 \
        r0 = sub_group_reduce_max(x);                                                                   \
        r2 = sub_group_broadcast(x, 1);                                                                 \
        uint4 b = sub_group_ballot(x > 100);                                                            \
        r3 = (int)(b.x ^ (b.y * 3u));                                                                   \
    } else {                                                                                            \
        r2 = intel_sub_group_shuffle(x, (l + 1) % get_sub_group_size());                                \
        r3 = sub_group_any(x > 650);                                                                    \
    }                                                                                                   \
    out[w * 4 + 0] = r0;                                                                                \
    out[w * 4 + 1] = r1;                                                                                \
    out[w * 4 + 2] = r2;                                                                                \
    out[w * 4 + 3] = r3;                                                                                \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void br_scan_##S(ARGS, local int *tmp)            \
{                                                                                                       \
    /* DPC++'s work-group scan: a shuffle scan per sub-group, the */                                    \
    /* sub-group totals to local memory, one sub-group scans them, */                                   \
    /* every work-item adds its sub-group's offset */                                                   \
    size_t w = WI, lin = LIN;                                                                           \
    int x = in[w];                                                                                      \
    uint l = get_sub_group_local_id(), g = get_sub_group_id(), n = get_sub_group_size();               \
    for (uint s = 1; s < n; s *= 2) {                                                                   \
        int y = intel_sub_group_shuffle(x, l >= s ? l - s : l);                                         \
        if (l >= s)                                                                                     \
            x += y;                                                                                     \
    }                                                                                                   \
    if (l == n - 1)                                                                                     \
        tmp[g] = x;                                                                                     \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
    uint ng = get_num_sub_groups();                                                                     \
    if (g == 0) {                                                                                       \
        for (uint base = 0; base < ng; base += n) {                                                     \
            int t = base + l < ng ? tmp[base + l] : 0;                                                  \
            for (uint s = 1; s < n; s *= 2) {                                                           \
                int y = intel_sub_group_shuffle(t, l >= s ? l - s : l);                                 \
                if (l >= s)                                                                             \
                    t += y;                                                                             \
            }                                                                                           \
            int carry = base ? tmp[base - 1] : 0;                                                       \
            if (base + l < ng)                                                                          \
                tmp[base + l] = t + carry;                                                              \
            sub_group_barrier(CLK_LOCAL_MEM_FENCE);                                                     \
        }                                                                                               \
    }                                                                                                   \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                       \
    out[w] = x + (g ? tmp[g - 1] : 0) + (int)lin * 0;                                                   \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void br_trip_##S(ARGS)                             \
{                                                                                                       \
    /* a shuffle in a loop whose trip count differs between pairs of */                                 \
    /* work-items (both of a pair take the same number of turns) */                                     \
    size_t w = WI;                                                                                      \
    int x = in[w];                                                                                      \
    uint l = get_sub_group_local_id(), n = get_sub_group_size();                                        \
    int trips = (int)((l / 2) % 3) + (in[w - l] & 1);                                                   \
    if (n % 2 == 0 || l + 1 < n)                                                                        \
        for (int k = 0; k < trips; k++)                                                                 \
            x = intel_sub_group_shuffle_xor(x, 1) * 3 + k;                                              \
    out[w * 2 + 0] = x;                                                                                 \
    /* after the loop: every work-item of the sub-group again */                                        \
    out[w * 2 + 1] = sub_group_reduce_add(x);                                                           \
    float f = fin[w];                                                                                   \
    for (uint k = 0; k < (l & 1u) + 1u; k++)                                                            \
        f = f * 0.5f + intel_sub_group_shuffle(f, l & 1u ? (l | 1u) : l);                               \
    fout[w] = f;                                                                                        \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void br_window_##S(ARGS)                           \
{                                                                                                       \
    /* dpnp's sliding window: a loop with a per-work-item bound (read */                                \
    /* through memory), then shuffles over a register window */                                         \
    size_t w = WI;                                                                                      \
    uint l = get_sub_group_local_id(), n = get_sub_group_size();                                        \
    float win[3];                                                                                       \
    int bound = in[w] % 4;                                                                              \
    float acc = 0.0f;                                                                                   \
    for (int k = 0; k < bound; k++)                                                                     \
        acc += fin[(w + (size_t)k) % 400];                                                              \
    for (int k = 0; k < 3; k++)                                                                         \
        win[k] = fin[(w * 3 + (size_t)k) % 400];                                                        \
    for (int k = 0; k < 3; k++) {                                                                       \
        float d = intel_sub_group_shuffle(win[k], l + 1 < n ? l + 1 : l);                               \
        if (l + 1 < n)                                                                                  \
            win[k] = d;                                                                                 \
    }                                                                                                   \
    fout[w] = acc + win[0] + 2.0f * win[1] + 4.0f * win[2];                                             \
}                                                                                                       \
__attribute__((intel_reqd_sub_group_size(S))) kernel void br_elect_##S(ARGS)                            \
{                                                                                                       \
    /* the first work-item of a sub-group that reached a branch on the */                              \
    /* sub-group id (broadcast of its value to the whole sub-group) */                                  \
    size_t w = WI;                                                                                      \
    int x = in[w];                                                                                      \
    uint g = get_sub_group_id();                                                                        \
    int r = 0;                                                                                          \
    if (g % 3 != 1)                                                                                     \
        r = sub_group_broadcast(x, 0) + sub_group_reduce_min(x);                                        \
    out[w] = r;                                                                                         \
}

KERNELS(8)
KERNELS(16)
