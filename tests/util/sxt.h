/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sxt.h: test helper that builds sx_device_binaries descriptors in memory
 * (the DPC++ offload-wrapper layout of binaries.h), so adapter and core
 * tests can register images without proptool. Also reads files and finds
 * the test kernels make builds.
 *
 *   sxt_image *im = sxt_image_new(SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE, bytes, n);
 *   sxt_image_add_kernel(im, "vadd", SX_KERNEL_KIND_PLAIN, 0, 3, 3, params, NULL);
 *   sx_device_binaries *bin = sxt_binaries(&im, 1);   // takes the images
 *   sx_register_images(bin); ... sx_unregister_images(bin);
 *   sxt_binaries_free(bin);
 *
 * Every function returns NULL / -1 on out-of-memory or bad arguments; the
 * descriptor and everything it points to live until sxt_binaries_free. */
#ifndef SXT_H
#define SXT_H

#include <stddef.h>
#include <stdint.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/binaries.h>

typedef struct sxt_image sxt_image;

/* A new image of `size` bytes (copied) for a target (SX_TARGET_*) and a
 * format (SX_BINARY_FORMAT_*). */
sxt_image *sxt_image_new(const char *target, uint8_t format, const void *bytes, size_t size);
void sxt_image_free(sxt_image *img);  /* only for images never given to sxt_binaries */

/* Compile and link options stored in the descriptor (copied; NULL = none). */
int sxt_image_set_options(sxt_image *img, const char *compile_options, const char *link_options);

/* Add an offload entry (a kernel or an exported symbol) without any property. */
int sxt_image_add_entry(sxt_image *img, const char *name);

/* Add a kernel: its offload entry plus an "SX/kernel signatures"
 * BYTE_ARRAY property encoded as binaries.h describes. source_index may be
 * NULL: parameter i then comes from source parameter i. */
int sxt_image_add_kernel(sxt_image *img, const char *entry_name, uint32_t kind, uint32_t dims,
                         uint32_t num_source_params, uint32_t num_params,
                         const sxa_kernel_param *params, const uint32_t *source_index);

/* Properties in a named set (created on first use). */
int sxt_image_add_prop_u32(sxt_image *img, const char *set, const char *name, uint32_t value);
/* BYTE_ARRAY: the 64-bit bit-count prefix is added here. */
int sxt_image_add_prop_bytes(sxt_image *img, const char *set, const char *name,
                             const void *payload, size_t n);
int sxt_image_add_prop_string(sxt_image *img, const char *set, const char *name, const char *value);

/* The descriptor of n images; takes ownership of them. */
sx_device_binaries *sxt_binaries(sxt_image **imgs, unsigned n);
void sxt_binaries_free(sx_device_binaries *bin);

/* The whole file, malloc'd (NUL-terminated beyond *size); NULL on error. */
void *sxt_read_file(const char *path, size_t *size);

/* Path of a test kernel built by make: $SX_TEST_BUILDDIR/tests/kernels/<file>
 * (or ./tests/kernels/<file>), malloc'd; NULL if it does not exist. */
char *sxt_kernel_path(const char *file);

/* Parameter descriptions for sxt_image_add_kernel and sxa_kernel_signature. */
#define SXT_PARAM_VALUE(sc, sz) \
    ((sxa_kernel_param){SX_PARAM_VALUE, (sc), (sz), (sz), SX_ADDRESS_SPACE_PRIVATE, 0, NULL})
#define SXT_PARAM_POINTER() \
    ((sxa_kernel_param){SX_PARAM_POINTER, SX_SCALAR_NONE, sizeof(void *), sizeof(void *), SX_ADDRESS_SPACE_GLOBAL, 0, NULL})
#define SXT_PARAM_LOCAL() \
    ((sxa_kernel_param){SX_PARAM_LOCAL, SX_SCALAR_NONE, sizeof(void *), sizeof(void *), SX_ADDRESS_SPACE_LOCAL, 0, NULL})
#define SXT_PARAM_STRUCT(sz, al, n, mem) \
    ((sxa_kernel_param){SX_PARAM_STRUCT, SX_SCALAR_NONE, (sz), (al), SX_ADDRESS_SPACE_PRIVATE, (n), (mem)})

#endif /* SXT_H */
