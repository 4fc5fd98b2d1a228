/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-vf-real.c: virtual-function images linked by a real backend, from
 * C++ for OpenCL sources (tests/vf/kernels). Built twice:
 * test-vf-ocl: the OpenCL adapter on Oclgrind (clCompileProgram +
 * clLinkProgram of SPIR bitcode; static members, Oclgrind cannot run
 * vtables); test-vf-native (VF_NATIVE): the native adapter with host
 * shared objects and real vtables, fp64 hidden by SX_NATIVE_HIDE_ASPECTS;
 * test-vf-cuda (VF_CUDA): the CUDA adapter (cuLink of relocatable PTX from
 * tests/vf/kernels/vf-*.cu, real vtables) on a GPU; test-vf-cuda-spv
 * (VF_CUDA, VF_PTX_FROM_SPIRV): the same with the PTX proptool makes from
 * the .cl files' SPIR-V (no CUDA twin).
 * Checks the values the kernels compute: the real set or its dummy, the
 * set a kernel calls, the persistent cache, and a set provided by two
 * libraries, one unregistered. Skips (77) when the backend, the adapter,
 * clang or (native) program linking is missing. */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check-util.h"
#include "sx-internal.h"
#include "vf-images.h"

#if defined(VF_NATIVE)
#define K(name) "tests/vf/kernels/" name "-host.so"
#define BACKEND "native"
#elif defined(VF_CUDA) && defined(VF_PTX_FROM_SPIRV)
#define K(name) "tests/vf/kernels/" name "-spv.ptx"
#define BACKEND "CUDA"
#elif defined(VF_CUDA)
#define K(name) "tests/vf/kernels/" name ".ptx"
#define BACKEND "CUDA"
#else
#define K(name) "tests/vf/kernels/" name ".bc"
#define BACKEND "Oclgrind"
#endif

static char tmpdir[256];
static sx_device dev;
static sx_context ctx;
static sx_queue q;
static vf_lib *lib;
static sx_aspect have, lack;   /* an aspect the device has (fp64 when it does), one it lacks */

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
    if (!s.raw) { /* main checked they are there; no ck_ here: the probe runs outside tests */
        fprintf(stderr, "cannot read %s\n", file);
        abort();
    }
#if defined(VF_NATIVE)
    s.format = SX_BINARY_FORMAT_NATIVE;
    s.target = SX_TARGET_HOST;
    s.sigs = 1;
#elif defined(VF_CUDA)
    s.format = SX_BINARY_FORMAT_NONE;
    s.target = SX_TARGET_NVPTX64;
    s.sigs = 1;
#else
    s.format = SX_BINARY_FORMAT_LLVMIR_BITCODE;
    s.target = SX_TARGET_SPIRV64;
#endif
    s.bytes = file;
    return s;
}

/* The example with set_fp64 needing `aspect`, plus a kernel image that
 * calls set_fp64 (no aspect of its own: the resolver must catch it). */
static vf_lib *example(sx_aspect aspect)
{
    vf_spec s[] = {
        spir(K("vf-kernels"), (vf_spec){.kernels = "construct,use,use_fp64",
                                        .creates = VF_SET_DEFAULT "," VF_SET_FP64}),
        spir(K("vf-kernels-calls"), (vf_spec){.kernels = "call_fp64", .calls = VF_SET_FP64}),
        spir(K("vf-kernels-baz"), (vf_spec){.kernels = "use_baz", .calls = VF_SET_DEFAULT}),
        spir(K("vf-set-default"), (vf_spec){.set = VF_SET_DEFAULT}),
        spir(K("vf-set-fp64"), (vf_spec){.set = VF_SET_FP64, .aspect = aspect}),
        spir(K("vf-set-fp64-dummy"), (vf_spec){.set = VF_SET_FP64, .dummy = 1}),
    };
    vf_lib *l = vf_lib_new(s, SXI_ARRAY_SIZE(s));
    for (unsigned i = 0; i < SXI_ARRAY_SIZE(s); i++)
        free((void *)s[i].raw);
    return l;
}

static void setup_lacking(void);
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
    ck_assert_msg(have && lack, BACKEND " has every aspect or none");
#ifdef VF_NATIVE
    have = lack = SX_ASPECT_FP64; /* the design's example: hidden or not */
#endif
}

static void setup_lacking(void)
{
#ifdef VF_NATIVE
    setenv("SX_NATIVE_HIDE_ASPECTS", "fp64", 1);
#endif
    setup();
    int h = 1;
    CK_OK(sx_device_has_aspect(dev, lack, &h));
    ck_assert_msg(!h, "the device has aspect %u", lack);
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
    sxi_section sec = sxi_read_lock();
    if (r == SX_SUCCESS)
        r = sxi_slot_for(on, k, &sec, &s);
    if (r == SX_SUCCESS && result)
        r = SXA_CALL(on->adapter, enqueue, global_read, on->handle, s->program->handle, "result", 1, sizeof(int), 0,
                     result, 0, NULL, NULL);
    if (r == SX_SUCCESS && prog)
        *prog = s->program;
    sxi_read_unlock(sec);
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
    ck_assert(has_image(p, lib, 4) && !has_image(p, lib, 5));
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
    ck_assert(has_image(p, lib, 5) && !has_image(p, lib, 4));
    CK_OK(run("use", 7, &v, NULL));
    ck_assert_int_eq(v, 22);
    CK_OK(run("use_fp64", 7, &v, NULL));
    ck_assert_int_eq(v, 0);        /* the dummy's emptied body */
    /* A kernel that calls the set is not supported on this device. */
    CK_ERR(run("call_fp64", 8, &v, NULL), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_MSG_HAS("kernel 'call_fp64' calls virtual-function set '" VF_SET_FP64 "'");
#if !defined(VF_NATIVE) && !defined(VF_CUDA)
    CK_MSG_HAS("Oclgrind");
#endif
}
END_TEST

START_TEST(persistent_cache_binary_runs)
{
    lib = example(have);
    CK_OK(sx_register_images(&lib->desc));
    int v = -1;
    /* The object first: a call through an unconstructed one faults (CUDA). */
    CK_OK(run("construct", 0, NULL, NULL));
    CK_OK(run("use_fp64", 7, &v, NULL));
    ck_assert_int_eq(v, 17);
    sxi_program_stats s;
    sxi_program_stats_get(&s);
    ck_assert_uint_eq(s.links, 1);
#if !defined(VF_NATIVE) && !defined(VF_CUDA)
    ck_assert_uint_eq(s.disk_writes, 1);
#endif
    /* An adapter may give no single binary of a linked program (then
     * nothing is cached and the next context links again). */
    bool cached = s.disk_writes == 1;
    /* Another context: from disk (no link) where there is an entry. */
    sx_context c2;
    sx_queue q2;
    CK_OK(sx_context_create(1, &dev, &c2));
    CK_OK(sx_queue_create(c2, dev, SX_QUEUE_IN_ORDER, &q2));
    CK_OK(run_on(q2, "construct", 0, NULL, NULL));
    CK_OK(run_on(q2, "use", 5, &v, NULL));
    ck_assert_int_eq(v, 16);
    CK_OK(run_on(q2, "use_fp64", 6, &v, NULL));
    ck_assert_int_eq(v, 15);
    sxi_program_stats_get(&s);
    ck_assert_uint_eq(s.links, cached ? 1 : 2);
    ck_assert_uint_eq(s.disk_hits, cached ? 1 : 0);
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
    CK_OK(run("construct", 0, NULL, &p));
    ck_assert_uint_eq(p->num_images, 4);
    CK_OK(run("use", 7, &v, NULL));
    ck_assert_int_eq(v, 22);
    CK_OK(run("use_baz", 7, &v, &p));
    ck_assert_int_eq(v, -93);
    ck_assert_uint_eq(p->num_images, 3);
    /* The library goes: only its image leaves the set; its programs go. */
    CK_OK(sx_unregister_images(&other->desc));
    vf_lib_free(other);
    CK_OK(run("construct", 0, NULL, &p));
    ck_assert_uint_eq(p->num_images, 3);
    CK_OK(run("use", 7, &v, NULL));
    ck_assert_int_eq(v, 22);
    sxi_program_stats st;
    sxi_program_stats_get(&st);
    ck_assert_uint_eq(st.links, 3);
    /* Base::baz went with it: the backend says so (Oclgrind when the
     * kernel is made, the native linker at link time). */
    ck_assert_int_ne(run("use_baz", 7, &v, NULL), SX_SUCCESS);
    unsetenv("SX_CACHE");
}
END_TEST

#if defined(VF_NATIVE) || defined(VF_CUDA)
/* Is there a device, and can its adapter link programs? In a child, as
 * fixtures do. 77: no. */
static int probe(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        vf_lib *l = example(SX_ASPECT_FP64);
        sx_result r = sx_init(0);
        sx_kernel k;
        size_t g = 1;
        if (r == SX_SUCCESS)
            r = sx_register_images(&l->desc);
        if (r == SX_SUCCESS)
            r = sx_device_get_default(&dev);
        if (r == SX_SUCCESS)
            r = sx_context_create(1, &dev, &ctx);
        if (r == SX_SUCCESS)
            r = sx_queue_create(ctx, dev, 0, &q);
        if (r == SX_SUCCESS)
            r = sx_kernel_get("construct", &k);
        if (r == SX_SUCCESS)
            r = sx_queue_launch(q, k, 1, NULL, &g, NULL, 0, NULL, 0, NULL, NULL);
        if (r != SX_SUCCESS)
            printf(BACKEND " probe: %s: %s\n", sx_result_name(r), sx_last_error());
        fflush(stdout);
        _exit(r == SX_ERROR_UNSUPPORTED_FEATURE || r == SX_ERROR_DEVICE_NOT_FOUND ? 77 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
#else
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

#endif

int main(void)
{
#ifdef VF_NATIVE
    if (access(sxt_build_path(K("vf-kernels")), R_OK) != 0) {
        printf("SKIP: the host test kernels were not built (clang)\n");
        return 77;
    }
    setenv("SX_ADAPTERS", "native", 1);
    setenv("SX_NATIVE_BUILTINS", sxt_build_path("adapters/native/.libs/sx-native-builtins.so"), 0);
    unsetenv("SX_CACHE");
    unsetenv("SX_NATIVE_HIDE_ASPECTS");
    if (probe() == 77) {
        printf("SKIP: the native adapter cannot link programs (program.compile/link unsupported)\n");
        return 77;
    }
    const char *dir = NULL, *file = NULL;
#elif defined(VF_CUDA)
    const char *adapter = sxt_build_path("adapters/cuda/.libs/sx-adapter-cuda.so");
    if (access(adapter, R_OK) != 0 || access(sxt_build_path(K("vf-kernels")), R_OK) != 0) {
        printf("SKIP: the CUDA adapter or the test kernels (nvcc) were not built\n");
        return 77;
    }
    setenv("SX_ADAPTERS", adapter, 1);
    unsetenv("SX_CACHE");
    if (probe() == 77) {
        printf("SKIP: no CUDA device, or its adapter cannot link programs\n");
        return 77;
    }
    const char *dir = NULL, *file = NULL;
#else
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
    static char dirbuf[] = "/tmp/sx-vf-icd-XXXXXX";
    static char filebuf[300];
    const char *dir = dirbuf, *file = filebuf;
    if (!mkdtemp(dirbuf))
        return 99;
    snprintf(filebuf, sizeof(filebuf), "%s/oclgrind.icd", dir);
    FILE *f = fopen(file, "w");
    if (!f)
        return 99;
    fprintf(f, "%s\n", icd);
    fclose(f);
    setenv("OCL_ICD_VENDORS", dir, 1);
    setenv("SX_ADAPTERS", adapter, 1);
    unsetenv("SX_CACHE");
#endif

    Suite *s = suite_create("virtual functions on " BACKEND);
    TCase *t = tcase_create("linked by the backend");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, device_with_the_aspect_links_the_real_set);
    tcase_add_test(t, persistent_cache_binary_runs);
    tcase_add_test(t, two_libraries_provide_the_set);
    suite_add_tcase(s, t);
    TCase *t2 = tcase_create("device lacking the set's aspect");
    tcase_add_checked_fixture(t2, setup_lacking, teardown);
    tcase_set_timeout(t2, 120);
    tcase_add_test(t2, device_without_the_aspect_links_the_dummy);
    suite_add_tcase(s, t2);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (file)
        unlink(file);
    if (dir)
        rmdir(dir);
    return failed ? 1 : 0;
}
