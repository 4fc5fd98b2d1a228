/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-barrier.cl: work-group barrier with local memory (the image
 * imports barrier, so the native adapter runs one fiber per work-item). */
kernel void reduce(global const int *in, global int *out, local int *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        out[get_group_id(0)] = tmp[0];
}

/* Reverse each group's slice in place: wrong without a barrier between the
 * reads and the writes. Two local buffers in one launch. */
kernel void reverse(global int *data, local int *tmp, local int *tmp2)
{
    size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);
    tmp[l] = data[g];
    tmp2[l] = (int)l;
    work_group_barrier(CLK_LOCAL_MEM_FENCE);
    data[g] = tmp[n - 1 - l] + tmp2[l] - (int)l;
}

/* 2-D groups: a column sum through local memory. */
kernel void colsum(global const int *in, global int *out, local int *tmp)
{
    size_t lx = get_local_id(0), ly = get_local_id(1);
    size_t w = get_local_size(0), h = get_local_size(1);
    tmp[ly * w + lx] = in[get_global_id(1) * get_global_size(0) + get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (ly == 0) {
        int s = 0;
        for (size_t y = 0; y < h; y++)
            s += tmp[y * w + lx];
        out[get_group_id(1) * get_global_size(0) + get_global_id(0)] = s;
    }
}
