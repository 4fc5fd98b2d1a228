/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* vf.c: virtual functions through the public API on an OpenCL driver that
 * takes SPIR-V and links it (Intel's CPU runtime): proptool's kernel, set
 * and dummy images, linked by the adapter with clCompileProgram +
 * clLinkProgram; calls- and creates-sets; the dummy of set_fp64 where fp64
 * is hidden (SX_OPENCL_HIDE_ASPECTS); the persistent cache; an ordinary
 * device_global shared by two linked programs. Built twice: ocl-vf
 * (tests/kernels/ocl-vf.cl: a vtable written out as a table of function
 * pointers) and ocl-vf-cxx (VF_CXX: tests/kernels/ocl-vf-cxx.clcpp, a C++
 * class and clang's own vtable, which proptool moves out of the Function
 * storage class; there also the reduced case of the driver's crash on the
 * vtable left in place: refused by the adapter, run after proptool). Skips (77) on
 * drivers without SPIR-V IL (PoCL, Oclgrind), saying so. */
#include <dirent.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sycl-ext/device-global.h>

#include "../check-util.h"
#include "sx-internal.h"

/* [0]: ocl_vf_use's result, [1]: ocl_vf_use_fp64's */
SX_DEVICE_GLOBAL(int[2], result, "ocl_vf_result", SX_HOST_ACCESS_READ_WRITE);

#ifdef VF_CXX
#define VF_IMAGE "ocl-vf-cxx"
#else
#define VF_IMAGE "ocl-vf"
#endif
static const char *const files[] = {VF_IMAGE};
enum { NFILES = 1 };
static sx_image_file img[NFILES];
static char tmpdir[64];
static sx_device dev;
static sx_context ctx;
static sx_queue q;

static void setup(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sx-ocl-vf-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
    char cache[128];
    snprintf(cache, sizeof cache, "%s/cache", tmpdir);
    setenv("SX_CACHE_DIR", cache, 1);
    for (int i = 0; i < NFILES; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "tests/kernels/%s.sximg", files[i]);
        CK_OK(sx_image_file_load(sxt_build_path(rel), &img[i]));
    }
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&dev));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
}

/* fp64 hidden by the adapter: set_fp64's real image cannot run, its dummy can. */
static void setup_no_fp64(void)
{
    char n[16];
    snprintf(n, sizeof n, "%d", SX_ASPECT_FP64);
    setenv("SX_OPENCL_HIDE_ASPECTS", n, 1);
    setup();
    int has = 1;
    CK_OK(sx_device_has_aspect(dev, SX_ASPECT_FP64, &has));
    ck_assert_msg(!has, "SX_OPENCL_HIDE_ASPECTS=%s left fp64 on the device", n);
}

static void teardown(void)
{
    CK_OK(sx_queue_release(q));
    CK_OK(sx_context_release(ctx));
    CK_OK(sx_fini());
    for (int i = 0; i < NFILES; i++)
        CK_OK(sx_image_file_release(img[i]));
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    unsetenv("SX_OPENCL_HIDE_ASPECTS");
}

/* kernel(x) on queue `on`, then result[slot] read back (slot < 0: none). */
static sx_result run_on(sx_queue on, const char *kernel, int x, int slot, int *value)
{
    sx_kernel k;
    sx_result r = sx_kernel_get(kernel, &k);
    if (r != SX_SUCCESS)
        return r;
    size_t one = 1;
    sx_arg a = {.type = SX_ARG_VALUE, .index = 0, .size = sizeof x, .value = &x};
    r = sx_queue_launch(on, k, 1, NULL, &one, NULL, 1, &a, 0, NULL, NULL);
    sx_kernel_release(k);
    if (r == SX_SUCCESS && slot >= 0)
        r = sx_queue_device_global_read(on, value, &result, sizeof *value,
                                        (size_t)slot * sizeof *value, 1, 0, NULL, NULL);
    return r;
}

static int run(const char *kernel, int x, int slot)
{
    int v = -12345;
    CK_OK(run_on(q, kernel, x, slot, &v));
    return v;
}

static unsigned files_in(const char *dir)
{
    unsigned n = 0;
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

START_TEST(real_sets_linked)
{
    sxi_program_stats s0, s1;
    sxi_program_stats_get(&s0);
    ck_assert_int_eq(run("ocl_vf_use", 7, 0), 7 * 3 + 1 + 1);
    ck_assert_int_eq(run("ocl_vf_use_fp64", 7, 1), 7 * 5 / 2 + 1);
    /* both ran in their own linked programs; the device global is shared */
    ck_assert_int_eq(run("ocl_vf_use", 9, 1), 7 * 5 / 2 + 1);
    sxi_program_stats_get(&s1);
    /* one link per kernel image: [use + default set + set_fp64], [use_fp64 + ...] */
    ck_assert_uint_eq(s1.links - s0.links, 2);
    /* a second launch is a cached one: no new link */
    ck_assert_int_eq(run("ocl_vf_use_fp64", 4, 1), 10 + 1);
    sxi_program_stats_get(&s0);
    ck_assert_uint_eq(s0.links, s1.links);
}
END_TEST

START_TEST(persistent_cache)
{
    ck_assert_int_eq(run("ocl_vf_use_fp64", 6, 1), 15 + 1);
    char cache[128];
    snprintf(cache, sizeof cache, "%s/cache", tmpdir);
    CK_OK(sx_cache_flush()); /* the cache's writer thread writes the entry */
    ck_assert_uint_ge(files_in(cache), 1);
    sxi_program_stats s0, s1;
    sxi_program_stats_get(&s0);
    /* another context: the linked program comes from disk, not a new link */
    sx_context c2;
    sx_queue q2;
    CK_OK(sx_context_create(1, &dev, &c2));
    CK_OK(sx_queue_create(c2, dev, SX_QUEUE_IN_ORDER, &q2));
    int v = -1;
    CK_OK(run_on(q2, "ocl_vf_use_fp64", 4, 1, &v));
    ck_assert_int_eq(v, 10 + 1);
    sxi_program_stats_get(&s1);
    ck_assert_uint_eq(s1.links - s0.links, 0);
    ck_assert_uint_eq(s1.disk_hits - s0.disk_hits, 1);
    CK_OK(sx_queue_release(q2));
    CK_OK(sx_context_release(c2));
}
END_TEST

START_TEST(dummy_where_fp64_is_hidden)
{
    /* ocl_vf_use's vtable names set_fp64's function: only the dummy can
     * provide it here, so a successful link is the dummy's doing */
    ck_assert_int_eq(run("ocl_vf_use", 7, 0), 7 * 3 + 1 + 1);
    /* a kernel that calls set_fp64 needs fp64: refused, saying so */
    int v = -1;
    CK_ERR(run_on(q, "ocl_vf_use_fp64", 8, 1, &v), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_MSG_HAS("ocl_vf_use_fp64");
}
END_TEST

#ifdef VF_CXX
/* The reduced crash (tests/kernels/ocl-vf-crash.clcpp): construct stores
 * the vtable's address into a buffer, use calls through it. `file`'s
 * kernels on a fresh runtime; the value use computes, or the error. */
static sx_result crash_case(const char *file, int *value)
{
    sx_image_file f;
    CK_OK(sx_image_file_load(sxt_build_path(file), &f));
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&dev));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    void *obj = NULL;
    int *r = NULL;
    CK_OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, 64, 0, &obj));
    CK_OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, sizeof *r, 0, (void **)&r));
    *r = -1;
    int x = 7;
    size_t one = 1;
    sx_arg args[3] = {{.type = SX_ARG_POINTER, .index = 0, .size = sizeof obj, .value = obj},
                      {.type = SX_ARG_POINTER, .index = 1, .size = sizeof r, .value = r},
                      {.type = SX_ARG_VALUE, .index = 2, .size = sizeof x, .value = &x}};
    sx_kernel k;
    CK_OK(sx_kernel_get("ocl_vfx_construct", &k));
    sx_result rc = sx_queue_launch(q, k, 1, NULL, &one, NULL, 1, args, 0, NULL, NULL);
    CK_OK(sx_kernel_release(k));
    if (rc == SX_SUCCESS) {
        CK_OK(sx_kernel_get("ocl_vfx_use", &k));
        rc = sx_queue_launch(q, k, 1, NULL, &one, NULL, 3, args, 0, NULL, NULL);
        CK_OK(sx_kernel_release(k));
    }
    if (rc == SX_SUCCESS)
        rc = sx_queue_wait(q);
    *value = *r;
    /* keep the message of a failure past the releases */
    static char msg[1024];
    snprintf(msg, sizeof msg, "%s", sx_last_error());
    CK_OK(sx_usm_free(ctx, obj));
    CK_OK(sx_usm_free(ctx, r));
    CK_OK(sx_queue_release(q));
    CK_OK(sx_context_release(ctx));
    CK_OK(sx_fini());
    CK_OK(sx_image_file_release(f));
    if (rc != SX_SUCCESS)
        ck_assert_msg(strstr(msg, "_ZTV5Crash") && strstr(msg, "Function storage class"),
                      "the refusal does not name the vtable and its storage class: %s", msg);
    return rc;
}

/* As llvm-spirv 14 writes it (vtable in the Function storage class) the
 * driver would segfault in clBuildProgram; the adapter refuses it, naming
 * the vtable. After proptool (vtable in CrossWorkgroup) the same code runs. */
START_TEST(function_storage_vtable)
{
    int v = 0;
    ck_assert_int_eq(crash_case("tests/kernels/ocl-vf-crash-raw.sximg", &v), SX_ERROR_INVALID_BINARY);
    ck_assert_int_eq(crash_case("tests/kernels/ocl-vf-crash.sximg", &v), SX_SUCCESS);
    ck_assert_int_eq(v, 7 * 3 + 1);
}
END_TEST
#endif

/* Can this driver take the images at all? In a child (fixtures fork too). */
static int probe(char *why, size_t size)
{
    int fd[2];
    if (pipe(fd) != 0)
        return 99;
    pid_t pid = fork();
    if (pid == 0) {
        /* no ck_ calls here: they only work inside tests */
        close(fd[0]);
        sx_result r = SX_SUCCESS;
        for (int i = 0; i < NFILES && r == SX_SUCCESS; i++) {
            char rel[128];
            snprintf(rel, sizeof rel, "tests/kernels/%s.sximg", files[i]);
            r = sx_image_file_load(sxt_build_path(rel), &img[i]);
        }
        setenv("SX_CACHE", "0", 1);
        if (r == SX_SUCCESS)
            r = sx_init(0);
        if (r == SX_SUCCESS)
            r = sx_device_get_default(&dev);
        if (r == SX_SUCCESS)
            r = sx_context_create(1, &dev, &ctx);
        if (r == SX_SUCCESS)
            r = sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q);
        if (r == SX_SUCCESS)
            r = run_on(q, "ocl_vf_use", 0, -1, NULL);
        if (r != SX_SUCCESS)
            dprintf(fd[1], "%s: %s", sx_result_name(r), sx_last_error());
        _exit(r == SX_SUCCESS ? 0
              : r == SX_ERROR_KERNEL_NOT_SUPPORTED || r == SX_ERROR_UNSUPPORTED_FEATURE ||
                      r == SX_ERROR_DEVICE_NOT_FOUND
                  ? 77
                  : 1);
    }
    close(fd[1]);
    ssize_t n = read(fd[0], why, size - 1);
    why[n > 0 ? n : 0] = 0;
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(void)
{
    if (access(sxt_build_path("tests/kernels/" VF_IMAGE ".sximg"), R_OK) != 0) {
        printf("SKIP: the virtual-function test images were not built (clang/llvm-spirv)\n");
        return 77;
    }
    setenv("SX_ADAPTERS", getenv("SXO_TEST_ADAPTER") ? getenv("SXO_TEST_ADAPTER")
                                                     : sxt_build_path("adapters/opencl/.libs/sx-adapter-opencl.so"), 1);
    unsetenv("SX_CACHE");
    char why[2048];
    int p = probe(why, sizeof why);
    if (p == 77) {
        printf("SKIP: this driver cannot run the SPIR-V virtual-function images: %s\n", why);
        return 77;
    }
    if (p != 0) {
        printf("FAIL: the probe failed: %s\n", why);
        return 1;
    }
    Suite *s = suite_create("opencl virtual functions");
    TCase *t = tcase_create("sets linked");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_set_timeout(t, 120);
    tcase_add_test(t, real_sets_linked);
    tcase_add_test(t, persistent_cache);
    suite_add_tcase(s, t);
    TCase *t2 = tcase_create("fp64 hidden");
    tcase_add_checked_fixture(t2, setup_no_fp64, teardown);
    tcase_set_timeout(t2, 120);
    tcase_add_test(t2, dummy_where_fp64_is_hidden);
    suite_add_tcase(s, t2);
#ifdef VF_CXX
    TCase *t3 = tcase_create("vtable storage class");
    tcase_set_timeout(t3, 120);
    tcase_add_test(t3, function_storage_vtable);
    suite_add_tcase(s, t3);
#endif
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
