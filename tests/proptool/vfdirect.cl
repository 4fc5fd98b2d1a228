/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// vfdirect.cl: virtual-function sets in OpenCL C with direct calls (no
// function pointers, so Debian's spirv-val can check every image the
// split makes). HOST_NO_FP64 leaves out set_fp64 (a host object that
// lacks its functions).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__attribute__((noinline)) int helper(int x)
{
    return x * 3;
}
__attribute__((annotate("indirectly-callable"), noinline)) int foo(int x)
{
    return helper(x) + 1;
}
#ifndef HOST_NO_FP64
__attribute__((annotate("indirectly-callable=set_fp64"), noinline)) int bar(int x)
{
    double d = x;
    return (int)(d * 2.5);
}
__attribute__((annotate("indirectly-callable=set_fp64"), noinline)) float baz(float x)
{
    return x * 0.5f;
}
#endif
/* A producer that knows which vtables a kernel builds says so. */
__attribute__((annotate("creates-indirectly=_ZTSv,set_fp64"))) kernel void make(global int *r)
{
    r[0] = helper(r[0]);
}
__attribute__((annotate("calls-indirectly"))) kernel void use(global int *r)
{
    r[0] = foo(r[0]);
}
#ifndef HOST_NO_FP64
__attribute__((annotate("calls-indirectly=set_fp64"))) kernel void use_fp64(global int *r)
{
    r[0] = bar(r[0]) + (int)baz(2.0f);
}
#endif
