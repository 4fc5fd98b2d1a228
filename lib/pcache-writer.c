/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* pcache-writer.c: the persistent cache's entries written off the thread
 * that built them: a first launch hands its program's binary over and goes
 * on to run it, and one writer thread writes the entry (temporary file,
 * rename, eviction: pcache.c). A build of the same key in this process
 * meanwhile reads the bytes from the queue. sx_fini, the program counters
 * and the library's unloading wait until the queue is written. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

/* More bytes than this waiting: the next entry is written at once. */
#define MAX_QUEUED_BYTES ((size_t)256 << 20)

typedef struct job {
    struct job *next;
    sxi_pcache_dir dir;
    sxi_pcache_key key;
    sx_image_kind kind;
    void *data;
    size_t size;
    uint64_t limit; /* SX_CACHE_MAX_SIZE, read by the builder: the writer reads no environment */
} job;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER; /* a job queued, written, or the writer ended */
static job *head, *tail;   /* head: being written, or next */
static size_t queued_bytes;
static bool running, stopping;
static pthread_t writer;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void *writer_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    for (;;) {
        while (!head && !stopping)
            pthread_cond_wait(&changed, &lock);
        if (!head)
            break;
        /* Stays queued while written: a lookup finds it until the file is there. */
        job *j = head;
        pthread_mutex_unlock(&lock);
        uint64_t t0 = sxi_tl_begin();
        sxi_pcache_store_bounded(&j->dir, &j->key, j->kind, j->data, j->size, j->limit);
        if (SXI_UNLIKELY(t0)) {
            sxi_tl_args a = {.len = 0};
            a.buf[0] = 0;
            sxi_tl_arg_u64(&a, "bytes", j->size);
            sxi_tl_end(t0, "cache write", &a);
        }
        SXI_LOG(SX_LOG_DEBUG, "program cache: wrote an entry of %zu bytes", j->size);
        pthread_mutex_lock(&lock);
        head = j->next;
        if (!head)
            tail = NULL;
        queued_bytes -= j->size;
        free(j->data);
        free(j);
        pthread_cond_broadcast(&changed);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* The child of a fork has no writer thread: what the parent queued is the
 * parent's to write. */
static void fork_prepare(void) { pthread_mutex_lock(&lock); }
static void fork_parent(void) { pthread_mutex_unlock(&lock); }
static void fork_child(void)
{
    for (job *j = head, *next; j; j = next) {
        next = j->next;
        free(j->data);
        free(j);
    }
    head = tail = NULL;
    queued_bytes = 0;
    running = stopping = false;
    pthread_cond_init(&changed, NULL);
    pthread_mutex_unlock(&lock);
}

static void fork_handlers(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

/* Start the writer (lock held); no signal of the application's lands on it. */
static bool start(void)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    running = pthread_create(&writer, NULL, writer_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!running)
        SXI_LOG(SX_LOG_INFO, "program cache: no writer thread; entries are written by the builds");
    return running;
}

void sxi_pcache_store_later(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind kind, void *data,
                            size_t size)
{
    pthread_once(&fork_once, fork_handlers);
    uint64_t limit = sxi_pcache_max_size();
    job *j = malloc(sizeof(*j));
    pthread_mutex_lock(&lock);
    bool later = j && !stopping && queued_bytes + size <= MAX_QUEUED_BYTES && (running || start());
    if (later) {
        *j = (job){NULL, *dir, *key, kind, data, size, limit};
        if (tail)
            tail->next = j;
        else
            head = j;
        tail = j;
        queued_bytes += size;
        pthread_cond_broadcast(&changed);
    }
    pthread_mutex_unlock(&lock);
    if (!later) {
        free(j);
        uint64_t t0 = sxi_tl_begin();
        sxi_pcache_store_bounded(dir, key, kind, data, size, limit);
        if (SXI_UNLIKELY(t0)) {
            sxi_tl_args a = {.len = 0};
            a.buf[0] = 0;
            sxi_tl_arg_u64(&a, "bytes", size);
            sxi_tl_end(t0, "cache write", &a);
        }
        free(data);
    }
}

bool sxi_pcache_pending(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind *kind, void **data,
                        size_t *size)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    for (job *j = head; j && !found; j = j->next) {
        if (memcmp(j->key.digest, key->digest, sizeof(key->digest)) != 0 || strcmp(j->dir.path, dir->path) != 0)
            continue;
        void *copy = malloc(j->size ? j->size : 1);
        if (copy) {
            memcpy(copy, j->data, j->size);
            *kind = j->kind;
            *data = copy;
            *size = j->size;
            found = true;
        }
    }
    pthread_mutex_unlock(&lock);
    if (found)
        SXI_LOG(SX_LOG_DEBUG, "program cache: entry of %zu bytes from the writer's queue", *size);
    return found;
}

void sxi_pcache_flush(void)
{
    pthread_mutex_lock(&lock);
    while (head && running)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

SX_API sx_result sx_cache_flush(void)
{
    sxi_pcache_flush();
    return SX_SUCCESS;
}

void sxi_pcache_writer_stop(void)
{
    pthread_mutex_lock(&lock);
    if (running && stopping) {
        /* another thread is stopping it: wait for that */
        while (running)
            pthread_cond_wait(&changed, &lock);
    } else if (running) {
        stopping = true;
        pthread_cond_broadcast(&changed);
        pthread_t t = writer;
        pthread_mutex_unlock(&lock);
        pthread_join(t, NULL); /* it writes what is queued first */
        pthread_mutex_lock(&lock);
        running = stopping = false;
        pthread_cond_broadcast(&changed);
    }
    pthread_mutex_unlock(&lock);
}

/* Unloading the library (dlclose, or the process's exit): the writer's
 * code must not go away under it, and what it holds is written. */
__attribute__((destructor)) static void writer_unload(void) { sxi_pcache_writer_stop(); }
