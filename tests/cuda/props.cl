/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* props.cl: the SYCL-side description of props.cu (kernel kinds and
 * signatures, device globals): proptool reads the properties from this
 * file's SPIR-V and bundles props.cu's PTX or cubin under them. Names and
 * parameters match props.cu's; the bodies are what a host or SPIR-V build
 * would run. */

/* device_global<int>: the program variable holds the instance's address. */
__attribute__((annotate("sycl-unique-id=pt_counter;sycl-device-global-size=4")))
global int *global pt_counter_ptr;

/* device_global<int[4], device_image_scope>: the variable is the storage. */
__attribute__((annotate("sycl-unique-id=pt_tile;sycl-device-global-size=16;device_image_scope")))
global int pt_tile[4] = {1, 2, 3, 4};

/* work_group_memory: each group reverses its slice through local memory. */
__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_pt_reverse(global int *out, global const int *in, local int *tmp)
{
    size_t l = get_local_id(0), n = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[n - 1 - l];
}

__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_pt_add(int v)
{
    atomic_add(pt_counter_ptr, v);
}

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_pt_globals(global int *out)
{
    out[0] = *pt_counter_ptr;
    for (int i = 0; i < 4; i++)
        out[1 + i] = pt_tile[i];
}

__attribute__((annotate("sycl-single-task-kernel")))
kernel void __sycl_kernel_pt_tile_double(void)
{
    for (int i = 0; i < 4; i++)
        pt_tile[i] *= 2;
}
