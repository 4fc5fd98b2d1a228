/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fiber.c: per-thread scratch and the fibers that make barrier() work.
 * A work-group whose kernel may call barrier() runs one fiber per
 * work-item on one thread; barrier() switches back to the scheduler,
 * which resumes every other work-item up to the same barrier before any
 * goes on. Stacks are mmap'd once per thread (with a guard page each) and
 * reused; a thread's scratch is freed when the thread exits or at fini.
 * On x86-64 a switch is a few register moves (below); elsewhere it is
 * ucontext's swapcontext, which costs two signal-mask system calls. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define HAVE_VALGRIND_H 1
#endif
#endif

#if defined(__x86_64__) && !defined(SXN_USE_UCONTEXT)
#define FAST_SWITCH 1
/* Save the callee-saved registers on the current stack, store the stack
 * pointer in *save, continue on `to`. MXCSR and the x87 control word are
 * not switched: kernels do not change rounding modes, and ldmxcsr/fldcw
 * cost more than the rest of the switch. */
void sxn_fiber_switch(void **save, void *to) __attribute__((visibility("hidden")));
__asm__(".text\n"
        ".globl sxn_fiber_switch\n"
        ".hidden sxn_fiber_switch\n"
        ".type sxn_fiber_switch,@function\n"
        "sxn_fiber_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size sxn_fiber_switch, .-sxn_fiber_switch\n"
        ".section .note.GNU-stack,\"\",@progbits\n"
        ".text\n");
#endif

struct fiber {
#ifdef FAST_SWITCH
    void *sp;
#else
    ucontext_t uc;
#endif
    sxn_item item;
    sxn_wg_ctx ctx;       /* SXN_WG_FIBER entries: the group's context, this work-item */
    bool done;
    void *stack;          /* mapping start (guard page first) */
    unsigned stack_id;    /* valgrind's id for the stack */
};

struct sxn_tcache {
    void *local;
    size_t local_cap;
    void *priv;           /* private memory of compiled work-group functions */
    size_t priv_cap;
    struct fiber *fibers;
    size_t nfibers;       /* with stacks */
    size_t stack_size;    /* usable bytes per stack */
#ifdef FAST_SWITCH
    void *sched_sp;
#else
    ucontext_t sched;
    ucontext_t tmpl;      /* from getcontext once, copied into each fiber */
    bool have_tmpl;
#endif
    /* the group being run */
    const struct sxn_job *job;
    void **values;
    struct fiber *cur;
    struct sxn_tcache *next, *prev;
};

static pthread_key_t tc_key;
static bool key_made;
static pthread_mutex_t tc_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sxn_tcache *tc_all;
static __thread struct sxn_tcache *tc_self;
static size_t page_size;
static unsigned generation;  /* bumped at fini: every thread's cache is gone */

static void tcache_free(struct sxn_tcache *tc)
{
    for (size_t i = 0; i < tc->nfibers; i++) {
#ifdef HAVE_VALGRIND_H
        VALGRIND_STACK_DEREGISTER(tc->fibers[i].stack_id);
#endif
        munmap(tc->fibers[i].stack, tc->stack_size + page_size);
    }
    free(tc->fibers);
    free(tc->local);
    free(tc->priv);
    free(tc);
}

static void tcache_unlink_locked(struct sxn_tcache *tc)
{
    if (tc->prev)
        tc->prev->next = tc->next;
    else
        tc_all = tc->next;
    if (tc->next)
        tc->next->prev = tc->prev;
}

/* Thread exit: free this thread's scratch (unless fini already did). */
static void tcache_destroy(void *p)
{
    struct sxn_tcache *tc = p;
    pthread_mutex_lock(&tc_lock);
    bool live = false;
    for (struct sxn_tcache *t = tc_all; t; t = t->next)
        if (t == tc)
            live = true;
    if (live)
        tcache_unlink_locked(tc);
    pthread_mutex_unlock(&tc_lock);
    if (live)
        tcache_free(tc);
}

sx_result sxn_tcache_init(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    page_size = ps > 0 ? (size_t)ps : 4096;
    pthread_mutex_lock(&tc_lock);
    if (!key_made) {
        if (pthread_key_create(&tc_key, tcache_destroy) != 0) {
            pthread_mutex_unlock(&tc_lock);
            return sxn_error(SX_ERROR_OUT_OF_RESOURCES, "native: pthread_key_create failed");
        }
        key_made = true;
    }
    pthread_mutex_unlock(&tc_lock);
    return SX_SUCCESS;
}

void sxn_tcache_shutdown(void)
{
    pthread_mutex_lock(&tc_lock);
    struct sxn_tcache *all = tc_all;
    tc_all = NULL;
    if (key_made) {
        pthread_key_delete(tc_key);
        key_made = false;
    }
    pthread_mutex_unlock(&tc_lock);
    while (all) {
        struct sxn_tcache *next = all->next;
        tcache_free(all);
        all = next;
    }
    /* Other threads' tc_self now dangle; the generation check in
     * sxn_tcache_get notices that. */
    tc_self = NULL;
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
}

struct sxn_tcache *sxn_tcache_get(void)
{
    static __thread unsigned my_generation;
    struct sxn_tcache *tc = tc_self;
    unsigned gen = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    if (SXN_LIKELY(tc && my_generation == gen))
        return tc;
    tc = calloc(1, sizeof(*tc));
    if (!tc)
        return NULL;
    size_t ss = SXN_DEFAULT_STACK;
    const char *env = sxn_getenv("SX_NATIVE_STACK_SIZE");
    if (env && *env) {
        long v = strtol(env, NULL, 0);
        if (v >= 16384 && v <= (64l << 20))
            ss = (size_t)v;
    }
    tc->stack_size = (ss + page_size - 1) & ~(page_size - 1);
    pthread_mutex_lock(&tc_lock);
    tc->next = tc_all;
    if (tc_all)
        tc_all->prev = tc;
    tc_all = tc;
    if (key_made)
        pthread_setspecific(tc_key, tc);
    pthread_mutex_unlock(&tc_lock);
    tc_self = tc;
    my_generation = gen;
    return tc;
}

/* Grow a per-thread buffer to at least `size` bytes, 64-aligned. */
static void *grow(void **buf, size_t *cap, size_t size)
{
    if (size <= *cap)
        return *buf;
    size_t c = size < 4096 ? 4096 : size;
    void *p = aligned_alloc(64, (c + 63) & ~(size_t)63);
    if (!p)
        return NULL;
    free(*buf);
    *buf = p;
    *cap = c;
    return p;
}

void *sxn_tcache_local(struct sxn_tcache *tc, size_t size)
{
    return grow(&tc->local, &tc->local_cap, size);
}

void *sxn_tcache_private(struct sxn_tcache *tc, size_t size)
{
    return grow(&tc->priv, &tc->priv_cap, size);
}

static bool fibers_reserve(struct sxn_tcache *tc, size_t n)
{
    if (n <= tc->nfibers)
        return true;
    struct fiber *f = realloc(tc->fibers, n * sizeof(*f));
    if (!f)
        return false;
    tc->fibers = f;
    /* realloc moved the records: their self-pointers are refreshed per group */
    while (tc->nfibers < n) {
        struct fiber *x = &tc->fibers[tc->nfibers];
        memset(x, 0, sizeof(*x));
        void *m = mmap(NULL, tc->stack_size + page_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
        if (m == MAP_FAILED)
            return false;
        mprotect(m, page_size, PROT_NONE);  /* overflow faults instead of corrupting */
        x->stack = m;
#ifdef HAVE_VALGRIND_H
        x->stack_id = VALGRIND_STACK_REGISTER((char *)m + page_size,
                                              (char *)m + page_size + tc->stack_size);
#endif
        tc->nfibers++;
    }
    return true;
}

static void fiber_yield(sxn_item *item)
{
    struct fiber *f = item->fiber;
    struct sxn_tcache *tc = tc_self;
#ifdef FAST_SWITCH
    sxn_fiber_switch(&f->sp, tc->sched_sp);
#else
    swapcontext(&f->uc, &tc->sched);
#endif
}

static void fiber_main(void)
{
    struct sxn_tcache *tc = tc_self;
    struct fiber *f = tc->cur;
    if (tc->job->wg)
        tc->job->wg->fn(&f->ctx);
    else
        ffi_call(tc->job->cif, tc->job->kernel->fn, NULL, tc->values);
    f->done = true;
#ifdef FAST_SWITCH
    /* never resumed: the next group starts this stack afresh */
    sxn_fiber_switch(&f->sp, tc->sched_sp);
    __builtin_unreachable();
#endif
    /* returning resumes uc_link, the scheduler */
}

/* Make a fiber start fiber_main on its stack at the next switch to it. */
static void fiber_prepare(struct sxn_tcache *tc, struct fiber *f)
{
#ifdef FAST_SWITCH
    uintptr_t top = ((uintptr_t)f->stack + page_size + tc->stack_size) & ~(uintptr_t)15;
    void **sp = (void **)top;
    *--sp = NULL;                  /* fiber_main's would-be return address */
    *--sp = (void *)fiber_main;    /* where the switch's `ret` goes */
    for (int i = 0; i < 6; i++)
        *--sp = NULL;              /* rbp rbx r12 r13 r14 r15 */
    f->sp = sp;
#else
    f->uc = tc->tmpl;
    f->uc.uc_mcontext.fpregs = &f->uc.__fpregs_mem;
    f->uc.uc_stack.ss_sp = (char *)f->stack + page_size;
    f->uc.uc_stack.ss_size = tc->stack_size;
    f->uc.uc_link = &tc->sched;
    makecontext(&f->uc, fiber_main, 0);
#endif
}

sx_result sxn_fiber_group(struct sxn_tcache *tc, const struct sxn_job *job, const sxn_item *tmpl,
                          void **values, const sxn_wg_ctx *ctx)
{
    size_t n = job->group_items;
    if (!fibers_reserve(tc, n))
        return sxn_error(SX_ERROR_OUT_OF_RESOURCES,
                         "native: kernel %s: cannot map %zu fiber stacks of %zu bytes",
                         job->kernel->name, n, tc->stack_size);
#ifndef FAST_SWITCH
    if (!tc->have_tmpl) {
        if (getcontext(&tc->tmpl) != 0)
            return sxn_error(SX_ERROR_OUT_OF_RESOURCES, "native: getcontext failed");
        tc->have_tmpl = true;
    }
#endif
    const sxn_geometry *g = &job->geo;
    size_t l0 = g->local_size[0], l1 = g->local_size[1];
    for (size_t i = 0; i < n; i++) {
        struct fiber *f = &tc->fibers[i];
        f->item = *tmpl;
        f->item.local_id[0] = i % l0;
        f->item.local_id[1] = (i / l0) % l1;
        f->item.local_id[2] = i / (l0 * l1);
        f->item.yield = fiber_yield;
        f->item.fiber = f;
        if (ctx) {
            f->ctx = *ctx;
            for (int d = 0; d < 3; d++)
                f->ctx.local_id[d] = f->item.local_id[d];
        }
        f->done = false;
        fiber_prepare(tc, f);
    }
    tc->job = job;
    tc->values = values;
    /* Round-robin: each round runs every live work-item to its next
     * barrier (or its end), so no work-item passes a barrier early. */
    size_t live = n;
    while (live) {
        for (size_t i = 0; i < n; i++) {
            struct fiber *f = &tc->fibers[i];
            if (f->done)
                continue;
            tc->cur = f;
            job->kernel->set_item(&f->item);
#ifdef FAST_SWITCH
            sxn_fiber_switch(&tc->sched_sp, f->sp);
#else
            swapcontext(&tc->sched, &f->uc);
#endif
            if (f->done)
                live--;
        }
    }
    return SX_SUCCESS;
}
