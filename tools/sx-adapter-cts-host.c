/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-adapter-cts-host.c: the conformance suite's built-in host-ELF image
 * for the native adapter: the kernels of sx-adapter-cts.cl written in C
 * (a kernel is a plain C function; work-item builtins are imported by
 * their OpenCL C mangled names from sx-native-builtins.so). Built with
 * -shared -fPIC -nostdlib and embedded in sx-adapter-cts. */
#include <stddef.h>

size_t _Z13get_global_idj(unsigned d);
size_t _Z12get_local_idj(unsigned d);
size_t _Z14get_local_sizej(unsigned d);
size_t _Z15get_global_sizej(unsigned d);
size_t _Z17get_global_offsetj(unsigned d);
size_t _Z12get_group_idj(unsigned d);
void _Z7barrierj(unsigned flags);

int sx_cts_global[4] = {1, 2, 3, 4};

void sx_cts_args(int *out, int v, int *tmp);
void sx_cts_args(int *out, int v, int *tmp)
{
    size_t g = _Z13get_global_idj(0), l = _Z12get_local_idj(0), n = _Z14get_local_sizej(0);
    tmp[l] = (int)g * v;
    _Z7barrierj(1);
    out[g] = tmp[n - 1 - l] + 1;
}

void sx_cts_global_get(int *out);
void sx_cts_global_get(int *out)
{
    size_t g = _Z13get_global_idj(0);
    out[g] = sx_cts_global[g];
}

/* For devices without USM: the output goes to a program variable. */
int sx_cts_out[64];

void sx_cts_args_global(int v, int *tmp);
void sx_cts_args_global(int v, int *tmp)
{
    size_t g = _Z13get_global_idj(0), l = _Z12get_local_idj(0), n = _Z14get_local_sizej(0);
    tmp[l] = (int)g * v;
    _Z7barrierj(1);
    sx_cts_out[g] = tmp[n - 1 - l] + 1;
}

/* ---- the launch checks (sx-adapter-cts-launch.c); none uses barrier() ---- */

void sx_cts_local(int *out, int v, int *tmp);
void sx_cts_local(int *out, int v, int *tmp)
{
    size_t g = _Z13get_global_idj(0), l = _Z12get_local_idj(0);
    tmp[l] = (int)g * v;
    out[g] = tmp[l] + 1;
}

typedef struct sx_cts_pair {
    int i;
    float f;
} sx_cts_pair;

void sx_cts_scalars(float *out, float f, sx_cts_pair s, signed char c, long l);
void sx_cts_scalars(float *out, float f, sx_cts_pair s, signed char c, long l)
{
    size_t g = _Z13get_global_idj(0);
    out[g] = (float)g * f + (float)s.i + s.f + (float)c + (float)l;
}

void sx_cts_double(double *out, double d);
void sx_cts_double(double *out, double d)
{
    size_t g = _Z13get_global_idj(0);
    out[g] = (double)g * d + 0.25;
}

void sx_cts_nd(int *out);
void sx_cts_nd(int *out)
{
    size_t x = _Z13get_global_idj(0) - _Z17get_global_offsetj(0), y = _Z13get_global_idj(1) - _Z17get_global_offsetj(1),
           z = _Z13get_global_idj(2) - _Z17get_global_offsetj(2);
    size_t i = (z * _Z15get_global_sizej(1) + y) * _Z15get_global_sizej(0) + x;
    out[2 * i] = (int)(_Z13get_global_idj(0) + 100 * _Z13get_global_idj(1) + 10000 * _Z13get_global_idj(2));
    out[2 * i + 1] = (int)(_Z12get_local_idj(0) + 4 * _Z12get_local_idj(1) + 16 * _Z12get_local_idj(2) +
                           64 * (_Z12get_group_idj(0) + 4 * _Z12get_group_idj(1) + 16 * _Z12get_group_idj(2)));
}
