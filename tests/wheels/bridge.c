/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bridge.c: libsycl-ext-dpcpp.so offline, on two modules built in the tree
 * in DPC++'s shape (fake-module.c: version-3 record, LLVM entries, a zstd
 * image) that link a stand-in for DPC++'s libsycl.so (fake-libsycl.c):
 * loaded, every descriptor registers with libsycl-ext and reaches the
 * stand-in too (unless SX_DPCPP_FORWARD=0); unloaded in load order (not
 * the reverse), each module takes exactly its own kernels away.
 * Usage: bridge MODULEDIR (built linked with the bridge: bridge-linked;
 * without it, run under LD_PRELOAD: bridge-preloaded). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/dpcpp.h>
#include <sycl-ext/sx.h>

static int fail;
#define EXPECT(cond, ...)                                                                                            \
    do {                                                                                                             \
        if (!(cond)) {                                                                                               \
            fprintf(stderr, "FAIL: %s:%d: ", __FILE__, __LINE__);                                                   \
            fprintf(stderr, __VA_ARGS__);                                                                            \
            fprintf(stderr, "\n");                                                                                   \
            fail = 1;                                                                                                \
        }                                                                                                            \
    } while (0)

static sx_result (*get_stats)(sx_dpcpp_bridge_stats *);

static sx_dpcpp_bridge_stats stats(void)
{
    sx_dpcpp_bridge_stats s = {.size = sizeof(s)};
    EXPECT(get_stats(&s) == SX_SUCCESS, "stats");
    return s;
}

static int found(const char *name)
{
    sx_kernel k;
    if (sx_kernel_get(name, &k) != SX_SUCCESS)
        return 0;
    sx_kernel_release(k);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    get_stats = (sx_result(*)(sx_dpcpp_bridge_stats *))(uintptr_t)dlsym(RTLD_DEFAULT, "sx_dpcpp_bridge_get_stats");
    if (!get_stats) {
        fprintf(stderr, "FAIL: the bridge is not loaded\n");
        return 1;
    }
    sx_dpcpp_bridge_stats small = {.size = 4};
    EXPECT(get_stats(NULL) == SX_ERROR_INVALID_NULL_POINTER, "stats(NULL)");
    EXPECT(get_stats(&small) == SX_ERROR_INVALID_SIZE, "stats with a short size");
    const char *fw = getenv("SX_DPCPP_FORWARD");
    int forward = !(fw && strcmp(fw, "0") == 0);
    if (sx_init(0) != SX_SUCCESS) {
        fprintf(stderr, "FAIL: sx_init: %s\n", sx_last_error());
        return 1;
    }
    char pa[4096], pb[4096];
    snprintf(pa, sizeof(pa), "%s/libfake-module-a.so", argv[1]);
    snprintf(pb, sizeof(pb), "%s/libfake-module-b.so", argv[1]);
    void *a = dlopen(pa, RTLD_NOW | RTLD_LOCAL), *b = dlopen(pb, RTLD_NOW | RTLD_LOCAL);
    if (!a || !b) {
        fprintf(stderr, "FAIL: dlopen: %s\n", dlerror());
        return 1;
    }
    int *reg = dlsym(b, "fake_sycl_registered"), *unreg = dlsym(b, "fake_sycl_unregistered");
    EXPECT(reg && unreg, "the stand-in's counters");
    sx_dpcpp_bridge_stats s = stats();
    EXPECT(s.registered == 2 && s.registered_images == 2 && s.refused == 0,
           "%u descriptors, %llu images registered, %llu refused (%s); 2, 2, 0 expected", s.registered,
           (unsigned long long)s.registered_images, (unsigned long long)s.refused, s.last_error);
    EXPECT(found("_ZTS8kernel_a1") && found("_ZTS8kernel_a2") && found("_ZTS8kernel_b1") && found("_ZTS8kernel_b2"),
           "the modules' kernels by name");
    EXPECT(*reg == (forward ? 2 : 0), "the stand-in saw %d registrations", *reg);
    /* Unload in load order: a first, though b came after it. */
    dlclose(a);
    s = stats();
    EXPECT(s.registered == 1 && !found("_ZTS8kernel_a1") && found("_ZTS8kernel_b1"),
           "after unloading a: %u descriptors, a's kernel %s, b's %s", s.registered,
           found("_ZTS8kernel_a1") ? "still there" : "gone", found("_ZTS8kernel_b1") ? "there" : "gone");
    EXPECT(*unreg == (forward ? 1 : 0), "the stand-in saw %d unregistrations", *unreg);
    dlclose(b);
    s = stats();
    uint32_t n = 99;
    sx_kernel_get_all(0, NULL, &n);
    EXPECT(s.registered == 0 && s.registered_images == 0 && s.unregistrations == 2 && n == 0,
           "after unloading both: %u descriptors, %u kernels", s.registered, n);
    EXPECT(s.forwarded == (forward ? 4u : 0u), "%llu calls passed on", (unsigned long long)s.forwarded);
    sx_fini();
    if (!fail)
        printf("PASS: 2 modules registered and unregistered out of load order; %s\n",
               forward ? "every call reached the stand-in libsycl" : "none passed on (SX_DPCPP_FORWARD=0)");
    return fail;
}
