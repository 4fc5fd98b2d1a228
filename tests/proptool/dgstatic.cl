/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dgstatic.cl: device globals with internal linkage (C/C++ `static`), an
 * image-scope one and an ordinary (USM) one (issue 29, point 5): found by
 * their unique id on every backend, whatever their linkage. */
__attribute__((annotate("sycl-unique-id=uid_static_scope;sycl-device-global-size=4;device_image_scope")))
static global int DeviceGlobalVar = 5;
/* Ordinary: the variable holds the USM instance's address (OpenCL C form). */
__attribute__((annotate("sycl-unique-id=uid_static_usm;sycl-device-global-size=4")))
static global int *global StaticUsm;

kernel void dg_static_bump(global int *out)
{
    out[0] = DeviceGlobalVar;
    out[1] = *StaticUsm;
    DeviceGlobalVar += 10;
    *StaticUsm += 100;
}
