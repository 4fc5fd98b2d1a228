/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* scratch.cl: the work-group scratch argument convention (issue 29, point 3):
 * get_work_group_scratch_memory() lowered as DPC++ does, to a local pointer
 * parameter the kernel's `sycl-work-group-scratch` key names (no value: the
 * last). -DNO_KEY leaves the key out, for the .prop cases. */
#ifdef NO_KEY
#define SCRATCH_KEYS "sycl-nd-range-kernel=1"
#else
#define SCRATCH_KEYS "sycl-nd-range-kernel=1;sycl-work-group-scratch"
#endif

/* Each group sums its work-items' global ids + 1 through the scratch memory. */
__attribute__((annotate(SCRATCH_KEYS)))
kernel void __sycl_kernel_scratch_sum(global int *out, int bias, local int *scratch)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    scratch[l] = (int)get_global_id(0) + 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = bias;
        for (size_t i = 0; i < n; i++)
            s += scratch[i];
        out[get_group_id(0)] = s;
    }
}

/* No scratch memory: a scratch size given to it is ignored (DPC++). */
__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_no_scratch(global int *out)
{
    out[get_global_id(0)] = 7;
}
