/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* first-launch-parts: where the first launch of a one-image PTX kernel in a
 * fresh process goes, step by step (the driver's JIT cache warm), so that
 * bench/cuda/first-launch's ratio can be explained. Each sample is its own
 * forked child; the kinds take turns, the order turning each round:
 *   raw                 cuModuleLoadDataEx(PTX) | cuModuleGetFunction | cuLaunchKernel (NULL stream) | cuCtxSynchronize
 *   raw, own stream     launch on a CU_STREAM_NON_BLOCKING stream made before the clock, cuStreamSynchronize
 *                       (what the CUDA adapter does), also loading the cubin our persistent cache holds
 *   raw, cubin          the cubin on the NULL stream
 *   raw, own stream queried  the stream had a cuStreamQuery before the clock
 *   sx (traced)         our first launch with SX_TRACE: the time of each adapter call and of the
 *                       persistent cache's steps (pcache.dir, .key, .load), and what is left
 *   sx (untraced)       the same without the trace: the true total
 *   syscalls            the persistent cache's system calls one by one in a fresh process, and
 *                       the cost of a page fault there
 * Every kind also counts its page faults (minor + major) inside the clock,
 * and the pages it made present there, by mapping (pages_before/after).
 * Prints the median of each step per kind.
 * Usage: first-launch-parts [ROUNDS] */
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <cuda.h>

#include "../bench.h"
#include "set42.h"

enum { RAW, RAW_STREAM, RAW_STREAM_CUBIN, RAW_CUBIN, RAW_QUERIED, SX_OFF, SX_ON, SX_PLAIN, SYSCALLS, KINDS };
static const char *const kind_name[KINDS] = {"raw",
                                             "raw, own stream",
                                             "raw, own stream, cubin",
                                             "raw, cubin",
                                             "raw, own stream queried",
                                             "sx, cache off (traced)",
                                             "sx, cache (traced)",
                                             "sx, cache (untraced)",
                                             "syscalls"};
/* What each kind reports, us (faults: a count). Raw kinds: the driver
 * calls; sx: the adapter calls and the core's traced steps by their trace
 * names, the rest of the clock ("core, rest": untraced core work and the
 * trace's own output); syscalls: the persistent cache's system calls timed
 * one by one in a fresh process, the first time and again, and page faults. */
enum { STEPS = 19, PAGES = 12 }; /* PAGES: the first of the page counts (pages_*) */
#define PAGE_NAMES "pages: libsycl-ext", "sx-adapter-cuda", "libcuda", "other files", "heap", "stack", "anonymous"
static const char *const raw_step[STEPS] = {"load", "getfn", "launch", "sync", "total", "faults", [PAGES] = PAGE_NAMES};
static const char *const sx_step[STEPS] = {"pcache.dir",   "pcache.key",      "pcache.load", "program.create",
                                           "program.build", "kernel.create",  "enqueue.kernel_launch",
                                           "queue.finish",  "other calls",    "core, rest", "total", "faults",
                                           PAGE_NAMES};
static const char *const sys_step[STEPS] = {"stat dir",     "geteuid",      "lstat absent", "open entry",
                                            "fstat",        "read",         "close",        "again: stat dir",
                                            "again: open+fstat+read+close", "anon fault",   "file fault", "-"};
enum { SX_OTHER = 8, SX_REST = 9, SX_TOTAL = 10, SX_FAULTS = 11 };

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

static long faults_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt + ru.ru_majflt;
}

/* Which pages the clock made present, by mapping (/proc/self/pagemap's
 * present bit, which needs no privilege): where the page faults went. A
 * file fault maps its neighbours too (fault-around), so pages >= faults.
 * Mappings over 64 MiB (the driver's reserved address space) are left out. */
enum { MAX_MAPS = 4096, MAX_PAGES = 1 << 18 };
static struct {
    uintptr_t start, end;
    int group; /* 0-6 as PAGE_NAMES */
} maps[MAX_MAPS];
static int nmaps;
static uint64_t pm_before[MAX_PAGES], pm_after[MAX_PAGES];
static char maps_text[1 << 20];

static int page_group(const char *name)
{
    if (strstr(name, "libsycl-ext"))
        return 0;
    if (strstr(name, "sx-adapter-cuda"))
        return 1;
    if (strstr(name, "libcuda"))
        return 2;
    if (*name == '/')
        return 3;
    if (!strcmp(name, "[heap]"))
        return 4;
    if (!strcmp(name, "[stack]"))
        return 5;
    return 6;
}

/* Read the present bits of every kept mapping into `pm`; returns pages read. */
static size_t pages_read(uint64_t *pm)
{
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    size_t n = 0;
    long pg = sysconf(_SC_PAGESIZE);
    for (int i = 0; fd >= 0 && i < nmaps; i++) {
        size_t np = (maps[i].end - maps[i].start) / (size_t)pg;
        if (n + np > MAX_PAGES)
            break;
        if (pread(fd, pm + n, np * 8, (off_t)(maps[i].start / (size_t)pg * 8)) != (ssize_t)(np * 8))
            memset(pm + n, 0, np * 8);
        n += np;
    }
    if (fd >= 0)
        close(fd);
    return n;
}

static void pages_before(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    ssize_t len = fd >= 0 ? read(fd, maps_text, sizeof(maps_text) - 1) : -1;
    if (fd >= 0)
        close(fd);
    nmaps = 0;
    if (len <= 0)
        return;
    maps_text[len] = 0;
    for (char *line = maps_text; line && *line && nmaps < MAX_MAPS;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        unsigned long a, b;
        int off = 0;
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %n", &a, &b, &off) >= 2 && b > a && b - a <= (64ul << 20)) {
            maps[nmaps].start = a;
            maps[nmaps].end = b;
            maps[nmaps].group = page_group(off ? line + off : "");
            nmaps++;
        }
        line = next;
    }
    size_t n = pages_read(pm_before);
    memset(pm_after, 0, n * 8); /* touched now, not under the clock */
}

static void pages_after(double *part)
{
    size_t n = pages_read(pm_after), k = 0;
    long pg = sysconf(_SC_PAGESIZE);
    for (int g = 0; g < 7; g++)
        part[PAGES + g] = 0;
    for (int i = 0; i < nmaps; i++) {
        size_t np = (maps[i].end - maps[i].start) / (size_t)pg;
        for (size_t j = 0; j < np && k < n; j++, k++)
            if ((pm_after[k] >> 63) && !(pm_before[k] >> 63))
                part[PAGES + maps[i].group]++;
    }
}

static int raw(int kind, double *part)
{
    SYM(dtoh, cuMemcpyDtoH_v2);
    SYM(load, cuModuleLoadDataEx);
    SYM(getfn, cuModuleGetFunction);
    SYM(launch, cuLaunchKernel);
    SYM(sync, cuCtxSynchronize);
    SYM(screate, cuStreamCreate);
    SYM(ssync, cuStreamSynchronize);
    SYM(squery, cuStreamQuery);
    CUdeviceptr d;
    CUstream s = NULL;
    CU(set42_raw_setup(cu, &d));
    int own_stream = kind != RAW && kind != RAW_CUBIN;
    if (own_stream)
        CU(screate(&s, CU_STREAM_NON_BLOCKING));
    if (kind == RAW_QUERIED)
        CU(squery(s));
    double t[5];
    memset(part, 0, STEPS * sizeof(double));
    pages_before();
    long f0 = faults_now();
    t[0] = bench_now();
    CUmodule m;
    CUfunction fn;
    CU(load(&m, kind == RAW_CUBIN || kind == RAW_STREAM_CUBIN ? (const void *)cubin : set42_ptx, 0, NULL, NULL));
    t[1] = bench_now();
    CU(getfn(&fn, m, SET42_NAME));
    t[2] = bench_now();
    void *params[] = {&d};
    CU(launch(fn, 1, 1, 1, 1, 1, 1, 0, s, params, NULL));
    t[3] = bench_now();
    CU(own_stream ? ssync(s) : sync());
    t[4] = bench_now();
    long f1 = faults_now();
    for (int i = 0; i < 4; i++)
        part[i] = (t[i + 1] - t[i]) * 1e6;
    part[4] = (t[4] - t[0]) * 1e6;
    part[5] = (double)(f1 - f0);
    pages_after(part);
    int back = 0;
    CU(dtoh(&back, d, sizeof(back)));
    return back == 42 ? 0 : -1;
}

/* Sum the traced calls and steps after `from` in the trace file by name;
 * the names not in sx_step go to "other calls". */
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
        for (i = 0; i < SX_OTHER && strcmp(call, sx_step[i]) != 0; i++)
            ;
        part[i] += us;
    }
}

static int ours(int kind, double *part)
{
    if (kind == SX_OFF)
        setenv("SX_CACHE", "0", 1);
    if (kind != SX_PLAIN)
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
    int *d;
    CHECK(set42_sx_setup(&q, &d));
    long from = lseek(2, 0, SEEK_CUR);
    pages_before();
    long f0 = faults_now();
    double t0 = bench_now();
    CHECK(set42_sx_first_launch(q, d));
    double us = (bench_now() - t0) * 1e6;
    long f1 = faults_now();
    memset(part, 0, STEPS * sizeof(double));
    read_trace(f, from, part);
    double known = 0;
    for (int i = 0; i <= SX_OTHER; i++)
        known += part[i];
    part[SX_REST] = us - known;
    part[SX_TOTAL] = us;
    part[SX_FAULTS] = (double)(f1 - f0);
    pages_after(part);
    int back = 0;
    CHECK(sx_queue_memcpy(q, 1, &back, d, sizeof(back), 0, NULL, NULL));
    return back == 42 ? 0 : -1;
}

/* The persistent cache's system calls on a hit, one by one, in a fresh
 * process (the cache directory and its one entry, from the sx kinds). */
static int syscalls(double *part)
{
    const char *dir = getenv("SX_CACHE_DIR");
    char entry[4400] = "";
    DIR *dd = dir ? opendir(dir) : NULL;
    struct dirent *e;
    while (dd && (e = readdir(dd)))
        if (strlen(e->d_name) == 68 && strcmp(e->d_name + 64, ".bin") == 0)
            snprintf(entry, sizeof(entry), "%s/%s", dir, e->d_name);
    if (dd)
        closedir(dd);
    if (!*entry) {
        fprintf(stderr, "first-launch-parts: no cache entry in %s\n", dir ? dir : "(SX_CACHE_DIR unset)");
        return -1;
    }
    char absent[4400];
    snprintf(absent, sizeof(absent), "%s/.nobinary-none", dir);
    static unsigned char buf[1 << 20];
    struct stat st;
    double t[8];
    memset(part, 0, STEPS * sizeof(double));
    t[0] = bench_now();
    int ok = stat(dir, &st) == 0;
    t[1] = bench_now();
    volatile uid_t u = geteuid();
    (void)u;
    t[2] = bench_now();
    ok &= lstat(absent, &st) != 0;
    t[3] = bench_now();
    int fd = open(entry, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    t[4] = bench_now();
    ok &= fd >= 0 && fstat(fd, &st) == 0;
    t[5] = bench_now();
    ok &= read(fd, buf, sizeof(buf)) == st.st_size;
    t[6] = bench_now();
    close(fd);
    t[7] = bench_now();
    for (int i = 0; i < 7; i++)
        part[i] = (t[i + 1] - t[i]) * 1e6;
    t[0] = bench_now();
    ok &= stat(dir, &st) == 0;
    t[1] = bench_now();
    fd = open(entry, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    ok &= fd >= 0 && fstat(fd, &st) == 0 && read(fd, buf, sizeof(buf)) == st.st_size;
    close(fd);
    t[2] = bench_now();
    part[7] = (t[1] - t[0]) * 1e6;
    part[8] = (t[2] - t[1]) * 1e6;
    /* A page fault: 16 fresh anonymous pages (per page), then the first
     * touch of a fresh mapping of this program's file (in the page cache). */
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char *a = mmap(NULL, (size_t)pg * 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED)
        return -1;
    t[0] = bench_now();
    for (int i = 0; i < 16; i++)
        a[(size_t)i * (size_t)pg] = 1;
    t[1] = bench_now();
    part[9] = (t[1] - t[0]) * 1e6 / 16;
    int fdl = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    off_t len = fdl >= 0 ? lseek(fdl, 0, SEEK_END) : 0;
    long n = len / pg < 16 ? len / pg : 16;
    volatile unsigned char sink = 0;
    if (n > 0) {
        unsigned char *m = mmap(NULL, (size_t)(n * pg), PROT_READ, MAP_PRIVATE, fdl, 0);
        if (m != MAP_FAILED) {
            /* one fault (the kernel maps the neighbours in the page cache with it) */
            t[0] = bench_now();
            sink += m[0];
            t[1] = bench_now();
            part[10] = (t[1] - t[0]) * 1e6;
            munmap(m, (size_t)(n * pg));
        }
    }
    if (fdl >= 0)
        close(fdl);
    munmap(a, (size_t)pg * 16);
    return ok ? 0 : -1;
}

/* A sample's STEPS numbers, then its result code (in the child). */
static void sample_child(void *arg, double *p)
{
    int kind = *(const int *)arg;
    p[STEPS] = kind == SYSCALLS ? syscalls(p) : kind >= SX_OFF ? ours(kind, p) : raw(kind, p);
}

/* One sample in a forked child: its STEPS numbers through a pipe. */
static int sample(int kind, double *part)
{
    double p[STEPS + 1];
    if (bench_child_values(sample_child, &kind, p, STEPS + 1) != 0)
        return -1;
    int rc = (int)p[STEPS];
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
    /* The order turns by one kind each round: no kind always follows the same one. */
    for (int i = 0; i < rounds; i++)
        for (int j = 0; j < KINDS; j++) {
            int k = (i + j) % KINDS;
            if (sample(k, part) != 0) {
                fprintf(stderr, "first-launch-parts: a %s sample failed\n", kind_name[k]);
                return 1;
            }
            for (int s = 0; s < STEPS; s++)
                v[k][s][i] = part[s];
        }
    printf("first launch, step by step, medians of %d fresh processes (us; driver JIT cache warm):\n", rounds);
    for (int k = 0; k < KINDS; k++) {
        const char *const *names = k == SYSCALLS ? sys_step : k >= SX_OFF ? sx_step : raw_step;
        printf("  %s:\n   ", kind_name[k]);
        for (int s = 0; s < STEPS; s++)
            if (names[s] && strcmp(names[s], "-") != 0)
                printf(" %s %.1f;", names[s], bench_median(v[k][s], rounds));
        printf("\n");
    }
    return 0;
}
