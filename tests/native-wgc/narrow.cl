/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* narrow.cl: kernels whose work-item loops sx-wgc narrows (issue 28): a
 * branch on the local id against a bound the whole group shares (`l < s`
 * in a tree reduction, `l == 0`, >=, >, <=, signed and unsigned, bounds
 * negative, zero, inside and past the group) splits the x loop into the
 * ids for which it holds and the rest; a loop whose every work-item does
 * the same runs once. narrow.sh runs them on native and on Intel's CPU
 * runtime and compares. All take (in, out, aux, n). */
#define MAXL 64

kernel void tree_ult(global const int *in, global int *out, global int *aux, int n)
{
    local int tmp[MAXL];
    size_t l = get_local_id(0), ls = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = ls / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] += tmp[l + s] * 3 + (int)s;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        out[get_group_id(0)] = tmp[0] + n;
    aux[get_global_id(0)] = tmp[l];
}

kernel void tree_int(global const int *in, global int *out, global int *aux, int n)
{
    local int tmp[MAXL];
    int l = get_local_id(0), ls = get_local_size(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = ls / 2; s > 0; s >>= 1) {
        if (l < s)
            tmp[l] = tmp[l] * 2 - tmp[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l != 0)
        out[get_global_id(0)] = tmp[l] - n;
    else
        out[get_global_id(0)] = tmp[0];
    aux[get_global_id(0)] = l;
}

/* bounds that move with a uniform loop: below, inside and past the group */
kernel void bounds(global const int *in, global int *out, global int *aux, int n)
{
    local int tmp[MAXL];
    int l = get_local_id(0), g = get_global_id(0), ls = get_local_size(0);
    tmp[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = 0;
    for (int k = -2; k < 70; k += 7 + (n & 3)) {
        if (l <= k - n)
            r += tmp[(l + 1) % ls];
        if (l > k)
            r ^= tmp[l] + k;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l >= k / 2)
            tmp[l] += r & 7;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[g] = r + tmp[l];
    aux[g] = tmp[(l + 5) % ls];
}

/* size_t bounds that wrap: n - 10 < 0 is a huge unsigned bound */
kernel void unsigned_wrap(global const int *in, global int *out, global int *aux, int n)
{
    local int tmp[MAXL];
    size_t l = get_local_id(0);
    tmp[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    size_t u = (size_t)(long)(n - 10);
    if (l < u)
        tmp[l] += 100;
    if (l > u)
        tmp[l] += 1000;
    if (l <= u)
        tmp[l] += 7;
    if (u >= l)
        tmp[l] += 30000;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = tmp[(l + 3) % get_local_size(0)];
    aux[get_global_id(0)] = (int)u;
}

/* a region whose every work-item does the same (stores the same value) */
kernel void uniform_work(global const int *in, global int *out, global int *aux, int n)
{
    local int tmp[MAXL];
    size_t l = get_local_id(0), grp = get_group_id(0);
    tmp[l] = in[get_global_id(0)] + n;
    barrier(CLK_LOCAL_MEM_FENCE);
    int s = tmp[0] + tmp[get_local_size(0) - 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    aux[grp] = s * 2;
    if (l == 0)
        out[grp] = s;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l != 0)
        out[get_num_groups(0) + get_global_id(0)] = s - (int)l;
}

/* two dimensions: the x loop narrows inside the y loop */
kernel void two_d(global const int *in, global int *out, global int *aux, int n)
{
    local int tmp[MAXL];
    size_t lx = get_local_id(0), ly = get_local_id(1), lsx = get_local_size(0);
    size_t i = ly * lsx + lx, g = get_global_id(1) * get_global_size(0) + get_global_id(0);
    tmp[i] = in[g] + (int)ly * n;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (size_t s = lsx / 2; s > 0; s >>= 1) {
        if (lx < s)
            tmp[i] += tmp[i + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lx == 0)
        out[get_global_id(1) * get_num_groups(0) + get_group_id(0)] = tmp[i];
    aux[g] = tmp[i];
}

/* an offset id against the bound, in a select (the wrap-around neighbour
 * of a ring) and in branches: l + 1 == n, l - 1 (signed), l + 2 < s */
kernel void neighbours(global const int *in, global int *out, global int *aux, int n)
{
    local int tmp[MAXL];
    size_t l = get_local_id(0), ls = get_local_size(0), g = get_global_id(0);
    int il = get_local_id(0);
    tmp[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    int v = tmp[l + 1 == ls ? 0 : l + 1] * 2 + tmp[l];
    if (il - 1 >= n - 3)
        v += tmp[il - 1 < 0 ? 0 : il - 1];
    if (l + 2 < (size_t)(n + 8))
        v ^= 0x55;
    barrier(CLK_LOCAL_MEM_FENCE);
    tmp[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tmp[(l + ls - 1) % ls] - v;
    aux[g] = v;
}

/* one id picked by a bound the group shares: == and != at any point,
 * inside, at the ends of and outside the group */
kernel void points(global const int *in, global int *out, global int *aux, int n)
{
    local int tmp[MAXL];
    int l = get_local_id(0), g = get_global_id(0);
    tmp[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    int r = 0;
    for (int k = n - 3; k < n + 40; k += 5) {
        if (l == k)
            r += tmp[0] + k;
        if (l + 1 != k)
            r ^= tmp[l] & 0xff;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[g] = r;
    aux[g] = tmp[l];
}
