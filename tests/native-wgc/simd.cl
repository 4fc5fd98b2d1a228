/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* simd.cl: kernels for work-items in SIMD lanes (sx-wgc's vectorize.cpp):
 * loops inside the work-item body, uniform or not, reached by every
 * work-item or not; boundary tests guarding stores; c[i] += in a loop;
 * private arrays across loop iterations; math builtins and atomics in
 * vectorised loops. simd-e2e.c has the host reference of each. */

/* a uniform loop over k reached by every work-item: implicit barrier */
kernel void mm_uniform(global const float *A, global const float *B, global float *C, int n)
{
    int i = get_global_id(1), j = get_global_id(0);
    float acc = 0;
    for (int k = 0; k < n; k++)
        acc += A[i * n + k] * B[k * n + j];
    C[i * n + j] = acc;
}

/* the same under a boundary test (PolyBench's shape): the loop is not reached by all */
kernel void mm_guarded(global const float *A, global const float *B, global float *C, int n, int m)
{
    int i = get_global_id(1), j = get_global_id(0);
    if (i < m && j < m) {
        float acc = 0;
        for (int k = 0; k < n; k++)
            acc += A[i * n + k] * B[k * n + j];
        C[i * m + j] = acc;
    }
}

/* nested uniform loops, the inner one leaving early on a uniform condition,
 * a loop under a uniform branch, c[i] += in the loop (c may alias a) */
kernel void nested(global const int *a, global int *c, int n, int stop)
{
    int i = get_global_id(0);
    c[i] = 0;
    for (int p = 0; p < n; p++) {
        for (int q = 0; q < n; q++) {
            if (q == stop)
                break;
            c[i] += a[(i + p * q) % 64] * (p + 1);
        }
        if (n > 2)
            for (int r = 0; r < 3; r++)
                c[i] ^= r << p;
    }
}

/* a trip count that depends on the work-item: no implicit barrier */
kernel void tri(global int *out, int n)
{
    int i = get_global_id(0), s = 0;
    for (int k = 0; k <= i % n; k++)
        s = s * 3 + k;
    out[i] = s;
}

/* a private array written and read across iterations of a uniform loop */
kernel void priv(global int *out, int n)
{
    int i = get_global_id(0), h[8];
    for (int q = 0; q < 8; q++)
        h[q] = i + q;
    for (int t = 0; t < n; t++)
        h[t & 7] += h[(t + i) & 7];
    out[i] = h[0] + h[3] + h[7];
}

/* a divergent early return inside a uniform-looking loop */
kernel void early(global const int *a, global int *out, int n)
{
    int i = get_global_id(0), s = 0;
    for (int k = 0; k < n; k++) {
        if (a[(i + k) % 64] < 0) {
            out[i] = -s;
            return;
        }
        s += a[(i + k) % 64];
    }
    out[i] = s;
}

/* a boundary test guarding a store, x % p with p a power of two, a
 * uniform pow(2, k) */
kernel void guard(global const float *x, global float *y, int n, int k)
{
    int i = get_global_id(0);
    int p = (int)pown(2.0f, k);
    float s = pow(2.0f, (float)k);
    if (i % p != 1 && i < n)
        y[i] = x[i] * s + (float)(i % p);
}

/* math builtins in a vectorised loop and on vectors */
kernel void vmath(global const float *x, global float *y, global const double4 *d, global double4 *e)
{
    int i = get_global_id(0);
    float v = x[i];
    y[i] = exp(v) + log(v + 2.0f) + sin(v) + cos(v) + pow(v + 1.0f, 1.5f) + sqrt(v + 1.0f);
    e[i] = exp(d[i]) + log(d[i] + 2.0) + sin(d[i]);
}

/* atomics in a uniform loop */
kernel void atom(global int *count, global int *out, int n)
{
    int i = get_global_id(0);
    for (int k = 0; k < n; k++)
        if ((i + k) % 3 == 0)
            atomic_inc(&count[k & 3]);
    out[i] = atomic_add(&count[4], 1) >= 0;
}

/* a uniform loop in a kernel with a real barrier and local memory */
kernel void tiles(global const float *in, global float *out, local float *t, int reps)
{
    int l = get_local_id(0), n = get_local_size(0);
    float acc = 0;
    t[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < n; k++)
            acc += t[(l + k) % n] * (float)(r + 1);
    out[get_global_id(0)] = acc;
}

/* every integer atomic builtin sx-wgc inlines, signed and unsigned, 32 and 64 bits */
kernel void atoms(global int *s, global uint *u, global long *l, global int *olds)
{
    int i = get_global_id(0);
    atomic_sub(&s[0], i);
    atomic_dec(&s[1]);
    atomic_min(&s[2], 50 - i);
    atomic_max(&s[3], i - 50);
    atomic_and(&s[4], ~(1 << (i & 31)) | (i & 1));
    atomic_or(&s[5], 1 << (i & 15));
    atomic_xor(&s[6], i);
    olds[i] = atomic_xchg(&s[7], i);
    int old;
    do
        old = s[8];
    while (atomic_cmpxchg(&s[8], old, old + 2) != old);
    atomic_min(&u[0], (uint)i + 7u);
    atomic_max(&u[1], 0xfffffff0u + (uint)(i & 7));
    atom_add(&l[0], (long)i << 33);
    atom_inc(&l[1]);
    atom_max(&l[2], -(long)i);
}

/* a loop starting at the work-item with a uniform bound, a uniform loop
   inside it and a guard (PolyBench's covariance, corr_kernel's j1 + 1):
   sx-wgc --uniformize-loops runs it from the group's smallest start with
   its body predicated */
kernel void covtri(global float *sym, global const float *d, int m, int n, int off)
{
    int j1 = get_global_id(0);
    if (j1 < m) {
        for (int j2 = j1 + off; j2 < m; j2++) {
            sym[j1 * m + j2] = 0.0f;
            for (int i = 0; i < n; i++)
                sym[j1 * m + j2] += d[i * m + j1] * d[i * m + j2];
            sym[j2 * m + j1] = sym[j1 * m + j2];
        }
    }
}

/* the same from the local id, to an inclusive bound, the inner loop
   reading only from a uniform address (unguarded under
   --uniformize-loops) and dividing by a uniform value */
kernel void covtri2(global int *out, global const int *d, int m, int n)
{
    int l = get_local_id(0), g = get_global_id(0);
    for (int j = l; j <= m; j++) {
        int s = 0;
        for (int i = 0; i < n; i++)
            s += d[i * (m + 1) + j] / (i + 1);
        out[g * (m + 1) + j] = s + l;
    }
}
