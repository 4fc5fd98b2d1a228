/* program.c: programs built per (context, device, images), cached in the
 * context and dropped when a context goes or an image is unregistered. */
#include <stdlib.h>
#include <string.h>

#include "sx-internal.h"

static void program_free(sxi_program *p)
{
    if (p->handle)
        SXA_CALL(p->context->adapter, program, release, p->handle);
    free(p->image_ids);
    free(p->images);
    free(p);
}

/* Build one image into an executable program for (ctx, dev). */
static sx_result program_build(struct sx_context_s *ctx, struct sx_device_s *dev, const sxi_image *img,
                               sxi_program **out)
{
    struct sx_adapter_s *a = ctx->adapter;
    sxa_kernel_signature *sigs = calloc(img->num_entries ? img->num_entries : 1, sizeof(*sigs));
    sxi_program *p = calloc(1, sizeof(*p));
    if (!sigs || !p || !(p->image_ids = malloc(sizeof(uint64_t))) || !(p->images = malloc(sizeof(*p->images)))) {
        free(sigs);
        if (p) {
            free(p->image_ids);
            free(p->images);
        }
        free(p);
        return sxi_error(SX_ERROR_OUT_OF_HOST_MEMORY, "out of memory building a program");
    }
    uint32_t ns = 0;
    for (uint32_t k = 0; k < img->num_entries; k++)
        if (img->signatures[k].known)
            sigs[ns++] = (sxa_kernel_signature){img->entries[k], img->signatures[k].num_params,
                                                img->signatures[k].params};
    sxa_program_desc desc = {
        .size = sizeof(desc),
        .num_kernels = ns,
        .kernels = sigs,
        .compile_options = img->bin->compile_options,
        .link_options = img->bin->link_options,
    };
    p->context = ctx;
    p->device = dev;
    p->num_images = 1;
    p->image_ids[0] = img->id;
    p->images[0] = img;
    sx_result r = SXA_CALL(a, program, create, ctx->handle, dev->handle, img->kind, img->data, img->size, &desc,
                           &p->handle);
    free(sigs);
    if (r != SX_SUCCESS) {
        sxi_error_prefix("creating a program from image %llu (%s, %zu bytes) for %s",
                         (unsigned long long)img->id, sxi_image_kind_name(img->kind), img->size, dev->name);
        p->handle = NULL;
        program_free(p);
        return r;
    }
    const char *opts = img->bin->compile_options ? img->bin->compile_options : "";
    r = SXA_CALL(a, program, build, p->handle, opts);
    if (r != SX_SUCCESS) {
        sxi_error_prefix("building image %llu for %s", (unsigned long long)img->id, dev->name);
        program_free(p);
        return r;
    }
    SXI_LOG(SX_LOG_INFO, "built image %llu (%s) for %s", (unsigned long long)img->id, sxi_image_kind_name(img->kind),
            dev->name);
    *out = p;
    return SX_SUCCESS;
}

sx_result sxi_program_get(struct sx_queue_s *q, const sxi_image *img, sxi_program **out)
{
    struct sx_context_s *ctx = q->context;
    struct sx_device_s *dev = q->device;
    pthread_mutex_lock(&ctx->lock);
    for (sxi_program *p = ctx->programs; p; p = p->next)
        if (p->device == dev && p->num_images == 1 && p->image_ids[0] == img->id) {
            *out = p;
            pthread_mutex_unlock(&ctx->lock);
            return SX_SUCCESS;
        }
    pthread_mutex_unlock(&ctx->lock);
    /* Build outside the context lock: builds can take long. The registry
     * lock (held by the caller) keeps two threads from building the same one. */
    sxi_program *p = NULL;
    sx_result r = program_build(ctx, dev, img, &p);
    if (r == SX_SUCCESS && (r = sxi_dg_program_built(q, p)) != SX_SUCCESS)
        program_free(p);
    if (r != SX_SUCCESS)
        return r;
    pthread_mutex_lock(&ctx->lock);
    p->next = ctx->programs;
    ctx->programs = p;
    pthread_mutex_unlock(&ctx->lock);
    *out = p;
    return SX_SUCCESS;
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

void sxi_programs_release(struct sx_context_s *ctx)
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
