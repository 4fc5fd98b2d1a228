// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// groups-alike.cl: DPC++'s contiguous element-wise kernel (dpctl's tensor
// library, as in dpnp 0.20.0's SPIR-V: unary_contig_kernel) in OpenCL C.
// Each work-item handles NV * V elements; a sub-group whose whole slice
// lies in range takes them as DPC++'s sub-group loads and stores do on the
// CPU (between sub-group barriers), any other sub-group element by element. The branch
// is on the sub-group id: divergent to LLVM's analysis, taken alike by
// every sub-group of a group but at the array's end. sx-wgc compiles a
// copy for the groups that take it alike (groups.cpp: uniformCopy) beside
// the per-work-item-state regions for the others; groups-alike.sh runs
// both against Intel's CPU OpenCL runtime and the specification.
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_intel_subgroups : enable

#define V 4
#define NV 2

// out[i] = 2 * in[i] for i < n; sums[k]: the sum of sub-group k's outputs
#define KERNELS(S)                                                                                      \
__attribute__((intel_reqd_sub_group_size(S))) kernel void alike_##S(global const float *in,             \
                                                                     global float *out,                 \
                                                                     global float *sums, int n)         \
{                                                                                                       \
    uint sgmax = get_max_sub_group_size();                                                              \
    size_t base = NV * V * (get_group_id(0) * get_local_size(0) + get_sub_group_id() * sgmax);           \
    uint l = get_sub_group_local_id();                                                                  \
    size_t k = get_group_id(0) * get_num_sub_groups() + get_sub_group_id();                             \
    float acc = 0.0f;                                                                                   \
    if (base + NV * V * sgmax < (size_t)n) {                                                            \
        for (uint it = 0; it < NV * V; it += V) {                                                       \
            /* DPC++'s sub-group load and store on the CPU: element j of */                             \
            /* work-item l at l + j * (the sub-group size) */                                           \
            size_t at = base + it * get_sub_group_size();                                               \
            float x[V], y[V];                                                                           \
            sub_group_barrier(CLK_GLOBAL_MEM_FENCE);                                                    \
            for (uint j = 0; j < V; j++)                                                                \
                x[j] = in[at + l + j * get_sub_group_size()];                                           \
            sub_group_barrier(CLK_GLOBAL_MEM_FENCE);                                                    \
            for (uint j = 0; j < V; j++) {                                                              \
                y[j] = 2.0f * x[j];                                                                     \
                acc += y[j];                                                                            \
            }                                                                                           \
            sub_group_barrier(CLK_GLOBAL_MEM_FENCE);                                                    \
            for (uint j = 0; j < V; j++)                                                                \
                out[at + l + j * get_sub_group_size()] = y[j];                                          \
            sub_group_barrier(CLK_GLOBAL_MEM_FENCE);                                                    \
        }                                                                                               \
    } else {                                                                                            \
        for (size_t i = base + l; i < (size_t)n; i += sgmax) {                                          \
            out[i] = 2.0f * in[i];                                                                      \
            acc += out[i];                                                                              \
        }                                                                                               \
    }                                                                                                   \
    float t = sub_group_reduce_add(acc);                                                                \
    if (l == 0)                                                                                         \
        sums[k] = t;                                                                                    \
}

KERNELS(8)
KERNELS(16)
