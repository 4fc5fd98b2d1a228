/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* hash.c: the open-addressing maps of hash.h (linear probing, tombstones). */
#include <stdlib.h>
#include <string.h>

#include "hash.h"

const char sxi_strmap_tomb[] = "";

uint64_t sxi_hash_bytes(const void *data, size_t n, uint64_t seed)
{
    const uint8_t *p = data;
    uint64_t h = 0xcbf29ce484222325ull ^ seed;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static bool strmap_grow(sxi_strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    if ((m->count + 1) * 2 < m->cap)
        cap = m->cap; /* only tombstones to clear */
    struct sxi_strmap_slot *s = calloc(cap, sizeof(*s));
    if (!s)
        return false;
    for (size_t i = 0; i < m->cap; i++) {
        struct sxi_strmap_slot *o = &m->slots[i];
        if (!o->key || o->key == sxi_strmap_tomb)
            continue;
        size_t j = o->hash & (cap - 1);
        while (s[j].key)
            j = (j + 1) & (cap - 1);
        s[j] = *o;
    }
    free(m->slots);
    m->slots = s;
    m->cap = cap;
    m->tombs = 0;
    return true;
}

static struct sxi_strmap_slot *strmap_find(const sxi_strmap *m, const char *key, uint64_t h)
{
    if (!m->cap)
        return NULL;
    for (size_t j = h & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
        struct sxi_strmap_slot *s = &m->slots[j];
        if (!s->key)
            return NULL;
        if (s->key != sxi_strmap_tomb && s->hash == h && strcmp(s->key, key) == 0)
            return s;
    }
}

bool sxi_strmap_put(sxi_strmap *m, const char *key, void *value)
{
    uint64_t h = sxi_hash_str(key);
    struct sxi_strmap_slot *s = strmap_find(m, key, h);
    if (s) {
        s->value = value;
        s->key = key;
        return true;
    }
    if ((m->count + m->tombs + 1) * 4 >= m->cap * 3 && !strmap_grow(m))
        return false;
    size_t j = h & (m->cap - 1);
    while (m->slots[j].key && m->slots[j].key != sxi_strmap_tomb)
        j = (j + 1) & (m->cap - 1);
    if (m->slots[j].key == sxi_strmap_tomb)
        m->tombs--;
    m->slots[j] = (struct sxi_strmap_slot){key, value, h};
    m->count++;
    return true;
}

void *sxi_strmap_get(const sxi_strmap *m, const char *key)
{
    struct sxi_strmap_slot *s = strmap_find(m, key, sxi_hash_str(key));
    return s ? s->value : NULL;
}

void *sxi_strmap_remove(sxi_strmap *m, const char *key)
{
    struct sxi_strmap_slot *s = strmap_find(m, key, sxi_hash_str(key));
    if (!s)
        return NULL;
    void *v = s->value;
    s->key = sxi_strmap_tomb;
    s->value = NULL;
    m->count--;
    m->tombs++;
    return v;
}

void sxi_strmap_free(sxi_strmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof(*m));
}

static inline uint64_t ptr_hash(uintptr_t p)
{
    uint64_t x = p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

static bool ptrmap_grow(sxi_ptrmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    if ((m->count + 1) * 2 < m->cap)
        cap = m->cap;
    struct sxi_ptrmap_slot *s = calloc(cap, sizeof(*s));
    if (!s)
        return false;
    for (size_t i = 0; i < m->cap; i++) {
        struct sxi_ptrmap_slot *o = &m->slots[i];
        if (o->key <= SXI_PTRMAP_TOMB)
            continue;
        size_t j = ptr_hash(o->key) & (cap - 1);
        while (s[j].key)
            j = (j + 1) & (cap - 1);
        s[j] = *o;
    }
    free(m->slots);
    m->slots = s;
    m->cap = cap;
    m->tombs = 0;
    return true;
}

static struct sxi_ptrmap_slot *ptrmap_find(const sxi_ptrmap *m, uintptr_t key)
{
    if (!m->cap || key <= SXI_PTRMAP_TOMB)
        return NULL;
    for (size_t j = ptr_hash(key) & (m->cap - 1);; j = (j + 1) & (m->cap - 1)) {
        struct sxi_ptrmap_slot *s = &m->slots[j];
        if (!s->key)
            return NULL;
        if (s->key == key)
            return s;
    }
}

bool sxi_ptrmap_put(sxi_ptrmap *m, const void *key, size_t size, uint32_t tag, void *value)
{
    uintptr_t k = (uintptr_t)key;
    struct sxi_ptrmap_slot *s = ptrmap_find(m, k);
    if (s) {
        s->size = size;
        s->tag = tag;
        s->value = value;
        return true;
    }
    if ((m->count + m->tombs + 1) * 4 >= m->cap * 3 && !ptrmap_grow(m))
        return false;
    size_t j = ptr_hash(k) & (m->cap - 1);
    while (m->slots[j].key > SXI_PTRMAP_TOMB)
        j = (j + 1) & (m->cap - 1);
    if (m->slots[j].key == SXI_PTRMAP_TOMB)
        m->tombs--;
    m->slots[j] = (struct sxi_ptrmap_slot){k, size, tag, value};
    m->count++;
    return true;
}

const struct sxi_ptrmap_slot *sxi_ptrmap_get(const sxi_ptrmap *m, const void *key)
{
    return ptrmap_find(m, (uintptr_t)key);
}

bool sxi_ptrmap_remove(sxi_ptrmap *m, const void *key)
{
    struct sxi_ptrmap_slot *s = ptrmap_find(m, (uintptr_t)key);
    if (!s)
        return false;
    s->key = SXI_PTRMAP_TOMB;
    m->count--;
    m->tombs++;
    return true;
}

void sxi_ptrmap_free(sxi_ptrmap *m)
{
    free(m->slots);
    memset(m, 0, sizeof(*m));
}
