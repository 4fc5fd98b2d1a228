/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-vf.cl: virtual functions for the OpenCL test (tests/opencl/vf.c).
 * proptool outlines the two sets into images of their own and makes
 * set_fp64's dummy; the kernel image keeps the vtable, a program-scope
 * table of function pointers to the sets' functions written out by hand,
 * as a producer that lays out its own vtables would (ocl-vf-cxx.clcpp has
 * the same with clang's C++ vtables).
 * set_fp64 declares fp64 (sycl-used-aspects) instead of computing in
 * double: proptool's split leaves a module's Float64 capability, and so
 * the fp64 requirement, on the kernel image too. */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

typedef struct ocl_vf_base {
    global const void *global const *vptr;
    int tag;
} ocl_vf_base;
typedef int (*ocl_vf_method)(global ocl_vf_base *, int);

/* the default set: x * 3 + 1 + tag */
__attribute__((annotate("indirectly-callable"), noinline))
int ocl_vf_foo(global ocl_vf_base *self, int x) { return x * 3 + 1 + self->tag; }

/* set_fp64: x * 5 / 2 + tag (x >= 0) */
__attribute__((annotate("indirectly-callable=set_fp64;sycl-used-aspects=fp64"), noinline))
int ocl_vf_bar(global ocl_vf_base *self, int x) { return x * 5 / 2 + self->tag; }

global const ocl_vf_method ocl_vf_vtable[2] = {ocl_vf_foo, ocl_vf_bar};
global ocl_vf_base ocl_vf_obj;

static void construct(void)
{
    ocl_vf_obj.vptr = (global const void *global const *)ocl_vf_vtable;
    ocl_vf_obj.tag = 1;
}

static int call(int slot, int x)
{
    return ((global const ocl_vf_method *)ocl_vf_obj.vptr)[slot](&ocl_vf_obj, x);
}

/* Each kernel constructs its object (proptool gives kernels that call
 * different sets images, and so program variables, of their own); the
 * results go to an ordinary device_global<int[2]> both images share (the
 * variable holds the address of its USM instance). */
__attribute__((annotate("sycl-unique-id=ocl_vf_result;sycl-device-global-size=8")))
global int *global ocl_vf_result;

/* builds the vtable of both sets, calls the default one: linked with
 * set_fp64's real image, or its dummy where fp64 is missing */
__attribute__((annotate("creates-indirectly=_ZTSv,set_fp64;calls-indirectly")))
kernel void ocl_vf_use(int x)
{
    construct();
    ocl_vf_result[0] = call(0, x);
}

/* calls set_fp64: refused where fp64 is missing */
__attribute__((annotate("creates-indirectly=_ZTSv,set_fp64;calls-indirectly=set_fp64")))
kernel void ocl_vf_use_fp64(int x)
{
    construct();
    ocl_vf_result[1] = call(1, x);
}
