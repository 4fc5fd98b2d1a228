/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-program.c: programs as Level Zero modules (build, compile, dynamic link, globals) and kernels.
 *
 * A program holds its image bytes and, once built, one module; a linked
 * program holds one fresh module per input, created from the inputs'
 * bytes and compile options and joined with zeModuleDynamicLink. Fresh
 * modules because Level Zero links a module's imports only once, while an
 * input program may be linked into several programs (a library image
 * shared by many kernels' images). compile() creates a module with
 * imports allowed only to report compile errors early.
 *
 * zeModuleCreate does not fail on unresolved imports, so build() checks
 * explicitly: when zeModuleGetProperties reports imports it calls
 * zeModuleDynamicLink on the module alone, whose failure and link log
 * become SX_ERROR_BUILD_FAILURE. */
#include "ze-adapter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Take a build log's text (malloc'd, "" when none) and destroy the log. */
static char *take_log(ze_module_build_log_handle_t log)
{
    char *text = NULL;
    size_t n = 0;
    if (log && sxz_ze.zeModuleBuildLogGetString(log, &n, NULL) == ZE_RESULT_SUCCESS && n > 0 &&
        n < (1u << 24) && (text = malloc(n + 1)) != NULL) {
        if (sxz_ze.zeModuleBuildLogGetString(log, &n, text) != ZE_RESULT_SUCCESS)
            n = 0;
        text[n] = '\0';
        /* Logs end with newlines that would break the one-line error. */
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == '\0'))
            text[--n] = '\0';
    }
    if (log)
        sxz_ze.zeModuleBuildLogDestroy(log);
    if (!text)
        text = dup_or_null("");
    return text;
}

static sx_result module_create(struct sxa_program_s *p, const unsigned char *data, size_t size,
                               sx_image_kind kind, const char *options, ze_module_handle_t *out)
{
    ze_module_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_MODULE_DESC,
                             .format = kind == SX_IMAGE_KIND_NATIVE ? ZE_MODULE_FORMAT_NATIVE
                                                                    : ZE_MODULE_FORMAT_IL_SPIRV,
                             .inputSize = size,
                             .pInputModule = data,
                             .pBuildFlags = options ? options : ""};
    ze_module_build_log_handle_t log = NULL;
    ze_result_t rc = sxz_ze.zeModuleCreate(p->context->ctx, p->device->dev, &desc, out, &log);
    char *text = take_log(log);
    sx_result r = SX_SUCCESS;
    if (rc != ZE_RESULT_SUCCESS) {
        *out = NULL;
        r = sxz_fail("zeModuleCreate", rc, " for program %p (%s, %zu bytes): %s", (void *)p,
                     kind == SX_IMAGE_KIND_NATIVE ? "native" : "SPIR-V", size,
                     text && *text ? text : "(empty build log)");
    }
    free(text);
    return r;
}

/* Dynamic link of modules; the log goes into the error with `code`. */
static sx_result dynamic_link(struct sxa_program_s *p, uint32_t n, ze_module_handle_t *mods,
                              sx_result code)
{
    ze_module_build_log_handle_t log = NULL;
    ze_result_t rc = sxz_ze.zeModuleDynamicLink(n, mods, &log);
    char *text = take_log(log);
    sx_result r = SX_SUCCESS;
    if (rc != ZE_RESULT_SUCCESS) {
        r = sxz_error(rc == ZE_RESULT_ERROR_MODULE_LINK_FAILURE ? code : sxz_map_result(rc),
                      "zeModuleDynamicLink: %s (0x%x) for program %p (%u module%s): %s",
                      sxz_result_name(rc), (unsigned)rc, (void *)p, n, n == 1 ? "" : "s",
                      text && *text ? text : "(empty link log)");
    }
    free(text);
    return r;
}

static sx_result program_new(struct sxa_context_s *c, struct sxa_device_s *d,
                             struct sxa_program_s **out)
{
    struct sxa_program_s *p = calloc(1, sizeof(*p));
    if (!p)
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory for a program");
    p->base.dispatch = sxz_services->dispatch;
    p->context = c;
    p->device = d;
    *out = p;
    return SX_SUCCESS;
}

/* The desc's kernels whose signatures show no argument that may hold a
 * pointer, and its flags (read only as far as its size goes). */
static sx_result take_desc(struct sxa_program_s *p, const sxa_program_desc *desc)
{
    if (desc && desc->size >= offsetof(sxa_program_desc, flags) + sizeof(uint32_t))
        p->usm_flags = desc->flags;
    if (!desc || desc->size < offsetof(sxa_program_desc, kernels) + sizeof(desc->kernels) || !desc->num_kernels)
        return SX_SUCCESS;
    if (!(p->direct_only = calloc(desc->num_kernels, sizeof(*p->direct_only))))
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory");
    for (uint32_t i = 0; i < desc->num_kernels; i++)
        if (desc->kernels[i].name && !sxa_signature_indirect(&desc->kernels[i]) &&
            !(p->direct_only[p->num_direct_only++] = dup_or_null(desc->kernels[i].name)))
            return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory");
    return SX_SUCCESS;
}

static void program_free(struct sxa_program_s *p)
{
    for (uint32_t i = 0; i < p->num_direct_only; i++)
        free(p->direct_only[i]);
    free(p->direct_only);
    for (uint32_t i = 0; i < p->num_modules; i++)
        if (p->modules[i])
            sxz_ze.zeModuleDestroy(p->modules[i]);
    free(p->modules);
    free(p->data);
    free(p->compile_options);
    free(p);
}

static sx_result program_create(sxa_context context, sxa_device device, sx_image_kind kind,
                                const void *data, size_t size, const sxa_program_desc *desc,
                                sxa_program *out)
{
    struct sxa_context_s *c = (struct sxa_context_s *)context;
    struct sxa_device_s *d = (struct sxa_device_s *)device;
    if (!c || !d)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!data || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (size == 0)
        return sxz_error(SX_ERROR_INVALID_SIZE, "level_zero: program image of 0 bytes");
    if (kind != SX_IMAGE_KIND_SPIRV && kind != SX_IMAGE_KIND_NATIVE)
        return sxz_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "level_zero: image kind %u is not SPIR-V or a native binary",
                         (unsigned)kind);
    if (kind == SX_IMAGE_KIND_SPIRV && (size < 20 || size % 4 != 0 ||
                                        *(const uint32_t *)data != 0x07230203u))
        return sxz_error(SX_ERROR_INVALID_BINARY,
                         "level_zero: a SPIR-V image of %zu bytes without the SPIR-V magic "
                         "number or a whole number of words", size);
    struct sxa_program_s *p = NULL;
    sx_result r = program_new(c, d, &p);
    if (r != SX_SUCCESS)
        return r;
    p->kind = kind;
    p->size = size;
    p->data = malloc(size);
    if (!p->data) {
        free(p);
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory for %zu bytes",
                         size);
    }
    memcpy(p->data, data, size);
    /* Level Zero reads kernel signatures from the module itself; the desc
     * says which kernels may reach USM indirectly. */
    if ((r = take_desc(p, desc)) != SX_SUCCESS) {
        program_free(p);
        return r;
    }
    *out = (sxa_program)p;
    return SX_SUCCESS;
}

static sx_result set_single_module(struct sxa_program_s *p, ze_module_handle_t m)
{
    p->modules = malloc(sizeof(*p->modules));
    if (!p->modules) {
        sxz_ze.zeModuleDestroy(m);
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory");
    }
    p->modules[0] = m;
    p->num_modules = 1;
    return SX_SUCCESS;
}

static sx_result program_build(sxa_program program, const char *options)
{
    struct sxa_program_s *p = (struct sxa_program_s *)program;
    if (!p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (p->state != SXZ_PROGRAM_CREATED)
        return sxz_error(SX_ERROR_INVALID_OPERATION,
                         "level_zero: program %p was already compiled or built", (void *)p);
    ze_module_handle_t m;
    sx_result r = module_create(p, p->data, p->size, p->kind, options, &m);
    if (r != SX_SUCCESS)
        return r;
    ze_module_properties_t mp = {.stype = ZE_STRUCTURE_TYPE_MODULE_PROPERTIES};
    ze_result_t rc = sxz_ze.zeModuleGetProperties(m, &mp);
    if (rc != ZE_RESULT_SUCCESS) {
        sxz_ze.zeModuleDestroy(m);
        return sxz_fail("zeModuleGetProperties", rc, " for program %p", (void *)p);
    }
    if (mp.flags & ZE_MODULE_PROPERTY_FLAG_IMPORTS) {
        r = dynamic_link(p, 1, &m, SX_ERROR_BUILD_FAILURE);
        if (r != SX_SUCCESS) {
            sxz_ze.zeModuleDestroy(m);
            return r;
        }
    }
    if ((r = set_single_module(p, m)) != SX_SUCCESS)
        return r;
    p->state = SXZ_PROGRAM_EXECUTABLE;
    return SX_SUCCESS;
}

static sx_result program_compile(sxa_program program, const char *options)
{
    struct sxa_program_s *p = (struct sxa_program_s *)program;
    if (!p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (p->state != SXZ_PROGRAM_CREATED)
        return sxz_error(SX_ERROR_INVALID_OPERATION,
                         "level_zero: program %p was already compiled or built", (void *)p);
    ze_module_handle_t m;
    sx_result r = module_create(p, p->data, p->size, p->kind, options, &m);
    if (r != SX_SUCCESS)
        return r;
    if (options && !(p->compile_options = dup_or_null(options))) {
        sxz_ze.zeModuleDestroy(m);
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory");
    }
    if ((r = set_single_module(p, m)) != SX_SUCCESS)
        return r;
    p->state = SXZ_PROGRAM_COMPILED;
    return SX_SUCCESS;
}

static sx_result program_link(sxa_context context, sxa_device device, uint32_t count,
                              const sxa_program *programs, const char *options, sxa_program *out)
{
    struct sxa_context_s *c = (struct sxa_context_s *)context;
    struct sxa_device_s *d = (struct sxa_device_s *)device;
    if (!c || !d)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!programs || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (count == 0)
        return sxz_error(SX_ERROR_INVALID_SIZE, "level_zero: link of 0 programs");
    for (uint32_t i = 0; i < count; i++) {
        struct sxa_program_s *in = (struct sxa_program_s *)programs[i];
        if (!in)
            return SX_ERROR_INVALID_NULL_HANDLE;
        if (!in->data)
            return sxz_error(SX_ERROR_INVALID_OPERATION,
                             "level_zero: input %u (program %p) is itself a link result", i,
                             (void *)in);
        if (in->state == SXZ_PROGRAM_EXECUTABLE)
            return sxz_error(SX_ERROR_INVALID_OPERATION,
                             "level_zero: input %u (program %p) is built, not compiled", i,
                             (void *)in);
        if (in->context != c || in->device != d)
            return sxz_error(SX_ERROR_INVALID_DEVICE,
                             "level_zero: input %u (program %p) is for another context or device",
                             i, (void *)in);
    }
    /* Level Zero has no link flags (zeModuleDynamicLink takes none). */
    if (options && *options && sxz_services->log)
        sxz_services->log(SX_LOG_WARN, "level_zero: link options \"%s\" ignored", options);
    struct sxa_program_s *p = NULL;
    sx_result r = program_new(c, d, &p);
    if (r != SX_SUCCESS)
        return r;
    p->modules = calloc(count, sizeof(*p->modules));
    uint32_t direct = 0;
    for (uint32_t i = 0; i < count; i++)
        direct += ((struct sxa_program_s *)programs[i])->num_direct_only;
    if (!p->modules || (direct && !(p->direct_only = calloc(direct, sizeof(*p->direct_only))))) {
        program_free(p);
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory");
    }
    for (uint32_t i = 0; i < count; i++) {
        const struct sxa_program_s *in = (const struct sxa_program_s *)programs[i];
        p->usm_flags |= in->usm_flags;
        for (uint32_t k = 0; k < in->num_direct_only; k++)
            if (!(p->direct_only[p->num_direct_only++] = dup_or_null(in->direct_only[k]))) {
                program_free(p);
                return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory");
            }
    }
    for (uint32_t i = 0; i < count; i++) {
        struct sxa_program_s *in = (struct sxa_program_s *)programs[i];
        r = module_create(p, in->data, in->size, in->kind, in->compile_options, &p->modules[i]);
        if (r != SX_SUCCESS) {
            program_free(p);
            return r;
        }
        p->num_modules++;
    }
    r = dynamic_link(p, count, p->modules, SX_ERROR_LINK_FAILURE);
    if (r != SX_SUCCESS) {
        program_free(p);
        return r;
    }
    p->state = SXZ_PROGRAM_EXECUTABLE;
    *out = (sxa_program)p;
    return SX_SUCCESS;
}

static sx_result program_release(sxa_program program)
{
    if (!program)
        return SX_ERROR_INVALID_NULL_HANDLE;
    program_free((struct sxa_program_s *)program);
    return SX_SUCCESS;
}

static sx_result program_get_binary(sxa_program program, sx_image_kind *kind, size_t size,
                                    void *value, size_t *size_ret)
{
    struct sxa_program_s *p = (struct sxa_program_s *)program;
    if (!p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (p->state != SXZ_PROGRAM_EXECUTABLE)
        return sxz_error(SX_ERROR_INVALID_PROGRAM, "level_zero: program %p is not built",
                         (void *)p);
    if (p->num_modules != 1)
        return sxz_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "level_zero: program %p is %u dynamically linked modules; "
                         "Level Zero gives a native binary per module only",
                         (void *)p, p->num_modules);
    if (!value && !size_ret)
        return SX_ERROR_INVALID_NULL_POINTER;
    size_t n = 0;
    ze_result_t rc = sxz_ze.zeModuleGetNativeBinary(p->modules[0], &n, NULL);
    if (rc != ZE_RESULT_SUCCESS)
        return sxz_fail("zeModuleGetNativeBinary", rc, " for program %p", (void *)p);
    if (kind)
        *kind = SX_IMAGE_KIND_NATIVE;
    if (size_ret)
        *size_ret = n;
    if (!value)
        return SX_SUCCESS;
    if (size < n)
        return sxz_error(SX_ERROR_INVALID_SIZE,
                         "level_zero: binary of program %p is %zu bytes, buffer %zu", (void *)p,
                         n, size);
    rc = sxz_ze.zeModuleGetNativeBinary(p->modules[0], &n, value);
    if (rc != ZE_RESULT_SUCCESS)
        return sxz_fail("zeModuleGetNativeBinary", rc, " for program %p", (void *)p);
    return SX_SUCCESS;
}

sx_result sxz_program_global(struct sxa_program_s *p, const char *name, size_t *size, void **ptr)
{
    if (!p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!name)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (p->state != SXZ_PROGRAM_EXECUTABLE)
        return sxz_error(SX_ERROR_INVALID_PROGRAM, "level_zero: program %p is not built",
                         (void *)p);
    /* The exporting module of a linked program holds the variable. */
    ze_result_t rc = ZE_RESULT_ERROR_INVALID_GLOBAL_NAME;
    for (uint32_t i = 0; i < p->num_modules; i++) {
        size_t s = 0;
        void *a = NULL;
        rc = sxz_ze.zeModuleGetGlobalPointer(p->modules[i], name, &s, &a);
        if (rc == ZE_RESULT_SUCCESS) {
            if (size)
                *size = s;
            if (ptr)
                *ptr = a;
            return SX_SUCCESS;
        }
        if (rc != ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
            break;
    }
    if (rc == ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
        return sxz_error(SX_ERROR_INVALID_GLOBAL_NAME,
                         "zeModuleGetGlobalPointer: ZE_RESULT_ERROR_INVALID_GLOBAL_NAME (0x%x): "
                         "program %p has no variable '%s'",
                         (unsigned)rc, (void *)p, name);
    return sxz_fail("zeModuleGetGlobalPointer", rc, " for '%s' in program %p", name, (void *)p);
}

static sx_result program_get_global(sxa_program program, const char *name, size_t *size,
                                    void **ptr)
{
    return sxz_program_global((struct sxa_program_s *)program, name, size, ptr);
}

/* ---- kernels ---- */

static sx_result kernel_create(sxa_program program, const char *name, sxa_kernel *out)
{
    struct sxa_program_s *p = (struct sxa_program_s *)program;
    if (!p)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!name || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (p->state != SXZ_PROGRAM_EXECUTABLE)
        return sxz_error(SX_ERROR_INVALID_PROGRAM, "level_zero: program %p is not built",
                         (void *)p);
    ze_kernel_desc_t desc = {.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC, .pKernelName = name};
    ze_kernel_handle_t k = NULL;
    ze_result_t rc = ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
    for (uint32_t i = 0; i < p->num_modules; i++) {
        rc = sxz_ze.zeKernelCreate(p->modules[i], &desc, &k);
        if (rc != ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
            break;
    }
    if (rc == ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
        return sxz_error(SX_ERROR_INVALID_KERNEL_NAME,
                         "zeKernelCreate: ZE_RESULT_ERROR_INVALID_KERNEL_NAME (0x%x): program %p "
                         "has no kernel '%s'",
                         (unsigned)rc, (void *)p, name);
    if (rc != ZE_RESULT_SUCCESS)
        return sxz_fail("zeKernelCreate", rc, " for '%s' in program %p", name, (void *)p);
    ze_kernel_properties_t kp = {.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES};
    rc = sxz_ze.zeKernelGetProperties(k, &kp);
    if (rc != ZE_RESULT_SUCCESS) {
        sxz_ze.zeKernelDestroy(k);
        return sxz_fail("zeKernelGetProperties", rc, " for kernel '%s'", name);
    }
    struct sxa_kernel_s *kern = calloc(1, sizeof(*kern));
    if (kern)
        kern->name = dup_or_null(name);
    if (!kern || !kern->name) {
        free(kern);
        sxz_ze.zeKernelDestroy(k);
        return sxz_error(SX_ERROR_OUT_OF_HOST_MEMORY, "level_zero: out of memory for a kernel");
    }
    kern->base.dispatch = sxz_services->dispatch;
    kern->program = p;
    kern->indirect = (p->usm_flags & SXA_PROGRAM_INDIRECT_USM) != 0;
    if (!kern->indirect) {
        kern->indirect = 1; /* no signature: arguments may hold pointers */
        for (uint32_t i = 0; i < p->num_direct_only; i++)
            if (!strcmp(p->direct_only[i], name))
                kern->indirect = 0;
    }
    kern->kernel = k;
    kern->num_args = kp.numKernelArgs;
    kern->local_mem = kp.localMemSize;
    pthread_mutex_init(&kern->lock, NULL);
    *out = (sxa_kernel)kern;
    return SX_SUCCESS;
}

static sx_result kernel_release(sxa_kernel kernel)
{
    struct sxa_kernel_s *k = (struct sxa_kernel_s *)kernel;
    if (!k)
        return SX_ERROR_INVALID_NULL_HANDLE;
    ze_result_t rc = sxz_ze.zeKernelDestroy(k->kernel);
    sx_result r = rc == ZE_RESULT_SUCCESS
                      ? SX_SUCCESS
                      : sxz_fail("zeKernelDestroy", rc, " for kernel '%s'", k->name);
    pthread_mutex_destroy(&k->lock);
    free(k->name);
    free(k);
    return r;
}

static sx_result kernel_get_info(sxa_kernel kernel, sxa_kernel_info param, size_t size,
                                 void *value, size_t *size_ret)
{
    struct sxa_kernel_s *k = (struct sxa_kernel_s *)kernel;
    if (!k)
        return SX_ERROR_INVALID_NULL_HANDLE;
    switch (param) {
    case SXA_KERNEL_INFO_NUM_ARGS:
        return sxa_info_copy(&k->num_args, sizeof(k->num_args), size, value, size_ret);
    case SXA_KERNEL_INFO_MAX_WORK_GROUP_SIZE: {
        size_t v = k->program->device->compute.maxTotalGroupSize;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    case SXA_KERNEL_INFO_LOCAL_MEM_SIZE: {
        uint64_t v = k->local_mem;
        return sxa_info_copy(&v, sizeof(v), size, value, size_ret);
    }
    default:
        return sxz_error(SX_ERROR_INVALID_ENUMERATION, "level_zero: kernel info %u unknown",
                         (unsigned)param);
    }
}

const sxa_program_table sxz_program_table = {
    .size = sizeof(sxa_program_table),
    .create = program_create,
    .build = program_build,
    .compile = program_compile,
    .link = program_link,
    .release = program_release,
    .get_binary = program_get_binary,
    .get_global = program_get_global,
};

const sxa_kernel_table sxz_kernel_table = {
    .size = sizeof(sxa_kernel_table),
    .create = kernel_create,
    .release = kernel_release,
    .get_info = kernel_get_info,
};
