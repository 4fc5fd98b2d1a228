/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-base.h: the design document's Base with foo (default set) and bar
 * (a set that uses fp64), in C++ for OpenCL. VF_STATIC (Oclgrind, which
 * cannot initialise vtables: "Unsupported constant pointer value") makes
 * them static members called directly; the images, sets and links are the
 * same. VF_HOST: the host build for the native adapter (real vtables). */
#ifdef VF_STATIC
#define VF_FN static
#else
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
#define VF_FN virtual
#endif

/* Kernels: unmangled entry points in both variants (the host build defines
 * `kernel` away and is C++, so it needs extern "C"). */
#ifdef VF_HOST
#define VF_KERNEL extern "C"
#else
#define VF_KERNEL kernel
#endif

struct Base {
    int tag;
    VF_FN void key();      /* defined with the kernels: the vtable lives there */
    VF_FN int foo(int x);  /* set "_ZTSv" (the default set) */
    VF_FN int bar(int x);  /* set "_ZTS8set_fp64": uses double */
    static int baz(int x); /* the default set too, from another library's image (not virtual:
                            * a kernel image without it still loads) */
};
