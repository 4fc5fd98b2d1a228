/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sxt.c: in-memory sx_device_binaries descriptors for tests (see sxt.h). */
#include "sxt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct sxt_set {
    char *name;
    sx_device_binary_property *props;
    size_t n, cap;
};

struct sxt_image {
    char *target;
    uint8_t format;
    unsigned char *bytes;
    size_t size;
    char *compile_options, *link_options;
    sx_offload_entry *entries;
    size_t nentries, capentries;
    struct sxt_set *sets;
    size_t nsets, capsets;
    sx_device_binary_property_set *set_descs;  /* filled by sxt_binaries */
};

/* The descriptor handed out is the first member, so free finds the rest. */
struct owner {
    sx_device_binaries bin;
    unsigned n;
    sxt_image **imgs;
};

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 8;
    while (nc < need)
        nc *= 2;
    void *p = realloc(*arr, nc * elem);
    if (!p)
        return -1;
    memset((char *)p + *cap * elem, 0, (nc - *cap) * elem);
    *arr = p;
    *cap = nc;
    return 0;
}

sxt_image *sxt_image_new(const char *target, uint8_t format, const void *bytes, size_t size)
{
    if (!target || (size && !bytes))
        return NULL;
    sxt_image *im = calloc(1, sizeof(*im));
    if (!im)
        return NULL;
    im->target = strdup(target);
    im->format = format;
    im->bytes = malloc(size ? size : 1);
    im->size = size;
    if (!im->target || !im->bytes) {
        sxt_image_free(im);
        return NULL;
    }
    if (size)
        memcpy(im->bytes, bytes, size);
    return im;
}

void sxt_image_free(sxt_image *im)
{
    if (!im)
        return;
    for (size_t i = 0; i < im->nentries; i++)
        free(im->entries[i].name);
    free(im->entries);
    for (size_t s = 0; s < im->nsets; s++) {
        for (size_t i = 0; i < im->sets[s].n; i++) {
            free(im->sets[s].props[i].name);
            free(im->sets[s].props[i].value_addr);
        }
        free(im->sets[s].props);
        free(im->sets[s].name);
    }
    free(im->sets);
    free(im->set_descs);
    free(im->target);
    free(im->bytes);
    free(im->compile_options);
    free(im->link_options);
    free(im);
}

int sxt_image_set_options(sxt_image *im, const char *copts, const char *lopts)
{
    if (!im)
        return -1;
    free(im->compile_options);
    free(im->link_options);
    im->compile_options = copts ? strdup(copts) : NULL;
    im->link_options = lopts ? strdup(lopts) : NULL;
    return (copts && !im->compile_options) || (lopts && !im->link_options) ? -1 : 0;
}

int sxt_image_add_entry(sxt_image *im, const char *name)
{
    if (!im || !name)
        return -1;
    if (grow((void **)&im->entries, &im->capentries, im->nentries + 1, sizeof(*im->entries)))
        return -1;
    sx_offload_entry *e = &im->entries[im->nentries];
    memset(e, 0, sizeof(*e));
    e->name = strdup(name);
    if (!e->name)
        return -1;
    im->nentries++;
    return 0;
}

static sx_device_binary_property *prop_new(sxt_image *im, const char *set, const char *name)
{
    if (!im || !set || !name)
        return NULL;
    struct sxt_set *s = NULL;
    for (size_t i = 0; i < im->nsets; i++)
        if (strcmp(im->sets[i].name, set) == 0)
            s = &im->sets[i];
    if (!s) {
        if (grow((void **)&im->sets, &im->capsets, im->nsets + 1, sizeof(*im->sets)))
            return NULL;
        s = &im->sets[im->nsets];
        s->name = strdup(set);
        if (!s->name)
            return NULL;
        im->nsets++;
    }
    if (grow((void **)&s->props, &s->cap, s->n + 1, sizeof(*s->props)))
        return NULL;
    sx_device_binary_property *p = &s->props[s->n];
    memset(p, 0, sizeof(*p));
    p->name = strdup(name);
    if (!p->name)
        return NULL;
    s->n++;
    return p;
}

int sxt_image_add_prop_u32(sxt_image *im, const char *set, const char *name, uint32_t value)
{
    sx_device_binary_property *p = prop_new(im, set, name);
    if (!p)
        return -1;
    p->type = SX_PROPERTY_TYPE_UINT32;
    p->value_size = value;
    return 0;
}

int sxt_image_add_prop_bytes(sxt_image *im, const char *set, const char *name, const void *payload,
                             size_t n)
{
    if (n && !payload)
        return -1;
    sx_device_binary_property *p = prop_new(im, set, name);
    if (!p)
        return -1;
    unsigned char *buf = malloc(8 + n);
    if (!buf)
        return -1;
    uint64_t bits = (uint64_t)n * 8;
    memcpy(buf, &bits, 8);
    if (n)
        memcpy(buf + 8, payload, n);
    p->type = SX_PROPERTY_TYPE_BYTE_ARRAY;
    p->value_addr = buf;
    p->value_size = 8 + n;
    return 0;
}

int sxt_image_add_prop_string(sxt_image *im, const char *set, const char *name, const char *value)
{
    if (!value)
        return -1;
    sx_device_binary_property *p = prop_new(im, set, name);
    if (!p)
        return -1;
    p->type = SX_PROPERTY_TYPE_STRING;
    p->value_addr = strdup(value);
    p->value_size = strlen(value);
    return p->value_addr ? 0 : -1;
}

struct buf {
    unsigned char *p;
    size_t n, cap;
    int err;
};

static void put32(struct buf *b, uint32_t v)
{
    if (b->err || grow((void **)&b->p, &b->cap, b->n + 4, 1)) {
        b->err = 1;
        return;
    }
    for (int i = 0; i < 4; i++)
        b->p[b->n++] = (unsigned char)(v >> (8 * i));  /* little-endian */
}

int sxt_image_add_kernel(sxt_image *im, const char *entry_name, uint32_t kind, uint32_t dims,
                         uint32_t num_source_params, uint32_t num_params,
                         const sxa_kernel_param *params, const uint32_t *source_index)
{
    if (!im || !entry_name || (num_params && !params))
        return -1;
    struct buf b = {0};
    put32(&b, 1);
    put32(&b, kind);
    put32(&b, dims);
    put32(&b, num_source_params);
    put32(&b, num_params);
    for (uint32_t i = 0; i < num_params; i++) {
        const sxa_kernel_param *p = &params[i];
        put32(&b, p->kind);
        put32(&b, p->scalar);
        put32(&b, p->size);
        put32(&b, p->align);
        put32(&b, p->address_space);
        put32(&b, source_index ? source_index[i] : i);
        put32(&b, p->num_members);
        for (uint32_t m = 0; m < p->num_members; m++) {
            put32(&b, p->members[m].scalar);
            put32(&b, p->members[m].offset);
        }
    }
    int r = b.err ? -1 : 0;
    if (!r)
        r = sxt_image_add_entry(im, entry_name);
    if (!r)
        r = sxt_image_add_prop_bytes(im, SX_PROP_SET_KERNEL_SIGNATURES, entry_name, b.p, b.n);
    free(b.p);
    return r;
}

sx_device_binaries *sxt_binaries(sxt_image **imgs, unsigned n)
{
    if ((n && !imgs) || n > UINT16_MAX)
        return NULL;
    struct owner *o = calloc(1, sizeof(*o));
    sx_device_binary *dbs = calloc(n ? n : 1, sizeof(*dbs));
    sxt_image **keep = calloc(n ? n : 1, sizeof(*keep));
    if (!o || !dbs || !keep)
        goto fail;
    for (unsigned i = 0; i < n; i++) {
        sxt_image *im = imgs[i];
        if (!im)
            goto fail;
        free(im->set_descs);
        im->set_descs = calloc(im->nsets ? im->nsets : 1, sizeof(*im->set_descs));
        if (!im->set_descs)
            goto fail;
        for (size_t s = 0; s < im->nsets; s++) {
            im->set_descs[s].name = im->sets[s].name;
            im->set_descs[s].properties_begin = im->sets[s].props;
            im->set_descs[s].properties_end = im->sets[s].props + im->sets[s].n;
        }
        sx_device_binary *d = &dbs[i];
        d->version = SX_DEVICE_BINARY_VERSION;
        d->kind = SX_OFFLOAD_KIND_SYCL;
        d->format = im->format;
        d->device_target_spec = im->target;
        d->compile_options = im->compile_options ? im->compile_options : "";
        d->link_options = im->link_options ? im->link_options : "";
        d->binary_start = im->bytes;
        d->binary_end = im->bytes + im->size;
        d->entries_begin = im->entries;
        d->entries_end = im->entries + im->nentries;
        d->property_sets_begin = im->set_descs;
        d->property_sets_end = im->set_descs + im->nsets;
        keep[i] = im;
    }
    o->bin.version = SX_DEVICE_BINARIES_VERSION;
    o->bin.num_device_binaries = (uint16_t)n;
    o->bin.device_binaries = dbs;
    o->n = n;
    o->imgs = keep;
    return &o->bin;
fail:
    free(o);
    free(dbs);
    free(keep);
    return NULL;
}

void sxt_binaries_free(sx_device_binaries *bin)
{
    if (!bin)
        return;
    struct owner *o = (struct owner *)bin;
    for (unsigned i = 0; i < o->n; i++)
        sxt_image_free(o->imgs[i]);
    free(o->imgs);
    free(bin->device_binaries);
    free(o);
}

void *sxt_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *p = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (grow((void **)&p, &cap, n + 65536 + 1, 1)) {
            free(p);
            fclose(f);
            return NULL;
        }
        size_t got = fread(p + n, 1, 65536, f);
        n += got;
        if (got < 65536)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(p);
        return NULL;
    }
    p[n] = 0;
    if (size)
        *size = n;
    return p;
}

char *sxt_kernel_path(const char *file)
{
    const char *dir = getenv("SX_TEST_BUILDDIR");
    if (!dir || !*dir)
        dir = ".";
    size_t n = strlen(dir) + strlen(file) + 32;
    char *p = malloc(n);
    if (!p)
        return NULL;
    snprintf(p, n, "%s/tests/kernels/%s", dir, file);
    struct stat st;
    if (stat(p, &st) != 0) {
        free(p);
        return NULL;
    }
    return p;
}
