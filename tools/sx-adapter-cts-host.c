/* sx-adapter-cts-host.c: the conformance suite's built-in host-ELF image
 * for the native adapter: the kernels of sx-adapter-cts.cl written in C
 * (a kernel is a plain C function; work-item builtins are imported by
 * their OpenCL C mangled names from sx-native-builtins.so). Built with
 * -shared -fPIC -nostdlib and embedded in sx-adapter-cts. */
#include <stddef.h>

size_t _Z13get_global_idj(unsigned d);
size_t _Z12get_local_idj(unsigned d);
size_t _Z14get_local_sizej(unsigned d);
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
