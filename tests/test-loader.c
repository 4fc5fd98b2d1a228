/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-loader.c: adapter discovery and the loader's failure modes, with
 * the broken test adapters built in tests/fake/. */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check-util.h"

static const char *fake(const char *variant)
{
    static char buf[8][4096];
    static int i;
    char *out = buf[i++ % 8];
    snprintf(out, sizeof(buf[0]), "%s", sxt_build_path(""));
    snprintf(out + strlen(out), sizeof(buf[0]) - strlen(out), "tests/fake/.libs/fake-%s.so", variant);
    return out;
}

static sx_adapter find_adapter(const char *path_part)
{
    sx_adapter as[32];
    uint32_t n = 0;
    CK_OK(sx_adapter_get(32, as, &n));
    for (uint32_t i = 0; i < n; i++) {
        char path[4096];
        CK_OK(sx_adapter_get_info(as[i], SX_ADAPTER_INFO_PATH, sizeof(path), path, NULL));
        if (strstr(path, path_part))
            return as[i];
    }
    return NULL;
}

static sx_result status_of(sx_adapter a, char *text, size_t n)
{
    sx_result st;
    CK_OK(sx_adapter_get_info(a, SX_ADAPTER_INFO_STATUS, sizeof(st), &st, NULL));
    CK_OK(sx_adapter_get_info(a, SX_ADAPTER_INFO_STATUS_TEXT, n, text, NULL));
    return st;
}

START_TEST(broken_adapters_are_reported_and_skipped)
{
    char list[8192];
    snprintf(list, sizeof(list), "%s,%s,%s,%s,%s,/nonexistent/sx-adapter-x.so,native", fake("good"), fake("missing"),
             fake("wrongabi"), fake("initfails"), fake("undefined"));
    setenv("SX_ADAPTERS", list, 1);
    CK_OK(sx_init(0));
    uint32_t n = 0;
    CK_OK(sx_adapter_get(0, NULL, &n));
    ck_assert_uint_eq(n, 7);
    char text[1024];
    ck_assert_int_eq(status_of(find_adapter("fake-good"), text, sizeof(text)), SX_SUCCESS);
    ck_assert_int_eq(status_of(find_adapter("fake-missing"), text, sizeof(text)), SX_ERROR_INVALID_BINARY);
    ck_assert_msg(strstr(text, "enqueue.kernel_launch"), "status '%s' names no entry", text);
    ck_assert_int_eq(status_of(find_adapter("fake-wrongabi"), text, sizeof(text)), SX_ERROR_UNSUPPORTED_VERSION);
    ck_assert_msg(strstr(text, "ABI"), "status '%s'", text);
    ck_assert_int_eq(status_of(find_adapter("fake-initfails"), text, sizeof(text)), SX_ERROR_DEVICE_LOST);
    ck_assert_msg(strstr(text, "on purpose"), "status '%s' lost the adapter's message", text);
    ck_assert_int_eq(status_of(find_adapter("fake-undefined"), text, sizeof(text)), SX_ERROR_INVALID_BINARY);
    ck_assert_msg(strstr(text, "fake_symbol_nobody_defines"), "status '%s' lacks dlerror", text);
    ck_assert_int_eq(status_of(find_adapter("/nonexistent"), text, sizeof(text)), SX_ERROR_IO);
    ck_assert_int_eq(status_of(find_adapter("(built in)"), text, sizeof(text)), SX_SUCCESS);

    /* Only the good ones give devices: the fake's custom device is there. */
    sx_device devs[8];
    uint32_t nd = 0;
    CK_OK(sx_device_get(NULL, SX_DEVICE_TYPE_CUSTOM, 8, devs, &nd));
    ck_assert_uint_eq(nd, 1);
    char name[128];
    CK_OK(sx_device_get_info(devs[0], SX_DEVICE_INFO_NAME, sizeof(name), name, NULL));
    ck_assert_str_eq(name, "fake device");
    CK_OK(sx_fini());
}
END_TEST

START_TEST(default_discovery_uses_search_path_sorted)
{
    char dir[] = "/tmp/sx-loader-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char a[4200], b[4200];
    snprintf(a, sizeof(a), "%s/sx-adapter-opencl.so", dir);
    snprintf(b, sizeof(b), "%s/sx-adapter-cuda.so", dir);
    ck_assert_int_eq(symlink(fake("good"), a), 0);
    ck_assert_int_eq(symlink(fake("wrongabi"), b), 0);
    unsetenv("SX_ADAPTERS");
    char path[4200];
    snprintf(path, sizeof(path), "/nonexistent-dir:%s", dir);
    setenv("SX_ADAPTERS_PATH", path, 1);
    CK_OK(sx_init(0));
    sx_adapter as[8];
    uint32_t n = 0;
    CK_OK(sx_adapter_get(8, as, &n));
    unlink(a);
    unlink(b);
    rmdir(dir);
    ck_assert_uint_ge(n, 3);
    char p0[4096], p1[4096], p2[4096];
    CK_OK(sx_adapter_get_info(as[0], SX_ADAPTER_INFO_PATH, sizeof(p0), p0, NULL));
    CK_OK(sx_adapter_get_info(as[1], SX_ADAPTER_INFO_PATH, sizeof(p1), p1, NULL));
    CK_OK(sx_adapter_get_info(as[2], SX_ADAPTER_INFO_PATH, sizeof(p2), p2, NULL));
    ck_assert_str_eq(p0, "(built in)");
    ck_assert_msg(strstr(p1, "fake-wrongabi"), "cuda slot (sorted first) resolved to %s", p1);
    ck_assert_msg(strstr(p2, "fake-good"), "opencl slot resolved to %s", p2);
    CK_OK(sx_fini());
}
END_TEST

/* A third-party adapter: any sx-adapter-NAME.so in the search path is
 * discovered without SX_ADAPTERS, and its devices are selected by the
 * adapter's own name (every out-of-tree adapter is SX_BACKEND_OTHER). */
START_TEST(third_party_adapters_discovered_and_selected_by_name)
{
    char dir[] = "/tmp/sx-loader-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char a[4200], b[4200];
    snprintf(a, sizeof(a), "%s/sx-adapter-zvendor.so", dir);
    snprintf(b, sizeof(b), "%s/sx-adapter-avendor.so", dir);
    ck_assert_int_eq(symlink(fake("good"), a), 0);
    ck_assert_int_eq(symlink(fake("initfails"), b), 0);
    unsetenv("SX_ADAPTERS");
    setenv("SX_ADAPTERS_PATH", dir, 1);
    setenv("SX_DEVICE_SELECTOR", "fake:*", 1);
    CK_OK(sx_init(0));
    sx_adapter za = NULL, aa = NULL;
    sx_adapter as[32];
    uint32_t n = 0;
    CK_OK(sx_adapter_get(32, as, &n));
    int zi = -1, ai = -1;
    for (uint32_t i = 0; i < n; i++) {
        char path[4096];
        CK_OK(sx_adapter_get_info(as[i], SX_ADAPTER_INFO_PATH, sizeof(path), path, NULL));
        if (strstr(path, "fake-good"))
            zi = (int)i, za = as[i];
        if (strstr(path, "fake-initfails"))
            ai = (int)i, aa = as[i];
    }
    unlink(a);
    unlink(b);
    rmdir(dir);
    ck_assert_msg(zi > 0 && ai > 0, "both vendor files discovered (%d, %d)", zi, ai);
    ck_assert_msg(ai < zi, "sorted by file name: avendor (%d) before zvendor (%d)", ai, zi);
    char text[1024];
    ck_assert_int_eq(status_of(aa, text, sizeof(text)), SX_ERROR_DEVICE_LOST); /* reported, skipped */
    ck_assert_int_eq(status_of(za, text, sizeof(text)), SX_SUCCESS);
    /* Only the fake adapter's device passes "fake:*"; native's does not. */
    sx_device d;
    CK_OK(sx_device_get_default(&d));
    char name[64];
    CK_OK(sx_device_get_info(d, SX_DEVICE_INFO_ADAPTER_NAME, sizeof(name), name, NULL));
    ck_assert_str_eq(name, "fake");
    sx_adapter owner = NULL;
    CK_OK(sx_device_get_info(d, SX_DEVICE_INFO_ADAPTER, sizeof(owner), &owner, NULL));
    ck_assert_ptr_eq(owner, za);
    CK_ERR(sx_device_get(NULL, SX_DEVICE_TYPE_CPU, 0, NULL, &n), SX_ERROR_DEVICE_NOT_FOUND);
    CK_OK(sx_fini());
    /* An index in an adapter-name term counts that adapter's devices. */
    setenv("SX_ADAPTERS", fake("good"), 1);
    setenv("SX_DEVICE_SELECTOR", "fake:1", 1);
    CK_OK(sx_init(0));
    CK_ERR(sx_device_get_default(&d), SX_ERROR_DEVICE_NOT_FOUND);
    CK_OK(sx_fini());
    setenv("SX_DEVICE_SELECTOR", "fake:0", 1);
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&d));
    CK_OK(sx_fini());
    unsetenv("SX_DEVICE_SELECTOR");
    unsetenv("SX_ADAPTERS_PATH");
}
END_TEST

/* An adapter that breaks the contract is caught, never trusted (issue 15):
 * each case failed or crashed before the core checked it. */
START_TEST(adapter_misbehaviour_is_caught)
{
    sx_device d;
    sx_context c;
    char text[1024];
    setenv("SX_ADAPTERS", fake("good"), 1);
    /* A NULL device with success: the adapter is refused, with the reason. */
    setenv("FAKE_NULL_DEVICE", "1", 1);
    CK_OK(sx_init(0));
    CK_ERR(sx_device_get_default(&d), SX_ERROR_DEVICE_NOT_FOUND);
    ck_assert_int_ne(status_of(find_adapter("fake-good"), text, sizeof(text)), SX_SUCCESS);
    ck_assert_msg(strstr(text, "NULL handle for device"), "status '%s'", text);
    CK_OK(sx_fini());
    unsetenv("FAKE_NULL_DEVICE");
    /* A device count that changes between the two calls. */
    setenv("FAKE_COUNT_CHANGES", "1", 1);
    CK_OK(sx_init(0));
    CK_ERR(sx_device_get_default(&d), SX_ERROR_DEVICE_NOT_FOUND);
    ck_assert_int_ne(status_of(find_adapter("fake-good"), text, sizeof(text)), SX_SUCCESS);
    ck_assert_msg(strstr(text, "devices on platform"), "status '%s'", text);
    CK_OK(sx_fini());
    unsetenv("FAKE_COUNT_CHANGES");
    /* A NULL context with success: an error, no handle. */
    setenv("FAKE_NULL_CONTEXT", "1", 1);
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&d));
    c = NULL;
    CK_ERR(sx_context_create(1, &d, &c), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("NULL context");
    ck_assert_ptr_null(c);
    CK_OK(sx_fini());
    unsetenv("FAKE_NULL_CONTEXT");
    /* A failed release is returned, not swallowed; the handle is gone all the same. */
    setenv("FAKE_QUEUE_RELEASE_FAILS", "1", 1);
    CK_OK(sx_init(0));
    CK_OK(sx_device_get_default(&d));
    CK_OK(sx_context_create(1, &d, &c));
    sx_queue q;
    CK_OK(sx_queue_create(c, d, SX_QUEUE_IN_ORDER, &q));
    CK_ERR(sx_queue_release(q), SX_ERROR_DEVICE_LOST);
    CK_MSG_HAS("on purpose");
    CK_ERR(sx_queue_release(q), SX_ERROR_INVALID_HANDLE);
    CK_OK(sx_context_release(c));
    CK_OK(sx_fini());
    unsetenv("FAKE_QUEUE_RELEASE_FAILS");
}
END_TEST

START_TEST(selector_filters_devices)
{
    char list[4200];
    snprintf(list, sizeof(list), "%s,native", fake("good"));
    setenv("SX_ADAPTERS", list, 1);
    setenv("SX_DEVICE_SELECTOR", "!native:*", 1);
    CK_OK(sx_init(0));
    uint32_t n = 0;
    CK_ERR(sx_device_get(NULL, SX_DEVICE_TYPE_CPU, 0, NULL, &n), SX_ERROR_DEVICE_NOT_FOUND);
    CK_OK(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 0, NULL, &n));
    sx_device d;
    CK_OK(sx_device_get_default(&d));
    sx_device_type t;
    CK_OK(sx_device_get_info(d, SX_DEVICE_INFO_TYPE, sizeof(t), &t, NULL));
    ck_assert_uint_eq(t, SX_DEVICE_TYPE_CUSTOM);
    CK_OK(sx_fini());

    setenv("SX_DEVICE_SELECTOR", "opencl:gpu;level_zero:0", 1);
    CK_OK(sx_init(0));
    CK_ERR(sx_device_get_default(&d), SX_ERROR_DEVICE_NOT_FOUND);
    CK_OK(sx_fini());

    setenv("SX_DEVICE_SELECTOR", "vul/kan:gpu", 1);
    CK_ERR(sx_init(0), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("vul/kan");
    setenv("SX_DEVICE_SELECTOR", "native", 1);
    CK_ERR(sx_init(0), SX_ERROR_INVALID_VALUE);
    CK_MSG_HAS("':'");
    CK_ERR(sx_fini(), SX_ERROR_UNINITIALIZED);
}
END_TEST

static char trace_seen[8192];
static void capture(sx_log_level l, const char *msg, void *user)
{
    strncat(trace_seen, msg, sizeof(trace_seen) - strlen(trace_seen) - 2);
    strcat(trace_seen, "\n");
}

START_TEST(trace_logs_adapter_calls)
{
    char list[4200];
    snprintf(list, sizeof(list), "%s", fake("good"));
    setenv("SX_ADAPTERS", list, 1);
    setenv("SX_TRACE", "1", 1);
    CK_OK(sx_set_log_callback(capture, NULL));
    CK_OK(sx_init(0));
    sx_device d;
    CK_OK(sx_device_get_default(&d));
    sx_context c;
    CK_OK(sx_context_create(1, &d, &c));
    CK_OK(sx_context_release(c));
    CK_OK(sx_fini());
    ck_assert_msg(strstr(trace_seen, "trace fake context.create -> SX_SUCCESS"), "trace was: %s", trace_seen);
    ck_assert_msg(strstr(trace_seen, "trace fake adapter.fini"), "trace was: %s", trace_seen);
}
END_TEST

START_TEST(ignore_environment_flag)
{
    char list[4200];
    snprintf(list, sizeof(list), "%s", fake("good"));
    setenv("SX_ADAPTERS", list, 1);
    setenv("SX_ADAPTERS_PATH", "/nonexistent", 1);
    CK_OK(sx_init(SX_INIT_IGNORE_ENVIRONMENT));
    ck_assert_ptr_null(find_adapter("fake-good"));
    ck_assert_ptr_nonnull(find_adapter("(built in)"));
    CK_OK(sx_fini());
    CK_ERR(sx_init(0x80), SX_ERROR_INVALID_VALUE);
}
END_TEST

START_TEST(refcounted_init_and_calls_after_fini)
{
    setenv("SX_ADAPTERS", "native", 1);
    CK_OK(sx_init(0));
    CK_OK(sx_init(0));
    CK_OK(sx_fini());
    uint32_t n;
    CK_OK(sx_platform_get(0, NULL, &n)); /* still one user */
    CK_OK(sx_fini());
    CK_ERR(sx_platform_get(0, NULL, &n), SX_ERROR_UNINITIALIZED);
    CK_MSG_HAS("sx_init");
    CK_ERR(sx_fini(), SX_ERROR_UNINITIALIZED);
    /* and again from scratch */
    CK_OK(sx_init(0));
    CK_OK(sx_fini());
}
END_TEST

/* Lazy loading: an adapter is loaded when a query needs its backend. The
 * "cuda" one here is the fake whose init fails: its warning shows when it
 * was loaded. */
static char lazy_log[16384];
static void lazy_capture(sx_log_level l, const char *msg, void *user)
{
    strncat(lazy_log, msg, sizeof(lazy_log) - strlen(lazy_log) - 2);
    strcat(lazy_log, "\n");
}

static char lazy_dir[64];
static void lazy_setup(void)
{
    snprintf(lazy_dir, sizeof(lazy_dir), "/tmp/sx-lazy-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(lazy_dir));
    char cuda[200];
    snprintf(cuda, sizeof(cuda), "%s/sx-adapter-cuda.so", lazy_dir);
    ck_assert_int_eq(symlink(fake("initfails"), cuda), 0);
    unsetenv("SX_ADAPTERS");
    setenv("SX_ADAPTERS_PATH", lazy_dir, 1);
    lazy_log[0] = '\0';
    CK_OK(sx_set_log_callback(lazy_capture, NULL));
    CK_OK(sx_set_log_level(SX_LOG_WARN));
}

static void lazy_teardown(void)
{
    char cuda[200];
    snprintf(cuda, sizeof(cuda), "%s/sx-adapter-cuda.so", lazy_dir);
    unlink(cuda);
    rmdir(lazy_dir);
    unsetenv("SX_ADAPTERS_PATH");
    unsetenv("SX_DEVICE_SELECTOR");
}

START_TEST(adapters_load_when_a_query_needs_them)
{
    setenv("SX_DEVICE_SELECTOR", "native:*", 1);
    CK_OK(sx_init(0));
    ck_assert_msg(!strstr(lazy_log, "on purpose"), "loaded at sx_init: %s", lazy_log);
    sx_device d;
    CK_OK(sx_device_get_default(&d));
    sx_backend b;
    CK_OK(sx_device_get_info(d, SX_DEVICE_INFO_BACKEND, sizeof(b), &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_NATIVE);
    uint32_t np = 0;
    CK_OK(sx_platform_get(0, NULL, &np));
    ck_assert_uint_eq(np, 1);
    ck_assert_msg(!strstr(lazy_log, "on purpose"), "the selector's native query loaded cuda: %s", lazy_log);
    /* Asking for the adapters loads each, so each has its status. */
    sx_adapter a = find_adapter("fake-initfails");
    ck_assert_ptr_nonnull(a);
    char text[1024];
    ck_assert_int_eq(status_of(a, text, sizeof(text)), SX_ERROR_DEVICE_LOST);
    ck_assert_msg(strstr(lazy_log, "on purpose"), "sx_adapter_get loaded nothing: %s", lazy_log);
    /* Still only native's platform: the selector rules cuda out. */
    CK_OK(sx_platform_get(0, NULL, &np));
    ck_assert_uint_eq(np, 1);
    CK_OK(sx_fini());
}
END_TEST

START_TEST(device_queries_load_what_the_selector_allows)
{
    /* No selector: a device query needs every backend. */
    CK_OK(sx_init(0));
    uint32_t n = 0;
    CK_OK(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 0, NULL, &n));
    ck_assert_uint_ge(n, 1);
    ck_assert_msg(strstr(lazy_log, "on purpose"), "cuda not loaded by an unrestricted query: %s", lazy_log);
    CK_OK(sx_fini());
    /* "!cuda:*" rules cuda out; "!cuda:gpu" does not (a cuda CPU device could pass). */
    lazy_log[0] = '\0';
    setenv("SX_DEVICE_SELECTOR", "!cuda:*", 1);
    CK_OK(sx_init(0));
    CK_OK(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 0, NULL, &n));
    ck_assert_msg(!strstr(lazy_log, "on purpose"), "'!cuda:*' loaded cuda: %s", lazy_log);
    CK_OK(sx_fini());
    setenv("SX_DEVICE_SELECTOR", "!cuda:gpu", 1);
    CK_OK(sx_init(0));
    CK_OK(sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 0, NULL, &n));
    ck_assert_msg(strstr(lazy_log, "on purpose"), "'!cuda:gpu' left cuda out: %s", lazy_log);
    CK_OK(sx_fini());
    /* SX_ADAPTERS_EAGER=1 loads everything at sx_init. */
    lazy_log[0] = '\0';
    unsetenv("SX_DEVICE_SELECTOR");
    setenv("SX_ADAPTERS_EAGER", "1", 1);
    CK_OK(sx_init(0));
    unsetenv("SX_ADAPTERS_EAGER");
    ck_assert_msg(strstr(lazy_log, "on purpose"), "not loaded eagerly: %s", lazy_log);
    CK_OK(sx_fini());
}
END_TEST

/* sx_device_select: the program names what it uses in code; only those
 * adapters load, and SX_DEVICE_SELECTOR still applies on top. */
START_TEST(device_select_loads_only_what_it_names)
{
    CK_OK(sx_init(0));
    sx_device d[4];
    uint32_t n = 0;
    CK_OK(sx_device_select("native:*", 4, d, &n));
    ck_assert_uint_eq(n, 1);
    sx_backend b;
    CK_OK(sx_device_get_info(d[0], SX_DEVICE_INFO_BACKEND, sizeof(b), &b, NULL));
    ck_assert_uint_eq(b, SX_BACKEND_NATIVE);
    ck_assert_msg(!strstr(lazy_log, "on purpose"), "'native:*' loaded cuda: %s", lazy_log);
    /* The same device as the list's, by index and by type. */
    sx_device again;
    CK_OK(sx_device_select("native:0", 1, &again, NULL));
    ck_assert_ptr_eq(again, d[0]);
    CK_OK(sx_device_select("native:cpu", 1, &again, NULL));
    ck_assert_ptr_eq(again, d[0]);
    CK_ERR(sx_device_select("native:gpu", 1, &again, NULL), SX_ERROR_DEVICE_NOT_FOUND);
    ck_assert_msg(strstr(sx_last_error(), "native:gpu"), "%s", sx_last_error());
    CK_ERR(sx_device_select("native:1", 1, &again, NULL), SX_ERROR_DEVICE_NOT_FOUND);
    /* Bad input. */
    CK_ERR(sx_device_select("native", 1, &again, NULL), SX_ERROR_INVALID_VALUE);
    ck_assert_msg(strstr(sx_last_error(), "sx_device_select") && strstr(sx_last_error(), "no ':'"), "%s",
                  sx_last_error());
    CK_ERR(sx_device_select("bogus!:*", 1, &again, NULL), SX_ERROR_INVALID_VALUE);
    CK_ERR(sx_device_select(NULL, 1, &again, NULL), SX_ERROR_INVALID_NULL_POINTER);
    CK_ERR(sx_device_select("native:*", 0, &again, NULL), SX_ERROR_INVALID_SIZE);
    CK_ERR(sx_device_select("native:*", 1, NULL, NULL), SX_ERROR_INVALID_NULL_POINTER);
    ck_assert_msg(!strstr(lazy_log, "on purpose"), "a native query loaded cuda: %s", lazy_log);
    /* Naming cuda loads it (the fake fails its init, so no cuda device). */
    CK_ERR(sx_device_select("cuda:*", 1, &again, NULL), SX_ERROR_DEVICE_NOT_FOUND);
    ck_assert_msg(strstr(lazy_log, "on purpose"), "'cuda:*' did not load cuda: %s", lazy_log);
    /* Both selectors count: native rules out by SX_DEVICE_SELECTOR. */
    CK_OK(sx_fini());
    lazy_log[0] = '\0';
    setenv("SX_DEVICE_SELECTOR", "!native:*", 1);
    CK_OK(sx_init(0));
    CK_ERR(sx_device_select("native:*", 1, &again, NULL), SX_ERROR_DEVICE_NOT_FOUND);
    ck_assert_msg(strstr(sx_last_error(), "SX_DEVICE_SELECTOR"), "%s", sx_last_error());
    ck_assert_msg(!strstr(lazy_log, "on purpose"), "loaded cuda: %s", lazy_log);
    CK_OK(sx_fini());
    CK_ERR(sx_device_select("native:*", 1, &again, NULL), SX_ERROR_UNINITIALIZED);
}
END_TEST

static void *query_devices(void *arg)
{
    uint32_t *n = arg;
    sx_result r = sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 0, NULL, n);
    return (void *)(intptr_t)r;
}

START_TEST(first_queries_from_many_threads)
{
    CK_OK(sx_init(0));
    pthread_t th[8];
    uint32_t n[8];
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, query_devices, &n[i]), 0);
    for (int i = 0; i < 8; i++) {
        void *r;
        ck_assert_int_eq(pthread_join(th[i], &r), 0);
        ck_assert_int_eq((intptr_t)r, SX_SUCCESS);
        ck_assert_uint_eq(n[i], n[0]);
    }
    ck_assert_uint_ge(n[0], 1);
    CK_OK(sx_fini());
}
END_TEST

/* Issue 15, defect 5: tests see only the build tree. SX_ADAPTER_DIR
 * replaces the installed adapter directory (make check points it at an
 * empty one, so an installed copy's adapters are never loaded): an adapter
 * there is found, and with it pointing elsewhere it is not. */
START_TEST(adapter_dir_replaces_the_installed_one)
{
    const char *harness = getenv("SX_ADAPTER_DIR");
    ck_assert_msg(harness && *harness, "make check must set SX_ADAPTER_DIR (tests would see installed adapters)");
    char dir[] = "/tmp/sx-loader-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char a[4200];
    snprintf(a, sizeof(a), "%s/sx-adapter-installed.so", dir);
    ck_assert_int_eq(symlink(fake("good"), a), 0);
    unsetenv("SX_ADAPTERS");
    unsetenv("SX_ADAPTERS_PATH");
    setenv("SX_ADAPTER_DIR", dir, 1);
    CK_OK(sx_init(0));
    int found = find_adapter("sx-adapter-installed") != NULL || find_adapter("fake-good") != NULL;
    CK_OK(sx_fini());
    setenv("SX_ADAPTER_DIR", "/nonexistent-adapter-dir", 1);
    CK_OK(sx_init(0));
    uint32_t n = 0;
    CK_OK(sx_adapter_get(0, NULL, &n));
    int found_elsewhere = find_adapter("fake-good") != NULL;
    CK_OK(sx_fini());
    setenv("SX_ADAPTER_DIR", harness, 1);
    unlink(a);
    rmdir(dir);
    ck_assert_msg(found, "the adapter in SX_ADAPTER_DIR was not loaded");
    ck_assert_msg(!found_elsewhere && n == 1, "%u adapters with an empty adapter directory (want the built-in one)", n);
}
END_TEST

static Suite *loader_suite(void)
{
    Suite *s = suite_create("loader");
    TCase *tc = tcase_create("discovery");
    tcase_add_test(tc, broken_adapters_are_reported_and_skipped);
    tcase_add_test(tc, default_discovery_uses_search_path_sorted);
    tcase_add_test(tc, selector_filters_devices);
    tcase_add_test(tc, adapter_misbehaviour_is_caught);
    tcase_add_test(tc, third_party_adapters_discovered_and_selected_by_name);
    tcase_add_test(tc, trace_logs_adapter_calls);
    tcase_add_test(tc, ignore_environment_flag);
    tcase_add_test(tc, refcounted_init_and_calls_after_fini);
    tcase_add_test(tc, adapter_dir_replaces_the_installed_one);
    suite_add_tcase(s, tc);
    TCase *lazy = tcase_create("lazy loading");
    tcase_add_checked_fixture(lazy, lazy_setup, lazy_teardown);
    tcase_add_test(lazy, adapters_load_when_a_query_needs_them);
    tcase_add_test(lazy, device_queries_load_what_the_selector_allows);
    tcase_add_test(lazy, device_select_loads_only_what_it_names);
    tcase_add_test(lazy, first_queries_from_many_threads);
    suite_add_tcase(s, lazy);
    return s;
}

SXT_MAIN(loader_suite)
