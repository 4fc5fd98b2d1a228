/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-basic.cl: native adapter test kernels (compiled for the host):
 * ids in 1-3 dimensions, scalar, pointer and struct-by-value arguments. */
typedef struct {
    int a;
    float b;
    double c;
    char d;
} pod;  /* a@0 b@4 c@8 d@16, 24 bytes */

typedef struct {
    float x, y;
} pair;  /* 8 bytes: one SSE eightbyte */

kernel void empty(void) {}

kernel void fill(global int *out, int v) { out[get_global_id(0)] = v + (int)get_global_id(0); }

/* Every work-item records its ids so the host can check them all. */
kernel void ids(global uint *out)
{
    size_t x = get_global_id(0) - get_global_offset(0);
    size_t y = get_global_id(1) - get_global_offset(1);
    size_t z = get_global_id(2) - get_global_offset(2);
    size_t lin = (z * get_global_size(1) + y) * get_global_size(0) + x;
    global uint *o = out + lin * 8;
    o[0] = (uint)get_global_id(0);
    o[1] = (uint)get_global_id(1);
    o[2] = (uint)get_global_id(2);
    o[3] = (uint)(get_local_id(0) | get_local_id(1) << 10 | get_local_id(2) << 20);
    o[4] = (uint)(get_group_id(0) | get_group_id(1) << 10 | get_group_id(2) << 20);
    o[5] = (uint)(get_local_size(0) | get_local_size(1) << 10 | get_local_size(2) << 20);
    o[6] = (uint)(get_num_groups(0) | get_num_groups(1) << 10 | get_num_groups(2) << 20);
    o[7] = get_work_dim() | (uint)get_enqueued_local_size(0) << 8 | (uint)get_global_linear_id() << 16;
}

kernel void scalars(global double *out, int i, float f, double d, long l, uint u, short s,
                    char c, ulong ul, float f2, double d2)
{
    out[0] = i;
    out[1] = f;
    out[2] = d;
    out[3] = l;
    out[4] = u;
    out[5] = s;
    out[6] = c;
    out[7] = ul;
    out[8] = f2;
    out[9] = d2;
}

kernel void bystruct(global double *out, int before, pod p, pair q, float after)
{
    out[0] = before;
    out[1] = p.a;
    out[2] = p.b;
    out[3] = p.c;
    out[4] = p.d;
    out[5] = q.x;
    out[6] = q.y;
    out[7] = after;
}

kernel void axpy(global float *y, global const float *x, float a)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

kernel void mathf(global float *f, global double *d)
{
    f[0] = sqrt(f[1]) + fabs(f[2]) + fmin(f[3], f[4]) + fmax(f[3], f[4]) + floor(f[5]) + ceil(f[5]);
    f[6] = exp(0.0f) + log(1.0f) + pow(2.0f, 3.0f) + sin(0.0f) + cos(0.0f) + fma(2.0f, 3.0f, 1.0f) +
           mad(2.0f, 3.0f, 1.0f);
    d[0] = sqrt(d[1]) + fabs(d[2]) + fmin(d[3], d[4]) + fmax(d[3], d[4]) + floor(d[5]) + ceil(d[5]);
    d[6] = exp(0.0) + log(1.0) + pow(2.0, 3.0) + sin(0.0) + cos(0.0) + fma(2.0, 3.0, 1.0) +
           mad(2.0, 3.0, 1.0);
}

/* Program-scope variables, read and written by name from the host. */
int counter = 5;
global float table[16] = {1, 2, 3};

kernel void bump(global int *out)
{
    counter += 1;
    out[0] = counter;
    out[1] = (int)table[2];
}

/* Geometric builtins on float vectors (passed in SSE registers). */
kernel void geometric(global float *out)
{
    float2 a2 = (float2)(3.0f, 4.0f);
    float3 a3 = (float3)(1.0f, 2.0f, 2.0f), b3 = (float3)(0.0f, 1.0f, 0.0f);
    float4 a4 = (float4)(1.0f, 1.0f, 1.0f, 1.0f), b4 = (float4)(1.0f, 2.0f, 3.0f, 4.0f);
    out[0] = length(a2);
    out[1] = dot(a3, b3);
    out[2] = length(a3);
    out[3] = dot(a4, b4);
    out[4] = distance(a4, b4);
    float3 n = normalize(a3);
    out[5] = n.x;
    float3 c = cross(a3, b3);
    out[6] = c.x;
    out[7] = c.z;
    float4 c4 = cross(a4, b4);
    out[8] = c4.y;
    out[9] = normalize(a2).y;
}
