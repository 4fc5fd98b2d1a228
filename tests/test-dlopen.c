/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-dlopen: libsycl-ext.so loads with dlopen into a running process (a
 * plugin, a Python extension), where static TLS is nearly gone: the core
 * must not use initial-exec thread-locals (its 4 KiB error buffer came
 * with them, and glibc refused the library: "cannot allocate memory in
 * static TLS block"). Then it initialises, reports an error through its
 * thread-local message on a second thread too, and finalises. Not linked
 * with the library on purpose. Usage: test-dlopen [LIBRARY] */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

static sx_result (*p_init)(uint32_t);
static sx_result (*p_fini)(void);
static sx_result (*p_queue_wait)(sx_queue);
static const char *(*p_last_error)(void);

/* A NULL queue: an error whose message lives in this thread's buffer. */
static void *use(void *arg)
{
    (void)arg;
    if (p_queue_wait(NULL) != SX_ERROR_INVALID_NULL_HANDLE || !strstr(p_last_error(), "queue")) {
        fprintf(stderr, "FAIL: sx_queue_wait(NULL) did not report the NULL queue: '%s'\n", p_last_error());
        return (void *)1;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    char path[4096];
    const char *b = getenv("SX_TEST_BUILDDIR");
    if (argc > 1)
        snprintf(path, sizeof(path), "%s", argv[1]);
    else
        snprintf(path, sizeof(path), "%s/lib/.libs/libsycl-ext.so.1", b ? b : ".");
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        fprintf(stderr, "FAIL: dlopen %s: %s\n", path, dlerror());
        return 1;
    }
    if (!(p_init = (sx_result(*)(uint32_t))dlsym(dl, "sx_init")) || !(p_fini = (sx_result(*)(void))dlsym(dl, "sx_fini")) ||
        !(p_queue_wait = (sx_result(*)(sx_queue))dlsym(dl, "sx_queue_wait")) ||
        !(p_last_error = (const char *(*)(void))dlsym(dl, "sx_last_error"))) {
        fprintf(stderr, "FAIL: %s lacks the public entry points\n", path);
        return 1;
    }
    if (p_init(0) != SX_SUCCESS) {
        fprintf(stderr, "FAIL: sx_init: %s\n", p_last_error());
        return 1;
    }
    pthread_t t;
    void *bad = NULL;
    if (use(NULL) || pthread_create(&t, NULL, use, NULL) != 0 || pthread_join(t, &bad) != 0 || bad)
        return 1;
    if (p_fini() != SX_SUCCESS) {
        fprintf(stderr, "FAIL: sx_fini: %s\n", p_last_error());
        return 1;
    }
    printf("PASS: %s loads with dlopen, initialises, reports errors per thread, finalises\n", path);
    return 0;
}
