// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// groups-fiber.cl: sub-group and work-group functions in kernels that fall
// back to fibers for another reason (here a private array of a size known
// at run time, with a barrier): they run with sx-native-builtins.so's fiber
// versions (adapters/native/groups.c, groups.cl). groups.sh compares them
// with the same kernel compiled by sx-wgc (Intel's runtime runs a kernel
// with a variable-length array with sub-groups of 1). Arguments as
// groups.cl's; the default sub-group size (16) on both paths.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_intel_subgroups : enable

#define OVL __attribute__((overloadable))
int OVL intel_sub_group_shuffle(int x, uint c);
float OVL intel_sub_group_shuffle(float x, uint c);
int OVL intel_sub_group_shuffle_xor(int x, uint c);
int OVL intel_sub_group_shuffle_down(int cur, int next, uint c);
int OVL intel_sub_group_shuffle_up(int prev, int cur, uint c);

#define LIN ((get_local_id(2) * get_local_size(1) + get_local_id(1)) * get_local_size(0) + get_local_id(0))
#define GLIN (get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2)))
#define WI (GLIN * get_local_size(0) * get_local_size(1) * get_local_size(2) + LIN)


#define BODY                                                                                    \
    uint l = get_sub_group_local_id(), n = get_sub_group_size();                                \
    out[w * 16 + 0] = get_sub_group_size();                                                     \
    out[w * 16 + 1] = get_sub_group_id();                                                       \
    out[w * 16 + 2] = l;                                                                        \
    out[w * 16 + 3] = get_num_sub_groups();                                                     \
    out[w * 16 + 4] = sub_group_reduce_add(x);                                                  \
    out[w * 16 + 5] = sub_group_scan_inclusive_max(x);                                          \
    out[w * 16 + 6] = sub_group_scan_exclusive_add(x);                                          \
    out[w * 16 + 7] = sub_group_broadcast(x, 1);                                                \
    out[w * 16 + 8] = intel_sub_group_shuffle(x, (l * 3 + 1) % n);                              \
    out[w * 16 + 9] = intel_sub_group_shuffle_xor(x, 1) * (n % 2 == 0 || l + 1 < n);            \
    out[w * 16 + 10] = sub_group_any(x > 600);                                                  \
    out[w * 16 + 11] = work_group_reduce_add(x);                                                \
    out[w * 16 + 12] = work_group_scan_inclusive_add(x);                                        \
    out[w * 16 + 13] = work_group_scan_exclusive_min(x);                                        \
    out[w * 16 + 14] = get_work_dim() == 1 ? work_group_broadcast(x, 3)                         \
                     : get_work_dim() == 2 ? work_group_broadcast(x, 1, 1)                      \
                                           : work_group_broadcast(x, 2, 1, 1);                  \
    out[w * 16 + 15] = work_group_all(x > -299);                                                \
    fout[w] = sub_group_reduce_max(fin[w]) + intel_sub_group_shuffle(fin[w], n - 1 - l);

// on fibers: a private array of a size known at run time, and a barrier
kernel void fb_groups(global int *out, global const int *in, global float *fout, global const float *fin)
{
    size_t w = WI;
    int k = (in[w] & 3) + 1;
    volatile int *v = __builtin_alloca(sizeof(int) * (size_t)k);
    v[k - 1] = in[w];
    barrier(CLK_LOCAL_MEM_FENCE);
    int x = v[k - 1];
    BODY
}

// the same compiled (groups.cl's collectives checked against Intel's runtime)
kernel void fb_groups_c(global int *out, global const int *in, global float *fout, global const float *fin)
{
    size_t w = WI;
    barrier(CLK_LOCAL_MEM_FENCE);
    int x = in[w];
    BODY
}
