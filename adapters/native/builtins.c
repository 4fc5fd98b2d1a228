/* builtins.c: the OpenCL C builtins host-compiled kernels import by their
 * mangled names (sx-native-builtins.so). The native adapter loads this
 * module once with RTLD_GLOBAL before the first program, so every program
 * resolves get_global_id, barrier, the atomics and the math against it,
 * and hands each work-item's state over through the thread-local `cur`. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wi.h"

/* The module is built with -fvisibility=hidden; these are its interface. */
#define BI __attribute__((visibility("default")))
/* Define a C function under a mangled OpenCL name. */
#define DECL(ret, cname, mangled, params) \
    BI ret cname params __asm__(mangled); \
    BI ret cname params

#define SC __ATOMIC_SEQ_CST

/* initial-exec: the builtins read it on every call, and 8 bytes fit the
 * static TLS that glibc keeps spare for dlopen'd modules. */
static __thread sxn_item *cur __attribute__((tls_model("initial-exec")));

BI extern const uint32_t sxn_builtins_abi;
BI const uint32_t sxn_builtins_abi = SXN_BUILTINS_ABI;
BI void sxn_builtins_set_item(sxn_item *item);
BI void sxn_builtins_set_item(sxn_item *item) { cur = item; }
BI sxn_item *sxn_builtins_get_item(void);
BI sxn_item *sxn_builtins_get_item(void) { return cur; }

/* ------------------------------------------------------------ work-items */

#define WI(cname, mangled, expr, dflt)            \
    DECL(size_t, cname, mangled, (uint32_t d))    \
    {                                             \
        const sxn_item *it = cur;                 \
        return d < 3 ? (expr) : (dflt);           \
    }
WI(bi_get_global_id, "_Z13get_global_idj", it->group_base[d] + it->local_id[d], 0)
WI(bi_get_local_id, "_Z12get_local_idj", it->local_id[d], 0)
WI(bi_get_group_id, "_Z12get_group_idj", it->group_id[d], 0)
WI(bi_get_global_size, "_Z15get_global_sizej", it->geo->global_size[d], 1)
WI(bi_get_local_size, "_Z14get_local_sizej", it->geo->local_size[d], 1)
WI(bi_get_enqueued_local_size, "_Z23get_enqueued_local_sizej", it->geo->local_size[d], 1)
WI(bi_get_num_groups, "_Z14get_num_groupsj", it->geo->num_groups[d], 1)
WI(bi_get_global_offset, "_Z17get_global_offsetj", it->geo->global_offset[d], 0)

DECL(uint32_t, bi_get_work_dim, "_Z12get_work_dimv", (void)) { return cur->geo->work_dim; }

DECL(size_t, bi_get_global_linear_id, "_Z20get_global_linear_idv", (void))
{
    const sxn_item *it = cur;
    const sxn_geometry *g = it->geo;
    size_t id[3];
    for (int d = 0; d < 3; d++)
        id[d] = it->group_base[d] + it->local_id[d] - g->global_offset[d];
    return (id[2] * g->global_size[1] + id[1]) * g->global_size[0] + id[0];
}

DECL(size_t, bi_get_local_linear_id, "_Z19get_local_linear_idv", (void))
{
    const sxn_item *it = cur;
    const sxn_geometry *g = it->geo;
    return (it->local_id[2] * g->local_size[1] + it->local_id[1]) * g->local_size[0] +
           it->local_id[0];
}

/* ------------------------------------------------------- barriers, fences */

/* A barrier hands control to the adapter's fiber scheduler, which runs the
 * other work-items of the group up to the same barrier before resuming.
 * A work-group runs on one thread, so ordering its memory needs no fence
 * instruction, only that the compiler keep loads and stores in place. */
static void barrier_impl(void)
{
    sxn_item *it = cur;
    __asm__ volatile("" ::: "memory");
    if (it && it->yield)
        it->yield(it);
    __asm__ volatile("" ::: "memory");
}
DECL(void, bi_barrier, "_Z7barrierj", (uint32_t flags)) { barrier_impl(); }
DECL(void, bi_wg_barrier, "_Z18work_group_barrierj", (uint32_t flags)) { barrier_impl(); }
DECL(void, bi_wg_barrier_scope, "_Z18work_group_barrierj12memory_scope", (uint32_t flags, int scope))
{
    barrier_impl();
}
DECL(void, bi_mem_fence, "_Z9mem_fencej", (uint32_t flags)) { __atomic_thread_fence(SC); }
DECL(void, bi_read_mem_fence, "_Z14read_mem_fencej", (uint32_t flags)) { __atomic_thread_fence(SC); }
DECL(void, bi_write_mem_fence, "_Z15write_mem_fencej", (uint32_t flags)) { __atomic_thread_fence(SC); }
DECL(void, bi_atomic_wi_fence, "_Z22atomic_work_item_fencej12memory_order12memory_scope",
     (uint32_t flags, int order, int scope))
{
    __atomic_thread_fence(SC);
}

/* ------------------------------------------------ OpenCL 1.x atomics */

#define OP_add(p, v) __atomic_fetch_add((p), (v), SC)
#define OP_sub(p, v) __atomic_fetch_sub((p), (v), SC)
#define OP_xchg(p, v) __atomic_exchange_n((p), (v), SC)
#define OP_and(p, v) __atomic_fetch_and((p), (v), SC)
#define OP_or(p, v) __atomic_fetch_or((p), (v), SC)
#define OP_xor(p, v) __atomic_fetch_xor((p), (v), SC)
#define OP_minmax(p, v, cmp)                                                    \
    ({                                                                          \
        __typeof__(v) o_ = __atomic_load_n((p), SC);                            \
        while ((v cmp o_) && !__atomic_compare_exchange_n((p), &o_, (v), 1, SC, SC)) \
            ;                                                                   \
        o_;                                                                     \
    })
#define OP_min(p, v) OP_minmax(p, v, <)
#define OP_max(p, v) OP_minmax(p, v, >)

#define AS_G "U8CLglobal"
#define AS_L "U7CLlocal"
#define AS_GEN "U9CLgeneric"

#define ATOMIC_BIN(len, pre, op, as, asn, T, tc)                                      \
    DECL(T, bi_##pre##op##_##asn##tc, "_Z" #len #pre #op "P" as "V" #tc #tc,        \
         (volatile T *p, T v))                                                       \
    {                                                                               \
        return OP_##op(p, v);                                                       \
    }
#define ATOMIC_UN(len, pre, op, delta, as, asn, T, tc)                               \
    DECL(T, bi_##pre##op##_##asn##tc, "_Z" #len #pre #op "P" as "V" #tc, (volatile T *p)) \
    {                                                                               \
        return __atomic_fetch_add(p, (T)(delta), SC);                               \
    }
#define ATOMIC_CMPXCHG(len, pre, as, asn, T, tc)                                     \
    DECL(T, bi_##pre##cmpxchg_##asn##tc, "_Z" #len #pre "cmpxchgP" as "V" #tc #tc #tc, \
         (volatile T *p, T cmp, T v))                                                \
    {                                                                               \
        T e = cmp;                                                                  \
        __atomic_compare_exchange_n(p, &e, v, 0, SC, SC);                           \
        return e;                                                                   \
    }

/* atomic_* (OpenCL 1.1) */
#define ATOMIC_FAMILY(as, asn, T, tc)                                               \
    ATOMIC_BIN(10, atomic_, add, as, asn, T, tc)                                    \
    ATOMIC_BIN(10, atomic_, sub, as, asn, T, tc)                                    \
    ATOMIC_BIN(11, atomic_, xchg, as, asn, T, tc)                                   \
    ATOMIC_BIN(10, atomic_, min, as, asn, T, tc)                                    \
    ATOMIC_BIN(10, atomic_, max, as, asn, T, tc)                                    \
    ATOMIC_BIN(10, atomic_, and, as, asn, T, tc)                                    \
    ATOMIC_BIN(9, atomic_, or, as, asn, T, tc)                                      \
    ATOMIC_BIN(10, atomic_, xor, as, asn, T, tc)                                    \
    ATOMIC_UN(10, atomic_, inc, 1, as, asn, T, tc)                                  \
    ATOMIC_UN(10, atomic_, dec, -1, as, asn, T, tc)                                 \
    ATOMIC_CMPXCHG(14, atomic_, as, asn, T, tc)
/* atom_* (cl_khr_*_atomics, 32 and 64 bits) */
#define ATOM_FAMILY(as, asn, T, tc)                                                 \
    ATOMIC_BIN(8, atom_, add, as, asn, T, tc)                                       \
    ATOMIC_BIN(8, atom_, sub, as, asn, T, tc)                                       \
    ATOMIC_BIN(9, atom_, xchg, as, asn, T, tc)                                      \
    ATOMIC_BIN(8, atom_, min, as, asn, T, tc)                                       \
    ATOMIC_BIN(8, atom_, max, as, asn, T, tc)                                       \
    ATOMIC_BIN(8, atom_, and, as, asn, T, tc)                                       \
    ATOMIC_BIN(7, atom_, or, as, asn, T, tc)                                        \
    ATOMIC_BIN(8, atom_, xor, as, asn, T, tc)                                       \
    ATOMIC_UN(8, atom_, inc, 1, as, asn, T, tc)                                     \
    ATOMIC_UN(8, atom_, dec, -1, as, asn, T, tc)                                    \
    ATOMIC_CMPXCHG(12, atom_, as, asn, T, tc)

ATOMIC_FAMILY(AS_G, g, int32_t, i)
ATOMIC_FAMILY(AS_G, g, uint32_t, j)
ATOMIC_FAMILY(AS_L, l, int32_t, i)
ATOMIC_FAMILY(AS_L, l, uint32_t, j)
ATOM_FAMILY(AS_G, g, int32_t, i)
ATOM_FAMILY(AS_G, g, uint32_t, j)
ATOM_FAMILY(AS_L, l, int32_t, i)
ATOM_FAMILY(AS_L, l, uint32_t, j)
ATOM_FAMILY(AS_G, g, int64_t, l)
ATOM_FAMILY(AS_G, g, uint64_t, m)
ATOM_FAMILY(AS_L, l, int64_t, l)
ATOM_FAMILY(AS_L, l, uint64_t, m)

/* atomic_xchg of a float */
#define FLOAT_XCHG(as, asn)                                                          \
    DECL(float, bi_atomic_xchg_##asn##f, "_Z11atomic_xchgP" as "Vff", (volatile float *p, float v)) \
    {                                                                               \
        float r;                                                                    \
        __atomic_exchange(p, &v, &r, SC);                                           \
        return r;                                                                   \
    }
FLOAT_XCHG(AS_G, g)
FLOAT_XCHG(AS_L, l)

/* ------------------------------------------- OpenCL 2.0 C11-style atomics */

/* In OpenCL C 2.0 these take generic pointers only. Orders and scopes are
 * enums (ints); everything here is sequentially consistent, which is a
 * valid implementation of any weaker order. */
#define C11_PRE "PU9CLgenericVU7_Atomic"
#define MO "12memory_order"
#define MS "12memory_scope"

#define C11_ANY(T, tc)                                                              \
    DECL(void, bi_atomic_init_##tc, "_Z11atomic_init" C11_PRE #tc #tc, (volatile T *p, T v)) \
    {                                                                               \
        __atomic_store(p, &v, __ATOMIC_RELAXED);                                    \
    }                                                                               \
    DECL(void, bi_atomic_store_##tc, "_Z12atomic_store" C11_PRE #tc #tc, (volatile T *p, T v)) \
    {                                                                               \
        __atomic_store(p, &v, SC);                                                  \
    }                                                                               \
    DECL(void, bi_atomic_store_o_##tc, "_Z21atomic_store_explicit" C11_PRE #tc #tc MO, \
         (volatile T *p, T v, int o))                                                \
    {                                                                               \
        __atomic_store(p, &v, SC);                                                  \
    }                                                                               \
    DECL(void, bi_atomic_store_os_##tc, "_Z21atomic_store_explicit" C11_PRE #tc #tc MO MS, \
         (volatile T *p, T v, int o, int s))                                         \
    {                                                                               \
        __atomic_store(p, &v, SC);                                                  \
    }                                                                               \
    DECL(T, bi_atomic_load_##tc, "_Z11atomic_load" C11_PRE #tc, (volatile T *p))      \
    {                                                                               \
        T r;                                                                        \
        __atomic_load(p, &r, SC);                                                   \
        return r;                                                                   \
    }                                                                               \
    DECL(T, bi_atomic_load_o_##tc, "_Z20atomic_load_explicit" C11_PRE #tc MO,          \
         (volatile T *p, int o))                                                     \
    {                                                                               \
        T r;                                                                        \
        __atomic_load(p, &r, SC);                                                   \
        return r;                                                                   \
    }                                                                               \
    DECL(T, bi_atomic_load_os_##tc, "_Z20atomic_load_explicit" C11_PRE #tc MO MS,      \
         (volatile T *p, int o, int s))                                              \
    {                                                                               \
        T r;                                                                        \
        __atomic_load(p, &r, SC);                                                   \
        return r;                                                                   \
    }                                                                               \
    DECL(T, bi_atomic_exchange_##tc, "_Z15atomic_exchange" C11_PRE #tc #tc, (volatile T *p, T v)) \
    {                                                                               \
        T r;                                                                        \
        __atomic_exchange(p, &v, &r, SC);                                           \
        return r;                                                                   \
    }                                                                               \
    DECL(T, bi_atomic_exchange_o_##tc, "_Z24atomic_exchange_explicit" C11_PRE #tc #tc MO, \
         (volatile T *p, T v, int o))                                                \
    {                                                                               \
        T r;                                                                        \
        __atomic_exchange(p, &v, &r, SC);                                           \
        return r;                                                                   \
    }                                                                               \
    DECL(T, bi_atomic_exchange_os_##tc, "_Z24atomic_exchange_explicit" C11_PRE #tc #tc MO MS, \
         (volatile T *p, T v, int o, int s))                                         \
    {                                                                               \
        T r;                                                                        \
        __atomic_exchange(p, &v, &r, SC);                                           \
        return r;                                                                   \
    }                                                                               \
    C11_CAS(30, strong, p, "", 0, T, tc, (volatile T *p, T *e, T v))                \
    C11_CAS(28, weak, p, "", 1, T, tc, (volatile T *p, T *e, T v))                  \
    C11_CAS(39, strong_explicit, o, MO "S4_", 0, T, tc,                             \
            (volatile T *p, T *e, T v, int s, int f))                                \
    C11_CAS(37, weak_explicit, o, MO "S4_", 1, T, tc,                               \
            (volatile T *p, T *e, T v, int s, int f))                                \
    C11_CAS(39, strong_explicit, os, MO "S4_" MS, 0, T, tc,                         \
            (volatile T *p, T *e, T v, int s, int f, int sc))                        \
    C11_CAS(37, weak_explicit, os, MO "S4_" MS, 1, T, tc,                           \
            (volatile T *p, T *e, T v, int s, int f, int sc))

#define C11_CAS(len, what, tag, suffix, weak, T, tc, params)                         \
    DECL(bool, bi_atomic_cas_##what##_##tag##_##tc,                                  \
         "_Z" #len "atomic_compare_exchange_" #what C11_PRE #tc "P" AS_GEN #tc #tc suffix, params) \
    {                                                                               \
        return __atomic_compare_exchange(p, e, &v, weak, SC, SC);                   \
    }

/* fetch-and-modify, integers only */
#define C11_FETCH(len, lenx, op, T, tc)                                             \
    DECL(T, bi_atomic_fetch_##op##_##tc, "_Z" #len "atomic_fetch_" #op C11_PRE #tc #tc, \
         (volatile T *p, T v))                                                       \
    {                                                                               \
        return OP_##op(p, v);                                                       \
    }                                                                               \
    DECL(T, bi_atomic_fetch_##op##_o_##tc,                                          \
         "_Z" #lenx "atomic_fetch_" #op "_explicit" C11_PRE #tc #tc MO, (volatile T *p, T v, int o)) \
    {                                                                               \
        return OP_##op(p, v);                                                       \
    }                                                                               \
    DECL(T, bi_atomic_fetch_##op##_os_##tc,                                         \
         "_Z" #lenx "atomic_fetch_" #op "_explicit" C11_PRE #tc #tc MO MS,           \
         (volatile T *p, T v, int o, int s))                                         \
    {                                                                               \
        return OP_##op(p, v);                                                       \
    }
#define C11_INT(T, tc)                                                              \
    C11_ANY(T, tc)                                                                  \
    C11_FETCH(16, 25, add, T, tc)                                                   \
    C11_FETCH(16, 25, sub, T, tc)                                                   \
    C11_FETCH(15, 24, or, T, tc)                                                    \
    C11_FETCH(16, 25, xor, T, tc)                                                   \
    C11_FETCH(16, 25, and, T, tc)                                                   \
    C11_FETCH(16, 25, min, T, tc)                                                   \
    C11_FETCH(16, 25, max, T, tc)

C11_INT(int32_t, i)
C11_INT(uint32_t, j)
C11_INT(int64_t, l)
C11_INT(uint64_t, m)
C11_ANY(float, f)
C11_ANY(double, d)

/* ------------------------------------------------------------------ math */

/* float (f) and double (d) forms of libm functions; "native_" and "half_"
 * variants of the float ones map to the same full-precision code. */
static float smooth_f(float e0, float e1, float x)
{
    float t = fminf(fmaxf((x - e0) / (e1 - e0), 0.0f), 1.0f);
    return t * t * (3.0f - 2.0f * t);
}
static double smooth_d(double e0, double e1, double x)
{
    double t = fmin(fmax((x - e0) / (e1 - e0), 0.0), 1.0);
    return t * t * (3.0 - 2.0 * t);
}

#define M1(len, name, cf, cd)                                                       \
    DECL(float, bi_##name##_f, "_Z" #len #name "f", (float x)) { return cf; }        \
    DECL(double, bi_##name##_d, "_Z" #len #name "d", (double x)) { return cd; }
#define M2(len, name, cf, cd)                                                       \
    DECL(float, bi_##name##_f, "_Z" #len #name "ff", (float x, float y)) { return cf; } \
    DECL(double, bi_##name##_d, "_Z" #len #name "dd", (double x, double y)) { return cd; }
#define M3(len, name, cf, cd)                                                       \
    DECL(float, bi_##name##_f, "_Z" #len #name "fff", (float x, float y, float z)) { return cf; } \
    DECL(double, bi_##name##_d, "_Z" #len #name "ddd", (double x, double y, double z)) { return cd; }
#define N1(len, name, cf)                                                           \
    DECL(float, bi_##name##_f, "_Z" #len #name "f", (float x)) { return cf; }
#define N2(len, name, cf)                                                           \
    DECL(float, bi_##name##_f, "_Z" #len #name "ff", (float x, float y)) { return cf; }

M1(4, sqrt, sqrtf(x), sqrt(x))
M1(4, fabs, fabsf(x), fabs(x))
M1(5, floor, floorf(x), floor(x))
M1(4, ceil, ceilf(x), ceil(x))
M1(5, round, roundf(x), round(x))
M1(5, trunc, truncf(x), trunc(x))
M1(4, rint, rintf(x), rint(x))
M1(3, exp, expf(x), exp(x))
M1(4, exp2, exp2f(x), exp2(x))
M1(5, exp10, powf(10.0f, x), pow(10.0, x))
M1(3, log, logf(x), log(x))
M1(4, log2, log2f(x), log2(x))
M1(5, log10, log10f(x), log10(x))
M1(3, sin, sinf(x), sin(x))
M1(3, cos, cosf(x), cos(x))
M1(3, tan, tanf(x), tan(x))
M1(4, asin, asinf(x), asin(x))
M1(4, acos, acosf(x), acos(x))
M1(4, atan, atanf(x), atan(x))
M1(4, sinh, sinhf(x), sinh(x))
M1(4, cosh, coshf(x), cosh(x))
M1(4, tanh, tanhf(x), tanh(x))
M1(4, cbrt, cbrtf(x), cbrt(x))
M1(5, rsqrt, 1.0f / sqrtf(x), 1.0 / sqrt(x))
M1(7, degrees, x * (float)(180.0 / M_PI), x * (180.0 / M_PI))
M1(7, radians, x * (float)(M_PI / 180.0), x * (M_PI / 180.0))
M1(4, sign, x > 0 ? 1.0f : x < 0 ? -1.0f : x == x ? 0.0f * x : 0.0f,
   x > 0 ? 1.0 : x < 0 ? -1.0 : x == x ? 0.0 * x : 0.0)
M2(4, fmin, fminf(x, y), fmin(x, y))
M2(4, fmax, fmaxf(x, y), fmax(x, y))
M2(3, min, y < x ? y : x, y < x ? y : x)
M2(3, max, x < y ? y : x, x < y ? y : x)
M2(3, pow, powf(x, y), pow(x, y))
M2(4, powr, powf(x, y), pow(x, y))
M2(4, fmod, fmodf(x, y), fmod(x, y))
M2(5, atan2, atan2f(x, y), atan2(x, y))
M2(5, hypot, hypotf(x, y), hypot(x, y))
M2(8, copysign, copysignf(x, y), copysign(x, y))
M2(4, fdim, fdimf(x, y), fdim(x, y))
M2(4, step, y < x ? 0.0f : 1.0f, y < x ? 0.0 : 1.0)
M3(3, fma, fmaf(x, y, z), fma(x, y, z))
M3(3, mad, x * y + z, x * y + z)
M3(3, mix, x + (y - x) * z, x + (y - x) * z)
M3(10, smoothstep, smooth_f(x, y, z), smooth_d(x, y, z))
M3(5, clamp, fminf(fmaxf(x, y), z), fmin(fmax(x, y), z))
N1(11, native_sqrt, sqrtf(x))
N1(11, native_rsqrt, 1.0f / sqrtf(x))
N1(10, native_exp, expf(x))
N1(11, native_exp2, exp2f(x))
N1(10, native_log, logf(x))
N1(11, native_log2, log2f(x))
N1(10, native_sin, sinf(x))
N1(10, native_cos, cosf(x))
N1(10, native_tan, tanf(x))
N1(12, native_recip, 1.0f / x)
N1(9, half_sqrt, sqrtf(x))
N1(9, half_rsqrt, 1.0f / sqrtf(x))
N2(13, native_divide, x / y)
N2(11, native_powr, powf(x, y))
DECL(float, bi_pown_f, "_Z4pownfi", (float x, int n)) { return powf(x, (float)n); }
DECL(double, bi_pown_d, "_Z4powndi", (double x, int n)) { return pow(x, (double)n); }

/* Relational functions answer int (1/0) for scalars. */
#define R1(len, name, expr)                                                         \
    DECL(int, bi_##name##_f, "_Z" #len #name "f", (float x)) { return (expr) ? 1 : 0; } \
    DECL(int, bi_##name##_d, "_Z" #len #name "d", (double x)) { return (expr) ? 1 : 0; }
R1(5, isnan, isnan(x))
R1(5, isinf, isinf(x))
R1(8, isfinite, isfinite(x))

/* ---------------------------------------------------------------- integer */

#define I2(len, name, T, tc, expr) \
    DECL(T, bi_##name##_##tc, "_Z" #len #name #tc #tc, (T x, T y)) { return expr; }
#define INTS(T, U, tc, absexpr)                                                     \
    I2(3, min, T, tc, y < x ? y : x)                                                \
    I2(3, max, T, tc, x < y ? y : x)                                                \
    DECL(T, bi_clamp_##tc, "_Z5clamp" #tc #tc #tc, (T x, T lo, T hi))               \
    {                                                                               \
        return x < lo ? lo : hi < x ? hi : x;                                       \
    }                                                                               \
    DECL(U, bi_abs_##tc, "_Z3abs" #tc, (T x)) { return absexpr; }
INTS(int32_t, uint32_t, i, x < 0 ? (uint32_t)0 - (uint32_t)x : (uint32_t)x)
INTS(uint32_t, uint32_t, j, x)
INTS(int64_t, uint64_t, l, x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x)
INTS(uint64_t, uint64_t, m, x)
DECL(int32_t, bi_mul24_i, "_Z5mul24ii", (int32_t x, int32_t y)) { return x * y; }
DECL(uint32_t, bi_mul24_j, "_Z5mul24jj", (uint32_t x, uint32_t y)) { return x * y; }
DECL(int32_t, bi_mad24_i, "_Z5mad24iii", (int32_t x, int32_t y, int32_t z)) { return x * y + z; }
DECL(uint32_t, bi_mad24_j, "_Z5mad24jjj", (uint32_t x, uint32_t y, uint32_t z)) { return x * y + z; }

/* ------------------------------------------------------------ conversions */

/* convert_<to>(<from>) without saturation: plain C conversions (floats to
 * integers truncate toward zero, the OpenCL default). */
#define CONV(len, to, T, from, F, fc) \
    DECL(T, bi_convert_##to##_##fc, "_Z" #len "convert_" #to #fc, (F x)) { return (T)x; }
#define CONV_FROM(len, to, T)                                                       \
    CONV(len, to, T, int, int32_t, i)                                               \
    CONV(len, to, T, uint, uint32_t, j)                                             \
    CONV(len, to, T, long, int64_t, l)                                              \
    CONV(len, to, T, ulong, uint64_t, m)                                            \
    CONV(len, to, T, float, float, f)                                               \
    CONV(len, to, T, double, double, d)
CONV_FROM(11, int, int32_t)
CONV_FROM(12, uint, uint32_t)
CONV_FROM(12, long, int64_t)
CONV_FROM(13, ulong, uint64_t)
CONV_FROM(13, float, float)
CONV_FROM(14, double, double)

/* ---------------------------------------------------------- geometric */

/* floatN are clang ext vectors, passed like GCC vectors of the same size
 * (float3 occupies 16 bytes). Only float: double3/4 go in memory. */
typedef float f2 __attribute__((vector_size(8)));
typedef float f4 __attribute__((vector_size(16)));

static float dot_n(f4 a, f4 b, int n)
{
    float s = 0;
    for (int i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

#define GEO(n, vt, load)                                                            \
    DECL(float, bi_dot_##n, "_Z3dotDv" #n "_fS_", (vt a, vt b))                     \
    {                                                                               \
        f4 x = load(a), y = load(b);                                                \
        return dot_n(x, y, n);                                                      \
    }                                                                               \
    DECL(float, bi_length_##n, "_Z6lengthDv" #n "_f", (vt a))                       \
    {                                                                               \
        f4 x = load(a);                                                             \
        return sqrtf(dot_n(x, x, n));                                               \
    }                                                                               \
    DECL(float, bi_distance_##n, "_Z8distanceDv" #n "_fS_", (vt a, vt b))           \
    {                                                                               \
        f4 x = load(a) - load(b);                                                   \
        return sqrtf(dot_n(x, x, n));                                               \
    }                                                                               \
    DECL(vt, bi_normalize_##n, "_Z9normalizeDv" #n "_f", (vt a))                    \
    {                                                                               \
        f4 x = load(a);                                                             \
        float l = sqrtf(dot_n(x, x, n));                                            \
        return l > 0 ? a / l : a;                                                   \
    }
static f4 load2(f2 a) { return (f4){a[0], a[1], 0, 0}; }
static f4 load4(f4 a) { return a; }
#define load3 load4
GEO(2, f2, load2)
GEO(3, f4, load3)
GEO(4, f4, load4)

DECL(f4, bi_cross_3, "_Z5crossDv3_fS_", (f4 a, f4 b))
{
    return (f4){a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0], 0};
}
DECL(f4, bi_cross_4, "_Z5crossDv4_fS_", (f4 a, f4 b))
{
    return (f4){a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0], 0};
}
