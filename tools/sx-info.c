/* sx-info: what libsycl-ext sees: adapters and their status, platforms,
 * devices and their aspects (like sycl-ls / clinfo). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

#include "sx-info-json.h"
#include "sx-info-names.h"

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: sx-info [--version]\n"
               "Lists libsycl-ext's adapters (with why one is not usable), platforms and devices.\n"
               "Environment: SX_ADAPTERS (force a list of adapter files; 'native' is the built-in one),\n"
               "SX_ADAPTERS_PATH (directories searched first), SX_DEVICE_SELECTOR (backend:type,\n"
               "e.g. native:cpu or !opencl:*), SX_TRACE=1 (log every adapter call), SX_LOG=debug.\n"
               "sx-info --json writes the same as JSON (schema sycl-ext/sx-info, doc/json.md).\n");
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--json") == 0)
        return sx_info_json(stdout);
    if (argc > 1 && strcmp(argv[1], "--version") == 0) {
        uint32_t a, b, c;
        sx_get_version(&a, &b, &c);
        printf("sx-info (libsycl-ext) %u.%u.%u\n", a, b, c);
        return 0;
    }
    sx_result r = sx_init(0);
    if (r != SX_SUCCESS) {
        fprintf(stderr, "sx-info: sx_init: %s: %s\n", sx_result_name(r), sx_last_error());
        return 1;
    }
    uint32_t na = 0;
    sx_adapter_get(0, NULL, &na);
    sx_adapter *as = calloc(na ? na : 1, sizeof(*as));
    sx_adapter_get(na, as, NULL);
    printf("Adapters: %u\n", na);
    for (uint32_t i = 0; i < na; i++) {
        char name[256] = "", path[4096] = "", text[1024] = "";
        sx_result st;
        uint32_t np = 0;
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_NAME, sizeof(name), name, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_PATH, sizeof(path), path, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_STATUS, sizeof(st), &st, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_STATUS_TEXT, sizeof(text), text, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_NUM_PLATFORMS, sizeof(np), &np, NULL);
        printf("  [%u] %-12s %-8s %s\n       %s%s%s\n", i, name, st == SX_SUCCESS ? "ok" : "SKIPPED", path,
               st == SX_SUCCESS ? "" : sx_result_name(st), st == SX_SUCCESS ? "" : ": ", text);
    }
    free(as);
    uint32_t nd = 0;
    sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 0, NULL, &nd);
    sx_device *ds = calloc(nd ? nd : 1, sizeof(*ds));
    if (nd)
        sx_device_get(NULL, SX_DEVICE_TYPE_ALL, nd, ds, NULL);
    sx_device def = NULL;
    sx_device_get_default(&def);
    printf("Devices: %u%s\n", nd, nd ? "" : " (none selected)");
    for (uint32_t i = 0; i < nd; i++) {
        char name[256] = "", vendor[256] = "", pname[256] = "";
        sx_device_type t = 0;
        sx_backend b = 0;
        size_t wg = 0;
        uint64_t local = 0, global = 0;
        sx_aspect_set aspects = 0;
        sx_platform p = NULL;
        sx_image_kind kinds[8];
        size_t kn = 0;
        sx_device_get_info(ds[i], SX_DEVICE_INFO_NAME, sizeof(name), name, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_VENDOR, sizeof(vendor), vendor, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_TYPE, sizeof(t), &t, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_BACKEND, sizeof(b), &b, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof(local), &local, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_GLOBAL_MEM_SIZE, sizeof(global), &global, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_ASPECTS, sizeof(aspects), &aspects, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_PLATFORM, sizeof(p), &p, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_IMAGE_KINDS, sizeof(kinds), kinds, &kn);
        if (p)
            sx_platform_get_info(p, SX_PLATFORM_INFO_NAME, sizeof(pname), pname, NULL);
        printf("  [%s:%s] %s%s\n", backend_name(b), type_name(t), name, ds[i] == def ? "  (default)" : "");
        printf("      platform: %s; vendor: %s\n", pname, vendor);
        printf("      max work-group: %zu; local memory: %" PRIu64 " KiB; global memory: %" PRIu64 " MiB\n", wg,
               local / 1024, global / (1024 * 1024));
        printf("      images:");
        for (size_t k = 0; k < kn / sizeof(sx_image_kind) && k < 8; k++)
            printf(" %s", kind_name(kinds[k]));
        printf("\n      aspects:");
        for (unsigned a = 0; a < 64; a++)
            if (aspects & SX_ASPECT_BIT(a)) {
                const char *an = aspect_name(a);
                if (an)
                    printf(" %s", an);
                else
                    printf(" aspect_%u", a);
            }
        printf("\n");
    }
    free(ds);
    sx_fini();
    return 0;
}
