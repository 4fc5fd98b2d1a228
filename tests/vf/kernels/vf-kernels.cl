/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-kernels.cl: the kernel image: "construct" makes the object, "use"
 * calls foo, "use_fp64" calls bar; the set images define foo and bar. */
#include "vf-base.h"

void Base::key() {}

global Base obj;
global int result;

#ifdef VF_STATIC
VF_KERNEL void construct() { obj.tag = 1; }
VF_KERNEL void use(int x) { result = Base::foo(x); }
VF_KERNEL void use_fp64(int x) { result = Base::bar(x); }
#else
inline void *operator new(__SIZE_TYPE__, void *p) noexcept { return p; }
VF_KERNEL void construct() { new (&obj) Base; }
VF_KERNEL void use(int x) { result = obj.foo(x); }
VF_KERNEL void use_fp64(int x) { result = obj.bar(x); }
#endif

/* How the OpenCL adapter reads "result" where the driver has no
 * cl_intel_global_variable_access (Oclgrind). */
VF_KERNEL void __sx_dg_size_result(global ulong *out) { out[0] = sizeof(result); }
VF_KERNEL void __sx_dg_read_result(global uchar *dst, ulong offset, ulong count)
{
    for (ulong i = 0; i < count; i++)
        dst[i] = ((const global uchar *)&result)[offset + i];
}
VF_KERNEL void __sx_dg_write_result(global const uchar *src, ulong offset, ulong count)
{
    for (ulong i = 0; i < count; i++)
        ((global uchar *)&result)[offset + i] = src[i];
}
