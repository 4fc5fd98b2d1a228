/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* groups.cl: the sub-group and work-group functions of the fiber path
 * (groups.c says how), one overload each under clang's own mangled name:
 * cl_khr_subgroups (queries, barrier, reduce, scan, broadcast, any, all),
 * cl_khr_subgroup_non_uniform_arithmetic / _vote / _ballot's names,
 * cl_intel_subgroups' shuffles, and OpenCL 2.0's work-group functions.
 * Compiled by clang-14 as OpenCL C for the host like builtins-gen.cl. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define OVL __attribute__((overloadable))

uint sxn_sg_query(int what);
void sxn_coll_wait(void);
const uchar *sxn_coll_enter(const void *v, uint size, int sub, size_t *me, size_t *start, size_t *len);

uint OVL get_sub_group_size(void) { return sxn_sg_query(0); }
uint OVL get_max_sub_group_size(void) { return sxn_sg_query(1); }
uint OVL get_num_sub_groups(void) { return sxn_sg_query(2); }
uint OVL get_enqueued_num_sub_groups(void) { return sxn_sg_query(2); }
uint OVL get_sub_group_id(void) { return sxn_sg_query(3); }
uint OVL get_sub_group_local_id(void) { return sxn_sg_query(4); }
void OVL sub_group_barrier(uint flags) { sxn_coll_wait(); }
void OVL sub_group_barrier(uint flags, memory_scope scope) { sxn_coll_wait(); }

#define SLOT 128
#define AT(T, i) (*(const T *)(a + (i) * SLOT))
#define ENTER(T, x, sub) size_t me, s, n; const uchar *a = sxn_coll_enter(&x, sizeof(T), sub, &me, &s, &n)
#define LEAVE sxn_coll_wait()

#define OP_add(x, y) ((x) + (y))
#define OP_mul(x, y) ((x) * (y))
#define OP_min(x, y) ((y) < (x) ? (y) : (x))
#define OP_max(x, y) ((y) > (x) ? (y) : (x))
#define OP_and(x, y) ((x) & (y))
#define OP_or(x, y) ((x) | (y))
#define OP_xor(x, y) ((x) ^ (y))
#define OP_logical_and(x, y) ((x) && (y))
#define OP_logical_or(x, y) ((x) || (y))
#define OP_logical_xor(x, y) (!(x) != !(y))

/* reduce, inclusive and exclusive scan of `op` over the sub-group (sub) or group */
#define RSE(T, pre, op, sub, id)                                                          \
    T OVL pre##reduce_##op(T x)                                                           \
    {                                                                                     \
        ENTER(T, x, sub);                                                                 \
        T r = AT(T, s);                                                                   \
        for (size_t i = 1; i < n; i++)                                                    \
            r = (T)OP_##op(r, AT(T, s + i));                                              \
        LEAVE;                                                                            \
        return r;                                                                         \
    }                                                                                     \
    T OVL pre##scan_inclusive_##op(T x)                                                   \
    {                                                                                     \
        ENTER(T, x, sub);                                                                 \
        T r = AT(T, s);                                                                   \
        for (size_t i = s + 1; i <= me; i++)                                              \
            r = (T)OP_##op(r, AT(T, i));                                                  \
        LEAVE;                                                                            \
        return r;                                                                         \
    }                                                                                     \
    T OVL pre##scan_exclusive_##op(T x)                                                   \
    {                                                                                     \
        ENTER(T, x, sub);                                                                 \
        T r = (T)(id);                                                                    \
        for (size_t i = s; i < me; i++)                                                   \
            r = (T)OP_##op(r, AT(T, i));                                                  \
        LEAVE;                                                                            \
        return r;                                                                         \
    }

#define ARITH(T, pre, sub, MIN, MAX) \
    RSE(T, pre, add, sub, 0) RSE(T, pre, min, sub, MAX) RSE(T, pre, max, sub, MIN)
#define ARITH_NU(T, MIN, MAX) ARITH(T, sub_group_non_uniform_, 1, MIN, MAX) RSE(T, sub_group_non_uniform_, mul, 1, 1)
#define BITS_NU(T) RSE(T, sub_group_non_uniform_, and, 1, ~(T)0) RSE(T, sub_group_non_uniform_, or, 1, 0) \
    RSE(T, sub_group_non_uniform_, xor, 1, 0)

/* broadcasts and shuffles */
#define MOVES(T)                                                                          \
    T OVL sub_group_broadcast(T x, uint c)                                                \
    {                                                                                     \
        ENTER(T, x, 1);                                                                   \
        T r = AT(T, s + (c < n ? c : 0));                                                 \
        LEAVE;                                                                            \
        return r;                                                                         \
    }                                                                                     \
    T OVL sub_group_non_uniform_broadcast(T x, uint c) { return sub_group_broadcast(x, c); } \
    T OVL sub_group_broadcast_first(T x) { return sub_group_broadcast(x, 0u); }           \
    T OVL sub_group_shuffle(T x, uint c)                                                  \
    {                                                                                     \
        ENTER(T, x, 1);                                                                   \
        T r = c < n ? AT(T, s + c) : (T)0;                                                \
        LEAVE;                                                                            \
        return r;                                                                         \
    }                                                                                     \
    T OVL intel_sub_group_shuffle(T x, uint c) { return sub_group_shuffle(x, c); }        \
    T OVL sub_group_shuffle_xor(T x, uint m) { return sub_group_shuffle(x, (uint)get_sub_group_local_id() ^ m); } \
    T OVL intel_sub_group_shuffle_xor(T x, uint m) { return sub_group_shuffle_xor(x, m); } \
    T OVL sub_group_shuffle_down(T x, uint d) { return sub_group_shuffle(x, (uint)get_sub_group_local_id() + d); } \
    T OVL sub_group_shuffle_up(T x, uint d)                                               \
    {                                                                                     \
        uint l = get_sub_group_local_id();                                                \
        return sub_group_shuffle(x, l >= d ? l - d : 0xffffffffu);                        \
    }                                                                                     \
    T OVL intel_sub_group_shuffle_down(T cur, T next, uint d)                             \
    {                                                                                     \
        uint l = get_sub_group_local_id(), c = l + d, S = get_max_sub_group_size();       \
        T a1 = sub_group_shuffle(cur, c < S ? c : 0u), a2 = sub_group_shuffle(next, c >= S ? c - S : 0u); \
        return c < S ? a1 : a2;                                                           \
    }                                                                                     \
    T OVL intel_sub_group_shuffle_up(T prev, T cur, uint d)                               \
    {                                                                                     \
        uint l = get_sub_group_local_id(), S = get_max_sub_group_size(), c = l + S - d;   \
        T a1 = sub_group_shuffle(prev, c < S ? c : 0u), a2 = sub_group_shuffle(cur, c >= S ? c - S : 0u); \
        return c < S ? a1 : a2;                                                           \
    }

#define WG_BCAST(T)                                                                       \
    T OVL work_group_broadcast(T x, size_t i)                                             \
    {                                                                                     \
        ENTER(T, x, 0);                                                                   \
        T r = AT(T, i < n ? i : 0);                                                       \
        LEAVE;                                                                            \
        return r;                                                                         \
    }                                                                                     \
    T OVL work_group_broadcast(T x, size_t i, size_t j)                                   \
    {                                                                                     \
        return work_group_broadcast(x, j * get_local_size(0) + i);                        \
    }                                                                                     \
    T OVL work_group_broadcast(T x, size_t i, size_t j, size_t k)                         \
    {                                                                                     \
        return work_group_broadcast(x, (k * get_local_size(1) + j) * get_local_size(0) + i); \
    }

size_t OVL get_local_size(uint d);

/* cl_khr_subgroup_clustered_reduce: over runs of `cs` work-items of the sub-group */
#define CLUSTER(T, op)                                                                    \
    T OVL sub_group_clustered_reduce_##op(T x, uint cs)                                   \
    {                                                                                     \
        ENTER(T, x, 1);                                                                   \
        size_t c = cs ? cs : 1, c0 = s + (me - s) / c * c;                                \
        T r = AT(T, c0);                                                                  \
        for (size_t i = c0 + 1; i < c0 + c && i < s + n; i++)                             \
            r = (T)OP_##op(r, AT(T, i));                                                  \
        LEAVE;                                                                            \
        return r;                                                                         \
    }
#define CLUSTERS(T) CLUSTER(T, add) CLUSTER(T, mul) CLUSTER(T, min) CLUSTER(T, max)
#define SCALAR_INT(T, MIN, MAX)                                                           \
    CLUSTERS(T) CLUSTER(T, and) CLUSTER(T, or) CLUSTER(T, xor)                            \
    ARITH(T, sub_group_, 1, MIN, MAX) ARITH(T, work_group_, 0, MIN, MAX) ARITH_NU(T, MIN, MAX) BITS_NU(T) \
    MOVES(T) WG_BCAST(T)
#define SCALAR_FP(T, INF)                                                                 \
    CLUSTERS(T) ARITH(T, sub_group_, 1, -INF, INF) ARITH(T, work_group_, 0, -INF, INF) ARITH_NU(T, -INF, INF) \
    MOVES(T) WG_BCAST(T)

SCALAR_INT(char, CHAR_MIN, CHAR_MAX)
SCALAR_INT(uchar, 0, UCHAR_MAX)
SCALAR_INT(short, SHRT_MIN, SHRT_MAX)
SCALAR_INT(ushort, 0, USHRT_MAX)
SCALAR_INT(int, INT_MIN, INT_MAX)
SCALAR_INT(uint, 0, UINT_MAX)
SCALAR_INT(long, LONG_MIN, LONG_MAX)
SCALAR_INT(ulong, 0, ULONG_MAX)
SCALAR_FP(float, INFINITY)
SCALAR_FP(double, (double)INFINITY)
SCALAR_FP(half, (half)INFINITY)

/* shuffles of vectors (cl_intel_subgroups) */
#define VEC(T) MOVES(T##2) MOVES(T##3) MOVES(T##4) MOVES(T##8) MOVES(T##16)
VEC(char) VEC(uchar) VEC(short) VEC(ushort) VEC(int) VEC(uint) VEC(long) VEC(ulong) VEC(float) VEC(double)

/* votes and ballots */
#define VOTES(pre, sub)                                                                   \
    int OVL pre##any(int p)                                                               \
    {                                                                                     \
        int x = p != 0;                                                                   \
        ENTER(int, x, sub);                                                               \
        int r = 0;                                                                        \
        for (size_t i = 0; i < n; i++)                                                    \
            r |= AT(int, s + i);                                                          \
        LEAVE;                                                                            \
        return r;                                                                         \
    }                                                                                     \
    int OVL pre##all(int p)                                                               \
    {                                                                                     \
        int x = p != 0;                                                                   \
        ENTER(int, x, sub);                                                               \
        int r = 1;                                                                        \
        for (size_t i = 0; i < n; i++)                                                    \
            r &= AT(int, s + i);                                                          \
        LEAVE;                                                                            \
        return r;                                                                         \
    }
VOTES(sub_group_, 1)
VOTES(work_group_, 0)
int OVL sub_group_non_uniform_any(int p) { return sub_group_any(p); }
int OVL sub_group_non_uniform_all(int p) { return sub_group_all(p); }
int OVL sub_group_elect(void) { return get_sub_group_local_id() == 0; }
uint4 OVL sub_group_ballot(int p)
{
    int x = p != 0;
    ENTER(int, x, 1);
    uint4 r = (uint4)(0u, 0u, 0u, 0u);
    for (size_t i = 0; i < n && i < 128; i++)
        if (AT(int, s + i))
            r[i / 32] |= 1u << (i % 32);
    LEAVE;
    return r;
}
