/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* dump-json.c: `proptool --dump FILE --json`, the image file as JSON in the
 * shape doc/json.md fixes (schema "sycl-ext/proptool-dump", version 1):
 * every image, entry and property, byte arrays in hex with the records the
 * runtime reads decoded beside them. */
#include "config.h"

#include <string.h>

#include "../tools/json-writer.h"
#include "dump-json.h"
#include "proptool.h"

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* SX/kernel signatures: doc/image-format.md's record. */
static void signature(sxj *j, const uint8_t *d, size_t n)
{
    sxj_object(j, "signature");
    if (n < 20) {
        sxj_string(j, "malformed", "shorter than its 20-byte header");
        sxj_object_end(j);
        return;
    }
    uint32_t kind = rd32(d + 4), np = rd32(d + 16);
    sxj_uint(j, "version", rd32(d));
    sxj_string(j, "kind", sxp_kernel_kind_name(kind));
    sxj_uint(j, "dims", rd32(d + 8));
    sxj_uint(j, "source_params", rd32(d + 12));
    size_t pos = 20;
    const char *bad = NULL;
    sxj_array(j, "params");
    for (uint32_t i = 0; i < np && !bad; i++) {
        if (n - pos < 28) {
            bad = "a parameter record is cut short";
            break;
        }
        const uint8_t *r = d + pos;
        uint32_t pk = rd32(r), nm = rd32(r + 24);
        pos += 28;
        sxj_object(j, NULL);
        sxj_string(j, "kind", sxp_param_kind_name(pk));
        if (pk == SX_PARAM_VALUE)
            sxj_string(j, "scalar", sxp_scalar_name(rd32(r + 4)) ? sxp_scalar_name(rd32(r + 4)) : "?");
        if (pk == SX_PARAM_POINTER || pk == SX_PARAM_LOCAL)
            sxj_string(j, "address_space", sxp_address_space_name(rd32(r + 16)));
        sxj_uint(j, "size", rd32(r + 8));
        sxj_uint(j, "align", rd32(r + 12));
        sxj_uint(j, "source", rd32(r + 20));
        if (nm) {
            sxj_array(j, "members");
            for (uint32_t m = 0; m < nm; m++) {
                if (n - pos < 8) {
                    bad = "a member record is cut short";
                    break;
                }
                uint32_t ms = rd32(d + pos), mo = rd32(d + pos + 4);
                pos += 8;
                sxj_object(j, NULL);
                sxj_string(j, "scalar", sxp_scalar_name(ms) ? sxp_scalar_name(ms) : "?");
                sxj_uint(j, "offset", mo);
                sxj_object_end(j);
            }
            sxj_array_end(j);
        }
        sxj_object_end(j);
    }
    sxj_array_end(j);
    if (!bad && pos != n)
        bad = "bytes left over after the last parameter";
    if (bad)
        sxj_string(j, "malformed", bad);
    sxj_object_end(j);
}

static void byte_array(sxj *j, const char *set, const sx_device_binary_property *p)
{
    const uint8_t *v = p->value_addr;
    if (p->value_size < 8) {
        sxj_string(j, "malformed", "shorter than its 8-byte size prefix");
        return;
    }
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++)
        bits |= (uint64_t)v[i] << (8 * i);
    const uint8_t *d = v + 8;
    size_t n = (size_t)p->value_size - 8;
    sxj_uint(j, "bits", bits);
    sxj_hex(j, "bytes", d, n);
    if (n && sxp_printable(d, n))
        sxj_string_n(j, "text", d, d[n - 1] ? n : n - 1);
    if (!strcmp(set, SX_PROP_SET_KERNEL_SIGNATURES)) {
        signature(j, d, n);
    } else if (!strcmp(set, SX_PROP_SET_DEVICE_GLOBALS) && n == 8) {
        sxj_object(j, "device_global");
        sxj_uint(j, "size", rd32(d));
        sxj_bool(j, "device_image_scope", rd32(d + 4) != 0);
        sxj_object_end(j);
    } else if (!strcmp(set, SX_PROP_SET_KERNEL_PARAM_OPT)) {
        sxj_array(j, "eliminated");
        for (uint64_t i = 0; i < bits && i / 8 < n; i++)
            sxj_bool(j, NULL, d[i / 8] >> (i % 8) & 1);
        sxj_array_end(j);
    } else if (!strcmp(set, SX_PROP_SET_DEVICE_REQUIREMENTS) && !strcmp(p->name, "aspects")) {
        sxj_array(j, "aspects");
        for (size_t i = 0; i + 4 <= n; i += 4) {
            sxj_object(j, NULL);
            sxj_uint(j, "id", rd32(d + i));
            sxj_string(j, "name", sxp_aspect_name(rd32(d + i)));
            sxj_object_end(j);
        }
        sxj_array_end(j);
    } else if (n % 4 == 0 && (!strcmp(p->name, "reqd_work_group_size") || strstr(p->name, "@reqd_work_group_size"))) {
        sxj_array(j, "values");
        for (size_t i = 0; i + 4 <= n; i += 4)
            sxj_uint(j, NULL, rd32(d + i));
        sxj_array_end(j);
    }
}

static void property(sxj *j, const char *set, const sx_device_binary_property *p)
{
    sxj_object(j, NULL);
    sxj_string(j, "name", p->name);
    switch (p->type) {
    case SX_PROPERTY_TYPE_UINT32:
        sxj_string(j, "type", "uint32");
        sxj_uint(j, "value", p->value_size);
        if (!strcmp(set, SX_PROP_SET_HOST_ACCESS))
            sxj_string(j, "host_access", sxp_host_access_name((uint32_t)p->value_size));
        break;
    case SX_PROPERTY_TYPE_STRING:
        sxj_string(j, "type", "string");
        sxj_string(j, "value", (const char *)p->value_addr);
        break;
    case SX_PROPERTY_TYPE_BYTE_ARRAY:
        sxj_string(j, "type", "byte_array");
        byte_array(j, set, p);
        break;
    default:
        sxj_string(j, "type", "unknown");
        sxj_uint(j, "type_code", p->type);
        sxj_uint(j, "size", p->value_size);
    }
    sxj_object_end(j);
}

bool sxp_dump_json(const char *path, const sx_device_binaries *desc, FILE *out)
{
    return sxp_dump_json_ex(path, desc, NULL, out);
}

bool sxp_dump_json_ex(const char *path, const sx_device_binaries *desc, const sxp_dump_extra *extra, FILE *out)
{
    sxj j;
    sxj_init(&j, out);
    sxj_object(&j, NULL);
    sxj_string(&j, "schema", "sycl-ext/proptool-dump");
    sxj_uint(&j, "schema_version", SXP_DUMP_JSON_VERSION);
    sxj_string(&j, "proptool_version", PACKAGE_VERSION);
    sxj_string(&j, "file", path);
    sxj_uint(&j, "descriptor_version", desc->version);
    sxj_array(&j, "images");
    for (uint16_t i = 0; i < desc->num_device_binaries; i++) {
        const sx_device_binary *d = &desc->device_binaries[i];
        sxj_object(&j, NULL);
        sxj_uint(&j, "index", i);
        sxj_string(&j, "target", d->device_target_spec);
        sxj_string(&j, "format", sxp_format_name(d->format));
        sxj_uint(&j, "format_code", d->format);
        sxj_uint(&j, "kind", d->kind);
        sxj_uint(&j, "version", d->version);
        sxj_uint(&j, "binary_size", (uint64_t)(d->binary_end - d->binary_start));
        if (extra) {
            const sxp_dump_extra *x = &extra[i];
            sxj_uint(&j, "record_version", x->record_version);
            sxj_uint(&j, "record_address", x->record_address);
            sxj_uint(&j, "entry_size", x->entry_size);
            sxj_string(&j, "compression", x->compressed ? "zstd" : "none");
            if (x->compressed)
                sxj_uint(&j, "decompressed_size", x->decompressed_size);
            sxj_string(&j, "contents", x->contents);
        }
        sxj_string(&j, "compile_options", d->compile_options);
        sxj_string(&j, "link_options", d->link_options);
        sxj_array(&j, "entries");
        for (const sx_offload_entry *e = d->entries_begin; e != d->entries_end; e++)
            sxj_string(&j, NULL, e->name);
        sxj_array_end(&j);
        sxj_array(&j, "property_sets");
        for (const sx_device_binary_property_set *s = d->property_sets_begin; s != d->property_sets_end; s++) {
            sxj_object(&j, NULL);
            sxj_string(&j, "name", s->name);
            sxj_array(&j, "properties");
            for (const sx_device_binary_property *p = s->properties_begin; p != s->properties_end; p++)
                property(&j, s->name, p);
            sxj_array_end(&j);
            sxj_object_end(&j);
        }
        sxj_array_end(&j);
        sxj_object_end(&j);
    }
    sxj_array_end(&j);
    sxj_object_end(&j);
    return sxj_finish(&j);
}
