/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sig-encode.h: write "SX/kernel signatures" values by hand in tests
 * (records as binaries.h defines them, without struct members). */
#ifndef SX_SIG_ENCODE_H
#define SX_SIG_ENCODE_H

#include <stdint.h>
#include <string.h>

/* One record: kind, scalar, size, align, address space, source index. */
typedef struct { uint32_t kind, scalar, size, align, as, src; } rec;

typedef struct {
    uint8_t bytes[512];
    size_t len;
} blob;

static inline void sig_put32(uint8_t **p, uint32_t v)
{
    memcpy(*p, &v, 4);
    *p += 4;
}

/* The property value (64-bit bit count, then the payload) of a kernel. */
static inline void encode(blob *b, uint32_t kind, uint32_t dims, uint32_t nsrc, const rec *r, uint32_t n)
{
    uint8_t *p = b->bytes + 8;
    sig_put32(&p, 1), sig_put32(&p, kind), sig_put32(&p, dims), sig_put32(&p, nsrc), sig_put32(&p, n);
    for (uint32_t i = 0; i < n; i++) {
        sig_put32(&p, r[i].kind), sig_put32(&p, r[i].scalar), sig_put32(&p, r[i].size), sig_put32(&p, r[i].align);
        sig_put32(&p, r[i].as), sig_put32(&p, r[i].src), sig_put32(&p, 0);
    }
    b->len = (size_t)(p - b->bytes);
    uint64_t bits = (b->len - 8) * 8;
    memcpy(b->bytes, &bits, 8);
}

#endif
