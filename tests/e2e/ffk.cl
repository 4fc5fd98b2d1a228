/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ffk.cl: free-function kernels for the end-to-end suite (native adapter:
 * built for the host and as SPIR-V, bundled by proptool), written with
 * sycl-ext/device.h where the name is a C one. */
#include <sycl-ext/device.h>
struct params {
    int i;
    float f;
    char c;
    double d;
};

SX_ND_RANGE_KERNEL(1, axpy)(global float *y, global const float *x, float a, long n)
{
    size_t i = get_global_id(0);
    if ((long)i < n)
        y[i] = a * x[i] + y[i];
}

SX_ND_RANGE_KERNEL(2, ids2)(global int *out)
{
    size_t w = get_global_size(0);
    out[get_global_id(1) * w + get_global_id(0)] = (int)(get_group_id(0) * 1000 + get_local_id(1) * 100 + get_global_id(0));
}

SX_ND_RANGE_KERNEL(3, ids3)(global int *out)
{
    size_t w = get_global_size(0), h = get_global_size(1);
    size_t lin = (get_global_id(2) * h + get_global_id(1)) * w + get_global_id(0);
    out[lin] = (int)(get_global_id(2) * 10000 + get_global_id(1) * 100 + get_global_id(0));
}

/* work_group_memory: a local buffer; the sum of each group in out[group]. */
SX_ND_RANGE_KERNEL(1, group_sum)(global const int *in, global int *out, local int *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = n / 2; s > 0; s /= 2) {
        if (l < s)
            tmp[l] += tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        out[get_group_id(0)] = tmp[0];
}

SX_SINGLE_TASK_KERNEL(mix)(global double *out, struct params p, long l, uchar c, short s)
{
    out[0] = p.i + p.f + p.c + p.d;
    out[1] = (double)l;
    out[2] = c;
    out[3] = s;
}

/* Two overloads, as a C++ compiler names them: twice(int *) and twice(float *). */
__attribute__((annotate("sycl-single-task-kernel")))
kernel void _Z19__sycl_kernel_twicePi(global int *p)
{
    p[0] *= 2;
}

__attribute__((annotate("sycl-single-task-kernel")))
kernel void _Z19__sycl_kernel_twicePf(global float *p)
{
    p[0] *= 2.0f;
}

/* For the launch benchmark: does nothing with one argument. */
SX_ND_RANGE_KERNEL(1, empty)(int x)
{
}
