/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-cuda-nodriver.c: without a usable libcuda the CUDA adapter loads and reports 0 platforms. */
#include "abi-util.h"

static int failures;

#define CHECK(cond, ...)                                                           \
    do {                                                                           \
        if (!(cond)) {                                                             \
            failures++;                                                            \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                            \
            printf(__VA_ARGS__);                                                   \
            printf(" [last error: %s]\n", abi_last_error);                         \
        }                                                                          \
    } while (0)

/* Init with SX_CUDA_LIBRARY=lib (NULL: the default); expect 0 platforms and
 * a status containing `want`. */
static void expect_none(abi_tables *t, const char *lib, const char *want)
{
    if (lib)
        setenv("SX_CUDA_LIBRARY", lib, 1);
    else
        unsetenv("SX_CUDA_LIBRARY");
    sxa_adapter ad = NULL;
    sx_result rc = t->adapter.init(&abi_services, &ad);
    CHECK(rc == SX_SUCCESS && ad, "init with %s: %d", lib ? lib : "(default)", rc);
    if (rc)
        return;
    char status[256] = "";
    rc = t->adapter.get_info(ad, SXA_ADAPTER_INFO_STATUS, sizeof(status), status, NULL);
    CHECK(rc == SX_SUCCESS, "status: %d", rc);
    printf("# %s -> \"%s\"\n", lib ? lib : "(default)", status);
    CHECK(strstr(status, want) != NULL, "status \"%s\" lacks \"%s\"", status, want);
    uint32_t n = 99;
    rc = t->platform.get(ad, 0, NULL, &n);
    CHECK(rc == SX_SUCCESS && n == 0, "platforms: rc %d, %u", rc, n);
    char name[16] = "";
    t->adapter.get_info(ad, SXA_ADAPTER_INFO_NAME, sizeof(name), name, NULL);
    CHECK(!strcmp(name, "cuda"), "name %s", name);
    sx_backend b = 0;
    t->adapter.get_info(ad, SXA_ADAPTER_INFO_BACKEND, sizeof(b), &b, NULL);
    CHECK(b == SX_BACKEND_CUDA, "backend %u", b);
    CHECK(t->adapter.fini(ad) == SX_SUCCESS, "fini");
}

int main(void)
{
    abi_tables t;
    if (abi_load(&t) != 0)
        return 1;
    expect_none(&t, "/nonexistent/libcuda.so.1", "/nonexistent/libcuda.so.1 not found: 0 platforms");
    /* a library that is not a CUDA driver at all */
    expect_none(&t, "libc.so.6", "lacks cuInit");
    /* and the real default, where there is none (CI) */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h)
        dlclose(h);
    else
        expect_none(&t, NULL, "libcuda.so.1 not found: 0 platforms");
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
