/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* props.c: reading property sets and telling what an image's bytes are. */
#include <stdio.h>
#include <string.h>

#include "sx-internal.h"

const sx_device_binary_property_set *sxi_prop_set(const sx_device_binary *bin, const char *name)
{
    for (const sx_device_binary_property_set *s = bin->property_sets_begin; s && s < bin->property_sets_end; s++)
        if (s->name && strcmp(s->name, name) == 0)
            return s;
    return NULL;
}

/* The payload of a BYTE_ARRAY (after the 64-bit bit count). Registration
 * has already checked value_size >= 8 and the bit count against it. */
bool sxi_prop_bytes(const sx_device_binary_property *p, const uint8_t **bytes, size_t *len)
{
    if (p->type != SX_PROPERTY_TYPE_BYTE_ARRAY || !p->value_addr || p->value_size < 8)
        return false;
    uint64_t bits;
    memcpy(&bits, p->value_addr, 8);
    uint64_t n = (bits + 7) / 8;
    if (n > p->value_size - 8)
        return false;
    *bytes = (const uint8_t *)p->value_addr + 8;
    *len = (size_t)n;
    return true;
}

const char *sxi_image_kind_name(sx_image_kind kind)
{
    static const char *names[] = {"unknown", "SPIR-V", "SPIR bitcode", "PTX", "cubin", "host ELF", "native binary"};
    return kind < SX_IMAGE_KIND_COUNT_ ? names[kind] : "?";
}

static bool is_elf(const uint8_t *p, size_t n)
{
    return n >= 4 && p[0] == 0x7f && p[1] == 'E' && p[2] == 'L' && p[3] == 'F';
}

/* PTX is text: a ".version" directive before any non-text byte, after
 * comments and blank lines (what ptxas and nvcc write first). */
static bool is_ptx_text(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n && i < 4096) {
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
            i++;
        if (i + 1 < n && p[i] == '/' && p[i + 1] == '/') {
            while (i < n && p[i] != '\n') {
                if (p[i] < 0x09 || p[i] > 0x7e)
                    return false;
                i++;
            }
            continue;
        }
        return n - i >= 8 && memcmp(p + i, ".version", 8) == 0;
    }
    return false;
}

sx_image_kind sxi_image_kind_detect(const sx_device_binary *bin, char *why, size_t why_size)
{
    const uint8_t *p = bin->binary_start;
    size_t n = (size_t)(bin->binary_end - bin->binary_start);
    const char *t = bin->device_target_spec ? bin->device_target_spec : "";
    uint32_t magic = 0;
    if (n >= 4)
        memcpy(&magic, p, 4);
    switch (bin->format) {
    case SX_BINARY_FORMAT_SPIRV:
        return SX_IMAGE_KIND_SPIRV;
    case SX_BINARY_FORMAT_LLVMIR_BITCODE:
        return SX_IMAGE_KIND_SPIR;
    case SX_BINARY_FORMAT_COMPRESSED_NONE: {
        /* What --offload-compress compressed had format NONE: tell its kind
         * from its first bytes (decoding a block at most; the whole image
         * is decoded at first use). */
        uint8_t head[64];
        size_t got = sxi_zstd_peek(p, n, head, sizeof(head));
        if (!got) {
            snprintf(why, why_size, "the compressed image (%zu bytes) does not decode (damaged zstd data)", n);
            return SX_IMAGE_KIND_UNKNOWN;
        }
        sx_device_binary plain = *bin;
        plain.format = SX_BINARY_FORMAT_NONE;
        plain.binary_start = head;
        plain.binary_end = head + got;
        sx_image_kind k = sxi_image_kind_detect(&plain, why, why_size);
        if (k == SX_IMAGE_KIND_UNKNOWN) {
            char inner[200];
            snprintf(inner, sizeof(inner), "%s", why);
            snprintf(why, why_size, "compressed image: %s", inner);
        }
        return k;
    }
    case SX_BINARY_FORMAT_NONE:
    case SX_BINARY_FORMAT_NATIVE:
        break;
    default:
        snprintf(why, why_size, "unknown format %u", bin->format);
        return SX_IMAGE_KIND_UNKNOWN;
    }
    if (magic == 0x07230203u || magic == 0x03022307u)
        return SX_IMAGE_KIND_SPIRV;
    if (magic == 0xdec04342u || magic == 0x0b17c0deu)
        return SX_IMAGE_KIND_SPIR;
    if (strcmp(t, SX_TARGET_NVPTX64) == 0) {
        if (is_elf(p, n) || magic == 0xba55ed50u)
            return SX_IMAGE_KIND_CUBIN;
        return SX_IMAGE_KIND_PTX;
    }
    if (is_ptx_text(p, n))
        return SX_IMAGE_KIND_PTX;
    if (is_elf(p, n))
        return strcmp(t, SX_TARGET_HOST) == 0 || strcmp(t, SX_TARGET_NATIVE_CPU) == 0 ? SX_IMAGE_KIND_HOST_ELF
                                                                                      : SX_IMAGE_KIND_NATIVE;
    snprintf(why, why_size, "target '%s' with format %u and leading bytes 0x%08x is no known kind", t, bin->format,
             magic);
    return SX_IMAGE_KIND_UNKNOWN;
}
