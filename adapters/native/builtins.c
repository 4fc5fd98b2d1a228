/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* builtins.c: the work-item part of sx-native-builtins.so, the OpenCL C
 * builtins host-compiled kernels import by their mangled names. The native
 * adapter loads the module once with RTLD_GLOBAL before the first program,
 * so every program resolves get_global_id, barrier and the rest against it,
 * and hands each work-item's state over through the thread-local `cur`.
 * Everything else (math, integer, conversions, vectors, atomics; every
 * overload of OpenCL C 1.2 and the 2.0 atomics) is generated from the
 * table of signatures into builtins-gen.cl (tools/ocl-builtins-gen.py). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* ------------------------------------------------- async work-group copies */

/* Every work-item of a group calls async_work_group_copy with the same
 * arguments; the first work-item does the whole copy at once and the others
 * do nothing. wait_group_events is a barrier, so by the time any work-item
 * passes it the first one has copied (the adapter runs kernels that import
 * wait_group_events as fibers, like barrier kernels). Called from the
 * generated overloads in builtins-gen.cl with element size and strides. */
__attribute__((visibility("hidden"))) void *sxn_async_copy(void *dst, const void *src, size_t elem,
                                                           size_t num, size_t dstride,
                                                           size_t sstride, void *ev);
void *sxn_async_copy(void *dst, const void *src, size_t elem, size_t num, size_t dstride,
                     size_t sstride, void *ev)
{
    const sxn_item *it = cur;
    bool first = !it || (it->local_id[0] == 0 && it->local_id[1] == 0 && it->local_id[2] == 0);
    if (first) {
        if (dstride == 1 && sstride == 1) {
            memmove(dst, src, elem * num);
        } else {
            for (size_t i = 0; i < num; i++)
                memcpy((char *)dst + i * dstride * elem, (const char *)src + i * sstride * elem, elem);
        }
    }
    /* an event is any non-NULL value; a given one is passed through */
    return ev ? ev : (void *)(uintptr_t)1;
}

DECL(void, bi_wait_group_events, "_Z17wait_group_eventsiPU9CLgeneric9ocl_event",
     (int num, void **events))
{
    barrier_impl();
}

/* ------------------------------------------------ half conversions (libcalls) */

/* clang-14 compiles (float)h and (half)f on x86-64 without F16C into calls
 * of these compiler-rt routines; a host image built with -nostdlib finds
 * them here (rounding to nearest even, as OpenCL's default). */
uint16_t sxm_to_half(double x, int mode);
float sxm_from_half(uint16_t h);
BI float __gnu_h2f_ieee(uint16_t h);
BI float __gnu_h2f_ieee(uint16_t h) { return sxm_from_half(h); }
BI uint16_t __gnu_f2h_ieee(float f);
BI uint16_t __gnu_f2h_ieee(float f) { return sxm_to_half(f, 0); }
BI uint16_t __truncdfhf2(double d);
BI uint16_t __truncdfhf2(double d) { return sxm_to_half(d, 0); }
