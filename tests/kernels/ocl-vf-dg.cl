/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ocl-vf-dg.cl: a virtual function that reads a device_image_scope device
 * global (tests/opencl/dg-scope.c). proptool outlines the set into an image
 * of its own, where the variable is imported: declared without initializer,
 * defined by the kernel image it is linked with. Oclgrind 21.10 aborts the
 * process on such a module; the OpenCL adapter must refuse it first. */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable

typedef struct vfdg_base {
    global const void *global const *vptr;
    int tag;
} vfdg_base;
typedef int (*vfdg_method)(global vfdg_base *, int);

__attribute__((annotate("sycl-unique-id=vfdg_scale;sycl-device-global-size=4;device_image_scope")))
global int vfdg_scale;

/* the default set: x * scale + tag */
__attribute__((annotate("indirectly-callable"), noinline))
int vfdg_foo(global vfdg_base *self, int x) { return x * vfdg_scale + self->tag; }

global const vfdg_method vfdg_vtable[1] = {vfdg_foo};
global vfdg_base vfdg_obj;
global int vfdg_out;

__attribute__((annotate("creates-indirectly=_ZTSv;calls-indirectly")))
kernel void vfdg_use(int x)
{
    vfdg_obj.vptr = (global const void *global const *)vfdg_vtable;
    vfdg_obj.tag = 1;
    vfdg_out = ((global const vfdg_method *)vfdg_obj.vptr)[0](&vfdg_obj, x);
}
