/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* image-write.c: the image file writer (layout in lib/image-file.h, doc/image-format.md). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "image-file.h"
#include "proptool.h"

/* A string table with de-duplication, so a name used by many images is
 * stored once. */
typedef struct strtab {
    sxp_buf b;
} strtab;

static uint32_t str_ref(strtab *t, const char *s)
{
    if (!s)
        return SXIMG_NO_STRING;
    size_t n = strlen(s) + 1;
    for (size_t off = 0; off + n <= t->b.len;) {
        const char *cur = (const char *)t->b.data + off;
        size_t cl = strlen(cur) + 1;
        if (cl == n && !memcmp(cur, s, n))
            return (uint32_t)off;
        off += cl;
    }
    uint32_t off = (uint32_t)t->b.len;
    sxp_buf_put(&t->b, s, n);
    return off;
}

static void put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void sxp_image_file_write(sxp_image *const *imgs, size_t n, sxp_buf *out)
{
    strtab st = {0};
    size_t nsets = 0, nprops = 0, nentries = 0;
    for (size_t i = 0; i < n; i++) {
        nsets += imgs[i]->nsets;
        nentries += imgs[i]->nentries;
        for (size_t s = 0; s < imgs[i]->nsets; s++)
            nprops += imgs[i]->sets[s].nprops;
    }
    /* Fixed-size tables first, so their offsets are known up front. */
    size_t images_off = SXIMG_HEADER_SIZE;
    size_t sets_off = images_off + n * SXIMG_IMAGE_RECORD_SIZE;
    size_t props_off = sets_off + nsets * SXIMG_SET_RECORD_SIZE;
    size_t entries_off = props_off + nprops * SXIMG_PROP_RECORD_SIZE;
    size_t tables_end = entries_off + nentries * 4;
    uint8_t *tab = sxp_xcalloc(tables_end, 1);

    /* Variable data after the string table: collect it in its own buffer
     * and fix offsets once the string table's size is known. */
    sxp_buf blob = {0};
    size_t *data_rel = sxp_xcalloc(n + 1, sizeof *data_rel);
    size_t *val_rel = sxp_xcalloc(nprops + 1, sizeof *val_rel);
    size_t si = 0, pi = 0, ei = 0;
    for (size_t i = 0; i < n; i++) {
        const sxp_image *img = imgs[i];
        sxp_buf_align(&blob, 8);
        data_rel[i] = blob.len;
        sxp_buf_put(&blob, img->data, img->size);
        for (size_t s = 0; s < img->nsets; s++)
            for (size_t p = 0; p < img->sets[s].nprops; p++, pi++) {
                const sxp_prop *pr = &img->sets[s].props[p];
                if (pr->type == SX_PROPERTY_TYPE_UINT32)
                    continue;
                sxp_buf_align(&blob, 8);
                val_rel[pi] = blob.len;
                sxp_buf_put(&blob, pr->bytes, pr->size);
                if (pr->type == SX_PROPERTY_TYPE_STRING)
                    sxp_buf_u8(&blob, 0);
            }
    }
    /* Strings: every name goes in now; the table's size fixes the blob base. */
    uint32_t *img_str = sxp_xcalloc(n * 3 + 1, sizeof *img_str);
    uint32_t *set_str = sxp_xcalloc(nsets + 1, sizeof *set_str);
    uint32_t *prop_str = sxp_xcalloc(nprops + 1, sizeof *prop_str);
    uint32_t *ent_str = sxp_xcalloc(nentries + 1, sizeof *ent_str);
    si = pi = ei = 0;
    for (size_t i = 0; i < n; i++) {
        const sxp_image *img = imgs[i];
        img_str[i * 3] = str_ref(&st, img->target);
        img_str[i * 3 + 1] = str_ref(&st, img->compile_options);
        img_str[i * 3 + 2] = str_ref(&st, img->link_options);
        for (size_t e = 0; e < img->nentries; e++)
            ent_str[ei++] = str_ref(&st, img->entries[e]);
        for (size_t s = 0; s < img->nsets; s++) {
            set_str[si++] = str_ref(&st, img->sets[s].name);
            for (size_t p = 0; p < img->sets[s].nprops; p++)
                prop_str[pi++] = str_ref(&st, img->sets[s].props[p].name);
        }
    }
    size_t strings_off = tables_end;
    size_t blob_off = (strings_off + st.b.len + 7) / 8 * 8;
    size_t file_size = blob_off + blob.len;

    si = pi = ei = 0;
    for (size_t i = 0; i < n; i++) {
        const sxp_image *img = imgs[i];
        uint8_t *r = tab + images_off + i * SXIMG_IMAGE_RECORD_SIZE;
        put_u16(r + SXIMG_I_BINARY_VERSION, SX_DEVICE_BINARY_VERSION);
        r[SXIMG_I_KIND] = SX_OFFLOAD_KIND_SYCL;
        r[SXIMG_I_FORMAT] = img->format;
        put_u32(r + SXIMG_I_TARGET, img_str[i * 3]);
        put_u32(r + SXIMG_I_COMPILE_OPTIONS, img_str[i * 3 + 1]);
        put_u32(r + SXIMG_I_LINK_OPTIONS, img_str[i * 3 + 2]);
        put_u64(r + SXIMG_I_DATA_OFFSET, blob_off + data_rel[i]);
        put_u64(r + SXIMG_I_DATA_SIZE, img->size);
        put_u64(r + SXIMG_I_ENTRIES_OFFSET, entries_off + ei * 4);
        put_u32(r + SXIMG_I_NUM_ENTRIES, (uint32_t)img->nentries);
        put_u32(r + SXIMG_I_NUM_SETS, (uint32_t)img->nsets);
        put_u64(r + SXIMG_I_SETS_OFFSET, sets_off + si * SXIMG_SET_RECORD_SIZE);
        for (size_t e = 0; e < img->nentries; e++, ei++)
            put_u32(tab + entries_off + ei * 4, ent_str[ei]);
        for (size_t s = 0; s < img->nsets; s++, si++) {
            uint8_t *sr = tab + sets_off + si * SXIMG_SET_RECORD_SIZE;
            put_u32(sr + SXIMG_S_NAME, set_str[si]);
            put_u32(sr + SXIMG_S_NUM_PROPS, (uint32_t)img->sets[s].nprops);
            put_u64(sr + SXIMG_S_PROPS_OFFSET, props_off + pi * SXIMG_PROP_RECORD_SIZE);
            for (size_t p = 0; p < img->sets[s].nprops; p++, pi++) {
                const sxp_prop *pr = &img->sets[s].props[p];
                uint8_t *pp = tab + props_off + pi * SXIMG_PROP_RECORD_SIZE;
                put_u32(pp + SXIMG_P_NAME, prop_str[pi]);
                put_u32(pp + SXIMG_P_TYPE, pr->type);
                if (pr->type == SX_PROPERTY_TYPE_UINT32) {
                    put_u64(pp + SXIMG_P_VALUE_OFFSET, 0);
                    put_u64(pp + SXIMG_P_VALUE_SIZE, pr->u32);
                } else {
                    put_u64(pp + SXIMG_P_VALUE_OFFSET, blob_off + val_rel[pi]);
                    put_u64(pp + SXIMG_P_VALUE_SIZE, pr->size);
                }
            }
        }
    }
    memcpy(tab, SXIMG_MAGIC, SXIMG_MAGIC_SIZE);
    put_u16(tab + SXIMG_H_MAJOR, SXIMG_VERSION_MAJOR);
    put_u16(tab + SXIMG_H_MINOR, SXIMG_VERSION_MINOR);
    put_u32(tab + SXIMG_H_HEADER_SIZE, SXIMG_HEADER_SIZE);
    put_u64(tab + SXIMG_H_FILE_SIZE, file_size);
    put_u32(tab + SXIMG_H_NUM_IMAGES, (uint32_t)n);
    put_u16(tab + SXIMG_H_IMAGE_RECORD_SIZE, SXIMG_IMAGE_RECORD_SIZE);
    put_u16(tab + SXIMG_H_SET_RECORD_SIZE, SXIMG_SET_RECORD_SIZE);
    put_u16(tab + SXIMG_H_PROP_RECORD_SIZE, SXIMG_PROP_RECORD_SIZE);
    put_u64(tab + SXIMG_H_IMAGES_OFFSET, images_off);
    put_u64(tab + SXIMG_H_STRINGS_OFFSET, strings_off);
    put_u64(tab + SXIMG_H_STRINGS_SIZE, st.b.len);

    put_u32(tab + SXIMG_H_FLAGS, SXIMG_FLAG_CHECKSUMS);

    size_t base = out->len;
    sxp_buf_put(out, tab, tables_end);
    sxp_buf_put(out, st.b.data, st.b.len);
    sxp_buf_align(out, 8);
    sxp_buf_put(out, blob.data, blob.len);
    /* 1.1: CRC-32C per block of everything above, then the trailer. */
    size_t blocks = (file_size + SXIMG_CHECKSUM_BLOCK - 1) / SXIMG_CHECKSUM_BLOCK;
    size_t total = file_size + blocks * 4 + SXIMG_TRAILER_SIZE;
    put_u64(out->data + base + SXIMG_H_FILE_SIZE, total);
    for (size_t b = 0; b < blocks; b++) {
        size_t from = b * SXIMG_CHECKSUM_BLOCK;
        size_t len = file_size - from < SXIMG_CHECKSUM_BLOCK ? file_size - from : SXIMG_CHECKSUM_BLOCK;
        uint8_t c[4];
        put_u32(c, sxi_crc32c(out->data + base + from, len));
        sxp_buf_put(out, c, 4);
    }
    uint8_t tr[SXIMG_TRAILER_SIZE];
    put_u64(tr, file_size);
    put_u32(tr + 8, SXIMG_CHECKSUM_BLOCK);
    sxp_buf_put(out, tr, 12);
    put_u32(tr + 12, sxi_crc32c(out->data + base + file_size, blocks * 4 + 12));
    sxp_buf_put(out, tr + 12, 4);

    free(tab);
    free(data_rel);
    free(val_rel);
    free(img_str);
    free(set_str);
    free(prop_str);
    free(ent_str);
    sxp_buf_free(&blob);
    sxp_buf_free(&st.b);
}
