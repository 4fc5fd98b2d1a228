/* ur-bench-vf.cl: bench/ur-vs-sx's virtual-function program. proptool
 * outlines the two sets (the default one, and set_fp64) into images of
 * their own; the kernel's image holds the vtable, a program-scope table of
 * function pointers to functions of those images, laid out as DPC++ lays
 * out vtables (clang-14's C++ for OpenCL puts vtables in the Function
 * storage class, which Intel's compiler does not take). */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

typedef struct Base {
    global const void *global const *vptr;
    int tag;
} Base;
typedef int (*method)(global Base *, int);

__attribute__((annotate("indirectly-callable"), noinline)) int ur_vf_foo(global Base *self, int x)
{
    return x * 3 + self->tag;
}
__attribute__((annotate("indirectly-callable=set_fp64"), noinline)) int ur_vf_bar(global Base *self,
                                                                                   int x)
{
    double d = x;
    return (int)(d * 2.5) + self->tag;
}

global const method ur_vf_vtable[2] = {ur_vf_foo, ur_vf_bar};
global Base ur_vf_obj;

__attribute__((annotate("sycl-unique-id=ur_vf_result;sycl-device-global-size=4;device_image_scope")))
global int ur_vf_result;

/* constructs the object, then calls both virtual functions through it */
__attribute__((annotate("calls-indirectly=_ZTSv,set_fp64")))
kernel void ur_vf_run(int x)
{
    ur_vf_obj.vptr = (global const void *global const *)ur_vf_vtable;
    ur_vf_obj.tag = 1;
    global const method *vt = (global const method *)ur_vf_obj.vptr;
    ur_vf_result = vt[0](&ur_vf_obj, x) + vt[1](&ur_vf_obj, x);
}
