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
 * plus the peak of live objects. */
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

#define QUARANTINE 1024u

/* The first 4 bytes of a dead object are its tag; the link goes after. */
struct dead {
    _Atomic uint32_t tag;
    struct dead *next;
};

static const size_t classes[] = {64, 128, 256, 512};

static struct {
    pthread_mutex_t lock;
    struct dead *head, *tail;   /* oldest first */
    uint32_t count;
} fifo[SXI_ARRAY_SIZE(classes)] = {
    {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0},
    {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0},
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
    void *p = NULL;
    pthread_mutex_lock(&fifo[c].lock);
    if (fifo[c].count > QUARANTINE) {
        struct dead *d = fifo[c].head;
        fifo[c].head = d->next;
        if (!fifo[c].head)
            fifo[c].tail = NULL;
        fifo[c].count--;
        p = d;
    }
    pthread_mutex_unlock(&fifo[c].lock);
    if (p) {
        memset((char *)p + sizeof(uint32_t), 0, classes[c] - sizeof(uint32_t));
        atomic_store_explicit((_Atomic uint32_t *)p, (uint32_t)SXI_TAG_DEAD, memory_order_relaxed);
        return p;
    }
    return calloc(1, classes[c]);
}

void sxi_handle_free(void *h, size_t size)
{
    if (!h)
        return;
    int c = class_of(size);
    struct dead *d = h;
    atomic_store_explicit(&d->tag, (uint32_t)SXI_TAG_DEAD, memory_order_release);
    if (c < 0) {
        free(h);
        return;
    }
    d->next = NULL;
    pthread_mutex_lock(&fifo[c].lock);
    if (fifo[c].tail)
        fifo[c].tail->next = d;
    else
        fifo[c].head = d;
    fifo[c].tail = d;
    fifo[c].count++;
    pthread_mutex_unlock(&fifo[c].lock);
}
