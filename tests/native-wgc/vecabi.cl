/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vecabi.cl: builtins with vectors the x86-64 ABI passes differently
 * (2, 4 and 8 bytes in integer or double registers, 32 bytes in memory):
 * sx-wgc lowers the calls as clang does for the builtins module; fract
 * with a (generic) pointer. */
kernel void vec_abi(global const float *in, global float *out, global char *c)
{
    size_t i = get_global_id(0);
    float8 a = vload8(i, in), b = vload8(i + 1, in);
    float8 m = fmax(a, b) + clamp(a, 1.0f, 4.0f);
    vstore8(m, i, out);
    char2 x = vload2(i, c);
    uchar2 y = abs_diff(x, (char2)(3, -3));
    vstore2(as_char2(y), i, c + 64);
    short4 s = (short4)(x.x, x.y, -x.x, 5);
    out[64 + i] = (float)(abs(s).z + max(s, (short4)(1)).w);
}

kernel void fract_ptr(global float *fr)
{
    float ip;
    fr[get_global_id(0)] = fract((float)get_global_id(0) * 0.25f, &ip) + ip;
}
