/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* rt.cl: the PTX variant's share of the OpenCL C builtins that
 * builtins-gen.cl (the native device's library, compiled for nvptx64 with
 * the SPIR address-space map) leaves to its C runtime: work-item queries on
 * the PTX special registers, barriers and fences, async copies, and the
 * scalar math (sxm_*) on libdevice's __nv_* functions, which sx-ptx links
 * from CUDA's nvvm/libdevice. Compiled by clang-14 like builtins-gen.cl. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_fp16 : enable

#define OVL __attribute__((overloadable))
#define AI static inline __attribute__((always_inline))

/* ----------------------------------------------------------- work-items */
/* (the registers are unsigned: zero-extended, as nvcc's size_t indices) */
AI size_t tid(uint d) { return d == 0 ? (uint)__nvvm_read_ptx_sreg_tid_x() : d == 1 ? (uint)__nvvm_read_ptx_sreg_tid_y() : d == 2 ? (uint)__nvvm_read_ptx_sreg_tid_z() : 0; }
AI size_t ntid(uint d) { return d == 0 ? (uint)__nvvm_read_ptx_sreg_ntid_x() : d == 1 ? (uint)__nvvm_read_ptx_sreg_ntid_y() : d == 2 ? (uint)__nvvm_read_ptx_sreg_ntid_z() : 1; }
AI size_t ctaid(uint d) { return d == 0 ? (uint)__nvvm_read_ptx_sreg_ctaid_x() : d == 1 ? (uint)__nvvm_read_ptx_sreg_ctaid_y() : d == 2 ? (uint)__nvvm_read_ptx_sreg_ctaid_z() : 0; }
AI size_t nctaid(uint d) { return d == 0 ? (uint)__nvvm_read_ptx_sreg_nctaid_x() : d == 1 ? (uint)__nvvm_read_ptx_sreg_nctaid_y() : d == 2 ? (uint)__nvvm_read_ptx_sreg_nctaid_z() : 1; }

size_t OVL get_local_id(uint d) { return tid(d); }
size_t OVL get_local_size(uint d) { return ntid(d); }
size_t OVL get_enqueued_local_size(uint d) { return ntid(d); }
size_t OVL get_group_id(uint d) { return ctaid(d); }
size_t OVL get_num_groups(uint d) { return nctaid(d); }
/* CUDA launches have no global offset (the adapter refuses one). */
size_t OVL get_global_offset(uint d) { return 0; }
size_t OVL get_global_id(uint d) { return ctaid(d) * ntid(d) + tid(d); }
size_t OVL get_global_size(uint d) { return nctaid(d) * ntid(d); }
/* CUDA keeps no work dimension: the highest dimension with more than one
 * work-item (an nd_range of extent 1 there reads as fewer dimensions). */
uint OVL get_work_dim(void)
{
    return nctaid(2) * ntid(2) > 1 ? 3 : nctaid(1) * ntid(1) > 1 ? 2 : 1;
}
size_t OVL get_global_linear_id(void)
{
    return (get_global_id(2) * get_global_size(1) + get_global_id(1)) * get_global_size(0) + get_global_id(0);
}
size_t OVL get_local_linear_id(void) { return (tid(2) * ntid(1) + tid(1)) * ntid(0) + tid(0); }

/* ------------------------------------------------------ synchronisation */
/* bar.sync orders the memory accesses of the work-group's work-items
 * (shared and global) before the barrier against those after it. */
void OVL barrier(uint flags) { __syncthreads(); }
void OVL work_group_barrier(uint flags) { __syncthreads(); }
void OVL work_group_barrier(uint flags, int scope) { __syncthreads(); }
void OVL mem_fence(uint flags) { __nvvm_membar_cta(); }
void OVL read_mem_fence(uint flags) { __nvvm_membar_cta(); }
void OVL write_mem_fence(uint flags) { __nvvm_membar_cta(); }
void OVL atomic_work_item_fence(uint flags, int order, int scope)
{
    if (scope == 0) /* work-item */
        return;
    if (scope == 1) /* work-group */
        __nvvm_membar_cta();
    else
        __nvvm_membar_gl();
}

/* async_work_group_copy: every work-item copies its share, then the
 * wait is a barrier (the native device lets the first work-item copy). */
event_t sxn_async_copy(void *dst, const void *src, size_t elem, size_t num, size_t dstride, size_t sstride,
                       event_t ev)
{
    size_t n = ntid(0) * ntid(1) * ntid(2), me = get_local_linear_id();
    for (size_t i = me; i < num; i += n) {
        char *d = (char *)dst + i * dstride * elem;
        const char *s = (const char *)src + i * sstride * elem;
        for (size_t b = 0; b < elem; b++)
            d[b] = s[b];
    }
    return ev; /* waiting is a barrier whatever the event */
}
void OVL wait_group_events(int num, event_t *events) { __syncthreads(); }

/* ------------------------------------------------------ math (libdevice) */
#define NV1(n)  float __nv_##n##f(float); double __nv_##n(double);                 \
    float sxm_##n##_f(float x) { return __nv_##n##f(x); }                         \
    double sxm_##n##_d(double x) { return __nv_##n(x); }
#define NV2(n)  float __nv_##n##f(float, float); double __nv_##n(double, double);  \
    float sxm_##n##_f(float x, float y) { return __nv_##n##f(x, y); }             \
    double sxm_##n##_d(double x, double y) { return __nv_##n(x, y); }
NV1(acos) NV1(acosh) NV1(asin) NV1(asinh) NV1(atan) NV1(atanh) NV1(cbrt) NV1(ceil) NV1(cos)
NV1(cosh) NV1(cospi) NV1(erf) NV1(erfc) NV1(exp) NV1(exp2) NV1(exp10) NV1(expm1) NV1(fabs)
NV1(floor) NV1(lgamma) NV1(log) NV1(log10) NV1(log1p) NV1(log2) NV1(logb) NV1(rint) NV1(round)
NV1(rsqrt) NV1(sin) NV1(sinh) NV1(sinpi) NV1(sqrt) NV1(tan) NV1(tanh) NV1(tgamma) NV1(trunc)
NV2(atan2) NV2(copysign) NV2(fdim) NV2(fmax) NV2(fmin) NV2(fmod) NV2(hypot) NV2(pow)
NV2(remainder) NV2(nextafter)

#define PI_F 3.14159265358979323846f
#define PI_D 3.14159265358979323846
float sxm_acospi_f(float x) { return (float)(__nv_acos((double)x) / PI_D); }
double sxm_acospi_d(double x) { return __nv_acos(x) / PI_D; }
float sxm_asinpi_f(float x) { return (float)(__nv_asin((double)x) / PI_D); }
double sxm_asinpi_d(double x) { return __nv_asin(x) / PI_D; }
float sxm_atanpi_f(float x) { return (float)(__nv_atan((double)x) / PI_D); }
double sxm_atanpi_d(double x) { return __nv_atan(x) / PI_D; }
float sxm_atan2pi_f(float y, float x) { return (float)(__nv_atan2((double)y, (double)x) / PI_D); }
double sxm_atan2pi_d(double y, double x) { return __nv_atan2(y, x) / PI_D; }
float sxm_tanpi_f(float x) { return (float)(__nv_sinpi((double)x) / __nv_cospi((double)x)); }
double sxm_tanpi_d(double x) { return __nv_sinpi(x) / __nv_cospi(x); }
float sxm_degrees_f(float x) { return x * (180.0f / PI_F); }
double sxm_degrees_d(double x) { return x * (180.0 / PI_D); }
float sxm_radians_f(float x) { return x * (PI_F / 180.0f); }
double sxm_radians_d(double x) { return x * (PI_D / 180.0); }
float sxm_sign_f(float x) { return x > 0 ? 1.0f : x < 0 ? -1.0f : x == x ? x : 0.0f; }
double sxm_sign_d(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : x == x ? x : 0.0; }
float sxm_recip_f(float x) { return 1.0f / x; }
double sxm_recip_d(double x) { return 1.0 / x; }
float sxm_divide_f(float x, float y) { return x / y; }
double sxm_divide_d(double x, double y) { return x / y; }
float sxm_step_f(float e, float x) { return x < e ? 0.0f : 1.0f; }
double sxm_step_d(double e, double x) { return x < e ? 0.0 : 1.0; }
float sxm_maxmag_f(float x, float y) { float a = __nv_fabsf(x), b = __nv_fabsf(y); return a > b ? x : b > a ? y : __nv_fmaxf(x, y); }
double sxm_maxmag_d(double x, double y) { double a = __nv_fabs(x), b = __nv_fabs(y); return a > b ? x : b > a ? y : __nv_fmax(x, y); }
float sxm_minmag_f(float x, float y) { float a = __nv_fabsf(x), b = __nv_fabsf(y); return a < b ? x : b < a ? y : __nv_fminf(x, y); }
double sxm_minmag_d(double x, double y) { double a = __nv_fabs(x), b = __nv_fabs(y); return a < b ? x : b < a ? y : __nv_fmin(x, y); }
float sxm_powr_f(float x, float y) { return x < 0 ? __builtin_nanf("") : __nv_powf(x, y); }
double sxm_powr_d(double x, double y) { return x < 0 ? __builtin_nan("") : __nv_pow(x, y); }
float __nv_fmaf(float, float, float); double __nv_fma(double, double, double);
float sxm_fma_f(float x, float y, float z) { return __nv_fmaf(x, y, z); }
double sxm_fma_d(double x, double y, double z) { return __nv_fma(x, y, z); }
/* mad: the fused multiply-add (one rounding, within what mad allows, and what nvcc makes of a * b + c) */
float sxm_mad_f(float x, float y, float z) { return __builtin_fmaf(x, y, z); }
double sxm_mad_d(double x, double y, double z) { return __builtin_fma(x, y, z); }
float sxm_mix_f(float x, float y, float a) { return x + (y - x) * a; }
double sxm_mix_d(double x, double y, double a) { return x + (y - x) * a; }
float sxm_clamp_f(float x, float lo, float hi) { return __nv_fminf(__nv_fmaxf(x, lo), hi); }
double sxm_clamp_d(double x, double lo, double hi) { return __nv_fmin(__nv_fmax(x, lo), hi); }
float sxm_smoothstep_f(float e0, float e1, float x) { float t = sxm_clamp_f((x - e0) / (e1 - e0), 0.0f, 1.0f); return t * t * (3.0f - 2.0f * t); }
double sxm_smoothstep_d(double e0, double e1, double x) { double t = sxm_clamp_d((x - e0) / (e1 - e0), 0.0, 1.0); return t * t * (3.0 - 2.0 * t); }
float __nv_ldexpf(float, int); double __nv_ldexp(double, int);
float sxm_ldexp_f(float x, int n) { return __nv_ldexpf(x, n); }
double sxm_ldexp_d(double x, int n) { return __nv_ldexp(x, n); }
float __nv_powif(float, int); double __nv_powi(double, int);
float sxm_pown_f(float x, int n) { return (float)__nv_powi((double)x, n); }
double sxm_pown_d(double x, int n) { return __nv_powi(x, n); }
float sxm_rootn_f(float x, int n)
{
    if (n == 0) return __builtin_nanf("");
    if (x < 0 && (n & 1) == 0) return __builtin_nanf("");
    double r = __nv_pow(__nv_fabs((double)x), 1.0 / n);
    return (float)(x < 0 ? -r : r);
}
double sxm_rootn_d(double x, int n)
{
    if (n == 0) return __builtin_nan("");
    if (x < 0 && (n & 1) == 0) return __builtin_nan("");
    double r = __nv_pow(__nv_fabs(x), 1.0 / n);
    return x < 0 ? -r : r;
}
int __nv_ilogbf(float); int __nv_ilogb(double);
int sxm_ilogb_f(float x) { return __nv_ilogbf(x); }
int sxm_ilogb_d(double x) { return __nv_ilogb(x); }
float __nv_frexpf(float, int *); double __nv_frexp(double, int *);
float sxm_frexp_f(float x, int *e) { int v; float r = __nv_frexpf(x, &v); *e = v; return r; }
double sxm_frexp_d(double x, int *e) { int v; double r = __nv_frexp(x, &v); *e = v; return r; }
float __nv_lgammaf(float);
float sxm_lgamma_r_f(float x, int *s)
{
    *s = (x > 0 || x != x) ? 1 : (__nv_fmodf(__nv_floorf(x), 2.0f) == 0.0f ? -1 : 1);
    if (x < 0 && x == __nv_floorf(x)) *s = 0;
    return __nv_lgammaf(x);
}
double sxm_lgamma_r_d(double x, int *s)
{
    *s = (x > 0 || x != x) ? 1 : (__nv_fmod(__nv_floor(x), 2.0) == 0.0 ? -1 : 1);
    if (x < 0 && x == __nv_floor(x)) *s = 0;
    return __nv_lgamma(x);
}
float sxm_fract_f(float x, float *ip)
{
    float f = __nv_floorf(x);
    *ip = f;
    if (x != x) return x;
    if (__builtin_isinf(x)) return __builtin_copysignf(0.0f, x);
    return __nv_fminf(x - f, 0x1.fffffep-1f);
}
double sxm_fract_d(double x, double *ip)
{
    double f = __nv_floor(x);
    *ip = f;
    if (x != x) return x;
    if (__builtin_isinf(x)) return __builtin_copysign(0.0, x);
    return __nv_fmin(x - f, 0x1.fffffffffffffp-1);
}
float __nv_modff(float, float *); double __nv_modf(double, double *);
float sxm_modf_f(float x, float *ip) { float i; float r = __nv_modff(x, &i); *ip = i; return r; }
double sxm_modf_d(double x, double *ip) { double i; double r = __nv_modf(x, &i); *ip = i; return r; }
void __nv_sincosf(float, float *, float *); void __nv_sincos(double, double *, double *);
float sxm_sincos_f(float x, float *c) { float s, cc; __nv_sincosf(x, &s, &cc); *c = cc; return s; }
double sxm_sincos_d(double x, double *c) { double s, cc; __nv_sincos(x, &s, &cc); *c = cc; return s; }
float __nv_remquof(float, float, int *); double __nv_remquo(double, double, int *);
float sxm_remquo_f(float x, float y, int *q) { int v; float r = __nv_remquof(x, y, &v); *q = v; return r; }
double sxm_remquo_d(double x, double y, int *q) { int v; double r = __nv_remquo(x, y, &v); *q = v; return r; }
float sxm_nan_f(uint code) { return as_float(0x7fc00000u | (code & 0x3fffffu)); }
double sxm_nan_d(ulong code) { return as_double(0x7ff8000000000000ul | (code & 0x7fffffffffffful)); }

/* geometric sums in double (float vectors) */
double sxm_dot(const double *a, const double *b, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s = __nv_fma(a[i], b[i], s);
    return s;
}
double sxm_length(const double *a, int n) { return __nv_sqrt(sxm_dot(a, a, n)); }
void sxm_normalize(double *a, int n)
{
    double l = sxm_length(a, n);
    if (l == 0) return;
    for (int i = 0; i < n; i++) a[i] /= l;
}

/* conversions with a rounding mode: 0 nearest even, 1 zero, 2 +inf, 3 -inf */
#define CVT(ret, name, arg, nv) ret __nv_##nv##_rn(arg); ret __nv_##nv##_rz(arg); ret __nv_##nv##_ru(arg); \
    ret __nv_##nv##_rd(arg);                                                                           \
    ret name(arg x, int m) { return m == 0 ? __nv_##nv##_rn(x) : m == 1 ? __nv_##nv##_rz(x) : m == 2 ? __nv_##nv##_ru(x) : __nv_##nv##_rd(x); }
CVT(float, sxm_cvt_f_l, long, ll2float) CVT(float, sxm_cvt_f_m, ulong, ull2float)
CVT(float, sxm_cvt_f_d, double, double2float) CVT(double, sxm_cvt_d_l, long, ll2double)
CVT(double, sxm_cvt_d_m, ulong, ull2double)

/* half <-> float bits */
float sxm_from_half(ushort h)
{
    uint s = (uint)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e == 0x1f) return as_float(s | 0x7f800000u | (m << 13));
    if (e == 0) return (s ? -1.0f : 1.0f) * (float)m * 0x1p-24f;
    return as_float(s | ((e + 112) << 23) | (m << 13));
}
ushort sxm_to_half(double x, int mode)
{
    ushort s = __builtin_signbit(x) ? 0x8000 : 0;
    if (x != x) return (ushort)(s | 0x7e00);
    double a = __nv_fabs(x);
    /* the rounding direction on the magnitude */
    int up = mode == 2 ? !s : mode == 3 ? (s != 0) : 0;
    int zero = mode == 1 || (mode == 2 && s) || (mode == 3 && !s);
    if (a >= 65520.0 && mode == 0) return (ushort)(s | 0x7c00);
    if (__builtin_isinf(a)) return (ushort)(s | 0x7c00);
    int e;
    __nv_frexp(a, &e);
    e -= 1; /* a = 1.m * 2^e */
    if (e < -14) e = -14;
    double q = __nv_ldexp(a, 10 - e); /* the half's last place is 1 */
    double r = mode == 0 ? __nv_rint(q) : zero ? __nv_trunc(q) : up ? __nv_ceil(q) : __nv_floor(q);
    ulong v = (ulong)r;
    if (v >= 2048) { v >>= 1; e++; }
    if (e > 15) return (ushort)(s | (zero ? 0x7bff : 0x7c00));
    if (v < 1024) return (ushort)(s | v);  /* subnormal (e == -14) */
    return (ushort)(s | ((e + 15) << 10) | (v & 0x3ff));
}

/* 64-bit integer helpers */
long __nv_mul64hi(long, long); ulong __nv_umul64hi(ulong, ulong);
long sxm_mul_hi_l(long x, long y) { return __nv_mul64hi(x, y); }
ulong sxm_mul_hi_m(ulong x, ulong y) { return __nv_umul64hi(x, y); }
long sxm_mad_sat_l(long x, long y, long z)
{
    long hi = __nv_mul64hi(x, y), lo = (long)((ulong)x * (ulong)y);
    /* the 128-bit product fits a long when hi is the sign extension of lo */
    if (hi != (lo >> 63)) return hi < 0 ? LONG_MIN : LONG_MAX;
    long r;
    if (__builtin_add_overflow(lo, z, &r)) return z < 0 ? LONG_MIN : LONG_MAX;
    return r;
}
ulong sxm_mad_sat_m(ulong x, ulong y, ulong z)
{
    if (__nv_umul64hi(x, y)) return ULONG_MAX;
    ulong p = x * y, r = p + z;
    return r < p ? ULONG_MAX : r;
}

/* OpenCL 1.x atomics on generic pointers: llvm-spirv -r writes the SPIR-V
 * atomics of OpenCL 2.0 code (atomic_fetch_add on a generic atomic_int)
 * back under these names. */
#define GA2(ret, name, T, op) ret OVL name(volatile T *p, T v) { return op(p, v); }
#define GA_ALL(T)                                                                     \
    GA2(T, atomic_add, T, __sync_fetch_and_add) GA2(T, atomic_sub, T, __sync_fetch_and_sub) \
    GA2(T, atomic_and, T, __sync_fetch_and_and) GA2(T, atomic_or, T, __sync_fetch_and_or)   \
    GA2(T, atomic_xor, T, __sync_fetch_and_xor) GA2(T, atomic_xchg, T, __sync_swap)          \
    T OVL atomic_inc(volatile T *p) { return __sync_fetch_and_add(p, (T)1); }                \
    T OVL atomic_dec(volatile T *p) { return __sync_fetch_and_sub(p, (T)1); }                \
    T OVL atomic_cmpxchg(volatile T *p, T e, T d) { return __sync_val_compare_and_swap(p, e, d); }
GA_ALL(int) GA_ALL(uint) GA_ALL(long) GA_ALL(ulong)
int OVL atomic_min(volatile int *p, int v) { return __sync_fetch_and_min(p, v); }
int OVL atomic_max(volatile int *p, int v) { return __sync_fetch_and_max(p, v); }
uint OVL atomic_min(volatile uint *p, uint v) { return __sync_fetch_and_umin(p, v); }
uint OVL atomic_max(volatile uint *p, uint v) { return __sync_fetch_and_umax(p, v); }
long OVL atomic_min(volatile long *p, long v) { return __sync_fetch_and_min(p, v); }
long OVL atomic_max(volatile long *p, long v) { return __sync_fetch_and_max(p, v); }
ulong OVL atomic_min(volatile ulong *p, ulong v) { return __sync_fetch_and_umin(p, v); }
ulong OVL atomic_max(volatile ulong *p, ulong v) { return __sync_fetch_and_umax(p, v); }
float OVL atomic_xchg(volatile float *p, float v) { return as_float(__sync_swap((volatile uint *)p, as_uint(v))); }
