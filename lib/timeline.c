/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* timeline.c: SX_TRACE=FILE.json, the Trace Event JSON timeline: each
 * thread appends finished spans ("ph":"X") to a buffer of its own, written
 * to the file with one write() when full, at thread exit, sx_fini and the
 * library's unloading (which also closes the JSON array). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sx-internal.h"
#include "timeline.h"

bool sxi_tl_on;
bool sxi_tl_file;
static void calibrate(void);

void sxi_tl_refresh(void)
{
    if (atomic_load_explicit(&sxi_log_level, memory_order_relaxed) >= SX_LOG_DEBUG)
        calibrate();
    sxi_tl_on = sxi_tl_file || atomic_load_explicit(&sxi_log_level, memory_order_relaxed) >= SX_LOG_DEBUG;
}

#define TL_BUF_SIZE (32u << 10)

typedef struct tl_buf {
    struct tl_buf *next;
    pthread_mutex_t lock; /* the owner appends, a flush from another thread writes */
    int tid;
    size_t len;
    char ids[48];   /* ","pid":P,"tid":T,"ts": */
    size_t ids_len;
    char data[TL_BUF_SIZE];
} tl_buf;

/* Lock order: list_lock, then a buffer's lock, then file_lock. */
static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER; /* the list of buffers */
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER; /* writes to the file */
static tl_buf *bufs;
static int fd = -1;
static int pid;
static void calibrate_once(void);
static uint64_t origin;       /* ticks when the timeline began */
static uint64_t ns_per_tick;  /* 32.32 fixed point */

/* The tick rate against CLOCK_MONOTONIC over 2 ms, once, when a timeline or
 * debug log turns on (x86-64: the TSC, which the kernel keeps in step
 * across CPUs where it uses it as its clock source). */
static void calibrate(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, calibrate_once);
}

uint64_t sxi_tl_ns(uint64_t ticks)
{
    if (!ns_per_tick)
        calibrate();
    uint64_t d = ticks > origin ? ticks - origin : 0;
    return (uint64_t)(((unsigned __int128)d * ns_per_tick) >> 32);
}
static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static __thread tl_buf *mine;

static void write_all(const char *p, size_t n)
{
    while (n && fd >= 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            sxi_tl_file = false; /* disk full or closed: stop tracing, keep running */
            sxi_tl_refresh();
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

/* Buffer lock held; takes the file lock. */
static void drain(tl_buf *b)
{
    if (!b->len)
        return;
    pthread_mutex_lock(&file_lock);
    write_all(b->data, b->len);
    pthread_mutex_unlock(&file_lock);
    b->len = 0;
}

static void calibrate_once(void)
{
    uint64_t n0 = sxi_now_ns(), t0 = sxi_tl_ticks();
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    uint64_t n1 = sxi_now_ns(), t1 = sxi_tl_ticks();
    uint64_t dt = t1 > t0 ? t1 - t0 : 1;
    ns_per_tick = (uint64_t)(((unsigned __int128)(n1 - n0) << 32) / dt);
    if (!ns_per_tick)
        ns_per_tick = 1;
    origin = t0;
}

static void thread_gone(void *p)
{
    tl_buf *b = p;
    pthread_mutex_lock(&list_lock);
    for (tl_buf **pp = &bufs; *pp; pp = &(*pp)->next)
        if (*pp == b) {
            *pp = b->next;
            break;
        }
    pthread_mutex_lock(&b->lock);
    drain(b);
    pthread_mutex_unlock(&b->lock);
    pthread_mutex_unlock(&list_lock);
    pthread_mutex_destroy(&b->lock);
    free(b);
    mine = NULL;
}

static void make_key(void) { pthread_key_create(&key, thread_gone); }

static void json_escape(char *out, size_t size, size_t *len, const char *s)
{
    size_t n = *len;
    for (; s && *s && n + 8 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            out[n++] = '\\';
            out[n++] = (char)c;
        } else if (c < 0x20) {
            n += (size_t)snprintf(out + n, size - n, "\\u%04x", c);
        } else
            out[n++] = (char)c;
    }
    *len = n;
}

static tl_buf *buffer(void)
{
    if (mine)
        return mine;
    tl_buf *b = malloc(sizeof(*b));
    if (!b)
        return NULL;
    pthread_mutex_init(&b->lock, NULL);
    b->tid = (int)syscall(SYS_gettid);
    b->len = 0;
    char name[32] = "";
    if (pthread_getname_np(pthread_self(), name, sizeof(name)) != 0 || !*name)
        snprintf(name, sizeof(name), "thread %d", b->tid);
    char esc[80];
    size_t el = 0;
    json_escape(esc, sizeof(esc), &el, name);
    esc[el] = 0;
    b->len = (size_t)snprintf(b->data, TL_BUF_SIZE,
                              "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s%s\"}},\n",
                              pid, b->tid, esc, b->tid == pid ? " (main)" : "");
    b->ids_len = (size_t)snprintf(b->ids, sizeof(b->ids), "\",\"pid\":%d,\"tid\":%d,\"ts\":", pid, b->tid);
    pthread_once(&key_once, make_key);
    pthread_setspecific(key, b);
    pthread_mutex_lock(&list_lock);
    b->next = bufs;
    bufs = b;
    pthread_mutex_unlock(&list_lock);
    mine = b;
    return b;
}

void sxi_tl_arg_str(sxi_tl_args *a, const char *k, const char *v)
{
    size_t n = a->len;
    if (n + strlen(k) + 8 >= sizeof(a->buf))
        return;
    n += (size_t)snprintf(a->buf + n, sizeof(a->buf) - n, "%s\"%s\":\"", n ? "," : "", k);
    json_escape(a->buf, sizeof(a->buf) - 2, &n, v ? v : "");
    a->buf[n++] = '"';
    a->buf[n] = 0;
    a->len = n;
}

void sxi_tl_arg_u64(sxi_tl_args *a, const char *k, uint64_t v)
{
    int w = snprintf(a->buf + a->len, sizeof(a->buf) - a->len, "%s\"%s\":%llu", a->len ? "," : "", k,
                     (unsigned long long)v);
    if (w > 0 && a->len + (size_t)w < sizeof(a->buf))
        a->len += (size_t)w;
    else
        a->buf[a->len] = 0;
}

void sxi_tl_arg_bool(sxi_tl_args *a, const char *k, bool v)
{
    int w = snprintf(a->buf + a->len, sizeof(a->buf) - a->len, "%s\"%s\":%s", a->len ? "," : "", k,
                     v ? "true" : "false");
    if (w > 0 && a->len + (size_t)w < sizeof(a->buf))
        a->len += (size_t)w;
    else
        a->buf[a->len] = 0;
}

void sxi_tl_arg_sizes(sxi_tl_args *a, const char *k, const size_t *v, uint32_t n)
{
    size_t l = a->len;
    int w = snprintf(a->buf + l, sizeof(a->buf) - l, "%s\"%s\":[", l ? "," : "", k);
    if (w <= 0 || l + (size_t)w + 2 >= sizeof(a->buf))
        return;
    l += (size_t)w;
    for (uint32_t i = 0; v && i < n && i < 3; i++) {
        w = snprintf(a->buf + l, sizeof(a->buf) - l, "%s%zu", i ? "," : "", v[i]);
        if (w <= 0 || l + (size_t)w + 2 >= sizeof(a->buf))
            return;
        l += (size_t)w;
    }
    a->buf[l++] = ']';
    a->buf[l] = 0;
    a->len = l;
}

/* The event writers: no printf on the launch path (a span costs about
 * what the empty launch does, bench/launch-ab with SX_AB_ENV_B). */
static char *put_mem(char *p, const char *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}
#define PUT_LIT(p, lit) put_mem((p), (lit), sizeof(lit) - 1)

static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

/* Nanoseconds as microseconds with three decimals (the format's unit). */
static char *put_us(char *p, uint64_t ns)
{
    p = put_u64(p, ns / 1000);
    unsigned f = (unsigned)(ns % 1000);
    *p++ = '.';
    *p++ = (char)('0' + f / 100);
    *p++ = (char)('0' + f / 10 % 10);
    *p++ = (char)('0' + f % 10);
    return p;
}

/* At most `max` bytes of s, JSON-escaped (control characters dropped). */
static char *put_esc(char *p, const char *s, size_t max)
{
    for (size_t i = 0; s && s[i] && i < max; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            *p++ = '\\';
        if (c >= 0x20)
            *p++ = (char)c;
    }
    return p;
}

/* Open an event in this thread's buffer with room for `need` more bytes:
 * {"name":"NAME","cat":"sx","ph":"X","pid":P,"tid":T,"ts":TS,"dur":DUR,"args":{
 * Returns where the arguments go (buffer locked), or NULL. */
static char *event_open(tl_buf **bp, uint64_t t0, const char *name, size_t need)
{
    uint64_t t1 = sxi_tl_ticks();
    tl_buf *b = buffer();
    if (!b)
        return NULL;
    *bp = b;
    uint64_t ts = sxi_tl_ns(t0), te = sxi_tl_ns(t1);
    pthread_mutex_lock(&b->lock);
    need += 160 + strlen(name);
    if (b->len + need > TL_BUF_SIZE)
        drain(b);
    if (need > TL_BUF_SIZE) {
        pthread_mutex_unlock(&b->lock);
        return NULL;
    }
    char *p = b->data + b->len;
    p = PUT_LIT(p, "{\"name\":\"");
    p = put_esc(p, name, 64);
    p = PUT_LIT(p, "\",\"cat\":\"sx\",\"ph\":\"X");
    p = put_mem(p, b->ids, b->ids_len);
    p = put_us(p, ts);
    p = PUT_LIT(p, ",\"dur\":");
    p = put_us(p, te > ts ? te - ts : 0);
    p = PUT_LIT(p, ",\"args\":{");
    return p;
}

static void event_close(tl_buf *b, char *p)
{
    p = PUT_LIT(p, "}},\n");
    b->len = (size_t)(p - b->data);
    pthread_mutex_unlock(&b->lock);
}

void sxi_tl_end(uint64_t t0, const char *name, const sxi_tl_args *args)
{
    if (!t0 || !sxi_tl_file)
        return;
    tl_buf *b;
    char *p = event_open(&b, t0, name, args ? args->len : 0);
    if (!p)
        return;
    if (args)
        p = put_mem(p, args->buf, args->len);
    event_close(b, p);
}

void sxi_tl_launch(uint64_t t0, const char *kernel, const char *device, uint32_t dims, const size_t *global,
                   const size_t *local, uint32_t num_args, int result)
{
    if (atomic_load_explicit(&sxi_log_level, memory_order_relaxed) >= SX_LOG_DEBUG) {
        size_t g[3] = {1, 1, 1}, l[3] = {0, 0, 0};
        for (uint32_t d = 0; d < dims && d < 3 && global; d++) {
            g[d] = global[d];
            l[d] = local ? local[d] : 0;
        }
        sxi_log(SX_LOG_DEBUG, "launch of '%s' on %s: %u dimension(s), global %zu,%zu,%zu, local %zu,%zu,%zu%s, %u "
                "argument(s): %s (%.1f us)", kernel, device, dims, g[0], g[1], g[2], l[0], l[1], l[2],
                local ? "" : " (the backend's choice)", num_args, sx_result_name((sx_result)result),
                (double)(sxi_tl_ns(sxi_tl_ticks()) - sxi_tl_ns(t0)) / 1000.0);
    }
    if (!sxi_tl_file)
        return;
    tl_buf *b;
    char *p = event_open(&b, t0, "launch", 2 * 256 + 3 * 2 * 22 + 120);
    if (!p)
        return;
    p = PUT_LIT(p, "\"kernel\":\"");
    p = put_esc(p, kernel, 256);
    p = PUT_LIT(p, "\",\"device\":\"");
    p = put_esc(p, device, 256);
    p = PUT_LIT(p, "\",\"dims\":");
    p = put_u64(p, dims);
    if (dims > 3)
        dims = 3;
    for (int which = 0; which < 2; which++) {
        const size_t *v = which ? local : global;
        if (!v)
            continue;
        p = which ? PUT_LIT(p, ",\"local\":[") : PUT_LIT(p, ",\"global\":[");
        for (uint32_t d = 0; d < dims; d++) {
            if (d)
                *p++ = ',';
            p = put_u64(p, v[d]);
        }
        *p++ = ']';
    }
    p = PUT_LIT(p, ",\"args\":");
    p = put_u64(p, num_args);
    if (result) {
        p = PUT_LIT(p, ",\"result\":\"");
        p = put_esc(p, sx_result_name((sx_result)result), 64);
        *p++ = '"';
    }
    event_close(b, p);
}

void sxi_tl_copy(uint64_t t0, const char *what, const char *device, size_t bytes, int blocking, int result)
{
    if (atomic_load_explicit(&sxi_log_level, memory_order_relaxed) >= SX_LOG_DEBUG)
        sxi_log(SX_LOG_DEBUG, "%s of %zu bytes on %s%s: %s", what, bytes, device, blocking ? " (blocking)" : "",
                sx_result_name((sx_result)result));
    if (!sxi_tl_file)
        return;
    tl_buf *b;
    char *p = event_open(&b, t0, what, 256 + 160);
    if (!p)
        return;
    p = PUT_LIT(p, "\"device\":\"");
    p = put_esc(p, device, 256);
    p = PUT_LIT(p, "\",\"bytes\":");
    p = put_u64(p, bytes);
    p = blocking ? PUT_LIT(p, ",\"blocking\":true") : PUT_LIT(p, ",\"blocking\":false");
    if (result) {
        p = PUT_LIT(p, ",\"result\":\"");
        p = put_esc(p, sx_result_name((sx_result)result), 64);
        *p++ = '"';
    }
    event_close(b, p);
}

void sxi_tl_simple(uint64_t t0, const char *name, const char *k, const char *v)
{
    sxi_tl_args a = {.len = 0};
    a.buf[0] = 0;
    if (k)
        sxi_tl_arg_str(&a, k, v);
    sxi_tl_end(t0, name, &a);
}

void sxi_tl_flush(void)
{
    if (fd < 0)
        return;
    pthread_mutex_lock(&list_lock);
    for (tl_buf *b = bufs; b; b = b->next) {
        pthread_mutex_lock(&b->lock);
        drain(b);
        pthread_mutex_unlock(&b->lock);
    }
    pthread_mutex_unlock(&list_lock);
}

static bool json_request(const char *v, const char **path)
{
    if (!v || !*v)
        return false;
    if (!strncmp(v, "json:", 5)) {
        *path = v + 5;
        return **path != 0;
    }
    size_t n = strlen(v);
    if (n > 5 && !strcmp(v + n - 5, ".json")) {
        *path = v;
        return true;
    }
    return false;
}

bool sxi_trace_text_wanted(void)
{
    const char *v = sxi_getenv("SX_TRACE"), *p;
    return v && *v && strcmp(v, "0") != 0 && !json_request(v, &p);
}

static void tl_open(const char *path);

static void child_after_fork(void)
{
    /* The child does not write into its parent's file. */
    sxi_tl_file = false;
    sxi_tl_refresh();
    if (fd >= 0)
        close(fd);
    fd = -1;
}

void sxi_tl_init_from_env(void)
{
    static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
    const char *v, *path;
    if (fd >= 0)
        return;
    pthread_mutex_lock(&init_lock);
    v = sxi_getenv("SX_TRACE");
    if (fd < 0 && json_request(v, &path))
        tl_open(path);
    pthread_mutex_unlock(&init_lock);
}

static void tl_open(const char *path)
{
    pid = (int)getpid();
    char file[4096];
    size_t n = 0;
    for (const char *s = path; *s && n + 24 < sizeof(file); s++) {
        if (s[0] == '%' && s[1] == 'p') {
            n += (size_t)snprintf(file + n, sizeof(file) - n, "%d", pid);
            s++;
        } else
            file[n++] = *s;
    }
    file[n] = 0;
    fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        SXI_LOG(SX_LOG_WARN, "SX_TRACE: cannot create the timeline file '%s': %s; no timeline", file, strerror(errno));
        return;
    }
    static bool once;
    if (!once) {
        once = true;
        pthread_atfork(NULL, NULL, child_after_fork);
    }
    calibrate();
    write_all("[\n", 2);
    sxi_tl_file = true;
    sxi_tl_refresh();
    SXI_LOG(SX_LOG_INFO, "SX_TRACE: writing the timeline to '%s' (Trace Event JSON)", file);
}

/* The library's unloading (or the process's exit): the rest, and the end
 * of the array, so the file is valid JSON. */
__attribute__((destructor)) static void tl_close(void)
{
    if (fd < 0)
        return;
    sxi_pcache_writer_stop(); /* its last cache writes are spans too */
    sxi_tl_file = false;
    sxi_tl_refresh();
    sxi_tl_flush();
    char end[160];
    int w = snprintf(end, sizeof(end),
                     "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"libsycl-ext\"}}\n]\n",
                     pid, pid);
    pthread_mutex_lock(&file_lock);
    write_all(end, (size_t)w);
    close(fd);
    fd = -1;
    pthread_mutex_unlock(&file_lock);
}
