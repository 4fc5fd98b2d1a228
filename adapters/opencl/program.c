/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* program.c: programs from SPIR-V / SPIR / driver binaries, build, compile, link, binaries. */
#include "opencl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cl_khr_spir: a SPIR binary is built with "-x spir" and its SPIR version;
 * PoCL 3.1 and Oclgrind 21.10 accept it (and also build without it). */
#define SXO_SPIR_OPTIONS "-x spir -spir-std=1.2"

char *sxo_build_log(cl_program prog, cl_device_id dev)
{
    size_t n = 0;
    if (sxo_cl.clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS ||
        n == 0)
        return NULL;
    if (n > (1u << 20))
        n = 1u << 20;
    char *log = calloc(1, n + 1);
    if (log && sxo_cl.clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) !=
                   CL_SUCCESS) {
        free(log);
        return NULL;
    }
    /* Keep the message one paragraph: trailing newlines off. */
    if (log)
        for (size_t len = strlen(log); len && (log[len - 1] == '\n' || log[len - 1] == ' ');)
            log[--len] = '\0';
    return log;
}

/* Options for a build or compile: the SPIR marker, then the caller's
 * options, or the image's when the caller gives none. */
static char *make_options(const struct sxa_program_s *p, const char *options, const char *dflt)
{
    const char *user = options ? options : dflt ? dflt : "";
    const char *pre = p && p->kind == SX_IMAGE_KIND_SPIR ? SXO_SPIR_OPTIONS " " : "";
    size_t n = strlen(pre) + strlen(user) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s", pre, user);
    return s;
}

static int kind_listed(const struct sxa_device_s *d, sx_image_kind kind)
{
    for (uint32_t i = 0; i < d->num_kinds; i++)
        if (d->kinds[i] == kind)
            return 1;
    return 0;
}

static struct sxa_program_s *program_new(struct sxa_context_s *ctx, struct sxa_device_s *dev,
                                         sx_image_kind kind, const sxa_program_desc *desc)
{
    struct sxa_program_s *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->base.dispatch = sxo_svc->dispatch;
    p->context = ctx;
    p->device = dev;
    p->kind = kind;
    pthread_mutex_init(&p->lock, NULL);
    /* desc->size tells how much of it the core knows. */
    if (desc && desc->size >= offsetof(sxa_program_desc, link_options) + sizeof(char *)) {
        if (desc->compile_options && !(p->default_options = strdup(desc->compile_options)))
            goto oom;
        if (desc->link_options && !(p->default_link_options = strdup(desc->link_options)))
            goto oom;
    }
    if (desc && desc->size >= offsetof(sxa_program_desc, flags) + sizeof(uint32_t))
        p->usm_flags = desc->flags;
    /* Kernels whose signatures show no argument that may hold pointers. */
    if (desc && desc->size >= offsetof(sxa_program_desc, kernels) + sizeof(desc->kernels) && desc->num_kernels) {
        if (!(p->direct_only = calloc(desc->num_kernels, sizeof *p->direct_only)))
            goto oom;
        for (uint32_t i = 0; i < desc->num_kernels; i++)
            if (desc->kernels[i].name && !sxa_signature_indirect(&desc->kernels[i]) &&
                !(p->direct_only[p->num_direct_only++] = strdup(desc->kernels[i].name)))
                goto oom;
    }
    return p;
oom:
    for (uint32_t i = 0; i < p->num_direct_only; i++)
        free(p->direct_only[i]);
    free(p->direct_only);
    free(p->default_options);
    free(p->default_link_options);
    pthread_mutex_destroy(&p->lock);
    free(p);
    return NULL;
}

/* A linked program's kernels: indirect access as its parts said. */
static int merge_direct_only(struct sxa_program_s *p, uint32_t count, const sxa_program *parts)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        p->usm_flags |= parts[i]->usm_flags;
        n += parts[i]->num_direct_only;
    }
    if (!n)
        return 1;
    if (!(p->direct_only = calloc(n, sizeof *p->direct_only)))
        return 0;
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = 0; k < parts[i]->num_direct_only; k++)
            if (!(p->direct_only[p->num_direct_only++] = strdup(parts[i]->direct_only[k])))
                return 0;
    return 1;
}

static void program_free(struct sxa_program_s *p)
{
    for (uint32_t i = 0; i < p->num_direct_only; i++)
        free(p->direct_only[i]);
    free(p->direct_only);
    sxo_globals_free(p);
    if (p->prog)
        sxo_cl.clReleaseProgram(p->prog);
    free(p->default_options);
    free(p->default_link_options);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

static int context_has(const struct sxa_context_s *c, const struct sxa_device_s *d)
{
    for (uint32_t i = 0; i < c->num_devices; i++)
        if (c->devices[i] == d)
            return 1;
    return 0;
}

static sx_result program_create(sxa_context context, sxa_device device, sx_image_kind kind,
                                const void *data, size_t size, const sxa_program_desc *desc,
                                sxa_program *out)
{
    if (!context || !device)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!data || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    *out = NULL;
    if (size == 0)
        return sxo_error(SX_ERROR_INVALID_SIZE, "opencl: program of 0 bytes");
    if (!context_has(context, device))
        return sxo_error(SX_ERROR_INVALID_DEVICE, "opencl: device '%s' is not in context %p",
                         device->name, (void *)context);
    /* NATIVE is what get_binary hands out: accepted though not listed. */
    if (kind != SX_IMAGE_KIND_NATIVE && !kind_listed(device, kind))
        return sxo_error(SX_ERROR_INVALID_BINARY, "opencl: '%s' does not take image kind %u",
                         device->name, kind);
    const unsigned char *b = data;
    if (kind == SX_IMAGE_KIND_SPIRV &&
        (size < 20 || size % 4 || !((b[0] == 0x03 && b[1] == 0x02 && b[2] == 0x23 && b[3] == 0x07) ||
                                    (b[3] == 0x03 && b[2] == 0x02 && b[1] == 0x23 && b[0] == 0x07))))
        return sxo_error(SX_ERROR_INVALID_BINARY, "opencl: %zu bytes are not a SPIR-V module",
                         size);
    if (kind == SX_IMAGE_KIND_SPIRV) {
        sx_result bad = sxo_spirv_check(data, size);
        if (bad != SX_SUCCESS)
            return bad;
    }
    if (kind == SX_IMAGE_KIND_SPIR &&
        (size < 8 || !((b[0] == 'B' && b[1] == 'C' && b[2] == 0xC0 && b[3] == 0xDE) ||
                       (b[0] == 0xDE && b[1] == 0xC0 && b[2] == 0x17 && b[3] == 0x0B))))
        return sxo_error(SX_ERROR_INVALID_BINARY, "opencl: %zu bytes are not LLVM bitcode (SPIR)",
                         size);
    char var[600];
    if (kind == SX_IMAGE_KIND_SPIR && device->platform->aborts_on_extern_vars &&
        sxo_bitcode_undefined_variable(data, size, var, sizeof var) == 1)
        return sxo_error(SX_ERROR_UNSUPPORTED_FEATURE,
                         "opencl: '%s' cannot take this SPIR module: it declares the program-scope "
                         "variable '%s' without defining it (another module it is linked with "
                         "defines it), and %s aborts the process on such a variable when it "
                         "makes the program", device->name, var, device->platform->name);
    struct sxa_program_s *p = program_new(context, device, kind, desc);
    if (!p)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: program");
    cl_int err = CL_SUCCESS;
    const char *call;
    if (kind == SX_IMAGE_KIND_SPIRV) {
        if (device->il_khr) {
            call = "clCreateProgramWithILKHR";
            p->prog = device->platform->ext.create_with_il_khr(context->ctx, data, size, &err);
        } else {
            call = "clCreateProgramWithIL";
            p->prog = sxo_cl.clCreateProgramWithIL(context->ctx, data, size, &err);
        }
    } else {
        call = "clCreateProgramWithBinary";
        cl_int status = CL_SUCCESS;
        p->prog = sxo_cl.clCreateProgramWithBinary(context->ctx, 1, &device->id, &size, &b,
                                                   &status, &err);
        if (p->prog && status != CL_SUCCESS)
            err = status;
    }
    if (!p->prog || err != CL_SUCCESS) {
        program_free(p);
        return sxo_fail(err, call, "for %zu bytes of image kind %u on '%s'", size, kind,
                        device->name);
    }
    *out = p;
    return SX_SUCCESS;
}

static sx_result build_failed(cl_int err, const char *call, struct sxa_program_s *p,
                              cl_program log_of, const char *options)
{
    char *log = log_of ? sxo_build_log(log_of, p->device->id) : NULL;
    sx_result rc = sxo_fail(err, call, "for program %p on '%s' (options \"%s\"): %s", (void *)p,
                            p->device->name, options ? options : "",
                            log && log[0] ? log : "(empty log)");
    free(log);
    return rc;
}

static sx_result program_build(sxa_program program, const char *options)
{
    if (!program)
        return SX_ERROR_INVALID_NULL_HANDLE;
    char *opts = make_options(program, options, program->default_options);
    if (!opts)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: build options");
    cl_int err = sxo_cl.clBuildProgram(program->prog, 1, &program->device->id, opts, NULL, NULL);
    sx_result rc = SX_SUCCESS;
    if (err != CL_SUCCESS)
        rc = build_failed(err, "clBuildProgram", program, program->prog, opts);
    free(opts);
    return rc;
}

static sx_result program_compile(sxa_program program, const char *options)
{
    if (!program)
        return SX_ERROR_INVALID_NULL_HANDLE;
    char *opts = make_options(program, options, program->default_options);
    if (!opts)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: compile options");
    cl_int err = sxo_cl.clCompileProgram(program->prog, 1, &program->device->id, opts, 0, NULL,
                                         NULL, NULL, NULL);
    sx_result rc = SX_SUCCESS;
    if (err == CL_INVALID_OPERATION) {
        /* PoCL 3.1 refuses to compile programs made from binaries (SPIR). */
        rc = sxo_svc->error(SX_ERROR_UNSUPPORTED_FEATURE,
                            "clCompileProgram: CL_INVALID_OPERATION (-59) for program %p on '%s': "
                            "this driver cannot compile a program made from a %s image, so it "
                            "cannot link separately compiled images",
                            (void *)program, program->device->name,
                            program->kind == SX_IMAGE_KIND_SPIRV ? "SPIR-V" : "binary (SPIR)");
    } else if (err != CL_SUCCESS) {
        rc = build_failed(err, "clCompileProgram", program, program->prog, opts);
    }
    free(opts);
    return rc;
}

static sx_result program_link(sxa_context context, sxa_device device, uint32_t count,
                              const sxa_program *programs, const char *options, sxa_program *out)
{
    if (!context || !device)
        return SX_ERROR_INVALID_NULL_HANDLE;
    if (!programs || !out)
        return SX_ERROR_INVALID_NULL_POINTER;
    *out = NULL;
    if (count == 0 || count > 4096)
        return sxo_error(SX_ERROR_INVALID_SIZE, "opencl: link of %u programs", count);
    if (!context_has(context, device))
        return sxo_error(SX_ERROR_INVALID_DEVICE, "opencl: device '%s' is not in context %p",
                         device->name, (void *)context);
    cl_program stack[16];
    cl_program *ids = count <= SXO_ARRAY_SIZE(stack) ? stack : calloc(count, sizeof *ids);
    if (!ids)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: link list");
    for (uint32_t i = 0; i < count; i++) {
        if (!programs[i] || programs[i]->context != context || programs[i]->device != device) {
            if (ids != stack)
                free(ids);
            return sxo_error(programs[i] ? SX_ERROR_INVALID_DEVICE : SX_ERROR_INVALID_NULL_HANDLE,
                             "opencl: program %u of a link is NULL or of another context/device",
                             i);
        }
        ids[i] = programs[i]->prog;
    }
    struct sxa_program_s *p = program_new(context, device, SX_IMAGE_KIND_NATIVE, NULL);
    if (p && !merge_direct_only(p, count, programs)) {
        program_free(p);
        p = NULL;
    }
    const char *opts = options ? options : programs[0]->default_link_options;
    if (!opts)
        opts = "";
    cl_int err = CL_OUT_OF_HOST_MEMORY;
    cl_program linked = NULL;
    if (p)
        linked = sxo_cl.clLinkProgram(context->ctx, 1, &device->id, opts, count, ids, NULL, NULL,
                                      &err);
    if (ids != stack)
        free(ids);
    if (!p)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: linked program");
    if (err != CL_SUCCESS || !linked) {
        sx_result rc;
        if (err == CL_INVALID_OPERATION) {
            rc = sxo_svc->error(SX_ERROR_UNSUPPORTED_FEATURE,
                                "clLinkProgram: CL_INVALID_OPERATION (-59) for %u programs on "
                                "'%s': the inputs were not compiled (this driver cannot compile "
                                "programs made from binaries)",
                                count, device->name);
        } else {
            /* A failed link may still hand back a program: its log is
             * the only place the reason is. Some drivers say
             * CL_INVALID_BINARY for what is a link failure (UR rewrites it). */
            if (err == CL_INVALID_BINARY)
                err = CL_LINK_PROGRAM_FAILURE;
            p->prog = linked;
            rc = build_failed(err, "clLinkProgram", p, linked, opts);
            p->prog = NULL;
        }
        if (linked)
            sxo_cl.clReleaseProgram(linked);
        program_free(p);
        return rc;
    }
    p->prog = linked;
    *out = p;
    return SX_SUCCESS;
}

static sx_result program_release(sxa_program program)
{
    if (!program)
        return SX_ERROR_INVALID_NULL_HANDLE;
    program_free(program);
    return SX_SUCCESS;
}

static sx_result program_get_binary(sxa_program program, sx_image_kind *kind, size_t size,
                                    void *value, size_t *size_ret)
{
    if (!program)
        return SX_ERROR_INVALID_NULL_HANDLE;
    size_t n = 0;
    /* The program has exactly one device. */
    cl_int err = sxo_cl.clGetProgramInfo(program->prog, CL_PROGRAM_BINARY_SIZES, sizeof n, &n,
                                         NULL);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clGetProgramInfo", "(CL_PROGRAM_BINARY_SIZES) for program %p",
                        (void *)program);
    if (n == 0)
        return sxo_error(SX_ERROR_INVALID_PROGRAM, "opencl: program %p has no binary (not built?)",
                         (void *)program);
    if (kind)
        *kind = SX_IMAGE_KIND_NATIVE;
    if (size_ret)
        *size_ret = n;
    if (!value)
        return size_ret || kind ? SX_SUCCESS : SX_ERROR_INVALID_NULL_POINTER;
    if (size < n)
        return sxo_error(SX_ERROR_INVALID_SIZE, "opencl: binary of %zu bytes in a %zu-byte buffer",
                         n, size);
    unsigned char *ptrs[1] = {value};
    err = sxo_cl.clGetProgramInfo(program->prog, CL_PROGRAM_BINARIES, sizeof ptrs, ptrs, NULL);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clGetProgramInfo", "(CL_PROGRAM_BINARIES) for program %p",
                        (void *)program);
    return SX_SUCCESS;
}

const sxa_program_table sxo_program_table = {
    .size = sizeof(sxa_program_table),
    .create = program_create,
    .build = program_build,
    .compile = program_compile,
    .link = program_link,
    .release = program_release,
    .get_binary = program_get_binary,
    .get_global = sxo_get_global,
};
