// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// groups-divergent.cl: collectives sx-wgc does not compile (groups.sh
// checks that --dump names each one and why). Collectives under divergent
// branches are compiled now (groups-branch.cl).
#pragma OPENCL EXTENSION cl_khr_subgroups : enable

// a clustered reduction (cl_khr_subgroup_clustered_reduce)
int __attribute__((overloadable)) sub_group_clustered_reduce_add(int x, uint clustersize);
kernel void clustered(global int *out, global const int *in)
{
    size_t w = get_global_id(0);
    out[w] = sub_group_clustered_reduce_add(in[w], 4);
}
