/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bridge.c: libsycl-ext-dpcpp.so, DPC++'s __sycl_register_lib and
 * __sycl_unregister_lib handing every descriptor to libsycl-ext and passing
 * the call on to the next definition (DPC++'s libsycl.so) when there is one. */
#include "config.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sycl-ext/binaries.h>
#include <sycl-ext/dpcpp.h>
#include <sycl-ext/sx.h>

typedef void (*reg_fn)(void *);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* The descriptors libsycl-ext holds: unregistration is by pointer, so
 * modules may go in any order. */
static const void **held;
static size_t num_held, cap_held;
static sx_dpcpp_bridge_stats stats;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The definition the calling module would have bound to without us:
 * the next one in the global scope (a program linked with libsycl.so), or
 * else the one in the caller's own dependencies (a module dlopen'd with
 * RTLD_LOCAL, such as a Python extension, whose libsycl.so is not global).
 * SX_DPCPP_FORWARD=0 keeps DPC++'s runtime out. */
static reg_fn next(const char *name, void *self, const void *caller)
{
    const char *f = getenv("SX_DPCPP_FORWARD");
    if (f && strcmp(f, "0") == 0)
        return NULL;
    void *p = dlsym(RTLD_NEXT, name);
    if (p && p != self)
        return (reg_fn)(uintptr_t)p;
    Dl_info info;
    if (!caller || !dladdr(caller, &info) || !info.dli_fname)
        return NULL;
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    p = dlsym(h, name);
    dlclose(h); /* NOLOAD took a reference; the module stays loaded */
    return p && p != self ? (reg_fn)(uintptr_t)p : NULL;
}

SX_DPCPP_API void __sycl_register_lib(void *descriptor)
{
    const sx_device_binaries *desc = descriptor;
    /* Looked up outside our lock: it may take the loader's. */
    reg_fn f = next("__sycl_register_lib", (void *)(uintptr_t)__sycl_register_lib, __builtin_return_address(0));
    uint64_t t0 = now_ns();
    sx_result r = sx_register_images(desc);
    uint64_t dt = now_ns() - t0;
    pthread_mutex_lock(&lock);
    stats.register_ns += dt;
    if (r == SX_SUCCESS) {
        if (num_held == cap_held) {
            size_t cap = cap_held ? cap_held * 2 : 16;
            const void **n = realloc(held, cap * sizeof(*n));
            if (!n) {
                /* Cannot remember it: give it back rather than leak it at unload. */
                pthread_mutex_unlock(&lock);
                sx_unregister_images(desc);
                pthread_mutex_lock(&lock);
                r = SX_ERROR_OUT_OF_HOST_MEMORY;
            } else {
                held = n;
                cap_held = cap;
            }
        }
    }
    if (r == SX_SUCCESS) {
        held[num_held++] = desc;
        stats.registered++;
        stats.registered_images += desc->num_device_binaries;
        stats.registrations++;
    } else {
        stats.refused++;
        const char *why = r == SX_ERROR_OUT_OF_HOST_MEMORY ? "out of memory" : sx_last_error();
        strncpy(stats.last_error, why ? why : sx_result_name(r), sizeof(stats.last_error) - 1);
    }
    if (f)
        stats.forwarded++;
    pthread_mutex_unlock(&lock);
    if (f)
        f(descriptor);
}

SX_DPCPP_API void __sycl_unregister_lib(void *descriptor)
{
    const sx_device_binaries *desc = descriptor;
    reg_fn f = next("__sycl_unregister_lib", (void *)(uintptr_t)__sycl_unregister_lib, __builtin_return_address(0));
    bool ours = false;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < num_held; i++)
        if (held[i] == desc) {
            held[i] = held[--num_held];
            ours = true;
            break;
        }
    if (ours) {
        stats.registered--;
        stats.registered_images -= desc->num_device_binaries;
        stats.unregistrations++;
    }
    if (num_held == 0) {
        free(held);
        held = NULL;
        cap_held = 0;
    }
    if (f)
        stats.forwarded++;
    pthread_mutex_unlock(&lock);
    /* DPC++'s runtime first: it registered last, and its data may refer to
     * nothing of ours, but keep the usual reverse order anyway. */
    if (f)
        f(descriptor);
    if (ours)
        sx_unregister_images(desc);
}

SX_DPCPP_API sx_result sx_dpcpp_bridge_get_stats(sx_dpcpp_bridge_stats *out)
{
    if (!out)
        return SX_ERROR_INVALID_NULL_POINTER;
    if (out->size < sizeof(*out))
        return SX_ERROR_INVALID_SIZE;
    pthread_mutex_lock(&lock);
    *out = stats;
    pthread_mutex_unlock(&lock);
    out->size = sizeof(*out);
    return SX_SUCCESS;
}
