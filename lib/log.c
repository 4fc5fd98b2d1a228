/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* log.c: the library's log: silent by default, SX_LOG sets the level,
 * lines go to stderr or to the application's callback. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sx-internal.h"

_Atomic sx_log_level sxi_log_level = SX_LOG_NONE;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static sx_log_callback log_cb;
static void *log_user;

SX_API sx_result sx_set_log_level(sx_log_level level)
{
    if (level > SX_LOG_DEBUG)
        return sxi_error(SX_ERROR_INVALID_ENUMERATION, "sx_set_log_level: level %u is past SX_LOG_DEBUG (%u)",
                         level, SX_LOG_DEBUG);
    atomic_store(&sxi_log_level, level);
    sxi_tl_refresh();
    return SX_SUCCESS;
}

SX_API sx_result sx_set_log_callback(sx_log_callback callback, void *user_data)
{
    pthread_mutex_lock(&log_lock);
    log_cb = callback;
    log_user = user_data;
    pthread_mutex_unlock(&log_lock);
    return SX_SUCCESS;
}

static const char *level_name(sx_log_level l)
{
    static const char *names[] = {"none", "error", "warn", "info", "debug"};
    return l <= SX_LOG_DEBUG ? names[l] : "?";
}

void sxi_log_emit(sx_log_level level, const char *line)
{
    pthread_mutex_lock(&log_lock);
    if (log_cb)
        log_cb(level, line, log_user);
    else
        fprintf(stderr, "sycl-ext %s: %s\n", level_name(level), line);
    pthread_mutex_unlock(&log_lock);
}

void sxi_vlog(sx_log_level level, const char *fmt, va_list ap)
{
    if (atomic_load(&sxi_log_level) < level)
        return;
    char line[2048];
    vsnprintf(line, sizeof(line), fmt, ap);
    sxi_log_emit(level, line);
}

void sxi_log(sx_log_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sxi_vlog(level, fmt, ap);
    va_end(ap);
}

static void sxi_log_init_env(void);

void sxi_log_init_from_env(void)
{
    sxi_log_init_env();
    sxi_tl_refresh();
}

static void sxi_log_init_env(void)
{
    const char *v = sxi_getenv("SX_LOG");
    if (!v || !*v)
        return;
    static const struct { const char *name; sx_log_level level; } map[] = {
        {"none", SX_LOG_NONE}, {"error", SX_LOG_ERROR}, {"warn", SX_LOG_WARN},
        {"info", SX_LOG_INFO}, {"debug", SX_LOG_DEBUG},
    };
    for (size_t i = 0; i < SXI_ARRAY_SIZE(map); i++)
        if (strcmp(v, map[i].name) == 0) {
            atomic_store(&sxi_log_level, map[i].level);
            return;
        }
    if (v[0] >= '0' && v[0] <= '4' && !v[1]) {
        atomic_store(&sxi_log_level, (sx_log_level)(v[0] - '0'));
        return;
    }
    atomic_store(&sxi_log_level, SX_LOG_WARN);
    sxi_log(SX_LOG_WARN, "SX_LOG='%s' is not none/error/warn/info/debug or 0-4: using warn", v);
}

uint64_t sxi_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
