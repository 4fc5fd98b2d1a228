/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-image-file.c: the image-file parser (lib/image-file.c) against
 * proptool's writer: round trips, and every truncation, bit flip and
 * hostile field fails cleanly with an error naming the place. */
#include <string.h>

#include "check-util.h"
#include "image-file.h"
#include "proptool.h"
#include "sx-internal.h"

/* Two images with every property type. */
static void build(sxp_buf *out, size_t nimg)
{
    sxp_image *imgs[4];
    for (size_t i = 0; i < nimg; i++) {
        sxp_image *img = sxp_image_new("test", i ? SX_TARGET_HOST : SX_TARGET_SPIRV64,
                                       i ? SX_BINARY_FORMAT_NATIVE : SX_BINARY_FORMAT_SPIRV);
        img->size = 13 + i;
        img->data = sxp_xmalloc(img->size);
        memset(img->data, 'a' + (int)i, img->size);
        if (i == 0)
            img->compile_options = sxp_xstrdup("-cl-fast-relaxed-math");
        sxp_image_add_entry(img, "k_one");
        sxp_image_add_entry(img, i ? "k_host" : "k_two");
        sxp_propset *s = sxp_image_set(img, SX_PROP_SET_DEVICE_GLOBALS);
        uint32_t dg[2] = {16, 1};
        sxp_set_bytes(s, "dg", dg, sizeof dg);
        sxp_set_u32(sxp_image_set(img, SX_PROP_SET_HOST_ACCESS), "dg", 2);
        sxp_set_string(sxp_image_set(img, SX_PROP_SET_GLOBAL_ACCESSORS), "dg", "__sx_dg_access_dg");
        sxp_set_bits(sxp_image_set(img, SX_PROP_SET_KERNEL_PARAM_OPT), "k_one", "\x05", 3);
        sxp_image_sort(img);
        imgs[i] = img;
    }
    sxp_image_file_write(imgs, nimg, out);
    for (size_t i = 0; i < nimg; i++)
        sxp_image_free(imgs[i]);
}

static const sx_device_binary_property *find(const sx_device_binary *b, const char *set, const char *name)
{
    for (const sx_device_binary_property_set *s = b->property_sets_begin; s != b->property_sets_end; s++)
        if (!strcmp(s->name, set))
            for (const sx_device_binary_property *p = s->properties_begin; p != s->properties_end; p++)
                if (!strcmp(p->name, name))
                    return p;
    return NULL;
}

/* Touch every byte a descriptor points to (valgrind/ASan catch strays). */
static unsigned touch(const sx_device_binaries *d)
{
    unsigned sum = 0;
    for (uint16_t i = 0; i < d->num_device_binaries; i++) {
        const sx_device_binary *b = &d->device_binaries[i];
        sum += (unsigned)strlen(b->device_target_spec);
        if (b->compile_options)
            sum += (unsigned)strlen(b->compile_options);
        for (const unsigned char *p = b->binary_start; p < b->binary_end; p++)
            sum += *p;
        for (const sx_offload_entry *e = b->entries_begin; e < b->entries_end; e++)
            sum += (unsigned)strlen(e->name);
        for (const sx_device_binary_property_set *s = b->property_sets_begin; s < b->property_sets_end; s++) {
            sum += (unsigned)strlen(s->name);
            for (const sx_device_binary_property *p = s->properties_begin; p < s->properties_end; p++) {
                sum += (unsigned)strlen(p->name);
                if (p->type != SX_PROPERTY_TYPE_UINT32)
                    for (uint64_t k = 0; k < p->value_size; k++)
                        sum += ((const unsigned char *)p->value_addr)[k];
            }
        }
    }
    return sum;
}

START_TEST(round_trip)
{
    sxp_buf f = {0};
    build(&f, 2);
    sx_device_binaries *d = NULL;
    CK_OK(sxi_image_file_parse(f.data, f.len, &d));
    ck_assert_uint_eq(d->version, SX_DEVICE_BINARIES_VERSION);
    ck_assert_uint_eq(d->num_device_binaries, 2);
    const sx_device_binary *b = &d->device_binaries[0];
    ck_assert_str_eq(b->device_target_spec, SX_TARGET_SPIRV64);
    ck_assert_uint_eq(b->format, SX_BINARY_FORMAT_SPIRV);
    ck_assert_uint_eq(b->kind, SX_OFFLOAD_KIND_SYCL);
    ck_assert_str_eq(b->compile_options, "-cl-fast-relaxed-math");
    ck_assert_ptr_null(b->link_options);
    ck_assert_int_eq(b->binary_end - b->binary_start, 13);
    ck_assert_int_eq(b->binary_start[12], 'a');
    ck_assert_int_eq(b->entries_end - b->entries_begin, 2);
    ck_assert_str_eq(b->entries_begin[1].name, "k_two");
    /* Pointers go into the caller's bytes, not copies. */
    ck_assert(b->binary_start >= f.data && b->binary_end <= f.data + f.len);
    const sx_device_binary_property *p = find(b, SX_PROP_SET_DEVICE_GLOBALS, "dg");
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(p->type, SX_PROPERTY_TYPE_BYTE_ARRAY);
    ck_assert_uint_eq(p->value_size, 16);
    uint64_t bits;
    uint32_t v[2];
    memcpy(&bits, p->value_addr, 8);
    memcpy(v, (const char *)p->value_addr + 8, 8);
    ck_assert_uint_eq(bits, 64);
    ck_assert_uint_eq(v[0], 16);
    ck_assert_uint_eq(v[1], 1);
    p = find(b, SX_PROP_SET_HOST_ACCESS, "dg");
    ck_assert_uint_eq(p->type, SX_PROPERTY_TYPE_UINT32);
    ck_assert_ptr_null(p->value_addr);
    ck_assert_uint_eq(p->value_size, 2);
    p = find(b, SX_PROP_SET_GLOBAL_ACCESSORS, "dg");
    ck_assert_uint_eq(p->type, SX_PROPERTY_TYPE_STRING);
    ck_assert_str_eq(p->value_addr, "__sx_dg_access_dg");
    ck_assert_uint_eq(p->value_size, strlen("__sx_dg_access_dg"));
    p = find(b, SX_PROP_SET_KERNEL_PARAM_OPT, "k_one");
    ck_assert_uint_eq(p->value_size, 9);
    memcpy(&bits, p->value_addr, 8);
    ck_assert_uint_eq(bits, 3);
    b = &d->device_binaries[1];
    ck_assert_str_eq(b->device_target_spec, SX_TARGET_HOST);
    ck_assert_uint_eq(b->format, SX_BINARY_FORMAT_NATIVE);
    ck_assert_int_eq(b->binary_end - b->binary_start, 14);
    /* Registering the parsed descriptor needs a real image; the layout
     * checks of sx_register_images are exercised by test-register. */
    touch(d);
    sxi_image_file_free(d);
    sxp_buf_free(&f);
}
END_TEST

START_TEST(empty_file_of_no_images)
{
    sxp_buf f = {0};
    build(&f, 0);
    sx_device_binaries *d = NULL;
    CK_OK(sxi_image_file_parse(f.data, f.len, &d));
    ck_assert_uint_eq(d->num_device_binaries, 0);
    sxi_image_file_free(d);
    sxp_buf_free(&f);
}
END_TEST

START_TEST(every_truncation_fails)
{
    sxp_buf f = {0};
    build(&f, 2);
    for (size_t n = 0; n < f.len; n++) {
        /* A copy of exactly n bytes, so a stray read past it is caught. */
        uint8_t *c = malloc(n ? n : 1);
        memcpy(c, f.data, n);
        sx_device_binaries *d = (sx_device_binaries *)1;
        CK_ERR(sxi_image_file_parse(c, n, &d), SX_ERROR_INVALID_BINARY);
        ck_assert_ptr_null(d);
        ck_assert(strstr(sx_last_error(), "image file: ") != NULL);
        free(c);
    }
    sxp_buf_free(&f);
}
END_TEST

START_TEST(every_bit_flip_is_safe)
{
    sxp_buf f = {0};
    build(&f, 2);
    unsigned accepted = 0, rejected = 0;
    for (size_t i = 0; i < f.len; i++)
        for (int bit = 0; bit < 8; bit++) {
            uint8_t *c = malloc(f.len);
            memcpy(c, f.data, f.len);
            c[i] ^= (uint8_t)(1u << bit);
            sx_device_binaries *d = NULL;
            sx_result r = sxi_image_file_parse(c, f.len, &d);
            if (r == SX_SUCCESS) {
                touch(d);
                sxi_image_file_free(d);
                accepted++;
            } else {
                ck_assert_msg(r == SX_ERROR_INVALID_BINARY || r == SX_ERROR_UNSUPPORTED_VERSION,
                              "byte %zu bit %d: %s: %s", i, bit, sx_result_name(r), sx_last_error());
                ck_assert(sx_last_error()[0]);
                rejected++;
            }
            free(c);
        }
    /* Flips in payload bytes are undetectable; flips in the structure are not. */
    ck_assert_uint_gt(accepted, 0);
    ck_assert_uint_gt(rejected, 0);
    sxp_buf_free(&f);
}
END_TEST

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* Damage one field of a good file and expect `code` with `text`. */
static void damaged(void (*fn)(uint8_t *, size_t), sx_result code, const char *text)
{
    sxp_buf f = {0};
    build(&f, 2);
    /* Without the checksums (a 1.0 file, or a hostile one whose checksums
     * are right): each field's own check must catch it. */
    f.data[SXIMG_H_FLAGS] &= (uint8_t)~SXIMG_FLAG_CHECKSUMS;
    fn(f.data, f.len);
    sx_device_binaries *d = NULL;
    CK_ERR(sxi_image_file_parse(f.data, f.len, &d), code);
    CK_MSG_HAS(text);
    ck_assert_ptr_null(d);
    sxp_buf_free(&f);
}

static uint8_t *prop_record(uint8_t *d, uint32_t index)
{
    uint64_t sets;
    memcpy(&sets, d + SXIMG_HEADER_SIZE + SXIMG_I_SETS_OFFSET, 8);
    uint64_t props;
    memcpy(&props, d + sets + SXIMG_S_PROPS_OFFSET, 8);
    return d + props + (size_t)index * SXIMG_PROP_RECORD_SIZE;
}

/* The first image's properties are sorted by set name:
 * 0 SX/device global accessors (STRING), 1 SX/host access (UINT32),
 * 2 SYCL/device globals (BYTE_ARRAY), 3 SYCL/kernel param opt. */
static void d_magic(uint8_t *d, size_t n) { d[3] ^= 1; }
static void d_major(uint8_t *d, size_t n) { d[SXIMG_H_MAJOR] = 9; }
static void d_hsize(uint8_t *d, size_t n) { put32(d + SXIMG_H_HEADER_SIZE, 8); }
static void d_fsize(uint8_t *d, size_t n) { put64(d + SXIMG_H_FILE_SIZE, n + 1); }
static void d_nimg(uint8_t *d, size_t n) { put32(d + SXIMG_H_NUM_IMAGES, 70000); }
static void d_nimg2(uint8_t *d, size_t n) { put32(d + SXIMG_H_NUM_IMAGES, 60000); }
static void d_recsize(uint8_t *d, size_t n) { d[SXIMG_H_IMAGE_RECORD_SIZE] = 8; }
static void d_strtab(uint8_t *d, size_t n) { put64(d + SXIMG_H_STRINGS_SIZE, n); }
static void d_strnul(uint8_t *d, size_t n)
{
    uint64_t off, sz;
    memcpy(&off, d + SXIMG_H_STRINGS_OFFSET, 8);
    memcpy(&sz, d + SXIMG_H_STRINGS_SIZE, 8);
    d[off + sz - 1] = 'x';
}
static void d_kind(uint8_t *d, size_t n) { d[SXIMG_HEADER_SIZE + SXIMG_I_KIND] = 3; }
static void d_format(uint8_t *d, size_t n) { d[SXIMG_HEADER_SIZE + SXIMG_I_FORMAT] = 9; }
static void d_target(uint8_t *d, size_t n) { put32(d + SXIMG_HEADER_SIZE + SXIMG_I_TARGET, 0x7fffff); }
static void d_notarget(uint8_t *d, size_t n) { put32(d + SXIMG_HEADER_SIZE + SXIMG_I_TARGET, SXIMG_NO_STRING); }
static void d_data(uint8_t *d, size_t n) { put64(d + SXIMG_HEADER_SIZE + SXIMG_I_DATA_SIZE, UINT64_MAX - 4); }
static void d_empty(uint8_t *d, size_t n) { put64(d + SXIMG_HEADER_SIZE + SXIMG_I_DATA_SIZE, 0); }
static void d_entries(uint8_t *d, size_t n) { put32(d + SXIMG_HEADER_SIZE + SXIMG_I_NUM_ENTRIES, 0x40000000); }
static void d_sets(uint8_t *d, size_t n) { put64(d + SXIMG_HEADER_SIZE + SXIMG_I_SETS_OFFSET, n - 4); }
static void d_ptype(uint8_t *d, size_t n) { put32(prop_record(d, 1) + SXIMG_P_TYPE, 7); }
static void d_u32big(uint8_t *d, size_t n) { put64(prop_record(d, 1) + SXIMG_P_VALUE_SIZE, 1ull << 32); }
static void d_bits(uint8_t *d, size_t n)
{
    uint64_t off;
    memcpy(&off, prop_record(d, 2) + SXIMG_P_VALUE_OFFSET, 8);
    put64(d + off, 65);
}
static void d_short(uint8_t *d, size_t n) { put64(prop_record(d, 2) + SXIMG_P_VALUE_SIZE, 7); }
static void d_voff(uint8_t *d, size_t n) { put64(prop_record(d, 2) + SXIMG_P_VALUE_OFFSET, UINT64_MAX - 3); }
static void d_strlen(uint8_t *d, size_t n) { put64(prop_record(d, 0) + SXIMG_P_VALUE_SIZE, 3); }
static void d_strmax(uint8_t *d, size_t n) { put64(prop_record(d, 0) + SXIMG_P_VALUE_SIZE, UINT64_MAX); }

START_TEST(hostile_fields)
{
    damaged(d_magic, SX_ERROR_INVALID_BINARY, "bad magic");
    damaged(d_major, SX_ERROR_UNSUPPORTED_VERSION, "version 9.");
    damaged(d_hsize, SX_ERROR_INVALID_BINARY, "header size 8");
    damaged(d_fsize, SX_ERROR_INVALID_BINARY, "(truncated)");
    damaged(d_nimg, SX_ERROR_INVALID_BINARY, "70000 images");
    damaged(d_nimg2, SX_ERROR_INVALID_BINARY, "60000 image records");
    damaged(d_recsize, SX_ERROR_INVALID_BINARY, "record sizes 8/");
    damaged(d_strtab, SX_ERROR_INVALID_BINARY, "string table at");
    damaged(d_strnul, SX_ERROR_INVALID_BINARY, "does not end with a NUL");
    damaged(d_kind, SX_ERROR_INVALID_BINARY, "offload kind 3");
    damaged(d_format, SX_ERROR_INVALID_BINARY, "unknown format 9");
    damaged(d_target, SX_ERROR_INVALID_BINARY, "target: string offset 8388607");
    damaged(d_notarget, SX_ERROR_INVALID_BINARY, "target is missing");
    damaged(d_data, SX_ERROR_INVALID_BINARY, "runs past the end of the file");
    damaged(d_empty, SX_ERROR_INVALID_BINARY, "binary is empty");
    damaged(d_entries, SX_ERROR_INVALID_BINARY, "1073741824 entries");
    damaged(d_sets, SX_ERROR_INVALID_BINARY, "property sets at");
    damaged(d_ptype, SX_ERROR_INVALID_BINARY, "unknown type 7");
    damaged(d_u32big, SX_ERROR_INVALID_BINARY, "does not fit 32 bits");
    damaged(d_bits, SX_ERROR_INVALID_BINARY, "size prefix says 65 bits but 8 payload bytes");
    damaged(d_short, SX_ERROR_INVALID_BINARY, "shorter than its 8-byte size prefix");
    damaged(d_voff, SX_ERROR_INVALID_BINARY, "runs past the end of the file");
    damaged(d_strlen, SX_ERROR_INVALID_BINARY, "string is not exactly 3 bytes");
    damaged(d_strmax, SX_ERROR_INVALID_BINARY, "runs past the end");
}
END_TEST

/* Issue 25: a 1.1 file carries CRC-32C checksums of its blocks: a damaged
 * byte is refused naming its block's bytes (the first damaged block when
 * several are); a 1.0 file (no checksums) still loads; a damaged trailer
 * or table is refused too. */
START_TEST(checksums_name_the_damaged_block)
{
    sxp_image *img = sxp_image_new("big", SX_TARGET_SPIRV64, SX_BINARY_FORMAT_SPIRV);
    img->size = 300000; /* five 64 KiB blocks */
    img->data = sxp_xmalloc(img->size);
    for (size_t i = 0; i < img->size; i++)
        img->data[i] = (uint8_t)(i * 7);
    sxp_image_add_entry(img, "k");
    sxp_buf f = {0};
    sxp_image_file_write(&img, 1, &f);
    sxp_image_free(img);
    ck_assert_uint_eq(f.data[SXIMG_H_MINOR], 1);
    ck_assert(f.data[SXIMG_H_FLAGS] & SXIMG_FLAG_CHECKSUMS);
    sx_device_binaries *d = NULL;
    CK_OK(sxi_image_file_parse(f.data, f.len, &d));
    sxi_image_file_free(d);
    /* Bytes in blocks 3 and 1 damaged: block 1 (65536..131071) is named. */
    f.data[3 * 65536 + 10] ^= 0x40;
    f.data[65536 + 5000] ^= 0x01;
    d = NULL;
    CK_ERR(sxi_image_file_parse(f.data, f.len, &d), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("bytes 65536..131071 (block 1 of 5) do not match their checksum");
    ck_assert_ptr_null(d);
    /* The same file without the flag (what a 1.0 writer made): loads, its
     * damage unseen (inside the binary's bytes, which nothing else checks). */
    f.data[SXIMG_H_FLAGS] &= (uint8_t)~SXIMG_FLAG_CHECKSUMS;
    CK_OK(sxi_image_file_parse(f.data, f.len, &d));
    sxi_image_file_free(d);
    f.data[SXIMG_H_FLAGS] |= SXIMG_FLAG_CHECKSUMS;
    f.data[3 * 65536 + 10] ^= 0x40;
    f.data[65536 + 5000] ^= 0x01;
    /* The table's last entry, then the trailer's block size. */
    f.data[f.len - SXIMG_TRAILER_SIZE - 1] ^= 0x80;
    CK_ERR(sxi_image_file_parse(f.data, f.len, &d), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("the checksum table or trailer is damaged");
    f.data[f.len - SXIMG_TRAILER_SIZE - 1] ^= 0x80;
    f.data[f.len - SXIMG_TRAILER_SIZE + 8] = 0x11;
    CK_ERR(sxi_image_file_parse(f.data, f.len, &d), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("is not a power of two");
    sxp_buf_free(&f);
}
END_TEST

/* Issue 26, finding 4: records shared to multiply the work. N image
 * records all naming the same S property sets of P properties each used
 * to cost N*S*P steps and a descriptor of that many records (a 42 KB file:
 * 513 MB; a 224 KB one: still parsing after 30 s; this 90 KB one: 4 M
 * property records). References beyond what the file can hold are refused
 * during the first walk, before any allocation, so the work stays linear
 * in the file's size. */
START_TEST(shared_records_refused)
{
    enum { N = 1000, S = 64, P = 64 };
    size_t strings = 2, size = SXIMG_HEADER_SIZE + (size_t)N * SXIMG_IMAGE_RECORD_SIZE +
                                S * SXIMG_SET_RECORD_SIZE + P * SXIMG_PROP_RECORD_SIZE + strings + 8;
    uint8_t *d = calloc(1, size);
    size_t images = SXIMG_HEADER_SIZE, sets = images + (size_t)N * SXIMG_IMAGE_RECORD_SIZE,
           props = sets + S * SXIMG_SET_RECORD_SIZE, str = props + P * SXIMG_PROP_RECORD_SIZE, data = str + strings;
    memcpy(d, SXIMG_MAGIC, SXIMG_MAGIC_SIZE);
    d[SXIMG_H_MAJOR] = 1;
    put32(d + SXIMG_H_HEADER_SIZE, SXIMG_HEADER_SIZE);
    put64(d + SXIMG_H_FILE_SIZE, size);
    put32(d + SXIMG_H_NUM_IMAGES, N);
    d[SXIMG_H_IMAGE_RECORD_SIZE] = SXIMG_IMAGE_RECORD_SIZE;
    d[SXIMG_H_SET_RECORD_SIZE] = SXIMG_SET_RECORD_SIZE;
    d[SXIMG_H_PROP_RECORD_SIZE] = SXIMG_PROP_RECORD_SIZE;
    put64(d + SXIMG_H_IMAGES_OFFSET, images);
    put64(d + SXIMG_H_STRINGS_OFFSET, str);
    put64(d + SXIMG_H_STRINGS_SIZE, strings);
    d[str] = 'x'; /* "x" at string 0 */
    for (size_t i = 0; i < N; i++) {
        uint8_t *r = d + images + i * SXIMG_IMAGE_RECORD_SIZE;
        r[SXIMG_I_BINARY_VERSION] = 1;
        r[SXIMG_I_KIND] = SX_OFFLOAD_KIND_SYCL;
        put32(r + SXIMG_I_COMPILE_OPTIONS, SXIMG_NO_STRING);
        put32(r + SXIMG_I_LINK_OPTIONS, SXIMG_NO_STRING);
        put64(r + SXIMG_I_DATA_OFFSET, data);
        put64(r + SXIMG_I_DATA_SIZE, 8);
        put32(r + SXIMG_I_NUM_SETS, S);
        put64(r + SXIMG_I_SETS_OFFSET, sets); /* every image: the same sets */
    }
    for (size_t k = 0; k < S; k++) {
        uint8_t *r = d + sets + k * SXIMG_SET_RECORD_SIZE;
        put32(r + SXIMG_S_NUM_PROPS, P);
        put64(r + SXIMG_S_PROPS_OFFSET, props); /* every set: the same properties */
    }
    for (size_t k = 0; k < P; k++)
        put32(d + props + k * SXIMG_PROP_RECORD_SIZE + SXIMG_P_TYPE, SX_PROPERTY_TYPE_UINT32);
    sx_device_binaries *out = NULL;
    CK_ERR(sxi_image_file_parse(d, size, &out), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("more than a file of");
    ck_assert_ptr_null(out);
    free(d);
}
END_TEST

START_TEST(null_arguments)
{
    sx_device_binaries *d;
    CK_ERR(sxi_image_file_parse(NULL, 10, &d), SX_ERROR_INVALID_NULL_POINTER);
    CK_ERR(sxi_image_file_parse("x", 1, NULL), SX_ERROR_INVALID_NULL_POINTER);
    sxi_image_file_free(NULL);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("image-file");
    TCase *tc = tcase_create("parse");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, round_trip);
    tcase_add_test(tc, empty_file_of_no_images);
    tcase_add_test(tc, every_truncation_fails);
    tcase_add_test(tc, every_bit_flip_is_safe);
    tcase_add_test(tc, hostile_fields);
    tcase_add_test(tc, null_arguments);
    tcase_add_test(tc, checksums_name_the_damaged_block);
    tcase_add_test(tc, shared_records_refused);
    suite_add_tcase(s, tc);
    return s;
}

SXT_MAIN(suite)
