/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* images.c: registration of device-image descriptors: checking every
 * field, reading the property sets the core needs, the kernel-name index,
 * unregistration, and image files. Works before sx_init and after sx_fini. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sx-internal.h"

#define MAX_IMAGES 65535u
#define MAX_ENTRIES (1u << 20)
#define MAX_PROPS (1u << 20)

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static sxi_library *libraries;
static sxi_ptrmap by_desc;        /* descriptor -> its library: registration checks and removal in O(1) */
static sxi_strmap kernel_index;   /* entry name -> kernel_images */
static _Atomic uint64_t next_image_id = 1;
_Atomic uint64_t sxi_registry_generation = 1;

/* The images defining one kernel name, in registration order: a list
 * whose nodes live in the images (index_nodes), so an image leaves it in
 * O(1) per name, whatever else is registered. */
typedef struct sxi_index_node {
    struct sxi_index_node *prev, *next;
    sxi_image *im;
} index_node;

typedef struct {
    uint32_t count;
    index_node *head, *tail;
    char name[]; /* the key: owned, so no image's going moves it */
} kernel_images;

void sxi_registry_lock(void) { pthread_mutex_lock(&registry_lock); }
const sxi_library *sxi_registry_libraries(void) { return libraries; }
void sxi_registry_unlock(void) { pthread_mutex_unlock(&registry_lock); }

uint32_t sxi_registry_find_kernel(const char *name, sxi_image **images, uint32_t max)
{
    kernel_images *ki = sxi_strmap_get(&kernel_index, name);
    if (!ki)
        return 0;
    uint32_t i = 0;
    for (index_node *n = ki->head; n && i < max; n = n->next)
        images[i++] = n->im;
    return ki->count;
}

/* ---------------------------------------------------------- checking */

static sx_result bad(uint32_t img, const char *fmt, ...) SXI_PRINTF(2, 3);
static sx_result bad(uint32_t img, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return sxi_error(SX_ERROR_INVALID_BINARY, "sx_register_images: image %u: %s", img, msg);
}

/* Offload entries come in two layouts; see binaries.h. */
static bool entries_are_llvm(const sx_device_binary *b)
{
    const uint8_t *e = (const uint8_t *)b->entries_begin;
    uint64_t reserved;
    uint16_t version, kind;
    memcpy(&reserved, e, 8);
    memcpy(&version, e + 8, 2);
    memcpy(&kind, e + 10, 2);
    return reserved == 0 && version == 1 && kind == 8;
}

static sx_result check_property(uint32_t i, const char *set, const sx_device_binary_property *p)
{
    if (!p->name)
        return bad(i, "a property of set '%s' has no name", set);
    switch (p->type) {
    case SX_PROPERTY_TYPE_UINT32:
        if (p->value_size > UINT32_MAX)
            return bad(i, "UINT32 property '%s' of set '%s' holds %llu", p->name, set,
                       (unsigned long long)p->value_size);
        return SX_SUCCESS;
    case SX_PROPERTY_TYPE_BYTE_ARRAY: {
        if (!p->value_addr || p->value_size < 8)
            return bad(i, "byte array '%s' of set '%s' is %s (%llu bytes; at least the 8-byte size prefix needed)",
                       p->name, set, p->value_addr ? "too short" : "NULL", (unsigned long long)p->value_size);
        uint64_t bits;
        memcpy(&bits, p->value_addr, 8);
        if ((bits + 7) / 8 > p->value_size - 8)
            return bad(i, "byte array '%s' of set '%s' claims %llu bits but holds %llu bytes after its prefix", p->name,
                       set, (unsigned long long)bits, (unsigned long long)(p->value_size - 8));
        return SX_SUCCESS;
    }
    case SX_PROPERTY_TYPE_STRING:
        if (!p->value_addr)
            return bad(i, "string property '%s' of set '%s' is NULL", p->name, set);
        return SX_SUCCESS;
    default:
        return bad(i, "property '%s' of set '%s' has unknown type %u", p->name, set, p->type);
    }
}

static sx_result check_binary(uint32_t i, const sx_device_binary *b)
{
    if (b->version != 1 && b->version != SX_DEVICE_BINARY_VERSION)
        return bad(i, "binary version %u is unknown (this library reads 1 and %u)", b->version,
                   SX_DEVICE_BINARY_VERSION);
    if (b->kind != SX_OFFLOAD_KIND_SYCL)
        return bad(i, "offload kind %u is not SYCL (%u)", b->kind, SX_OFFLOAD_KIND_SYCL);
    if (!b->device_target_spec)
        return bad(i, "target (device_target_spec) is NULL");
    if ((b->manifest_start == NULL) != (b->manifest_end == NULL) || b->manifest_end < b->manifest_start)
        return bad(i, "manifest range [%p, %p) is not valid", (const void *)b->manifest_start,
                   (const void *)b->manifest_end);
    if (!b->binary_start || !b->binary_end || b->binary_end < b->binary_start)
        return bad(i, "binary range [%p, %p) is not valid", (const void *)b->binary_start, (const void *)b->binary_end);
    if (b->binary_end == b->binary_start)
        return bad(i, "the image is empty (0 bytes)");
    if ((b->entries_begin == NULL) != (b->entries_end == NULL) || b->entries_end < b->entries_begin)
        return bad(i, "entry range [%p, %p) is not valid", (void *)b->entries_begin, (void *)b->entries_end);
    if ((b->property_sets_begin == NULL) != (b->property_sets_end == NULL) ||
        b->property_sets_end < b->property_sets_begin)
        return bad(i, "property-set range is not valid");
    size_t bytes = (size_t)((const char *)b->entries_end - (const char *)b->entries_begin);
    if (bytes) {
        size_t step = entries_are_llvm(b) ? 56 : sizeof(sx_offload_entry);
        if (bytes % step || bytes / step > MAX_ENTRIES)
            return bad(i, "entry range of %zu bytes is not a whole number of %zu-byte entries", bytes, step);
        for (size_t off = 0; off < bytes; off += step) {
            const char *name;
            memcpy(&name, (const char *)b->entries_begin + off + (step == 56 ? 24 : 8), sizeof(name));
            if (!name || !*name)
                return bad(i, "entry %zu has no name", off / step);
        }
    }
    size_t nsets = (size_t)(b->property_sets_end - b->property_sets_begin);
    if (nsets > MAX_PROPS)
        return bad(i, "%zu property sets", nsets);
    for (size_t s = 0; s < nsets; s++) {
        const sx_device_binary_property_set *set = &b->property_sets_begin[s];
        if (!set->name)
            return bad(i, "property set %zu has no name", s);
        if ((set->properties_begin == NULL) != (set->properties_end == NULL) ||
            set->properties_end < set->properties_begin ||
            (size_t)(set->properties_end - set->properties_begin) > MAX_PROPS)
            return bad(i, "property set '%s' has an invalid property range", set->name);
        /* Sets the core does not read are kept as they are (issue 27). */
        for (const sx_device_binary_property *p = set->properties_begin;
             sxi_prop_set_is_read(set->name) && p < set->properties_end; p++) {
            sx_result r = check_property(i, set->name, p);
            if (r != SX_SUCCESS)
                return r;
        }
    }
    return SX_SUCCESS;
}

/* ----------------------------------------------------- image records */

static void image_free(sxi_image *im)
{
    if (im->signatures)
        for (uint32_t k = 0; k < im->num_entries; k++)
            sxi_signature_free(&im->signatures[k]);
    free(im->signatures);
    free(im->entries);
    free(im->index_nodes);
    free(im->expanded);
    for (uint32_t k = 0; k < im->num_globals; k++)
        free(im->globals[k].symbol_owned);
    free(im->globals);
    sxi_deps_free_image(im);  /* virtual functions, imported/exported symbols */
}

static void library_free(sxi_library *lib)
{
    if (!lib)
        return;
    for (uint32_t i = 0; i < lib->num_images; i++)
        image_free(&lib->images[i]);
    free(lib->images);
    sxi_binaries_read_free(lib->read);
    free(lib);
}

/* A property set by name: a map built once per image, so looking up every
 * kernel's property is linear in the set, not quadratic. The first of
 * two properties of one name wins, as a scan would find it. */
typedef struct {
    const sx_device_binary_property_set *set;
    sxi_strmap map;
    bool built;
} prop_index;

static void prop_index_init(prop_index *x, const sx_device_binary_property_set *set)
{
    *x = (prop_index){.set = set};
}

static const sx_device_binary_property *find_prop(prop_index *x, const char *name)
{
    const sx_device_binary_property_set *s = x->set;
    size_t n = s ? (size_t)(s->properties_end - s->properties_begin) : 0;
    if (n == 0)
        return NULL;
    if (n > 8 && !x->built) {
        x->built = true;
        for (const sx_device_binary_property *p = s->properties_end; p-- > s->properties_begin;)
            if (!sxi_strmap_put(&x->map, p->name, (void *)p)) {
                sxi_strmap_free(&x->map); /* out of memory: scan */
                x->map = (sxi_strmap){0};
                break;
            }
    }
    if (x->map.count)
        return sxi_strmap_get(&x->map, name);
    for (const sx_device_binary_property *p = s->properties_begin; p < s->properties_end; p++)
        if (strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

static sx_result image_read(uint32_t i, const sx_device_binary *b, sxi_image *im)
{
    char why[256] = "";
    im->bin = b;
    im->data = b->binary_start;
    im->size = (size_t)(b->binary_end - b->binary_start);
    im->compressed = b->format == SX_BINARY_FORMAT_COMPRESSED_NONE;
    im->kind = sxi_image_kind_detect(b, why, sizeof(why));
    if (im->kind == SX_IMAGE_KIND_UNKNOWN)
        return bad(i, "%s", why);
    size_t bytes = (size_t)((const char *)b->entries_end - (const char *)b->entries_begin);
    size_t step = bytes && entries_are_llvm(b) ? 56 : sizeof(sx_offload_entry);
    size_t n = bytes / step;
    im->entries = calloc(n ? n : 1, sizeof(char *));
    im->signatures = calloc(n ? n : 1, sizeof(sxi_signature));
    if (!im->entries || !im->signatures)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
    prop_index sigs, opt, implicit, exported;
    prop_index_init(&sigs, sxi_prop_set(b, SX_PROP_SET_KERNEL_SIGNATURES));
    prop_index_init(&opt, sxi_prop_set(b, SX_PROP_SET_KERNEL_PARAM_OPT));
    prop_index_init(&implicit, sxi_prop_set(b, SX_PROP_SET_IMPLICIT_LOCAL_ARG));
    prop_index_init(&exported, sxi_prop_set(b, SX_PROP_SET_EXPORTED_SYMBOLS));
    sxi_strmap seen = {0}; /* names so far: a duplicate is found in O(1) */
    sx_result r = SX_SUCCESS;
    for (size_t k = 0; k < n && r == SX_SUCCESS; k++) {
        const char *name;
        memcpy(&name, (const char *)b->entries_begin + k * step + (step == 56 ? 24 : 8), sizeof(name));
        if (strstr(name, "__sycl_service_kernel__") || find_prop(&exported, name))
            continue;
        if (sxi_strmap_get(&seen, name)) {
            r = bad(i, "kernel '%s' is listed twice", name);
            break;
        }
        if (!sxi_strmap_put(&seen, name, (void *)name)) {
            r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
            break;
        }
        sxi_signature *sig = &im->signatures[im->num_entries];
        im->entries[im->num_entries++] = name;
        sig->scratch_index = UINT32_MAX;
        const sx_device_binary_property *sp = find_prop(&sigs, name);
        if (!sp)
            continue;
        /* Elimination mask and scratch argument, when the image has them. */
        const uint8_t *mask = NULL;
        size_t mask_len = 0, mask_bits = 0;
        const sx_device_binary_property *mp = find_prop(&opt, name);
        if (mp) {
            if (!sxi_prop_bytes(mp, &mask, &mask_len)) {
                r = bad(i, "\"%s\" of '%s' is not a byte array", SX_PROP_SET_KERNEL_PARAM_OPT, name);
                break;
            }
            memcpy(&mask_bits, mp->value_addr, 8);
        }
        const sx_device_binary_property *ip = find_prop(&implicit, name);
        if (ip && ip->type != SX_PROPERTY_TYPE_UINT32) {
            r = bad(i, "\"%s\" of '%s' is not a UINT32", SX_PROP_SET_IMPLICIT_LOCAL_ARG, name);
            break;
        }
        r = sxi_signature_parse(i, name, sp, mask, mask_bits, ip ? (uint32_t)ip->value_size : UINT32_MAX, sig);
    }
    sxi_strmap_free(&seen);
    sxi_strmap_free(&sigs.map);
    sxi_strmap_free(&opt.map);
    sxi_strmap_free(&implicit.map);
    sxi_strmap_free(&exported.map);
    if (r != SX_SUCCESS)
        return r;
    sx_result gr = sxi_dg_parse_image(i, im);
    if (gr != SX_SUCCESS)
        return gr;
    const sx_device_binary_property_set *req = sxi_prop_set(b, SX_PROP_SET_DEVICE_REQUIREMENTS);
    for (const sx_device_binary_property *p = req ? req->properties_begin : NULL; p && p < req->properties_end; p++) {
        if (strcmp(p->name, "aspects") != 0)
            continue;
        const uint8_t *v;
        size_t len;
        if (!sxi_prop_bytes(p, &v, &len) || len % 4)
            return bad(i, "\"%s\" aspects is not an array of u32", SX_PROP_SET_DEVICE_REQUIREMENTS);
        for (size_t k = 0; k < len; k += 4) {
            uint32_t a;
            memcpy(&a, v + k, 4);
            if (a >= SX_ASPECT_MAX_)
                return bad(i, "requires aspect %u, which this library cannot represent (max %u)", a,
                           SX_ASPECT_MAX_ - 1);
            im->aspects |= SX_ASPECT_BIT(a);
        }
    }
    /* Virtual-function sets and imported/exported symbols (resolver.c). */
    return sxi_deps_parse_image(i, im);
}

/* -------------------------------------------------- the kernel index */

static void index_remove(sxi_image *im)
{
    for (uint32_t k = 0; im->index_nodes && k < im->num_entries; k++) {
        index_node *n = &im->index_nodes[k];
        if (!n->im)
            continue; /* never added (registration failed midway) */
        kernel_images *ki = sxi_strmap_get(&kernel_index, im->entries[k]);
        if (!ki)
            continue;
        if (n->prev)
            n->prev->next = n->next;
        else
            ki->head = n->next;
        if (n->next)
            n->next->prev = n->prev;
        else
            ki->tail = n->prev;
        n->im = NULL;
        if (--ki->count == 0) {
            sxi_strmap_remove(&kernel_index, ki->name);
            free(ki);
        }
    }
}

/* Another descriptor's image already defines `name` for the same target:
 * the first registered is used (sxi_select_image takes the first that fits),
 * which may not be what the second descriptor's owner meant. Logged, not
 * refused: one kernel in several images for several targets is the normal
 * case, and a library's image and the application's may both carry it. */
static void index_warn_shadowed(const kernel_images *ki, const sxi_image *im, const char *name)
{
    uint32_t looked = 0;
    for (const index_node *n = ki->head; n && looked < 4; n = n->next, looked++) /* bounded: no pairwise scan */
        if (n->im->lib != im->lib && strcmp(n->im->bin->device_target_spec, im->bin->device_target_spec) == 0) {
            SXI_LOG(SX_LOG_WARN,
                    "kernel '%s' for target '%s' is registered by descriptors %p and %p; the first (%p) is used",
                    name, im->bin->device_target_spec, (const void *)n->im->lib->desc, (const void *)im->lib->desc,
                    (const void *)n->im->lib->desc);
            return;
        }
}

static bool index_add(sxi_image *im)
{
    if (!im->index_nodes && im->num_entries &&
        !(im->index_nodes = calloc(im->num_entries, sizeof(*im->index_nodes))))
        return false;
    for (uint32_t k = 0; k < im->num_entries; k++) {
        const char *name = im->entries[k];
        kernel_images *ki = sxi_strmap_get(&kernel_index, name);
        if (!ki) {
            size_t len = strlen(name);
            ki = calloc(1, sizeof(*ki) + len + 1);
            if (!ki)
                return false;
            memcpy(ki->name, name, len + 1);
            if (!sxi_strmap_put(&kernel_index, ki->name, ki)) {
                free(ki);
                return false;
            }
        } else {
            index_warn_shadowed(ki, im, name);
        }
        index_node *n = &im->index_nodes[k];
        *n = (index_node){ki->tail, NULL, im};
        if (ki->tail)
            ki->tail->next = n;
        else
            ki->head = n;
        ki->tail = n;
        ki->count++;
    }
    return true;
}

/* -------------------------------------------------------- public API */

static sx_result register_desc(const sx_device_binaries *desc, sxi_library **out);

/* Registration as a timeline span (SX_TRACE=FILE.json). */
sx_result sxi_register(const sx_device_binaries *desc, sxi_library **out)
{
    if (!sxi_initialized()) {
        /* Registration from a constructor comes before sx_init: SX_LOG and
         * SX_TRACE already count for it. */
        sxi_log_init_from_env();
        sxi_tl_init_from_env();
    }
    uint64_t t0 = sxi_tl_begin();
    sx_result r = register_desc(desc, out);
    if (SXI_UNLIKELY(t0)) {
        sxi_tl_args a = {.len = 0};
        a.buf[0] = 0;
        sxi_tl_arg_u64(&a, "images", desc ? desc->num_device_binaries : 0);
        sxi_tl_arg_str(&a, "result", sx_result_name(r));
        sxi_tl_end(t0, "register", &a);
    }
    return r;
}

static sx_result register_desc(const sx_device_binaries *desc, sxi_library **out)
{
    if (!desc)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_register_images: binaries is NULL");
    if (desc->version != SX_DEVICE_BINARIES_VERSION)
        return sxi_error(SX_ERROR_UNSUPPORTED_VERSION, "sx_register_images: descriptor version %u (this library reads %u)",
                         desc->version, SX_DEVICE_BINARIES_VERSION);
    if (desc->num_device_binaries && !desc->device_binaries)
        return sxi_error(SX_ERROR_INVALID_BINARY, "sx_register_images: %u binaries but the array is NULL",
                         desc->num_device_binaries);
    /* Every DPC++ layout, read into one form (binaries-read.c). */
    sxi_desc_read *rd;
    sx_result rr = sxi_binaries_read(desc, &rd);
    if (rr != SX_SUCCESS)
        return rr;
    for (uint32_t i = 0; i < desc->num_device_binaries; i++) {
        sx_result r = check_binary(i, &rd->bins[i]);
        if (r != SX_SUCCESS) {
            sxi_binaries_read_free(rd);
            return r;
        }
    }
    sxi_library *lib = calloc(1, sizeof(*lib));
    if (!lib || !(lib->images = calloc(desc->num_device_binaries ? desc->num_device_binaries : 1, sizeof(sxi_image)))) {
        free(lib);
        sxi_binaries_read_free(rd);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
    }
    lib->desc = desc;
    lib->read = rd;
    for (uint32_t i = 0; i < desc->num_device_binaries; i++) {
        sxi_image *im = &lib->images[lib->num_images++];
        im->lib = lib;
        sx_result r = image_read(i, &rd->bins[i], im);
        if (r != SX_SUCCESS) {
            library_free(lib);
            return r;
        }
    }
    sxi_registry_lock();
    if (sxi_ptrmap_get(&by_desc, desc)) {
        sxi_registry_unlock();
        library_free(lib);
        return sxi_error(SX_ERROR_INVALID_OPERATION, "sx_register_images: descriptor %p is already registered",
                         (const void *)desc);
    }
    for (uint32_t i = 0; i < lib->num_images; i++) {
        sx_result r = sxi_dg_check_image(&lib->images[i]);
        if (r != SX_SUCCESS) {
            sxi_registry_unlock();
            library_free(lib);
            return r;
        }
    }
    bool ok = true;
    uint32_t added = 0;
    for (uint32_t i = 0; i < lib->num_images && ok; i++, added++) {
        lib->images[i].id = atomic_fetch_add(&next_image_id, 1);
        ok = index_add(&lib->images[i]) && sxi_dg_add_image(&lib->images[i]);
    }
    ok = ok && sxi_ptrmap_put(&by_desc, desc, 0, 0, lib);
    if (!ok) {
        for (uint32_t i = 0; i < added; i++) {
            index_remove(&lib->images[i]);
            sxi_dg_remove_image(&lib->images[i]);
        }
        sxi_registry_unlock();
        library_free(lib);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
    }
    lib->next = libraries;
    lib->prev = NULL;
    if (libraries)
        libraries->prev = lib;
    libraries = lib;
    atomic_fetch_add(&sxi_registry_generation, 1);
    sxi_registry_unlock();
    SXI_LOG(SX_LOG_INFO, "registered %u image(s) from descriptor %p", lib->num_images, (const void *)desc);
    if (out)
        *out = lib;
    return SX_SUCCESS;
}

SX_API sx_result sx_register_images(const sx_device_binaries *desc)
{
    return sxi_register(desc, NULL);
}

SX_API sx_result sx_unregister_images(const sx_device_binaries *desc)
{
    if (!desc)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_unregister_images: binaries is NULL");
    sxi_registry_lock();
    const struct sxi_ptrmap_slot *slot = sxi_ptrmap_get(&by_desc, desc);
    sxi_library *lib = slot ? slot->value : NULL;
    if (!lib) {
        sxi_registry_unlock();
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_unregister_images: descriptor %p is not registered",
                         (const void *)desc);
    }
    sxi_ptrmap_remove(&by_desc, desc);
    if (lib->prev)
        lib->prev->next = lib->next;
    else
        libraries = lib->next;
    if (lib->next)
        lib->next->prev = lib->prev;
    for (uint32_t i = 0; i < lib->num_images; i++) {
        index_remove(&lib->images[i]);
        sxi_dg_remove_image(&lib->images[i]);
    }
    atomic_fetch_add(&sxi_registry_generation, 1);
    /* Kernels and programs built from these images go now, while the
     * adapters are still there (after sx_fini there are none to drop).
     * Launches may still hold the kernels' slots: they are unlinked here,
     * then released after a grace period (epoch.c). The registry lock
     * stays held: a context being torn down meanwhile waits for it before
     * it releases its programs and adapter context, which these slots'
     * adapter kernels must not outlive. */
    struct sxi_kernel_slot *retired = NULL;
    for (uint32_t i = 0; i < lib->num_images; i++) {
        const sxi_image *im = &lib->images[i];
        /* Only an image others link (symbols, virtual functions) can be in
         * another kernel's program: then every kernel is looked at; else
         * only the ones it names, so unregistering costs what it removes. */
        if (im->vf_set || im->num_exports)
            sxi_kernels_unlink_image(im->id, &retired);
        else
            sxi_kernels_unlink_image_named(im, &retired);
    }
    sxi_kernels_free_retired(retired);
    for (uint32_t i = 0; i < lib->num_images; i++)
        sxi_programs_drop_image(lib->images[i].id);
    sxi_registry_unlock();
    library_free(lib);
    return SX_SUCCESS;
}

/* ---------------------------------------------------------- image files */

struct sx_image_file_s {
    _Atomic uint32_t tag;
    void *data;
    sx_device_binaries *desc;
};

static sx_result file_register(void *data, size_t size, sx_image_file *out)
{
    struct sx_image_file_s *f = sxi_handle_new(sizeof(*f));
    if (!f) {
        free(data);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory");
    }
    f->data = data;
    sx_result r = sxi_image_file_parse(data, size, &f->desc);
    if (r == SX_SUCCESS && (r = sx_register_images(f->desc)) != SX_SUCCESS)
        sxi_image_file_free(f->desc);
    if (r != SX_SUCCESS) {
        free(data);
        sxi_handle_free(f, sizeof(*f));
        return r;
    }
    atomic_store(&f->tag, (uint32_t)SXI_TAG_IMAGE_FILE);
    *out = f;
    return SX_SUCCESS;
}

SX_API sx_result sx_image_file_load_memory(const void *data, size_t size, sx_image_file *out)
{
    SXI_CHECK_PTR(data, "data");
    SXI_CHECK_PTR(out, "file");
    void *copy = malloc(size ? size : 1);
    if (!copy)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_image_file_load_memory: out of memory for %zu bytes", size);
    memcpy(copy, data, size);
    sx_result r = file_register(copy, size, out);
    if (r != SX_SUCCESS)
        sxi_error_prefix("sx_image_file_load_memory(%zu bytes)", size);
    return r;
}

SX_API sx_result sx_image_file_load(const char *path, sx_image_file *out)
{
    SXI_CHECK_PTR(path, "path");
    SXI_CHECK_PTR(out, "file");
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; the type is
     * checked on the descriptor, then reads block as usual. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return sxi_error(SX_ERROR_IO, "sx_image_file_load: cannot read '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        /* errno says nothing here (open and fstat succeeded). */
        close(fd);
        return sxi_error(SX_ERROR_IO, "sx_image_file_load: cannot read '%s': it is %s, not a regular file", path,
                         S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) ? "a character device"
                         : S_ISBLK(st.st_mode) ? "a block device" : S_ISFIFO(st.st_mode) ? "a pipe" : "a special file");
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (st.st_size > (off_t)1 << 36) {
        close(fd);
        return sxi_error(SX_ERROR_INVALID_BINARY, "sx_image_file_load: '%s' is %lld bytes, past the 64 GiB an image file may have.", path, (long long)st.st_size);
    }
    size_t size = (size_t)st.st_size;
    char *data = malloc(size ? size : 1);
    if (!data) {
        close(fd);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_image_file_load: out of memory for '%s'", path);
    }
    size_t got = 0;
    while (got < size) {
        ssize_t n = read(fd, data + got, size - got);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            free(data);
            return sxi_error(SX_ERROR_IO, "sx_image_file_load: reading '%s' stopped at %zu of %zu bytes: %s", path, got,
                             size, n == 0 ? "end of file" : strerror(e));
        }
        got += (size_t)n;
    }
    close(fd);
    sx_result r = file_register(data, size, out);
    if (r != SX_SUCCESS)
        sxi_error_prefix("sx_image_file_load('%s')", path);
    return r;
}

SX_API sx_result sx_image_file_release(sx_image_file f)
{
    if (!f)
        return sxi_error(SX_ERROR_INVALID_NULL_HANDLE, "sx_image_file_release: image file is NULL");
    if (!sxi_handle_kill(&f->tag, SXI_TAG_IMAGE_FILE))
        return SXI_DEAD_HANDLE(f, "image file");
    sx_result r = sx_unregister_images(f->desc);
    sxi_image_file_free(f->desc);
    free(f->data);
    sxi_handle_free(f, sizeof(*f));
    return r;
}
