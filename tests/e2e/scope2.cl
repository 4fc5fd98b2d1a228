/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* scope2.cl: another image holding the device_image_scope variable dg_tile
 * (made in a separate proptool run, so the registry sees two images). */
__attribute__((annotate("sycl-unique-id=dg_tile;sycl-device-global-size=16;device_image_scope")))
global int tile[4];

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_tile_zero(void)
{
    for (int i = 0; i < 4; i++)
        tile[i] = 0;
}
