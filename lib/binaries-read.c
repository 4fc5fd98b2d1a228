/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* binaries-read.c: reading a registration descriptor in every layout DPC++
 * has shipped (device-image struct versions 1, 2 and 3; 32-byte and 56-byte
 * offload entries; zstd-compressed images) into one internal form: version-2
 * sx_device_binary records with 32-byte entries, which the rest of the core
 * reads. Layouts: doc/image-format.md, "DPC++'s layouts". */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_ZSTD
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_findFrameCompressedSize is stable since 1.3.x; no-op otherwise */
#include <zstd.h>
#endif

#include "sx-internal.h"

/* Record sizes by layout (x86-64: 8-byte pointers). */
#define V12_SIZE sizeof(sx_device_binary)     /* 96: versions 1 and 2 */
#define V3_SIZE sizeof(sx_device_binary_v3)   /* 80: version 3 */
#define ENTRY_SIZE sizeof(sx_offload_entry)   /* 32 */
#define LLVM_ENTRY_SIZE sizeof(sx_offload_entry_llvm) /* 56 */
_Static_assert(sizeof(sx_device_binary) == 96, "version 1/2 record is 96 bytes");
_Static_assert(sizeof(sx_device_binary_v3) == 80, "version 3 record is 80 bytes");
_Static_assert(sizeof(sx_offload_entry) == 32, "legacy entry is 32 bytes");
_Static_assert(sizeof(sx_offload_entry_llvm) == 56, "LLVM entry is 56 bytes");

#define MAX_ENTRIES (1u << 20)

static sx_result bad(uint32_t img, const char *fmt, ...) SXI_PRINTF(2, 3);
static sx_result bad(uint32_t img, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return sxi_error(SX_ERROR_INVALID_BINARY, "sx_register_images: image %u: %s", img, msg);
}

/* DPC++'s test (compiler.hpp, IsNewOffloadEntryType): an LLVM entry starts
 * with 8 zero bytes, version 1, kind OFK_SYCL and zero flags. A legacy
 * entry would need the name pointer 0x80001 to look like one. */
static bool entry_is_llvm(const uint8_t *e)
{
    sx_offload_entry_llvm h;
    memcpy(&h, e, 16);
    return h.reserved == 0 && h.version == SX_OFFLOAD_ENTRY_LLVM_VERSION &&
           h.kind == SX_OFFLOAD_ENTRY_LLVM_KIND_SYCL && h.flags == 0;
}

/* The entry table of image `i`: its layout (0 when empty) and count. */
static sx_result entries_layout(uint32_t i, const sx_device_binary *b, uint8_t *layout, size_t *count)
{
    *layout = 0;
    *count = 0;
    if ((b->entries_begin == NULL) != (b->entries_end == NULL) || b->entries_end < b->entries_begin)
        return bad(i, "entry range [%p, %p) is not valid", (void *)b->entries_begin, (void *)b->entries_end);
    const uint8_t *e = (const uint8_t *)b->entries_begin;
    size_t bytes = (size_t)((const uint8_t *)b->entries_end - e);
    if (!bytes)
        return SX_SUCCESS;
    if (bytes < ENTRY_SIZE)
        return bad(i, "entry range of %zu bytes holds no whole entry", bytes);
    bool llvm = bytes >= LLVM_ENTRY_SIZE && entry_is_llvm(e);
    size_t step = llvm ? LLVM_ENTRY_SIZE : ENTRY_SIZE;
    if (bytes % step || bytes / step > MAX_ENTRIES)
        return bad(i, "entry range of %zu bytes is not a whole number of %zu-byte %s entries (at most %u)", bytes,
                   step, llvm ? "LLVM" : "legacy", MAX_ENTRIES);
    for (size_t off = 0; off < bytes; off += step)
        if (entry_is_llvm(e + off) != llvm)
            return bad(i, "entry %zu is a %s entry in a table of %s entries (a mixed table is refused)", off / step,
                       llvm ? "legacy 32-byte" : "56-byte LLVM", llvm ? "56-byte LLVM" : "legacy 32-byte");
    *layout = (uint8_t)step;
    *count = bytes / step;
    return SX_SUCCESS;
}

/* ------------------------------------------------------------- zstd */

bool sxi_zstd_available(void)
{
#ifdef HAVE_ZSTD
    return true;
#else
    return false;
#endif
}

/* The decompressed size a compressed image states, checked; on failure
 * `why` says what is wrong, in a clause. */
static sx_result zstd_size(const uint8_t *src, size_t n, uint64_t *size, char *why, size_t why_size)
{
#ifdef HAVE_ZSTD
    unsigned long long want = ZSTD_getFrameContentSize(src, n);
    if (want == ZSTD_CONTENTSIZE_ERROR) {
        snprintf(why, why_size, "the compressed image (%zu bytes) is not a zstd frame: it starts with %02x %02x %02x %02x",
                 n, n > 0 ? src[0] : 0, n > 1 ? src[1] : 0, n > 2 ? src[2] : 0, n > 3 ? src[3] : 0);
        return SX_ERROR_INVALID_BINARY;
    }
    if (want == ZSTD_CONTENTSIZE_UNKNOWN) {
        snprintf(why, why_size, "the compressed image's zstd frame (%zu bytes) does not state its decompressed size", n);
        return SX_ERROR_INVALID_BINARY;
    }
    if (want == 0 || want > SX_MAX_DECOMPRESSED_SIZE) {
        snprintf(why, why_size, "the compressed image (%zu bytes) claims %llu bytes decompressed (1 to %llu allowed)", n,
                 want, (unsigned long long)SX_MAX_DECOMPRESSED_SIZE);
        return SX_ERROR_INVALID_BINARY;
    }
    size_t frame = ZSTD_findFrameCompressedSize(src, n);
    if (ZSTD_isError(frame)) {
        snprintf(why, why_size, "the compressed image (%zu bytes) is damaged: zstd: %s", n, ZSTD_getErrorName(frame));
        return SX_ERROR_INVALID_BINARY;
    }
    if (frame != n) {
        snprintf(why, why_size, "the compressed image is %zu bytes but its zstd frame is %zu (one frame, nothing after it)",
                 n, frame);
        return SX_ERROR_INVALID_BINARY;
    }
    *size = want;
    return SX_SUCCESS;
#else
    (void)src;
    (void)size;
    snprintf(why, why_size, "the image is zstd-compressed (format %u, %zu bytes), but this build of libsycl-ext has no "
             "zstd support (it was configured without libzstd)", SX_BINARY_FORMAT_COMPRESSED_NONE, n);
    return SX_ERROR_UNSUPPORTED_FEATURE;
#endif
}

sx_result sxi_zstd_check(uint32_t img, const uint8_t *src, size_t n, uint64_t *size)
{
    char why[512];
    sx_result r = zstd_size(src, n, size, why, sizeof(why));
    if (r != SX_SUCCESS)
        return sxi_error(r, "sx_register_images: image %u: %s", img, why);
    return SX_SUCCESS;
}

size_t sxi_zstd_peek(const uint8_t *src, size_t n, uint8_t *out, size_t cap)
{
#ifdef HAVE_ZSTD
    ZSTD_DStream *z = ZSTD_createDStream();
    if (!z)
        return 0;
    ZSTD_inBuffer in = {src, n, 0};
    ZSTD_outBuffer o = {out, cap, 0};
    /* Each call decodes at most a block into the stream's window, so this
     * is bounded by one block (128 KiB) however big the image is. */
    for (int guard = 0; o.pos < cap && in.pos < n && guard < 64; guard++) {
        size_t r = ZSTD_decompressStream(z, &o, &in);
        if (ZSTD_isError(r)) {
            o.pos = 0;
            break;
        }
        if (r == 0)
            break;
    }
    ZSTD_freeDStream(z);
    return o.pos;
#else
    (void)src;
    (void)n;
    (void)out;
    (void)cap;
    return 0;
#endif
}

sx_result sxi_zstd_expand(const uint8_t *src, size_t n, uint8_t **out, size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    uint64_t want = 0;
    char why[512];
    sx_result r = zstd_size(src, n, &want, why, sizeof(why));
    if (r != SX_SUCCESS)
        return sxi_error(r, "%s", why);
#ifdef HAVE_ZSTD
    uint8_t *buf = malloc((size_t)want);
    if (!buf)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory decompressing %zu bytes into %llu",
                         n, (unsigned long long)want);
    size_t got = ZSTD_decompress(buf, (size_t)want, src, n);
    if (ZSTD_isError(got) || got != want) {
        free(buf);
        return sxi_error(SX_ERROR_INVALID_BINARY, "the compressed image (%zu bytes, %llu stated) is damaged: %s%s", n,
                         (unsigned long long)want, ZSTD_isError(got) ? "zstd: " : "it decompressed to fewer bytes",
                         ZSTD_isError(got) ? ZSTD_getErrorName(got) : "");
    }
    *out = buf;
    *out_size = (size_t)want;
    return SX_SUCCESS;
#endif
}

sx_result sxi_image_expand(sxi_image *im)
{
    if (!im->compressed || im->expanded)
        return SX_SUCCESS;
    uint8_t *buf;
    size_t size;
    sx_result r = sxi_zstd_expand(im->bin->binary_start, (size_t)(im->bin->binary_end - im->bin->binary_start), &buf,
                                  &size);
    if (r != SX_SUCCESS) {
        sxi_error_prefix("image %llu (%s, first kernel '%s')", (unsigned long long)im->id,
                         sxi_image_kind_name(im->kind), im->num_entries ? im->entries[0] : "none");
        return r;
    }
    im->expanded = buf;
    im->data = buf;
    im->size = size;
    SXI_LOG(SX_LOG_INFO, "image %llu: decompressed %zu bytes into %zu", (unsigned long long)im->id,
            (size_t)(im->bin->binary_end - im->bin->binary_start), size);
    return SX_SUCCESS;
}

/* ------------------------------------------------------- the reading */

/* One record as written, in the normal form (entries not converted yet). */
static sx_result read_record(uint32_t i, const uint8_t *p, sx_device_binary *b, size_t *record_size)
{
    uint16_t version;
    memcpy(&version, p, 2);
    switch (version) {
    case SX_DEVICE_BINARY_VERSION_1:
    case SX_DEVICE_BINARY_VERSION_2:
        memcpy(b, p, V12_SIZE);
        *record_size = V12_SIZE;
        break;
    case SX_DEVICE_BINARY_VERSION_3: {
        sx_device_binary_v3 v;
        memcpy(&v, p, V3_SIZE);
        *b = (sx_device_binary){
            .version = v.version,
            .kind = v.kind,
            .format = v.format,
            .device_target_spec = v.device_target_spec,
            .compile_options = v.compile_options,
            .link_options = v.link_options,
            .binary_start = v.binary_start,
            .binary_end = v.binary_end,
            .entries_begin = v.entries_begin,
            .entries_end = v.entries_end,
            .property_sets_begin = v.property_sets_begin,
            .property_sets_end = v.property_sets_end,
        };
        *record_size = V3_SIZE;
        break;
    }
    default:
        return bad(i, "binary version %u is unknown (this library reads 1, 2 and 3)", version);
    }
    return SX_SUCCESS;
}

/* "-ftarget-register-alloc-mode=<arch>:<option>[,...]" is DPC++'s front-end
 * option, kept in the image for its runtime, which turns it into <option>
 * on a Level Zero device of that <arch> and drops it everywhere else.
 * Backends here reject it (Intel's CPU OpenCL: CL_INVALID_BUILD_OPTIONS),
 * so the normal form holds the options without it. NULL: nothing to drop. */
static char *without_dpcpp_options(const char *opts)
{
    static const char key[] = "-ftarget-register-alloc-mode=";
    if (!opts || !strstr(opts, key))
        return NULL;
    size_t n = strlen(opts);
    char *out = malloc(n + 1), *w = out;
    if (!out)
        return NULL;
    for (const char *p = opts; *p;) {
        while (*p == ' ')
            *w++ = *p++;
        const char *end = strchr(p, ' ');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (strncmp(p, key, sizeof(key) - 1) != 0) {
            memcpy(w, p, len);
            w += len;
        }
        p += len;
    }
    *w = '\0';
    return out;
}

void sxi_binaries_read_free(sxi_desc_read *rd)
{
    if (!rd)
        return;
    for (uint32_t i = 0; rd->options && i < rd->desc.num_device_binaries; i++)
        free(rd->options[i]);
    free(rd->options);
    free(rd->bins);
    free(rd->info);
    free(rd->entries);
    free(rd);
}

sx_result sxi_binaries_read(const sx_device_binaries *desc, sxi_desc_read **out)
{
    *out = NULL;
    uint32_t n = desc->num_device_binaries;
    sxi_desc_read *rd = calloc(1, sizeof(*rd));
    if (rd)
        rd->desc.num_device_binaries = (uint16_t)n; /* for the free below */
    if (!rd || !(rd->bins = calloc(n ? n : 1, sizeof(*rd->bins))) || !(rd->info = calloc(n ? n : 1, sizeof(*rd->info)))) {
        sxi_binaries_read_free(rd);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory reading %u images", n);
    }
    const uint8_t *p = (const uint8_t *)desc->device_binaries;
    size_t llvm_entries = 0;
    for (uint32_t i = 0; i < n; i++) {
        size_t rec = 0;
        sx_result r = read_record(i, p, &rd->bins[i], &rec);
        if (r == SX_SUCCESS)
            r = entries_layout(i, &rd->bins[i], &rd->info[i].entry_size, &rd->info[i].num_entries);
        if (r == SX_SUCCESS && rd->bins[i].format == SX_BINARY_FORMAT_COMPRESSED_NONE) {
            const sx_device_binary *b = &rd->bins[i];
            if (!b->binary_start || b->binary_end <= b->binary_start)
                r = bad(i, "binary range [%p, %p) of the compressed image is not valid", (const void *)b->binary_start,
                        (const void *)b->binary_end);
            else
                r = sxi_zstd_check(i, b->binary_start, (size_t)(b->binary_end - b->binary_start),
                                   &rd->info[i].expanded_size);
        }
        if (r != SX_SUCCESS) {
            sxi_binaries_read_free(rd);
            return r;
        }
        rd->info[i].version = rd->bins[i].version;
        rd->info[i].format = rd->bins[i].format;
        if (rd->info[i].entry_size == LLVM_ENTRY_SIZE)
            llvm_entries += rd->info[i].num_entries;
        /* The normal form is version 2 whatever was written. */
        rd->bins[i].version = SX_DEVICE_BINARY_VERSION_2;
        char *opts = without_dpcpp_options(rd->bins[i].compile_options);
        if (opts) {
            if (!rd->options && !(rd->options = calloc(n, sizeof(char *)))) {
                free(opts);
                sxi_binaries_read_free(rd);
                return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
            }
            rd->options[i] = opts;
            rd->bins[i].compile_options = opts;
        }
        p += rec;
    }
    if (llvm_entries) {
        rd->entries = calloc(llvm_entries, sizeof(*rd->entries));
        if (!rd->entries) {
            sxi_binaries_read_free(rd);
            return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory for %zu entries",
                             llvm_entries);
        }
        sx_offload_entry *e = rd->entries;
        for (uint32_t i = 0; i < n; i++) {
            if (rd->info[i].entry_size != LLVM_ENTRY_SIZE)
                continue;
            const uint8_t *src = (const uint8_t *)rd->bins[i].entries_begin;
            sx_offload_entry *first = e;
            for (size_t k = 0; k < rd->info[i].num_entries; k++, e++) {
                sx_offload_entry_llvm l;
                memcpy(&l, src + k * LLVM_ENTRY_SIZE, LLVM_ENTRY_SIZE);
                *e = (sx_offload_entry){.addr = l.address, .name = l.symbol_name, .size = (size_t)l.size};
            }
            rd->bins[i].entries_begin = first;
            rd->bins[i].entries_end = e;
        }
    }
    rd->desc = (sx_device_binaries){
        .version = desc->version,
        .num_device_binaries = desc->num_device_binaries,
        .device_binaries = rd->bins,
        .host_entries_begin = desc->host_entries_begin,
        .host_entries_end = desc->host_entries_end,
    };
    *out = rd;
    return SX_SUCCESS;
}

/* The sets the core reads. Others (misc properties, registered kernels,
 * specialization constants, assert used, ...) are kept and shown by the
 * dumps, and their contents are never a reason to refuse an image. */
bool sxi_prop_set_is_read(const char *name)
{
    static const char *const read[] = {
        SX_PROP_SET_DEVICE_GLOBALS,  SX_PROP_SET_VIRTUAL_FUNCTIONS, SX_PROP_SET_DEVICE_REQUIREMENTS,
        SX_PROP_SET_KERNEL_PARAM_OPT, SX_PROP_SET_EXPORTED_SYMBOLS, SX_PROP_SET_IMPORTED_SYMBOLS,
        SX_PROP_SET_IMPLICIT_LOCAL_ARG, SX_PROP_SET_PROGRAM_METADATA,
    };
    if (strncmp(name, "SX/", 3) == 0)
        return true;
    for (size_t i = 0; i < SXI_ARRAY_SIZE(read); i++)
        if (strcmp(name, read[i]) == 0)
            return true;
    return false;
}
