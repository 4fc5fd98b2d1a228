/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-vf.c: virtual functions on the fake TEST adapter: the dependency
 * properties, the resolver (calls vs creates sets, dummy images, several
 * providers, imported symbols), linking, the in-memory program cache and
 * the persistent cache across processes. Linked with the core's
 * convenience library to read its counters. */
#include <dirent.h>
#include <pthread.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check-util.h"
#include "sx-internal.h"
#include "vf-images.h"

static sx_device dev;
static sx_context ctx;
static sx_queue q;
static char tmpdir[256];
static char linklog[300];
static sxi_program_stats base;

static void rm_rf(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[1024];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            rm_rf(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static void start(void)
{
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&dev));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, 0, &q));
}

static void setup_env(void)
{
    setenv("SX_ADAPTERS", sxt_build_path("tests/fake/.libs/fake-good.so"), 1);
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/sx-vf-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    snprintf(linklog, sizeof(linklog), "%s/link.log", tmpdir);
    setenv("FAKE_LINK_LOG", linklog, 1);
    setenv("SX_CACHE", "0", 1);
    unsetenv("FAKE_FP64");
    unsetenv("FAKE_NO_LINK");
    unsetenv("FAKE_NO_BINARY");
    sxi_program_stats_get(&base);
}

static void setup(void)
{
    setup_env();
    start();
}

static void setup_fp64(void)
{
    setup_env();
    setenv("FAKE_FP64", "1", 1);
    start();
}

static void teardown(void)
{
    sx_fini();
    rm_rf(tmpdir);
}

static sx_result launch(const char *name) { return vf_launch(q, name); }

/* The registered record of image i of a library. */
static const sxi_image *image_of(const vf_lib *l, unsigned i)
{
    const sxi_image *im = NULL;
    sxi_registry_lock();
    for (const sxi_library *lib = sxi_registry_libraries(); lib; lib = lib->next)
        if (lib->desc == &l->desc)
            im = &lib->images[i];
    sxi_registry_unlock();
    ck_assert_msg(im != NULL, "library not registered");
    return im;
}

/* The program of (ctx, dev) whose kernel image is `im`, or NULL. */
static sxi_program *program_of(const sxi_image *im)
{
    sxi_program *p = NULL;
    uint32_t n = sxi_programs_with_image(ctx, dev, im->id, &p);
    for (sxi_program *x = ctx->programs; n && x; x = x->next)
        if (x->device == dev && x->image_ids[0] == im->id)
            return x;
    return NULL;
}

static bool program_has(const sxi_program *p, const sxi_image *im)
{
    for (uint32_t i = 0; i < p->num_images; i++)
        if (p->image_ids[i] == im->id)
            return true;
    return false;
}

static unsigned log_count(const char *word) { return vf_log_count(linklog, word); }

/* The counters since this test's setup (they are process-wide). */
static sxi_program_stats stats(void)
{
    sxi_program_stats s;
    sxi_program_stats_get(&s);
    uint64_t *v = (uint64_t *)&s;
    const uint64_t *b = (const uint64_t *)&base;
    for (size_t i = 0; i < sizeof(s) / sizeof(uint64_t); i++)
        v[i] -= b[i];
    return s;
}

/* ------------------------------------------------------------ properties */

START_TEST(props_parsed)
{
    for (int no_nul = 0; no_nul < 2; no_nul++) {
        vf_spec specs[SXI_ARRAY_SIZE(vf_example)];
        memcpy(specs, vf_example, sizeof(specs));
        for (unsigned i = 0; i < SXI_ARRAY_SIZE(specs); i++)
            specs[i].no_nul = no_nul;
        vf_lib *l = vf_lib_new(specs, SXI_ARRAY_SIZE(specs));
        CK_OK(sx_register_images(&l->desc));
        const sxi_image *c = image_of(l, 0), *u = image_of(l, 1), *bar = image_of(l, 4), *dummy = image_of(l, 5);
        ck_assert_uint_eq(c->num_vf_creates, 2);
        ck_assert_str_eq(c->vf_creates[0], VF_SET_DEFAULT);
        ck_assert_str_eq(c->vf_creates[1], VF_SET_FP64);
        ck_assert_uint_eq(c->num_vf_calls, 0);
        ck_assert_uint_eq(u->num_vf_calls, 0); /* uses- is DPC++'s group rule (issue 14) */
        ck_assert_uint_eq(u->num_vf_uses, 1);
        ck_assert_str_eq(u->vf_uses[0], VF_SET_DEFAULT);
        ck_assert_str_eq(bar->vf_set, VF_SET_FP64);
        ck_assert(!bar->vf_dummy);
        ck_assert(dummy->vf_dummy);
        ck_assert(!sxi_image_has_deps(bar));
        CK_OK(sx_unregister_images(&l->desc));
        vf_lib_free(l);
    }
    /* Duplicates in a list are taken once; beside calls-, uses- is
     * proptool's copy for DPC++'s runtime and is not read. */
    vf_spec s = {.bytes = "k", .kernels = "k", .calls = "a,b,a", .uses = "b,c"};
    vf_lib *l = vf_lib_new(&s, 1);
    CK_OK(sx_register_images(&l->desc));
    ck_assert_uint_eq(image_of(l, 0)->num_vf_calls, 2);
    ck_assert_uint_eq(image_of(l, 0)->num_vf_uses, 0);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

static void expect_damaged(const vf_spec *s, const char *mention, void (*mutate)(vf_lib *))
{
    vf_lib *l = vf_lib_new(s, 1);
    if (mutate)
        mutate(l);
    CK_ERR(sx_register_images(&l->desc), SX_ERROR_INVALID_BINARY);
    CK_MSG_HAS(mention);
    CK_MSG_HAS("image 0");
    vf_lib_free(l);
}

static void dummy_as_bytes(vf_lib *l)
{
    sx_device_binary_property *p = l->desc.device_binaries[0].property_sets_begin[0].properties_begin + 1;
    p->type = SX_PROPERTY_TYPE_BYTE_ARRAY;
    p->value_addr = (void *)"\x08\0\0\0\0\0\0\0\x01";
    p->value_size = 9;
}
static void dummy_two(vf_lib *l)
{
    l->desc.device_binaries[0].property_sets_begin[0].properties_begin[1].value_size = 2;
}
static void set_as_uint(vf_lib *l)
{
    sx_device_binary_property *p = l->desc.device_binaries[0].property_sets_begin[0].properties_begin;
    p->type = SX_PROPERTY_TYPE_UINT32;
    p->value_addr = NULL;
    p->value_size = 1;
}
static void bits_too_many(vf_lib *l)
{
    uint64_t bits = 1000;
    memcpy(l->desc.device_binaries[0].property_sets_begin[0].properties_begin->value_addr, &bits, 8);
}
static void empty_import(vf_lib *l)
{
    sx_device_binary_property_set *s = l->desc.device_binaries[0].property_sets_begin;
    s->properties_begin->name = (char *)"";
}

START_TEST(props_damaged)
{
    expect_damaged(&(vf_spec){.bytes = "x", .set = "a,b"}, "virtual-functions-set", NULL);
    expect_damaged(&(vf_spec){.bytes = "x", .kernels = "k", .calls = "a,,b"}, "calls-virtual-functions-set", NULL);
    expect_damaged(&(vf_spec){.bytes = "x", .kernels = "k", .creates = "a,"}, "empty set name", NULL);
    expect_damaged(&(vf_spec){.bytes = "x", .kernels = "k", .uses = "a\x01"}, "uses-virtual-functions-set", NULL);
    expect_damaged(&(vf_spec){.bytes = "x", .kernels = "k", .calls = ""}, "empty value", NULL);
    expect_damaged(&(vf_spec){.bytes = "x", .dummy = 1}, "dummy-image", NULL);
    expect_damaged(&(vf_spec){.bytes = "x", .set = "s", .dummy = 1}, "dummy-image", dummy_as_bytes);
    expect_damaged(&(vf_spec){.bytes = "x", .set = "s", .dummy = 1}, "dummy-image", dummy_two);
    expect_damaged(&(vf_spec){.bytes = "x", .set = "s", .dummy = 1, .calls = "t"}, "dummy-image", NULL);
    expect_damaged(&(vf_spec){.bytes = "x", .set = "s"}, "not a string", set_as_uint);
    expect_damaged(&(vf_spec){.bytes = "x", .set = "s"}, "virtual-functions-set", bits_too_many);
    expect_damaged(&(vf_spec){.bytes = "x", .kernels = "k", .imports = "f"}, "imported symbols", empty_import);
    /* Nothing half-registered: a good library still registers after all that. */
    vf_lib *l = vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
    CK_OK(sx_register_images(&l->desc));
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* Random damage to the values: registered or refused, never a crash (and
 * clean under valgrind). */
START_TEST(props_random_damage)
{
    unsigned seed = 12345;
    static const char alphabet[] = {'a', 'b', ',', ',', '\0', '\x01', 'Z', '_', '\x7f', ' '};
    for (int iter = 0; iter < 3000; iter++) {
        vf_spec s = {.bytes = "r", .kernels = "k", .set = "set_a", .calls = "c1,c2,c3", .creates = "d1,d2",
                     .uses = "u1", .dummy = iter % 7 == 0, .no_nul = iter % 2};
        vf_lib *l = vf_lib_new(&s, 1);
        sx_device_binary_property_set *vf = l->desc.device_binaries[0].property_sets_begin;
        size_t n = (size_t)(vf->properties_end - vf->properties_begin);
        for (int m = 0; m < 3; m++) {
            sx_device_binary_property *p = vf->properties_begin + rand_r(&seed) % n;
            if (p->type != SX_PROPERTY_TYPE_BYTE_ARRAY) {
                p->value_size = (uint64_t)(rand_r(&seed) % 3);
                continue;
            }
            uint8_t *b = p->value_addr;
            size_t len = (size_t)p->value_size - 8;
            switch (rand_r(&seed) % 4) {
            case 0: /* a character */
                if (len)
                    b[8 + rand_r(&seed) % len] = (uint8_t)alphabet[rand_r(&seed) % sizeof(alphabet)];
                break;
            case 1: { /* a shorter (or longer: refused) bit count */
                uint64_t bits = (uint64_t)(rand_r(&seed) % (len * 8 + 16));
                memcpy(b, &bits, 8);
                break;
            }
            case 2: /* another type */
                p->type = rand_r(&seed) % 4;
                break;
            default: /* a random byte anywhere */
                b[rand_r(&seed) % (len + 8)] = (uint8_t)rand_r(&seed);
            }
        }
        sx_result r = sx_register_images(&l->desc);
        ck_assert_msg(r == SX_SUCCESS || r == SX_ERROR_INVALID_BINARY, "iteration %d: %s: %s", iter,
                      sx_result_name(r), sx_last_error());
        if (r == SX_SUCCESS)
            CK_OK(sx_unregister_images(&l->desc));
        vf_lib_free(l);
    }
}
END_TEST

/* -------------------------------------------------------------- resolver */

START_TEST(uses_links_default_set)
{
    vf_lib *l = vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
    CK_OK(sx_register_images(&l->desc));
    sx_kernel k;
    int compatible = 0;
    CK_OK(sx_kernel_get("use", &k));
    CK_OK(sx_kernel_is_compatible(k, dev, &compatible));
    ck_assert_int_eq(compatible, 1);
    CK_OK(sx_kernel_release(k));
    CK_OK(launch("use"));
    sxi_program *p = program_of(image_of(l, 1));
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(p->num_images, 2);
    ck_assert(program_has(p, image_of(l, 3)));
    ck_assert_uint_eq(log_count("compile"), 2);
    ck_assert_uint_eq(log_count("link 2"), 1);
    ck_assert_uint_eq(log_count("build"), 0);
    ck_assert_uint_eq(stats().links, 1);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

START_TEST(constructor_gets_dummy_without_fp64)
{
    vf_lib *l = vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
    CK_OK(sx_register_images(&l->desc));
    CK_OK(launch("construct"));
    sxi_program *p = program_of(image_of(l, 0));
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(p->num_images, 3);
    ck_assert(program_has(p, image_of(l, 3)));   /* the default set */
    ck_assert(program_has(p, image_of(l, 5)));   /* set_fp64's dummy */
    ck_assert(!program_has(p, image_of(l, 4)));  /* not the real one */
    /* A kernel calling set_fp64 (its image carries fp64) is not supported. */
    CK_ERR(launch("use_fp64"), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

START_TEST(constructor_gets_real_with_fp64)
{
    vf_lib *l = vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
    CK_OK(sx_register_images(&l->desc));
    int has = 0;
    CK_OK(sx_device_has_aspect(dev, SX_ASPECT_FP64, &has));
    ck_assert(has);
    CK_OK(launch("construct"));
    sxi_program *p = program_of(image_of(l, 0));
    ck_assert_uint_eq(p->num_images, 3);
    ck_assert(program_has(p, image_of(l, 4)));
    ck_assert(!program_has(p, image_of(l, 5)));
    CK_OK(launch("use_fp64"));
    p = program_of(image_of(l, 2));
    ck_assert_uint_eq(p->num_images, 2);
    ck_assert(program_has(p, image_of(l, 4)));
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* The kernel image does not carry the set's aspect (made in another
 * translation unit, DPC++ issue #15071): the resolver still refuses. */
START_TEST(calls_set_needing_missing_aspect)
{
    vf_spec s[] = {
        {.bytes = "kernel calls fp64 set", .kernels = "k", .calls = VF_SET_FP64},
        {.bytes = "set fp64", .set = VF_SET_FP64, .aspect = SX_ASPECT_FP64},
        {.bytes = "set fp64 dummy", .set = VF_SET_FP64, .dummy = 1},
    };
    vf_lib *l = vf_lib_new(s, 3);
    CK_OK(sx_register_images(&l->desc));
    sx_kernel k;
    int compatible = 1;
    CK_OK(sx_kernel_get("k", &k));
    CK_OK(sx_kernel_is_compatible(k, dev, &compatible));
    ck_assert_int_eq(compatible, 0);
    CK_OK(sx_kernel_release(k));
    CK_ERR(launch("k"), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_MSG_HAS("kernel 'k'");
    CK_MSG_HAS(VF_SET_FP64);
    CK_MSG_HAS("fake device");
    CK_MSG_HAS("aspect(s) 6");
    ck_assert_uint_eq(log_count("create"), 0);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

START_TEST(missing_provider)
{
    vf_spec s[] = {
        {.bytes = "calls nothing", .kernels = "k_calls", .calls = "nobody"},
        {.bytes = "creates nothing", .kernels = "k_creates", .creates = "nobody"},
        {.bytes = "calls dummy only", .kernels = "k_dummy", .calls = "only_dummy"},
        {.bytes = "dummy", .set = "only_dummy", .dummy = 1},
        {.bytes = "creates fp64 without dummy", .kernels = "k_nodummy", .creates = "fp64_only"},
        {.bytes = "fp64 set", .set = "fp64_only", .aspect = SX_ASPECT_FP64},
    };
    vf_lib *l = vf_lib_new(s, SXI_ARRAY_SIZE(s));
    CK_OK(sx_register_images(&l->desc));
    CK_ERR(launch("k_calls"), SX_ERROR_LINK_FAILURE);
    CK_MSG_HAS("kernel 'k_calls' calls virtual-function set 'nobody'");
    CK_MSG_HAS("fake device");
    CK_ERR(launch("k_creates"), SX_ERROR_LINK_FAILURE);
    CK_MSG_HAS("kernel 'k_creates' creates objects of virtual-function set 'nobody'");
    CK_ERR(launch("k_dummy"), SX_ERROR_LINK_FAILURE);
    CK_MSG_HAS("except a dummy");
    CK_ERR(launch("k_nodummy"), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_MSG_HAS("no dummy image");
    /* The error stays: a second launch reports it again. */
    CK_ERR(launch("k_calls"), SX_ERROR_LINK_FAILURE);
    ck_assert_uint_eq(log_count("create"), 0);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

START_TEST(two_libraries_same_set)
{
    vf_lib *app = vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
    vf_spec s[] = {{.bytes = "library's own Base::foo override", .set = VF_SET_DEFAULT}};
    vf_lib *so = vf_lib_new(s, 1);
    CK_OK(sx_register_images(&app->desc));
    /* Registered and gone before any launch: the set still resolves
     * (DPC++ erases the whole set here). */
    CK_OK(sx_register_images(&so->desc));
    CK_OK(sx_unregister_images(&so->desc));
    CK_OK(launch("use"));
    ck_assert_uint_eq(program_of(image_of(app, 1))->num_images, 2);
    CK_OK(sx_context_release(ctx));
    CK_OK(sx_queue_release(q));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, 0, &q));

    CK_OK(sx_register_images(&so->desc));
    const sxi_image *so_img = image_of(so, 0);
    uint64_t so_id = so_img->id;
    CK_OK(launch("use"));
    sxi_program *p = program_of(image_of(app, 1));
    ck_assert_uint_eq(p->num_images, 3);  /* both providers */
    ck_assert(program_has(p, image_of(app, 3)));
    ck_assert(program_has(p, so_img));
    uint64_t links = stats().links;
    /* The library goes: its program goes with it; the set keeps the app's provider. */
    CK_OK(sx_unregister_images(&so->desc));
    sxi_program *first;
    ck_assert_uint_eq(sxi_programs_with_image(ctx, dev, so_id, &first), 0);
    ck_assert_ptr_null(program_of(image_of(app, 1)));
    CK_OK(launch("use"));
    p = program_of(image_of(app, 1));
    ck_assert_uint_eq(p->num_images, 2);
    ck_assert_uint_eq(stats().links, links + 1);
    CK_OK(sx_unregister_images(&app->desc));
    vf_lib_free(app);
    vf_lib_free(so);
}
END_TEST

START_TEST(closure_over_imports_and_sets)
{
    vf_spec s[] = {
        {.bytes = "kernel", .kernels = "k", .imports = "helper"},
        {.bytes = "helper image", .exports = "helper", .calls = "A"},
        {.bytes = "A provider", .set = "A", .creates = "B"},
        {.bytes = "B provider", .set = "B", .imports = "util"},
        {.bytes = "util image", .exports = "util,other"},
        {.bytes = "unrelated", .set = "C"},
        {.bytes = "kernel 2", .kernels = "k_missing", .imports = "nowhere"},
    };
    vf_lib *l = vf_lib_new(s, SXI_ARRAY_SIZE(s));
    CK_OK(sx_register_images(&l->desc));
    CK_OK(launch("k"));
    sxi_program *p = program_of(image_of(l, 0));
    ck_assert_uint_eq(p->num_images, 5);
    for (unsigned i = 1; i <= 4; i++)
        ck_assert(program_has(p, image_of(l, i)));
    ck_assert(!program_has(p, image_of(l, 5)));
    ck_assert_uint_eq(log_count("link 5"), 1);
    /* Exported symbols are not kernels. */
    sx_kernel k;
    CK_ERR(sx_kernel_get("helper", &k), SX_ERROR_INVALID_KERNEL_NAME);
    CK_ERR(launch("k_missing"), SX_ERROR_LINK_FAILURE);
    CK_MSG_HAS("symbol 'nowhere'");
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

START_TEST(other_kind_provider_is_not_linked)
{
    vf_spec s[] = {{.bytes = "kernel", .kernels = "k", .calls = "A"}, {.bytes = "spirv A", .set = "A"}};
    vf_lib *l = vf_lib_new(s, 2);
    /* The provider as SPIR-V: one program holds one kind of image. */
    static const uint32_t spirv[] = {0x07230203, 0x00010000, 0, 1, 0};
    l->desc.device_binaries[1].format = SX_BINARY_FORMAT_SPIRV;
    l->desc.device_binaries[1].binary_start = (const unsigned char *)spirv;
    l->desc.device_binaries[1].binary_end = (const unsigned char *)(spirv + 5);
    CK_OK(sx_register_images(&l->desc));
    CK_ERR(launch("k"), SX_ERROR_LINK_FAILURE);
    CK_MSG_HAS("other kinds");
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* ----------------------------------------------------- linking and cache */

START_TEST(cache_hits_counted)
{
    vf_lib *l = vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
    CK_OK(sx_register_images(&l->desc));
    sx_kernel use;
    size_t g = 1;
    CK_OK(sx_kernel_get("use", &use));
    CK_OK(sx_queue_launch(q, use, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
    sxi_program_stats s1 = stats();
    ck_assert_uint_eq(s1.links, 1);
    ck_assert_uint_eq(s1.resolutions, 1);
    /* The kernel's slot: not even a program lookup. */
    CK_OK(sx_queue_launch(q, use, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
    ck_assert_uint_eq(stats().memory_hits, s1.memory_hits);
    CK_OK(sx_kernel_release(use));
    /* Another kernel of the same image: the same program, no resolution, no link. */
    CK_OK(launch("use_again"));
    sxi_program_stats s2 = stats();
    ck_assert_uint_eq(s2.links, 1);
    ck_assert_uint_eq(s2.resolutions, 1);
    ck_assert_uint_eq(s2.memory_hits, s1.memory_hits + 1);
    ck_assert_uint_eq(log_count("link"), 1);
    ck_assert_uint_eq(log_count("create"), 2);
    /* A registration elsewhere: resolved again, same images: still no link. */
    vf_spec other = {.bytes = "unrelated", .kernels = "unrelated"};
    vf_lib *l2 = vf_lib_new(&other, 1);
    CK_OK(sx_register_images(&l2->desc));
    CK_OK(launch("use_again"));
    sxi_program_stats s3 = stats();
    ck_assert_uint_eq(s3.links, 1);
    /* Another context links its own. */
    sx_context c2;
    sx_queue q2;
    CK_OK(sx_context_create(1, &dev, &c2));
    CK_OK(sx_queue_create(c2, dev, 0, &q2));
    sx_kernel k;
    CK_OK(sx_kernel_get("use", &k));
    CK_OK(sx_queue_launch(q2, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL));
    CK_OK(sx_kernel_release(k));
    ck_assert_uint_eq(stats().links, 2);
    CK_OK(sx_queue_release(q2));
    CK_OK(sx_context_release(c2));
    CK_OK(sx_unregister_images(&l2->desc));
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
    vf_lib_free(l2);
}
END_TEST

static void *launch_thread(void *arg)
{
    return (void *)(intptr_t)launch(arg);
}

/* Threads racing to the first launch: one resolution, one link. */
START_TEST(concurrent_first_launches_link_once)
{
    vf_lib *l = vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
    CK_OK(sx_register_images(&l->desc));
    enum { NT = 8 };
    pthread_t t[NT];
    for (int i = 0; i < NT; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, launch_thread, (void *)(i % 2 ? "use" : "use_again")), 0);
    for (int i = 0; i < NT; i++) {
        void *r;
        pthread_join(t[i], &r);
        ck_assert_int_eq((int)(intptr_t)r, SX_SUCCESS);
    }
    ck_assert_uint_eq(stats().links, 1);
    ck_assert_uint_eq(log_count("link"), 1);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* DPC++ bug #21657: device globals of dependency images were not
 * initialised. Here every image of a linked program gets its addresses. */
START_TEST(device_globals_of_dependency_images)
{
    vf_spec s[] = {{.bytes = "kernel", .kernels = "k", .calls = "A", .global = "dg_in_kernel_image"},
                   {.bytes = "A provider", .set = "A", .global = "dg_in_set_image"}};
    vf_lib *l = vf_lib_new(s, 2);
    CK_OK(sx_register_images(&l->desc));
    CK_OK(launch("k"));
    ck_assert_uint_eq(log_count("global_write dg_in_kernel_image"), 1);
    ck_assert_uint_eq(log_count("global_write dg_in_set_image"), 1);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

START_TEST(single_image_is_built_not_linked)
{
    vf_spec s = {.bytes = "plain", .kernels = "plain"};
    vf_lib *l = vf_lib_new(&s, 1);
    CK_OK(sx_register_images(&l->desc));
    CK_OK(launch("plain"));
    ck_assert_uint_eq(log_count("build"), 1);
    ck_assert_uint_eq(log_count("compile"), 0);
    ck_assert_uint_eq(log_count("link"), 0);
    ck_assert_uint_eq(stats().builds, 1);
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

START_TEST(link_failure_has_log)
{
    vf_spec s[] = {{.bytes = "kernel", .kernels = "k", .calls = "A"}, {.bytes = "A UNRESOLVED:zork", .set = "A"}};
    vf_lib *l = vf_lib_new(s, 2);
    CK_OK(sx_register_images(&l->desc));
    CK_ERR(launch("k"), SX_ERROR_LINK_FAILURE);
    CK_MSG_HAS("kernel 'k'");
    CK_MSG_HAS("fake link log: error: undefined symbol 'zork'");
    CK_MSG_HAS("fake device");
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

START_TEST(link_unsupported)
{
    setenv("FAKE_NO_LINK", "1", 1);
    vf_lib *l = vf_lib_new(vf_example, SXI_ARRAY_SIZE(vf_example));
    CK_OK(sx_register_images(&l->desc));
    CK_ERR(launch("use"), SX_ERROR_UNSUPPORTED_FEATURE);
    CK_MSG_HAS("cannot compile programs for linking");
    CK_MSG_HAS("adapter 'fake'");
    CK_OK(sx_unregister_images(&l->desc));
    vf_lib_free(l);
}
END_TEST

/* ------------------------------------------------------ persistent cache */

typedef struct {
    int rc;
    unsigned links, disk_hits, disk_writes, disk_rejects;
} run_result;

/* Another process: tests/vf/vf-run launches a kernel of the example. */
static run_result run_other(const char *kernel, const char *extra)
{
    run_result rr = {.rc = -1};
    char cmd[2048], out[512] = "";
    snprintf(cmd, sizeof(cmd), "'%s' %s %s", sxt_build_path("tests/vf/vf-run"), kernel, extra ? extra : "");
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    int st = pclose(p);
    rr.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    ck_assert_msg(sscanf(out, "links=%u disk_hits=%u disk_writes=%u disk_rejects=%u", &rr.links, &rr.disk_hits,
                         &rr.disk_writes, &rr.disk_rejects) == 4,
                  "vf-run said '%s' (rc %d)", out, rr.rc);
    ck_assert_msg(rr.rc == 0, "vf-run failed: %s", out);
    return rr;
}

static unsigned cache_files(const char *dir, char *last, size_t size)
{
    DIR *d = opendir(dir);
    unsigned n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".bin") == 0) {
            n++;
            snprintf(last, size, "%s/%s", dir, e->d_name);
        } else if (e->d_name[0] != '.') {
            ck_abort_msg("stray file '%s' in the cache directory", e->d_name);
        }
    }
    if (d)
        closedir(d);
    return n;
}

static void setup_cache(void)
{
    setup_env();
    char dir[300];
    snprintf(dir, sizeof(dir), "%s/cache", tmpdir);
    setenv("SX_CACHE_DIR", dir, 1);
    unsetenv("SX_CACHE");
    unsetenv("FAKE_LINK_LOG");
}

/* Flip a byte at `offset` (from the end when negative). */
static void flip_byte(const char *path, long offset)
{
    int fd = open(path, O_RDWR);
    ck_assert_int_ge(fd, 0);
    off_t at = offset < 0 ? lseek(fd, 0, SEEK_END) + offset : offset;
    unsigned char b;
    ck_assert_int_eq(pread(fd, &b, 1, at), 1);
    b ^= 0x5a;
    ck_assert_int_eq(pwrite(fd, &b, 1, at), 1);
    close(fd);
}

START_TEST(persistent_cache_across_processes)
{
    const char *dir = getenv("SX_CACHE_DIR");
    char entry[1024];
    run_result r = run_other("construct", NULL);
    ck_assert_uint_eq(r.links, 1);
    ck_assert_uint_eq(r.disk_writes, 1);
    ck_assert_uint_eq(r.disk_hits, 0);
    ck_assert_uint_eq(cache_files(dir, entry, sizeof(entry)), 1);
    struct stat st;
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0700);
    /* A second process: from disk, no link. */
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.links, 0);
    ck_assert_uint_eq(r.disk_hits, 1);
    ck_assert_uint_eq(r.disk_writes, 0);
    /* A flipped payload byte: ignored, linked again, rewritten. */
    flip_byte(entry, -3);
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.disk_rejects, 1);
    ck_assert_uint_eq(r.links, 1);
    ck_assert_uint_eq(r.disk_writes, 1);
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.disk_hits, 1);
    ck_assert_uint_eq(r.links, 0);
    /* A flipped header byte, then a truncated file. */
    flip_byte(entry, 17); /* the payload length */
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.disk_rejects, 1);
    ck_assert_uint_eq(r.disk_writes, 1);
    ck_assert_int_eq(truncate(entry, 50), 0);
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.disk_rejects, 1);
    ck_assert_uint_eq(r.links, 1);
    ck_assert_uint_eq(cache_files(dir, entry, sizeof(entry)), 1);
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.disk_hits, 1);
    /* Other inputs, other entry: a kernel with other images, other options. */
    r = run_other("use", NULL);
    ck_assert_uint_eq(r.disk_writes, 1);
    r = run_other("use", "-opts");
    ck_assert_uint_eq(r.disk_writes, 1);
    ck_assert_uint_eq(cache_files(dir, entry, sizeof(entry)), 3);
    /* With fp64 the constructor links the real set: another entry. */
    setenv("FAKE_FP64", "1", 1);
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.disk_writes, 1);
    ck_assert_uint_eq(r.links, 1);
    ck_assert_uint_eq(cache_files(dir, entry, sizeof(entry)), 4);
}
END_TEST

START_TEST(persistent_cache_refused_binary)
{
    /* The backend refuses the cached binary (a driver update, say): linked
     * again and rewritten. */
    run_result r = run_other("construct", "-refuse");
    ck_assert_uint_eq(r.disk_writes, 1);
    r = run_other("construct", "-refuse");
    ck_assert_uint_eq(r.disk_rejects, 1);
    ck_assert_uint_eq(r.links, 1);
    ck_assert_uint_eq(r.disk_writes, 1);
}
END_TEST

START_TEST(persistent_cache_off_or_unsupported)
{
    const char *dir = getenv("SX_CACHE_DIR");
    char entry[1024];
    setenv("SX_CACHE", "0", 1);
    run_result r = run_other("construct", NULL);
    ck_assert_uint_eq(r.links, 1);
    ck_assert_uint_eq(r.disk_writes, 0);
    ck_assert_int_ne(access(dir, F_OK), 0);
    unsetenv("SX_CACHE");
    setenv("FAKE_NO_BINARY", "1", 1);  /* like Level Zero's linked programs */
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.links, 1);
    ck_assert_uint_eq(r.disk_writes, 0);
    ck_assert_uint_eq(cache_files(dir, entry, sizeof(entry)), 0);
    /* Remembered for the adapter (name and version): the next process
     * does not try (the marker goes with the cache directory). */
    char marker[600];
    snprintf(marker, sizeof(marker), "%s/.nobinary-fake-%x", dir, SXA_ABI_VERSION);
    ck_assert_int_eq(access(marker, F_OK), 0);
    unsetenv("FAKE_NO_BINARY");
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.links, 1);
    ck_assert_uint_eq(r.disk_writes, 0);
    ck_assert_int_eq(unlink(marker), 0);
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.disk_writes, 1);
    /* Small inputs are looked up before the marker is asked for: an entry
     * that is there is used whatever a marker says (a hit needs no marker). */
    int mfd = open(marker, O_WRONLY | O_CREAT | O_EXCL, 0600);
    ck_assert_int_ge(mfd, 0);
    close(mfd);
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.links, 0);
    ck_assert_uint_eq(r.disk_hits, 1);
    ck_assert_int_eq(unlink(marker), 0);
    /* The default place: $XDG_CACHE_HOME/sycl-ext. */
    unsetenv("SX_CACHE_DIR");
    char xdg[300], def[400];
    snprintf(xdg, sizeof(xdg), "%s/xdg", tmpdir);
    snprintf(def, sizeof(def), "%s/sycl-ext", xdg);
    setenv("XDG_CACHE_HOME", xdg, 1);
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.disk_writes, 1);
    ck_assert_uint_eq(cache_files(def, entry, sizeof(entry)), 1);
    struct stat st;
    ck_assert_int_eq(stat(def, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0700);
    /* A directory others can write to is not used. */
    chmod(def, 0777);
    r = run_other("construct", NULL);
    ck_assert_uint_eq(r.disk_hits, 0);
    ck_assert_uint_eq(r.links, 1);
}
END_TEST

static Suite *vf_suite(void)
{
    Suite *s = suite_create("virtual functions");
    TCase *t = tcase_create("resolver");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, props_parsed);
    tcase_add_test(t, props_damaged);
    tcase_add_test(t, props_random_damage);
    tcase_add_test(t, uses_links_default_set);
    tcase_add_test(t, constructor_gets_dummy_without_fp64);
    tcase_add_test(t, calls_set_needing_missing_aspect);
    tcase_add_test(t, missing_provider);
    tcase_add_test(t, two_libraries_same_set);
    tcase_add_test(t, closure_over_imports_and_sets);
    tcase_add_test(t, other_kind_provider_is_not_linked);
    tcase_add_test(t, cache_hits_counted);
    tcase_add_test(t, concurrent_first_launches_link_once);
    tcase_add_test(t, device_globals_of_dependency_images);
    tcase_add_test(t, single_image_is_built_not_linked);
    tcase_add_test(t, link_failure_has_log);
    tcase_add_test(t, link_unsupported);
    suite_add_tcase(s, t);
    TCase *f = tcase_create("fp64 device");
    tcase_add_checked_fixture(f, setup_fp64, teardown);
    tcase_add_test(f, constructor_gets_real_with_fp64);
    suite_add_tcase(s, f);
    TCase *c = tcase_create("persistent cache");
    tcase_add_checked_fixture(c, setup_cache, teardown);
    tcase_add_test(c, persistent_cache_across_processes);
    tcase_add_test(c, persistent_cache_refused_binary);
    tcase_add_test(c, persistent_cache_off_or_unsupported);
    suite_add_tcase(s, c);
    return s;
}

SXT_MAIN(vf_suite)
