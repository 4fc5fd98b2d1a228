/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* atomics.h: included before builtins-gen.cl when it is compiled for the PTX
 * variant (clang-14 for nvptx64 with the SPIR address-space map): clang
 * makes library calls of the __atomic and __opencl_atomic builtins there,
 * with calls that do not match their declarations; the __sync builtins
 * always give atomicrmw/cmpxchg instructions, which the NVPTX back end
 * lowers to atom.* (all orders are sequentially consistent as on native). */
#define SXA_T(p) __typeof__(__c11_atomic_load((p), __ATOMIC_RELAXED))
#define SXA_P(p) ((volatile SXA_T(p) *)(p))
#define SXA_SIGNED(p) ((__typeof__(*(p) + 0))-1 < (__typeof__(*(p) + 0))0)
#define __atomic_fetch_add(p, v, o) __sync_fetch_and_add((p), (v))
#define __atomic_fetch_sub(p, v, o) __sync_fetch_and_sub((p), (v))
#define __atomic_fetch_and(p, v, o) __sync_fetch_and_and((p), (v))
#define __atomic_fetch_or(p, v, o) __sync_fetch_and_or((p), (v))
#define __atomic_fetch_xor(p, v, o) __sync_fetch_and_xor((p), (v))
#define __atomic_fetch_min(p, v, o) (SXA_SIGNED(p) ? __sync_fetch_and_min((p), (v)) : __sync_fetch_and_umin((p), (v)))
#define __atomic_fetch_max(p, v, o) (SXA_SIGNED(p) ? __sync_fetch_and_max((p), (v)) : __sync_fetch_and_umax((p), (v)))
#define __atomic_exchange_n(p, v, o) __sync_swap((p), (v))
#define __atomic_compare_exchange_n(p, e, d, w, s, f) \
    ({ __typeof__(*(e) + 0) sxa_e = *(e), sxa_o = __sync_val_compare_and_swap((p), sxa_e, (d)); *(e) = sxa_o; sxa_o == sxa_e; })
#define __opencl_atomic_fetch_add(p, v, o, s) __atomic_fetch_add(SXA_P(p), v, o)
#define __opencl_atomic_fetch_sub(p, v, o, s) __atomic_fetch_sub(SXA_P(p), v, o)
#define __opencl_atomic_fetch_and(p, v, o, s) __atomic_fetch_and(SXA_P(p), v, o)
#define __opencl_atomic_fetch_or(p, v, o, s) __atomic_fetch_or(SXA_P(p), v, o)
#define __opencl_atomic_fetch_xor(p, v, o, s) __atomic_fetch_xor(SXA_P(p), v, o)
#define __opencl_atomic_fetch_min(p, v, o, s) __atomic_fetch_min(SXA_P(p), v, o)
#define __opencl_atomic_fetch_max(p, v, o, s) __atomic_fetch_max(SXA_P(p), v, o)
#define __opencl_atomic_exchange(p, v, o, s) __atomic_exchange_n(SXA_P(p), v, o)
#define __opencl_atomic_compare_exchange_strong(p, e, d, so, fo, s) __atomic_compare_exchange_n(SXA_P(p), e, d, 0, so, fo)
#define __opencl_atomic_compare_exchange_weak(p, e, d, so, fo, s) __atomic_compare_exchange_n(SXA_P(p), e, d, 1, so, fo)
#define __opencl_atomic_load(p, o, s) __sync_fetch_and_add(SXA_P(p), 0)
#define __opencl_atomic_store(p, v, o, s) ((void)__sync_swap(SXA_P(p), (v)))
#define __opencl_atomic_init(p, v) ((void)(*SXA_P(p) = (v)))
