/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sycl-ext/dpcpp.h: libsycl-ext-dpcpp, the registration bridge for
 * DPC++-built programs and libraries.
 *
 * A DPC++-built module registers its device images from a constructor by
 * calling __sycl_register_lib(descriptor) and unregisters them from a
 * destructor with __sycl_unregister_lib(descriptor). libsycl-ext-dpcpp.so
 * defines both: it hands every descriptor to sx_register_images (every
 * layout DPC++ has shipped: doc/image-format.md) and then passes the call on
 * to the next definition in the process, DPC++'s own libsycl.so, when there
 * is one, so DPC++'s runtime keeps working beside libsycl-ext. It takes
 * effect when it comes before libsycl.so in the symbol search order:
 * LD_PRELOAD=libsycl-ext-dpcpp.so, or linked ahead of it
 * (-lsycl-ext-dpcpp -lsycl). Environment: SX_DPCPP_FORWARD=0 stops the
 * passing on. doc/dpcpp-bridge.md says more. */
#ifndef SYCL_EXT_DPCPP_H
#define SYCL_EXT_DPCPP_H

#include <stddef.h>
#include <stdint.h>

#include <sycl-ext/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported by libsycl-ext-dpcpp.so, not libsycl-ext.so (tests/check-exports.sh
 * checks each library against its own macro). */
#if defined(SX_BUILDING_LIBRARY)
#define SX_DPCPP_API __attribute__((visibility("default")))
#else
#define SX_DPCPP_API
#endif

/* DPC++'s entry points, as its wrapper calls them. */
SX_DPCPP_API void __sycl_register_lib(void *descriptor);
SX_DPCPP_API void __sycl_unregister_lib(void *descriptor);

/* What the bridge has done in this process. */
typedef struct sx_dpcpp_bridge_stats {
    uint32_t size;              /* set by the caller: sizeof(sx_dpcpp_bridge_stats) */
    uint32_t registered;        /* descriptors registered with libsycl-ext now */
    uint64_t registered_images; /* device images in them */
    uint64_t registrations;     /* descriptors ever registered */
    uint64_t unregistrations;   /* descriptors ever unregistered */
    uint64_t refused;           /* descriptors libsycl-ext refused */
    uint64_t forwarded;         /* calls passed on to the next definition */
    uint64_t register_ns;       /* time spent in sx_register_images, in all */
    char last_error[512];       /* why the last refusal, or "" */
} sx_dpcpp_bridge_stats;

/* Fill *stats. SX_ERROR_INVALID_NULL_POINTER: stats is NULL;
 * SX_ERROR_INVALID_SIZE: stats->size is below this version's size. */
SX_DPCPP_API sx_result sx_dpcpp_bridge_get_stats(sx_dpcpp_bridge_stats *stats);

#ifdef __cplusplus
}
#endif
#endif /* SYCL_EXT_DPCPP_H */
