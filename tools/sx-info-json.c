/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-info-json.c: `sx-info --json`, the same facts as the listing in the
 * shape doc/json.md fixes (schema "sycl-ext/sx-info", version 1). */
#include <stdlib.h>

#include <sycl-ext/sx.h>

#include "json-writer.h"
#include "sx-info-json.h"
#include "sx-info-names.h"

static void adapters(sxj *j)
{
    uint32_t na = 0;
    sx_adapter_get(0, NULL, &na);
    sx_adapter *as = calloc(na ? na : 1, sizeof(*as));
    if (!as)
        na = 0;
    else if (na)
        sx_adapter_get(na, as, NULL);
    sxj_array(j, "adapters");
    for (uint32_t i = 0; i < na; i++) {
        char name[256] = "", path[4096] = "", text[1024] = "";
        sx_result st = SX_SUCCESS;
        uint32_t np = 0;
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_NAME, sizeof(name), name, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_PATH, sizeof(path), path, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_STATUS, sizeof(st), &st, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_STATUS_TEXT, sizeof(text), text, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_NUM_PLATFORMS, sizeof(np), &np, NULL);
        sxj_object(j, NULL);
        sxj_uint(j, "index", i);
        sxj_string(j, "name", name);
        sxj_string(j, "path", path);
        sxj_bool(j, "usable", st == SX_SUCCESS);
        sxj_string(j, "status", sx_result_name(st));
        sxj_string(j, "message", text);
        sxj_uint(j, "platforms", np);
        sxj_object_end(j);
    }
    sxj_array_end(j);
    free(as);
}

/* `backend_index`: its place among the listed devices of its backend, so
 * "backend:N" selects it in SX_DEVICE_SELECTOR (when no selector was set). */
static void device(sxj *j, uint32_t index, uint32_t backend_index, sx_device d, sx_device def)
{
    char name[256] = "", vendor[256] = "", pname[256] = "", driver[256] = "";
    sx_device_type t = 0;
    sx_backend b = 0;
    size_t wg = 0, kn = 0;
    uint64_t local = 0, global = 0;
    sx_aspect_set aspects = 0;
    sx_platform p = NULL;
    sx_image_kind kinds[8];
    sx_device_get_info(d, SX_DEVICE_INFO_NAME, sizeof(name), name, NULL);
    sx_device_get_info(d, SX_DEVICE_INFO_VENDOR, sizeof(vendor), vendor, NULL);
    sx_device_get_info(d, SX_DEVICE_INFO_DRIVER_VERSION, sizeof(driver), driver, NULL);
    sx_device_get_info(d, SX_DEVICE_INFO_TYPE, sizeof(t), &t, NULL);
    sx_device_get_info(d, SX_DEVICE_INFO_BACKEND, sizeof(b), &b, NULL);
    sx_device_get_info(d, SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
    sx_device_get_info(d, SX_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof(local), &local, NULL);
    sx_device_get_info(d, SX_DEVICE_INFO_GLOBAL_MEM_SIZE, sizeof(global), &global, NULL);
    sx_device_get_info(d, SX_DEVICE_INFO_ASPECTS, sizeof(aspects), &aspects, NULL);
    sx_device_get_info(d, SX_DEVICE_INFO_PLATFORM, sizeof(p), &p, NULL);
    if (sx_device_get_info(d, SX_DEVICE_INFO_IMAGE_KINDS, sizeof(kinds), kinds, &kn) != SX_SUCCESS)
        kn = 0;
    if (p)
        sx_platform_get_info(p, SX_PLATFORM_INFO_NAME, sizeof(pname), pname, NULL);
    sxj_object(j, NULL);
    sxj_uint(j, "index", index);
    sxj_string(j, "backend", backend_name(b));
    sxj_string(j, "type", type_name(t));
    char sel[64];
    snprintf(sel, sizeof(sel), "%s:%u", backend_name(b), backend_index);
    sxj_string(j, "selector", sel);
    sxj_string(j, "name", name);
    sxj_string(j, "vendor", vendor);
    sxj_string(j, "driver_version", driver);
    sxj_string(j, "platform", pname);
    sxj_bool(j, "default", d == def);
    sxj_uint(j, "max_work_group_size", wg);
    sxj_uint(j, "local_mem_bytes", local);
    sxj_uint(j, "global_mem_bytes", global);
    sxj_array(j, "image_kinds");
    for (size_t k = 0; k < kn / sizeof(sx_image_kind) && k < 8; k++)
        sxj_string(j, NULL, kind_name(kinds[k]));
    sxj_array_end(j);
    sxj_array(j, "aspects");
    for (unsigned a = 0; a < 64; a++)
        if (aspects & SX_ASPECT_BIT(a)) {
            char other[32];
            const char *an = aspect_name(a);
            if (!an) {
                snprintf(other, sizeof(other), "aspect_%u", a);
                an = other;
            }
            sxj_string(j, NULL, an);
        }
    sxj_array_end(j);
    sxj_object_end(j);
}

int sx_info_json(FILE *out)
{
    sx_result r = sx_init(0);
    if (r != SX_SUCCESS) {
        fprintf(stderr, "sx-info: sx_init: %s: %s\n", sx_result_name(r), sx_last_error());
        return 1;
    }
    uint32_t a, b, c, nd = 0;
    char version[64];
    sx_get_version(&a, &b, &c);
    snprintf(version, sizeof(version), "%u.%u.%u", a, b, c);
    sxj j;
    sxj_init(&j, out);
    sxj_object(&j, NULL);
    sxj_string(&j, "schema", "sycl-ext/sx-info");
    sxj_uint(&j, "schema_version", SX_INFO_JSON_VERSION);
    sxj_string(&j, "library_version", version);
    adapters(&j);
    sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 0, NULL, &nd);
    sx_device *ds = calloc(nd ? nd : 1, sizeof(*ds));
    if (!ds)
        nd = 0;
    else if (nd)
        sx_device_get(NULL, SX_DEVICE_TYPE_ALL, nd, ds, NULL);
    sx_device def = NULL;
    sx_device_get_default(&def);
    sxj_array(&j, "devices");
    for (uint32_t i = 0; i < nd; i++) {
        sx_backend bi = 0, bk = 0;
        uint32_t same = 0;
        sx_device_get_info(ds[i], SX_DEVICE_INFO_BACKEND, sizeof(bi), &bi, NULL);
        for (uint32_t k = 0; k < i; k++)
            if (sx_device_get_info(ds[k], SX_DEVICE_INFO_BACKEND, sizeof(bk), &bk, NULL) == SX_SUCCESS && bk == bi)
                same++;
        device(&j, i, same, ds[i], def);
    }
    sxj_array_end(&j);
    sxj_object_end(&j);
    free(ds);
    sx_fini();
    if (!sxj_finish(&j)) {
        fprintf(stderr, "sx-info: writing the JSON failed\n");
        return 1;
    }
    return 0;
}
