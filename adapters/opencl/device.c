/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* device.c: OpenCL platforms and devices: versions, extensions, aspects, image kinds, the globals probe. */
#include "opencl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string query, malloc'd; NULL on failure. */
static char *platform_string(cl_platform_id id, cl_platform_info param)
{
    size_t n = 0;
    if (sxo_cl.clGetPlatformInfo(id, param, 0, NULL, &n) != CL_SUCCESS || n == 0 || n > (1u << 20))
        return NULL;
    char *s = calloc(1, n + 1);
    if (s && sxo_cl.clGetPlatformInfo(id, param, n, s, NULL) != CL_SUCCESS) {
        free(s);
        return NULL;
    }
    return s;
}

static char *device_string(cl_device_id id, cl_device_info param)
{
    size_t n = 0;
    if (sxo_cl.clGetDeviceInfo(id, param, 0, NULL, &n) != CL_SUCCESS || n == 0 || n > (1u << 20))
        return NULL;
    char *s = calloc(1, n + 1);
    if (s && sxo_cl.clGetDeviceInfo(id, param, n, s, NULL) != CL_SUCCESS) {
        free(s);
        return NULL;
    }
    return s;
}

/* A fixed-size query; leaves `value` zeroed when the driver refuses. */
static void device_value(cl_device_id id, cl_device_info param, void *value, size_t size)
{
    if (sxo_cl.clGetDeviceInfo(id, param, size, value, NULL) != CL_SUCCESS)
        memset(value, 0, size);
}

/* "OpenCL 3.0 PoCL ..." -> 30; 0 when unreadable (treated as 1.0). */
static int parse_version(const char *s)
{
    int major = 0, minor = 0;
    if (!s || sscanf(s, "OpenCL %d.%d", &major, &minor) != 2 || major < 1 || major > 9 ||
        minor < 0 || minor > 9)
        return SXO_VERSION(1, 0);
    return SXO_VERSION(major, minor);
}

int sxo_has_extension(const struct sxa_device_s *dev, const char *ext)
{
    char word[128];
    if (!dev->extensions || strlen(ext) + 3 > sizeof word)
        return 0;
    snprintf(word, sizeof word, " %s ", ext);
    return strstr(dev->extensions, word) != NULL;
}

static void *platform_function(cl_platform_id id, const char *name)
{
    return sxo_cl.clGetExtensionFunctionAddressForPlatform(id, name);
}

static void load_platform_extensions(struct sxa_platform_s *p)
{
    sxo_ext *e = &p->ext;
    e->host_alloc = (clHostMemAllocINTEL_fn)platform_function(p->id, "clHostMemAllocINTEL");
    e->device_alloc = (clDeviceMemAllocINTEL_fn)platform_function(p->id, "clDeviceMemAllocINTEL");
    e->shared_alloc = (clSharedMemAllocINTEL_fn)platform_function(p->id, "clSharedMemAllocINTEL");
    e->blocking_free = (clMemBlockingFreeINTEL_fn)platform_function(p->id, "clMemBlockingFreeINTEL");
    e->set_arg_mem_pointer =
        (clSetKernelArgMemPointerINTEL_fn)platform_function(p->id, "clSetKernelArgMemPointerINTEL");
    e->memcpy = (clEnqueueMemcpyINTEL_fn)platform_function(p->id, "clEnqueueMemcpyINTEL");
    e->fill = (clEnqueueMemFillINTEL_fn)platform_function(p->id, "clEnqueueMemFillINTEL");
    e->read_global = (sxo_read_global_fn)platform_function(p->id, "clEnqueueReadGlobalVariableINTEL");
    e->write_global =
        (sxo_write_global_fn)platform_function(p->id, "clEnqueueWriteGlobalVariableINTEL");
    e->global_pointer =
        (sxo_global_pointer_fn)platform_function(p->id, "clGetDeviceGlobalVariablePointerINTEL");
    e->create_with_il_khr =
        (clCreateProgramWithILKHR_fn)platform_function(p->id, "clCreateProgramWithILKHR");
}

static int intel_usm_usable(const sxo_ext *e)
{
    return e->host_alloc && e->device_alloc && e->shared_alloc && e->blocking_free &&
           e->set_arg_mem_pointer && e->memcpy && e->fill;
}

/* One type per device. Oclgrind claims CPU|GPU|ACCELERATOR|DEFAULT; a
 * device with the CPU bit runs on the host, so CPU wins. */
static sx_device_type device_type(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_CPU)
        return SX_DEVICE_TYPE_CPU;
    if (t & CL_DEVICE_TYPE_GPU)
        return SX_DEVICE_TYPE_GPU;
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return SX_DEVICE_TYPE_ACCELERATOR;
    return SX_DEVICE_TYPE_CUSTOM;
}

/* SX_OPENCL_HIDE_ASPECTS="6,8" (aspect numbers, sx_aspect): aspects every
 * device of this adapter pretends not to have, so tests can take the
 * paths of a device without, e.g., fp64 (a set's dummy image). */
static sx_aspect_set hidden_aspects(void)
{
    const char *env = sxo_svc->getenv ? sxo_svc->getenv("SX_OPENCL_HIDE_ASPECTS") : NULL;
    sx_aspect_set hide = 0;
    for (const char *p = env; p && *p;) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || v >= SX_ASPECT_MAX_) {
            sxo_svc->log(SX_LOG_WARN, "opencl: SX_OPENCL_HIDE_ASPECTS: '%s' is not an aspect "
                         "number below %d: ignored from there", p, SX_ASPECT_MAX_);
            break;
        }
        hide |= SX_ASPECT_BIT(v);
        p = end + strspn(end, ", ");
    }
    return hide;
}

/* Everything the adapter needs of a device, asked once. */
static int load_device(struct sxa_platform_s *p, struct sxa_device_s *d, cl_device_id id)
{
    d->base.dispatch = sxo_svc->dispatch;
    d->platform = p;
    d->id = id;
    pthread_mutex_init(&d->dg_lock, NULL);
    d->dg_shared = -1;

    char *version = device_string(id, CL_DEVICE_VERSION);
    int dv = parse_version(version);
    free(version);
    /* ocl-icd dispatches through the platform's table, so both must be new
     * enough before a 2.x entry point is called (FACTS: it spins otherwise). */
    d->version = dv < p->cl_version ? dv : p->cl_version;

    char *ext = device_string(id, CL_DEVICE_EXTENSIONS);
    size_t n = ext ? strlen(ext) : 0;
    d->extensions = malloc(n + 3);
    if (!d->extensions) {
        free(ext);
        return -1;
    }
    snprintf(d->extensions, n + 3, " %s ", ext ? ext : "");
    free(ext);

    d->name = device_string(id, CL_DEVICE_NAME);
    d->vendor = device_string(id, CL_DEVICE_VENDOR);
    d->driver = device_string(id, CL_DRIVER_VERSION);
    if (!d->name || !d->vendor || !d->driver)
        return -1;

    cl_device_type t;
    device_value(id, CL_DEVICE_TYPE, &t, sizeof t);
    d->type = device_type(t);
    cl_bool unified = CL_FALSE;
    device_value(id, CL_DEVICE_HOST_UNIFIED_MEMORY, &unified, sizeof unified);
    d->host_copies = d->type == SX_DEVICE_TYPE_CPU && unified && sxo_cl.clEnqueueSVMMemcpy;
    device_value(id, CL_DEVICE_MAX_WORK_GROUP_SIZE, &d->max_wg, sizeof d->max_wg);
    cl_uint dims = 0;
    device_value(id, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, &dims, sizeof dims);
    if (dims >= 1 && dims < 64) {
        size_t items[64];
        device_value(id, CL_DEVICE_MAX_WORK_ITEM_SIZES, items, dims * sizeof(size_t));
        memcpy(d->max_items, items, (dims < 3 ? dims : 3) * sizeof(size_t));
    }
    cl_ulong u64;
    device_value(id, CL_DEVICE_LOCAL_MEM_SIZE, &u64, sizeof u64);
    d->local_mem = u64;
    device_value(id, CL_DEVICE_GLOBAL_MEM_SIZE, &u64, sizeof u64);
    d->global_mem = u64;
    cl_uint cu;
    device_value(id, CL_DEVICE_MAX_COMPUTE_UNITS, &cu, sizeof cu);
    d->compute_units = cu;
    device_value(id, CL_DEVICE_QUEUE_PROPERTIES, &d->queue_props, sizeof d->queue_props);

    /* Non-uniform work-groups: core in 2.x, optional (queried) in 3.0. */
    if (d->version >= SXO_VERSION(3, 0)) {
        cl_bool nu = CL_FALSE;
        device_value(id, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, &nu, sizeof nu);
        d->nonuniform = nu ? 1 : 0;
    } else {
        d->nonuniform = d->version >= SXO_VERSION(2, 0);
    }

    /* Image kinds, most preferred first. */
    int il = 0;
    if (d->version >= SXO_VERSION(2, 1) && sxo_cl.clCreateProgramWithIL) {
        char *ilv = device_string(id, CL_DEVICE_IL_VERSION);
        il = ilv && strstr(ilv, "SPIR-V");
        free(ilv);
    }
    if (!il && sxo_has_extension(d, "cl_khr_il_program") && p->ext.create_with_il_khr) {
        char *ilv = device_string(id, CL_DEVICE_IL_VERSION_KHR);
        il = ilv && strstr(ilv, "SPIR-V");
        d->il_khr = il;
        free(ilv);
    }
    if (il)
        d->kinds[d->num_kinds++] = SX_IMAGE_KIND_SPIRV;
    if (sxo_has_extension(d, "cl_khr_spir"))
        d->kinds[d->num_kinds++] = SX_IMAGE_KIND_SPIR;

    /* USM flavour. */
    if (sxo_has_extension(d, "cl_intel_unified_shared_memory") && intel_usm_usable(&p->ext)) {
        d->usm = SXO_USM_INTEL;
    } else if (d->version >= SXO_VERSION(2, 0) && sxo_cl.clSVMAlloc && sxo_cl.clSVMFree &&
               sxo_cl.clSetKernelArgSVMPointer && sxo_cl.clEnqueueSVMMemcpy &&
               sxo_cl.clEnqueueSVMMemFill) {
        device_value(id, CL_DEVICE_SVM_CAPABILITIES, &d->svm, sizeof d->svm);
        if (d->svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)
            d->usm = SXO_USM_SVM;
    }
    /* Intel's CPU runtime (2026.2) exports both entry points and
     * clGetDeviceGlobalVariablePointerINTEL but lists neither extension
     * (doc/intel-cpu-opencl.md): the entry points decide, as in UR. */
    d->global_access = p->ext.read_global && p->ext.write_global &&
                       (sxo_has_extension(d, "cl_intel_global_variable_access") ||
                        p->ext.global_pointer);

    /* Aspects. */
    sx_aspect_set a = 0;
    a |= SX_ASPECT_BIT(d->type == SX_DEVICE_TYPE_GPU   ? SX_ASPECT_GPU
                       : d->type == SX_DEVICE_TYPE_CPU ? SX_ASPECT_CPU
                       : d->type == SX_DEVICE_TYPE_ACCELERATOR ? SX_ASPECT_ACCELERATOR
                                                              : SX_ASPECT_CUSTOM);
    if (sxo_has_extension(d, "cl_khr_fp16"))
        a |= SX_ASPECT_BIT(SX_ASPECT_FP16);
    cl_device_fp_config fp64 = 0;
    device_value(id, CL_DEVICE_DOUBLE_FP_CONFIG, &fp64, sizeof fp64);
    if (sxo_has_extension(d, "cl_khr_fp64") || fp64)
        a |= SX_ASPECT_BIT(SX_ASPECT_FP64);
    int base64 = sxo_has_extension(d, "cl_khr_int64_base_atomics");
    int ext64 = sxo_has_extension(d, "cl_khr_int64_extended_atomics");
    if (base64)
        a |= SX_ASPECT_BIT(SX_ASPECT_INT64_BASE_ATOMICS);
    if (ext64)
        a |= SX_ASPECT_BIT(SX_ASPECT_INT64_EXTENDED_ATOMICS);
    if (base64 && ext64)
        a |= SX_ASPECT_BIT(SX_ASPECT_ATOMIC64);
    cl_bool b = CL_FALSE;
    device_value(id, CL_DEVICE_IMAGE_SUPPORT, &b, sizeof b);
    if (b)
        a |= SX_ASPECT_BIT(SX_ASPECT_IMAGE);
    b = CL_FALSE;
    device_value(id, CL_DEVICE_COMPILER_AVAILABLE, &b, sizeof b);
    if (b)
        a |= SX_ASPECT_BIT(SX_ASPECT_ONLINE_COMPILER);
    b = CL_FALSE;
    device_value(id, CL_DEVICE_LINKER_AVAILABLE, &b, sizeof b);
    if (b)
        a |= SX_ASPECT_BIT(SX_ASPECT_ONLINE_LINKER);
    if (d->queue_props & CL_QUEUE_PROFILING_ENABLE)
        a |= SX_ASPECT_BIT(SX_ASPECT_QUEUE_PROFILING);
    if (d->usm == SXO_USM_INTEL) {
        cl_device_unified_shared_memory_capabilities_intel caps;
        device_value(id, CL_DEVICE_HOST_MEM_CAPABILITIES_INTEL, &caps, sizeof caps);
        if (caps)
            a |= SX_ASPECT_BIT(SX_ASPECT_USM_HOST_ALLOCATIONS);
        if (caps & CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL)
            a |= SX_ASPECT_BIT(SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS);
        device_value(id, CL_DEVICE_DEVICE_MEM_CAPABILITIES_INTEL, &caps, sizeof caps);
        if (caps)
            a |= SX_ASPECT_BIT(SX_ASPECT_USM_DEVICE_ALLOCATIONS);
        device_value(id, CL_DEVICE_SINGLE_DEVICE_SHARED_MEM_CAPABILITIES_INTEL, &caps, sizeof caps);
        if (caps)
            a |= SX_ASPECT_BIT(SX_ASPECT_USM_SHARED_ALLOCATIONS);
        if (caps & CL_UNIFIED_SHARED_MEMORY_ATOMIC_ACCESS_INTEL)
            a |= SX_ASPECT_BIT(SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS);
        device_value(id, CL_DEVICE_SHARED_SYSTEM_MEM_CAPABILITIES_INTEL, &caps, sizeof caps);
        if (caps)
            a |= SX_ASPECT_BIT(SX_ASPECT_USM_SYSTEM_ALLOCATIONS);
    } else if (d->usm == SXO_USM_SVM) {
        /* Coarse-grained SVM is device memory the host reaches only by
         * copies; fine-grained SVM is what host and shared USM promise. */
        a |= SX_ASPECT_BIT(SX_ASPECT_USM_DEVICE_ALLOCATIONS);
        if (d->svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER) {
            a |= SX_ASPECT_BIT(SX_ASPECT_USM_HOST_ALLOCATIONS);
            a |= SX_ASPECT_BIT(SX_ASPECT_USM_SHARED_ALLOCATIONS);
            if (d->svm & CL_DEVICE_SVM_ATOMICS) {
                a |= SX_ASPECT_BIT(SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS);
                a |= SX_ASPECT_BIT(SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS);
            }
        }
        if (d->svm & CL_DEVICE_SVM_FINE_GRAIN_SYSTEM)
            a |= SX_ASPECT_BIT(SX_ASPECT_USM_SYSTEM_ALLOCATIONS);
    }
    d->aspects = a & ~hidden_aspects();
    return 0;
}

static void free_device(struct sxa_device_s *d)
{
    free(d->extensions);
    free(d->name);
    free(d->vendor);
    free(d->driver);
    pthread_mutex_destroy(&d->dg_lock);
}

void sxo_platforms_free(struct sxa_platform_s *platforms, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        struct sxa_platform_s *p = &platforms[i];
        for (uint32_t j = 0; j < p->num_devices; j++)
            free_device(&p->devices[j]);
        free(p->devices);
        free(p->name);
        free(p->vendor);
        free(p->version);
    }
    free(platforms);
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

/* One platform; -1 skips it (logged), -2 is out of memory. */
static int load_platform(struct sxa_platform_s *p, cl_platform_id id)
{
    p->base.dispatch = sxo_svc->dispatch;
    p->id = id;
    p->name = platform_string(id, CL_PLATFORM_NAME);
    p->vendor = platform_string(id, CL_PLATFORM_VENDOR);
    p->version = platform_string(id, CL_PLATFORM_VERSION);
    if (!p->name || !p->vendor || !p->version) {
        sxo_svc->log(SX_LOG_WARN, "opencl: platform %p answers no name/vendor/version: skipped",
                     (void *)id);
        return -1;
    }
    /* SX_OPENCL_PLATFORM="Intel": only platforms whose name contains it
     * (any case), for benchmarks and tests that want one driver. */
    const char *want = sxo_svc->getenv ? sxo_svc->getenv("SX_OPENCL_PLATFORM") : NULL;
    if (want && *want && !contains_nocase(p->name, want)) {
        sxo_svc->log(SX_LOG_INFO, "opencl: platform '%s' skipped: SX_OPENCL_PLATFORM=%s", p->name,
                     want);
        return -1;
    }
    p->cl_version = parse_version(p->version);
    load_platform_extensions(p);
    const char *force = sxo_svc->getenv ? sxo_svc->getenv("SX_OPENCL_SERIALIZE") : NULL;
    p->serialize = strstr(p->name, "Oclgrind") != NULL || (force && strcmp(force, "1") == 0);
    if (p->serialize)
        sxo_serialize_any = 1;
    p->aborts_on_extern_vars = strstr(p->name, "Oclgrind") != NULL;

    cl_uint n = 0;
    cl_int err = sxo_cl.clGetDeviceIDs(id, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
    if (err == CL_DEVICE_NOT_FOUND || n == 0)
        return 0;
    if (err != CL_SUCCESS || n > 4096) {
        sxo_svc->log(SX_LOG_WARN, "opencl: clGetDeviceIDs on '%s': %s (%d): skipped", p->name,
                     sxo_cl_error_name(err), (int)err);
        return -1;
    }
    cl_device_id *ids = calloc(n, sizeof *ids);
    p->devices = calloc(n, sizeof *p->devices);
    if (!ids || !p->devices) {
        free(ids);
        return -2;
    }
    err = sxo_cl.clGetDeviceIDs(id, CL_DEVICE_TYPE_ALL, n, ids, NULL);
    if (err != CL_SUCCESS) {
        free(ids);
        return -1;
    }
    for (cl_uint i = 0; i < n; i++) {
        struct sxa_device_s *d = &p->devices[p->num_devices];
        if (load_device(p, d, ids[i]) != 0) {
            sxo_svc->log(SX_LOG_WARN, "opencl: device %u of '%s' unreadable: skipped", i, p->name);
            free_device(d);
            memset(d, 0, sizeof *d);
            continue;
        }
        sxo_svc->log(SX_LOG_INFO,
                     "opencl: '%s' on '%s': OpenCL %d.%d, kinds %u, usm %s, nonuniform %u",
                     d->name, p->name, d->version / 10, d->version % 10, d->num_kinds,
                     d->usm == SXO_USM_INTEL ? "intel" : d->usm == SXO_USM_SVM ? "svm" : "none",
                     d->nonuniform);
        p->num_devices++;
    }
    free(ids);
    return 0;
}

sx_result sxo_platforms_load(struct sxa_platform_s **out, uint32_t *count)
{
    *out = NULL;
    *count = 0;
    cl_uint n = 0;
    cl_int err = sxo_cl.clGetPlatformIDs(0, NULL, &n);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: no ICD */ || n == 0)
        return SX_SUCCESS;
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clGetPlatformIDs", "while listing platforms");
    if (n > 256)
        n = 256;
    cl_platform_id ids[256];
    err = sxo_cl.clGetPlatformIDs(n, ids, NULL);
    if (err != CL_SUCCESS)
        return sxo_fail(err, "clGetPlatformIDs", "while listing %u platforms", n);
    struct sxa_platform_s *ps = calloc(n, sizeof *ps);
    if (!ps)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: %u platforms", n);
    uint32_t kept = 0;
    for (cl_uint i = 0; i < n; i++) {
        struct sxa_platform_s *p = &ps[kept];
        int rc = load_platform(p, ids[i]);
        if (rc == 0) {
            kept++;
            continue;
        }
        for (uint32_t j = 0; j < p->num_devices; j++)
            free_device(&p->devices[j]);
        free(p->devices);
        free(p->name);
        free(p->vendor);
        free(p->version);
        memset(p, 0, sizeof *p);
        if (rc == -2) {
            sxo_platforms_free(ps, kept);
            return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: loading platform %u", i);
        }
    }
    *out = ps;
    *count = kept;
    return SX_SUCCESS;
}

/* ---- the program-scope variable probe ---- */

static const char probe_source[] =
    "global int sxo_probe_var;\n"
    "kernel void sxo_probe_write(int v) { sxo_probe_var = v; }\n"
    "kernel void sxo_probe_read(global int *out) { *out = sxo_probe_var; }\n";

/* Write through one kernel, read through another. Returns 1 shared, 0
 * per-kernel copies, -1 when the probe itself could not run. */
static int run_probe(struct sxa_device_s *d, char *note, size_t note_size)
{
    cl_int err;
    int result = -1;
    const char *step = "clCreateContext";
    cl_context ctx = sxo_cl.clCreateContext(NULL, 1, &d->id, NULL, NULL, &err);
    cl_command_queue q = NULL;
    cl_program prog = NULL;
    cl_kernel kw = NULL, kr = NULL;
    cl_mem buf = NULL;
    if (!ctx)
        goto out;
    step = "clCreateCommandQueue";
    q = sxo_cl.clCreateCommandQueue(ctx, d->id, 0, &err);
    if (!q)
        goto out;
    step = "clCreateProgramWithSource";
    const char *src = probe_source;
    prog = sxo_cl.clCreateProgramWithSource(ctx, 1, &src, NULL, &err);
    if (!prog)
        goto out;
    step = "clBuildProgram";
    err = sxo_cl.clBuildProgram(prog, 1, &d->id, "-cl-std=CL2.0", NULL, NULL);
    if (err != CL_SUCCESS)
        goto out;
    step = "clCreateKernel";
    kw = sxo_cl.clCreateKernel(prog, "sxo_probe_write", &err);
    if (!kw)
        goto out;
    kr = sxo_cl.clCreateKernel(prog, "sxo_probe_read", &err);
    if (!kr)
        goto out;
    step = "clCreateBuffer";
    cl_int value = -1;
    buf = sxo_cl.clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof value,
                                &value, &err);
    if (!buf)
        goto out;
    step = "clEnqueueNDRangeKernel";
    cl_int magic = 0x5158;
    size_t one = 1;
    if ((err = sxo_cl.clSetKernelArg(kw, 0, sizeof magic, &magic)) != CL_SUCCESS ||
        (err = sxo_cl.clSetKernelArg(kr, 0, sizeof buf, &buf)) != CL_SUCCESS ||
        (err = sxo_cl.clEnqueueNDRangeKernel(q, kw, 1, NULL, &one, NULL, 0, NULL, NULL)) !=
            CL_SUCCESS ||
        (err = sxo_cl.clEnqueueNDRangeKernel(q, kr, 1, NULL, &one, NULL, 0, NULL, NULL)) !=
            CL_SUCCESS)
        goto out;
    step = "clEnqueueReadBuffer";
    err = sxo_cl.clEnqueueReadBuffer(q, buf, CL_TRUE, 0, sizeof value, &value, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        goto out;
    result = value == magic;
    snprintf(note, note_size,
             result ? "a value written by one kernel is read by another"
                    : "this driver keeps one copy of a program-scope variable per kernel "
                      "(written 0x5158 through one kernel, read 0x%x through another)",
             (unsigned)value);
out:
    if (result < 0)
        snprintf(note, note_size, "probe failed at %s: %s (%d)", step, sxo_cl_error_name(err),
                 (int)err);
    if (buf)
        sxo_cl.clReleaseMemObject(buf);
    if (kw)
        sxo_cl.clReleaseKernel(kw);
    if (kr)
        sxo_cl.clReleaseKernel(kr);
    if (prog)
        sxo_cl.clReleaseProgram(prog);
    if (q)
        sxo_cl.clReleaseCommandQueue(q);
    if (ctx)
        sxo_cl.clReleaseContext(ctx);
    return result;
}

int sxo_device_shares_globals(struct sxa_device_s *d)
{
    pthread_mutex_lock(&d->dg_lock);
    if (d->dg_shared < 0) {
        int r = run_probe(d, d->dg_note, sizeof d->dg_note);
        if (r < 0) {
            /* A device that cannot build the probe (no compiler, no
             * kernel cache) is taken at the spec's word, except PoCL,
             * whose per-kernel copies are known (3.1). */
            int pocl = strstr(d->platform->name, "Portable Computing Language") != NULL;
            size_t used = strlen(d->dg_note);
            snprintf(d->dg_note + used, sizeof d->dg_note - used, "; assumed %s",
                     pocl ? "one copy per kernel (PoCL)" : "shared (the spec's rule)");
            r = !pocl;
        }
        d->dg_shared = r;
        sxo_svc->log(SX_LOG_INFO, "opencl: program-scope variable probe on '%s': %s", d->name,
                     d->dg_note);
    }
    int shared = d->dg_shared;
    pthread_mutex_unlock(&d->dg_lock);
    return shared;
}
