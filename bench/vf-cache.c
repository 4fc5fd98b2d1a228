/* vf-cache.c: what linking virtual-function images costs at a kernel's
 * first launch, and what the caches save: first launch (resolve + link),
 * cached launch, another kernel of the same image (in-memory program
 * cache), first launch from the persistent cache, and a second process's
 * first launch. On the fake TEST adapter (the native adapter cannot link
 * yet), so the numbers are the core's own overhead: resolution, hashing,
 * cache files; a real backend's link time adds to the uncached case only.
 * Usage: vf-cache [ITERATIONS]  (SX_TEST_BUILDDIR: the build tree) */
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
    OK(sx_queue_launch(q, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
    double t = now_us() - t0;
    if (then) { /* another kernel of the same image, after the first */
        OK(sx_kernel_get(then, &k2));
        t0 = now_us();
        OK(sx_queue_launch(q, k2, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
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

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    int iters = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 200;
    bool child = argc > 2 && strcmp(argv[2], "--child") == 0;
    if (!getenv("SX_ADAPTERS")) {
        const char *b = getenv("SX_TEST_BUILDDIR");
        char path[4096];
        snprintf(path, sizeof(path), "%s/tests/fake/.libs/fake-good.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
    char dir[] = "/tmp/sx-vf-bench-XXXXXX";
    if (!child) {
        if (!mkdtemp(dir))
            return 1;
        setenv("SX_CACHE_DIR", dir, 1);
    }
    vf_lib *l = vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
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
    fprintf(out, "vf-cache: fake adapter, 'construct' links 3 images (kernel, default set, set_fp64's dummy); medians of %d\n",
            iters);

    setenv("SX_CACHE", "0", 1);
    for (int i = 0; i < iters; i++)
        v[i] = first_launch("construct", NULL);
    fprintf(out, "  first launch, resolve + link (persistent cache off) %9.1f us\n", median(v, iters));
    for (int i = 0; i < iters; i++)
        v[i] = first_launch("use", "use_again");
    fprintf(out, "  other kernel of a linked image (in-memory hit)      %9.1f us\n", median(v, iters));

    unsetenv("SX_CACHE");
    first_launch("construct", NULL); /* writes the entry */
    for (int i = 0; i < iters; i++)
        v[i] = first_launch("construct", NULL);
    sxi_program_stats s;
    sxi_program_stats_get(&s);
    fprintf(out, "  first launch from the persistent cache              %9.1f us  (disk hits %llu)\n", median(v, iters),
            (unsigned long long)s.disk_hits);

    /* Cached launch: the kernel slot, one lookup. */
    sx_context c;
    sx_queue q;
    sx_kernel k;
    size_t g = 1;
    OK(sx_context_create(1, &dev, &c));
    OK(sx_queue_create(c, dev, 0, &q));
    OK(sx_kernel_get("construct", &k));
    OK(sx_queue_launch(q, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
    int n = iters * 500;
    double t0 = now_us();
    for (int i = 0; i < n; i++)
        OK(sx_queue_launch(q, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
    fprintf(out, "  cached launch (same kernel, context, device)        %9.3f us  (%d launches)\n", (now_us() - t0) / n,
            n);
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
            snprintf(cmd, sizeof(cmd), "'%s' 1 --child", argv[0]);
            FILE *p = popen(cmd, "r");
            unsigned long long a = 0, b = 0;
            if (!p || fscanf(p, "%lf %llu %llu", &v[i], &a, &b) != 3)
                v[i] = -1;
            if (p)
                pclose(p);
            links += a;
            hits += b;
        }
        fprintf(out, "  second process, first launch, %s %9.1f us  (%d processes: %llu links, %llu disk hits)\n",
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
