// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// relational.cl: the relational tests and plain conversions sx-wgc inlines
// (prepare.cpp: isnan, isinf, isfinite, isnormal, signbit on float and
// double, scalar and vector; convert_T without _sat or a rounding mode),
// on special values (NaN, infinities, zeros of both signs, subnormals, the
// smallest normal, the largest finite), in a work-item loop that
// vectorises. relational.sh compares them with Intel's CPU OpenCL runtime.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

constant uint specials[12] = {
    0x7fc00000u, 0x7f800000u, 0xff800000u, 0u, 0x80000000u, 0x000116c2u, /* NaN, +-inf, +-0, 1e-40 */
    0x80001b66u, 0x00800000u, 0x7f7fffffu, 0xc0200000u, 0xffc00001u, 0x3f400000u, /* -1e-41, FLT_MIN, FLT_MAX, -2.5, -NaN, 0.75 */
};

float special(uint i)
{
    return i % 13 == 12 ? (float)i * 0.37f - 3.0f : as_float(specials[i % 13 % 12]);
}

kernel void rel_float(global int *out, global const int *in)
{
    uint i = get_global_id(0);
    float x = special(i);
    float4 v = (float4)(x, special(i + 1), special(i + 5), special(i + 7));
    int4 a = isnan(v) + 2 * isinf(v) + 4 * isfinite(v) + 8 * isnormal(v) + 16 * signbit(v);
    out[i * 6 + 0] = isnan(x) + 2 * isinf(x) + 4 * isfinite(x) + 8 * isnormal(x) + 16 * signbit(x);
    out[i * 6 + 1] = a.x ^ (a.y << 5) ^ (a.z << 10) ^ (a.w << 15);
    char4 c = (char4)((char)in[i], (char)(in[i] >> 3), (char)-in[i], (char)i);
    int4 ci = convert_int4(c);
    uchar u = (uchar)in[i];
    out[i * 6 + 2] = ci.x + ci.y * 3 + ci.z * 5 + ci.w * 7;
    out[i * 6 + 3] = (int)convert_uint(u) + (int)convert_short((char)u);
    out[i * 6 + 4] = as_int(convert_float(in[i] * 1001)) ^ as_int(convert_float((uint)in[i] * 7919u));
    out[i * 6 + 5] = as_int(convert_float((double)x * 1.1));
}

kernel void rel_double(global int *out, global const int *in)
{
    uint i = get_global_id(0);
    double x = (double)special(i) * (i % 3 == 0 ? 1e-300 : 1.0);
    double2 v = (double2)(x, (double)special(i + 2));
    long2 a = isnan(v) + 2 * isinf(v) + 4 * isfinite(v) + 8 * isnormal(v) + 16 * signbit(v);
    out[i * 4 + 0] = isnan(x) + 2 * isinf(x) + 4 * isfinite(x) + 8 * isnormal(x) + 16 * signbit(x);
    out[i * 4 + 1] = (int)(a.x ^ (a.y << 5));
    double d = convert_double(in[i]) + convert_double((long)in[i] << 40);
    out[i * 4 + 2] = (int)as_long(d) ^ (int)(as_long(d) >> 32);
    out[i * 4 + 3] = as_int(convert_float(convert_double(x)));
}
