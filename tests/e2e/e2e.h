/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* e2e.h: setup shared by the end-to-end suites: the native adapter alone
 * (or $SX_E2E_ADAPTERS: tools/gpu-check.sh runs them on the CUDA adapter
 * through proptool's PTX variant), an image file made by proptool, a
 * context and an in-order queue. */
#ifndef SX_E2E_H
#define SX_E2E_H

#include <string.h>

#include "../check-util.h"

typedef struct {
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    sx_image_file file;
} e2e;

static inline void e2e_open(e2e *t, const char *image_file)
{
    const char *adapters = getenv("SX_E2E_ADAPTERS");
    setenv("SX_ADAPTERS", adapters && *adapters ? adapters : "native", 1);
    CK_OK(sx_image_file_load(sxt_build_path(image_file), &t->file));
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&t->dev));
    CK_OK(sx_context_create(1, &t->dev, &t->ctx));
    CK_OK(sx_queue_create(t->ctx, t->dev, SX_QUEUE_IN_ORDER, &t->q));
}

static inline void e2e_close(e2e *t)
{
    CK_OK(sx_queue_release(t->q));
    CK_OK(sx_context_release(t->ctx));
    CK_OK(sx_fini());
    CK_OK(sx_image_file_release(t->file));
}

static inline sx_args e2e_args(const char *fn)
{
    sx_kernel k;
    sx_args a;
    CK_OK(sx_kernel_get_free_function(fn, &k));
    CK_OK(sx_args_create(k, &a));
    CK_OK(sx_kernel_release(k));
    return a;
}

static inline void *e2e_alloc(e2e *t, size_t n)
{
    void *p;
    CK_OK(sx_usm_alloc(t->ctx, t->dev, SX_USM_TYPE_SHARED, n, 0, &p));
    memset(p, 0, n);
    return p;
}

#endif
