/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* kernels.cl: the app's OpenCL C kernels, written with sycl-ext/device.h:
 * a 2-D nd_range free-function kernel taking a buffer, a struct by value
 * and work-group local memory (a work_group_memory parameter is a local
 * pointer), two device globals, and an if_device function. */
#include "app.h"

/* if_device: this body runs only on the host; in device images proptool
 * empties it (it returns at once). */
SX_CALL_IF_ON_HOST void host_only(global int *r)
{
    r[0] = 4242;
}

/* out[y][x] = (in[y][x] + in[y][x-1 in the group]) * scale + bias + offset */
SX_ND_RANGE_KERNEL(2, blur2d)(global const float *in, global float *out, struct params p, local float *row)
{
    size_t x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
    size_t lx = get_local_id(0);
    row[lx] = in[y * w + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    float left = lx ? row[lx - 1] : 0.0f;
    out[y * w + x] = (row[lx] + left) * scale + p.bias + (float)p.offset;
    if (x == 0 && y == 0)
        *launches += 1;
}

/* r[0] = 1 on a device; host_only would make it 4242 (it must not run here). */
SX_SINGLE_TASK_KERNEL(where_am_i)(global int *r)
{
    r[0] = 1;
    host_only(r);
    r[1] = 2;
}
