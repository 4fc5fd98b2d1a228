/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* selector.c: SX_DEVICE_SELECTOR, in ONEAPI_DEVICE_SELECTOR's style:
 *   term[;term...]   term = [!]backend:dev[,dev...]
 *   backend = * | native | opencl | cuda | level_zero | <adapter name>
 *   dev     = * | cpu | gpu | acc | <index among that backend's devices>
 * Any other name is an adapter's (SXA_ADAPTER_INFO_NAME, e.g. "serialcpu"
 * for an out-of-tree adapter, which all share SX_BACKEND_OTHER); its
 * indices count that adapter's devices.
 * A device passes when a positive term matches it (or there are only
 * negative terms) and no negative term does. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

#define MAX_TERMS 32
#define MAX_DEVS 16

typedef struct {
    bool negative;
    sx_backend backend;   /* SX_BACKEND_UNKNOWN = any */
    char adapter[64];     /* non-empty: this adapter's devices only */
    uint32_t num_devs;
    struct { sx_device_type type; int64_t index; } devs[MAX_DEVS]; /* type ALL + index -1 = any */
} term;

struct sxi_selector {
    uint32_t num_terms;
    term terms[MAX_TERMS];
};

/* SX_DEVICE_SELECTOR's, read at sx_init. */
static sxi_selector env_selector;

void sxi_selector_reset(void)
{
    env_selector.num_terms = 0;
}

static bool parse_backend(const char *s, size_t n, sx_backend *b)
{
    static const struct { const char *name; sx_backend b; } map[] = {
        {"*", SX_BACKEND_UNKNOWN}, {"native", SX_BACKEND_NATIVE}, {"opencl", SX_BACKEND_OPENCL},
        {"cuda", SX_BACKEND_CUDA}, {"level_zero", SX_BACKEND_LEVEL_ZERO},
    };
    for (size_t i = 0; i < SXI_ARRAY_SIZE(map); i++)
        if (strlen(map[i].name) == n && strncmp(s, map[i].name, n) == 0) {
            *b = map[i].b;
            return true;
        }
    return false;
}

/* An adapter name: checked for its characters only, since adapters are
 * not loaded yet when the selector is read. */
static bool parse_adapter(const char *s, size_t n, term *t)
{
    if (n == 0 || n >= sizeof(t->adapter))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("_-.", s[i]))
            return false;
    memcpy(t->adapter, s, n);
    t->adapter[n] = '\0';
    return true;
}

static bool parse_dev(const char *s, size_t n, term *t)
{
    if (t->num_devs == MAX_DEVS)
        return false;
    sx_device_type type = SX_DEVICE_TYPE_ALL;
    int64_t index = -1;
    if (n == 1 && s[0] == '*')
        ;
    else if (n == 3 && strncmp(s, "cpu", 3) == 0)
        type = SX_DEVICE_TYPE_CPU;
    else if (n == 3 && strncmp(s, "gpu", 3) == 0)
        type = SX_DEVICE_TYPE_GPU;
    else if (n == 3 && strncmp(s, "acc", 3) == 0)
        type = SX_DEVICE_TYPE_ACCELERATOR;
    else {
        if (n == 0 || n > 6)
            return false;
        index = 0;
        for (size_t i = 0; i < n; i++) {
            if (!isdigit((unsigned char)s[i]))
                return false;
            index = index * 10 + (s[i] - '0');
        }
    }
    t->devs[t->num_devs].type = type;
    t->devs[t->num_devs].index = index;
    t->num_devs++;
    return true;
}

static sx_result parse(sxi_selector *sel, const char *text)
{
    sel->num_terms = 0;
    term *terms = sel->terms;
    const char *p = text;
    while (*p) {
        size_t tn = strcspn(p, ";");
        if (tn == 0) {
            p++;
            continue;
        }
        if (sel->num_terms == MAX_TERMS)
            return sxi_error(SX_ERROR_INVALID_VALUE, "'%s' has more than %d terms.", text, MAX_TERMS);
        term *t = &terms[sel->num_terms];
        memset(t, 0, sizeof(*t));
        const char *s = p, *end = p + tn;
        if (*s == '!') {
            t->negative = true;
            s++;
        }
        const char *colon = memchr(s, ':', (size_t)(end - s));
        if (!colon)
            return sxi_error(SX_ERROR_INVALID_VALUE, "'%s': term '%.*s' has no ':' (want backend:devices, e.g. native:cpu)",
                             text, (int)tn, p);
        if (!parse_backend(s, (size_t)(colon - s), &t->backend) && !parse_adapter(s, (size_t)(colon - s), t))
            return sxi_error(SX_ERROR_INVALID_VALUE,
                             "'%s': '%.*s' is neither a backend (*, native, opencl, cuda, level_zero) nor an "
                             "adapter name (letters, digits, '_', '-', '.'; at most %zu)", text,
                             (int)(colon - s), s, sizeof(t->adapter) - 1);
        for (const char *d = colon + 1; d <= end;) {
            size_t dn = strcspn(d, ",;");
            if (d + dn > end)
                dn = (size_t)(end - d);
            if (!parse_dev(d, dn, t))
                return sxi_error(SX_ERROR_INVALID_VALUE,
                                 "'%s': bad device '%.*s' (want *, cpu, gpu, acc or an index; at most %d)", text,
                                 (int)dn, d, MAX_DEVS);
            d += dn + 1;
        }
        sel->num_terms++;
        p = end;
    }
    return SX_SUCCESS;
}

sx_result sxi_selector_parse(const char *text)
{
    return parse(&env_selector, text);
}

sx_result sxi_selector_create(const char *text, sxi_selector **out)
{
    sxi_selector *sel = malloc(sizeof(*sel));
    if (!sel)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "'%s': out of memory", text);
    sx_result r = parse(sel, text);
    if (r != SX_SUCCESS) {
        free(sel);
        return r;
    }
    *out = sel;
    return SX_SUCCESS;
}

void sxi_selector_destroy(sxi_selector *sel)
{
    free(sel);
}

/* The device's position among its adapter's devices. */
static uint32_t index_in_adapter(const struct sx_device_s *d)
{
    const struct sx_adapter_s *a = d->adapter;
    uint32_t n = 0;
    for (uint32_t p = 0; p < a->num_platforms; p++)
        for (uint32_t k = 0; k < a->platforms[p]->num_devices; k++, n++)
            if (a->platforms[p]->devices[k] == d)
                return n;
    return n;
}

static bool term_matches(const term *t, const struct sx_device_s *d, uint32_t index)
{
    if (t->adapter[0]) {
        if (!d->adapter->name || strcmp(t->adapter, d->adapter->name) != 0)
            return false;
        index = index_in_adapter(d);
    } else if (t->backend != SX_BACKEND_UNKNOWN && t->backend != d->backend) {
        return false;
    }
    for (uint32_t i = 0; i < t->num_devs; i++) {
        if (t->devs[i].index >= 0 ? (uint64_t)t->devs[i].index == index : (t->devs[i].type & d->type) != 0)
            return true;
    }
    return false;
}

bool sxi_selector_matches(const sxi_selector *sel, const struct sx_device_s *d, uint32_t index)
{
    const term *terms = sel->terms;
    if (sel->num_terms == 0)
        return true;
    bool any_positive = false, positive_match = false;
    for (uint32_t i = 0; i < sel->num_terms; i++) {
        bool m = term_matches(&terms[i], d, index);
        if (terms[i].negative) {
            if (m)
                return false;
        } else {
            any_positive = true;
            positive_match |= m;
        }
    }
    return any_positive ? positive_match : true;
}

bool sxi_selector_accepts(const struct sx_device_s *d, uint32_t index)
{
    return sxi_selector_matches(&env_selector, d, index);
}

uint32_t sxi_selector_backends_of(const sxi_selector *sel)
{
    const term *terms = sel->terms;
    uint32_t pos = 0, neg = 0;
    bool any_positive = false;
    for (uint32_t i = 0; i < sel->num_terms; i++) {
        const term *t = &terms[i];
        uint32_t bits = t->backend == SX_BACKEND_UNKNOWN ? SXI_BACKENDS_ALL : 1u << t->backend;
        if (!t->negative) {
            any_positive = true;
            pos |= bits;
            continue;
        }
        /* Only "!backend:*" rules a whole backend out. */
        for (uint32_t k = 0; k < t->num_devs; k++)
            if (t->devs[k].index < 0 && t->devs[k].type == SX_DEVICE_TYPE_ALL)
                neg |= bits;
    }
    return (any_positive ? pos : SXI_BACKENDS_ALL) & ~neg;
}

uint32_t sxi_selector_backends(void)
{
    return sxi_selector_backends_of(&env_selector);
}
