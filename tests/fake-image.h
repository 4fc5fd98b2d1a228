/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fake-image.h: a raw registration descriptor for the fake TEST adapter,
 * written out field by field (the layout itself is under test). Kernel
 * "k_args"(global int *p, int v, local ...) has a signature; "k_plain" has
 * none. */
#ifndef SX_FAKE_IMAGE_H
#define SX_FAKE_IMAGE_H

#include <string.h>

#include <sycl-ext/sx.h>

typedef struct {
    unsigned char bytes[16];
    sx_offload_entry entries[2];
    uint8_t sig[8 + 5 * 4 + 3 * 7 * 4];
    sx_device_binary_property sig_props[1];
    uint8_t aspects[8 + 4];
    sx_device_binary_property req_props[1];
    sx_device_binary_property_set sets[2];
    sx_device_binary bin;
    sx_device_binaries desc;
} fake_image;

static inline void put32(uint8_t **p, uint32_t v)
{
    memcpy(*p, &v, 4);
    *p += 4;
}

/* `aspect` != 0 adds a "SYCL/device requirements" aspect. */
static inline void fake_image_init(fake_image *f, const char *options, uint32_t aspect)
{
    memset(f, 0, sizeof(*f));
    memcpy(f->bytes, "\x7f" "ELFfake-image..", 16);
    f->entries[0].name = (char *)"k_args";
    f->entries[1].name = (char *)"k_plain";
    uint8_t *p = f->sig;
    uint64_t bits = (sizeof(f->sig) - 8) * 8;
    memcpy(p, &bits, 8);
    p += 8;
    put32(&p, 1);                     /* version */
    put32(&p, SX_KERNEL_KIND_ND_RANGE);
    put32(&p, 1);                     /* dims */
    put32(&p, 3);                     /* source params */
    put32(&p, 3);                     /* backend params */
    /* global int *p */
    put32(&p, SX_PARAM_POINTER); put32(&p, 0); put32(&p, 8); put32(&p, 8); put32(&p, SX_ADDRESS_SPACE_GLOBAL);
    put32(&p, 0); put32(&p, 0);
    /* int v */
    put32(&p, SX_PARAM_VALUE); put32(&p, SX_SCALAR_I32); put32(&p, 4); put32(&p, 4); put32(&p, 0);
    put32(&p, 1); put32(&p, 0);
    /* local int *l */
    put32(&p, SX_PARAM_LOCAL); put32(&p, 0); put32(&p, 8); put32(&p, 8); put32(&p, SX_ADDRESS_SPACE_LOCAL);
    put32(&p, 2); put32(&p, 0);
    f->sig_props[0] = (sx_device_binary_property){(char *)"k_args", f->sig, SX_PROPERTY_TYPE_BYTE_ARRAY, sizeof(f->sig)};
    f->sets[0] = (sx_device_binary_property_set){(char *)SX_PROP_SET_KERNEL_SIGNATURES, f->sig_props, f->sig_props + 1};
    uint32_t nsets = 1;
    if (aspect) {
        uint64_t abits = 32;
        memcpy(f->aspects, &abits, 8);
        memcpy(f->aspects + 8, &aspect, 4);
        f->req_props[0] = (sx_device_binary_property){(char *)"aspects", f->aspects, SX_PROPERTY_TYPE_BYTE_ARRAY,
                                                      sizeof(f->aspects)};
        f->sets[1] = (sx_device_binary_property_set){(char *)SX_PROP_SET_DEVICE_REQUIREMENTS, f->req_props,
                                                     f->req_props + 1};
        nsets = 2;
    }
    f->bin = (sx_device_binary){
        .version = SX_DEVICE_BINARY_VERSION,
        .kind = SX_OFFLOAD_KIND_SYCL,
        .format = SX_BINARY_FORMAT_NATIVE,
        .device_target_spec = "fake",
        .compile_options = options,
        .binary_start = f->bytes,
        .binary_end = f->bytes + sizeof(f->bytes),
        .entries_begin = f->entries,
        .entries_end = f->entries + 2,
        .property_sets_begin = f->sets,
        .property_sets_end = f->sets + nsets,
    };
    f->desc = (sx_device_binaries){SX_DEVICE_BINARIES_VERSION, 1, &f->bin, NULL, NULL};
}

#endif
