/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* scalarize.cl: vector values in a work-item loop with math under
 * branches, the shape of dpnp's logaddexp (sycl::vec<float, 4> lanes,
 * each `d > 0 ? x + log1p(exp(-d)) : y + log1p(exp(d))`): sx-wgc splits the
 * vectors into lanes so that the host compiler's loop vectoriser puts
 * work-items in vector lanes and calls the vector exp and log1p (issue
 * 28). scalarize.sh checks the AVX-512 table's code and compares the
 * results with Intel's CPU runtime. */
static float lae(float a, float b)
{
    float d = a - b;
    return d > 0 ? a + log1p(exp(-d)) : b + log1p(exp(d));
}

kernel void vec_logaddexp(global const float4 *x, global const float4 *y, global float4 *o)
{
    size_t i = get_global_id(0);
    float4 a = x[i], b = y[i];
    o[i] = (float4)(lae(a.x, b.x), lae(a.y, b.y), lae(a.z, b.z), lae(a.w, b.w));
}
