/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* handle.c: memory of public objects, so released handles stay caught.
 *
 * A released object is never given back to malloc: its tag is set dead
 * (an atomic store the compiler keeps) and it waits in a quarantine. A
 * stale handle therefore reads a dead tag from live memory, in every
 * build, under valgrind and under ASan (which would report a read of
 * freed memory).
 *
 * The quarantine is per thread, so that the common case (one thread makes
 * and releases events) takes no lock and touches no shared line: each
 * thread's record (epoch.c keeps one per thread and hands it to the next
 * thread when one ends) holds, per size class, a FIFO ring of the objects
 * it released. An object is reused only once QUARANTINE objects of its
 * class were released after it by the same thread, that is after at
 * least that many later releases; a handle used after that may alias a
 * new object, as with any pointer handle. Objects past that age leave a
 * full ring in batches for a shared pool, where any thread takes them
 * (a thread that only makes objects, fed by one that only releases them,
 * does not make the heap grow).
 *
 * Objects come from slabs that are never freed while the library is
 * loaded: everything is reachable (no leak report), and
 * sxi_handle_foreach can visit every object of a class (context teardown
 * finds the events the application left that way, so events need no
 * list of their own). */
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

#define QUARANTINE SXI_HANDLE_QUARANTINE
#define BATCH SXI_HANDLE_BATCH
#define SLAB_BYTES 4096u  /* objects of one slab: SLAB_BYTES / size, at least 8 */

static const size_t classes[SXI_HANDLE_CLASSES] = {64, 128, 256, 512}; /* sxi_handle_class's */

/* A slab: this header (one line) then its objects, each on its own lines. */
typedef struct slab {
    struct slab *next;
    uint32_t count;
} slab;
#define SLAB_HEAD 64u

static struct {
    pthread_mutex_t lock;
    _Atomic(slab *) slabs; /* newest first; never unlinked */
    uint32_t fresh;        /* objects of the newest slab not handed out yet */
    void **pool;           /* aged objects any thread may reuse */
    uint32_t pooled, pool_cap;
} cls[SXI_HANDLE_CLASSES] = {
    {PTHREAD_MUTEX_INITIALIZER, NULL, 0, NULL, 0, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, 0, NULL, 0, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, 0, NULL, 0, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, 0, NULL, 0, 0},
};

static uint32_t slab_objects(int c)
{
    uint32_t n = (uint32_t)(SLAB_BYTES / classes[c]);
    return n < 8 ? 8 : n;
}

static inline void *slab_object(slab *s, int c, uint32_t i)
{
    return (char *)s + SLAB_HEAD + (size_t)i * classes[c];
}

/* Up to `want` objects of class c for a thread (lock held): aged ones from
 * the pool first, then fresh ones from the newest slab or a new one. */
static uint32_t take_locked(int c, void **out, uint32_t want)
{
    uint32_t n = 0;
    while (n < want && cls[c].pooled)
        out[n++] = cls[c].pool[--cls[c].pooled];
    while (n < want) {
        slab *s = atomic_load_explicit(&cls[c].slabs, memory_order_relaxed);
        if (!cls[c].fresh) {
            uint32_t count = slab_objects(c);
            slab *ns = aligned_alloc(64, SLAB_HEAD + (size_t)count * classes[c]);
            if (!ns)
                break;
            memset(ns, 0, SLAB_HEAD + (size_t)count * classes[c]); /* tags read 0: no object */
            ns->count = count;
            ns->next = s;
            atomic_store_explicit(&cls[c].slabs, ns, memory_order_release);
            cls[c].fresh = count;
            s = ns;
        }
        out[n++] = slab_object(s, c, s->count - cls[c].fresh--);
    }
    return n;
}

/* A batch of spare objects for a thread whose quarantine is young. */
static SXI_COLD uint32_t refill(int c, struct sxi_handle_cache *h)
{
    pthread_mutex_lock(&cls[c].lock);
    uint32_t n = take_locked(c, h->spare, BATCH);
    pthread_mutex_unlock(&cls[c].lock);
    return n;
}

/* The calling thread's cache of class c (its epoch record's). */
static inline struct sxi_handle_cache *my_cache(int c)
{
    struct sxi_epoch_rec *r = sxi_epoch_me;
    if (SXI_UNLIKELY(!r))
        r = sxi_epoch_register();
    return &r->handles[c];
}

SXI_HOT void *sxi_handle_new_class(int c)
{
    struct sxi_handle_cache *h = my_cache(c);
    void *p;
    if (h->count > QUARANTINE) {
        /* the oldest of the ring; the next oldest is fetched for the next taker */
        p = h->ring[h->head];
        h->head = h->head + 1 == h->cap ? 0 : h->head + 1;
        if (--h->count > QUARANTINE)
            __builtin_prefetch(h->ring[h->head], 1);
    } else {
        if (SXI_UNLIKELY(!h->ready) && !(h->ready = refill(c, h)))
            return NULL;
        p = h->spare[--h->ready];
    }
    atomic_store_explicit((_Atomic uint32_t *)p, (uint32_t)SXI_TAG_DEAD, memory_order_relaxed);
    return p;
}

/* Room in a thread's ring: its first, or the BATCH oldest of a full one
 * go to the pool (they are past their age). False: no ring (no memory). */
static SXI_COLD bool ring_room(int c, struct sxi_handle_cache *h)
{
    if (!h->ring) {
        if (!(h->ring = malloc((QUARANTINE + BATCH) * sizeof(*h->ring))))
            return false;
        h->cap = QUARANTINE + BATCH;
        return true;
    }
    pthread_mutex_lock(&cls[c].lock);
    if (cls[c].pooled + BATCH > cls[c].pool_cap) {
        uint32_t cap = cls[c].pool_cap ? cls[c].pool_cap * 2 : 4 * BATCH;
        void **pool = realloc(cls[c].pool, cap * sizeof(*pool));
        if (pool) {
            cls[c].pool = pool;
            cls[c].pool_cap = cap;
        }
    }
    for (uint32_t i = 0; i < BATCH; i++) {
        /* with no room (out of memory) an aged object is simply not reused */
        if (cls[c].pooled < cls[c].pool_cap)
            cls[c].pool[cls[c].pooled++] = h->ring[h->head];
        h->head = h->head + 1 == h->cap ? 0 : h->head + 1;
    }
    h->count -= BATCH;
    pthread_mutex_unlock(&cls[c].lock);
    return true;
}

SXI_HOT void sxi_handle_free_class(void *p, int c)
{
    atomic_store_explicit((_Atomic uint32_t *)p, (uint32_t)SXI_TAG_DEAD, memory_order_release);
    struct sxi_handle_cache *h = my_cache(c);
    if (SXI_UNLIKELY(h->count == h->cap) && !ring_room(c, h))
        return; /* out of memory for a ring: the object stays dead and unused */
    uint32_t tail = h->head + h->count;
    h->ring[tail >= h->cap ? tail - h->cap : tail] = p;
    h->count++;
}

void sxi_handle_foreach(size_t size, void (*fn)(void *object, void *arg), void *arg)
{
    int c = sxi_handle_class(size);
    if (c < 0)
        return;
    for (slab *s = atomic_load_explicit(&cls[c].slabs, memory_order_acquire); s; s = s->next)
        for (uint32_t i = 0; i < s->count; i++)
            fn(slab_object(s, c, i), arg);
}
