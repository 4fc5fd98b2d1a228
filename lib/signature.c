/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* signature.c: a kernel's parameters from "SX/kernel signatures", with
 * eliminated arguments ("SYCL/kernel param opt") removed and the hidden
 * scratch argument ("SYCL/implicit local arg") found; every field checked. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

#define MAX_PARAMS 4096u
#define MAX_MEMBERS 65536u

typedef struct {
    const uint8_t *p;
    size_t n, off;
    bool ok;
} reader;

static uint32_t rd32(reader *r)
{
    if (r->off + 4 > r->n) {
        r->ok = false;
        return 0;
    }
    uint32_t v;
    memcpy(&v, r->p + r->off, 4);
    r->off += 4;
    return v;
}

static sx_result bad(uint32_t img, const char *kernel, const char *fmt, ...) SXI_PRINTF(3, 4);
static sx_result bad(uint32_t img, const char *kernel, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return sxi_error(SX_ERROR_INVALID_BINARY, "sx_register_images: image %u: signature of '%s': %s", img, kernel, msg);
}

void sxi_signature_free(sxi_signature *s)
{
    free(s->sources);
    free(s->params);
    free(s->source_index);
    free(s->source_offset);
    free(s->members);
    memset(s, 0, sizeof(*s));
    s->scratch_index = UINT32_MAX;
}

static uint32_t align_up(uint32_t v, uint32_t a)
{
    return a > 1 ? (v + a - 1) / a * a : v;
}

static bool bit(const uint8_t *mask, size_t bits, uint32_t i)
{
    return mask && i < bits && (mask[i / 8] >> (i % 8)) & 1;
}

sx_result sxi_signature_parse(uint32_t img, const char *kname, const sx_device_binary_property *prop,
                              const uint8_t *mask, size_t mask_bits, uint32_t implicit, sxi_signature *s)
{
    memset(s, 0, sizeof(*s));
    s->scratch_index = UINT32_MAX;
    reader r = {0};
    r.ok = sxi_prop_bytes(prop, &r.p, &r.n);
    uint32_t version = rd32(&r);
    s->kind = rd32(&r);
    s->dims = rd32(&r);
    s->num_source_params = rd32(&r);
    uint32_t n = rd32(&r);
    if (!r.ok)
        return bad(img, kname, "truncated (%zu bytes)", r.n);
    if (version != 1)
        return bad(img, kname, "version %u (this library reads 1)", version);
    if (s->kind > SX_KERNEL_KIND_ND_RANGE)
        return bad(img, kname, "unknown kernel kind %u", s->kind);
    if ((s->kind == SX_KERNEL_KIND_ND_RANGE) != (s->dims >= 1) || s->dims > 3)
        return bad(img, kname, "kind %u with %u dimensions", s->kind, s->dims);
    if (n > MAX_PARAMS || s->num_source_params > n)
        return bad(img, kname, "%u parameters for %u source parameters", n, s->num_source_params);
    /* The bit count is the number of arguments; producers that count whole
     * bytes may round it up, as long as the extra bits are clear. */
    if (mask && mask_bits > (n + 7u) / 8u * 8u)
        return bad(img, kname, "\"%s\" masks %zu arguments of %u", SX_PROP_SET_KERNEL_PARAM_OPT, mask_bits, n);
    for (size_t i = n; mask && i < mask_bits; i++)
        if (bit(mask, mask_bits, (uint32_t)i))
            return bad(img, kname, "\"%s\" eliminates argument %zu of %u", SX_PROP_SET_KERNEL_PARAM_OPT, i, n);
    if (implicit != UINT32_MAX && implicit >= n)
        return bad(img, kname, "\"%s\" names argument %u of %u", SX_PROP_SET_IMPLICIT_LOCAL_ARG, implicit, n);
    /* Count members first so one array holds them all. */
    size_t start = r.off, total_members = 0;
    for (uint32_t i = 0; i < n; i++) {
        r.off += 6 * 4;
        uint32_t nm = rd32(&r);
        if (!r.ok || nm > MAX_MEMBERS || nm * 8ull > r.n - r.off)
            return bad(img, kname, "parameter %u is truncated or has %u members", i, nm);
        r.off += nm * 8ull;
        total_members += nm;
    }
    if (r.off != r.n)
        return bad(img, kname, "%zu trailing bytes", r.n - r.off);
    r.off = start;
    sxa_kernel_param *all = calloc(n ? n : 1, sizeof(*all));
    uint32_t *src = calloc(n ? n : 1, sizeof(*src));
    s->members = calloc(total_members ? total_members : 1, sizeof(*s->members));
    s->sources = calloc(s->num_source_params ? s->num_source_params : 1, sizeof(*s->sources));
    s->params = calloc(n ? n : 1, sizeof(*s->params));
    s->source_index = calloc(n ? n : 1, sizeof(uint32_t));
    s->source_offset = calloc(n ? n : 1, sizeof(uint32_t));
    sx_result res = SX_SUCCESS;
    if (!all || !src || !s->members || !s->sources || !s->params || !s->source_index || !s->source_offset) {
        res = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
        goto out;
    }
    size_t m = 0;
    uint32_t last_src = 0, hidden = UINT32_MAX;
    for (uint32_t i = 0; i < n && res == SX_SUCCESS; i++) {
        sxa_kernel_param *kp = &all[i];
        kp->kind = rd32(&r);
        kp->scalar = rd32(&r);
        kp->size = rd32(&r);
        kp->align = rd32(&r);
        kp->address_space = rd32(&r);
        src[i] = rd32(&r);
        kp->num_members = rd32(&r);
        kp->members = &s->members[m];
        for (uint32_t k = 0; k < kp->num_members && res == SX_SUCCESS; k++, m++) {
            s->members[m].scalar = rd32(&r);
            s->members[m].offset = rd32(&r);
            if (s->members[m].scalar == SX_SCALAR_NONE || s->members[m].scalar > SX_SCALAR_PTR ||
                s->members[m].offset >= kp->size)
                res = bad(img, kname, "member %u of parameter %u (scalar %u at offset %u) does not fit", k, i,
                          s->members[m].scalar, s->members[m].offset);
        }
        if (res != SX_SUCCESS)
            break;
        if (kp->kind > SX_PARAM_STRUCT || kp->scalar > SX_SCALAR_PTR || kp->address_space > SX_ADDRESS_SPACE_GENERIC)
            res = bad(img, kname, "parameter %u has kind %u scalar %u address space %u", i, kp->kind, kp->scalar,
                      kp->address_space);
        else if (kp->size == 0 || kp->size > (1u << 20) || kp->align == 0 || (kp->align & (kp->align - 1)) ||
                 kp->align > 4096)
            res = bad(img, kname, "parameter %u has size %u align %u", i, kp->size, kp->align);
        else if (kp->kind == SX_PARAM_VALUE && kp->scalar == SX_SCALAR_NONE)
            res = bad(img, kname, "value parameter %u has no scalar type", i);
        else if (src[i] == SX_SOURCE_INDEX_NONE) {
            if (kp->kind != SX_PARAM_LOCAL || hidden != UINT32_MAX)
                res = bad(img, kname, "parameter %u belongs to no source parameter but is not the one scratch (local) argument", i);
            hidden = i;
        } else if (src[i] >= s->num_source_params)
            res = bad(img, kname, "parameter %u belongs to source parameter %u of %u", i, src[i], s->num_source_params);
        else if (src[i] < last_src)
            res = bad(img, kname, "parameter %u goes back to source parameter %u", i, src[i]);
        else
            last_src = src[i];
    }
    if (res != SX_SUCCESS)
        goto out;
    if (implicit != UINT32_MAX && implicit != hidden) {
        res = bad(img, kname, "\"%s\" names argument %u, which is not the scratch argument", SX_PROP_SET_IMPLICIT_LOCAL_ARG,
                  implicit);
        goto out;
    }
    /* Source parameters: their records, expected value size, elimination. */
    for (uint32_t i = 0; i < n; i++) {
        if (src[i] == SX_SOURCE_INDEX_NONE)
            continue;
        sxi_source_param *sp = &s->sources[src[i]];
        if (sp->count == 0)
            sp->first = i;
        sp->count++;
    }
    for (uint32_t k = 0; k < s->num_source_params; k++) {
        sxi_source_param *sp = &s->sources[k];
        if (sp->count == 0) {
            res = bad(img, kname, "source parameter %u has no backend parameter", k);
            goto out;
        }
        sp->eliminated = true;
        uint32_t end = 0, max_align = 1;
        for (uint32_t i = sp->first; i < sp->first + sp->count; i++) {
            if (sp->count > 1 && all[i].kind == SX_PARAM_LOCAL) {
                res = bad(img, kname, "source parameter %u is decomposed but part %u is a local pointer", k, i);
                goto out;
            }
            end = align_up(end, all[i].align) + all[i].size;
            max_align = all[i].align > max_align ? all[i].align : max_align;
            sp->eliminated &= bit(mask, mask_bits, i);
        }
        sp->kind = sp->count > 1 ? SX_PARAM_STRUCT : all[sp->first].kind;
        sp->size = sp->kind == SX_PARAM_LOCAL ? 0 : align_up(end, max_align);
    }
    /* The entry point's real parameters. */
    for (uint32_t i = 0; i < n; i++) {
        if (bit(mask, mask_bits, i))
            continue;
        uint32_t off = 0;
        if (src[i] != SX_SOURCE_INDEX_NONE)
            for (uint32_t j = s->sources[src[i]].first; j <= i; j++)
                off = align_up(off, all[j].align) + (j < i ? all[j].size : 0);
        if (src[i] == SX_SOURCE_INDEX_NONE)
            s->scratch_index = s->num_params;
        s->params[s->num_params] = all[i];
        s->source_index[s->num_params] = src[i];
        s->source_offset[s->num_params] = off;
        s->num_params++;
    }
    s->known = true;
out:
    free(all);
    free(src);
    if (res != SX_SUCCESS)
        sxi_signature_free(s);
    return res;
}
