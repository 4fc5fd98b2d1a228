/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* pool.c: the thread pool that runs work-groups. Created at the first
 * launch with more than one group, sized to the CPUs this process may use
 * (the launching thread is one of the workers, so no oversubscription),
 * shared by launches from any number of threads: jobs wait in a FIFO,
 * threads claim contiguous chunks of groups from the oldest job, and each
 * launching thread works on its own job until done. Idle workers spin a
 * little before sleeping, so back-to-back launches find them awake (no
 * futex wake-up on the launch path); the launcher wakes sleepers only. */
#include "internal.h"

#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() atomic_signal_fence(memory_order_seq_cst)
#endif
#define SPIN_ROUNDS 4000  /* pause instructions an idle worker waits before sleeping (~20-40 us) */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static pthread_t *threads;
static unsigned nthreads;
static bool quitting;
static unsigned sleepers;            /* workers waiting on work_cv */
static atomic_uint pending;          /* jobs in the FIFO: what spinning workers watch */
/* read without the lock by every launch (fork check): atomics */
static atomic_bool started;
static atomic_int pool_pid;          /* the pool's threads exist only in this process */
static struct sxn_job *head, *tail;

unsigned sxn_pool_threads(void)
{
    return nthreads;
}

/* Contiguous chunks, 16 per thread: small enough that a thread the OS
 * preempts holds up little of the launch, large enough that claiming one
 * (an atomic add) costs nothing next to running it. */
static size_t chunk_of(const struct sxn_job *job)
{
    size_t c = job->total_groups / ((size_t)(nthreads + 1) * 16);
    return c ? c : 1;
}

/* Claim and run chunks until the job has none left. */
static void work_on(struct sxn_job *job)
{
    size_t chunk = chunk_of(job);
    for (;;) {
        size_t first = atomic_fetch_add(&job->next_group, chunk);
        if (first >= job->total_groups)
            return;
        size_t n = job->total_groups - first < chunk ? job->total_groups - first : chunk;
        if (atomic_load_explicit(&job->error, memory_order_relaxed) != SX_SUCCESS)
            continue;  /* drain the counter without running */
        sx_result r = sxn_run_groups(job, first, n);
        if (r != SX_SUCCESS) {
            int expected = SX_SUCCESS;
            atomic_compare_exchange_strong(&job->error, &expected, r);
        }
    }
}

static void dequeue_locked(struct sxn_job *job)
{
    if (!job->queued)
        return;
    struct sxn_job **pp = &head, *prev = NULL;
    while (*pp && *pp != job) {
        prev = *pp;
        pp = &(*pp)->next;
    }
    if (*pp) {
        *pp = job->next;
        if (tail == job)
            tail = prev;
        atomic_fetch_sub_explicit(&pending, 1, memory_order_relaxed);
    }
    job->queued = false;
}

static void *worker(void *arg)
{
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        if (!quitting && !head) {
            pthread_mutex_unlock(&pool_lock);
            for (int i = 0; i < SPIN_ROUNDS && !atomic_load_explicit(&pending, memory_order_relaxed); i++)
                cpu_relax();
            pthread_mutex_lock(&pool_lock);
            if (!quitting && !head) {
                sleepers++;
                pthread_cond_wait(&work_cv, &pool_lock);
                sleepers--;
            }
            continue;
        }
        if (quitting)
            break;
        struct sxn_job *job = head;
        job->users++;
        pthread_mutex_unlock(&pool_lock);
        work_on(job);
        pthread_mutex_lock(&pool_lock);
        dequeue_locked(job);  /* nothing left to claim */
        /* the job lives on its launcher's stack: not touched after this */
        if (atomic_fetch_sub(&job->users, 1) == 1)
            pthread_cond_broadcast(&done_cv);
    }
    pthread_mutex_unlock(&pool_lock);
    return NULL;
}

static sx_result start_locked(void)
{
    if (atomic_load(&started))
        return SX_SUCCESS;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        n = CPU_COUNT(&set);  /* taskset, cgroup cpusets */
    unsigned want = n > 1 ? (unsigned)n - 1 : 0;
    const char *env = sxn_getenv("SX_NATIVE_THREADS");
    if (env && *env) {
        long v = strtol(env, NULL, 10);
        if (v >= 1 && v <= 4096)
            want = (unsigned)v - 1;
    }
    threads = want ? calloc(want, sizeof(*threads)) : NULL;
    if (want && !threads)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for the thread pool");
    quitting = false;
    nthreads = 0;
    for (unsigned i = 0; i < want; i++) {
        if (pthread_create(&threads[i], NULL, worker, NULL) != 0)
            break;
        nthreads++;
    }
    if (nthreads < want)
        sxn_services->log(SX_LOG_WARN, "native: started %u of %u pool threads", nthreads, want);
    sleepers = 0;
    atomic_store(&pending, 0);
    atomic_store(&pool_pid, getpid());
    atomic_store(&started, true);
    return SX_SUCCESS;
}

/* After fork() the child has the pool's state but none of its threads:
 * forget them and start a new pool. (Workers wait on the condition
 * variable with the lock released, so the child's copy is normally free;
 * it is re-initialised anyway.) */
static void forget_after_fork(void)
{
    pthread_mutex_init(&pool_lock, NULL);
    pthread_cond_init(&work_cv, NULL);
    pthread_cond_init(&done_cv, NULL);
    free(threads);
    threads = NULL;
    nthreads = 0;
    sleepers = 0;
    atomic_store(&pending, 0);
    atomic_store(&started, false);
    quitting = false;
    head = tail = NULL;
}

sx_result sxn_pool_run(struct sxn_job *job)
{
    if (SXN_UNLIKELY(atomic_load_explicit(&started, memory_order_acquire) &&
                     getpid() != atomic_load_explicit(&pool_pid, memory_order_relaxed)))
        forget_after_fork();
    pthread_mutex_lock(&pool_lock);
    sx_result r = start_locked();
    if (r != SX_SUCCESS) {
        pthread_mutex_unlock(&pool_lock);
        return r;
    }
    if (nthreads) {
        job->next = NULL;
        job->queued = true;
        if (tail)
            tail->next = job;
        else
            head = job;
        tail = job;
        atomic_fetch_add_explicit(&pending, 1, memory_order_relaxed);
        if (sleepers)
            pthread_cond_broadcast(&work_cv);
    }
    pthread_mutex_unlock(&pool_lock);

    work_on(job);

    pthread_mutex_lock(&pool_lock);
    dequeue_locked(job);
    pthread_mutex_unlock(&pool_lock);
    /* Workers that took the job may still run their last chunks; the job
     * lives on this stack, so wait for them to let go: spin a little
     * (their chunks are short), then sleep. */
    for (int i = 0; i < SPIN_ROUNDS && atomic_load(&job->users); i++)
        cpu_relax();
    if (atomic_load(&job->users)) {
        pthread_mutex_lock(&pool_lock);
        while (atomic_load(&job->users))
            pthread_cond_wait(&done_cv, &pool_lock);
        pthread_mutex_unlock(&pool_lock);
    }
    r = atomic_load(&job->error);
    if (r != SX_SUCCESS)
        return sxn_error(r, "native: kernel %s: a work-group failed to run (%d)", job->kernel->name, r);
    return SX_SUCCESS;
}

void sxn_pool_shutdown(void)
{
    if (atomic_load(&started) && getpid() != atomic_load(&pool_pid))
        forget_after_fork();
    pthread_mutex_lock(&pool_lock);
    if (!atomic_load(&started)) {
        pthread_mutex_unlock(&pool_lock);
        return;
    }
    quitting = true;
    pthread_cond_broadcast(&work_cv);
    pthread_mutex_unlock(&pool_lock);
    for (unsigned i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    threads = NULL;
    nthreads = 0;
    pthread_mutex_lock(&pool_lock);
    atomic_store(&started, false);
    quitting = false;
    head = tail = NULL;
    pthread_mutex_unlock(&pool_lock);
}
