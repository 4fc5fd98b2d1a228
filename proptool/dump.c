/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dump.c: the readable listing of an image file (stable: golden tests compare it). */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "dump-json.h"
#include "proptool.h"

static void out(sxp_buf *b, const char *fmt, ...) SXP_PRINTF(2, 3);
static void out(sxp_buf *b, const char *fmt, ...)
{
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        sxp_buf_put(b, tmp, (size_t)n);
        return;
    }
    char *big = sxp_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sxp_buf_put(b, big, (size_t)n);
    free(big);
}

static const char *format_name(uint8_t f)
{
    switch (f) {
    case SX_BINARY_FORMAT_NONE: return "none";
    case SX_BINARY_FORMAT_NATIVE: return "native";
    case SX_BINARY_FORMAT_SPIRV: return "spirv";
    case SX_BINARY_FORMAT_LLVMIR_BITCODE: return "llvmir_bitcode";
    case SX_BINARY_FORMAT_COMPRESSED_NONE: return "compressed";
    default: return "?";
    }
}

static const char *kind_name(uint32_t k)
{
    switch (k) {
    case SX_KERNEL_KIND_PLAIN: return "plain";
    case SX_KERNEL_KIND_SINGLE_TASK: return "single_task";
    case SX_KERNEL_KIND_ND_RANGE: return "nd_range";
    default: return "?";
    }
}

static const char *param_kind_name(uint32_t k)
{
    switch (k) {
    case SX_PARAM_VALUE: return "value";
    case SX_PARAM_POINTER: return "pointer";
    case SX_PARAM_LOCAL: return "local";
    case SX_PARAM_STRUCT: return "struct";
    default: return "?";
    }
}

static const char *as_name(uint32_t a)
{
    static const char *const n[] = {"private", "global", "constant", "local", "generic"};
    return a < 5 ? n[a] : "?";
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The payload of a byte-array property (after the size prefix). */
static const uint8_t *payload(const sx_device_binary_property *p, size_t *len, uint64_t *bits)
{
    const uint8_t *v = p->value_addr;
    *bits = 0;
    for (int i = 0; i < 8; i++)
        *bits |= (uint64_t)v[i] << (8 * i);
    *len = (size_t)p->value_size - 8;
    return v + 8;
}

static void hex(sxp_buf *b, const uint8_t *d, size_t n)
{
    size_t shown = n > 256 ? 256 : n;
    for (size_t i = 0; i < shown; i++)
        out(b, "%s%02x", i ? " " : "", d[i]);
    if (shown < n)
        out(b, " ... (%zu more)", n - shown);
}

static bool printable(const uint8_t *d, size_t n)
{
    if (n && d[n - 1] == 0)
        n--;
    for (size_t i = 0; i < n; i++)
        if (d[i] < 0x20 || d[i] > 0x7e)
            return false;
    return true;
}

static void str(sxp_buf *b, const uint8_t *d, size_t n)
{
    bool nul = n && d[n - 1] == 0;
    out(b, "\"%.*s\"%s", (int)(nul ? n - 1 : n), (const char *)d, nul ? " + NUL" : "");
}

static void signature(sxp_buf *b, const uint8_t *d, size_t n)
{
    size_t pos = 0;
#define NEED(k)                                                                                                   \
    do {                                                                                                          \
        if (n - pos < (k)) {                                                                                      \
            out(b, "      (malformed: record ends at byte %zu)\n", pos);                                          \
            return;                                                                                               \
        }                                                                                                         \
    } while (0)
    NEED(20);
    uint32_t ver = rd32(d), kind = rd32(d + 4), dims = rd32(d + 8), nsrc = rd32(d + 12), np = rd32(d + 16);
    pos = 20;
    out(b, "version %u, %s", ver, kind_name(kind));
    if (kind == SX_KERNEL_KIND_ND_RANGE)
        out(b, " %u-d", dims);
    out(b, ", %u source params, %u params\n", nsrc, np);
    for (uint32_t i = 0; i < np; i++) {
        NEED(28);
        const uint8_t *r = d + pos;
        uint32_t pk = rd32(r), sc = rd32(r + 4), size = rd32(r + 8), align = rd32(r + 12), as = rd32(r + 16),
                 src = rd32(r + 20), nm = rd32(r + 24);
        pos += 28;
        out(b, "      %u: %s", i, param_kind_name(pk));
        if (pk == SX_PARAM_VALUE)
            out(b, " %s", sxp_scalar_name(sc) ? sxp_scalar_name(sc) : "?");
        if (pk == SX_PARAM_POINTER || pk == SX_PARAM_LOCAL)
            out(b, " %s", as_name(as));
        out(b, " size %u align %u source %u", size, align, src);
        if (nm) {
            out(b, " members");
            for (uint32_t j = 0; j < nm; j++) {
                NEED(8);
                uint32_t ms = rd32(d + pos), mo = rd32(d + pos + 4);
                pos += 8;
                out(b, " %s@%u", sxp_scalar_name(ms) ? sxp_scalar_name(ms) : "?", mo);
            }
        }
        out(b, "\n");
    }
    if (pos != n)
        out(b, "      (malformed: %zu bytes left over)\n", n - pos);
#undef NEED
}

static void prop(sxp_buf *b, const char *set, const sx_device_binary_property *p)
{
    out(b, "    %s: ", p->name);
    if (p->type == SX_PROPERTY_TYPE_UINT32) {
        if (!strcmp(set, SX_PROP_SET_HOST_ACCESS))
            out(b, "uint32 %" PRIu64 " (%s)\n", p->value_size, sxp_host_access_name((uint32_t)p->value_size));
        else
            out(b, "uint32 %" PRIu64 "\n", p->value_size);
        return;
    }
    if (p->type == SX_PROPERTY_TYPE_STRING) {
        out(b, "string \"%s\"\n", (const char *)p->value_addr);
        return;
    }
    if (p->type != SX_PROPERTY_TYPE_BYTE_ARRAY) {
        out(b, "type %u (%" PRIu64 " bytes)\n", p->type, p->value_size);
        return;
    }
    size_t n;
    uint64_t bits;
    const uint8_t *d = payload(p, &n, &bits);
    out(b, "bytes(%" PRIu64 " bits) ", bits);
    if (!strcmp(set, SX_PROP_SET_KERNEL_SIGNATURES)) {
        signature(b, d, n);
        return;
    }
    if (!strcmp(set, SX_PROP_SET_DEVICE_GLOBALS) && n == 8) {
        out(b, "size %u, device_image_scope %u\n", rd32(d), rd32(d + 4));
        return;
    }
    if (!strcmp(set, SX_PROP_SET_KERNEL_PARAM_OPT)) {
        out(b, "eliminated [");
        for (uint64_t i = 0; i < bits; i++)
            out(b, "%c", d[i / 8] >> (i % 8) & 1 ? '1' : '0');
        out(b, "]\n");
        return;
    }
    if ((!strcmp(set, SX_PROP_SET_DEVICE_REQUIREMENTS) && (!strcmp(p->name, "aspects") ||
                                                           !strcmp(p->name, "reqd_work_group_size"))) ||
        (strstr(p->name, "@reqd_work_group_size") && n % 4 == 0)) {
        if (!n)
            out(b, "none");
        for (size_t i = 0; i + 4 <= n; i += 4) {
            uint32_t v = rd32(d + i);
            const char *an = !strcmp(p->name, "aspects") ? sxp_aspect_name(v) : NULL;
            if (an)
                out(b, "%s%s(%u)", i ? " " : "", an, v);
            else
                out(b, "%s%u", i ? " " : "", v);
        }
        out(b, "\n");
        return;
    }
    if (n && printable(d, n))
        str(b, d, n);
    else
        hex(b, d, n);
    out(b, "\n");
}

static const char *layout_name(uint16_t v)
{
    return v == 3 ? "80 bytes, no manifest" : "96 bytes";
}

static void dump_image(sxp_buf *b, uint16_t i, const sx_device_binary *d, const sxp_dump_extra *x);

void sxp_dump(const sx_device_binaries *desc, sxp_buf *b)
{
    sxp_dump_ex(desc, NULL, b);
}

void sxp_dump_ex(const sx_device_binaries *desc, const sxp_dump_extra *extra, sxp_buf *b)
{
    out(b, "descriptor version %u, %u image%s\n", desc->version, desc->num_device_binaries,
        desc->num_device_binaries == 1 ? "" : "s");
    for (uint16_t i = 0; i < desc->num_device_binaries; i++)
        dump_image(b, i, &desc->device_binaries[i], extra ? &extra[i] : NULL);
}

static void dump_image(sxp_buf *b, uint16_t i, const sx_device_binary *d, const sxp_dump_extra *x)
{
    {
        out(b, "\nimage %u\n", i);
        out(b, "  target: %s\n", d->device_target_spec);
        out(b, "  format: %s (%u), kind %u, version %u\n", format_name(d->format), d->format, d->kind, d->version);
        out(b, "  binary: %zu bytes\n", (size_t)(d->binary_end - d->binary_start));
        if (x) {
            out(b, "  record: version %u layout (%s) at 0x%" PRIx64 ", %s entries\n", x->record_version,
                layout_name(x->record_version), x->record_address,
                x->entry_size == 56 ? "56-byte LLVM" : x->entry_size == 32 ? "32-byte" : "no");
            if (x->compressed)
                out(b, "  compression: zstd, %zu bytes -> %" PRIu64 " bytes\n",
                    (size_t)(d->binary_end - d->binary_start), x->decompressed_size);
            out(b, "  contents: %s\n", x->contents);
        }
        if (d->compile_options)
            out(b, "  compile options: \"%s\"\n", d->compile_options);
        if (d->link_options)
            out(b, "  link options: \"%s\"\n", d->link_options);
        out(b, "  entries (%zu):\n", (size_t)(d->entries_end - d->entries_begin));
        for (const sx_offload_entry *e = d->entries_begin; e != d->entries_end; e++)
            out(b, "    %s\n", e->name);
        for (const sx_device_binary_property_set *s = d->property_sets_begin; s != d->property_sets_end; s++) {
            out(b, "  [%s] (%zu)\n", s->name, (size_t)(s->properties_end - s->properties_begin));
            for (const sx_device_binary_property *p = s->properties_begin; p != s->properties_end; p++)
                prop(b, s->name, p);
        }
    }
}

/* The names above, for the JSON listing (dump-json.c). */
const char *sxp_format_name(uint8_t f) { return format_name(f); }
const char *sxp_kernel_kind_name(uint32_t k) { return kind_name(k); }
const char *sxp_param_kind_name(uint32_t k) { return param_kind_name(k); }
const char *sxp_address_space_name(uint32_t a) { return as_name(a); }
bool sxp_printable(const uint8_t *d, size_t n) { return printable(d, n); }
