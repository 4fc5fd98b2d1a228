/* mpi-kernels.cl: the MPI example's kernels: a free-function kernel that
 * reads a device_global, and a kernel that calls a virtual function
 * (a "calls-indirectly" kernel linked at its first launch with the image
 * of the set it calls; the direct-call form of doc/spirv-conventions.md). */

/* device_global<int> rank_scale: each rank writes its own value. */
__attribute__((annotate("sycl-unique-id=mpi_rank_scale;sycl-device-global-size=4")))
global int *global rank_scale_ptr;

__attribute__((annotate("sycl-nd-range-kernel=1")))
kernel void __sycl_kernel_scale(global int *out)
{
    size_t i = get_global_id(0);
    out[i] = (int)i * rank_scale_ptr[0];
}

/* The default virtual-function set (_ZTSv), outlined by proptool into an
 * image of its own. */
__attribute__((annotate("indirectly-callable"), noinline)) int vf_poly(int x)
{
    return x * x + 7;
}

__attribute__((annotate("calls-indirectly"))) kernel void vf_apply(global int *r)
{
    size_t i = get_global_id(0);
    r[i] = vf_poly(r[i]);
}
