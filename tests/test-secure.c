/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-secure.c: issue 26's environment findings: in a setuid or setgid
 * process (AT_SECURE; the loader's test stand-in here) default discovery
 * loads only the built-in adapter unless sx_init names the installed ones
 * (finding 16), and sx_init(SX_INIT_IGNORE_ENVIRONMENT) ignores every
 * variable, SX_EPOCH_FENCE included (finding 9). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sx-internal.h"
#include "check-util.h"

static char dir[64];

/* A directory holding the fake adapter as sx-adapter-fake.so, named by
 * SX_ADAPTERS_PATH and SX_ADAPTER_DIR (the stand-in reads them: only the
 * loader's rule is under test). */
static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/sx-secure-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char link[128], target[4096];
    snprintf(link, sizeof(link), "%s/sx-adapter-fake.so", dir);
    snprintf(target, sizeof(target), "%stests/fake/.libs/fake-good.so", sxt_build_path(""));
    ck_assert_int_eq(symlink(target, link), 0);
    unsetenv("SX_ADAPTERS");
    setenv("SX_ADAPTERS_PATH", dir, 1);
    setenv("SX_ADAPTER_DIR", dir, 1);
}

static void teardown(void)
{
    char link[128];
    snprintf(link, sizeof(link), "%s/sx-adapter-fake.so", dir);
    unlink(link);
    rmdir(dir);
    sxi_loader_test_secure = false;
}

static uint32_t adapters_listed(void)
{
    uint32_t n = 0;
    CK_OK(sx_adapter_get(0, NULL, &n));
    return n;
}

START_TEST(plain_process_discovers_installed_adapters)
{
    CK_OK(sx_init(0));
    ck_assert_uint_eq(adapters_listed(), 2);
    CK_OK(sx_fini());
}
END_TEST

START_TEST(secure_process_loads_only_the_builtin_adapter)
{
    sxi_loader_test_secure = true;
    CK_OK(sx_init(0));
    ck_assert_uint_eq(adapters_listed(), 1);
    sx_adapter a;
    uint32_t n;
    CK_OK(sx_adapter_get(1, &a, &n));
    char path[256];
    CK_OK(sx_adapter_get_info(a, SX_ADAPTER_INFO_PATH, sizeof(path), path, NULL));
    ck_assert_str_eq(path, "(built in)");
    CK_OK(sx_fini());
    /* The application names the installed ones. */
    CK_OK(sx_init(SX_INIT_INSTALLED_ADAPTERS));
    ck_assert_uint_eq(adapters_listed(), 2);
    CK_OK(sx_fini());
    CK_ERR(sx_init(1u << 7), SX_ERROR_INVALID_VALUE);
}
END_TEST

/* SX_EPOCH_FENCE=1 (fenced readers) is not read once the application
 * asked for no environment: the process keeps the membarrier readers
 * (where the kernel has them; the fork gives a fresh process). */
START_TEST(ignore_environment_covers_epoch_fence)
{
    long have = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (have <= 0 || !(have & MEMBARRIER_CMD_PRIVATE_EXPEDITED))
        return; /* no membarrier here: fenced readers either way, nothing to tell apart */
    setenv("SX_EPOCH_FENCE", "1", 1);
    CK_OK(sx_init(SX_INIT_IGNORE_ENVIRONMENT)); /* the first sx_init of this (forked) process */
    bool asym = atomic_load(&sxi_epoch_asymmetric);
    CK_OK(sx_fini());
    unsetenv("SX_EPOCH_FENCE");
    ck_assert_msg(asym, "SX_EPOCH_FENCE=1 was read despite SX_INIT_IGNORE_ENVIRONMENT (fenced readers chosen)");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("secure");
    TCase *t = tcase_create("discovery");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, plain_process_discovers_installed_adapters);
    tcase_add_test(t, secure_process_loads_only_the_builtin_adapter);
    tcase_add_test(t, ignore_environment_covers_epoch_fence);
    suite_add_tcase(s, t);
    return s;
}

SXT_MAIN(suite)
