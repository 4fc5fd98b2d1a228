/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf-cache.c: what linking virtual-function images costs at a kernel's
 * first launch, and what the caches save: first launch (resolve + link),
 * cached launch, another kernel of the same image (in-memory program
 * cache), first launch from the persistent cache, and a second process's
 * first launch. By default on the fake TEST adapter (the native adapter
 * cannot link yet): the core's own overhead (resolution, hashing, cache
 * files). With --opencl, Oclgrind through the OpenCL adapter links the
 * SPIR bitcode of tests/vf/kernels for real (clCompileProgram +
 * clLinkProgram), so the uncached case pays a real link; with --cuda, the
 * CUDA adapter links the relocatable PTX of tests/vf/kernels/vf-*.cu; with
 * --native, the native adapter links the host shared objects of
 * tests/vf/kernels (real vtables) once it can link.
 * Usage: vf-cache [ITERATIONS] [--opencl|--cuda|--native]  (SX_TEST_BUILDDIR: the build tree) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sx-internal.h"
#include "../tests/vf/vf-images.h"

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static sx_device dev;
static bool ocl;        /* --opencl: Oclgrind through the OpenCL adapter, real links */
static bool cuda;       /* --cuda: the CUDA adapter, cuLink* of relocatable PTX, real vtables */
static bool native;     /* --native: the native adapter, host shared objects, real vtables */
static int arg = 7;
static sx_arg one = {.index = 0, .type = SX_ARG_VALUE, .size = sizeof(int), .value = &arg};
#define NARGS(name) (strcmp((name), "construct") ? 1u : 0u)

#define OK(call)                                                                                   \
    do {                                                                                           \
        sx_result r_ = (call);                                                                     \
        if (r_ != SX_SUCCESS) {                                                                    \
            fprintf(stderr, "%s: %s: %s\n", #call, sx_result_name(r_), sx_last_error());           \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

/* First launch of `name` in a fresh context: microseconds. */
static double first_launch(const char *name, const char *then)
{
    sx_context c;
    sx_queue q;
    sx_kernel k, k2;
    size_t g = 1;
    OK(sx_context_create(1, &dev, &c));
    OK(sx_queue_create(c, dev, 0, &q));
    OK(sx_kernel_get(name, &k));
    double t0 = now_us();
    OK(sx_queue_launch(q, k, 1, NULL, &g, NULL, NARGS(name), &one, 0, NULL, NULL));
    OK(sx_queue_wait(q));
    double t = now_us() - t0;
    if (then) { /* another kernel of the same image, after the first */
        OK(sx_kernel_get(then, &k2));
        t0 = now_us();
        OK(sx_queue_launch(q, k2, 1, NULL, &g, NULL, NARGS(then), &one, 0, NULL, NULL));
        OK(sx_queue_wait(q));
        t = now_us() - t0;
        OK(sx_kernel_release(k2));
    }
    OK(sx_kernel_release(k));
    OK(sx_queue_wait(q));
    OK(sx_queue_release(q));
    OK(sx_context_release(c));
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "vf-cache: cannot read %s (make check builds it)\n", path);
        exit(77);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    void *b = malloc((size_t)n);
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
        exit(1);
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* The example as SPIR bitcode for Oclgrind, PTX for CUDA or host shared
 * objects (set_fp64 needs no aspect, so the constructor links the real set). */
static vf_lib *real_example(const char *build)
{
    static const char *files[] = {"vf-kernels", "vf-set-default", "vf-set-fp64", "vf-set-fp64-dummy"};
    vf_spec s[] = {{.kernels = "construct,use,use_fp64", .creates = VF_SET_DEFAULT "," VF_SET_FP64},
                   {.set = VF_SET_DEFAULT}, {.set = VF_SET_FP64}, {.set = VF_SET_FP64, .dummy = 1}};
    for (unsigned i = 0; i < 4; i++) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/tests/vf/kernels/%s%s", build, files[i],
                 cuda ? ".ptx" : native ? "-host.so" : ".bc");
        s[i].raw = slurp(path, &s[i].raw_size);
        s[i].format = cuda ? SX_BINARY_FORMAT_NONE : native ? SX_BINARY_FORMAT_NATIVE : SX_BINARY_FORMAT_LLVMIR_BITCODE;
        s[i].target = cuda ? SX_TARGET_NVPTX64 : native ? SX_TARGET_HOST : SX_TARGET_SPIRV64;
        s[i].sigs = cuda || native;
        s[i].bytes = files[i];
    }
    vf_lib *l = vf_lib_new(s, 4);
    for (unsigned i = 0; i < 4; i++)
        free((void *)s[i].raw);
    return l;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int iters = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 200;
    bool child = false;
    for (int i = 2; i < argc; i++) {
        child |= strcmp(argv[i], "--child") == 0;
        ocl |= strcmp(argv[i], "--opencl") == 0;
        cuda |= strcmp(argv[i], "--cuda") == 0;
        native |= strcmp(argv[i], "--native") == 0;
    }
    bool real = ocl || cuda || native;
    const char *b = getenv("SX_TEST_BUILDDIR");
    b = b ? b : ".";
    char path[4096];
    if (ocl && !child) {
        /* Oclgrind alone, through its own ICD directory. */
        static char icd[] = "/tmp/sx-vf-bench-icd-XXXXXX";
        if (!mkdtemp(icd))
            return 1;
        snprintf(path, sizeof(path), "%s/oclgrind.icd", icd);
        FILE *f = fopen(path, "w");
        if (!f)
            return 1;
        fputs("/usr/lib/oclgrind/liboclgrind-rt-icd.so\n", f);
        fclose(f);
        setenv("OCL_ICD_VENDORS", icd, 1);
        snprintf(path, sizeof(path), "%s/adapters/opencl/.libs/sx-adapter-opencl.so", b);
        setenv("SX_ADAPTERS", path, 1);
    } else if (native && !child) {
        setenv("SX_ADAPTERS", "native", 1);
        snprintf(path, sizeof(path), "%s/adapters/native/.libs/sx-native-builtins.so", b);
        setenv("SX_NATIVE_BUILTINS", path, 0); /* the build tree's, unless given */
    } else if (cuda && !child) {
        snprintf(path, sizeof(path), "%s/adapters/cuda/.libs/sx-adapter-cuda.so", b);
        setenv("SX_ADAPTERS", path, 1);
    } else if (!getenv("SX_ADAPTERS")) {
        snprintf(path, sizeof(path), "%s/tests/fake/.libs/fake-good.so", b);
        setenv("SX_ADAPTERS", path, 1);
    }
    char dir[] = "/tmp/sx-vf-bench-XXXXXX";
    if (!child) {
        if (!mkdtemp(dir))
            return 1;
        setenv("SX_CACHE_DIR", dir, 1);
    }
    vf_lib *l = real ? real_example(b) : vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
    OK(sx_init(0));
    OK(sx_register_images(&l->desc));
    OK(sx_device_get_default(&dev));
    if (child) { /* a second process: its first launch, nothing in memory */
        double t = first_launch("construct", NULL);
        sxi_program_stats s;
        sxi_program_stats_get(&s);
        printf("%.1f %llu %llu\n", t, (unsigned long long)s.links, (unsigned long long)s.disk_hits);
        sx_fini();
        sx_unregister_images(&l->desc);
        vf_lib_free(l);
        return 0;
    }
    double *v = malloc(sizeof(double) * (size_t)iters);
    char *name;
    size_t size;
    FILE *out = open_memstream(&name, &size);
    char devname[256] = "?";
    sx_device_get_info(dev, SX_DEVICE_INFO_NAME, sizeof(devname), devname, NULL);
    fprintf(out, "vf-cache on %s (%s): 'construct' links 3 images (kernel, default set, set_fp64%s); medians of %d\n",
            devname,
            cuda     ? "CUDA adapter, cuLink* of PTX"
            : native ? "native adapter, host shared objects"
            : ocl    ? "OpenCL adapter, clLinkProgram"
                     : "fake TEST adapter, link is free",
            real ? "" : "'s dummy", iters);

    setenv("SX_CACHE", "0", 1);
    for (int i = 0; i < iters; i++)
        v[i] = first_launch("construct", NULL);
    fprintf(out, "  first launch, resolve + link (persistent cache off) %10.1f us\n", median(v, iters));
    for (int i = 0; i < iters; i++)
        v[i] = real ? first_launch("construct", "use") : first_launch("use", "use_again");
    fprintf(out, "  other kernel of a linked image (in-memory hit)      %10.1f us\n", median(v, iters));

    unsetenv("SX_CACHE");
    first_launch("construct", NULL); /* writes the entry */
    for (int i = 0; i < iters; i++)
        v[i] = first_launch("construct", NULL);
    sxi_program_stats s;
    sxi_program_stats_get(&s);
    fprintf(out, "  first launch from the persistent cache              %10.1f us  (disk hits %llu)\n",
            median(v, iters), (unsigned long long)s.disk_hits);

    /* Cached launch: the kernel slot, one lookup. */
    sx_context c;
    sx_queue q;
    sx_kernel k;
    size_t g = 1;
    OK(sx_context_create(1, &dev, &c));
    OK(sx_queue_create(c, dev, 0, &q));
    OK(sx_kernel_get("construct", &k));
    OK(sx_queue_launch(q, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
    OK(sx_queue_wait(q));
    int n = ocl ? iters * 5 : iters * 500; /* Oclgrind interprets each launch */
    double t0 = now_us();
    for (int i = 0; i < n; i++)
        OK(sx_queue_launch(q, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
    OK(sx_queue_wait(q));
    fprintf(out, "  cached launch (same kernel, context, device)        %10.3f us  (%d launches%s)\n",
            (now_us() - t0) / n, n, ocl ? ", Oclgrind runs each" : "");
    OK(sx_kernel_release(k));
    OK(sx_queue_release(q));
    OK(sx_context_release(c));

    /* Second processes: each one's first launch, cache warm and cold. */
    int procs = iters < 20 ? iters : 20;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            setenv("SX_CACHE", "0", 1);
        unsigned long long links = 0, hits = 0;
        for (int i = 0; i < procs; i++) {
            char cmd[4200];
            snprintf(cmd, sizeof(cmd), "'%s' 1 --child%s", argv[0],
                     ocl ? " --opencl" : cuda ? " --cuda" : native ? " --native" : "");
            FILE *p = popen(cmd, "r");
            unsigned long long x = 0, y = 0;
            if (!p || fscanf(p, "%lf %llu %llu", &v[i], &x, &y) != 3)
                v[i] = -1;
            if (p)
                pclose(p);
            links += x;
            hits += y;
        }
        fprintf(out, "  second process, first launch, %s %10.1f us  (%d processes: %llu links, %llu disk hits)\n",
                pass ? "persistent cache off   " : "persistent cache warm  ", median(v, procs), procs, links, hits);
    }
    fclose(out);
    fputs(name, stdout);
    free(name);
    free(v);
    sx_fini();
    sx_unregister_images(&l->desc);
    vf_lib_free(l);
    char rm[128];
    snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
    return system(rm) == 0 ? 0 : 1;
}
