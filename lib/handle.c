/* handle.c: memory of public objects, so released handles stay caught.
 *
 * A released object is never given back to malloc: its tag is set dead
 * (an atomic store the compiler keeps) and it waits in a FIFO quarantine
 * of its size class. A stale handle therefore reads a dead tag from live
 * memory, in every build, under valgrind and under ASan (which would
 * report a read of freed memory). The memory is reused only once the
 * class's quarantine holds QUARANTINE objects, that is after at least that
 * many later releases of objects of its size; a handle used after that may
 * alias a new object, as with any pointer handle. What the quarantine holds
 * stays reachable (no leak report) and is bounded by QUARANTINE per class
 * plus the peak of live objects (in memory short enough that the ring
 * cannot grow, the oldest goes back to malloc instead). */
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

#define QUARANTINE 1024u

static const size_t classes[] = {64, 128, 256, 512};

/* Each class's quarantine is a ring of pointers, oldest at `head`: taking
 * the oldest reads no link from its memory (released a thousand objects
 * ago, it is out of the caches: that miss was most of an event's cost),
 * and the next oldest is prefetched for the next taker. */
static struct {
    pthread_mutex_t lock;
    uint32_t head, count, cap;
    void **ring;
} fifo[SXI_ARRAY_SIZE(classes)] = {
    {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, NULL},
    {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, NULL},
    {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, NULL},
    {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, NULL},
};

static int class_of(size_t size)
{
    for (size_t i = 0; i < SXI_ARRAY_SIZE(classes); i++)
        if (size <= classes[i])
            return (int)i;
    return -1;
}

void *sxi_handle_new(size_t size)
{
    int c = class_of(size);
    if (c < 0)
        return calloc(1, size); /* no public object is that large (kept for safety) */
    void *p = NULL, *next = NULL;
    pthread_mutex_lock(&fifo[c].lock);
    if (fifo[c].count > QUARANTINE) {
        p = fifo[c].ring[fifo[c].head];
        fifo[c].head = (fifo[c].head + 1) % fifo[c].cap;
        if (--fifo[c].count > QUARANTINE)
            next = fifo[c].ring[fifo[c].head];
    }
    pthread_mutex_unlock(&fifo[c].lock);
    if (next)
        __builtin_prefetch(next, 1);
    if (p) {
        memset((char *)p + sizeof(uint32_t), 0, classes[c] - sizeof(uint32_t));
        atomic_store_explicit((_Atomic uint32_t *)p, (uint32_t)SXI_TAG_DEAD, memory_order_relaxed);
        return p;
    }
    return calloc(1, classes[c]);
}

/* Room for one more in class c's ring (lock held): it doubles; if that
 * fails, the oldest leaves the quarantine for malloc. */
static void ring_make_room(int c)
{
    if (fifo[c].count < fifo[c].cap)
        return;
    uint32_t cap = fifo[c].cap ? fifo[c].cap * 2 : 2 * QUARANTINE;
    void **ring = malloc(cap * sizeof(*ring));
    if (!ring) {
        if (!fifo[c].cap)
            return; /* no ring yet: the caller frees */
        free(fifo[c].ring[fifo[c].head]);
        fifo[c].head = (fifo[c].head + 1) % fifo[c].cap;
        fifo[c].count--;
        return;
    }
    for (uint32_t i = 0; i < fifo[c].count; i++)
        ring[i] = fifo[c].ring[(fifo[c].head + i) % fifo[c].cap];
    free(fifo[c].ring);
    fifo[c].ring = ring;
    fifo[c].head = 0;
    fifo[c].cap = cap;
}

void sxi_handle_free(void *h, size_t size)
{
    if (!h)
        return;
    int c = class_of(size);
    atomic_store_explicit((_Atomic uint32_t *)h, (uint32_t)SXI_TAG_DEAD, memory_order_release);
    if (c < 0) {
        free(h);
        return;
    }
    pthread_mutex_lock(&fifo[c].lock);
    ring_make_room(c);
    if (fifo[c].count < fifo[c].cap) {
        fifo[c].ring[(fifo[c].head + fifo[c].count) % fifo[c].cap] = h;
        fifo[c].count++;
        h = NULL;
    }
    pthread_mutex_unlock(&fifo[c].lock);
    free(h); /* no ring at all (out of memory): no quarantine either */
}
