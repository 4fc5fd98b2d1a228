/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* trace.c: libsycl-ext-trace's runtime: resolving the real functions with
 * dlsym(RTLD_NEXT), the on/off switch, the output and the argument printers. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "trace/trace.h"

int sxt_fast;
static int enabled;
static int out_fd = 2;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static _Thread_local int depth;
static const char *(*real_result_name)(sx_result);
static const char *(*real_last_error)(void);

/* A real function that is missing (the trace preloaded in front of a
 * program without libsycl-ext) must not be called through NULL; say so
 * once, at the first such call, not at load: preloading the layer into
 * every process of a shell is common and must stay silent. */
static void say_missing(void)
{
    static atomic_flag said = ATOMIC_FLAG_INIT;
    static const char msg[] = "sx-trace: libsycl-ext not found behind the trace layer: sx_ calls fail\n";
    if (!atomic_flag_test_and_set(&said) && write(out_fd, msg, sizeof msg - 1) < 0) {
        /* nowhere to report it */
    }
}
static sx_result missing(void)
{
    say_missing();
    return SX_ERROR_UNINITIALIZED;
}
static const char *missing_str(void)
{
    say_missing();
    return "";
}

static const char *getenv_safe(const char *name)
{
#ifdef HAVE_SECURE_GETENV
    return secure_getenv(name);
#else
    return getenv(name);
#endif
}

static void resolve(void)
{
    for (size_t i = 0; i < sxt_num_entries; i++) {
        void *f = dlsym(RTLD_NEXT, sxt_entries[i].name);
        /* Every sx_ function returns sx_result except three string getters,
         * which are looked up again below and never NULL afterwards. */
        if (!f)
            f = sxt_entries[i].returns_string ? (void *)missing_str : (void *)missing;
        *sxt_entries[i].real = f;
    }
    void *f = dlsym(RTLD_NEXT, "sx_result_name");
    memcpy(&real_result_name, &f, sizeof(f));
    f = dlsym(RTLD_NEXT, "sx_last_error");
    memcpy(&real_last_error, &f, sizeof(f));
    const char *on = getenv_safe("SX_TRACE_API");
    /* Preloading the layer is the opt-in: on unless SX_TRACE_API=0. */
    enabled = !(on && strcmp(on, "0") == 0);
    const char *file = getenv_safe("SX_TRACE_FILE");
    if (enabled && file && *file) {
        int fd = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd >= 0)
            out_fd = fd;
    }
    __atomic_store_n(&sxt_fast, !enabled, __ATOMIC_RELEASE);
}

/* Resolve at load, so the common case never reaches pthread_once. */
__attribute__((constructor)) static void sxt_init(void)
{
    pthread_once(&once, resolve);
}

int sxt_enter(void)
{
    pthread_once(&once, resolve);
    if (!enabled || depth)
        return 0;
    depth++;
    return 1;
}

uint64_t sxt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *sxt_result_name(sx_result r)
{
    return real_result_name ? real_result_name(r) : "?";
}

void sxt_put(sxt_line *l, const char *fmt, ...)
{
    if (l->len >= sizeof l->buf - 1)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        l->len += (size_t)n < sizeof l->buf - l->len ? (size_t)n : sizeof l->buf - 1 - l->len;
}

void sxt_begin(sxt_line *l, const char *fn)
{
    l->len = 0;
    sxt_put(l, "sx-trace %ld %s(", (long)syscall(SYS_gettid), fn);
}

void sxt_ptr(sxt_line *l, const void *p)
{
    if (p)
        sxt_put(l, "%p", p);
    else
        sxt_put(l, "NULL");
}

void sxt_fnptr(sxt_line *l, void (*p)(void))
{
    void *v;
    memcpy(&v, &p, sizeof v);
    sxt_ptr(l, v);
}

/* Quoted, escaped and cut at 96 characters: kernel names, ids, paths. */
void sxt_str(sxt_line *l, const char *s)
{
    if (!s) {
        sxt_put(l, "NULL");
        return;
    }
    sxt_put(l, "\"");
    size_t i = 0;
    for (; s[i] && i < 96; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            sxt_put(l, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            sxt_put(l, "\\x%02x", c);
        else
            sxt_put(l, "%c", c);
    }
    sxt_put(l, s[i] ? "\"..." : "\"");
}

#define SXT_MAX_ELEMS 8u

void sxt_ptrs(sxt_line *l, const void *const *v, uint32_t n)
{
    if (!v) {
        sxt_put(l, "NULL");
        return;
    }
    sxt_put(l, "[");
    for (uint32_t i = 0; i < n && i < SXT_MAX_ELEMS; i++) {
        sxt_put(l, i ? ", " : "");
        sxt_ptr(l, v[i]);
    }
    sxt_put(l, n > SXT_MAX_ELEMS ? ", ...]" : "]");
}

void sxt_sizes(sxt_line *l, const size_t *v, uint32_t n)
{
    if (!v) {
        sxt_put(l, "NULL");
        return;
    }
    sxt_put(l, "{");
    for (uint32_t i = 0; i < n && i < 3; i++)
        sxt_put(l, "%s%zu", i ? ", " : "", v[i]);
    sxt_put(l, n > 3 ? ", ...}" : "}");
}

void sxt_args(sxt_line *l, const sx_arg *v, uint32_t n)
{
    if (!v) {
        sxt_put(l, "NULL");
        return;
    }
    sxt_put(l, "[");
    for (uint32_t i = 0; i < n && i < SXT_MAX_ELEMS; i++) {
        const sx_arg *a = &v[i];
        sxt_put(l, "%s#%u ", i ? ", " : "", a->index);
        switch (a->type) {
        case SX_ARG_POINTER:
            sxt_put(l, "ptr ");
            sxt_ptr(l, a->value);
            break;
        case SX_ARG_LOCAL:
            sxt_put(l, "local %zu", a->size);
            break;
        case SX_ARG_VALUE:
            sxt_put(l, "value %zu", a->size);
            /* Small scalars print their value: what a reader wants to see. */
            if (a->value && a->size == 4) {
                uint32_t x;
                memcpy(&x, a->value, 4);
                sxt_put(l, " (0x%08x)", (unsigned)x);
            } else if (a->value && a->size == 8) {
                uint64_t x;
                memcpy(&x, a->value, 8);
                sxt_put(l, " (0x%016llx)", (unsigned long long)x);
            }
            break;
        default:
            sxt_put(l, "type %u size %zu", a->type, a->size);
        }
    }
    sxt_put(l, n > SXT_MAX_ELEMS ? ", ...]" : "]");
}

void sxt_binaries(sxt_line *l, const sx_device_binaries *b)
{
    sxt_ptr(l, b);
    if (b)
        sxt_put(l, " {version %u, %u image(s)}", b->version, b->num_device_binaries);
}

void sxt_launch_props(sxt_line *l, const sx_launch_properties *p)
{
    sxt_ptr(l, p);
    if (p && p->size >= sizeof(*p))
        sxt_put(l, " {scratch %zu}", p->work_group_scratch_size);
}

void sxt_end(sxt_line *l, uint64_t ns, int failed)
{
    sxt_put(l, " (%.3f us)", (double)ns / 1000.0);
    if (failed && real_last_error) {
        const char *e = real_last_error();
        if (e && *e)
            sxt_put(l, ": %s", e);
    }
    if (l->len >= sizeof l->buf - 1)
        l->len = sizeof l->buf - 2;
    l->buf[l->len++] = '\n';
    const char *p = l->buf;
    size_t left = l->len;
    while (left) {
        ssize_t w = write(out_fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break;
        p += w;
        left -= (size_t)w;
    }
    depth--;
}
