/* sx-adapter-cts.cl: the kernels sx-adapter-cts launches. Build an image
 * file of them for your device with proptool (see sx-adapter-cts --help)
 * and pass it with --images. sx-adapter-cts-host.c is the same in C. */

global int sx_cts_global[4] = {1, 2, 3, 4};

/* Accessor kernels (the OpenCL adapter's convention for program-scope
 * variables; other backends ignore them). */
kernel void __sx_dg_size_sx_cts_global(global ulong *out) { out[0] = sizeof(sx_cts_global); }
kernel void __sx_dg_read_sx_cts_global(global uchar *dst, ulong offset, ulong count)
{
    const global uchar *p = (const global uchar *)&sx_cts_global;
    for (ulong i = 0; i < count; i++)
        dst[i] = p[offset + i];
}
kernel void __sx_dg_write_sx_cts_global(global const uchar *src, ulong offset, ulong count)
{
    global uchar *p = (global uchar *)&sx_cts_global;
    for (ulong i = 0; i < count; i++)
        p[offset + i] = src[i];
}

/* Every argument kind: a pointer, a value, local memory (shared through a barrier). */
kernel void sx_cts_args(global int *out, int v, local int *tmp)
{
    size_t g = get_global_id(0), l = get_local_id(0), n = get_local_size(0);
    tmp[l] = (int)g * v;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tmp[n - 1 - l] + 1;
}

/* The program variable as kernels see it, after a host write. */
kernel void sx_cts_global_get(global int *out)
{
    size_t g = get_global_id(0);
    out[g] = sx_cts_global[g];
}
