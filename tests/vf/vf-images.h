/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-images.h: registration descriptors for the fake TEST adapter with
 * "SYCL/virtual functions", exported- and imported-symbol properties,
 * built from a short description per image (as proptool would write them). */
#ifndef SX_VF_IMAGES_H
#define SX_VF_IMAGES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

typedef struct vf_spec {
    const char *bytes;            /* payload after "\x7fELF" (tells images apart) */
    const char *kernels;          /* comma list of kernel entries, or NULL */
    const char *set;              /* virtual-functions-set */
    int dummy;                    /* dummy-image=1 */
    const char *calls, *uses, *creates;
    const char *exports, *imports; /* comma lists of symbols */
    uint32_t aspect;              /* a "SYCL/device requirements" aspect, 0 = none */
    int no_nul;                   /* string values without DPC++'s trailing NUL */
    const char *compile_options;
    const void *raw;              /* real image bytes (then bytes is unused) */
    size_t raw_size;
    uint8_t format;               /* with raw: SX_BINARY_FORMAT_* */
    const char *target;           /* with raw: device_target_spec */
    const char *global;           /* a device global (uid) of 8 bytes, not image-scope */
    int sigs;                     /* "SX/kernel signatures" for the example's kernels:
                                   * 'construct'(), every other kernel (int) */
} vf_spec;

typedef struct vf_lib {
    sx_device_binaries desc;
    void *allocs[512];
    unsigned nallocs;
} vf_lib;

static inline void *vf_alloc(vf_lib *l, size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p || l->nallocs == sizeof(l->allocs) / sizeof(l->allocs[0]))
        abort(); /* test helper: cannot go on */
    l->allocs[l->nallocs++] = p;
    return p;
}

static inline char *vf_strdup(vf_lib *l, const char *s)
{
    char *d = vf_alloc(l, strlen(s) + 1);
    memcpy(d, s, strlen(s) + 1);
    return d;
}

/* A BYTE_ARRAY string property (8-byte bit count, characters, NUL unless no_nul). */
static inline sx_device_binary_property vf_string_prop(vf_lib *l, const char *name, const char *value, int no_nul)
{
    size_t n = strlen(value) + (no_nul ? 0 : 1);
    uint8_t *b = vf_alloc(l, 8 + n);
    uint64_t bits = (uint64_t)n * 8;
    memcpy(b, &bits, 8);
    memcpy(b + 8, value, n);
    return (sx_device_binary_property){vf_strdup(l, name), b, SX_PROPERTY_TYPE_BYTE_ARRAY, 8 + n};
}

static inline unsigned vf_count(const char *list)
{
    unsigned n = list && *list ? 1 : 0;
    for (const char *p = list; p && *p; p++)
        n += *p == ',';
    return n;
}

/* Properties named by the elements of a comma list (UINT32 1, like DPC++). */
static inline sx_device_binary_property *vf_name_props(vf_lib *l, const char *list, unsigned *n)
{
    *n = vf_count(list);
    sx_device_binary_property *p = vf_alloc(l, *n * sizeof(*p));
    char *copy = vf_strdup(l, list ? list : "");
    unsigned i = 0;
    for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
        p[i++] = (sx_device_binary_property){tok, NULL, SX_PROPERTY_TYPE_UINT32, 1};
    return p;
}

static inline void vf_put32(uint8_t **p, uint32_t v)
{
    memcpy(*p, &v, 4);
    *p += 4;
}

/* A kernel signature: nd_range of 1 dimension, `nint` int parameters. */
static inline sx_device_binary_property vf_sig(vf_lib *l, const char *kernel, unsigned nint)
{
    size_t n = 8 + 5 * 4 + nint * 7 * 4;
    uint8_t *b = vf_alloc(l, n), *p = b + 8;
    uint64_t bits = (uint64_t)(n - 8) * 8;
    memcpy(b, &bits, 8);
    vf_put32(&p, 1);
    vf_put32(&p, SX_KERNEL_KIND_ND_RANGE);
    vf_put32(&p, 1);
    vf_put32(&p, nint);
    vf_put32(&p, nint);
    for (unsigned i = 0; i < nint; i++) {
        vf_put32(&p, SX_PARAM_VALUE);
        vf_put32(&p, SX_SCALAR_I32);
        vf_put32(&p, 4);
        vf_put32(&p, 4);
        vf_put32(&p, 0);
        vf_put32(&p, i);
        vf_put32(&p, 0);
    }
    return (sx_device_binary_property){(char *)kernel, b, SX_PROPERTY_TYPE_BYTE_ARRAY, n};
}

static inline void vf_image_init(vf_lib *l, sx_device_binary *bin, const vf_spec *s)
{
    size_t blen = s->raw ? s->raw_size : 4 + strlen(s->bytes);
    unsigned char *bytes = vf_alloc(l, blen);
    if (s->raw) {
        memcpy(bytes, s->raw, blen);
    } else {
        memcpy(bytes, "\x7f" "ELF", 4);
        memcpy(bytes + 4, s->bytes, blen - 4);
    }
    /* Kernel entries, then exported symbols (listed as entries too, as DPC++ does). */
    unsigned nk = vf_count(s->kernels), nx = vf_count(s->exports);
    sx_offload_entry *e = vf_alloc(l, (nk + nx) * sizeof(*e));
    unsigned ne = 0;
    const char *lists[2] = {s->kernels, s->exports};
    for (int li = 0; li < 2; li++) {
        if (!lists[li])
            continue;
        char *copy = vf_strdup(l, lists[li]);
        for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ","))
            e[ne++].name = tok;
    }
    sx_device_binary_property_set *sets = vf_alloc(l, 6 * sizeof(*sets));
    unsigned nsets = 0;
    sx_device_binary_property *vf = vf_alloc(l, 5 * sizeof(*vf));
    unsigned nvf = 0;
    if (s->set)
        vf[nvf++] = vf_string_prop(l, "virtual-functions-set", s->set, s->no_nul);
    if (s->dummy)
        vf[nvf++] = (sx_device_binary_property){(char *)"dummy-image", NULL, SX_PROPERTY_TYPE_UINT32, 1};
    if (s->calls)
        vf[nvf++] = vf_string_prop(l, "calls-virtual-functions-set", s->calls, s->no_nul);
    if (s->uses)
        vf[nvf++] = vf_string_prop(l, "uses-virtual-functions-set", s->uses, s->no_nul);
    if (s->creates)
        vf[nvf++] = vf_string_prop(l, "creates-virtual-functions-set", s->creates, s->no_nul);
    if (nvf)
        sets[nsets++] = (sx_device_binary_property_set){(char *)SX_PROP_SET_VIRTUAL_FUNCTIONS, vf, vf + nvf};
    unsigned n;
    if (s->exports) {
        sx_device_binary_property *p = vf_name_props(l, s->exports, &n);
        sets[nsets++] = (sx_device_binary_property_set){(char *)SX_PROP_SET_EXPORTED_SYMBOLS, p, p + n};
    }
    if (s->imports) {
        sx_device_binary_property *p = vf_name_props(l, s->imports, &n);
        sets[nsets++] = (sx_device_binary_property_set){(char *)SX_PROP_SET_IMPORTED_SYMBOLS, p, p + n};
    }
    if (s->aspect) {
        uint8_t *a = vf_alloc(l, 12);
        uint64_t bits = 32;
        memcpy(a, &bits, 8);
        memcpy(a + 8, &s->aspect, 4);
        sx_device_binary_property *p = vf_alloc(l, sizeof(*p));
        *p = (sx_device_binary_property){(char *)"aspects", a, SX_PROPERTY_TYPE_BYTE_ARRAY, 12};
        sets[nsets++] = (sx_device_binary_property_set){(char *)SX_PROP_SET_DEVICE_REQUIREMENTS, p, p + 1};
    }
    if (s->global) {
        uint8_t *v = vf_alloc(l, 16);
        uint64_t bits = 64;
        uint32_t size = 8, scope = 0;
        memcpy(v, &bits, 8);
        memcpy(v + 8, &size, 4);
        memcpy(v + 12, &scope, 4);
        sx_device_binary_property *p = vf_alloc(l, sizeof(*p));
        *p = (sx_device_binary_property){vf_strdup(l, s->global), v, SX_PROPERTY_TYPE_BYTE_ARRAY, 16};
        sets[nsets++] = (sx_device_binary_property_set){(char *)SX_PROP_SET_DEVICE_GLOBALS, p, p + 1};
    }
    if (s->sigs && nk) {
        sx_device_binary_property *p = vf_alloc(l, nk * sizeof(*p));
        for (unsigned i = 0; i < nk; i++)
            p[i] = vf_sig(l, e[i].name, strcmp(e[i].name, "construct") ? 1 : 0);
        sets[nsets++] = (sx_device_binary_property_set){(char *)SX_PROP_SET_KERNEL_SIGNATURES, p, p + nk};
    }
    *bin = (sx_device_binary){
        .version = SX_DEVICE_BINARY_VERSION,
        .kind = SX_OFFLOAD_KIND_SYCL,
        .format = s->raw ? s->format : SX_BINARY_FORMAT_NATIVE,
        .device_target_spec = s->raw ? s->target : "fake",
        .compile_options = s->compile_options,
        .binary_start = bytes,
        .binary_end = bytes + blen,
        .entries_begin = ne ? e : NULL,
        .entries_end = ne ? e + ne : NULL,
        .property_sets_begin = nsets ? sets : NULL,
        .property_sets_end = nsets ? sets + nsets : NULL,
    };
}

static inline vf_lib *vf_lib_new(const vf_spec *specs, unsigned n)
{
    vf_lib *l = calloc(1, sizeof(*l));
    if (!l)
        abort();
    sx_device_binary *bins = vf_alloc(l, n * sizeof(*bins));
    for (unsigned i = 0; i < n; i++)
        vf_image_init(l, &bins[i], &specs[i]);
    l->desc = (sx_device_binaries){SX_DEVICE_BINARIES_VERSION, (uint16_t)n, bins, NULL, NULL};
    return l;
}

static inline void vf_lib_free(vf_lib *l)
{
    if (!l)
        return;
    for (unsigned i = 0; i < l->nallocs; i++)
        free(l->allocs[i]);
    free(l);
}

/* The images of the design's example: kernel images "use" (calls the
 * default set), "use_fp64" (calls set_fp64), "construct" (creates both);
 * set images for the default set, set_fp64 (needs fp64) and its dummy. */
#define VF_SET_DEFAULT "_ZTSv"
#define VF_SET_FP64 "_ZTS8set_fp64"
static const vf_spec vf_example[] = {
    {.bytes = "kernel image: Constructor", .kernels = "construct", .creates = VF_SET_DEFAULT "," VF_SET_FP64},
    {.bytes = "kernel image: Use", .kernels = "use,use_again", .uses = VF_SET_DEFAULT},
    {.bytes = "kernel image: UseFP64", .kernels = "use_fp64", .calls = VF_SET_FP64, .aspect = SX_ASPECT_FP64},
    {.bytes = "set image: Base::foo", .set = VF_SET_DEFAULT},
    {.bytes = "set image: Base::bar (double)", .set = VF_SET_FP64,
     .aspect = SX_ASPECT_FP64},
    {.bytes = "dummy set image: Base::bar", .set = VF_SET_FP64, .dummy = 1},
};

/* Launch kernel `name` on one work-item (the fake adapter's tests). */
static inline sx_result vf_launch(sx_queue q, const char *name)
{
    sx_kernel k;
    sx_result r = sx_kernel_get(name, &k);
    if (r != SX_SUCCESS)
        return r;
    size_t g = 1;
    r = sx_queue_launch(q, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL);
    sx_kernel_release(k);
    return r;
}

/* Lines of the fake adapter's FAKE_LINK_LOG at `path` starting with `word`. */
static inline unsigned vf_log_count(const char *path, const char *word)
{
    FILE *f = fopen(path, "r");
    unsigned n = 0;
    char line[256];
    while (f && fgets(line, sizeof(line), f))
        n += strncmp(line, word, strlen(word)) == 0;
    if (f)
        fclose(f);
    return n;
}

#endif
