// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// vmath.cl: the math builtins in vectorised work-item loops and on vectors
// (issue 28: vector math per table), one kernel per function and shape:
// fN_FN on float, floatN, dN_FN on double, doubleN (vmath-e2e.c checks them).
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

#define K1(fn)                                                                                                         \
    kernel void f1_##fn(global const float *x, global const float *y, global float *o)                                \
    { size_t i = get_global_id(0); o[i] = fn(x[i]); }                                                                  \
    kernel void f4_##fn(global const float4 *x, global const float4 *y, global float4 *o)                             \
    { size_t i = get_global_id(0); o[i] = fn(x[i]); }                                                                  \
    kernel void f16_##fn(global const float16 *x, global const float16 *y, global float16 *o)                         \
    { size_t i = get_global_id(0); o[i] = fn(x[i]); }                                                                  \
    kernel void d1_##fn(global const double *x, global const double *y, global double *o)                             \
    { size_t i = get_global_id(0); o[i] = fn(x[i]); }                                                                  \
    kernel void d3_##fn(global const double *x, global const double *y, global double *o)                             \
    { size_t i = get_global_id(0); vstore3(fn(vload3(i, x)), i, o); }                                                  \
    kernel void d8_##fn(global const double8 *x, global const double8 *y, global double8 *o)                          \
    { size_t i = get_global_id(0); o[i] = fn(x[i]); }

#define K2(fn)                                                                                                         \
    kernel void f1_##fn(global const float *x, global const float *y, global float *o)                                \
    { size_t i = get_global_id(0); o[i] = fn(x[i], y[i]); }                                                            \
    kernel void f4_##fn(global const float4 *x, global const float4 *y, global float4 *o)                             \
    { size_t i = get_global_id(0); o[i] = fn(x[i], y[i]); }                                                            \
    kernel void f16_##fn(global const float16 *x, global const float16 *y, global float16 *o)                         \
    { size_t i = get_global_id(0); o[i] = fn(x[i], y[i]); }                                                            \
    kernel void d1_##fn(global const double *x, global const double *y, global double *o)                             \
    { size_t i = get_global_id(0); o[i] = fn(x[i], y[i]); }                                                            \
    kernel void d3_##fn(global const double *x, global const double *y, global double *o)                             \
    { size_t i = get_global_id(0); vstore3(fn(vload3(i, x), vload3(i, y)), i, o); }                                    \
    kernel void d8_##fn(global const double8 *x, global const double8 *y, global double8 *o)                          \
    { size_t i = get_global_id(0); o[i] = fn(x[i], y[i]); }

// float only (native_ and half_ functions)
#define KF1(fn)                                                                                                        \
    kernel void f1_##fn(global const float *x, global const float *y, global float *o)                                \
    { size_t i = get_global_id(0); o[i] = fn(x[i]); }                                                                  \
    kernel void f4_##fn(global const float4 *x, global const float4 *y, global float4 *o)                             \
    { size_t i = get_global_id(0); o[i] = fn(x[i]); }                                                                  \
    kernel void f16_##fn(global const float16 *x, global const float16 *y, global float16 *o)                         \
    { size_t i = get_global_id(0); o[i] = fn(x[i]); }

K1(rsqrt) KF1(native_exp) KF1(native_log2) KF1(native_sin) KF1(native_cos) KF1(half_exp)
K1(exp) K1(exp2) K1(exp10) K1(expm1) K1(log) K1(log2) K1(log10) K1(log1p) K1(sin) K1(cos) K1(tan) K1(sinh) K1(cosh)
K1(tanh) K1(asin) K1(acos) K1(atan) K1(cbrt) K2(atan2) K2(pow) K2(powr) K1(asinh) K1(acosh) K1(atanh) K2(hypot)
K2(fmod)

// float x, int n (y clamped to +-1e9, its integer part): pown, rootn
#define KI2(fn)                                                                                                        \
    kernel void f1_##fn(global const float *x, global const float *y, global float *o)                                 \
    { size_t i = get_global_id(0); o[i] = fn(x[i], (int)clamp(y[i], -1e9f, 1e9f)); }                                   \
    kernel void f4_##fn(global const float4 *x, global const float4 *y, global float4 *o)                              \
    { size_t i = get_global_id(0); o[i] = fn(x[i], convert_int4(clamp(y[i], -1e9f, 1e9f))); }                          \
    kernel void f16_##fn(global const float16 *x, global const float16 *y, global float16 *o)                          \
    { size_t i = get_global_id(0); o[i] = fn(x[i], convert_int16(clamp(y[i], -1e9f, 1e9f))); }
KI2(pown) KI2(rootn)

// pow(2, k): exact powers of two (uniform k hoisted, per-item k vectorised)
kernel void pow2_uniform(global const float *x, global float *o, int k)
{ size_t i = get_global_id(0); o[i] = x[i] * pow(2.0f, (float)k); }
kernel void pow2_item(global const int *k, global float *o, global double *od)
{ size_t i = get_global_id(0); o[i] = pow(2.0f, (float)k[i]); od[i] = pow(2.0, (double)k[i]); }

// A kernel on fibers (a barrier, and a recursive function that asks for
// the work-item): its body is a function of its own that every table's
// entry calls (baseline vector math there).
int fib_depth(int n) { return n <= 1 ? (int)get_local_id(0) : fib_depth(n - 1) + fib_depth(n - 2); }
kernel void fib8_tanh(global const float8 *x, global const float8 *y, global float8 *o)
{
    size_t i = get_global_id(0);
    float8 v = tanh(x[i]);
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (fib_depth(i & 3) < 0)
        v.s7 = 0.0f;
    o[i] = v;
}

// Common and integer builtins sx-wgc makes inline (min, max, clamp, abs,
// popcount, clz, ctz, mix): exact against the host (vmath-e2e's t_common).
kernel void common_ops(global const int *a, global const int *b, global const float *f, global int *oi,
                       global uint *ou, global float *of, global int4 *o4)
{
    size_t i = get_global_id(0);
    int x = a[i], y = b[i];
    uint ux = (uint)x, uy = (uint)y;
    oi[i] = min(x, y) ^ (max(x, y) << 1) ^ clamp(x, -1000, y) ^ (int)abs(x);
    ou[i] = min(ux, uy) ^ (max(ux, uy) >> 1) ^ clamp(ux, 10u, 1u << 30) ^ popcount(ux) ^ (clz(ux) << 8) ^ (ctz(uy) << 16);
    float4 v = (float4)(f[i], -f[i], f[i] * 0.5f, 3.0f);
    float4 c = clamp(v, -2.0f, 2.0f) + mix(v, (float4)(1.0f), 0.25f) + min(v, 0.5f) + max(v, (float4)(-0.5f));
    of[i] = c.x + c.y * 2.0f + c.z * 4.0f + c.w * 8.0f;
    int4 w = (int4)(x, y, x - y, 7);
    o4[i] = clamp(w, -50, 50) + max(w, (int4)(3)) + as_int4(abs(w) & 0xffu);
    // mul24, mad24, rotate, select, bitselect
    int s24 = (x << 8) >> 8, t24 = (y << 8) >> 8;
    oi[i] ^= mul24(s24 >> 12, t24 >> 12) + mad24(s24 >> 13, 3, t24) + (int)rotate(ux, uy) + select(x, y, x & 4) +
             bitselect(x, y, 0x0f0f0f0f);
    int4 sel = select(w, (int4)(1, 2, 3, 4), w);
    float4 fs = select(v, (float4)(9.0f), (int4)(x, -1, 0, y)) + bitselect(v, (float4)(-1.0f), (float4)(-0.0f));  // -|v|
    o4[i] += sel + convert_int4(fs * 16.0f);
}
