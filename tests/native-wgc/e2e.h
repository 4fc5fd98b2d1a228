/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* e2e.h: what the native variant's end-to-end programs (wgc-e2e, simd-e2e,
 * vmath-e2e) share: the default native device's context and queue, USM,
 * launching a kernel of the loaded image by name, and comparing results.
 * The including file sets E2E_NAME (its name in messages) first. */
#ifndef SX_TESTS_NATIVE_WGC_E2E_H
#define SX_TESTS_NATIVE_WGC_E2E_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

static int failures;
static sx_context ctx;
static sx_device dev;
static sx_queue q;
static sx_image_file e2e_file;

static inline sx_arg ptr(uint32_t i, const void *p) { return (sx_arg){SX_ARG_POINTER, i, sizeof(void *), p}; }
static inline sx_arg val(uint32_t i, const void *p, size_t n) { return (sx_arg){SX_ARG_VALUE, i, n, p}; }

/* Zeroed shared USM, 128-byte aligned; exits on failure. */
static inline void *alloc(size_t n)
{
    void *p = NULL;
    if (sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, n, 128, &p) != SX_SUCCESS) {
        fprintf(stderr, "%s: usm alloc of %zu bytes: %s\n", E2E_NAME, n, sx_last_error());
        exit(1);
    }
    memset(p, 0, n);
    return p;
}

/* Runs kernel `name` and waits; 0 (a failure counted) if that fails. */
static inline int launch(const char *name, uint32_t dims, const size_t *off, const size_t *g, const size_t *l,
                         uint32_t n, const sx_arg *a)
{
    sx_kernel k;
    sx_result r = sx_kernel_get(name, &k);
    if (r == SX_SUCCESS) {
        r = sx_queue_launch(q, k, dims, off, g, l, n, a, 0, NULL, NULL);
        if (r == SX_SUCCESS)
            r = sx_queue_wait(q);
        sx_kernel_release(k);
    }
    if (r != SX_SUCCESS) {
        fprintf(stderr, "%s: FAIL %s: %s: %s\n", E2E_NAME, name, sx_result_name(r), sx_last_error());
        failures++;
        return 0;
    }
    return 1;
}

static inline void check_int(const char *name, const int *got, const int *want, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i]) {
            fprintf(stderr, "%s: FAIL %s: [%zu] = %d, expected %d\n", E2E_NAME, name, i, got[i], want[i]);
            failures++;
            return;
        }
    printf("ok %s\n", name);
}

/* Within tol relative to 1 + |want| (a NaN never is). */
static inline void check_float(const char *name, const float *got, const float *want, size_t n, float tol)
{
    for (size_t i = 0; i < n; i++)
        if (!(fabsf(got[i] - want[i]) <= tol * (1.0f + fabsf(want[i])))) {
            fprintf(stderr, "%s: FAIL %s: [%zu] = %.9g, expected %.9g\n", E2E_NAME, name, i, got[i], want[i]);
            failures++;
            return;
        }
    printf("ok %s\n", name);
}

/* Loads the image file and opens the default device's context and queue;
 * 0 after saying why if that fails. */
static inline int e2e_setup(const char *path)
{
    if (sx_image_file_load(path, &e2e_file) != SX_SUCCESS || sx_init(0) != SX_SUCCESS ||
        sx_device_get_default(&dev) != SX_SUCCESS || sx_context_create(1, &dev, &ctx) != SX_SUCCESS ||
        sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q) != SX_SUCCESS) {
        fprintf(stderr, "%s: setup: %s\n", E2E_NAME, sx_last_error());
        return 0;
    }
    return 1;
}

/* The exit status: 1 if anything failed. */
static inline int e2e_finish(void)
{
    sx_queue_release(q);
    sx_context_release(ctx);
    sx_image_file_release(e2e_file);
    sx_fini();
    return failures ? 1 : 0;
}

#endif
