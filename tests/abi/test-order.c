/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-order.c: the registration entry points generated code calls work in
 * any order relative to sx_init/sx_fini: constructors of several shared
 * objects (this program's image "a", libabi-b.so's image "b" and device
 * global), a dlopen'd/dlclose'd plugin with images and a device global
 * (abi-c.so), registration after fini and unregistration after fini
 * (image "d", by hand; and at exit, from destructors). One test per order. */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sycl-ext/sx.h>

#include "abi-util.h"

/* From the generated registration C and libabi-b.so. */
sx_result abi_a_registration_result(void);
const sx_device_binaries *abi_d_device_binaries(void);
sx_result abi_b_result(void);
const void *abi_b_dg_object(void);

#define CK_OK(call)                                                                                   \
    do {                                                                                              \
        sx_result r_ = (call);                                                                        \
        ck_assert_msg(r_ == SX_SUCCESS, "%s: %s: %s", #call, sx_result_name(r_), sx_last_error());    \
    } while (0)
#define CK_RESULT(call, want)                                                                         \
    do {                                                                                              \
        sx_result r_ = (call);                                                                        \
        ck_assert_msg(r_ == (want), "%s: %s, expected %s: %s", #call, sx_result_name(r_),             \
                      sx_result_name(want), sx_last_error());                                         \
    } while (0)

static char plugin_path[4096];

static void *plugin_open(void)
{
    void *dl = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(dl != NULL, "dlopen %s: %s", plugin_path, dlerror());
    return dl;
}
static sx_result plugin_result(void *dl)
{
    sx_result (*fn)(void) = (sx_result(*)(void))dlsym(dl, "abi_c_result");
    ck_assert_msg(fn != NULL, "abi_c_result not in the plugin");
    return fn();
}
static const void *plugin_dg(void *dl)
{
    const void *(*fn)(void) = (const void *(*)(void))dlsym(dl, "abi_c_dg_object");
    ck_assert_msg(fn != NULL, "abi_c_dg_object not in the plugin");
    return fn();
}

/* Constructors of this program and of a linked shared object ran before
 * main, so before sx_init: both registered, both usable. */
START_TEST(ctor_before_init)
{
    CK_OK(abi_a_registration_result());
    CK_OK(abi_b_result());
    CK_OK(sx_init(0));
    CK_OK(abi_run_fill("abi_a_fill", 2, NULL, 0));
    CK_OK(abi_run_fill("abi_b_fill", 5, abi_b_dg_object(), 1000));
    CK_OK(sx_fini());
}
END_TEST

/* The images of both shared objects are all listed, whatever order their
 * constructors ran in. */
START_TEST(several_shared_objects)
{
    CK_OK(sx_init(0));
    uint32_t n = 0;
    CK_OK(sx_kernel_get_all(0, NULL, &n));
    sx_kernel ks[16];
    ck_assert_uint_le(n, 16);
    CK_OK(sx_kernel_get_all(n, ks, &n));
    int seen = 0;
    for (uint32_t i = 0; i < n; i++) {
        char name[64];
        CK_OK(sx_kernel_get_info(ks[i], SX_KERNEL_INFO_NAME, sizeof name, name, NULL));
        seen |= (strcmp(name, "abi_a_fill") == 0) | (strcmp(name, "abi_b_fill") == 0) << 1;
        CK_OK(sx_kernel_release(ks[i]));
    }
    ck_assert_msg(seen == 3, "kernels of both objects listed: mask %d of %u kernels", seen, n);
    CK_OK(sx_fini());
}
END_TEST

/* Registration after the last sx_fini, used by the next sx_init;
 * unregistration after fini; then the kernel is gone. */
START_TEST(register_after_fini)
{
    const sx_device_binaries *d = abi_d_device_binaries();
    CK_OK(sx_init(0));
    CK_OK(sx_fini());
    CK_OK(sx_register_images(d));
    CK_RESULT(sx_register_images(d), SX_ERROR_INVALID_OPERATION);
    CK_OK(sx_init(0));
    CK_OK(abi_run_fill("abi_d_fill", 7, NULL, 0));
    CK_OK(sx_fini());
    CK_OK(sx_unregister_images(d));
    CK_RESULT(sx_unregister_images(d), SX_ERROR_INVALID_VALUE);
    CK_OK(sx_init(0));
    sx_kernel k;
    CK_RESULT(sx_kernel_get("abi_d_fill", &k), SX_ERROR_INVALID_KERNEL_NAME);
    CK_OK(sx_fini());
}
END_TEST

/* A plugin dlopen'd after sx_init registers from its constructor; dlclose
 * unregisters its images and device global; a kernel handle kept across
 * the dlclose fails cleanly; opening it again works again. */
START_TEST(plugin_after_init)
{
    CK_OK(sx_init(0));
    void *dl = plugin_open();
    CK_OK(plugin_result(dl));
    CK_OK(abi_run_fill("abi_c_fill", 4, plugin_dg(dl), 77));
    sx_kernel kept;
    CK_OK(sx_kernel_get("abi_c_fill", &kept));
    ck_assert_int_eq(dlclose(dl), 0);
    ck_assert_msg(dlopen(plugin_path, RTLD_NOW | RTLD_NOLOAD) == NULL, "the plugin is still loaded after dlclose");
    sx_kernel k;
    CK_RESULT(sx_kernel_get("abi_c_fill", &k), SX_ERROR_INVALID_KERNEL_NAME);
    sx_device dev;
    sx_context ctx;
    sx_queue q;
    CK_OK(sx_device_get_default(&dev));
    CK_OK(sx_context_create(1, &dev, &ctx));
    CK_OK(sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, &q));
    int *out;
    CK_OK(sx_usm_alloc(ctx, dev, SX_USM_TYPE_SHARED, ABI_N * sizeof(int), 0, (void **)&out));
    int v = 1;
    sx_arg args[2] = {{SX_ARG_POINTER, 0, sizeof(void *), out}, {SX_ARG_VALUE, 1, sizeof(int), &v}};
    size_t global = ABI_N;
    CK_RESULT(sx_queue_launch(q, kept, 1, NULL, &global, NULL, 2, args, 0, NULL, NULL), SX_ERROR_KERNEL_NOT_SUPPORTED);
    CK_OK(sx_kernel_release(kept));
    CK_OK(sx_usm_free(ctx, out));
    CK_OK(sx_queue_release(q));
    CK_OK(sx_context_release(ctx));
    dl = plugin_open();
    CK_OK(plugin_result(dl));
    CK_OK(abi_run_fill("abi_c_fill", 6, plugin_dg(dl), 5));
    CK_OK(sx_fini());
    ck_assert_int_eq(dlclose(dl), 0);
}
END_TEST

/* A plugin opened before sx_init and closed after sx_fini (its destructor
 * unregisters after fini), twice over. */
START_TEST(plugin_around_init)
{
    for (int round = 0; round < 2; round++) {
        void *dl = plugin_open();
        CK_OK(plugin_result(dl));
        CK_OK(sx_init(0));
        CK_OK(abi_run_fill("abi_c_fill", 3 + round, plugin_dg(dl), 10 * round));
        CK_OK(sx_fini());
        ck_assert_int_eq(dlclose(dl), 0);
        sx_kernel k;
        CK_OK(sx_init(0));
        CK_RESULT(sx_kernel_get("abi_c_fill", &k), SX_ERROR_INVALID_KERNEL_NAME);
        CK_OK(sx_fini());
    }
}
END_TEST

/* Nested users: a plugin's sx_init/sx_fini pair inside the program's. */
START_TEST(nested_init)
{
    CK_OK(sx_init(0));
    void *dl = plugin_open();
    CK_OK(sx_init(0));
    CK_OK(abi_run_fill("abi_c_fill", 2, plugin_dg(dl), 3));
    CK_OK(sx_fini());
    CK_OK(abi_run_fill("abi_a_fill", 2, NULL, 0));
    ck_assert_int_eq(dlclose(dl), 0);
    CK_OK(sx_fini());
    CK_RESULT(sx_fini(), SX_ERROR_UNINITIALIZED);
}
END_TEST

/* At exit: destructors of the program, libabi-b.so and a still-open plugin
 * unregister after main's sx_fini. Run in a child so exit really happens;
 * this program's own destructor checks what unregistration returned. */
static int exit_check;
__attribute__((destructor)) static void check_at_exit(void)
{
    if (!exit_check)
        return;
    sx_result r = sx_unregister_images(abi_d_device_binaries());
    if (r != SX_SUCCESS) {
        fprintf(stderr, "destructor: sx_unregister_images after fini: %s: %s\n", sx_result_name(r), sx_last_error());
        _exit(10);
    }
}

START_TEST(unregister_at_exit)
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        exit_check = 1;
        if (sx_register_images(abi_d_device_binaries()) != SX_SUCCESS || sx_init(0) != SX_SUCCESS)
            _exit(11);
        void *dl = dlopen(plugin_path, RTLD_NOW | RTLD_LOCAL);
        if (!dl || abi_run_fill("abi_d_fill", 1, NULL, 0) != SX_SUCCESS || sx_fini() != SX_SUCCESS)
            _exit(12);
        exit(0); /* the plugin stays open: its destructor runs at exit too */
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child: status 0x%x (10: unregister failed)", status);
}
END_TEST

int main(void)
{
    const char *b = getenv("SX_TEST_BUILDDIR");
    snprintf(plugin_path, sizeof plugin_path, "%s/tests/abi/.libs/abi-c.so", b ? b : ".");
    if (access(plugin_path, R_OK) != 0) {
        printf("SKIP: %s not built\n", plugin_path);
        return 77;
    }
    /* The native adapter only: no other backend's driver in the way. */
    setenv("SX_ADAPTERS", "native", 1);
    Suite *s = suite_create("registration order");
    TCase *tc = tcase_create("order");
    tcase_add_test(tc, ctor_before_init);
    tcase_add_test(tc, several_shared_objects);
    tcase_add_test(tc, register_after_fini);
    tcase_add_test(tc, plugin_after_init);
    tcase_add_test(tc, plugin_around_init);
    tcase_add_test(tc, nested_init);
    tcase_add_test(tc, unregister_at_exit);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
