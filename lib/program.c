/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* program.c: programs built per (context, device, set of images): one
 * image is created and built; a kernel image with dependencies (virtual
 * functions, imported symbols; see resolver.c) is linked with them through
 * the adapter; either is made from the persistent cache when it has it. Programs are cached in
 * the context and dropped when a context goes or any of their images is
 * unregistered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

/* ------------------------------------------------------------ counters */

static _Atomic uint64_t stats[sizeof(sxi_program_stats) / sizeof(uint64_t)];

void sxi_program_stats_count(size_t field_offset)
{
    atomic_fetch_add_explicit(&stats[field_offset / sizeof(uint64_t)], 1, memory_order_relaxed);
}

void sxi_program_stats_get(sxi_program_stats *out)
{
    sxi_pcache_flush(); /* entries handed to the cache's writer count once written */
    uint64_t v[SXI_ARRAY_SIZE(stats)];
    for (size_t i = 0; i < SXI_ARRAY_SIZE(stats); i++)
        v[i] = atomic_load_explicit(&stats[i], memory_order_relaxed);
    memcpy(out, v, sizeof(*out));
}

/* ------------------------------------------------------------ records */

static void program_free(sxi_program *p)
{
    sx_result r = p->handle ? SXA_CALL(p->context->adapter, program, release, p->handle) : SX_SUCCESS;
    if (r != SX_SUCCESS)
        SXI_LOG(SX_LOG_WARN, "releasing a program on %s failed: %s: %s", p->device->name, sx_result_name(r),
                sx_last_error());
    free(p->image_ids);
    free(p->sorted_ids);
    free(p->images);
    free(p);
}

static int cmp_id(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* A record of `n` images (imgs[0] the kernel's), not built yet. */
static sx_result program_new(struct sx_context_s *ctx, struct sx_device_s *dev, const sxi_image *const *imgs,
                             uint32_t n, sxi_program **out)
{
    sxi_program *p = calloc(1, sizeof(*p));
    if (!p || !(p->image_ids = malloc(n * sizeof(uint64_t))) || !(p->sorted_ids = malloc(n * sizeof(uint64_t))) ||
        !(p->images = malloc(n * sizeof(*p->images)))) {
        if (p)
            program_free(p);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory building a program");
    }
    p->context = ctx;
    p->device = dev;
    p->num_images = n;
    p->generation = atomic_load(&sxi_registry_generation);
    for (uint32_t i = 0; i < n; i++) {
        p->images[i] = imgs[i];
        p->image_ids[i] = p->sorted_ids[i] = imgs[i]->id;
    }
    qsort(p->sorted_ids, n, sizeof(uint64_t), cmp_id);
    *out = p;
    return SX_SUCCESS;
}

/* The kernel signatures of some images, for program creation. */
static sxa_kernel_signature *signatures(const sxi_image *const *imgs, uint32_t n, uint32_t *count)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += imgs[i]->num_entries;
    sxa_kernel_signature *sigs = calloc(total ? total : 1, sizeof(*sigs));
    uint32_t ns = 0;
    for (uint32_t i = 0; sigs && i < n; i++)
        for (uint32_t k = 0; k < imgs[i]->num_entries; k++)
            if (imgs[i]->signatures[k].known)
                sigs[ns++] = (sxa_kernel_signature){imgs[i]->entries[k], imgs[i]->signatures[k].num_params,
                                                    imgs[i]->signatures[k].params};
    *count = ns;
    return sigs;
}

/* Create an adapter program from bytes, with the kernels of `imgs`. */
static sx_result create(sxi_program *p, const sxi_image *const *imgs, uint32_t n, sx_image_kind kind,
                        const void *data, size_t size, sxa_program *out)
{
    uint32_t ns;
    sxa_kernel_signature *sigs = signatures(imgs, n, &ns);
    if (!sigs)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory building a program");
    /* A USM device global anywhere in the program: its kernels may reach
     * the instance through the variable (every part of a link is told). */
    uint32_t flags = 0;
    for (uint32_t i = 0; i < p->num_images; i++)
        for (uint32_t g = 0; g < p->images[i]->num_globals; g++)
            if (!p->images[i]->globals[g].image_scope)
                flags |= SXA_PROGRAM_INDIRECT_USM;
    sxa_program_desc desc = {
        .size = sizeof(desc),
        .num_kernels = ns,
        .kernels = sigs,
        .compile_options = imgs[0]->bin->compile_options,
        .link_options = imgs[0]->bin->link_options,
        .flags = flags,
    };
    struct sx_context_s *ctx = p->context;
    sx_result r = SXA_CALL(ctx->adapter, program, create, ctx->handle, p->device->handle, kind, data, size, &desc, out);
    free(sigs);
    if (r == SX_SUCCESS && !*out)
        r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter '%s' returned a NULL program and success", ctx->adapter->name);
    if (r != SX_SUCCESS)
        *out = NULL;
    return r;
}

static const char *compile_options(const sxi_program *p)
{
    const char *o = p->images[0]->bin->compile_options;
    return o ? o : "";
}

static const char *link_options(const sxi_program *p)
{
    const char *o = p->images[0]->bin->link_options;
    return o ? o : "";
}

/* One image: create + build (no compile/link step). */
static sx_result build_single(sxi_program *p)
{
    const sxi_image *img = p->images[0];
    sx_result r = create(p, &img, 1, img->kind, img->data, img->size, &p->handle);
    if (r != SX_SUCCESS) {
        sxi_error_prefix("creating a program from image %llu (%s, %zu bytes) for %s", (unsigned long long)img->id,
                         sxi_image_kind_name(img->kind), img->size, p->device->name);
        return r;
    }
    r = SXA_CALL(p->context->adapter, program, build, p->handle, compile_options(p));
    if (r != SX_SUCCESS) {
        sxi_error_prefix("building image %llu for %s", (unsigned long long)img->id, p->device->name);
        return r;
    }
    SXI_STAT(builds);
    SXI_LOG(SX_LOG_INFO, "built image %llu (%s) for %s", (unsigned long long)img->id, sxi_image_kind_name(img->kind),
            p->device->name);
    return SX_SUCCESS;
}

/* Several images: create + compile each, then link them all. `who` names
 * what the program is for in messages ("kernel 'k'" or "image 3"). */
static sx_result link_all(sxi_program *p, const char *who)
{
    struct sx_adapter_s *a = p->context->adapter;
    uint32_t n = p->num_images;
    sxa_program *parts = calloc(n, sizeof(*parts));
    if (!parts)
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory linking a program");
    sx_result r = SX_SUCCESS;
    uint32_t made = 0;
    for (; made < n && r == SX_SUCCESS; made++) {
        const sxi_image *img = p->images[made];
        r = create(p, &p->images[made], 1, img->kind, img->data, img->size, &parts[made]);
        if (r != SX_SUCCESS) {
            sxi_error_prefix("%s: creating a program from image %llu (%s, %zu bytes) for %s", who,
                             (unsigned long long)img->id, sxi_image_kind_name(img->kind), img->size, p->device->name);
            break;
        }
        r = SXA_CALL(a, program, compile, parts[made], compile_options(p));
        if (r == SX_ERROR_UNSUPPORTED_FEATURE)
            sxi_error_prefix("%s needs %u images linked, but adapter '%s' cannot compile programs for linking",
                             who, n, a->name);
        else if (r != SX_SUCCESS)
            sxi_error_prefix("%s: compiling image %llu for %s", who, (unsigned long long)img->id,
                             p->device->name);
    }
    if (r == SX_SUCCESS) {
        r = SXA_CALL(a, program, link, p->context->handle, p->device->handle, n, parts, link_options(p), &p->handle);
        if (r == SX_SUCCESS && !p->handle)
            r = sxi_error(SX_ERROR_INVALID_VALUE, "adapter '%s' linked a NULL program and success", a->name);
        if (r != SX_SUCCESS) {
            p->handle = NULL;
            char ids[160];
            size_t w = 0;
            ids[0] = '\0';
            for (uint32_t i = 0; i < n && w < sizeof(ids) - 8; i++)
                w += (size_t)snprintf(ids + w, sizeof(ids) - w, "%s%llu", i ? "," : "",
                                      (unsigned long long)p->image_ids[i]);
            if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
                sxi_error_prefix("%s needs %u images linked, but adapter '%s' cannot link programs", who,
                                 n, a->name);
            } else {
                /* Whatever the adapter called it, it is a failed link; its
                 * log is in the message already. */
                if (r != SX_ERROR_OUT_OF_HOST_MEMORY && r != SX_ERROR_OUT_OF_DEVICE_MEMORY &&
                    r != SX_ERROR_OUT_OF_RESOURCES)
                    r = SX_ERROR_LINK_FAILURE;
                sxi_error_prefix("%s: linking images %s for %s", who, ids, p->device->name);
            }
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (parts[i])
            SXA_CALL(a, program, release, parts[i]);
    free(parts);
    if (r == SX_SUCCESS) {
        SXI_STAT(links);
        SXI_LOG(SX_LOG_INFO, "%s: linked %u images for %s", who, n, p->device->name);
    }
    return r;
}

/* SX_TRACE: the persistent cache's steps, timed like the adapter calls
 * (bench/cuda/first-launch-parts reads them). */
static inline uint64_t trace_start(const struct sx_adapter_s *a)
{
    return SXI_UNLIKELY(a->trace) ? sxi_now_ns() : 0;
}
static inline void trace_end(struct sx_adapter_s *a, const char *step, uint64_t t0)
{
    if (SXI_UNLIKELY(a->trace))
        sxi_trace_result(a, step, SX_SUCCESS, t0);
}

/* The persistent cache: a hit is create + build of the stored binary. */
static bool from_disk(sxi_program *p, const sxi_pcache_dir *dir, const sxi_pcache_key *key)
{
    sx_image_kind kind;
    void *data;
    size_t size;
    uint64_t t0 = trace_start(p->context->adapter);
    sx_result lr = sxi_pcache_load(dir, key, &kind, &data, &size);
    trace_end(p->context->adapter, "pcache.load", t0);
    if (lr != SX_SUCCESS)
        return false;
    sx_result r = create(p, p->images, p->num_images, kind, data, size, &p->handle);
    if (r == SX_SUCCESS)
        r = SXA_CALL(p->context->adapter, program, build, p->handle, compile_options(p));
    free(data);
    if (r != SX_SUCCESS) {
        /* A binary the backend refuses (driver changed underneath, or a
         * damage the checksum missed) is as good as absent. */
        SXI_LOG(SX_LOG_WARN, "program cache: %s refused a cached binary (%s: %s); building again", p->device->name,
                sx_result_name(r), sx_last_error());
        if (p->handle)
            SXA_CALL(p->context->adapter, program, release, p->handle);
        p->handle = NULL;
        SXI_STAT(disk_rejects);
        sxi_pcache_remove(dir, key);
        return false;
    }
    SXI_STAT(disk_hits);
    SXI_LOG(SX_LOG_INFO, "program cache: program of %u image(s) for %s from disk", p->num_images, p->device->name);
    return true;
}

/* Adapters whose programs are not worth the persistent cache in this
 * process (hashing, lookup): by name for linked programs, by name and image
 * kind for one-image ones (no binary, or the binary is the image itself).
 * Registry lock held. */
static char no_binary[16][96];

static void skip_name(const struct sx_adapter_s *a, sx_image_kind kind, char *out, size_t size)
{
    /* Names that long are not remembered (gives_no_binary): only a missed shortcut. */
    if (kind == SX_IMAGE_KIND_UNKNOWN)
        snprintf(out, size, "%.80s", a->name);
    else
        snprintf(out, size, "%.80s#%u", a->name, (unsigned)kind & 0xff);
}

static bool gives_binaries(const struct sx_adapter_s *a, sx_image_kind kind)
{
    char k[sizeof(no_binary[0])];
    skip_name(a, kind, k, sizeof(k));
    for (size_t i = 0; i < SXI_ARRAY_SIZE(no_binary) && no_binary[i][0]; i++)
        if (strcmp(no_binary[i], k) == 0)
            return false;
    return true;
}

static void gives_no_binary(const sxi_pcache_dir *dir, const struct sx_adapter_s *a, sx_image_kind kind)
{
    for (size_t i = 0; i < SXI_ARRAY_SIZE(no_binary) && strlen(a->name) <= 80; i++)
        if (!no_binary[i][0]) {
            skip_name(a, kind, no_binary[i], sizeof(no_binary[i]));
            break;
        }
    sxi_pcache_adapter_refused(dir, a, kind);
}

/* `kind`: the image's kind for a one-image program, UNKNOWN for a linked one. */
static void to_disk(sxi_program *p, sx_image_kind in_kind, const sxi_pcache_dir *dir, const sxi_pcache_key *key)
{
    struct sx_adapter_s *a = p->context->adapter;
    const char *what = in_kind == SX_IMAGE_KIND_UNKNOWN ? "a linked program" : sxi_image_kind_name(in_kind);
    sx_image_kind kind = SX_IMAGE_KIND_UNKNOWN;
    size_t size = 0;
    sx_result r = SXA_CALL(a, program, get_binary, p->handle, &kind, 0, NULL, &size);
    void *data = NULL;
    if (r == SX_SUCCESS && size && (data = malloc(size)))
        r = SXA_CALL(a, program, get_binary, p->handle, &kind, size, data, NULL);
    const sxi_image *img = p->images[0];
    if (r == SX_SUCCESS && data && in_kind != SX_IMAGE_KIND_UNKNOWN && kind == in_kind && size == img->size &&
        memcmp(data, img->data, size) == 0) {
        /* The backend runs the image as it is: a copy on disk gains nothing. */
        SXI_LOG(SX_LOG_INFO, "program cache: adapter '%s' runs %s images as they are; not cached", a->name, what);
        gives_no_binary(dir, a, in_kind);
    } else if (r == SX_SUCCESS && data) {
        sxi_pcache_store_later(dir, key, kind, data, size); /* the launch need not wait for the disk */
        data = NULL;
    } else {
        SXI_LOG(SX_LOG_INFO, "program cache: adapter '%s' gives no binary of %s (%s); not cached", a->name,
                in_kind == SX_IMAGE_KIND_UNKNOWN ? what : "a one-image program", sx_result_name(r));
        if (r == SX_ERROR_UNSUPPORTED_FEATURE)
            gives_no_binary(dir, a, in_kind);
    }
    free(data);
}

/* Inputs up to this many bytes are hashed and looked up before the
 * no-binary marker is asked for (a hit needs no marker, and hashing them
 * costs less than the marker's lookup); bigger ones ask the marker first,
 * so an adapter that gives no binary does not make every process hash them. */
#define HASH_BEFORE_MARKER (256u << 10)

/* Build from the persistent cache when it has the program, else create and
 * build (one image) or link (several), then store the adapter's binary. */
static sx_result build(sxi_program *p, const char *who)
{
    sxi_pcache_key key;
    sxi_pcache_dir dir; /* found and checked once for the whole build */
    struct sx_adapter_s *a = p->context->adapter;
    sx_image_kind kind = p->num_images == 1 ? p->images[0]->kind : SX_IMAGE_KIND_UNKNOWN;
    /* Compressed images are decoded here, once (registry lock held). */
    for (uint32_t i = 0; i < p->num_images; i++) {
        sx_result r = sxi_image_expand((sxi_image *)p->images[i]);
        if (r != SX_SUCCESS) {
            sxi_error_prefix("%s", who);
            return r;
        }
    }
    size_t bytes = 0;
    for (uint32_t i = 0; i < p->num_images; i++)
        bytes += p->images[i]->size;
    bool small = bytes <= HASH_BEFORE_MARKER;
    uint64_t t0 = trace_start(a);
    bool disk = gives_binaries(a, kind) && sxi_pcache_dir_get(&dir) &&
                (small || !sxi_pcache_adapter_refuses(&dir, a, kind));
    trace_end(a, "pcache.dir", t0);
    if (disk) {
        t0 = trace_start(a);
        sxi_pcache_key_make(p->device, p->images, p->num_images, compile_options(p), link_options(p), &key);
        trace_end(a, "pcache.key", t0);
        uint64_t tl = sxi_tl_begin();
        bool hit = from_disk(p, &dir, &key);
        SXI_LOG(SX_LOG_DEBUG, "%s: program cache %s for %s (%u image(s), %zu bytes)", who, hit ? "hit" : "miss",
                p->device->name, p->num_images, bytes);
        if (SXI_UNLIKELY(tl)) {
            sxi_tl_args ta = {.len = 0};
            ta.buf[0] = 0;
            sxi_tl_arg_str(&ta, "for", who);
            sxi_tl_arg_str(&ta, "device", p->device->name);
            sxi_tl_arg_bool(&ta, "cache_hit", hit);
            sxi_tl_arg_u64(&ta, "bytes", bytes);
            sxi_tl_end(tl, "cache lookup", &ta);
        }
        if (hit)
            return SX_SUCCESS;
        /* A miss: now the marker, if not asked yet, decides whether to store. */
        disk = !small || !sxi_pcache_adapter_refuses(&dir, a, kind);
    }
    if (!disk)
        SXI_LOG(SX_LOG_DEBUG, "%s: program cache not used for %s (%s)", who, p->device->name,
                gives_binaries(a, kind) ? "off, or no usable directory, or the adapter gives no binaries of this kind"
                                        : "the adapter gives no binaries of this kind");
    uint64_t tl = sxi_tl_begin();
    sx_result r = p->num_images == 1 ? build_single(p) : link_all(p, who);
    if (SXI_UNLIKELY(tl)) {
        sxi_tl_args ta = {.len = 0};
        ta.buf[0] = 0;
        sxi_tl_arg_str(&ta, "for", who);
        sxi_tl_arg_str(&ta, "device", p->device->name);
        sxi_tl_arg_u64(&ta, "images", p->num_images);
        sxi_tl_arg_u64(&ta, "bytes", bytes);
        sxi_tl_arg_str(&ta, "result", sx_result_name(r));
        sxi_tl_end(tl, p->num_images == 1 ? "build" : "link", &ta);
    }
    if (r == SX_SUCCESS && disk) {
        tl = sxi_tl_begin();
        to_disk(p, kind, &dir, &key);
        if (SXI_UNLIKELY(tl))
            sxi_tl_simple(tl, "cache hand-over", "device", p->device->name);
    }
    return r;
}

static void programs_release(struct sx_context_s *ctx);

/* A cached program of (ctx, dev) with these sorted image ids (ctx lock held). */
static sxi_program *find(struct sx_context_s *ctx, struct sx_device_s *dev, const uint64_t *sorted, uint32_t n)
{
    for (sxi_program *p = ctx->programs; p; p = p->next)
        if (p->device == dev && p->num_images == n && memcmp(p->sorted_ids, sorted, n * sizeof(uint64_t)) == 0)
            return p;
    return NULL;
}

sx_result sxi_program_get_for(struct sx_queue_s *q, const sxi_image *img, const char *kernel, sxi_program **out)
{
    struct sx_context_s *ctx = q->context;
    struct sx_device_s *dev = q->device;
    uint64_t gen = atomic_load(&sxi_registry_generation);
    /* Fast path: this image's program, resolved under the current
     * registrations: no resolution at all. */
    pthread_mutex_lock(&ctx->lock);
    for (sxi_program *p = ctx->programs; p; p = p->next)
        if (p->device == dev && p->image_ids[0] == img->id && (p->num_images == 1 || p->generation == gen)) {
            *out = p;
            pthread_mutex_unlock(&ctx->lock);
            SXI_STAT(memory_hits);
            return SX_SUCCESS;
        }
    pthread_mutex_unlock(&ctx->lock);

    const sxi_image *single[1] = {img};
    const sxi_image **imgs = single;
    uint32_t n = 1;
    /* Messages name the kernel, or the image when a program is built for
     * something else (a device_image_scope copy). */
    char who[320];
    if (kernel)
        snprintf(who, sizeof(who), "kernel '%.256s'", kernel);
    else
        snprintf(who, sizeof(who), "image %llu", (unsigned long long)img->id);
    if (sxi_image_has_deps(img)) {
        uint64_t t0 = sxi_tl_begin();
        sx_result r = sxi_resolve(img, dev, kernel ? kernel : img->num_entries ? img->entries[0] : NULL, &imgs, &n);
        if (SXI_UNLIKELY(t0)) {
            sxi_tl_args a = {.len = 0};
            a.buf[0] = 0;
            sxi_tl_arg_str(&a, "for", who);
            sxi_tl_arg_str(&a, "device", dev->name);
            sxi_tl_arg_u64(&a, "images", r == SX_SUCCESS ? n : 0);
            sxi_tl_arg_str(&a, "result", sx_result_name(r));
            sxi_tl_end(t0, "resolve", &a);
        }
        if (r != SX_SUCCESS)
            return r;
        SXI_STAT(resolutions);
        SXI_LOG(SX_LOG_DEBUG, "%s: image %llu resolved to %u image(s) for %s", who, (unsigned long long)img->id, n,
                dev->name);
    }
    sxi_program *p = NULL;
    sx_result r = program_new(ctx, dev, imgs, n, &p);
    if (imgs != single)
        free(imgs);
    if (r != SX_SUCCESS)
        return r;
    /* The same images may be linked already (another kernel image that
     * resolved to them, or the registry changed elsewhere). */
    pthread_mutex_lock(&ctx->lock);
    sxi_program *have = find(ctx, dev, p->sorted_ids, p->num_images);
    if (have && have->image_ids[0] == img->id)
        have->generation = gen;
    pthread_mutex_unlock(&ctx->lock);
    if (have) {
        program_free(p);
        *out = have;
        SXI_LOG(SX_LOG_DEBUG, "%s: program of %u image(s) for %s already built in this context", who, n, dev->name);
        SXI_STAT(memory_hits);
        return SX_SUCCESS;
    }
    /* Build outside the context lock: builds can take long. The registry
     * lock (held by the caller) keeps two threads from building the same one. */
    r = sxi_context_dep_once(ctx, SXI_DEP_PROGRAMS, programs_release);
    if (r == SX_SUCCESS)
        r = build(p, who);
    if (r == SX_SUCCESS && (r = sxi_dg_program_built(q, p)) != SX_SUCCESS)
        sxi_error_prefix("%s", who);
    if (r != SX_SUCCESS) {
        program_free(p);
        return r;
    }
    pthread_mutex_lock(&ctx->lock);
    p->next = ctx->programs;
    ctx->programs = p;
    pthread_mutex_unlock(&ctx->lock);
    *out = p;
    return SX_SUCCESS;
}

sx_result sxi_program_get(struct sx_queue_s *q, const sxi_image *img, sxi_program **out)
{
    /* For no kernel: messages name the image, never a kernel not used. */
    return sxi_program_get_for(q, img, NULL, out);
}

uint32_t sxi_programs_with_image(struct sx_context_s *ctx, struct sx_device_s *dev, uint64_t image_id,
                                 sxi_program **first)
{
    uint32_t n = 0;
    pthread_mutex_lock(&ctx->lock);
    for (sxi_program *p = ctx->programs; p; p = p->next) {
        if (p->device != dev)
            continue;
        for (uint32_t i = 0; i < p->num_images; i++)
            if (p->image_ids[i] == image_id) {
                if (n++ == 0)
                    *first = p;
                break;
            }
    }
    pthread_mutex_unlock(&ctx->lock);
    return n;
}

/* The context's dependent (SXI_DEP_PROGRAMS): all its programs. */
static void programs_release(struct sx_context_s *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    sxi_program *p = ctx->programs;
    ctx->programs = NULL;
    pthread_mutex_unlock(&ctx->lock);
    while (p) {
        sxi_program *next = p->next;
        program_free(p);
        p = next;
    }
}

static void drop_in_context(struct sx_context_s *ctx, void *arg)
{
    uint64_t id = *(const uint64_t *)arg;
    pthread_mutex_lock(&ctx->lock);
    sxi_program **pp = &ctx->programs;
    while (*pp) {
        sxi_program *p = *pp;
        bool uses = false;
        for (uint32_t i = 0; i < p->num_images; i++)
            uses |= p->image_ids[i] == id;
        if (uses) {
            *pp = p->next;
            program_free(p);
        } else {
            pp = &p->next;
        }
    }
    pthread_mutex_unlock(&ctx->lock);
}

void sxi_programs_drop_image(uint64_t image_id)
{
    sxi_contexts_foreach(drop_in_context, &image_id);
}
