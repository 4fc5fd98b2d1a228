/* test-vf-ocl.c: virtual-function images linked by a real backend: the
 * OpenCL adapter on Oclgrind (clCompileProgram + clLinkProgram of SPIR
 * bitcode from C++ for OpenCL sources, tests/vf/kernels). Checks the
 * values the kernels compute: the real set or its dummy, the set a kernel
 * calls, the persistent cache's binary, and a set provided by two
 * libraries, one unregistered. Skips (77) without Oclgrind,
 * the OpenCL adapter or clang. */
#include <sys/stat.h>
#include <unistd.h>

#include "../check-util.h"
#include "sx-internal.h"
#include "vf-images.h"

#define K(name) "tests/vf/kernels/" name ".bc"

static char tmpdir[256];
static sx_device dev;
static sx_context ctx;
static sx_queue q;
static vf_lib *lib;
static sx_aspect have, lack;   /* an aspect Oclgrind has (fp64 when it does), one it lacks */

static void *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    void *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

/* One SPIR bitcode image of the example. */
static vf_spec spir(const char *file, vf_spec s)
{
    s.raw = slurp(sxt_build_path(file), &s.raw_size);
    ck_assert_msg(s.raw != NULL, "cannot read %s", file);
    s.format = SX_BINARY_FORMAT_LLVMIR_BITCODE;
    s.target = SX_TARGET_SPIRV64;
    s.bytes = file;
    return s;
}

/* The example with set_fp64 needing `aspect`, plus a kernel image that
 * calls set_fp64 (no aspect of its own: the resolver must catch it). */
static vf_lib *example(sx_aspect aspect)
{
    vf_spec s[] = {
        spir(K("vf-kernels"), (vf_spec){.kernels = "construct,use,use_fp64,use_baz",
                                        .creates = VF_SET_DEFAULT "," VF_SET_FP64}),
        spir(K("vf-kernels-calls"), (vf_spec){.kernels = "call_fp64", .calls = VF_SET_FP64}),
        spir(K("vf-set-default"), (vf_spec){.set = VF_SET_DEFAULT}),
        spir(K("vf-set-fp64"), (vf_spec){.set = VF_SET_FP64, .aspect = aspect}),
        spir(K("vf-set-fp64-dummy"), (vf_spec){.set = VF_SET_FP64, .dummy = 1}),
    };
    vf_lib *l = vf_lib_new(s, SXI_ARRAY_SIZE(s));
    for (unsigned i = 0; i < SXI_ARRAY_SIZE(s); i++)
        free((void *)s[i].raw);
    return l;
}

static void setup(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/sx-vf-ocl-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    char cache[300];
    snprintf(cache, sizeof(cache), "%s/cache", tmpdir);
    setenv("SX_CACHE_DIR", cache, 1);
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&dev));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    static const sx_aspect candidates[] = {SX_ASPECT_FP64, SX_ASPECT_CPU, SX_ASPECT_GPU, SX_ASPECT_ACCELERATOR,
                                           SX_ASPECT_USM_DEVICE_ALLOCATIONS, SX_ASPECT_FP16, SX_ASPECT_ATOMIC64,
                                           SX_ASPECT_CUSTOM};
    have = lack = 0;
    for (unsigned i = 0; i < SXI_ARRAY_SIZE(candidates); i++) {
        int h = 0;
        CK_OK(sx_device_has_aspect(dev, candidates[i], &h));
        if (h && !have)
            have = candidates[i];
        if (!h && !lack)
            lack = candidates[i];
    }
    ck_assert_msg(have && lack, "Oclgrind has every aspect or none");
}

static void teardown(void)
{
    sx_queue_release(q);
    sx_context_release(ctx);
    if (lib)
        sx_unregister_images(&lib->desc);
    vf_lib_free(lib);
    lib = NULL;
    sx_fini();
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Launch `name`(x) on a queue and read back the program variable "result". */
static sx_result run_on(sx_queue on, const char *name, int x, int *result, sxi_program **prog)
{
    sx_kernel k;
    sx_result r = sx_kernel_get(name, &k);
    if (r != SX_SUCCESS)
        return r;
    size_t g = 1;
    sx_arg a = {.index = 0, .type = SX_ARG_VALUE, .size = sizeof(int), .value = &x};
    r = sx_queue_launch(on, k, 1, NULL, &g, NULL, strcmp(name, "construct") ? 1 : 0, &a, 0, NULL, NULL);
    sxi_kernel_slot *s = NULL;
    if (r == SX_SUCCESS)
        r = sxi_slot_for(on, k, &s);
    if (r == SX_SUCCESS && result)
        r = SXA_CALL(on->adapter, enqueue, global_read, on->handle, s->program->handle, "result", 1, sizeof(int), 0,
                     result, 0, NULL, NULL);
    if (r == SX_SUCCESS && prog)
        *prog = s->program;
    sx_kernel_release(k);
    return r;
}

static sx_result run(const char *name, int x, int *result, sxi_program **prog)
{
    return run_on(q, name, x, result, prog);
}

static bool has_image(const sxi_program *p, const vf_lib *l, unsigned i)
{
    const sxi_image *im = NULL;
    sxi_registry_lock();
    for (const sxi_library *x = sxi_registry_libraries(); x; x = x->next)
        if (x->desc == &l->desc)
            im = &x->images[i];
    sxi_registry_unlock();
    for (uint32_t k = 0; im && k < p->num_images; k++)
        if (p->image_ids[k] == im->id)
            return true;
    return false;
}

START_TEST(device_with_the_aspect_links_the_real_set)
{
    lib = example(have);
    CK_OK(sx_register_images(&lib->desc));
    int v = -1;
    sxi_program *p;
    CK_OK(run("construct", 0, NULL, &p));
    ck_assert_uint_eq(p->num_images, 3);
    ck_assert(has_image(p, lib, 3) && !has_image(p, lib, 4));
    CK_OK(run("use", 7, &v, NULL));
    ck_assert_int_eq(v, 22);       /* foo: 7 * 3 + 1, from the default set's image */
    CK_OK(run("use_fp64", 7, &v, NULL));
    ck_assert_int_eq(v, 17);       /* bar: (int)(7 * 2.5), the real set */
    CK_OK(run("call_fp64", 8, &v, &p));
    ck_assert_int_eq(v, 20);
    ck_assert_uint_eq(p->num_images, 2);
}
END_TEST

START_TEST(device_without_the_aspect_links_the_dummy)
{
    lib = example(lack);
    CK_OK(sx_register_images(&lib->desc));
    int v = -1;
    sxi_program *p;
    CK_OK(run("construct", 0, NULL, &p));
    ck_assert(has_image(p, lib, 4) && !has_image(p, lib, 3));
    CK_OK(run("use", 7, &v, NULL));
    ck_assert_int_eq(v, 22);
    CK_OK(run("use_fp64", 7, &v, NULL));
    ck_assert_int_eq(v, 0);        /* the dummy's emptied body */
    /* A kernel that calls the set is not supported on this device. */
    CK_ERR(run("call_fp64", 8, &v, NULL), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_MSG_HAS("kernel 'call_fp64' calls virtual-function set '" VF_SET_FP64 "'");
    CK_MSG_HAS("Oclgrind");
}
END_TEST

START_TEST(persistent_cache_binary_runs)
{
    lib = example(have);
    CK_OK(sx_register_images(&lib->desc));
    int v = -1;
    CK_OK(run("use_fp64", 7, &v, NULL));
    sxi_program_stats s;
    sxi_program_stats_get(&s);
    ck_assert_uint_eq(s.links, 1);
    ck_assert_uint_eq(s.disk_writes, 1);
    /* Another context: the binary from disk, no link, same values. */
    sx_context c2;
    sx_queue q2;
    CK_OK(sx_context_create(1, &dev, &c2));
    CK_OK(sx_queue_create(c2, dev, SX_QUEUE_IN_ORDER, &q2));
    CK_OK(run_on(q2, "use", 5, &v, NULL));
    ck_assert_int_eq(v, 16);
    CK_OK(run_on(q2, "use_fp64", 6, &v, NULL));
    ck_assert_int_eq(v, 15);
    sxi_program_stats_get(&s);
    ck_assert_uint_eq(s.links, 1);
    ck_assert_uint_eq(s.disk_hits, 1);
    CK_OK(sx_queue_release(q2));
    CK_OK(sx_context_release(c2));
}
END_TEST

START_TEST(two_libraries_provide_the_set)
{
    setenv("SX_CACHE", "0", 1);
    lib = example(have);
    CK_OK(sx_register_images(&lib->desc));
    vf_spec s2 = spir(K("vf-set-default2"), (vf_spec){.set = VF_SET_DEFAULT});
    vf_lib *other = vf_lib_new(&s2, 1);
    free((void *)s2.raw);
    CK_OK(sx_register_images(&other->desc));
    /* Both providers of the default set are linked: Base::foo from the
     * application, Base::baz from the library. */
    int v = -1;
    sxi_program *p;
    CK_OK(run("use", 7, &v, &p));
    ck_assert_int_eq(v, 22);
    ck_assert_uint_eq(p->num_images, 4);
    CK_OK(run("use_baz", 7, &v, NULL));
    ck_assert_int_eq(v, -93);
    /* The library goes: only its image leaves the set; its programs go. */
    CK_OK(sx_unregister_images(&other->desc));
    vf_lib_free(other);
    CK_OK(run("use", 7, &v, &p));
    ck_assert_int_eq(v, 22);
    ck_assert_uint_eq(p->num_images, 3);
    sxi_program_stats st;
    sxi_program_stats_get(&st);
    ck_assert_uint_eq(st.links, 2);
    /* Base::baz is gone with it (Oclgrind says so when the kernel is made). */
    ck_assert_int_ne(run("use_baz", 7, &v, NULL), SX_SUCCESS);
    unsetenv("SX_CACHE");
}
END_TEST

static const char *oclgrind_icd(void)
{
    static const char *paths[] = {"/usr/lib/oclgrind/liboclgrind-rt-icd.so",
                                  "/usr/lib/x86_64-linux-gnu/oclgrind/liboclgrind-rt-icd.so",
                                  "/usr/local/lib/oclgrind/liboclgrind-rt-icd.so", "/usr/local/lib/liboclgrind-rt-icd.so"};
    for (unsigned i = 0; i < SXI_ARRAY_SIZE(paths); i++)
        if (access(paths[i], R_OK) == 0)
            return paths[i];
    return NULL;
}

int main(void)
{
    const char *icd = oclgrind_icd();
    const char *adapter = sxt_build_path("adapters/opencl/.libs/sx-adapter-opencl.so");
    if (!icd) {
        printf("SKIP: Oclgrind is not installed\n");
        return 77;
    }
    if (access(adapter, R_OK) != 0 || access(sxt_build_path(K("vf-kernels")), R_OK) != 0) {
        printf("SKIP: the OpenCL adapter or the test kernels (clang) were not built\n");
        return 77;
    }
    /* Oclgrind alone, through its own ICD directory. */
    char dir[] = "/tmp/sx-vf-icd-XXXXXX", file[300];
    if (!mkdtemp(dir))
        return 99;
    snprintf(file, sizeof(file), "%s/oclgrind.icd", dir);
    FILE *f = fopen(file, "w");
    if (!f)
        return 99;
    fprintf(f, "%s\n", icd);
    fclose(f);
    setenv("OCL_ICD_VENDORS", dir, 1);
    setenv("SX_ADAPTERS", adapter, 1);
    unsetenv("SX_CACHE");

    Suite *s = suite_create("virtual functions on Oclgrind");
    TCase *t = tcase_create("linked by clLinkProgram");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, device_with_the_aspect_links_the_real_set);
    tcase_add_test(t, device_without_the_aspect_links_the_dummy);
    tcase_add_test(t, persistent_cache_binary_runs);
    tcase_add_test(t, two_libraries_provide_the_set);
    suite_add_tcase(s, t);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    unlink(file);
    rmdir(dir);
    return failed ? 1 : 0;
}
