/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* container.c: the binary of a linked native program. program.get_binary
 * of a linked program gives its component images in one container, and
 * program.create of such a container makes a program whose build links
 * them again (no program.link, so the core's persistent cache can hold
 * linked native programs). Layout, all integers little-endian:
 *
 *   0   "SXNATLNK"           8-byte magic
 *   8   uint32 version       1
 *   12  uint32 count         1 to SXN_MAX_PARTS images
 *   16  uint64 size[count]   each image's length
 *   ..  the images, back to back; nothing follows the last one
 *
 * Every length is checked against the container's size before use. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static const unsigned char magic[8] = {'S', 'X', 'N', 'A', 'T', 'L', 'N', 'K'};

bool sxn_container_is(const void *bytes, size_t size)
{
    return bytes && size >= sizeof(magic) && memcmp(bytes, magic, sizeof(magic)) == 0;
}

static uint64_t get_le(const unsigned char *b, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static void put_le(unsigned char *b, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        b[i] = (unsigned char)(v >> (8 * i));
}

sx_result sxn_container_parse(const unsigned char *b, size_t size, uint32_t *count,
                              const unsigned char ***parts, size_t **sizes)
{
    if (size < 16)
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: linked-program container of %zu bytes is shorter than its 16-byte header", size);
    uint32_t version = (uint32_t)get_le(b + 8, 4), n = (uint32_t)get_le(b + 12, 4);
    if (version != SXN_CONTAINER_VERSION)
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: linked-program container version %u (this adapter reads %u)", version,
                         SXN_CONTAINER_VERSION);
    if (n == 0 || n > SXN_MAX_PARTS)
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: linked-program container holds %u images (1 to %u)", n, SXN_MAX_PARTS);
    size_t at = 16 + (size_t)n * 8;
    if (at > size)
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: linked-program container of %zu bytes is too short for %u image lengths", size, n);
    const unsigned char **p = calloc(n, sizeof(*p));
    size_t *s = calloc(n, sizeof(*s));
    if (!p || !s) {
        free(p);
        free(s);
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory reading a linked-program container");
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t len = get_le(b + 16 + (size_t)i * 8, 8);
        if (len == 0 || len > size - at) {
            free(p);
            free(s);
            return sxn_error(SX_ERROR_INVALID_BINARY,
                             "native: linked-program container image %u claims %llu bytes; %zu remain of %zu", i,
                             (unsigned long long)len, size - at, size);
        }
        p[i] = b + at;
        s[i] = (size_t)len;
        at += (size_t)len;
    }
    if (at != size) {
        free(p);
        free(s);
        return sxn_error(SX_ERROR_INVALID_BINARY,
                         "native: linked-program container has %zu bytes after its %u images", size - at, n);
    }
    *count = n;
    *parts = p;
    *sizes = s;
    return SX_SUCCESS;
}

sx_result sxn_container_make(uint32_t n, const unsigned char *const *parts, const size_t *sizes,
                             unsigned char **out, size_t *out_size)
{
    size_t total = 16 + (size_t)n * 8;
    for (uint32_t i = 0; i < n; i++)
        total += sizes[i];
    unsigned char *b = malloc(total);
    if (!b)
        return sxn_error(SX_ERROR_OUT_OF_HOST_MEMORY, "native: out of memory for a %zu-byte linked program", total);
    memcpy(b, magic, sizeof(magic));
    put_le(b + 8, SXN_CONTAINER_VERSION, 4);
    put_le(b + 12, n, 4);
    size_t at = 16 + (size_t)n * 8;
    for (uint32_t i = 0; i < n; i++) {
        put_le(b + 16 + (size_t)i * 8, sizes[i], 8);
        memcpy(b + at, parts[i], sizes[i]);
        at += sizes[i];
    }
    *out = b;
    *out_size = total;
    return SX_SUCCESS;
}
