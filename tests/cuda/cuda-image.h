/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* cuda-image.h: a registration descriptor for tests/cuda/kernels.cu's PTX, with kernel signatures. */
#ifndef SXC_CUDA_IMAGE_H
#define SXC_CUDA_IMAGE_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/binaries.h>

/* One parameter of a signature: kind, scalar, size. */
typedef struct {
    uint32_t kind, scalar, size;
    uint32_t scratch; /* 1: the hidden work-group scratch argument (no source parameter) */
} cimg_param;

typedef struct {
    const char *name;
    uint32_t nparams;
    cimg_param params[6];
} cimg_kernel;

static const cimg_kernel cimg_kernels[] = {
    {"empty_kernel", 0, {{0}}},
    {"add_one", 2, {{SX_PARAM_POINTER, 0, 8}, {SX_PARAM_VALUE, SX_SCALAR_I32, 4}}},
    {"local_reverse", 5,
     {{SX_PARAM_POINTER, 0, 8},
      {SX_PARAM_POINTER, 0, 8},
      {SX_PARAM_LOCAL, 0, 8},
      {SX_PARAM_LOCAL, 0, 8},
      {SX_PARAM_VALUE, SX_SCALAR_U32, 4}}},
    {"atomic_add", 2, {{SX_PARAM_POINTER, 0, 8}, {SX_PARAM_VALUE, SX_SCALAR_U64, 8}}},
    {"read_globals", 1, {{SX_PARAM_POINTER, 0, 8}}},
    {"bump_counter", 0, {{0}}},
    {"dg_read", 1, {{SX_PARAM_POINTER, 0, 8}}},
    {"dg_bump", 0, {{0}}},
    {"__sycl_kernel_ff_scale", 5,
     {{SX_PARAM_POINTER, 0, 8},
      {SX_PARAM_POINTER, 0, 8},
      {SX_PARAM_LOCAL, 0, 8},
      {SX_PARAM_VALUE, SX_SCALAR_F32, 4},
      {SX_PARAM_LOCAL, 0, 8, 1}}},
};
#define CIMG_NK (sizeof(cimg_kernels) / sizeof(cimg_kernels[0]))

typedef struct {
    sx_offload_entry entries[CIMG_NK];
    uint8_t sig[CIMG_NK][8 + 5 * 4 + 6 * 7 * 4];
    sx_device_binary_property props[CIMG_NK];
    sx_device_binary_property implicit[CIMG_NK];
    /* "SYCL/device globals" {u32 size, u32 image scope} per unique id, and
     * the id -> symbol mapping in "SYCL/program metadata" */
    uint8_t dg_usm[16], dg_scope[16], dg_map[8 + 10];
    sx_device_binary_property globals[2], meta[1];
    sx_device_binary_property_set set[4];
    sx_device_binary bin;
    sx_device_binaries desc;
} cuda_image;

static inline void cimg_put(uint8_t **p, uint32_t v)
{
    memcpy(*p, &v, 4);
    *p += 4;
}

/* `data` (PTX text or cubin) must outlive the registration. */
static inline void cuda_image_init(cuda_image *ci, const void *data, size_t size)
{
    memset(ci, 0, sizeof(*ci));
    size_t nimplicit = 0;
    for (size_t k = 0; k < CIMG_NK; k++) {
        const cimg_kernel *K = &cimg_kernels[k];
        ci->entries[k].name = (char *)K->name;
        uint32_t nsrc = K->nparams;
        for (uint32_t i = 0; i < K->nparams; i++)
            if (K->params[i].scratch) {
                nsrc--;
                /* "SYCL/implicit local arg": UINT32, the value in value_size */
                ci->implicit[nimplicit++] = (sx_device_binary_property){
                    (char *)K->name, NULL, SX_PROPERTY_TYPE_UINT32, i};
            }
        uint8_t *p = ci->sig[k] + 8;
        cimg_put(&p, 1);
        cimg_put(&p, SX_KERNEL_KIND_ND_RANGE);
        cimg_put(&p, 1);
        cimg_put(&p, nsrc);
        cimg_put(&p, K->nparams);
        for (uint32_t i = 0; i < K->nparams; i++) {
            const cimg_param *P = &K->params[i];
            cimg_put(&p, P->kind);
            cimg_put(&p, P->scalar);
            cimg_put(&p, P->size);
            cimg_put(&p, P->size);
            cimg_put(&p, P->kind == SX_PARAM_POINTER ? SX_ADDRESS_SPACE_GLOBAL
                         : P->kind == SX_PARAM_LOCAL ? SX_ADDRESS_SPACE_LOCAL
                                                     : SX_ADDRESS_SPACE_PRIVATE);
            cimg_put(&p, P->scratch ? SX_SOURCE_INDEX_NONE : i);
            cimg_put(&p, 0);
        }
        uint64_t len = (uint64_t)(p - ci->sig[k]);
        uint64_t bits = (len - 8) * 8;
        memcpy(ci->sig[k], &bits, 8);
        ci->props[k] = (sx_device_binary_property){(char *)K->name, ci->sig[k],
                                                   SX_PROPERTY_TYPE_BYTE_ARRAY, len};
    }
    ci->set[0] = (sx_device_binary_property_set){(char *)SX_PROP_SET_KERNEL_SIGNATURES, ci->props,
                                                 ci->props + CIMG_NK};
    ci->set[1] = (sx_device_binary_property_set){(char *)SX_PROP_SET_IMPLICIT_LOCAL_ARG, ci->implicit,
                                                 ci->implicit + nimplicit};
    uint64_t bits = 64;
    uint32_t v[2] = {16, 0};
    memcpy(ci->dg_usm, &bits, 8);
    memcpy(ci->dg_usm + 8, v, 8);
    v[1] = 1;
    memcpy(ci->dg_scope, &bits, 8);
    memcpy(ci->dg_scope + 8, v, 8);
    bits = 10 * 8;
    memcpy(ci->dg_map, &bits, 8);
    memcpy(ci->dg_map + 8, "dg_usm_ptr", 10);
    ci->globals[0] = (sx_device_binary_property){(char *)"uid_usm", ci->dg_usm, SX_PROPERTY_TYPE_BYTE_ARRAY, 16};
    ci->globals[1] = (sx_device_binary_property){(char *)"dg_scope", ci->dg_scope, SX_PROPERTY_TYPE_BYTE_ARRAY, 16};
    ci->meta[0] = (sx_device_binary_property){(char *)"uid_usm@global_id_mapping", ci->dg_map,
                                              SX_PROPERTY_TYPE_BYTE_ARRAY, sizeof(ci->dg_map)};
    ci->set[2] = (sx_device_binary_property_set){(char *)SX_PROP_SET_DEVICE_GLOBALS, ci->globals, ci->globals + 2};
    ci->set[3] = (sx_device_binary_property_set){(char *)SX_PROP_SET_PROGRAM_METADATA, ci->meta, ci->meta + 1};
    ci->bin = (sx_device_binary){
        .version = SX_DEVICE_BINARY_VERSION,
        .kind = SX_OFFLOAD_KIND_SYCL,
        .format = SX_BINARY_FORMAT_NONE,
        .device_target_spec = SX_TARGET_NVPTX64,
        .binary_start = data,
        .binary_end = (const unsigned char *)data + size,
        .entries_begin = ci->entries,
        .entries_end = ci->entries + CIMG_NK,
        .property_sets_begin = ci->set,
        .property_sets_end = ci->set + 4,
    };
    ci->desc = (sx_device_binaries){
        .version = SX_DEVICE_BINARIES_VERSION,
        .num_device_binaries = 1,
        .device_binaries = &ci->bin,
    };
}

/* Two images linked by the virtual-functions resolver: link_a.ptx (kernel
 * link_kernel, calls set "vf_set") and link_b.ptx (provides "vf_set":
 * the link_helper it imports). */
typedef struct {
    sx_offload_entry entry;
    uint8_t sig[8 + 5 * 4 + 7 * 4];
    sx_device_binary_property sig_prop;
    sx_device_binary_property vf_a, vf_b;
    sx_device_binary_property_set sets_a[2], set_b;
    sx_device_binary bins[2];
    sx_device_binaries desc;
} cuda_vf_images;

static inline void cuda_vf_init(cuda_vf_images *v, const void *a, size_t an, const void *b, size_t bn)
{
    memset(v, 0, sizeof(*v));
    v->entry.name = (char *)"link_kernel";
    uint8_t *p = v->sig + 8;
    uint64_t bits = (sizeof(v->sig) - 8) * 8;
    memcpy(v->sig, &bits, 8);
    cimg_put(&p, 1);
    cimg_put(&p, SX_KERNEL_KIND_ND_RANGE);
    cimg_put(&p, 1);
    cimg_put(&p, 1);
    cimg_put(&p, 1);
    cimg_put(&p, SX_PARAM_POINTER);
    cimg_put(&p, 0);
    cimg_put(&p, 8);
    cimg_put(&p, 8);
    cimg_put(&p, SX_ADDRESS_SPACE_GLOBAL);
    cimg_put(&p, 0);
    cimg_put(&p, 0);
    v->sig_prop = (sx_device_binary_property){(char *)"link_kernel", v->sig, SX_PROPERTY_TYPE_BYTE_ARRAY,
                                              sizeof(v->sig)};
    v->vf_a = (sx_device_binary_property){(char *)"calls-virtual-functions-set", (void *)"vf_set",
                                          SX_PROPERTY_TYPE_STRING, 6};
    v->vf_b = (sx_device_binary_property){(char *)"virtual-functions-set", (void *)"vf_set",
                                          SX_PROPERTY_TYPE_STRING, 6};
    v->sets_a[0] = (sx_device_binary_property_set){(char *)SX_PROP_SET_KERNEL_SIGNATURES, &v->sig_prop,
                                                   &v->sig_prop + 1};
    v->sets_a[1] = (sx_device_binary_property_set){(char *)SX_PROP_SET_VIRTUAL_FUNCTIONS, &v->vf_a, &v->vf_a + 1};
    v->set_b = (sx_device_binary_property_set){(char *)SX_PROP_SET_VIRTUAL_FUNCTIONS, &v->vf_b, &v->vf_b + 1};
    for (int i = 0; i < 2; i++)
        v->bins[i] = (sx_device_binary){
            .version = SX_DEVICE_BINARY_VERSION,
            .kind = SX_OFFLOAD_KIND_SYCL,
            .format = SX_BINARY_FORMAT_NONE,
            .device_target_spec = SX_TARGET_NVPTX64,
            .binary_start = i ? b : a,
            .binary_end = (const unsigned char *)(i ? b : a) + (i ? bn : an),
        };
    v->bins[0].entries_begin = &v->entry;
    v->bins[0].entries_end = &v->entry + 1;
    v->bins[0].property_sets_begin = v->sets_a;
    v->bins[0].property_sets_end = v->sets_a + 2;
    v->bins[1].property_sets_begin = &v->set_b;
    v->bins[1].property_sets_end = &v->set_b + 1;
    v->desc = (sx_device_binaries){
        .version = SX_DEVICE_BINARIES_VERSION,
        .num_device_binaries = 2,
        .device_binaries = v->bins,
    };
}

#endif /* SXC_CUDA_IMAGE_H */
