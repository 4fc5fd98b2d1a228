/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* device-header.cl: every macro of sycl-ext/device.h, for
 * tests/proptool/device-header.sh (proptool --dump shows what each wrote). */
#include <sycl-ext/device.h>

SX_DEVICE_GLOBAL_DEFINE(int, dh_rw, dh_rw_id, read_write);
SX_DEVICE_GLOBAL_DEFINE(long, dh_ro, dh_ro_id, read);
SX_DEVICE_GLOBAL_DEFINE(float, dh_wo, dh_wo_id, write);
SX_DEVICE_GLOBAL_DEFINE(short, dh_none, dh_none_id, none);
SX_DEVICE_GLOBAL_IMAGE_SCOPE_DEFINE(int4, dh_img, dh_img_id, read_write);
struct dh_pair { int a; double b; };
SX_DEVICE_GLOBAL_IMAGE_SCOPE_DEFINE(struct dh_pair, dh_pair, dh_pair_id, read, = {1, 2.0});

SX_CALL_IF_ON_HOST void dh_host_only(global int *r) { r[0] = 4242; }
SX_CALL_IF_ON_DEVICE void dh_device_only(global int *r) { r[1] = 7; }

SX_INDIRECTLY_CALLABLE(dh_set) __attribute__((noinline)) int dh_vf(int x) { return x + 1; }
SX_INDIRECTLY_CALLABLE_DEFAULT __attribute__((noinline)) int dh_vf0(int x) { return x + 2; }

SX_ND_RANGE_KERNEL(2, dh_nd2, SX_P_WORK_GROUP_SIZE(4, 8) SX_P_USES_ASPECTS(fp64))
(global double *o, local float *scratch)
{
    size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
    scratch[get_local_id(0)] = (float)i;
    o[i] = scratch[get_local_id(0)] + *dh_rw + *dh_ro + *dh_wo + *dh_none + dh_img.x + dh_pair.b;
}

SX_ND_RANGE_KERNEL(3, dh_nd3)(global int *o) { o[get_global_id(2)] = 3; }

SX_SINGLE_TASK_KERNEL(dh_task)(global int *r)
{
    dh_host_only(r);
    dh_device_only(r);
}

SX_SINGLE_TASK_KERNEL(dh_calls, SX_P_CALLS_INDIRECTLY(dh_set))(global int *r) { r[0] = dh_vf(r[0]); }
SX_KERNEL(SX_P_CALLS_INDIRECTLY_DEFAULT) void dh_plain(global int *r) { r[0] = dh_vf0(r[0]); }

/* Work-group scratch memory: the last parameter, and one named by index. */
SX_ND_RANGE_KERNEL(1, dh_scratch, SX_P_WORK_GROUP_SCRATCH)(global int *o, int bias, local int *scratch)
{
    scratch[get_local_id(0)] = bias;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = scratch[0];
}
SX_ND_RANGE_KERNEL(1, dh_scratch_at, SX_P_WORK_GROUP_SCRATCH_ARG(1))(global int *o, local int *scratch, int bias)
{
    scratch[get_local_id(0)] = bias;
    barrier(CLK_LOCAL_MEM_FENCE);
    o[get_global_id(0)] = scratch[0];
}
