/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-defects.c: the smaller defects of issue 15 (point 4), each checked
 * as a user meets it: descriptors the library must refuse, error messages
 * that must say the truth, and commands past a known USM allocation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check-util.h"
#include "fake-image.h"

/* ------------------------------------------------ descriptors */

START_TEST(unknown_binary_version_refused)
{
    fake_image f;
    fake_image_init(&f, NULL, 0);
    f.bin.version = 77;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("binary version 77");
    f.bin.version = 1; /* DPC++'s runtime writes 1 */
    CK_OK(sx_register_images(&f.desc));
    CK_OK(sx_unregister_images(&f.desc));
}
END_TEST

START_TEST(null_target_refused)
{
    fake_image f;
    fake_image_init(&f, NULL, 0);
    f.bin.device_target_spec = NULL;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("target");
}
END_TEST

START_TEST(half_set_manifest_refused)
{
    fake_image f;
    fake_image_init(&f, NULL, 0);
    static const char manifest[] = "m";
    f.bin.manifest_start = manifest;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("manifest");
    f.bin.manifest_start = NULL;
    f.bin.manifest_end = manifest + 1;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    f.bin.manifest_start = manifest + 1;
    f.bin.manifest_end = manifest;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    f.bin.manifest_start = manifest;
    f.bin.manifest_end = manifest + 1;
    CK_OK(sx_register_images(&f.desc));
    CK_OK(sx_unregister_images(&f.desc));
}
END_TEST

/* A device global whose "@global_id_mapping" is in the program metadata
 * twice: refused (before: registered, the first copy leaked). */
START_TEST(duplicate_global_id_mapping_refused)
{
    fake_image f;
    fake_image_init(&f, NULL, 0);
    uint8_t dgv[8 + 8];
    uint64_t bits = 64;
    uint32_t size = 4, scope = 0;
    memcpy(dgv, &bits, 8);
    memcpy(dgv + 8, &size, 4);
    memcpy(dgv + 12, &scope, 4);
    sx_device_binary_property dgp[1] = {{(char *)"dg_id", dgv, SX_PROPERTY_TYPE_BYTE_ARRAY, sizeof(dgv)}};
    uint8_t sym[8 + 5];
    uint64_t sbits = 5 * 8;
    memcpy(sym, &sbits, 8);
    memcpy(sym + 8, "dg_v1", 5);
    sx_device_binary_property meta[2] = {
        {(char *)"dg_id@global_id_mapping", sym, SX_PROPERTY_TYPE_BYTE_ARRAY, sizeof(sym)},
        {(char *)"dg_id@global_id_mapping", sym, SX_PROPERTY_TYPE_BYTE_ARRAY, sizeof(sym)},
    };
    sx_device_binary_property_set sets[3] = {
        f.sets[0],
        {(char *)SX_PROP_SET_DEVICE_GLOBALS, dgp, dgp + 1},
        {(char *)SX_PROP_SET_PROGRAM_METADATA, meta, meta + 2},
    };
    f.bin.property_sets_begin = sets;
    f.bin.property_sets_end = sets + 3;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("twice");
    sets[2].properties_end = meta + 1; /* once is fine */
    CK_OK(sx_register_images(&f.desc));
    CK_OK(sx_unregister_images(&f.desc));
}
END_TEST

/* ------------------------------------------------ image files */

/* open() and fstat() succeed on these: the message must not carry an
 * errno left by something else (before: "No such file or directory"). */
START_TEST(image_file_not_regular)
{
    sx_image_file f;
    errno = ENOENT;
    CK_ERR(sx_image_file_load("/", &f), SX_ERROR_IO);
    CK_MSG_HAS("a directory, not a regular file");
    ck_assert_msg(!strstr(sx_last_error(), "No such file"), "stale errno: %s", sx_last_error());
    errno = ENOENT;
    CK_ERR(sx_image_file_load("/dev/zero", &f), SX_ERROR_IO);
    CK_MSG_HAS("a character device");
    ck_assert_msg(!strstr(sx_last_error(), "No such file"), "stale errno: %s", sx_last_error());
    CK_ERR(sx_image_file_load("/nonexistent/x.sximg", &f), SX_ERROR_IO);
    CK_MSG_HAS("No such file");
    /* Issue 26, finding 8: a FIFO with no writer is refused at once (the
     * open used to wait for a writer forever; the case timeout catches that). */
    char fifo[] = "/tmp/sx-fifo-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(fifo));
    char path[64];
    snprintf(path, sizeof(path), "%s/f", fifo);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    CK_ERR(sx_image_file_load(path, &f), SX_ERROR_IO);
    CK_MSG_HAS("a pipe, not a regular file");
    unlink(path);
    rmdir(fifo);
}
END_TEST

/* Issue 26, finding 11: a STRING property is read within its value_size:
 * 4 bytes without a NUL after them (ASan: heap-buffer-overflow before,
 * strnlen ran up to 4 MiB past them). */
START_TEST(string_property_read_within_value_size)
{
    fake_image f;
    fake_image_init(&f, NULL, 0);
    char *v = malloc(4); /* exactly 4 bytes: a read past them is caught by ASan and valgrind */
    memcpy(v, "setA", 4);
    sx_device_binary_property p = {.name = (char *)"virtual-functions-set", .value_addr = v,
                                   .type = SX_PROPERTY_TYPE_STRING, .value_size = 4};
    sx_device_binary_property_set sets[2] = {f.sets[0], {(char *)SX_PROP_SET_VIRTUAL_FUNCTIONS, &p, &p + 1}};
    f.bin.property_sets_begin = sets;
    f.bin.property_sets_end = sets + 2;
    CK_OK(sx_register_images(&f.desc));
    CK_OK(sx_unregister_images(&f.desc));
    free(v);
}
END_TEST

/* ------------------------------------------------ commands */

typedef struct {
    sx_device dev;
    sx_context ctx;
    sx_queue q;
} native_env;

static void native_open(native_env *t)
{
    setenv("SX_ADAPTERS", "native", 1);
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&t->dev));
    CK_OK(sx_context_create(1, &t->dev, &t->ctx));
    CK_OK(sx_queue_create(t->ctx, t->dev, 0, &t->q));
}

static void native_close(native_env *t)
{
    CK_OK(sx_queue_release(t->q));
    CK_OK(sx_context_release(t->ctx));
    CK_OK(sx_fini());
}

/* Past the end of an allocation the library recorded: an error, not a
 * smashed heap (before: the adapter copied past the end). */
START_TEST(memcpy_fill_past_usm_allocation)
{
    native_env t;
    native_open(&t);
    char *a, *b;
    CK_OK(sx_usm_alloc(t.ctx, t.dev, SX_USM_TYPE_SHARED, 64, 0, (void **)&a));
    CK_OK(sx_usm_alloc(t.ctx, t.dev, SX_USM_TYPE_SHARED, 256, 0, (void **)&b));
    CK_ERR(sx_queue_memcpy(t.q, 1, a, b, 65, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("64 bytes");
    CK_ERR(sx_queue_memcpy(t.q, 1, b, a, 100, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("src");
    CK_ERR(sx_queue_memcpy(t.q, 1, a + 60, b, 8, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("4 left");
    CK_OK(sx_queue_memcpy(t.q, 1, a, b, 64, 0, NULL, NULL));
    CK_OK(sx_queue_memcpy(t.q, 1, a + 32, b, 32, 0, NULL, NULL));
    int pat = 5;
    CK_ERR(sx_queue_fill(t.q, a, &pat, sizeof(pat), 68, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_queue_fill(t.q, a + 8, &pat, sizeof(pat), 64, 0, NULL, NULL), SX_ERROR_INVALID_VALUE);
    CK_OK(sx_queue_fill(t.q, a, &pat, sizeof(pat), 64, 0, NULL, NULL));
    CK_OK(sx_queue_wait(t.q));
    ck_assert_int_eq(((int *)a)[15], 5);
    CK_OK(sx_usm_free(t.ctx, a));
    CK_OK(sx_usm_free(t.ctx, b));
    native_close(&t);
}
END_TEST

/* An element count that overflows: the message names the variable. */
static struct {
    void *usm;
    int value[4];
} dg_counts;

START_TEST(dg_copy_overflow_names_variable)
{
    native_env t;
    CK_OK(sx_device_global_add(&dg_counts, "dg_counts_id", sizeof(dg_counts.value), 0, SX_HOST_ACCESS_READ_WRITE));
    native_open(&t);
    int v[4] = {0};
    CK_ERR(sx_queue_device_global_copy_to(t.q, v, &dg_counts, sizeof(int), SIZE_MAX / 2, 0, 1, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("dg_counts_id");
    CK_ERR(sx_queue_device_global_copy_from(t.q, v, &dg_counts, sizeof(int), 1, SIZE_MAX / 2, 1, 0, NULL, NULL),
           SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("dg_counts_id");
    CK_ERR(sx_queue_device_global_copy_to(t.q, v, &dg_counts, 0, 1, 0, 1, 0, NULL, NULL), SX_ERROR_INVALID_SIZE);
    CK_MSG_HAS("dg_counts_id");
    native_close(&t);
    CK_OK(sx_device_global_remove(&dg_counts));
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("defects");
    TCase *tc = tcase_create("descriptors");
    tcase_add_test(tc, unknown_binary_version_refused);
    tcase_add_test(tc, null_target_refused);
    tcase_add_test(tc, half_set_manifest_refused);
    tcase_add_test(tc, duplicate_global_id_mapping_refused);
    tcase_add_test(tc, image_file_not_regular);
    tcase_add_test(tc, string_property_read_within_value_size);
    suite_add_tcase(s, tc);
    tc = tcase_create("commands");
    tcase_add_test(tc, memcpy_fill_past_usm_allocation);
    tcase_add_test(tc, dg_copy_overflow_names_variable);
    suite_add_tcase(s, tc);
    return s;
}

SXT_MAIN(suite)
