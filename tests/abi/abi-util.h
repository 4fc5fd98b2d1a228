/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* abi-util.h: what the ABI tests share: run K_fill on the native adapter
 * and check what it computed. */
#ifndef SX_ABI_UTIL_H
#define SX_ABI_UTIL_H

#include <stdio.h>

#include <sycl-ext/sx.h>

#define ABI_N 32

/* Launch `kernel_name` with v and check out[i] = v * i + dg. Returns
 * SX_SUCCESS, an error from the library, or SX_ERROR_UNKNOWN (and says
 * so on stderr) if the numbers are wrong. `host_dg` (may be NULL) is the
 * device global's host object, written with dg first. */
static inline sx_result abi_run_fill(const char *kernel_name, int v, const void *host_dg, int dg)
{
    sx_device dev;
    sx_context ctx = NULL;
    sx_queue q = NULL;
    sx_kernel k = NULL;
    int *out = NULL;
    sx_result r;
    /* The native adapter's device: the image is host ELF, whatever else is loaded. */
    sx_device all[16];
    uint32_t n = 0;
    if ((r = sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 16, all, &n)))
        goto out;
    dev = NULL;
    for (uint32_t i = 0; i < n && i < 16 && !dev; i++) {
        sx_backend b = SX_BACKEND_UNKNOWN;
        if (sx_device_get_info(all[i], SX_DEVICE_INFO_BACKEND, sizeof b, &b, NULL) == SX_SUCCESS && b == SX_BACKEND_NATIVE)
            dev = all[i];
    }
    if (!dev) {
        r = SX_ERROR_DEVICE_NOT_FOUND;
        goto out;
    }
    if ((r = sx_context_create(1, &dev, &ctx)) ||
        (r = sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q)) || (r = sx_kernel_get(kernel_name, &k)) ||
        (r = sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, ABI_N * sizeof(int), 0, (void **)&out)))
        goto out;
    if (host_dg && (r = sx_queue_device_global_write(q, host_dg, &dg, sizeof dg, 0, 1, 0, NULL, NULL)))
        goto out;
    sx_arg args[2] = {{SX_ARG_POINTER, 0, sizeof(void *), out}, {SX_ARG_VALUE, 1, sizeof(int), &v}};
    size_t global = ABI_N;
    if ((r = sx_queue_launch(q, k, 1, NULL, &global, NULL, 2, args, 0, NULL, NULL)) || (r = sx_queue_wait(q)))
        goto out;
    for (int i = 0; i < ABI_N; i++)
        if (out[i] != v * i + (host_dg ? dg : 0)) {
            fprintf(stderr, "%s: out[%d] = %d, expected %d\n", kernel_name, i, out[i], v * i + (host_dg ? dg : 0));
            r = SX_ERROR_UNKNOWN;
            break;
        }
out:;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", sx_last_error());
    if (out)
        sx_usm_free(ctx, out);
    if (k)
        sx_kernel_release(k);
    if (q)
        sx_queue_release(q);
    if (ctx)
        sx_context_release(ctx);
    if (r && r != SX_ERROR_UNKNOWN)
        fprintf(stderr, "%s: %s: %s\n", kernel_name, sx_result_name(r), msg);
    return r;
}

#endif
