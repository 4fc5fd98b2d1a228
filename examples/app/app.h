/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* app.h: what the host (app.c) and the device sources (kernels.cl,
 * shapes.clcpp, shapes-lib.clcpp) share, each name written once
 * (sycl-ext/device.h). */
#ifndef APP_H
#define APP_H
#include <sycl-ext/device.h>

/* device_global<int> the host may read and write: launches counted by the kernel. */
SX_SHARED_DEVICE_GLOBAL(int, launches, read_write);
/* device_global<float, device_image_scope> the host writes only: the scale. */
SX_SHARED_DEVICE_GLOBAL_IMAGE_SCOPE(float, scale, write);
/* device_global<int>: Square::area's calls, counted in the library's set
 * (shapes-lib.clcpp), the same instance the host reads. */
SX_SHARED_DEVICE_GLOBAL(int, area_calls, read_write);

/* The 2-D free-function kernel's struct argument, the same layout on both sides. */
struct params {
    int offset;
    float bias;
};

SX_SHARED_KERNEL(blur2d);
SX_SHARED_KERNEL(where_am_i);
SX_SHARED_KERNEL(make_shapes);
SX_SHARED_KERNEL(shape_areas);
SX_SHARED_KERNEL(shape_perims);
/* The two virtual-function sets (shapes-lib.clcpp defines them). */
SX_SHARED_VF_SET(set_area);
SX_SHARED_VF_SET(set_perim);

/* Bytes a shape object takes in the buffer make_shapes fills. */
#define APP_SHAPE_BYTES 32
#endif
