/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* native-atomics.cl: OpenCL 1.x and 2.0 atomics on global and local memory. */
kernel void count(global int *c, global uint *u, global long *l, local int *lc)
{
    if (get_local_id(0) == 0)
        *lc = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&c[0]);
    atomic_add(&c[1], 2);
    atomic_sub(&c[2], 1);
    atomic_max(&c[3], (int)get_global_id(0));
    atomic_min(&c[4], (int)get_global_id(0));
    atomic_or(&c[5], 1 << (get_global_id(0) % 31));
    atomic_xor(&c[6], 1);
    atomic_and(&c[7], ~(1 << (get_global_id(0) % 8)));
    atomic_cmpxchg(&c[8], 0, (int)get_global_id(0) + 1);
    atomic_dec(&c[9]);
    atomic_xchg(&c[10], 7);
    atomic_add(&u[0], 3u);
    atomic_max(&u[1], (uint)get_global_id(0));
    atom_add(&l[0], 1L << 33);
    atom_inc(&l[1]);
    atomic_fetch_add((volatile atomic_int *)&c[11], 1);
    atomic_fetch_add_explicit((volatile atomic_int *)&c[12], 2, memory_order_relaxed, memory_scope_device);
    atomic_inc(lc);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        atomic_add(&c[13], *lc);
}
