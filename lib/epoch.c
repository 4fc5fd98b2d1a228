/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* epoch.c: epoch-based reclamation for the core's lock-free readers.
 *
 * Why: the cached launch (sxi_slot_for, launch.c, ffk.c) walks a kernel's
 * slot list and calls the adapter with the slot's adapter kernel without a
 * lock, while image unregistration, context teardown and kernel release
 * unlink and free slots (and so release adapter kernels, whose code the
 * adapter may unmap). Readers announce themselves; writers unlink, wait for
 * a grace period, then free.
 *
 * The choice: epochs with synchronous grace periods (the userspace-RCU
 * "synchronize" model, its membarrier flavour), not hazard pointers or
 * reference counts:
 * - a reader's cost is two plain stores to its own cache line (enter,
 *   leave; leaving restores what entering found, so sections nest without
 *   a counter) and a read of the global epoch: no shared write, no cache-line
 *   ping-pong between launching threads, which reference counts on a shared
 *   slot would cause, and no fence: the writer makes every running thread
 *   execute one with membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), so a
 *   reader's announcement is either seen by the writer's scan or the reader
 *   sees the unlink. Where membarrier is missing (old kernels, seccomp),
 *   readers announce with a sequentially consistent store instead (an xchg).
 *   Measured here: a reader section costs 1.5-2.5 ns with membarrier
 *   (bench/launch-section), 4 ns fenced. With it, a cached sx_queue_launch
 *   on the native adapter is 0.93x the pre-epoch build's (bench/launch-ab,
 *   both libraries in one process, 2001 rounds), as the launch path lost
 *   two calls (sx_queue_launch is one function down to the adapter). The
 *   record is reached through a TLS descriptor (-mtls-dialect=gnu2), not
 *   initial-exec TLS, which kept the library from loading with dlopen;
 * - hazard pointers would need a publish + re-validate per list node;
 * - writers (unregistration, context release, the last kernel release,
 *   sx_fini) are rare and may block: sxi_epoch_synchronize() returns once
 *   every reader that could have seen an unlinked object has left, so the
 *   adapter kernel is released, in order, before the call that dropped it
 *   returns (no limbo lists, no reclamation running at arbitrary times).
 *
 * Rules: a reader section (sxi_read_lock/unlock) takes no core lock and
 * never calls anything that synchronizes; a writer never synchronizes while
 * it is inside a reader section (the thread's own record is skipped, so a
 * violation cannot deadlock, only be wrong). Writers may hold core locks
 * while they wait, since readers never take them. */
#include <linux/membarrier.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <string.h>

#include "sx-internal.h"

_Atomic uint64_t sxi_global_epoch = 1;
_Atomic bool sxi_epoch_asymmetric;
static _Atomic(struct sxi_epoch_rec *) records;  /* never freed: threads come and go */
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

_Thread_local struct sxi_epoch_rec *sxi_epoch_me;

/* A thread that ends leaves its record for the next new thread. */
static void thread_gone(void *arg)
{
    struct sxi_epoch_rec *r = arg;
    sxi_epoch_me = NULL; /* a later call in this thread's end registers again */
    atomic_store_explicit(&r->epoch, 0, memory_order_release);
    atomic_store_explicit(&r->in_use, false, memory_order_release);
}

static void make_key(void)
{
    (void)pthread_key_create(&exit_key, thread_gone);
    /* SX_EPOCH_FENCE=1 keeps the fenced readers (sanitizer runs, tests);
     * read like every variable (sxi_getenv: not under setuid, not after
     * sx_init(SX_INIT_IGNORE_ENVIRONMENT)). */
    const char *env = sxi_getenv("SX_EPOCH_FENCE");
    if (env && strcmp(env, "1") == 0)
        return;
    long have = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (have > 0 && (have & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
        atomic_store(&sxi_epoch_asymmetric, true);
}

/* Called by sx_init before any adapter starts a thread: registering for
 * membarrier costs the kernel an RCU grace period (milliseconds) once the
 * process has several threads (a GPU driver's), and nothing while it has
 * one; left to the first launch, that cost landed on the first launch. */
void sxi_epoch_prepare(void)
{
    pthread_once(&key_once, make_key);
}

struct sxi_epoch_rec *sxi_epoch_register(void)
{
    pthread_once(&key_once, make_key);
    struct sxi_epoch_rec *r;
    for (r = atomic_load(&records); r; r = r->next) {
        bool expected = false;
        if (!atomic_load_explicit(&r->in_use, memory_order_relaxed) &&
            atomic_compare_exchange_strong(&r->in_use, &expected, true))
            break;
    }
    while (!r) {
        /* A static pool first, then the heap; with neither, wait for a
         * thread to end rather than fail a launch. */
        static struct sxi_epoch_rec pool[64];
        static _Atomic unsigned pool_used;
        unsigned i = atomic_fetch_add(&pool_used, 1);
        r = i < SXI_ARRAY_SIZE(pool) ? &pool[i] : calloc(1, sizeof(*r));
        if (!r) {
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
            for (r = atomic_load(&records); r; r = r->next) {
                bool expected = false;
                if (atomic_compare_exchange_strong(&r->in_use, &expected, true))
                    break;
            }
            continue;
        }
        atomic_init(&r->epoch, 0);
        atomic_init(&r->in_use, true);
        struct sxi_epoch_rec *head = atomic_load(&records);
        do
            r->next = head;
        while (!atomic_compare_exchange_weak(&records, &head, r));
    }
    (void)pthread_setspecific(exit_key, r);
    sxi_epoch_me = r;
    return r;
}

void sxi_epoch_synchronize(void)
{
    pthread_once(&key_once, make_key);
    uint64_t target = atomic_fetch_add_explicit(&sxi_global_epoch, 1, memory_order_seq_cst) + 1;
    /* A full barrier on every running thread: each reader either announced
     * before it (the scan sees it) or reads the lists after (sees the unlink). */
    if (atomic_load(&sxi_epoch_asymmetric) && syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
        atomic_store(&sxi_epoch_asymmetric, false); /* not expected once registered; fenced readers from now */
    struct sxi_epoch_rec *self = sxi_epoch_me;
    for (struct sxi_epoch_rec *r = atomic_load_explicit(&records, memory_order_seq_cst); r; r = r->next) {
        if (r == self)
            continue;
        for (unsigned spins = 0;; spins++) {
            uint64_t e = atomic_load_explicit(&r->epoch, memory_order_seq_cst);
            if (e == 0 || e >= target)
                break;
            if (spins < 64) {
                sched_yield();
            } else {
                struct timespec ts = {0, 20000};
                nanosleep(&ts, NULL);
            }
        }
    }
}
