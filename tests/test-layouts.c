/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-layouts.c: hand-made descriptors in every layout DPC++ has shipped
 * (device-image versions 1, 2, 3; 32- and 56-byte entries; zstd-compressed
 * images, damaged ones and one lying about its size) registered and
 * launched on the fake TEST adapter (issue 27). */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "check-util.h"
#include "fake-image.h"

static sx_device dev;
static sx_context ctx;
static sx_queue q;

static void setup(void)
{
    char list[4200];
    snprintf(list, sizeof(list), "%s", sxt_build_path("tests/fake/.libs/fake-good.so"));
    setenv("SX_ADAPTERS", list, 1);
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&dev));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, 0, &q));
}

static void teardown(void)
{
    sx_queue_release(q);
    sx_context_release(ctx);
    sx_fini();
}

/* Launch "k_args" (the fake adapter writes through its pointer). */
static sx_result launch(const char *name)
{
    sx_kernel k;
    sx_result r = sx_kernel_get(name, &k);
    if (r != SX_SUCCESS)
        return r;
    unsigned long out = 0;
    int val = 5;
    sx_arg args[3] = {
        {SX_ARG_POINTER, 0, sizeof(void *), &out},
        {SX_ARG_VALUE, 1, sizeof(int), &val},
        {SX_ARG_LOCAL, 2, 256, NULL},
    };
    size_t g[1] = {64}, l[1] = {16};
    r = sx_queue_launch(q, k, 1, NULL, g, l, 3, args, 0, NULL, NULL);
    if (r == SX_SUCCESS)
        r = sx_queue_wait(q);
    if (r == SX_SUCCESS)
        ck_assert_uint_ge(out, 1);
    sx_kernel_release(k);
    return r;
}

/* The fake image's record in the version-3 layout. */
static sx_device_binary_v3 to_v3(const sx_device_binary *b)
{
    return (sx_device_binary_v3){
        .version = SX_DEVICE_BINARY_VERSION_3, .kind = b->kind, .format = b->format,
        .device_target_spec = b->device_target_spec, .compile_options = b->compile_options,
        .link_options = b->link_options, .binary_start = b->binary_start, .binary_end = b->binary_end,
        .entries_begin = b->entries_begin, .entries_end = b->entries_end,
        .property_sets_begin = b->property_sets_begin, .property_sets_end = b->property_sets_end,
    };
}

START_TEST(versions_1_and_2)
{
    static const uint16_t versions[] = {SX_DEVICE_BINARY_VERSION_1, SX_DEVICE_BINARY_VERSION_2};
    for (int i = 0; i < 2; i++) {
        fake_image f;
        fake_image_init(&f, NULL, 0);
        f.bin.version = versions[i];
        CK_OK(sx_register_images(&f.desc));
        CK_OK(launch("k_args"));
        CK_OK(sx_unregister_images(&f.desc));
    }
}
END_TEST

START_TEST(version_3_without_manifest)
{
    fake_image f, g;
    fake_image_init(&f, NULL, 0);
    fake_image_init(&g, NULL, 0);
    g.entries[0].name = (char *)"k_second";
    g.entries[1].name = (char *)"k_third";
    /* Two 80-byte records: the second is found at 80, not at 96. */
    sx_device_binary_v3 recs[2] = {to_v3(&f.bin), to_v3(&g.bin)};
    f.desc.num_device_binaries = 2;
    f.desc.device_binaries = (sx_device_binary *)(void *)recs;
    CK_OK(sx_register_images(&f.desc));
    CK_OK(launch("k_args"));
    sx_kernel k;
    CK_OK(sx_kernel_get("k_third", &k));
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_unregister_images(&f.desc));
    CK_ERR(sx_kernel_get("k_third", &k), SX_ERROR_INVALID_KERNEL_NAME);
}
END_TEST

START_TEST(versions_mixed_in_one_descriptor)
{
    fake_image f, g;
    fake_image_init(&f, NULL, 0);
    fake_image_init(&g, NULL, 0);
    g.entries[0].name = (char *)"k_v3";
    g.entries[1].name = (char *)"k_v3b";
    /* A version-2 record (96 bytes), then a version-3 one (80): each
     * record's size comes from its own version. */
    unsigned char buf[96 + 80] __attribute__((aligned(8)));
    sx_device_binary_v3 v3 = to_v3(&g.bin);
    memcpy(buf, &f.bin, 96);
    memcpy(buf + 96, &v3, 80);
    f.desc.num_device_binaries = 2;
    f.desc.device_binaries = (sx_device_binary *)(void *)buf;
    CK_OK(sx_register_images(&f.desc));
    sx_kernel k;
    CK_OK(sx_kernel_get("k_v3b", &k));
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_unregister_images(&f.desc));
}
END_TEST

START_TEST(unknown_version_refused)
{
    fake_image f;
    fake_image_init(&f, NULL, 0);
    f.bin.version = 4;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("binary version 4 is unknown (this library reads 1, 2 and 3)");
    f.bin.version = 0;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
}
END_TEST

static void llvm_entries(const fake_image *f, sx_offload_entry_llvm *e)
{
    for (int i = 0; i < 2; i++)
        e[i] = (sx_offload_entry_llvm){.version = SX_OFFLOAD_ENTRY_LLVM_VERSION,
                                       .kind = SX_OFFLOAD_ENTRY_LLVM_KIND_SYCL, .symbol_name = f->entries[i].name};
}

START_TEST(llvm_entries_with_every_version)
{
    static const uint16_t versions[] = {1, 2, 3};
    for (int i = 0; i < 3; i++) {
        fake_image f;
        fake_image_init(&f, NULL, 0);
        sx_offload_entry_llvm e[2];
        llvm_entries(&f, e);
        f.bin.entries_begin = (sx_offload_entry *)(void *)e;
        f.bin.entries_end = (sx_offload_entry *)(void *)(e + 2);
        f.bin.version = versions[i];
        sx_device_binary_v3 v3 = to_v3(&f.bin);
        if (versions[i] == 3)
            f.desc.device_binaries = (sx_device_binary *)(void *)&v3;
        CK_OK(sx_register_images(&f.desc));
        CK_OK(launch("k_args"));
        sx_kernel k;
        CK_OK(sx_kernel_get("k_plain", &k));
        CK_OK(sx_kernel_release(k));
        CK_OK(sx_unregister_images(&f.desc));
    }
}
END_TEST

START_TEST(mixed_entry_table_refused)
{
    fake_image f;
    fake_image_init(&f, NULL, 0);
    /* An LLVM entry, then a legacy one: 56 + 32 bytes. */
    unsigned char t[56 + 32] __attribute__((aligned(8)));
    sx_offload_entry_llvm e[2];
    llvm_entries(&f, e);
    memcpy(t, &e[0], 56);
    memcpy(t + 56, &f.entries[1], 32);
    f.bin.entries_begin = (sx_offload_entry *)(void *)t;
    f.bin.entries_end = (sx_offload_entry *)(void *)(t + sizeof(t));
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("56-byte");
    /* A legacy entry, then two LLVM ones: 144 bytes, no whole number of
     * 32-byte entries. */
    unsigned char u[32 + 56 + 56] __attribute__((aligned(8)));
    memcpy(u, &f.entries[0], 32);
    memcpy(u + 32, &e[0], 56);
    memcpy(u + 88, &e[1], 56);
    f.bin.entries_begin = (sx_offload_entry *)(void *)u;
    f.bin.entries_end = (sx_offload_entry *)(void *)(u + sizeof(u));
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    /* Legacy entries with an LLVM one among them, sizes that add up. */
    sx_offload_entry legacy[7];
    memset(legacy, 0, sizeof(legacy));
    for (int i = 0; i < 7; i++)
        legacy[i].name = f.entries[i % 2].name;
    memcpy(&legacy[3], &e[0], 32); /* the first half of an LLVM header inside a legacy table */
    f.bin.entries_begin = legacy;
    f.bin.entries_end = legacy + 7;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("mixed table");
    /* An LLVM table cut short. */
    f.bin.entries_begin = (sx_offload_entry *)(void *)e;
    f.bin.entries_end = (sx_offload_entry *)(void *)((unsigned char *)e + 56 + 40);
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("56-byte LLVM");
}
END_TEST

START_TEST(unread_property_sets_kept)
{
    /* A set the core does not read, with a property of a type it does not
     * know: registered, never refused. */
    fake_image f;
    fake_image_init(&f, NULL, 0);
    sx_device_binary_property props[2] = {
        {(char *)"isEsimdImage", NULL, SX_PROPERTY_TYPE_UINT32, 0},
        {(char *)"future", NULL, 77, 3},
    };
    sx_device_binary_property_set sets[2] = {f.sets[0], {(char *)SX_PROP_SET_MISC, props, props + 2}};
    f.bin.property_sets_begin = sets;
    f.bin.property_sets_end = sets + 2;
    CK_OK(sx_register_images(&f.desc));
    CK_OK(launch("k_args"));
    CK_OK(sx_unregister_images(&f.desc));
    /* The same in a set the core reads is still refused. */
    sets[1].name = (char *)SX_PROP_SET_DEVICE_REQUIREMENTS;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("unknown type 77");
}
END_TEST

#ifdef HAVE_ZSTD
typedef struct {
    fake_image f;
    unsigned char z[256];
    size_t zn;
} zimage;

static void zimage_init(zimage *zi, bool v3, sx_device_binary_v3 *rec)
{
    fake_image_init(&zi->f, NULL, 0);
    zi->zn = ZSTD_compress(zi->z, sizeof(zi->z), zi->f.bytes, sizeof(zi->f.bytes), 3);
    ck_assert(!ZSTD_isError(zi->zn));
    zi->f.bin.format = SX_BINARY_FORMAT_COMPRESSED_NONE;
    zi->f.bin.binary_start = zi->z;
    zi->f.bin.binary_end = zi->z + zi->zn;
    if (v3) {
        *rec = to_v3(&zi->f.bin);
        zi->f.desc.device_binaries = (sx_device_binary *)(void *)rec;
    }
}

START_TEST(compressed_registers_and_runs)
{
    for (int v3 = 0; v3 < 2; v3++) {
        zimage zi;
        sx_device_binary_v3 rec;
        zimage_init(&zi, v3, &rec);
        CK_OK(sx_register_images(&zi.f.desc));
        CK_OK(launch("k_args")); /* decoded here, at first use */
        CK_OK(launch("k_args"));
        CK_OK(sx_unregister_images(&zi.f.desc));
    }
}
END_TEST

START_TEST(damaged_compressed_refused)
{
    zimage zi;
    zimage_init(&zi, false, NULL);
    zi.z[0] ^= 0xff; /* not a zstd frame */
    CK_ERR(sx_register_images(&zi.f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("not a zstd frame");
    zi.z[0] ^= 0xff;
    zi.f.bin.binary_end = zi.z + zi.zn - 3; /* cut short */
    CK_ERR(sx_register_images(&zi.f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("damaged");
    zi.z[zi.zn] = 0;
    zi.f.bin.binary_end = zi.z + zi.zn + 1; /* a byte after the frame */
    CK_ERR(sx_register_images(&zi.f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("nothing after it");
    /* A frame header stating 3 GiB: over the bound, refused before any
     * allocation. Magic, descriptor (8-byte size, single segment), the
     * size, one empty raw last block. */
    static const unsigned char big[16] = {0x28, 0xb5, 0x2f, 0xfd, 0xe0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 1, 0, 0};
    zi.f.bin.binary_start = big;
    zi.f.bin.binary_end = big + sizeof(big);
    CK_ERR(sx_register_images(&zi.f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("claims 3221225472 bytes");
}
END_TEST

START_TEST(lying_size_refused_at_registration)
{
    zimage zi;
    zimage_init(&zi, false, NULL);
    /* Single-segment frame of 16 bytes: the 1-byte content size follows
     * the frame descriptor. Say 40: its one block decodes to 16, which
     * registration's look at the first bytes already sees. */
    ck_assert_uint_eq(zi.z[4] & 0x20, 0x20);
    ck_assert_uint_eq(zi.z[5], 16);
    zi.z[5] = 40;
    CK_ERR(sx_register_images(&zi.f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("does not decode");
}
END_TEST

/* A 300 KB image (three zstd blocks, checksummed): registration decodes
 * only the first block, so damage further on shows at first use. */
#define BIG (300u << 10)
static unsigned char big_plain[BIG], big_z[BIG + 4096];

static size_t big_frame(void)
{
    memcpy(big_plain, "\x7f" "ELFfake-image..", 16);
    for (size_t i = 16; i < BIG; i++)
        big_plain[i] = (unsigned char)(i * 7 ^ i >> 5);
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    size_t n = ZSTD_compress2(c, big_z, sizeof(big_z), big_plain, BIG);
    ZSTD_freeCCtx(c);
    ck_assert(!ZSTD_isError(n));
    return n;
}

START_TEST(damage_found_at_first_use)
{
    for (int lie = 0; lie < 2; lie++) {
        fake_image f;
        fake_image_init(&f, NULL, 0);
        size_t n = big_frame();
        if (lie) {
            /* The 4-byte content size (single segment, FCS flag 2) says
             * 1000 bytes more than the frame holds. */
            ck_assert_uint_eq(big_z[4] & 0xe0, 0xa0);
            uint32_t size;
            memcpy(&size, big_z + 5, 4);
            ck_assert_uint_eq(size, BIG);
            size += 1000;
            memcpy(big_z + 5, &size, 4);
        } else {
            big_z[n - 2] ^= 0x5a; /* the checksum at the end */
        }
        f.bin.format = SX_BINARY_FORMAT_COMPRESSED_NONE;
        f.bin.binary_start = big_z;
        f.bin.binary_end = big_z + n;
        CK_OK(sx_register_images(&f.desc));
        CK_ERR(launch("k_args"), SX_ERROR_INVALID_BINARY);
        CK_MSG_HAS("damaged");
        CK_MSG_HAS("k_args");
        CK_ERR(launch("k_args"), SX_ERROR_INVALID_BINARY); /* again: still an error, no crash */
        CK_OK(sx_unregister_images(&f.desc));
    }
    /* Undamaged, the same big image runs. */
    fake_image f;
    fake_image_init(&f, NULL, 0);
    size_t n = big_frame();
    f.bin.format = SX_BINARY_FORMAT_COMPRESSED_NONE;
    f.bin.binary_start = big_z;
    f.bin.binary_end = big_z + n;
    CK_OK(sx_register_images(&f.desc));
    CK_OK(launch("k_args"));
    CK_OK(sx_unregister_images(&f.desc));
}
END_TEST
#else
START_TEST(compressed_without_zstd)
{
    fake_image f;
    fake_image_init(&f, NULL, 0);
    f.bin.format = SX_BINARY_FORMAT_COMPRESSED_NONE;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_UNSUPPORTED_FEATURE);
    CK_MSG_HAS("configured without libzstd");
}
END_TEST
#endif

static Suite *suite(void)
{
    Suite *s = suite_create("layouts");
    TCase *t = tcase_create("layouts");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, versions_1_and_2);
    tcase_add_test(t, version_3_without_manifest);
    tcase_add_test(t, versions_mixed_in_one_descriptor);
    tcase_add_test(t, unknown_version_refused);
    tcase_add_test(t, llvm_entries_with_every_version);
    tcase_add_test(t, mixed_entry_table_refused);
    tcase_add_test(t, unread_property_sets_kept);
#ifdef HAVE_ZSTD
    tcase_add_test(t, compressed_registers_and_runs);
    tcase_add_test(t, damaged_compressed_refused);
    tcase_add_test(t, lying_size_refused_at_registration);
    tcase_add_test(t, damage_found_at_first_use);
#else
    tcase_add_test(t, compressed_without_zstd);
#endif
    suite_add_tcase(s, t);
    return s;
}

SXT_MAIN(suite)
