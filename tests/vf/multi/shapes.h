/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* shapes.h: the classes of the multi-module virtual-function test (issue
 * 29): real C++ for OpenCL classes whose virtual functions are defined out
 * of line in lib.clcpp, so their vtables live there (the key function is
 * Shape::area); use.clcpp and make.clcpp only declare them. Four sets:
 * set_area, set_perim, set_fp64 (uses double: a device without fp64 gets
 * its dummy) and set_sync (a barrier inside a virtual function). Kernels take void pointers (OpenCL C++ refuses a
 * pointer to a polymorphic class as a kernel parameter). */
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
inline void *operator new(__SIZE_TYPE__, void *p) noexcept
{
    return p;
}
struct Shape {
    float w, h;
    virtual float area() const;
    virtual float perim() const;
    virtual float precise() const;
    /* set_sync: a work-group barrier inside a virtual function. */
    virtual float neighbour(local float *tmp) const;
};
struct Rect : Shape {
    float area() const override;
    float perim() const override;
};
struct Tri : Shape {
    float area() const override;
    float perim() const override;
    float precise() const override;
};
