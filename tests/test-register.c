/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-register.c: registration checks every field of a descriptor and
 * registers all or nothing; unregistration removes only its own images. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check-util.h"
#include "fake-image.h"

static void init_fake(void)
{
    setenv("SX_ADAPTERS", sxt_build_path("tests/fake/.libs/fake-good.so"), 1);
    CK_OK(sx_init(0));
}

/* Damage `f` one way; registering must fail with INVALID_BINARY, naming `what`. */
static void expect_rejected(fake_image *f, const char *what)
{
    CK_ERR(sx_register_images(&f->desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS(what);
    sx_kernel k;
    CK_ERR(sx_kernel_get("k_args", &k), SX_ERROR_INVALID_KERNEL_NAME);
}

START_TEST(damaged_descriptors_are_rejected_whole)
{
    init_fake();
    fake_image f;
    fake_image_init(&f, NULL, 0);
    f.bin.binary_end = f.bin.binary_start;
    expect_rejected(&f, "empty");
    fake_image_init(&f, NULL, 0);
    f.bin.binary_end = (const unsigned char *)((uintptr_t)f.bin.binary_start - 1);
    expect_rejected(&f, "binary range");
    fake_image_init(&f, NULL, 0);
    f.bin.binary_start = NULL;
    expect_rejected(&f, "binary range");
    fake_image_init(&f, NULL, 0);
    f.bin.kind = 3;
    expect_rejected(&f, "offload kind 3");
    fake_image_init(&f, NULL, 0);
    f.entries[1].name = NULL;
    expect_rejected(&f, "entry 1 has no name");
    fake_image_init(&f, NULL, 0);
    f.bin.entries_end = (sx_offload_entry *)((char *)f.bin.entries_end - 4);
    expect_rejected(&f, "whole number");
    fake_image_init(&f, NULL, 0);
    f.sig_props[0].value_size = 4;
    expect_rejected(&f, "too short");
    fake_image_init(&f, NULL, 0);
    uint64_t bits = 100000;
    memcpy(f.sig, &bits, 8);
    expect_rejected(&f, "claims 100000 bits");
    fake_image_init(&f, NULL, 0);
    f.sig_props[0].type = 9;
    expect_rejected(&f, "unknown type 9");
    fake_image_init(&f, NULL, 0);
    f.sets[0].name = NULL;
    expect_rejected(&f, "no name");
    fake_image_init(&f, NULL, 0);
    f.sig[8] = 7; /* signature version */
    expect_rejected(&f, "version 7");
    fake_image_init(&f, NULL, 0);
    f.sig[8 + 4 * 4] = 200; /* num_params past the payload */
    expect_rejected(&f, "truncated");
    fake_image_init(&f, NULL, 0);
    f.sig[8 + 20] = 9; /* param 0 kind */
    expect_rejected(&f, "parameter 0 has kind 9");
    fake_image_init(&f, NULL, 0);
    f.bin.format = SX_BINARY_FORMAT_COMPRESSED_NONE;
    expect_rejected(&f, "compressed");
    fake_image_init(&f, NULL, 0);
    f.entries[1].name = (char *)"k_args";
    expect_rejected(&f, "listed twice");
    fake_image_init(&f, NULL, 0);
    f.desc.device_binaries = NULL;
    expect_rejected(&f, "array is NULL");
    fake_image_init(&f, NULL, 0);
    f.desc.version = 2;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_UNSUPPORTED_VERSION);
    CK_ERR(sx_register_images(NULL), SX_ERROR_INVALID_NULL_POINTER);
    CK_OK(sx_fini());
}
END_TEST

START_TEST(register_twice_and_unknown_unregister)
{
    init_fake();
    fake_image f;
    fake_image_init(&f, NULL, 0);
    CK_OK(sx_register_images(&f.desc));
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_OPERATION);
    CK_OK(sx_unregister_images(&f.desc));
    CK_ERR(sx_unregister_images(&f.desc), SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_unregister_images(NULL), SX_ERROR_INVALID_NULL_POINTER);
    CK_OK(sx_fini());
}
END_TEST

static int shadow_warnings;
static void count_shadow(sx_log_level level, const char *message, void *user)
{
    (void)user;
    if (level == SX_LOG_WARN && strstr(message, "is registered by descriptors") && strstr(message, "the first"))
        shadow_warnings++;
}

START_TEST(two_libraries_one_kernel_name)
{
    /* Registered before sx_init, like a shared object's constructor. The
     * second descriptor's kernels for the same target are shadowed by the
     * first's: said in a warning per name (issue 26, finding 13). */
    CK_OK(sx_set_log_callback(count_shadow, NULL));
    CK_OK(sx_set_log_level(SX_LOG_WARN));
    fake_image a, b;
    fake_image_init(&a, NULL, 0);
    fake_image_init(&b, NULL, 0);
    CK_OK(sx_register_images(&a.desc));
    ck_assert_int_eq(shadow_warnings, 0);
    CK_OK(sx_register_images(&b.desc));
    ck_assert_int_eq(shadow_warnings, 2); /* k_args and k_plain */
    CK_OK(sx_set_log_callback(NULL, NULL));
    init_fake();
    sx_device d;
    sx_context c;
    sx_queue q;
    CK_OK(sx_device_get_default(&d));
    CK_OK(sx_context_create(1, &d, &c));
    CK_OK(sx_queue_create(c, d, 0, &q));
    sx_kernel k;
    CK_OK(sx_kernel_get("k_plain", &k));
    size_t g[1] = {1};
    CK_OK(sx_queue_launch(q, k, 1, NULL, g, NULL, 0, NULL, 0, NULL, NULL));
    CK_OK(sx_unregister_images(&a.desc));
    CK_OK(sx_queue_launch(q, k, 1, NULL, g, NULL, 0, NULL, 0, NULL, NULL)); /* b still has it */
    CK_OK(sx_unregister_images(&b.desc));
    CK_ERR(sx_queue_launch(q, k, 1, NULL, g, NULL, 0, NULL, 0, NULL, NULL), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_OK(sx_register_images(&a.desc));
    CK_OK(sx_queue_launch(q, k, 1, NULL, g, NULL, 0, NULL, 0, NULL, NULL)); /* back */
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_queue_release(q));
    CK_OK(sx_context_release(c));
    CK_OK(sx_fini());
    CK_OK(sx_unregister_images(&a.desc)); /* after fini */
}
END_TEST

START_TEST(llvm_offload_entries_are_read)
{
    init_fake();
    fake_image f;
    fake_image_init(&f, NULL, 0);
    /* The 56-byte layout: reserved 0, version 1, kind 8 (SYCL), name at 24. */
    struct { uint64_t reserved; uint16_t version, kind; uint32_t flags; void *addr; const char *name;
             uint64_t size, data; void *aux; } e[2] = {{0, 1, 8, 0, NULL, "k_args", 0, 0, NULL},
                                                       {0, 1, 8, 0, NULL, "k_llvm", 0, 0, NULL}};
    _Static_assert(sizeof(e[0]) == 56, "layout");
    f.bin.entries_begin = (sx_offload_entry *)e;
    f.bin.entries_end = (sx_offload_entry *)(e + 2);
    CK_OK(sx_register_images(&f.desc));
    sx_kernel k;
    CK_OK(sx_kernel_get("k_llvm", &k));
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_unregister_images(&f.desc));
    CK_OK(sx_fini());
}
END_TEST

START_TEST(image_files_fail_cleanly)
{
    init_fake();
    sx_image_file file;
    CK_ERR(sx_image_file_load("/nonexistent/x.sximg", &file), SX_ERROR_IO);
    CK_MSG_HAS("/nonexistent/x.sximg");
    CK_ERR(sx_image_file_load("/", &file), SX_ERROR_IO);
    CK_ERR(sx_image_file_load(NULL, &file), SX_ERROR_INVALID_NULL_POINTER);
    static const char junk[] = "not an image file at all";
    sx_result r = sx_image_file_load_memory(junk, sizeof(junk), &file);
    ck_assert_msg(r == SX_ERROR_INVALID_BINARY || r == SX_ERROR_UNSUPPORTED_FEATURE, "%s", sx_result_name(r));
    CK_ERR(sx_image_file_release(NULL), SX_ERROR_INVALID_NULL_HANDLE);
    CK_OK(sx_fini());
}
END_TEST

/* ------------------------------------------------ work bounded by input */

/* Under valgrind (tests/valgrind.sh) a fifth of the sizes. */
static unsigned scaled(unsigned n)
{
    const char *v = getenv("SX_TEST_UNDER_VALGRIND");
    return v && *v == '1' ? n / 20 : n;
}

/* Issue 26, finding 5: one image of 100 000 kernel names and a property
 * set of 100 000 properties looked up per name. Each name used to be
 * compared with every earlier one and every property scanned per name
 * (100 000 names: 29 s); a hash set and a name->property map make it
 * linear. The test case's timeout (60 s) is the generous bound. */
START_TEST(hundred_thousand_names)
{
    unsigned n = scaled(100000);
    fake_image f;
    fake_image_init(&f, NULL, 0);
    sx_offload_entry *e = calloc(n, sizeof(*e));
    sx_device_binary_property *props = calloc(n, sizeof(*props));
    char *names = malloc((size_t)n * 16), *syms = malloc((size_t)n * 16);
    ck_assert(e && props && names && syms);
    for (unsigned i = 0; i < n; i++) {
        snprintf(names + (size_t)i * 16, 16, "k%07u", i);
        snprintf(syms + (size_t)i * 16, 16, "s%07u", i);
        e[i].name = names + (size_t)i * 16;
        props[i] = (sx_device_binary_property){.name = syms + (size_t)i * 16, .type = SX_PROPERTY_TYPE_UINT32};
    }
    sx_device_binary_property_set set = {(char *)SX_PROP_SET_EXPORTED_SYMBOLS, props, props + n};
    f.bin.entries_begin = e;
    f.bin.entries_end = e + n;
    f.bin.property_sets_begin = &set;
    f.bin.property_sets_end = &set + 1;
    init_fake();
    CK_OK(sx_register_images(&f.desc));
    sx_kernel k;
    char last[16];
    snprintf(last, sizeof(last), "k%07u", n - 1);
    CK_OK(sx_kernel_get(last, &k));
    CK_OK(sx_kernel_release(k));
    CK_OK(sx_unregister_images(&f.desc));
    /* A duplicate among them is still found (now by the hash set). */
    e[n - 1].name = e[n / 2].name;
    CK_ERR(sx_register_images(&f.desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS("is listed twice");
    CK_OK(sx_fini());
    free(e);
    free(props);
    free(names);
    free(syms);
}
END_TEST

/* Issue 26, finding 7: 50 000 one-image descriptors (what --emit-c
 * constructors register) registered, then unregistered. Unregistration
 * used to walk every registered kernel name per descriptor (100 000: 831 s
 * at exit); now it costs what it removes. Timeout 60 s. */
START_TEST(fifty_thousand_descriptors)
{
    unsigned n = scaled(50000);
    fake_image *fs = malloc((size_t)n * sizeof(*fs));
    char (*names)[2][16] = malloc((size_t)n * sizeof(*names));
    ck_assert(fs && names);
    for (unsigned i = 0; i < n; i++) {
        fake_image_init(&fs[i], NULL, 0);
        snprintf(names[i][0], 16, "a%07u", i);
        snprintf(names[i][1], 16, "b%07u", i);
        fs[i].entries[0].name = names[i][0];
        fs[i].entries[1].name = names[i][1];
        fs[i].bin.property_sets_begin = fs[i].bin.property_sets_end = NULL; /* no signatures: names only */
        CK_OK(sx_register_images(&fs[i].desc));
    }
    init_fake();
    sx_kernel k;
    CK_OK(sx_kernel_get("a0000000", &k));
    CK_OK(sx_kernel_release(k));
    /* Newest first and oldest first, both O(1) to find. */
    for (unsigned i = n; i-- > n / 2;)
        CK_OK(sx_unregister_images(&fs[i].desc));
    for (unsigned i = 0; i < n / 2; i++)
        CK_OK(sx_unregister_images(&fs[i].desc));
    CK_ERR(sx_kernel_get("a0000000", &k), SX_ERROR_INVALID_KERNEL_NAME);
    CK_OK(sx_fini());
    free(fs);
    free(names);
}
END_TEST

static Suite *register_suite(void)
{
    Suite *s = suite_create("register");
    TCase *tc = tcase_create("descriptors");
    tcase_add_test(tc, damaged_descriptors_are_rejected_whole);
    tcase_add_test(tc, register_twice_and_unknown_unregister);
    tcase_add_test(tc, two_libraries_one_kernel_name);
    tcase_add_test(tc, llvm_offload_entries_are_read);
    tcase_add_test(tc, image_files_fail_cleanly);
    suite_add_tcase(s, tc);
    tc = tcase_create("scale");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, hundred_thousand_names);
    tcase_add_test(tc, fifty_thousand_descriptors);
    suite_add_tcase(s, tc);
    return s;
}

SXT_MAIN(register_suite)
