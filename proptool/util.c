/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* util.c: proptool's diagnostics, allocation, buffers, files and the image model. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sycl-ext/types.h>

#include "proptool.h"

unsigned sxp_num_warnings;
bool sxp_quiet_warnings;
bool sxp_silent;

static void vdiag(const char *kind, const char *file, uint32_t word, const char *fmt, va_list ap)
{
    if (sxp_silent)
        return;
    fprintf(stderr, "proptool: %s: ", kind);
    if (file)
        fprintf(stderr, "%s: ", file);
    if (word != SXP_NONE)
        fprintf(stderr, "word %u: ", word);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void sxp_error(const char *file, uint32_t word, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag("error", file, word, fmt, ap);
    va_end(ap);
}

void sxp_warn(const char *file, uint32_t word, const char *fmt, ...)
{
    va_list ap;
    sxp_num_warnings++;
    if (sxp_quiet_warnings)
        return;
    va_start(ap, fmt);
    vdiag("warning", file, word, fmt, ap);
    va_end(ap);
}

static void oom(void)
{
    fputs("proptool: error: out of memory\n", stderr);
    exit(2);
}

void *sxp_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom();
    return p;
}

void *sxp_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom();
    return p;
}

void *sxp_xrealloc(void *p, size_t n)
{
    p = realloc(p, n ? n : 1);
    if (!p)
        oom();
    return p;
}

char *sxp_xstrdup(const char *s)
{
    return sxp_xstrndup(s, strlen(s));
}

char *sxp_xstrndup(const char *s, size_t n)
{
    char *d = sxp_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *sxp_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        oom();
    char *s = sxp_xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

void sxp_grow(void *pp, size_t *cap, size_t n, size_t size)
{
    void **p = pp;
    if (n < *cap)
        return;
    size_t c = *cap ? *cap : 8;
    while (c <= n)
        c *= 2;
    *p = sxp_xrealloc(*p, c * size);
    memset((char *)*p + *cap * size, 0, (c - *cap) * size);
    *cap = c;
}

void sxp_buf_put(sxp_buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->len + n)
            c *= 2;
        b->data = sxp_xrealloc(b->data, c);
        b->cap = c;
    }
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
}

void sxp_buf_u8(sxp_buf *b, uint8_t v)
{
    sxp_buf_put(b, &v, 1);
}

void sxp_buf_u16(sxp_buf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    sxp_buf_put(b, x, 2);
}

void sxp_buf_u32(sxp_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    sxp_buf_put(b, x, 4);
}

void sxp_buf_u64(sxp_buf *b, uint64_t v)
{
    sxp_buf_u32(b, (uint32_t)v);
    sxp_buf_u32(b, (uint32_t)(v >> 32));
}

void sxp_buf_align(sxp_buf *b, size_t a)
{
    static const uint8_t zero[16];
    while (b->len % a)
        sxp_buf_put(b, zero, 1);
}

void sxp_buf_free(sxp_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

uint8_t *sxp_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        sxp_error(path, SXP_NONE, "cannot open: %s", strerror(errno));
        return NULL;
    }
    sxp_buf b = {0};
    uint8_t chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        sxp_buf_put(&b, chunk, n);
    if (ferror(f)) {
        sxp_error(path, SXP_NONE, "read failed: %s", strerror(errno));
        fclose(f);
        sxp_buf_free(&b);
        return NULL;
    }
    fclose(f);
    *size = b.len;
    if (!b.data)
        b.data = sxp_xmalloc(1);
    return b.data;
}

bool sxp_write_file_atomic(const char *path, const void *data, size_t size)
{
    char *tmp = sxp_xasprintf("%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        sxp_error(path, SXP_NONE, "cannot create a temporary file beside it: %s", strerror(errno));
        free(tmp);
        return false;
    }
    const uint8_t *p = data;
    size_t left = size;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            sxp_error(path, SXP_NONE, "write failed: %s", strerror(errno));
            close(fd);
            unlink(tmp);
            free(tmp);
            return false;
        }
        p += w;
        left -= (size_t)w;
    }
    /* mkstemp makes 0600; an output file gets the usual 0644 less umask. */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        sxp_error(path, SXP_NONE, "cannot write: %s", strerror(errno));
        unlink(tmp);
        free(tmp);
        return false;
    }
    free(tmp);
    return true;
}

/* ---------------------------------------------------------------- images */

sxp_image *sxp_image_new(const char *origin, const char *target, uint8_t format)
{
    sxp_image *img = sxp_xcalloc(1, sizeof *img);
    img->origin = sxp_xstrdup(origin ? origin : "");
    img->target = sxp_xstrdup(target);
    img->format = format;
    return img;
}

static void set_free(sxp_propset *s)
{
    for (size_t i = 0; i < s->nprops; i++) {
        free(s->props[i].name);
        free(s->props[i].bytes);
    }
    free(s->props);
    free(s->name);
}

void sxp_image_free(sxp_image *img)
{
    if (!img)
        return;
    for (size_t i = 0; i < img->nentries; i++)
        free(img->entries[i]);
    free(img->entries);
    for (size_t i = 0; i < img->nsets; i++)
        set_free(&img->sets[i]);
    free(img->sets);
    free(img->origin);
    free(img->target);
    free(img->compile_options);
    free(img->link_options);
    free(img->data);
    free(img->vf_set);
    free(img);
}

void sxp_image_add_entry(sxp_image *img, const char *name)
{
    sxp_grow(&img->entries, &img->entries_cap, img->nentries, sizeof *img->entries);
    img->entries[img->nentries++] = sxp_xstrdup(name);
}

const sxp_propset *sxp_image_find_set(const sxp_image *img, const char *name)
{
    for (size_t i = 0; i < img->nsets; i++)
        if (!strcmp(img->sets[i].name, name))
            return &img->sets[i];
    return NULL;
}

sxp_propset *sxp_image_set(sxp_image *img, const char *name)
{
    for (size_t i = 0; i < img->nsets; i++)
        if (!strcmp(img->sets[i].name, name))
            return &img->sets[i];
    sxp_grow(&img->sets, &img->sets_cap, img->nsets, sizeof *img->sets);
    sxp_propset *s = &img->sets[img->nsets++];
    memset(s, 0, sizeof *s);
    s->name = sxp_xstrdup(name);
    return s;
}

const sxp_prop *sxp_set_find(const sxp_propset *s, const char *name)
{
    for (size_t i = 0; i < s->nprops; i++)
        if (!strcmp(s->props[i].name, name))
            return &s->props[i];
    return NULL;
}

/* A property of that name is replaced: the last writer wins. */
static sxp_prop *set_add(sxp_propset *s, const char *name)
{
    for (size_t i = 0; i < s->nprops; i++)
        if (!strcmp(s->props[i].name, name)) {
            free(s->props[i].bytes);
            s->props[i].bytes = NULL;
            return &s->props[i];
        }
    sxp_grow(&s->props, &s->cap, s->nprops, sizeof *s->props);
    sxp_prop *p = &s->props[s->nprops++];
    memset(p, 0, sizeof *p);
    p->name = sxp_xstrdup(name);
    return p;
}

void sxp_set_u32(sxp_propset *s, const char *name, uint32_t v)
{
    sxp_prop *p = set_add(s, name);
    p->type = SX_PROPERTY_TYPE_UINT32;
    p->u32 = v;
    p->size = 0;
}

void sxp_set_bits(sxp_propset *s, const char *name, const void *payload, uint64_t nbits)
{
    size_t n = (size_t)((nbits + 7) / 8);
    sxp_prop *p = set_add(s, name);
    p->type = SX_PROPERTY_TYPE_BYTE_ARRAY;
    p->size = 8 + n;
    p->bytes = sxp_xmalloc(p->size);
    for (int i = 0; i < 8; i++)
        p->bytes[i] = (uint8_t)(nbits >> (8 * i));
    if (n)
        memcpy(p->bytes + 8, payload, n);
}

void sxp_set_bytes(sxp_propset *s, const char *name, const void *payload, size_t n)
{
    sxp_set_bits(s, name, payload, (uint64_t)n * 8);
}

void sxp_set_bytes_str(sxp_propset *s, const char *name, const char *str, bool with_nul)
{
    sxp_set_bytes(s, name, str, strlen(str) + (with_nul ? 1 : 0));
}

void sxp_set_string(sxp_propset *s, const char *name, const char *str)
{
    sxp_prop *p = set_add(s, name);
    p->type = SX_PROPERTY_TYPE_STRING;
    p->size = strlen(str);
    p->bytes = (uint8_t *)sxp_xstrdup(str);
}

void sxp_image_copy_props(sxp_image *to, const sxp_image *from)
{
    for (size_t i = 0; i < from->nentries; i++)
        sxp_image_add_entry(to, from->entries[i]);
    for (size_t i = 0; i < from->nsets; i++) {
        const sxp_propset *fs = &from->sets[i];
        sxp_propset *ts = sxp_image_set(to, fs->name);
        for (size_t j = 0; j < fs->nprops; j++) {
            const sxp_prop *fp = &fs->props[j];
            sxp_prop *tp = set_add(ts, fp->name);
            tp->type = fp->type;
            tp->u32 = fp->u32;
            tp->size = fp->size;
            if (fp->bytes) {
                tp->bytes = sxp_xmalloc(fp->size + 1);
                memcpy(tp->bytes, fp->bytes, fp->size);
                tp->bytes[fp->size] = 0;
            }
        }
    }
}

void sxp_image_take_prop(sxp_image *img, const sxp_image *prop)
{
    /* DPC++'s sets are the .prop's, whole; proptool's own ("SX/") stay. */
    for (size_t i = 0; i < img->nsets; i++)
        if (strncmp(img->sets[i].name, "SX/", 3) != 0) {
            set_free(&img->sets[i]);
            memmove(&img->sets[i], &img->sets[i + 1], (img->nsets - i - 1) * sizeof *img->sets);
            img->nsets--;
            i--;
        }
    sxp_image tmp = {0};
    tmp.sets = prop->sets;
    tmp.nsets = prop->nsets;
    sxp_image_copy_props(img, &tmp);
    sxp_image_sort(img);
}

static int cmp_set(const void *a, const void *b)
{
    return strcmp(((const sxp_propset *)a)->name, ((const sxp_propset *)b)->name);
}

static int cmp_prop(const void *a, const void *b)
{
    return strcmp(((const sxp_prop *)a)->name, ((const sxp_prop *)b)->name);
}

void sxp_image_sort(sxp_image *img)
{
    if (img->nsets)
        qsort(img->sets, img->nsets, sizeof *img->sets, cmp_set);
    for (size_t i = 0; i < img->nsets; i++)
        if (img->sets[i].nprops)
            qsort(img->sets[i].props, img->sets[i].nprops, sizeof(sxp_prop), cmp_prop);
}

/* ------------------------------------------------------------ signatures */

void sxp_kernel_encode(const sxp_kernel *k, sxp_buf *b)
{
    sxp_buf_u32(b, 1);  /* record version */
    sxp_buf_u32(b, k->kind);
    sxp_buf_u32(b, k->dims);
    sxp_buf_u32(b, k->num_source_params);
    sxp_buf_u32(b, k->nparams);
    for (uint32_t i = 0; i < k->nparams; i++) {
        const sxp_param *p = &k->params[i];
        sxp_buf_u32(b, p->kind);
        sxp_buf_u32(b, p->scalar);
        sxp_buf_u32(b, p->size);
        sxp_buf_u32(b, p->align);
        sxp_buf_u32(b, p->address_space);
        sxp_buf_u32(b, p->source_index);
        sxp_buf_u32(b, p->nmembers);
        for (uint32_t j = 0; j < p->nmembers; j++) {
            sxp_buf_u32(b, p->members[j].scalar);
            sxp_buf_u32(b, p->members[j].offset);
        }
    }
}

void sxp_kernel_free(sxp_kernel *k)
{
    for (uint32_t i = 0; i < k->nparams; i++)
        free(k->params[i].members);
    free(k->params);
    free(k->name);
    memset(k, 0, sizeof *k);
}

static const char *const scalar_names[] = {
    [SX_SCALAR_NONE] = "none", [SX_SCALAR_I8] = "i8",   [SX_SCALAR_U8] = "u8",
    [SX_SCALAR_I16] = "i16",   [SX_SCALAR_U16] = "u16", [SX_SCALAR_I32] = "i32",
    [SX_SCALAR_U32] = "u32",   [SX_SCALAR_I64] = "i64", [SX_SCALAR_U64] = "u64",
    [SX_SCALAR_F16] = "f16",   [SX_SCALAR_F32] = "f32", [SX_SCALAR_F64] = "f64",
    [SX_SCALAR_PTR] = "ptr",
};

const char *sxp_scalar_name(uint32_t scalar)
{
    return scalar < sizeof scalar_names / sizeof *scalar_names ? scalar_names[scalar] : NULL;
}

uint32_t sxp_scalar_from_name(const char *name)
{
    for (uint32_t i = 0; i < sizeof scalar_names / sizeof *scalar_names; i++)
        if (!strcmp(scalar_names[i], name))
            return i;
    return SXP_NONE;
}

uint32_t sxp_scalar_size(uint32_t scalar)
{
    switch (scalar) {
    case SX_SCALAR_I8: case SX_SCALAR_U8: return 1;
    case SX_SCALAR_I16: case SX_SCALAR_U16: case SX_SCALAR_F16: return 2;
    case SX_SCALAR_I32: case SX_SCALAR_U32: case SX_SCALAR_F32: return 4;
    case SX_SCALAR_I64: case SX_SCALAR_U64: case SX_SCALAR_F64: case SX_SCALAR_PTR: return 8;
    default: return 0;
    }
}

/* ---------------------------------------------------------------- aspects */

static const struct {
    uint32_t n;
    const char *name;
} aspects[] = {
    {0, "host"},  /* DPC++'s deprecated aspect::host: accepted, no device has it */
    {SX_ASPECT_CPU, "cpu"},
    {SX_ASPECT_GPU, "gpu"},
    {SX_ASPECT_ACCELERATOR, "accelerator"},
    {SX_ASPECT_CUSTOM, "custom"},
    {SX_ASPECT_FP16, "fp16"},
    {SX_ASPECT_FP64, "fp64"},
    {SX_ASPECT_INT64_BASE_ATOMICS, "int64_base_atomics"},
    {SX_ASPECT_INT64_EXTENDED_ATOMICS, "int64_extended_atomics"},
    {SX_ASPECT_IMAGE, "image"},
    {SX_ASPECT_ONLINE_COMPILER, "online_compiler"},
    {SX_ASPECT_ONLINE_LINKER, "online_linker"},
    {SX_ASPECT_QUEUE_PROFILING, "queue_profiling"},
    {SX_ASPECT_USM_DEVICE_ALLOCATIONS, "usm_device_allocations"},
    {SX_ASPECT_USM_HOST_ALLOCATIONS, "usm_host_allocations"},
    {SX_ASPECT_USM_SHARED_ALLOCATIONS, "usm_shared_allocations"},
    {SX_ASPECT_USM_SYSTEM_ALLOCATIONS, "usm_system_allocations"},
    {SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS, "usm_atomic_host_allocations"},
    {SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS, "usm_atomic_shared_allocations"},
    {SX_ASPECT_ATOMIC64, "atomic64"},
};

const char *sxp_aspect_name(uint32_t aspect)
{
    for (size_t i = 0; i < sizeof aspects / sizeof *aspects; i++)
        if (aspects[i].n == aspect)
            return aspects[i].name;
    return NULL;
}

bool sxp_aspect_parse(const char *text, uint32_t *aspect)
{
    for (size_t i = 0; i < sizeof aspects / sizeof *aspects; i++)
        if (!strcmp(aspects[i].name, text)) {
            *aspect = aspects[i].n;
            return true;
        }
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (*text < '0' || *text > '9' || *end || errno || v >= SX_ASPECT_MAX_)
        return false;
    *aspect = (uint32_t)v;
    return true;
}

static const char *const host_access_names[] = {"read", "write", "read_write", "none"};

const char *sxp_host_access_name(uint32_t v)
{
    return v < 4 ? host_access_names[v] : "?";
}

bool sxp_host_access_parse(const char *text, uint32_t *v)
{
    for (uint32_t i = 0; i < 4; i++)
        if (!strcmp(text, host_access_names[i])) {
            *v = i;
            return true;
        }
    /* DPC++'s IR attribute carries the enum's number. */
    if (text[0] >= '0' && text[0] <= '3' && !text[1]) {
        *v = (uint32_t)(text[0] - '0');
        return true;
    }
    return false;
}
