/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* image-file.c: parse an image file (what proptool writes) into a registration descriptor. */
#include "sx-internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image-file.h"

/* Little-endian reads at any alignment. */
static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

typedef struct parser {
    const uint8_t *d;
    size_t size;
    size_t strings_off, strings_size;
    size_t img_rec, set_rec, prop_rec;
} parser;

static sx_result bad(const char *fmt, ...) SXI_PRINTF(1, 2);
static sx_result bad(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sxi_error(SX_ERROR_INVALID_BINARY, "image file: %s", msg);
}

/* Does [off, off + count * elem) lie inside the file (no overflow)? */
static bool in_file(const parser *p, uint64_t off, uint64_t count, uint64_t elem)
{
    if (off > p->size)
        return false;
    if (elem && count > (p->size - off) / elem)
        return false;
    return count * elem <= p->size - off;
}

/* A string reference: an offset into the string table, NUL-terminated
 * inside it (the table's last byte is checked to be NUL up front). */
static sx_result string_at(const parser *p, uint32_t ref, bool optional, const char **out, const char *what,
                           size_t at)
{
    if (ref == SXIMG_NO_STRING) {
        if (optional) {
            *out = NULL;
            return SX_SUCCESS;
        }
        return bad("byte %zu: %s is missing (no string)", at, what);
    }
    if (ref >= p->strings_size)
        return bad("byte %zu: %s: string offset %" PRIu32 " is outside the %zu-byte string table", at, what, ref,
                   p->strings_size);
    *out = (const char *)p->d + p->strings_off + ref;
    return SX_SUCCESS;
}

/* Counts of everything the descriptor will hold, from a first pass. */
typedef struct counts {
    size_t entries, sets, props;
} counts;

static sx_result check_prop(const parser *p, size_t at, const char *set, const char *name, uint32_t type,
                            uint64_t voff, uint64_t vsize)
{
    switch (type) {
    case SX_PROPERTY_TYPE_UINT32:
        if (vsize > UINT32_MAX)
            return bad("byte %zu: property '%s' of set '%s': UINT32 value %" PRIu64 " does not fit 32 bits", at, name,
                       set, vsize);
        return SX_SUCCESS;
    case SX_PROPERTY_TYPE_BYTE_ARRAY: {
        if (vsize < 8)
            return bad("byte %zu: property '%s' of set '%s': byte array of %" PRIu64
                       " bytes is shorter than its 8-byte size prefix", at, name, set, vsize);
        if (!in_file(p, voff, vsize, 1))
            return bad("byte %zu: property '%s' of set '%s': value at %" PRIu64 " (%" PRIu64
                       " bytes) runs past the end of the file (%zu bytes)", at, name, set, voff, vsize, p->size);
        uint64_t bits = rd64(p->d + voff);
        if ((bits + 7) / 8 != vsize - 8 || bits > (vsize - 8) * 8)
            return bad("byte %zu: property '%s' of set '%s': size prefix says %" PRIu64 " bits but %" PRIu64
                       " payload bytes follow", at, name, set, bits, vsize - 8);
        return SX_SUCCESS;
    }
    case SX_PROPERTY_TYPE_STRING:
        if (vsize == UINT64_MAX || !in_file(p, voff, vsize + 1, 1))
            return bad("byte %zu: property '%s' of set '%s': string at %" PRIu64 " (%" PRIu64
                       " bytes) runs past the end of the file (%zu bytes)", at, name, set, voff, vsize, p->size);
        if (p->d[voff + vsize] != 0 || memchr(p->d + voff, 0, (size_t)vsize))
            return bad("byte %zu: property '%s' of set '%s': string is not exactly %" PRIu64 " bytes then a NUL", at,
                       name, set, vsize);
        return SX_SUCCESS;
    default:
        return bad("byte %zu: property '%s' of set '%s': unknown type %" PRIu32, at, name, set, type);
    }
}

/* Validate everything; with `fill`, also build the descriptor. */
static sx_result walk(const parser *p, uint32_t nimg, uint64_t images_off, counts *c, sx_device_binaries *desc)
{
    sx_offload_entry *ent = NULL;
    sx_device_binary_property_set *sets = NULL;
    sx_device_binary_property *props = NULL;
    if (desc) {
        ent = (sx_offload_entry *)(desc->device_binaries + nimg);
        sets = (sx_device_binary_property_set *)(ent + c->entries);
        props = (sx_device_binary_property *)(sets + c->sets);
    }
    size_t ne = 0, ns = 0, np = 0, sbytes = 0;
    sx_result r;
    for (uint32_t i = 0; i < nimg; i++) {
        size_t at = (size_t)images_off + (size_t)i * p->img_rec;
        const uint8_t *rec = p->d + at;
        uint16_t bver = rd16(rec + SXIMG_I_BINARY_VERSION);
        uint8_t kind = rec[SXIMG_I_KIND], format = rec[SXIMG_I_FORMAT];
        if (bver != 1 && bver != 2)
            return bad("image %" PRIu32 " (record at byte %zu): binary version %u is not 1 or 2", i, at, bver);
        if (kind != SX_OFFLOAD_KIND_SYCL)
            return bad("image %" PRIu32 " (record at byte %zu): offload kind %u is not SYCL (%d)", i, at, kind,
                       SX_OFFLOAD_KIND_SYCL);
        if (format > SX_BINARY_FORMAT_COMPRESSED_NONE)
            return bad("image %" PRIu32 " (record at byte %zu): unknown format %u", i, at, format);
        const char *target = NULL, *copts = NULL, *lopts = NULL;
        if ((r = string_at(p, rd32(rec + SXIMG_I_TARGET), false, &target, "target", at + SXIMG_I_TARGET)) ||
            (r = string_at(p, rd32(rec + SXIMG_I_COMPILE_OPTIONS), true, &copts, "compile options",
                           at + SXIMG_I_COMPILE_OPTIONS)) ||
            (r = string_at(p, rd32(rec + SXIMG_I_LINK_OPTIONS), true, &lopts, "link options",
                           at + SXIMG_I_LINK_OPTIONS)))
            return r;
        uint64_t doff = rd64(rec + SXIMG_I_DATA_OFFSET), dsize = rd64(rec + SXIMG_I_DATA_SIZE);
        if (!dsize)
            return bad("image %" PRIu32 " (record at byte %zu): binary is empty", i, at);
        if (!in_file(p, doff, dsize, 1))
            return bad("image %" PRIu32 " (record at byte %zu): binary at %" PRIu64 " (%" PRIu64
                       " bytes) runs past the end of the file (%zu bytes)", i, at, doff, dsize, p->size);
        uint64_t eoff = rd64(rec + SXIMG_I_ENTRIES_OFFSET);
        uint32_t nent = rd32(rec + SXIMG_I_NUM_ENTRIES);
        if (!in_file(p, eoff, nent, 4))
            return bad("image %" PRIu32 " (record at byte %zu): %" PRIu32 " entries at %" PRIu64
                       " run past the end of the file", i, at, nent, eoff);
        /* Records may not be shared to multiply the work: all references
         * together may name no more records than the file can hold, so
         * parsing (and the descriptor) stays linear in the file's size. */
        if (ne + nent > p->size / 4)
            return bad("image %" PRIu32 " (record at byte %zu): %zu entry references in all, more than a file of %zu "
                       "bytes holds (records shared between images)", i, at, ne + nent, p->size);
        uint64_t soff = rd64(rec + SXIMG_I_SETS_OFFSET);
        uint32_t nset = rd32(rec + SXIMG_I_NUM_SETS);
        if (!in_file(p, soff, nset, p->set_rec))
            return bad("image %" PRIu32 " (record at byte %zu): %" PRIu32 " property sets at %" PRIu64
                       " run past the end of the file", i, at, nset, soff);
        if (ns + nset > p->size / p->set_rec)
            return bad("image %" PRIu32 " (record at byte %zu): %zu property-set references in all, more than a file "
                       "of %zu bytes holds (records shared between images)", i, at, ns + nset, p->size);
        sx_device_binary *b = desc ? &desc->device_binaries[i] : NULL;
        if (b) {
            b->version = bver;
            b->kind = kind;
            b->format = format;
            b->device_target_spec = target;
            b->compile_options = copts;
            b->link_options = lopts;
            b->binary_start = p->d + doff;
            b->binary_end = p->d + doff + dsize;
            b->entries_begin = ent + ne;
            b->entries_end = ent + ne + nent;
            b->property_sets_begin = sets + ns;
            b->property_sets_end = sets + ns + nset;
        }
        for (uint32_t e = 0; e < nent; e++, ne++) {
            const char *name = NULL;
            size_t eat = (size_t)eoff + (size_t)e * 4;
            if ((r = string_at(p, rd32(p->d + eat), false, &name, "entry name", eat)))
                return r;
            if (!*name)
                return bad("byte %zu: image %" PRIu32 " entry %" PRIu32 " has an empty name", eat, i, e);
            if (b)
                ent[ne] = (sx_offload_entry){.name = (char *)name};
        }
        for (uint32_t s = 0; s < nset; s++, ns++) {
            size_t sat = (size_t)soff + (size_t)s * p->set_rec;
            const uint8_t *sr = p->d + sat;
            const char *sname = NULL;
            if ((r = string_at(p, rd32(sr + SXIMG_S_NAME), false, &sname, "property set name", sat)))
                return r;
            uint32_t nprop = rd32(sr + SXIMG_S_NUM_PROPS);
            uint64_t poff = rd64(sr + SXIMG_S_PROPS_OFFSET);
            if (!in_file(p, poff, nprop, p->prop_rec))
                return bad("byte %zu: set '%s': %" PRIu32 " properties at %" PRIu64 " run past the end of the file",
                           sat, sname, nprop, poff);
            if (np + nprop > p->size / p->prop_rec)
                return bad("byte %zu: set '%s': %zu property references in all, more than a file of %zu bytes holds "
                           "(records shared between sets)", sat, sname, np + nprop, p->size);
            if (b)
                sets[ns] = (sx_device_binary_property_set){(char *)sname, props + np, props + np + nprop};
            for (uint32_t k = 0; k < nprop; k++, np++) {
                size_t pat = (size_t)poff + (size_t)k * p->prop_rec;
                const uint8_t *pr = p->d + pat;
                const char *pname = NULL;
                if ((r = string_at(p, rd32(pr + SXIMG_P_NAME), false, &pname, "property name", pat)))
                    return r;
                uint32_t type = rd32(pr + SXIMG_P_TYPE);
                uint64_t voff = rd64(pr + SXIMG_P_VALUE_OFFSET), vsize = rd64(pr + SXIMG_P_VALUE_SIZE);
                if ((r = check_prop(p, pat, sname, pname, type, voff, vsize)))
                    return r;
                /* A string's check reads it whole: the strings read in all
                 * are bounded by the file too (values shared to multiply it
                 * are refused). */
                if (type == SX_PROPERTY_TYPE_STRING && (vsize > p->size - sbytes))
                    return bad("byte %zu: property '%s' of set '%s': %" PRIu64 " more string bytes after %zu, more "
                               "than a file of %zu bytes holds (values shared)", pat, pname, sname, vsize, sbytes,
                               p->size);
                if (type == SX_PROPERTY_TYPE_STRING)
                    sbytes += (size_t)vsize;
                if (b)
                    props[np] = (sx_device_binary_property){
                        .name = (char *)pname,
                        .value_addr = type == SX_PROPERTY_TYPE_UINT32 ? NULL : (void *)(p->d + voff),
                        .type = type,
                        .value_size = vsize,
                    };
            }
        }
    }
    c->entries = ne;
    c->sets = ns;
    c->props = np;
    return SX_SUCCESS;
}

/* ------------------------------------------------------------ CRC-32C */

/* CRC-32C (Castagnoli): the SSE4.2 instruction where the CPU has it, else
 * a table; damage detection, not authentication (what a file may do is
 * checked field by field whatever its checksum says). */
static uint32_t crc32c_table(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t t[256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        t[i] = c;
    }
    while (n--)
        crc = t[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p, size_t n)
{
    uint64_t c = crc;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = __builtin_ia32_crc32di(c, w);
    }
    uint32_t c32 = (uint32_t)c;
    for (; n; n--)
        c32 = __builtin_ia32_crc32qi(c32, *p++);
    return c32;
}
#endif

uint32_t sxi_crc32c(const void *data, size_t n)
{
    const uint8_t *p = data;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2"))
        return ~crc32c_sse42(~0u, p, n);
#endif
    return ~crc32c_table(~0u, p, n);
}

/* A file with SXIMG_FLAG_CHECKSUMS: the trailer and table checked, then
 * every block; the first damaged block is named by its bytes. `*covered`:
 * the bytes before the table (the file as the rest of the parser sees it). */
static sx_result checksums(const parser *p, size_t *covered)
{
    if (p->size < SXIMG_HEADER_SIZE + SXIMG_TRAILER_SIZE)
        return bad("the checksum flag is set but %zu bytes hold no trailer", p->size);
    const uint8_t *tr = p->d + p->size - SXIMG_TRAILER_SIZE;
    uint64_t table = rd64(tr);
    uint32_t bs = rd32(tr + 8), want = rd32(tr + 12);
    if (bs < 4096 || bs > (1u << 24) || (bs & (bs - 1)))
        return bad("byte %zu: checksum block size %" PRIu32 " is not a power of two in 4 KiB..16 MiB",
                   p->size - SXIMG_TRAILER_SIZE + 8, bs);
    uint64_t blocks = table / bs + (table % bs != 0);
    if (table < SXIMG_HEADER_SIZE || table > p->size || blocks > (p->size - table) / 4 ||
        table + blocks * 4 + SXIMG_TRAILER_SIZE != p->size)
        return bad("byte %zu: the checksum table at %" PRIu64 " (%" PRIu64 " blocks of %" PRIu32
                   ") does not end where the file does (%zu bytes)", p->size - SXIMG_TRAILER_SIZE, table, blocks, bs,
                   p->size);
    if (sxi_crc32c(p->d + table, (size_t)(p->size - table - 4)) != want)
        return bad("bytes %" PRIu64 "..%zu: the checksum table or trailer is damaged", table, p->size - 1);
    for (uint64_t b = 0; b < blocks; b++) {
        uint64_t from = b * bs, len = table - from < bs ? table - from : bs;
        if (sxi_crc32c(p->d + from, (size_t)len) != rd32(p->d + table + b * 4))
            return bad("bytes %" PRIu64 "..%" PRIu64 " (block %" PRIu64 " of %" PRIu64
                       ") do not match their checksum: the file is damaged", from, from + len - 1, b, blocks);
    }
    *covered = (size_t)table;
    return SX_SUCCESS;
}

sx_result sxi_image_file_parse(const void *data, size_t size, sx_device_binaries **out)
{
    if (!data || !out)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sxi_image_file_parse: %s is NULL", data ? "out" : "data");
    *out = NULL;
    parser p = {.d = data, .size = size};
    if (size < SXIMG_HEADER_SIZE)
        return bad("truncated: %zu bytes, the header alone is %d", size, SXIMG_HEADER_SIZE);
    if (memcmp(p.d, SXIMG_MAGIC, SXIMG_MAGIC_SIZE))
        return bad("byte 0: bad magic: not a sycl-ext image file");
    uint16_t major = rd16(p.d + SXIMG_H_MAJOR), minor = rd16(p.d + SXIMG_H_MINOR);
    if (major != SXIMG_VERSION_MAJOR)
        return sxi_error(SX_ERROR_UNSUPPORTED_VERSION, "image file: version %u.%u: this library reads %d.x", major,
                         minor, SXIMG_VERSION_MAJOR);
    uint32_t hsize = rd32(p.d + SXIMG_H_HEADER_SIZE);
    uint64_t fsize = rd64(p.d + SXIMG_H_FILE_SIZE);
    if (hsize < SXIMG_HEADER_SIZE || hsize > size)
        return bad("byte %d: header size %" PRIu32 " is not within %d..%zu", SXIMG_H_HEADER_SIZE, hsize,
                   SXIMG_HEADER_SIZE, size);
    if (fsize != size)
        return bad("byte %d: the header says %" PRIu64 " bytes but there are %zu (%s)", SXIMG_H_FILE_SIZE, fsize, size,
                   fsize > size ? "truncated" : "trailing data");
    /* 1.1: checked before anything else is read; what follows reads only
     * the bytes the checksums cover. Files without the flag (1.0) load as before. */
    if (rd32(p.d + SXIMG_H_FLAGS) & SXIMG_FLAG_CHECKSUMS) {
        size_t covered = size;
        sx_result cr = checksums(&p, &covered);
        if (cr != SX_SUCCESS)
            return cr;
        p.size = covered;
    }
    uint32_t nimg = rd32(p.d + SXIMG_H_NUM_IMAGES);
    if (nimg > UINT16_MAX)
        return bad("byte %d: %" PRIu32 " images; at most %u fit a descriptor", SXIMG_H_NUM_IMAGES, nimg, UINT16_MAX);
    p.img_rec = rd16(p.d + SXIMG_H_IMAGE_RECORD_SIZE);
    p.set_rec = rd16(p.d + SXIMG_H_SET_RECORD_SIZE);
    p.prop_rec = rd16(p.d + SXIMG_H_PROP_RECORD_SIZE);
    /* Later minor versions may append fields to records; never shrink them. */
    if (p.img_rec < SXIMG_IMAGE_RECORD_SIZE || p.set_rec < SXIMG_SET_RECORD_SIZE ||
        p.prop_rec < SXIMG_PROP_RECORD_SIZE)
        return bad("byte %d: record sizes %zu/%zu/%zu are below version 1's %d/%d/%d", SXIMG_H_IMAGE_RECORD_SIZE,
                   p.img_rec, p.set_rec, p.prop_rec, SXIMG_IMAGE_RECORD_SIZE, SXIMG_SET_RECORD_SIZE,
                   SXIMG_PROP_RECORD_SIZE);
    uint64_t images_off = rd64(p.d + SXIMG_H_IMAGES_OFFSET);
    uint64_t soff = rd64(p.d + SXIMG_H_STRINGS_OFFSET), ssize = rd64(p.d + SXIMG_H_STRINGS_SIZE);
    if (!in_file(&p, images_off, nimg, p.img_rec))
        return bad("byte %d: %" PRIu32 " image records at %" PRIu64 " run past the end of the file (%zu bytes)",
                   SXIMG_H_IMAGES_OFFSET, nimg, images_off, size);
    if (!in_file(&p, soff, ssize, 1))
        return bad("byte %d: string table at %" PRIu64 " (%" PRIu64 " bytes) runs past the end of the file (%zu bytes)",
                   SXIMG_H_STRINGS_OFFSET, soff, ssize, size);
    if (ssize && p.d[soff + ssize - 1] != 0)
        return bad("byte %" PRIu64 ": the string table does not end with a NUL", soff + ssize - 1);
    p.strings_off = (size_t)soff;
    p.strings_size = (size_t)ssize;

    counts c = {0};
    sx_result r = walk(&p, nimg, images_off, &c, NULL);
    if (r)
        return r;
    /* One block holds the descriptor and every array it points to. */
    size_t bytes = sizeof(sx_device_binaries) + (size_t)nimg * sizeof(sx_device_binary) +
                   c.entries * sizeof(sx_offload_entry) + c.sets * sizeof(sx_device_binary_property_set) +
                   c.props * sizeof(sx_device_binary_property);
    sx_device_binaries *desc = calloc(1, bytes);
    if (!desc)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "image file: cannot allocate %zu bytes for its descriptor",
                         bytes);
    desc->version = SX_DEVICE_BINARIES_VERSION;
    desc->num_device_binaries = (uint16_t)nimg;
    desc->device_binaries = (sx_device_binary *)(desc + 1);
    r = walk(&p, nimg, images_off, &c, desc);
    if (r) {
        free(desc);
        return r;
    }
    *out = desc;
    return SX_SUCCESS;
}

void sxi_image_file_free(sx_device_binaries *desc)
{
    free(desc);
}
