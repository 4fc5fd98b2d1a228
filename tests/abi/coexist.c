/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* coexist: libsycl-ext and its adapters in one process with another
 * OpenCL (and Level Zero) user: the program links libOpenCL (and
 * libze_loader) itself, uses them before, during and after sx, and checks
 * that the adapters stayed private (RTLD_LOCAL) and the vendor entry
 * points it calls are the vendor's. Usage: coexist IMAGE.sximg ADAPTER... */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZE
#include <level_zero/ze_api.h>
#endif

#include <sycl-ext/sx.h>

#include "abi-util.h"

static int failures;
#define EXPECT(cond, ...)                                                                                  \
    do {                                                                                                   \
        if (cond) {                                                                                        \
            printf("PASS: " __VA_ARGS__);                                                                  \
        } else {                                                                                           \
            printf("FAIL: " __VA_ARGS__);                                                                  \
            failures++;                                                                                    \
        }                                                                                                  \
        printf("\n");                                                                                      \
    } while (0)

static const char *owner(const char *sym)
{
    void *p = dlsym(RTLD_DEFAULT, sym);
    Dl_info info;
    if (!p || !dladdr(p, &info) || !info.dli_fname)
        return "(none)";
    return info.dli_fname;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: coexist IMAGE.sximg ADAPTER...\n");
        return 2;
    }
    cl_uint n_before = 0, n_during = 0, n_after = 0;
    cl_int ce = clGetPlatformIDs(0, NULL, &n_before);
    EXPECT(ce == CL_SUCCESS && n_before > 0, "the program's own clGetPlatformIDs: %d, %u platform(s)", ce, n_before);
#ifdef HAVE_ZE
    ze_result_t ze = zeInit(0);
    EXPECT(ze == ZE_RESULT_SUCCESS, "the program's own zeInit: 0x%x", (unsigned)ze);
#endif
    char list[4096] = "native";
    for (int i = 2; i < argc; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), ",%s", argv[i]);
    setenv("SX_ADAPTERS", list, 1);
    sx_image_file file;
    sx_result r = sx_image_file_load(argv[1], &file);
    EXPECT(r == SX_SUCCESS, "sx_image_file_load: %s", sx_result_name(r));
    r = sx_init(0);
    EXPECT(r == SX_SUCCESS, "sx_init: %s %s", sx_result_name(r), sx_last_error());
    sx_adapter ads[8];
    uint32_t na = 0;
    sx_adapter_get(8, ads, &na);
    EXPECT(na == (uint32_t)argc - 1, "%u adapters (native + %d)", na, argc - 2);
    for (uint32_t i = 0; i < na; i++) {
        char name[64] = "", text[512] = "";
        sx_result st = SX_ERROR_UNKNOWN;
        uint32_t np = 0;
        sx_adapter_get_info(ads[i], SX_ADAPTER_INFO_NAME, sizeof name, name, NULL);
        sx_adapter_get_info(ads[i], SX_ADAPTER_INFO_STATUS, sizeof st, &st, NULL);
        sx_adapter_get_info(ads[i], SX_ADAPTER_INFO_STATUS_TEXT, sizeof text, text, NULL);
        sx_adapter_get_info(ads[i], SX_ADAPTER_INFO_NUM_PLATFORMS, sizeof np, &np, NULL);
        EXPECT(st == SX_SUCCESS && np > 0, "adapter %s loaded beside the program's vendor use: %u platform(s): %s", name,
               np, text);
    }
    r = abi_run_fill("abi_a_fill", 3, NULL, 0);
    EXPECT(r == SX_SUCCESS, "a kernel on the native adapter: %s", sx_result_name(r));
    ce = clGetPlatformIDs(0, NULL, &n_during);
    EXPECT(ce == CL_SUCCESS && n_during == n_before, "clGetPlatformIDs with the adapters loaded: %u platform(s)", n_during);
    /* The adapters are RTLD_LOCAL: their entry point is not in the global scope. */
    EXPECT(dlsym(RTLD_DEFAULT, "sxa_get_proc_table") == NULL, "no adapter symbol in the global scope (RTLD_LOCAL)");
    const char *o = owner("clGetPlatformIDs");
    EXPECT(strstr(o, "libOpenCL") != NULL, "clGetPlatformIDs resolves to %s", o);
#ifdef HAVE_ZE
    o = owner("zeInit");
    EXPECT(strstr(o, "libze_loader") != NULL, "zeInit resolves to %s", o);
#endif
    o = owner("sx_init");
    EXPECT(strstr(o, "libsycl-ext") != NULL, "sx_init resolves to %s", o);
    r = sx_fini();
    EXPECT(r == SX_SUCCESS, "sx_fini: %s", sx_result_name(r));
    sx_image_file_release(file);
    ce = clGetPlatformIDs(0, NULL, &n_after);
    EXPECT(ce == CL_SUCCESS && n_after == n_before, "clGetPlatformIDs after the adapters unloaded: %u platform(s)", n_after);
    printf("%s\n", failures ? "FAILED" : "OK");
    return failures ? 1 : 0;
}
