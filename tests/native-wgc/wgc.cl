/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* wgc.cl: kernels for sx-wgc's region formation, run on the native device
 * from the variant proptool makes from SPIR-V (tests/native-wgc/run.sh)
 * and compared with a host reference (wgc-e2e.c). */

kernel void saxpy(float a, global const float *x, global float *y)
{
    size_t i = get_global_id(0);
    y[i] = a * x[i] + y[i];
}

/* A barrier in a loop whose trip count comes from the local size; a
 * kernel-scope __local array (each group its own copy). */
kernel void reduce(global const float *in, global float *out)
{
    local float l[256];
    size_t lid = get_local_id(0);
    l[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            l[lid] += l[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = l[0];
}

/* A barrier in a loop whose trip count is an argument; values (acc, a
 * private array) live across it. Each step rotates the group's values. */
kernel void loop_barrier(global const int *in, global int *out, int steps, local int *tmp)
{
    size_t lid = get_local_id(0), n = get_local_size(0);
    int acc = 0;
    int hist[4] = {0, 0, 0, 0};
    tmp[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 0; s < steps; s++) {
        int v = tmp[(lid + 1) % n];
        acc += v * (s + 1);
        hist[s & 3] += v;
        barrier(CLK_LOCAL_MEM_FENCE);
        tmp[lid] = v + 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = acc + hist[0] - hist[1] + 2 * hist[2] - 3 * hist[3];
}

/* Barriers in a branch that is uniform (depends on an argument) and in
 * nested loops (inner trip count from an argument, outer from the group). */
kernel void branch_nested(global int *out, int mode, int inner)
{
    local int l[64];
    size_t lid = get_local_id(0), n = get_local_size(0);
    int x = (int)get_global_id(0);
    l[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (mode > 0) {
        int y = l[n - 1 - lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        l[lid] = y * 2;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int o = 0; o < (int)get_group_id(0) % 3 + 1; o++)
        for (int i = 0; i < inner; i++) {
            int z = l[(lid + o + i) % n];
            barrier(CLK_LOCAL_MEM_FENCE);
            l[lid] = z + o - i;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    out[get_global_id(0)] = l[lid] + x;
}

/* Two dimensions, 16x16 local tiles (the matrix multiply of bench/). */
kernel void matmul(global const float *A, global const float *B, global float *C, int n)
{
    local float As[16][16], Bs[16][16];
    int lx = get_local_id(0), ly = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t < n / 16; t++) {
        As[ly][lx] = A[row * n + t * 16 + lx];
        Bs[ly][lx] = B[(t * 16 + ly) * n + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 16; k++)
            acc += As[ly][k] * Bs[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * n + col] = acc;
}

/* PolyBench's syrk: a[j * n + k] is the same on every row of the group
 * and strided in x (a gather the rows share: sx-wgc loads it once per
 * region, issue 28) */
kernel void syrk(global const float *a, global float *c, int n)
{
    int j = get_global_id(0), i = get_global_id(1);
    if (i < n && j < n) {
        c[i * n + j] *= 0.5f;
        for (int k = 0; k < n; k++)
            c[i * n + j] += 1.5f * a[i * n + k] * a[j * n + k];
    }
}

/* Every work-group writes its own id into the group's copy of `mine`,
 * waits, and checks nobody else's group wrote there. */
kernel void local_copies(global int *out)
{
    local int mine[32];
    size_t lid = get_local_id(0);
    mine[lid] = (int)get_group_id(0) * 1000 + (int)lid;
    barrier(CLK_LOCAL_MEM_FENCE);
    int bad = 0;
    for (int i = 0; i < (int)get_local_size(0); i++)
        bad += mine[i] != (int)get_group_id(0) * 1000 + i;
    out[get_global_id(0)] = bad;
}

/* Work-item functions in all three dimensions and with an offset. */
kernel void ids3(global int *out)
{
    size_t g = get_global_linear_id();
    out[g * 4 + 0] = (int)(get_global_id(0) + 10 * get_global_id(1) + 100 * get_global_id(2));
    out[g * 4 + 1] = (int)(get_local_id(0) + 10 * get_local_id(1) + 100 * get_local_id(2));
    out[g * 4 + 2] = (int)(get_group_id(0) + 10 * get_group_id(1) + 100 * get_group_id(2));
    out[g * 4 + 3] = (int)(get_work_dim() + 10 * get_num_groups(2) + 100 * get_local_linear_id());
}

/* Region formation does not apply: recursion reaches a work-item
 * function, so this kernel runs as fibers (and --dump says why). */
int depth(int k)
{
    return k <= 0 ? (int)get_local_id(0) : depth(k - 1) + depth(k - 2) + 1;
}

kernel void fallback(global int *out, int k)
{
    local int l[64];
    size_t lid = get_local_id(0);
    l[lid] = depth(k);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = l[get_local_size(0) - 1 - lid];
}

/* if_device: the host-only body must not run on the native device. */
__attribute__((annotate("sycl-call-if-on-host"))) __attribute__((noinline))
void host_only(global int *p)
{
    p[1] = 1000;
}

kernel void if_device(global int *p)
{
    p[0] = 7;
    host_only(p);
}


/* Builtins with pointers (address spaces in their mangled names): 1.x
 * atomics on global and local memory. */
kernel void atomics(global int *count)
{
    local int hits;
    size_t lid = get_local_id(0);
    if (lid == 0)
        hits = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&hits, 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0)
        atomic_add(count, hits);
}

/* A struct and a vector by value (work-items each see the same copy). */
typedef struct { int a; float b; long c; } params;

kernel void by_value(params p, float4 v, global float *out)
{
    size_t i = get_global_id(0);
    p.a += (int)i;  /* a work-item's own copy */
    out[i] = (float)p.a + p.b * v.y + (float)p.c + v.w;
}

/* Values that look uniform but are not: from a loop whose exit depends on
 * the local id, and from a branch on it; both kept across a barrier. */
kernel void divergent(global int *out, int n)
{
    size_t lid = get_local_id(0);
    int k = 0, u = n;
    for (int i = 0; i < (int)lid; i++)
        k += n;
    if (lid % 3 == 0)
        u = 7;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = k * 100 + u;
}
