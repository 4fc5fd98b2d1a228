/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* init.c: sx_init / sx_fini (refcounted, thread-safe) and the version. */
#include <string.h>

#include "sx-internal.h"

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t init_refs;
_Atomic bool sxi_initialized_flag;

SX_API sx_result sx_init(uint32_t flags)
{
    const uint32_t known = SX_INIT_IGNORE_ENVIRONMENT | SX_INIT_INSTALLED_ADAPTERS;
    if (flags & ~known)
        return sxi_error(SX_ERROR_INVALID_VALUE, "sx_init: flags 0x%x are unknown.", flags & ~known);
    pthread_mutex_lock(&init_lock);
    sx_result r = SX_SUCCESS;
    if (init_refs == 0) {
        sxi_env_ignore(flags & SX_INIT_IGNORE_ENVIRONMENT);
        sxi_log_init_from_env();
        sxi_tl_init_from_env();
        const char *sel = sxi_getenv("SX_DEVICE_SELECTOR");
        sxi_selector_reset();
        if (sel && (r = sxi_selector_parse(sel)) != SX_SUCCESS) {
            sxi_error_prefix("sx_init: SX_DEVICE_SELECTOR");
            goto out;
        }
        sxi_epoch_prepare();
        sxi_adapters_set_init_flags(flags);
        if ((r = sxi_adapters_load()) != SX_SUCCESS)
            goto out;
        atomic_store_explicit(&sxi_initialized_flag, true, memory_order_release);
    }
    init_refs++;
out:
    pthread_mutex_unlock(&init_lock);
    return r;
}

SX_API sx_result sx_fini(void)
{
    pthread_mutex_lock(&init_lock);
    if (init_refs == 0) {
        pthread_mutex_unlock(&init_lock);
        return sxi_error(SX_ERROR_UNINITIALIZED, "sx_fini: libsycl-ext is not initialised");
    }
    if (--init_refs == 0) {
        atomic_store_explicit(&sxi_initialized_flag, false, memory_order_seq_cst);
        /* Launches racing the last sx_fini (application misuse, but no
         * crash): those inside a reader section finish before anything is
         * released; later ones see the flag there (sxi_slot_for). A first
         * launch building under the registry lock finishes too; later
         * builders see the flag under it (sxi_kernel_slot_get). */
        sxi_epoch_synchronize();
        sxi_args_reclaim(false); /* that grace period covers the ones retired before it */
        sxi_registry_lock();
        sxi_registry_unlock();
        sxi_contexts_release_all();
        sxi_kernels_drop_all();
        sxi_adapters_unload();
        sxi_selector_reset();
        sxi_pcache_writer_stop(); /* every program cache entry handed over is written */
        sxi_tl_flush();
    }
    pthread_mutex_unlock(&init_lock);
    return SX_SUCCESS;
}

SX_API sx_result sx_get_version(uint32_t *major, uint32_t *minor, uint32_t *patch)
{
    if (!major && !minor && !patch)
        return sxi_error(SX_ERROR_INVALID_NULL_POINTER, "sx_get_version: all outputs are NULL");
    if (major)
        *major = SX_VERSION_MAJOR;
    if (minor)
        *minor = SX_VERSION_MINOR;
    if (patch)
        *patch = SX_VERSION_PATCH;
    return SX_SUCCESS;
}
