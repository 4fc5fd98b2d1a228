/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* hash.h: small open-addressing hash maps (string keys, pointer keys). */
#ifndef SX_HASH_H
#define SX_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

uint64_t sxi_hash_bytes(const void *data, size_t n, uint64_t seed);
static inline uint64_t sxi_hash_str(const char *s)
{
    /* FNV-1a: short names, no length pass needed. */
    uint64_t h = 0xcbf29ce484222325ull;
    while (*s)
        h = (h ^ (uint8_t)*s++) * 0x100000001b3ull;
    return h;
}

/* String -> pointer. Keys are not copied: they must outlive their entry. */
typedef struct sxi_strmap {
    size_t cap, count, tombs;
    struct sxi_strmap_slot { const char *key; void *value; uint64_t hash; } *slots;
} sxi_strmap;

bool sxi_strmap_put(sxi_strmap *m, const char *key, void *value);  /* false: out of memory */
void *sxi_strmap_get(const sxi_strmap *m, const char *key);
void *sxi_strmap_remove(sxi_strmap *m, const char *key);
void sxi_strmap_free(sxi_strmap *m);
#define SXI_STRMAP_FOREACH(m, s) \
    for (struct sxi_strmap_slot *s = (m)->slots; (m)->slots && s < (m)->slots + (m)->cap; s++) \
        if (s->key && s->key != sxi_strmap_tomb)
extern const char sxi_strmap_tomb[];

/* Pointer -> (size, tag, value). */
typedef struct sxi_ptrmap {
    size_t cap, count, tombs;
    struct sxi_ptrmap_slot { uintptr_t key; size_t size; uint32_t tag; void *value; } *slots;
} sxi_ptrmap;

bool sxi_ptrmap_put(sxi_ptrmap *m, const void *key, size_t size, uint32_t tag, void *value);
const struct sxi_ptrmap_slot *sxi_ptrmap_get(const sxi_ptrmap *m, const void *key);
bool sxi_ptrmap_remove(sxi_ptrmap *m, const void *key);
void sxi_ptrmap_free(sxi_ptrmap *m);
#define SXI_PTRMAP_TOMB ((uintptr_t)1)
#define SXI_PTRMAP_FOREACH(m, s) \
    for (struct sxi_ptrmap_slot *s = (m)->slots; (m)->slots && s < (m)->slots + (m)->cap; s++) \
        if (s->key > SXI_PTRMAP_TOMB)

#endif
