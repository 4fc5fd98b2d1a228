/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* kernels.cl: proptool's main test source: free-function kernels (nd_range,
 * single_task), a struct by value, local memory, vectors, device globals,
 * if_device functions, exported and imported symbols, aspects. Built both
 * as SPIR-V and for the host (native adapter). */
/* The host build defines `kernel` away, where this attribute is an error. */
#if defined(__SPIR__) || defined(__SPIR64__)
#define REQD_WG(x, y, z) __attribute__((reqd_work_group_size(x, y, z)))
#else
#define REQD_WG(x, y, z)
#endif

struct pair {
    int a;
    float b;
    char c;
    double d;
};

/* A device_image_scope device global: the variable is the storage. */
__attribute__((annotate("sycl-unique-id=dg_scope;sycl-device-global-size=4;device_image_scope;host_access=read")))
global int counter = 5;

/* The USM form: the variable holds the pointer; T is 16 bytes. */
__attribute__((annotate("sycl-unique-id=dg_usm;sycl-device-global-size=16")))
global int *global dg_usm_ptr;

__attribute__((annotate("sycl-call-if-on-host"))) __attribute__((noinline))
void only_on_host(global int *p)
{
    p[0] = 1000;
}

__attribute__((annotate("sycl-call-if-on-device"))) __attribute__((noinline))
void only_on_device(global int *p)
{
    p[1] = 2000;
}

int triple(int x)
{
    return 3 * x;
}

__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_scale(global float *out, struct pair s, local float *tmp, int n)
{
    size_t i = get_global_id(0), l = get_local_id(0);
    tmp[l] = (float)i;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tmp[l] * s.b + (float)s.a + (float)s.c + (float)s.d + (float)n;
}

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_once(global int *out)
{
    only_on_host(out);
    only_on_device(out);
    out[2] = triple(7) + counter;
}

__attribute__((annotate("sycl-nd-range-kernel=2")))
kernel void __sycl_kernel_grid(global double *out, float4 v, ulong w, uchar c, short h)
{
    out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = v.x + v.w + (double)w + c + h;
}

REQD_WG(8, 1, 1)
kernel void plain_atomic(global long *p, constant int *q)
{
    atom_inc(p);
    p[1] = q[0];
}
