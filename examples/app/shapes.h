/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
// shapes.h: the app's C++ for OpenCL classes, declared once for the two
// device modules that use them: shapes-lib.clcpp defines the virtual
// functions (the two sets) and, through the key function, the vtables;
// shapes.clcpp's kernels construct objects and call them. Each member's
// set is written here, on its declaration: the definition in
// shapes-lib.clcpp inherits it, and the kernels' module, which only
// declares the functions, carries nothing of it.
#ifndef APP_SHAPES_H
#define APP_SHAPES_H
#pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
#include "app.h"

inline void *operator new(__SIZE_TYPE__, void *p) noexcept
{
    return p;
}

// Shape is abstract (perim is pure virtual) and has a key function
// (describe, defined in shapes-lib.clcpp), so its vtable is emitted there
// only; so is Square's (its key function is area).
struct Shape {
    float size;
    virtual int describe() const;
    SX_INDIRECTLY_CALLABLE(set_area) virtual float area() const;
    SX_INDIRECTLY_CALLABLE(set_perim) virtual float perim() const = 0;
};
struct Square : Shape {
    SX_INDIRECTLY_CALLABLE(set_area) float area() const override;
    SX_INDIRECTLY_CALLABLE(set_perim) float perim() const override;
};
#endif
