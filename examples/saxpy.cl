/* saxpy.cl: the demo's kernel, OpenCL C. Built for the host (native
 * adapter) with clang; the same source is what proptool would take as SPIR-V. */
kernel void saxpy(global float *y, global const float *x, float a)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}
