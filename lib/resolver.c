/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* resolver.c: which images a kernel's image must be linked with on a
 * device: virtual-function sets it calls or creates (with dummy images
 * standing in for sets the device cannot run) and imported symbols, as a
 * closure; plus reading the properties that say so at registration. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

#define MAX_NAME 4096u     /* one set name */
#define MAX_LIST 1024u     /* names in one comma list */
#define MAX_LINKED 4096u   /* images in one linked program */

#define VF_SET "virtual-functions-set"
#define VF_CALLS "calls-virtual-functions-set"
#define VF_USES "uses-virtual-functions-set"
#define VF_CREATES "creates-virtual-functions-set"
#define VF_DUMMY "dummy-image"

/* ------------------------------------------------------ registration */

static sx_result bad(uint32_t img, const char *set, const char *prop, const char *fmt, ...) SXI_PRINTF(4, 5);
static sx_result bad(uint32_t img, const char *set, const char *prop, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return sxi_error(SX_ERROR_INVALID_BINARY, "sx_register_images: image %u: \"%s\" property '%s': %s", img, set,
                     prop, msg);
}

/* A string value: a BYTE_ARRAY (8-byte bit count, characters, maybe one
 * trailing NUL, as DPC++ writes it) or a STRING property. */
static sx_result string_value(uint32_t img, const sx_device_binary_property *p, const char **s, size_t *len)
{
    if (p->type == SX_PROPERTY_TYPE_STRING) {
        /* value_size is the string's length: nothing past it is read, a
         * missing NUL included (a descriptor is the application's memory). */
        *s = p->value_addr;
        if (!*s)
            return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, p->name, "STRING value is NULL");
        size_t cap = p->value_size < (uint64_t)MAX_NAME * MAX_LIST + 1 ? (size_t)p->value_size
                                                                       : (size_t)MAX_NAME * MAX_LIST + 1;
        *len = strnlen(*s, cap);
    } else if (p->type == SX_PROPERTY_TYPE_BYTE_ARRAY) {
        const uint8_t *b;
        if (!sxi_prop_bytes(p, &b, len))
            return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, p->name, "damaged byte array");
        *s = (const char *)b;
        if (*len && (*s)[*len - 1] == '\0')
            (*len)--;
    } else {
        return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, p->name, "type %u is not a string (BYTE_ARRAY)", p->type);
    }
    if (*len == 0)
        return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, p->name, "empty value");
    if (*len > (size_t)MAX_NAME * MAX_LIST)
        return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, p->name, "value of %zu bytes is too long", *len);
    for (size_t i = 0; i < *len; i++) {
        unsigned char c = (unsigned char)(*s)[i];
        if (c < 0x20 || c == 0x7f)
            return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, p->name, "byte %zu is 0x%02x (set names are text)", i, c);
    }
    return SX_SUCCESS;
}

/* Split a comma list into NUL-terminated copies in `store`; every element
 * must be non-empty. Returns the count through *n. */
static sx_result split_list(uint32_t img, const char *prop, const char *s, size_t len, char *store, const char **names,
                            uint32_t *n, bool single)
{
    memcpy(store, s, len);
    store[len] = '\0';
    uint32_t count = 0;
    char *start = store;
    for (size_t i = 0; i <= len; i++) {
        if (store[i] != ',' && store[i] != '\0')
            continue;
        if (single && store[i] == ',')
            return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, prop, "an image provides one set, not the list '%.*s'",
                       (int)len, s);
        store[i] = '\0';
        size_t l = strlen(start);
        if (l == 0)
            return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, prop, "empty set name in '%.*s'", (int)len, s);
        if (l > MAX_NAME)
            return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, prop, "set name of %zu bytes", l);
        if (count == MAX_LIST)
            return bad(img, SX_PROP_SET_VIRTUAL_FUNCTIONS, prop, "more than %u sets", MAX_LIST);
        bool dup = false;
        for (uint32_t k = 0; k < *n + count && !dup; k++)
            dup = strcmp(names[k], start) == 0;
        if (!dup)
            names[*n + count++] = start;
        start = store + i + 1;
    }
    *n += count;
    return SX_SUCCESS;
}

static size_t list_count(const sx_device_binary_property_set *s)
{
    return s ? (size_t)(s->properties_end - s->properties_begin) : 0;
}

sx_result sxi_deps_parse_image(uint32_t index, sxi_image *im)
{
    const sx_device_binary *b = im->bin;
    const sx_device_binary_property_set *vf = sxi_prop_set(b, SX_PROP_SET_VIRTUAL_FUNCTIONS);
    const sx_device_binary_property_set *ex = sxi_prop_set(b, SX_PROP_SET_EXPORTED_SYMBOLS);
    const sx_device_binary_property_set *imp = sxi_prop_set(b, SX_PROP_SET_IMPORTED_SYMBOLS);
    const sx_device_binary_property_set *vfs = sxi_prop_set(b, SX_PROP_SET_VF_SYMBOLS);
    if (!vf && !ex && !imp && !vfs)
        return SX_SUCCESS;
    /* One allocation: the name arrays, then copies of the set strings. */
    size_t nvf = list_count(vf), text = 0, names = 0;
    for (size_t i = 0; i < nvf; i++) {
        const sx_device_binary_property *p = &vf->properties_begin[i];
        const char *s;
        size_t len;
        if (strcmp(p->name, VF_DUMMY) == 0) {
            if (p->type != SX_PROPERTY_TYPE_UINT32 || p->value_size > 1)
                return bad(index, SX_PROP_SET_VIRTUAL_FUNCTIONS, p->name, "must be UINT32 0 or 1 (type %u, value %llu)",
                           p->type, (unsigned long long)p->value_size);
            im->vf_dummy = p->value_size == 1;
            continue;
        }
        if (strcmp(p->name, VF_SET) && strcmp(p->name, VF_CALLS) && strcmp(p->name, VF_USES) &&
            strcmp(p->name, VF_CREATES)) {
            SXI_LOG(SX_LOG_DEBUG, "image %u: \"%s\" property '%s' ignored (unknown)", index,
                    SX_PROP_SET_VIRTUAL_FUNCTIONS, p->name);
            continue;
        }
        sx_result r = string_value(index, p, &s, &len);
        if (r != SX_SUCCESS)
            return r;
        text += len + 1;
        names += len / 2 + 1;  /* at most this many non-empty names */
    }
    size_t nex = list_count(ex), nimp = list_count(imp), nvfs = list_count(vfs);
    if (names > MAX_LIST * 4u || nex > (1u << 20) || nimp > (1u << 20) || nvfs > (1u << 20))
        return bad(index, SX_PROP_SET_VIRTUAL_FUNCTIONS, "*", "too many names");
    size_t ptrs = 3 * names + nex + nimp + nvfs;
    char *store = malloc(ptrs * sizeof(char *) + text + 1);
    if (!store)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "sx_register_images: out of memory");
    im->dep_storage = store;
    const char **arr = (const char **)(void *)store;
    char *chars = store + ptrs * sizeof(char *);
    im->vf_calls = arr;
    im->vf_creates = arr + names;
    im->vf_uses = arr + 2 * names;
    im->exports = arr + 3 * names;
    im->imports = im->exports + nex;
    im->vf_symbols = im->imports + nimp;
    for (size_t i = 0; i < nvf; i++) {
        const sx_device_binary_property *p = &vf->properties_begin[i];
        bool is_set = strcmp(p->name, VF_SET) == 0, is_creates = strcmp(p->name, VF_CREATES) == 0;
        bool is_calls = strcmp(p->name, VF_CALLS) == 0, is_uses = strcmp(p->name, VF_USES) == 0;
        if (!is_set && !is_creates && !is_calls && !is_uses)
            continue;
        const char *s;
        size_t len;
        string_value(index, p, &s, &len);
        sx_result r;
        if (is_set) {
            if (im->vf_set)
                return bad(index, SX_PROP_SET_VIRTUAL_FUNCTIONS, p->name, "given twice");
            const char *one[1];
            uint32_t n = 0;
            r = split_list(index, p->name, s, len, chars, one, &n, true);
            im->vf_set = chars;
        } else if (is_calls) {
            r = split_list(index, p->name, s, len, chars, im->vf_calls, &im->num_vf_calls, false);
        } else if (is_uses) {
            r = split_list(index, p->name, s, len, chars, im->vf_uses, &im->num_vf_uses, false);
        } else {
            r = split_list(index, p->name, s, len, chars, im->vf_creates, &im->num_vf_creates, false);
        }
        if (r != SX_SUCCESS)
            return r;
        chars += len + 1;
    }
    /* uses-virtual-functions-set beside calls-/creates- is proptool's copy
     * for DPC++'s runtime: the seed's two lists say more, they decide. */
    bool seed_lists = false;
    for (size_t i = 0; i < nvf; i++)
        seed_lists |= !strcmp(vf->properties_begin[i].name, VF_CALLS) || !strcmp(vf->properties_begin[i].name, VF_CREATES);
    if (seed_lists)
        im->num_vf_uses = 0;
    if (im->vf_dummy && !im->vf_set)
        return bad(index, SX_PROP_SET_VIRTUAL_FUNCTIONS, VF_DUMMY, "a dummy image must say which set it stands in for ("
                   VF_SET ")");
    if (im->vf_dummy && (im->num_vf_calls || im->num_vf_creates || im->num_vf_uses))
        return bad(index, SX_PROP_SET_VIRTUAL_FUNCTIONS, VF_DUMMY, "a dummy image needs no other set");
    for (size_t i = 0; i < nex; i++)
        im->exports[im->num_exports++] = ex->properties_begin[i].name;
    for (size_t i = 0; i < nimp; i++) {
        const char *sym = imp->properties_begin[i].name;
        if (!*sym)
            return bad(index, SX_PROP_SET_IMPORTED_SYMBOLS, "", "empty symbol name");
        im->imports[im->num_imports++] = sym;
    }
    if (nvfs && !im->vf_set)
        return bad(index, SX_PROP_SET_VF_SYMBOLS, "*", "only a virtual-function set image (" VF_SET ") lists its "
                   "functions");
    for (size_t i = 0; i < nvfs; i++) {
        const char *sym = vfs->properties_begin[i].name;
        if (!*sym)
            return bad(index, SX_PROP_SET_VF_SYMBOLS, "", "empty symbol name");
        im->vf_symbols[im->num_vf_symbols++] = sym;
    }
    if (im->vf_set || im->num_vf_calls || im->num_vf_creates || im->num_vf_uses || im->num_imports)
        SXI_LOG(SX_LOG_DEBUG, "image %u: provides set '%s'%s, calls %u set(s), creates %u, uses %u, imports %u symbol(s)",
                index, im->vf_set ? im->vf_set : "-", im->vf_dummy ? " (dummy)" : "", im->num_vf_calls,
                im->num_vf_creates, im->num_vf_uses, im->num_imports);
    return SX_SUCCESS;
}

void sxi_deps_free_image(sxi_image *im)
{
    free(im->dep_storage);
    im->dep_storage = NULL;
}

/* ------------------------------------------------------------ resolving */

typedef struct {
    const sxi_image *main;
    const struct sx_device_s *dev;
    const char *kernel;
    const sxi_image **out;
    uint32_t count, cap;
} closure;

static bool in_closure(const closure *c, const sxi_image *im)
{
    for (uint32_t i = 0; i < c->count; i++)
        if (c->out[i] == im)
            return true;
    return false;
}

static sx_result add(closure *c, const sxi_image *im)
{
    if (in_closure(c, im))
        return SX_SUCCESS;
    if (c->count == MAX_LINKED)
        return sxi_error(SX_ERROR_OUT_OF_RESOURCES, "kernel '%s': more than %u images to link", c->kernel, MAX_LINKED);
    if (c->count == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 8;
        const sxi_image **n = realloc(c->out, cap * sizeof(*n));
        if (!n)
            return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory resolving kernel '%s'", c->kernel);
        c->out = n;
        c->cap = cap;
    }
    c->out[c->count++] = im;
    return SX_SUCCESS;
}

/* Candidates must be of the kernel image's kind: one program holds one. */
static bool same_kind(const closure *c, const sxi_image *im) { return im->kind == c->main->kind; }
static bool runs_on(const closure *c, const sxi_image *im)
{
    return sxi_device_kind_rank(c->dev, im->kind) && !(im->aspects & ~c->dev->aspects);
}

static void aspect_list(sx_aspect_set missing, char *buf, size_t size)
{
    size_t w = 0;
    buf[0] = '\0';
    for (uint32_t a = 0; a < SX_ASPECT_MAX_ && w < size; a++)
        if (missing & SX_ASPECT_BIT(a))
            w += (size_t)snprintf(buf + w, size - w, "%s%u", w ? "," : "", a);
}

/* What the registry has for a set, of the kernel image's kind. */
typedef struct {
    uint32_t real, real_ok, dummy, dummy_ok, other_kind;
    sx_aspect_set missing;     /* aspects the device lacks, over incompatible real providers */
    const sxi_image *incompatible;
} set_census;

static set_census census(const closure *c, const char *set)
{
    set_census s = {0};
    for (const sxi_library *l = sxi_registry_libraries(); l; l = l->next)
        for (uint32_t i = 0; i < l->num_images; i++) {
            const sxi_image *im = &l->images[i];
            if (!im->vf_set || strcmp(im->vf_set, set) != 0)
                continue;
            if (!same_kind(c, im)) {
                s.other_kind++;
                continue;
            }
            bool ok = runs_on(c, im);
            if (im->vf_dummy) {
                s.dummy++;
                s.dummy_ok += ok;
            } else {
                s.real++;
                s.real_ok += ok;
                if (!ok) {
                    s.missing |= im->aspects & ~c->dev->aspects;
                    s.incompatible = im;
                }
            }
        }
    return s;
}

static sx_result take_set(closure *c, const char *set, bool dummy)
{
    for (const sxi_library *l = sxi_registry_libraries(); l; l = l->next)
        for (uint32_t i = 0; i < l->num_images; i++) {
            const sxi_image *im = &l->images[i];
            if (im->vf_set && im->vf_dummy == dummy && strcmp(im->vf_set, set) == 0 && same_kind(c, im) &&
                runs_on(c, im)) {
                sx_result r = add(c, im);
                if (r != SX_SUCCESS)
                    return r;
            }
        }
    return SX_SUCCESS;
}

static sx_result no_provider(const closure *c, const char *how, const char *set, const set_census *s)
{
    char kinds[96] = "";
    if (s->other_kind)
        snprintf(kinds, sizeof(kinds), " (%u image(s) of other kinds provide it)", s->other_kind);
    return sxi_error(SX_ERROR_LINK_FAILURE,
                     "kernel '%s' %s virtual-function set '%s', but no registered %s image %s it for device %s%s",
                     c->kernel, how, set, sxi_image_kind_name(c->main->kind),
                     s->dummy ? "except a dummy provides" : "provides", c->dev->name, kinds);
}

static sx_result calls(closure *c, const char *set)
{
    set_census s = census(c, set);
    if (s.real_ok)
        return take_set(c, set, false);
    if (s.real) {
        char a[128];
        aspect_list(s.missing, a, sizeof(a));
        return sxi_error(SX_ERROR_KERNEL_NOT_SUPPORTED,
                         "kernel '%s' calls virtual-function set '%s', whose image %llu requires aspect(s) %s, which "
                         "device %s lacks",
                         c->kernel, set, (unsigned long long)s.incompatible->id, a, c->dev->name);
    }
    return no_provider(c, "calls", set, &s);
}

static sx_result creates(closure *c, const char *set)
{
    set_census s = census(c, set);
    if (s.real_ok)
        return take_set(c, set, false);
    if (s.dummy_ok) {
        SXI_LOG(SX_LOG_INFO, "kernel '%s': set '%s' cannot run on %s; linking its dummy image", c->kernel, set,
                c->dev->name);
        return take_set(c, set, true);
    }
    if (s.real) {
        char a[128];
        aspect_list(s.missing, a, sizeof(a));
        return sxi_error(SX_ERROR_KERNEL_NOT_SUPPORTED,
                         "kernel '%s' creates objects of virtual-function set '%s', whose image %llu requires "
                         "aspect(s) %s, which device %s lacks, and no dummy image of the set is registered",
                         c->kernel, set, (unsigned long long)s.incompatible->id, a, c->dev->name);
    }
    return no_provider(c, "creates objects of", set, &s);
}

static bool lists(const char *const *names, uint32_t n, const char *set)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(names[i], set) == 0)
            return true;
    return false;
}

/* uses-virtual-functions-set, DPC++'s rule (program_manager's
 * m_VFSet2BinImage and its breadth-first closure, the RuntimeLinking unit
 * test): a set is a group of images, its providers and every image that
 * uses it, and all of the group that the device can run is linked. A
 * group with no provider is not an error (the link says whether anything
 * is missing); providers that all need an aspect the device lacks are
 * refused, as for calls. */
static sx_result uses(closure *c, const char *set)
{
    set_census s = census(c, set);
    if (s.real && !s.real_ok)
        return calls(c, set);
    sx_result r = take_set(c, set, false);
    uint32_t users = 0;
    for (const sxi_library *l = sxi_registry_libraries(); l && r == SX_SUCCESS; l = l->next)
        for (uint32_t i = 0; i < l->num_images && r == SX_SUCCESS; i++) {
            const sxi_image *im = &l->images[i];
            if (lists(im->vf_uses, im->num_vf_uses, set) && same_kind(c, im) && runs_on(c, im)) {
                users++;
                r = add(c, im);
            }
        }
    if (r == SX_SUCCESS && !s.real)
        SXI_LOG(SX_LOG_INFO, "kernel '%s': no image provides virtual-function set '%s'; linking its %u user image(s) "
                "as DPC++ does", c->kernel, set, users);
    return r;
}

static bool exports(const sxi_image *im, const char *sym)
{
    for (uint32_t i = 0; i < im->num_exports; i++)
        if (strcmp(im->exports[i], sym) == 0)
            return true;
    return false;
}

/* One exporter per symbol (two would define it twice): a runnable image of
 * the kernel's kind, newest library first. */
static sx_result imports(closure *c, const char *sym)
{
    for (uint32_t i = 0; i < c->count; i++)
        if (exports(c->out[i], sym))
            return SX_SUCCESS;
    uint32_t unfit = 0;
    for (const sxi_library *l = sxi_registry_libraries(); l; l = l->next)
        for (uint32_t i = 0; i < l->num_images; i++) {
            const sxi_image *im = &l->images[i];
            if (!exports(im, sym))
                continue;
            if (same_kind(c, im) && runs_on(c, im))
                return add(c, im);
            unfit++;
        }
    if (unfit)
        return sxi_error(SX_ERROR_KERNEL_NOT_SUPPORTED,
                         "kernel '%s' imports symbol '%s': %u image(s) export it, none %s that device %s can run",
                         c->kernel, sym, unfit, sxi_image_kind_name(c->main->kind), c->dev->name);
    /* A function of a virtual-function set, declared in the importer's
     * module (whose producer lost the set's annotation on declarations):
     * the set is linked as for a kernel that creates its objects (its real
     * image where the device runs it, else its dummy). */
    const char *set = NULL;
    for (const sxi_library *l = sxi_registry_libraries(); l && !set; l = l->next)
        for (uint32_t i = 0; i < l->num_images && !set; i++)
            if (same_kind(c, &l->images[i]) && lists(l->images[i].vf_symbols, l->images[i].num_vf_symbols, sym))
                set = l->images[i].vf_set;
    if (set) {
        SXI_LOG(SX_LOG_DEBUG, "kernel '%s': imported symbol '%s' is a function of virtual-function set '%s'",
                c->kernel, sym, set);
        return creates(c, set);
    }
    /* The usual cause beside a missing library: a direct call to a virtual
     * function of another image. Set images export nothing (DPC++ leaves
     * indirectly-callable functions out of "SYCL/exported symbols"); such
     * a call is linked through the set, which the caller must name. */
    uint32_t set_images = 0;
    for (const sxi_library *l = sxi_registry_libraries(); l; l = l->next)
        for (uint32_t i = 0; i < l->num_images; i++)
            set_images += l->images[i].vf_set != NULL;
    if (set_images)
        return sxi_error(SX_ERROR_LINK_FAILURE,
                         "kernel '%s' imports symbol '%s', which no registered image exports; if it is a virtual "
                         "function of one of the %u registered virtual-function set image(s), those export nothing "
                         "(as in DPC++): the caller's image must name its set (calls-indirectly, or "
                         "indirectly-callable on the declaration) to be linked with it",
                         c->kernel, sym, set_images);
    return sxi_error(SX_ERROR_LINK_FAILURE, "kernel '%s' imports symbol '%s', which no registered image exports",
                     c->kernel, sym);
}

sx_result sxi_resolve(const sxi_image *img, const struct sx_device_s *dev, const char *kernel,
                      const sxi_image ***out, uint32_t *count)
{
    closure c = {.main = img, .dev = dev, .kernel = kernel ? kernel : "?"};
    sx_result r = add(&c, img);
    /* Breadth first over the images taken; sets are handled once each
     * (a set reached both ways is decided by whichever comes first: both
     * take the real providers when the device can run them). */
    const char **done = NULL;
    uint32_t ndone = 0, capdone = 0;
    for (uint32_t i = 0; i < c.count && r == SX_SUCCESS; i++) {
        const sxi_image *im = c.out[i];
        for (uint32_t pass = 0; pass < 3 && r == SX_SUCCESS; pass++) {
            uint32_t n = pass == 2 ? im->num_vf_uses : pass ? im->num_vf_creates : im->num_vf_calls;
            for (uint32_t k = 0; k < n && r == SX_SUCCESS; k++) {
                const char *set = pass == 2 ? im->vf_uses[k] : pass ? im->vf_creates[k] : im->vf_calls[k];
                bool seen = false;
                for (uint32_t d = 0; d < ndone && !seen; d++)
                    seen = strcmp(done[d], set) == 0;
                if (seen)
                    continue;
                if (ndone == capdone) {
                    uint32_t cap = capdone ? capdone * 2 : 16;
                    const char **nd = realloc(done, cap * sizeof(*nd));
                    if (!nd) {
                        r = sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory resolving kernel '%s'", c.kernel);
                        break;
                    }
                    done = nd;
                    capdone = cap;
                }
                done[ndone++] = set;
                r = pass == 2 ? uses(&c, set) : pass ? creates(&c, set) : calls(&c, set);
            }
        }
        for (uint32_t k = 0; k < im->num_imports && r == SX_SUCCESS; k++)
            r = imports(&c, im->imports[k]);
    }
    free(done);
    if (r != SX_SUCCESS) {
        free(c.out);
        return r;
    }
    *out = c.out;
    *count = c.count;
    return SX_SUCCESS;
}
