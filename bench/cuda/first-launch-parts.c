/* first-launch-parts: where the first launch of a one-image PTX kernel in a
 * fresh process goes, step by step (the driver's JIT cache warm), so that
 * bench/cuda/first-launch's ratio can be explained. Each sample is its own
 * forked child; the kinds alternate round by round:
 *   raw                 cuModuleLoadDataEx(PTX) | cuModuleGetFunction | - | cuLaunchKernel (NULL stream) | cuCtxSynchronize
 *   raw + attributes    the same with the queries kernel_create used to make (3 cuFuncGetAttribute, cuFuncGetParamInfo)
 *   raw + param info    the same with cuFuncGetParamInfo alone
 *   raw, own stream     launch on a CU_STREAM_NON_BLOCKING stream made before the clock, cuStreamSynchronize
 *                       (what the CUDA adapter does), also loading the cubin our persistent cache holds
 *   attrs, own stream   both: the driver calls the adapter made up to issue 16, also from the cubin
 *   raw, eager loading  raw with CUDA_MODULE_LOADING=EAGER (where lazy loading puts the kernel's load)
 *   attrs, stream queried / used   the stream had a cuStreamQuery, or a 4-byte memset and a
 *                       synchronize, before the clock (does a stream's first command pay for it?)
 *   sx (traced)         our first launch with SX_TRACE: the time of each adapter call, and what is left (the core)
 * Prints the median of each step per kind.
 * Usage: first-launch-parts [ROUNDS] */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "../bench.h"
#include "set42.h"

enum { RAW, RAW_ATTR, RAW_PINFO, RAW_STREAM, RAW_STREAM_CUBIN, RAW_ADAPTER, RAW_CUBIN, RAW_EAGER, RAW_QUERIED, RAW_USED,
       SX_OFF, SX_ON, KINDS };
static const char *const kind_name[KINDS] = {"raw",
                                             "raw + attributes",
                                             "raw + param info only",
                                             "raw, own stream",
                                             "raw, own stream, cubin",
                                             "attrs, own stream",
                                             "attrs, own stream, cubin",
                                             "raw, eager loading",
                                             "attrs, stream queried",
                                             "attrs, stream used",
                                             "sx, cache off",
                                             "sx, cache"};
enum { STEPS = 6 };
static const char *const raw_step[STEPS] = {"load", "getfn", "attrs", "launch", "sync", "total"};
static const char *const sx_step[STEPS] = {"program.build", "kernel.create", "enqueue.kernel_launch", "queue.finish",
                                           "core (rest)", "total"};

static unsigned char *cubin;
static size_t cubin_size;

#define CU(call) SET42_CU(call)

static void *cu;
#define SYM(name, real) SET42_SYM(cu, name, real)

/* The cubin of the PTX (what get_binary gives the persistent cache). */
static int make_cubin(void)
{
    SYM(lcreate, cuLinkCreate_v2);
    SYM(ladd, cuLinkAddData_v2);
    SYM(lcomplete, cuLinkComplete);
    CUdeviceptr d;
    CUlinkState ls;
    void *out;
    size_t n;
    CU(set42_raw_setup(cu, &d));
    CU(lcreate(0, NULL, NULL, &ls));
    CU(ladd(ls, CU_JIT_INPUT_PTX, (void *)set42_ptx, sizeof(set42_ptx), "set42", 0, NULL, NULL));
    CU(lcomplete(ls, &out, &n));
    cubin = malloc(n);
    memcpy(cubin, out, n);
    cubin_size = n;
    return 0;
}

static int raw(int kind, double *part)
{
    SYM(dtoh, cuMemcpyDtoH_v2);
    SYM(load, cuModuleLoadDataEx);
    SYM(getfn, cuModuleGetFunction);
    SYM(attr, cuFuncGetAttribute);
    SYM(pinfo, cuFuncGetParamInfo);
    SYM(launch, cuLaunchKernel);
    SYM(sync, cuCtxSynchronize);
    SYM(screate, cuStreamCreate);
    SYM(ssync, cuStreamSynchronize);
    CUdeviceptr d;
    CUstream s = NULL;
    CU(set42_raw_setup(cu, &d));
    SYM(squery, cuStreamQuery);
    SYM(memset32, cuMemsetD32Async);
    int own_stream = kind != RAW && kind != RAW_ATTR && kind != RAW_PINFO && kind != RAW_EAGER;
    int attrs = kind != RAW && kind != RAW_STREAM && kind != RAW_STREAM_CUBIN && kind != RAW_EAGER;
    if (own_stream)
        CU(screate(&s, CU_STREAM_NON_BLOCKING));
    if (kind == RAW_QUERIED)
        CU(squery(s));
    if (kind == RAW_USED) {
        CU(memset32(d, 0, 1, s));
        CU(ssync(s));
    }
    double t[STEPS];
    t[0] = bench_now();
    CUmodule m;
    CUfunction fn;
    CU(load(&m, kind == RAW_CUBIN || kind == RAW_STREAM_CUBIN ? (const void *)cubin : set42_ptx, 0, NULL, NULL));
    t[1] = bench_now();
    CU(getfn(&fn, m, SET42_NAME));
    t[2] = bench_now();
    if (attrs && kind != RAW_PINFO) {
        int v;
        CU(attr(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn));
        CU(attr(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn));
        CU(attr(&v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, fn));
    }
    if (attrs) {
        size_t off, sz;
        for (unsigned i = 0; pinfo && pinfo(fn, i, &off, &sz) == CUDA_SUCCESS; i++)
            ;
    }
    t[3] = bench_now();
    void *params[] = {&d};
    CU(launch(fn, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
    t[4] = bench_now();
    CU(own_stream ? ssync(s) : sync());
    t[5] = bench_now();
    for (int i = 0; i < STEPS - 1; i++)
        part[i] = (t[i + 1] - t[i]) * 1e6;
    part[STEPS - 1] = (t[5] - t[0]) * 1e6;
    int back = 0;
    CU(dtoh(&back, d, sizeof(back)));
    return back == 42 ? 0 : -1;
}

/* Sum the traced adapter calls after `from` in the trace file, by name. */
static void read_trace(FILE *f, long from, double *part)
{
    char line[1024];
    fseek(f, from, SEEK_SET);
    while (fgets(line, sizeof(line), f)) {
        const char *tr = strstr(line, "trace cuda ");
        if (!tr)
            continue;
        char call[128];
        double us;
        const char *paren = strrchr(tr, '(');
        if (sscanf(tr, "trace cuda %127s", call) != 1 || !paren || sscanf(paren, "(%lf us)", &us) != 1)
            continue;
        int i;
        for (i = 0; i < 4 && strcmp(call, sx_step[i]) != 0; i++)
            ;
        part[i] += us; /* anything else: the core's share (printed as such) */
    }
}

static int ours(int kind, double *part)
{
    if (kind == SX_OFF)
        setenv("SX_CACHE", "0", 1);
    setenv("SX_TRACE", "1", 1);
    /* The trace goes to a file; failures to the real stderr. */
    static int err;
    err = dup(2);
    FILE *f = tmpfile();
    if (err < 0 || !f || dup2(fileno(f), 2) < 0)
        return -1;
#undef CHECK
#define CHECK(call)                                                                                 \
    do {                                                                                            \
        sx_result r_ = (call);                                                                      \
        if (r_ != SX_SUCCESS) {                                                                     \
            dup2(err, 2);                                                                           \
            fprintf(stderr, "%s: %s: %s\n", #call, sx_result_name(r_), sx_last_error());            \
            return -1;                                                                              \
        }                                                                                           \
    } while (0)
    sx_queue q;
    sx_kernel k;
    int *d;
    CHECK(set42_sx_setup(&q, &d));
    long from = lseek(2, 0, SEEK_CUR);
    double t0 = bench_now();
    CHECK(sx_kernel_get(SET42_NAME, &k));
    sx_arg arg = {SX_ARG_POINTER, 0, sizeof(void *), d};
    size_t one = 1;
    CHECK(sx_queue_launch(q, k, 1, NULL, &one, &one, 1, &arg, 0, NULL, NULL));
    CHECK(sx_queue_wait(q));
    double us = (bench_now() - t0) * 1e6;
    memset(part, 0, STEPS * sizeof(double));
    read_trace(f, from, part);
    part[STEPS - 2] = us - (part[0] + part[1] + part[2] + part[3]);
    part[STEPS - 1] = us;
    int back = 0;
    CHECK(sx_queue_memcpy(q, 1, &back, d, sizeof(back), 0, NULL, NULL));
    return back == 42 ? 0 : -1;
}

/* One sample in a forked child: its STEPS numbers through a pipe. */
static int sample(int kind, double *part)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        if (kind == RAW_EAGER)
            setenv("CUDA_MODULE_LOADING", "EAGER", 1);
        double p[STEPS + 1];
        p[STEPS] = kind >= SX_OFF ? ours(kind, p) : raw(kind, p);
        _exit(write(fd[1], p, sizeof(p)) == sizeof(p) ? 0 : 1);
    }
    close(fd[1]);
    double p[STEPS + 1];
    int rc = pid > 0 && read(fd[0], p, sizeof(p)) == sizeof(p) ? (int)p[STEPS] : -1;
    close(fd[0]);
    int st;
    if (pid > 0)
        waitpid(pid, &st, 0);
    if (rc == 0)
        memcpy(part, p, STEPS * sizeof(double));
    return rc;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    if (rounds < 1 || rounds > 1000)
        return 2;
    set42_adapter_env();
    unsetenv("CUDA_CACHE_DISABLE");
    unsetenv("SX_CACHE");
    unsetenv("SX_TRACE");
    if (!(cu = dlopen("libcuda.so.1", RTLD_NOW))) {
        printf("SKIP: no CUDA driver\n");
        return 77;
    }
    /* The cubin is made in a child too: the parent must not hold a
     * context across fork. */
    int fd[2];
    if (pipe(fd) != 0)
        return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        if (make_cubin() != 0)
            _exit(1);
        _exit(write(fd[1], &cubin_size, sizeof(cubin_size)) == sizeof(cubin_size) &&
                      write(fd[1], cubin, cubin_size) == (ssize_t)cubin_size
                  ? 0
                  : 1);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    if (!in || fread(&cubin_size, sizeof(cubin_size), 1, in) != 1 || !(cubin = malloc(cubin_size)) ||
        fread(cubin, 1, cubin_size, in) != cubin_size) {
        printf("SKIP: no CUDA GPU (no cubin)\n");
        return 77;
    }
    fclose(in);
    waitpid(pid, NULL, 0);
    double (*v)[STEPS][1000] = calloc(KINDS, sizeof(*v));
    double part[STEPS];
    for (int k = 0; k < KINDS; k++) /* warms the driver's JIT cache and ours */
        if (sample(k, part) != 0) {
            fprintf(stderr, "first-launch-parts: %s failed\n", kind_name[k]);
            return 1;
        }
    for (int i = 0; i < rounds; i++)
        for (int k = 0; k < KINDS; k++) {
            if (sample(k, part) != 0) {
                fprintf(stderr, "first-launch-parts: a %s sample failed\n", kind_name[k]);
                return 1;
            }
            for (int s = 0; s < STEPS; s++)
                v[k][s][i] = part[s];
        }
    printf("first launch, step by step, medians of %d fresh processes (us; driver JIT cache warm):\n", rounds);
    for (int k = 0; k < KINDS; k++) {
        printf("  %-26s", kind_name[k]);
        for (int s = 0; s < STEPS; s++)
            printf(" %s %7.1f", k >= SX_OFF ? sx_step[s] : raw_step[s], bench_median(v[k][s], rounds));
        printf("\n");
    }
    return 0;
}
