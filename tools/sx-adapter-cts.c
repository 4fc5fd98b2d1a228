/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-adapter-cts: the adapter conformance suite. Loads an adapter module
 * directly (dlopen, the ABI checks of include/sycl-ext/adapter.h and
 * doc/adapters.md) and through the core's real loader (SX_ADAPTERS +
 * sx_init), prints one line per check and a summary. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/adapter.h>
#include <sycl-ext/sx.h>

#include "sx-internal.h"
#include "sx-adapter-cts.h"

/* The built-in host-ELF image (sx-adapter-cts-host.c, embedded by tools/cts.inc). */
extern const unsigned char sx_cts_host[];
extern const size_t sx_cts_host_size;

/* ------------------------------------------------------------ reporting */

static int npass, nfail, nskip;
static bool verbose;
/* --launch-only: the device does not really run kernels (a test driver). */
bool launch_only;

static void report(const char *status, const char *check, const char *fmt, va_list ap)
{
    printf("%-4s %s", status, check);
    if (fmt && *fmt) {
        printf(": ");
        vprintf(fmt, ap);
    }
    printf("\n");
    fflush(stdout);
}
void pass(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pass(const char *check, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report("PASS", check, fmt, ap);
    va_end(ap);
    npass++;
}
void fail(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fail(const char *check, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report("FAIL", check, fmt, ap);
    va_end(ap);
    nfail++;
}
void skip(const char *check, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void skip(const char *check, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report("SKIP", check, fmt, ap);
    va_end(ap);
    nskip++;
}

/* --------------------------------------------------- the services table */

const char cts_dispatch_mark[16] = "sx-adapter-cts";
_Thread_local int err_calls;
_Thread_local sx_result err_code;
_Thread_local char err_msg[1024];

static void svc_log(sx_log_level level, const char *fmt, ...)
{
    if (!verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    printf("     log %u: ", level);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}
static sx_result svc_error(sx_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_msg, sizeof err_msg, fmt, ap);
    va_end(ap);
    err_calls++;
    err_code = code;
    return code;
}
static const char *svc_getenv(const char *name)
{
    return getenv(name);
}
static const sxa_services services = {
    .size = sizeof(sxa_services),
    .abi_version = SXA_ABI_VERSION,
    .dispatch = CTS_DISPATCH,
    .log = svc_log,
    .error = svc_error,
    .getenv = svc_getenv,
};

const char *rn(sx_result r)
{
    return sx_result_name(r);
}
void err_reset(void)
{
    err_calls = 0;
    err_code = SX_SUCCESS;
    err_msg[0] = '\0';
}
/* An expected error: the right family, and reported through services->error. */
void expect_error(const char *check, sx_result r, sx_result want1, sx_result want2)
{
    if (r != want1 && r != want2) {
        fail(check, "returned %s, expected %s%s%s", rn(r), rn(want1), want2 != want1 ? " or " : "",
             want2 != want1 ? rn(want2) : "");
    } else if (!err_calls || err_code != r) {
        fail(check, "returned %s without saying why through services->error()", rn(r));
    } else {
        pass(check, "%s: \"%.200s\"", rn(r), err_msg);
    }
}
/* A call that must succeed; on failure prints the adapter's message. */
bool ok(const char *check, sx_result r, bool quiet)
{
    if (r == SX_SUCCESS) {
        if (!quiet)
            pass(check, NULL);
        return true;
    }
    fail(check, "%s: %s", rn(r), err_calls ? err_msg : "(no error message)");
    return false;
}
bool dispatch_ok(const char *check, const void *obj)
{
    if (!obj) {
        fail(check, "NULL handle returned");
        return false;
    }
    const sxa_object *o = obj;
    if (o->dispatch != CTS_DISPATCH) {
        fail(check, "object %p does not start with services->dispatch (%p, expected %p)", obj,
             (const void *)o->dispatch, (const void *)CTS_DISPATCH);
        return false;
    }
    pass(check, "%p carries the dispatch pointer", obj);
    return true;
}

/* ----------------------------------------------------------- the tables */


static const struct {
    sxa_table_id id;
    size_t offset, size;
    const char *name;
} table_list[] = {
#define T(id, f) {id, offsetof(tables, f), sizeof(sxa_##f##_table), #f}
    T(SXA_TABLE_ADAPTER, adapter), T(SXA_TABLE_PLATFORM, platform), T(SXA_TABLE_DEVICE, device),
    T(SXA_TABLE_CONTEXT, context), T(SXA_TABLE_QUEUE, queue), T(SXA_TABLE_USM, usm),
    T(SXA_TABLE_PROGRAM, program), T(SXA_TABLE_KERNEL, kernel), T(SXA_TABLE_ENQUEUE, enqueue),
    T(SXA_TABLE_EVENT, event), T(SXA_TABLE_GLOBAL, global),
#undef T
};

#define M(tbl, fn) {offsetof(tables, tbl) + offsetof(sxa_##tbl##_table, fn), #tbl "." #fn}
static const struct {
    size_t offset;
    const char *name;
} mandatory[] = {
    M(adapter, init), M(adapter, fini), M(adapter, get_info), M(platform, get), M(platform, get_info),
    M(device, get), M(device, get_info), M(context, create), M(context, release), M(queue, create),
    M(queue, release), M(queue, finish), M(usm, alloc), M(usm, free), M(program, create), M(program, build),
    M(program, release), M(kernel, create), M(kernel, release), M(enqueue, kernel_launch),
    M(enqueue, usm_memcpy), M(event, wait), M(event, get_status), M(event, release),
};
#undef M

/* ------------------------------------------------------- the ELF exports */

/* The module's dynamic symbols: exactly one defined export, and no vendor
 * API symbol left for the dynamic linker (vendor libraries are dlopen'd). */
static void check_exports(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fail("module.exports", "cannot open %s: %s", path, strerror(errno));
        return;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *d = len > 0 ? malloc((size_t)len) : NULL;
    if (!d || fread(d, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(d);
        fail("module.exports", "cannot read %s", path);
        return;
    }
    fclose(f);
    size_t n = (size_t)len;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)d;
    if (n < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > n || eh->e_shnum > (n - eh->e_shoff) / sizeof(Elf64_Shdr)) {
        skip("module.exports", "%s is not a 64-bit ELF file this check reads", path);
        free(d);
        return;
    }
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(d + eh->e_shoff);
    char extra[512] = "", vendor[512] = "";
    int defined_entry = 0;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum)
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (sh[i].sh_offset > n || sh[i].sh_size > n - sh[i].sh_offset || str->sh_offset > n ||
            str->sh_size > n - str->sh_offset)
            break;
        const Elf64_Sym *sym = (const Elf64_Sym *)(d + sh[i].sh_offset);
        size_t count = sh[i].sh_size / sizeof(Elf64_Sym);
        const char *names = (const char *)d + str->sh_offset;
        for (size_t k = 1; k < count; k++) {
            if (sym[k].st_name >= str->sh_size || !memchr(names + sym[k].st_name, 0, str->sh_size - sym[k].st_name))
                continue;
            const char *nm = names + sym[k].st_name;
            int bind = ELF64_ST_BIND(sym[k].st_info), type = ELF64_ST_TYPE(sym[k].st_info);
            if (bind == STB_LOCAL || !*nm)
                continue;
            if (sym[k].st_shndx == SHN_UNDEF) {
                bool v = (!strncmp(nm, "cl", 2) || !strncmp(nm, "ze", 2) || !strncmp(nm, "cu", 2) ||
                          !strncmp(nm, "ur", 2)) && nm[2] >= 'A' && nm[2] <= 'Z';
                if (v && strlen(vendor) + strlen(nm) + 2 < sizeof vendor)
                    strcat(strcat(vendor, " "), nm);
                continue;
            }
            if (type == STT_FUNC && strcmp(nm, SXA_ENTRY_SYMBOL) == 0)
                defined_entry = 1;
            else if (type != STT_SECTION && type != STT_FILE && sym[k].st_shndx != SHN_ABS &&
                     strlen(extra) + strlen(nm) + 2 < sizeof extra)
                strcat(strcat(extra, " "), nm);
        }
    }
    free(d);
    if (!defined_entry)
        fail("module.exports", "%s is not exported as a function", SXA_ENTRY_SYMBOL);
    else if (*extra)
        fail("module.exports", "exports more than %s:%s (link with adapters/adapter.map)", SXA_ENTRY_SYMBOL, extra);
    else
        pass("module.exports", "only %s", SXA_ENTRY_SYMBOL);
    if (*vendor)
        fail("module.vendor-symbols", "links vendor API symbols directly (dlopen the vendor library instead):%s", vendor);
    else
        pass("module.vendor-symbols", "no cl*/ze*/cu*/ur* symbol left for the dynamic linker");
}

/* ------------------------------------------------------------ the images */


#define MAX_IMAGES 16
static cts_image images[MAX_IMAGES];
static uint32_t num_images;
static sxa_program_desc file_descs[MAX_IMAGES];
static sxa_kernel_signature *file_sigs[MAX_IMAGES];

/* The built-in host image's signatures: what proptool would write. */
static const sxa_kernel_param host_args_params[] = {
    {SX_PARAM_POINTER, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, NULL},
    {SX_PARAM_VALUE, SX_SCALAR_I32, 4, 4, SX_ADDRESS_SPACE_PRIVATE, 0, NULL},
    {SX_PARAM_LOCAL, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_LOCAL, 0, NULL},
};
static const sxa_kernel_param host_get_params[] = {
    {SX_PARAM_POINTER, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, NULL},
};
static const sxa_kernel_param host_args_global_params[] = {
    {SX_PARAM_VALUE, SX_SCALAR_I32, 4, 4, SX_ADDRESS_SPACE_PRIVATE, 0, NULL},
    {SX_PARAM_LOCAL, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_LOCAL, 0, NULL},
};
static const sxa_param_member host_pair_members[] = {{SX_SCALAR_I32, 0}, {SX_SCALAR_F32, 4}};
static const sxa_kernel_param host_scalars_params[] = {
    {SX_PARAM_POINTER, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, NULL},
    {SX_PARAM_VALUE, SX_SCALAR_F32, 4, 4, SX_ADDRESS_SPACE_PRIVATE, 0, NULL},
    {SX_PARAM_STRUCT, SX_SCALAR_NONE, 8, 4, SX_ADDRESS_SPACE_PRIVATE, 2, host_pair_members},
    {SX_PARAM_VALUE, SX_SCALAR_I8, 1, 1, SX_ADDRESS_SPACE_PRIVATE, 0, NULL},
    {SX_PARAM_VALUE, SX_SCALAR_I64, 8, 8, SX_ADDRESS_SPACE_PRIVATE, 0, NULL},
};
static const sxa_kernel_param host_double_params[] = {
    {SX_PARAM_POINTER, SX_SCALAR_NONE, 8, 8, SX_ADDRESS_SPACE_GLOBAL, 0, NULL},
    {SX_PARAM_VALUE, SX_SCALAR_F64, 8, 8, SX_ADDRESS_SPACE_PRIVATE, 0, NULL},
};
static const sxa_kernel_signature host_sigs[] = {
    {"sx_cts_args", 3, host_args_params},
    {"sx_cts_global_get", 1, host_get_params},
    {"sx_cts_args_global", 2, host_args_global_params},
    {"sx_cts_local", 3, host_args_params},
    {"sx_cts_scalars", 5, host_scalars_params},
    {"sx_cts_double", 2, host_double_params},
    {"sx_cts_nd", 1, host_get_params},
};
static const sxa_program_desc host_desc = {sizeof(sxa_program_desc), sizeof host_sigs / sizeof host_sigs[0],
                                           host_sigs, NULL, NULL};

/* Images of an image file (made by proptool from sx-adapter-cts.cl), read
 * with the core's own parser and registry. */
static bool load_image_file(const char *path, sx_image_file *file)
{
    sx_result r = sx_image_file_load(path, file);
    if (r != SX_SUCCESS) {
        fprintf(stderr, "sx-adapter-cts: %s: %s: %s\n", path, rn(r), sx_last_error());
        return false;
    }
    sxi_registry_lock();
    const sxi_library *lib = sxi_registry_libraries(); /* newest first: ours */
    for (uint32_t i = 0; lib && i < lib->num_images && num_images < MAX_IMAGES; i++) {
        const sxi_image *im = &lib->images[i];
        sxa_kernel_signature *sigs = calloc(im->num_entries ? im->num_entries : 1, sizeof(*sigs));
        if (!sigs)
            break;
        uint32_t ns = 0;
        for (uint32_t k = 0; k < im->num_entries; k++)
            if (im->signatures[k].known)
                sigs[ns++] = (sxa_kernel_signature){im->entries[k], im->signatures[k].num_params,
                                                    im->signatures[k].params};
        uint32_t n = num_images++;
        file_sigs[n] = sigs;
        file_descs[n] = (sxa_program_desc){sizeof(sxa_program_desc), ns, sigs, im->bin->compile_options,
                                           im->bin->link_options};
        images[n] = (cts_image){im->kind, im->data, im->size, &file_descs[n], path};
    }
    sxi_registry_unlock();
    return true;
}

static const cts_image *image_of_kind(sx_image_kind kind)
{
    for (uint32_t i = 0; i < num_images; i++)
        if (images[i].kind == kind)
            return &images[i];
    return NULL;
}

/* ------------------------------------------------------ the direct checks */



static void check_handshake(sxa_get_proc_table_fn get, tables *t)
{
    unsigned char buf[512];
    bool all = true;
    for (size_t i = 0; i < SXI_ARRAY_SIZE(table_list); i++) {
        memset(buf, 0, sizeof buf);
        *(uint32_t *)buf = (uint32_t)table_list[i].size;
        err_reset();
        sx_result r = get(SXA_MAKE_VERSION(SXA_ABI_VERSION_MAJOR + 1, 0), table_list[i].id, buf);
        if (r != SX_ERROR_UNSUPPORTED_VERSION) {
            fail("handshake.wrong-major", "%s table for ABI %u.0 returned %s, expected SX_ERROR_UNSUPPORTED_VERSION",
                 table_list[i].name, SXA_ABI_VERSION_MAJOR + 1, rn(r));
            all = false;
            break;
        }
    }
    if (all)
        pass("handshake.wrong-major", "every table refused for ABI %u.0", SXA_ABI_VERSION_MAJOR + 1);

    memset(buf, 0, sizeof buf);
    *(uint32_t *)buf = sizeof(sxa_adapter_table);
    sx_result r = get(SXA_MAKE_VERSION(SXA_ABI_VERSION_MAJOR, SXA_ABI_VERSION_MINOR + 1), SXA_TABLE_ADAPTER, buf);
    if (r == SX_SUCCESS)
        pass("handshake.newer-minor", "ABI %u.%u accepted", SXA_ABI_VERSION_MAJOR, SXA_ABI_VERSION_MINOR + 1);
    else
        fail("handshake.newer-minor", "ABI %u.%u returned %s: a newer minor of a known major must be accepted",
             SXA_ABI_VERSION_MAJOR, SXA_ABI_VERSION_MINOR + 1, rn(r));

    memset(buf, 0, sizeof buf);
    *(uint32_t *)buf = 64;
    r = get(SXA_ABI_VERSION, (sxa_table_id)(SXA_TABLE_COUNT_ + 100), buf);
    if (r == SX_ERROR_INVALID_ENUMERATION)
        pass("handshake.unknown-table", "table id %u: SX_ERROR_INVALID_ENUMERATION", SXA_TABLE_COUNT_ + 100);
    else
        fail("handshake.unknown-table", "table id %u returned %s, expected SX_ERROR_INVALID_ENUMERATION",
             SXA_TABLE_COUNT_ + 100, rn(r));

    /* An older core: a table size with room for one entry. Nothing past it may be written. */
    bool small_ok = true;
    for (size_t i = 0; i < SXI_ARRAY_SIZE(table_list) && small_ok; i++) {
        memset(buf, 0xa5, sizeof buf);
        uint32_t small = (uint32_t)(offsetof(sxa_adapter_table, init) + sizeof(void *));
        memcpy(buf, &small, sizeof small);
        r = get(SXA_ABI_VERSION, table_list[i].id, buf);
        if (r == SX_ERROR_INVALID_ENUMERATION && table_list[i].id != SXA_TABLE_ADAPTER)
            continue;
        for (size_t k = small; k < sizeof buf; k++)
            if (buf[k] != 0xa5) {
                fail("handshake.table-size", "%s table: byte %zu written past the core's size %u", table_list[i].name,
                     k, small);
                small_ok = false;
                break;
            }
    }
    if (small_ok)
        pass("handshake.table-size", "no table written past the size the core gave");

    memset(t, 0, sizeof(*t));
    bool filled = true;
    for (size_t i = 0; i < SXI_ARRAY_SIZE(table_list); i++) {
        void *tb = (char *)t + table_list[i].offset;
        *(uint32_t *)tb = (uint32_t)table_list[i].size;
        r = get(SXA_ABI_VERSION, table_list[i].id, tb);
        if (r == SX_ERROR_INVALID_ENUMERATION && table_list[i].id != SXA_TABLE_ADAPTER) {
            memset((char *)tb + sizeof(uint32_t), 0, table_list[i].size - sizeof(uint32_t));
            continue;
        }
        if (r != SX_SUCCESS) {
            fail("handshake.tables", "%s table: %s", table_list[i].name, rn(r));
            filled = false;
        }
    }
    if (filled)
        pass("handshake.tables", "%zu tables filled for ABI %u.%u", SXI_ARRAY_SIZE(table_list), SXA_ABI_VERSION_MAJOR,
             SXA_ABI_VERSION_MINOR);
    char missing[512] = "";
    for (size_t i = 0; i < SXI_ARRAY_SIZE(mandatory); i++) {
        void *slot;
        memcpy(&slot, (char *)t + mandatory[i].offset, sizeof slot);
        if (!slot && strlen(missing) + strlen(mandatory[i].name) + 2 < sizeof missing)
            strcat(strcat(missing, " "), mandatory[i].name);
    }
    if (*missing)
        fail("handshake.mandatory", "missing:%s", missing);
    else
        pass("handshake.mandatory", "all %zu mandatory entries present", SXI_ARRAY_SIZE(mandatory));
}

/* A two-call string query: size first, then the value; then too small. */
typedef sx_result (*info_fn)(void *obj, uint32_t param, size_t size, void *value, size_t *size_ret);
static void check_string_info(const char *check, info_fn fn, void *obj, uint32_t param, char *out, size_t out_size)
{
    size_t need = 0;
    err_reset();
    sx_result r = fn(obj, param, 0, NULL, &need);
    if (!ok(check, r, true))
        return;
    if (need == 0 || need > out_size) {
        fail(check, "size query answered %zu", need);
        return;
    }
    r = fn(obj, param, need, out, NULL);
    if (!ok(check, r, true))
        return;
    if (strlen(out) + 1 != need) {
        fail(check, "string of %zu bytes with its NUL, size query said %zu", strlen(out) + 1, need);
        return;
    }
    if (need > 1) {
        char small[1];
        err_reset();
        r = fn(obj, param, 1, small, NULL);
        if (r != SX_ERROR_INVALID_SIZE) {
            fail(check, "a 1-byte buffer for %zu bytes returned %s, expected SX_ERROR_INVALID_SIZE", need, rn(r));
            return;
        }
    }
    pass(check, "\"%s\"", out);
}

static sx_result adapter_info(void *o, uint32_t p, size_t s, void *v, size_t *sr);
static sx_result platform_info(void *o, uint32_t p, size_t s, void *v, size_t *sr);
static sx_result device_info(void *o, uint32_t p, size_t s, void *v, size_t *sr);
static tables *cur;
static sx_result adapter_info(void *o, uint32_t p, size_t s, void *v, size_t *sr)
{
    return cur->adapter.get_info(o, p, s, v, sr);
}
static sx_result platform_info(void *o, uint32_t p, size_t s, void *v, size_t *sr)
{
    return cur->platform.get_info(o, p, s, v, sr);
}
static sx_result device_info(void *o, uint32_t p, size_t s, void *v, size_t *sr)
{
    return cur->device.get_info(o, p, s, v, sr);
}

static const char *kind_name(sx_image_kind k)
{
    return sxi_image_kind_name(k);
}

/* Read back `n` ints of USM through usm_memcpy. */
bool read_back(run *R, const char *check, int *host, size_t n)
{
    err_reset();
    sx_result r = R->t.enqueue.usm_memcpy(R->q, 1, host, R->out, n * sizeof(int), 0, NULL, NULL);
    return ok(check, r, true);
}

static void launch_args(run *R, sxa_kernel k, const char *check)
{
    int v = 3;
    sx_arg args[3] = {
        {SX_ARG_LOCAL, 2, LOCAL * sizeof(int), NULL},  /* any order: the contract says so */
        {SX_ARG_POINTER, 0, sizeof(void *), R->out},
        {SX_ARG_VALUE, 1, sizeof(int), &v},
    };
    size_t global = N, local = LOCAL;
    sxa_event ev = NULL;
    err_reset();
    sx_result r = R->t.enqueue.kernel_launch(R->q, k, 1, NULL, &global, &local, 3, args, 0, NULL, &ev);
    if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
        skip(check, "the device runs no kernel that calls barrier() (sx_cts_args does): %s", err_msg);
        return;
    }
    if (!ok(check, r, true))
        return;
    v = 99; /* VALUE arguments were copied before the call returned */
    if (!dispatch_ok("dispatch.event", ev))
        return;
    err_reset();
    if (!ok(check, R->t.event.wait(1, &ev), true))
        return;
    sx_event_status st = SX_EVENT_STATUS_QUEUED;
    r = R->t.event.get_status(ev, &st);
    if (r != SX_SUCCESS || st != SX_EVENT_STATUS_COMPLETE)
        fail("event.status", "after wait: %s, status %d (expected SX_EVENT_STATUS_COMPLETE)", rn(r), st);
    else
        pass("event.status", "SX_EVENT_STATUS_COMPLETE after wait");
    R->t.event.release(ev);
    if (launch_only) {
        pass(check, "launched and completed; results not checked (--launch-only)");
        return;
    }
    int host[64];
    if (!read_back(R, check, host, N))
        return;
    for (size_t g = 0; g < N; g++) {
        size_t l = g % LOCAL, base = g - l;
        int want = (int)(base + LOCAL - 1 - l) * 3 + 1;
        if (host[g] != want) {
            fail(check, "out[%zu] = %d, expected %d (pointer, value 3, local memory through a barrier)", g, host[g], want);
            return;
        }
    }
    pass(check, "pointer, value and local arguments in any order; %zu work-items in groups of %zu", N, LOCAL);
}

/* Without USM: value and local arguments, the output read back from the
 * program variable sx_cts_out through global_read. */
static void launch_args_global(run *R, sxa_program p, const char *check)
{
    sxa_kernel k = NULL;
    err_reset();
    sx_result r = R->t.kernel.create(p, "sx_cts_args_global", &k);
    if (r != SX_SUCCESS) {
        skip(check, "no USM, and the image has no sx_cts_args_global: %s", rn(r));
        return;
    }
    if (!R->t.enqueue.global_read) {
        skip(check, "no USM and no enqueue.global_read to read the output");
        R->t.kernel.release(k);
        return;
    }
    int v = 3;
    sx_arg args[2] = {{SX_ARG_LOCAL, 1, LOCAL * sizeof(int), NULL}, {SX_ARG_VALUE, 0, sizeof(int), &v}};
    size_t global = N, local = LOCAL;
    sxa_event ev = NULL;
    err_reset();
    if (ok(check, R->t.enqueue.kernel_launch(R->q, k, 1, NULL, &global, &local, 2, args, 0, NULL, &ev), true) &&
        dispatch_ok("dispatch.event", ev) && ok(check, R->t.event.wait(1, &ev), true)) {
        int host[64];
        err_reset();
        r = R->t.enqueue.global_read(R->q, p, "sx_cts_out", 1, sizeof host, 0, host, 0, NULL, NULL);
        if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
            skip(check, "launched; the output cannot be read back: %s", err_msg);
        } else if (ok(check, r, true)) {
            bool good = true;
            for (size_t g = 0; g < N && good && !launch_only; g++) {
                size_t l = g % LOCAL, base = g - l;
                int want = (int)(base + LOCAL - 1 - l) * 3 + 1;
                if (host[g] != want) {
                    fail(check, "sx_cts_out[%zu] = %d, expected %d (value 3, local memory through a barrier)", g,
                         host[g], want);
                    good = false;
                }
            }
            if (good)
                pass(check, "value and local arguments (no USM: output through a program variable)%s",
                     launch_only ? "; results not checked (--launch-only)" : "");
        }
    }
    if (ev)
        R->t.event.release(ev);
    R->t.kernel.release(k);
}

static void check_globals(run *R, sxa_program p, sxa_kernel get_k, const char *kn)
{
    char check[128];
    snprintf(check, sizeof check, "global.size[%s]", kn);
    if (R->t.program.get_global) {
        size_t size = 0;
        void *ptr = NULL;
        err_reset();
        sx_result r = R->t.program.get_global(p, "sx_cts_global", &size, &ptr);
        if (r == SX_ERROR_UNSUPPORTED_FEATURE)
            skip(check, "program.get_global: %s", err_msg);
        else if (r != SX_SUCCESS)
            fail(check, "get_global(sx_cts_global): %s: %s", rn(r), err_msg);
        else if (size != 4 * sizeof(int))
            fail(check, "get_global(sx_cts_global) size %zu, expected %zu", size, 4 * sizeof(int));
        else
            pass(check, "16 bytes at %p", ptr);
        snprintf(check, sizeof check, "global.size-bad-name[%s]", kn);
        err_reset();
        r = R->t.program.get_global(p, "sx_cts_no_such_global", &size, &ptr);
        if (r == SX_ERROR_UNSUPPORTED_FEATURE)
            skip(check, "program.get_global unsupported");
        else
            expect_error(check, r, SX_ERROR_INVALID_GLOBAL_NAME, SX_ERROR_INVALID_GLOBAL_NAME);
    } else {
        skip(check, "program.get_global not provided");
    }

    snprintf(check, sizeof check, "global.write-read[%s]", kn);
    if (!R->t.enqueue.global_write || !R->t.enqueue.global_read) {
        skip(check, "enqueue.global_write/global_read not provided");
        return;
    }
    int w[4] = {10, 20, 30, 40}, rd[4] = {0};
    err_reset();
    sx_result r = R->t.enqueue.global_write(R->q, p, "sx_cts_global", 1, sizeof w, 0, w, 0, NULL, NULL);
    if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
        skip(check, "%s", err_msg);
        return;
    }
    if (!ok(check, r, true))
        return;
    err_reset();
    r = R->t.enqueue.global_read(R->q, p, "sx_cts_global", 1, 2 * sizeof(int), 2 * sizeof(int), rd, 0, NULL, NULL);
    if (!ok(check, r, true))
        return;
    if (rd[0] != 30 || rd[1] != 40)
        fail(check, "read back {%d, %d} at offset 8, expected {30, 40}", rd[0], rd[1]);
    else
        pass(check, "16 bytes written, 8 read back at offset 8");

    snprintf(check, sizeof check, "global.bounds[%s]", kn);
    err_reset();
    r = R->t.enqueue.global_write(R->q, p, "sx_cts_global", 1, 8, 12, w, 0, NULL, NULL);
    expect_error(check, r, SX_ERROR_INVALID_VALUE, SX_ERROR_INVALID_VALUE);
    snprintf(check, sizeof check, "global.bounds-read[%s]", kn);
    err_reset();
    r = R->t.enqueue.global_read(R->q, p, "sx_cts_global", 1, 4, 16, rd, 0, NULL, NULL);
    expect_error(check, r, SX_ERROR_INVALID_VALUE, SX_ERROR_INVALID_VALUE);
    snprintf(check, sizeof check, "global.bad-name[%s]", kn);
    err_reset();
    r = R->t.enqueue.global_read(R->q, p, "sx_cts_no_such_global", 1, 4, 0, rd, 0, NULL, NULL);
    expect_error(check, r, SX_ERROR_INVALID_GLOBAL_NAME, SX_ERROR_INVALID_GLOBAL_NAME);

    snprintf(check, sizeof check, "global.kernel-sees-write[%s]", kn);
    if (!get_k || !R->out) {
        skip(check, "no USM for the kernel's output");
        return;
    }
    size_t global = 4;
    sx_arg a = {SX_ARG_POINTER, 0, sizeof(void *), R->out};
    err_reset();
    if (!ok(check, R->t.enqueue.kernel_launch(R->q, get_k, 1, NULL, &global, NULL, 1, &a, 0, NULL, NULL), true) ||
        !ok(check, R->t.queue.finish(R->q), true))
        return;
    if (launch_only) {
        skip(check, "launched; results not checked (--launch-only)");
        return;
    }
    int host[4];
    if (!read_back(R, check, host, 4))
        return;
    if (memcmp(host, w, sizeof w) != 0)
        fail(check, "kernel read {%d, %d, %d, %d}, expected {10, 20, 30, 40}", host[0], host[1], host[2], host[3]);
    else
        pass(check, "a kernel reads what the host wrote");
}

/* Build a program from one image: create, dispatch, build. */
static sxa_program program_from(run *R, const cts_image *im, const char *check)
{
    sxa_program p = NULL;
    err_reset();
    sx_result r = R->t.program.create(R->ctx, R->dev, im->kind, im->data, im->size, im->desc, &p);
    if (!ok(check, r, true) || !dispatch_ok("dispatch.program", p))
        return NULL;
    err_reset();
    r = R->t.program.build(p, im->desc && im->desc->compile_options ? im->desc->compile_options : "");
    if (!ok(check, r, true)) {
        R->t.program.release(p);
        return NULL;
    }
    return p;
}

static void check_program_kind(run *R, sx_image_kind kind)
{
    const char *kn = kind_name(kind);
    char check[128];
    snprintf(check, sizeof check, "program.build[%s]", kn);
    cts_image builtin = {SX_IMAGE_KIND_HOST_ELF, sx_cts_host, sx_cts_host_size, &host_desc, "built in"};
    const cts_image *im = image_of_kind(kind);
    if (!im && kind == SX_IMAGE_KIND_HOST_ELF)
        im = &builtin;
    if (!im) {
        skip(check, "no test image of kind %s: give one with --images FILE.sximg", kn);
        return;
    }
    sxa_program p = program_from(R, im, check);
    if (!p)
        return;
    pass(check, "%zu-byte image (%s)", im->size, im->from);

    sxa_kernel k = NULL, gk = NULL;
    snprintf(check, sizeof check, "kernel.create[%s]", kn);
    err_reset();
    if (ok(check, R->t.kernel.create(p, "sx_cts_args", &k), false))
        dispatch_ok("dispatch.kernel", k);
    err_reset();
    if (R->t.kernel.create(p, "sx_cts_global_get", &gk) != SX_SUCCESS)
        gk = NULL;
    snprintf(check, sizeof check, "kernel.bad-name[%s]", kn);
    sxa_kernel bad = NULL;
    err_reset();
    sx_result r = R->t.kernel.create(p, "sx_cts_no_such_kernel", &bad);
    expect_error(check, r, SX_ERROR_INVALID_KERNEL_NAME, SX_ERROR_INVALID_KERNEL_NAME);
    if (r == SX_SUCCESS && bad)
        R->t.kernel.release(bad);

    snprintf(check, sizeof check, "kernel.info[%s]", kn);
    if (k && R->t.kernel.get_info) {
        uint32_t nargs = 0;
        err_reset();
        r = R->t.kernel.get_info(k, SXA_KERNEL_INFO_NUM_ARGS, sizeof nargs, &nargs, NULL);
        if (r == SX_ERROR_UNSUPPORTED_FEATURE)
            skip(check, "NUM_ARGS: %s", err_msg);
        else if (r != SX_SUCCESS)
            fail(check, "NUM_ARGS: %s: %s", rn(r), err_msg);
        else if (nargs != 3)
            fail(check, "sx_cts_args has %u arguments, expected 3", nargs);
        else
            pass(check, "NUM_ARGS 3");
    } else {
        skip(check, "kernel.get_info not provided");
    }

    if (R->out) {
        snprintf(check, sizeof check, "launch.barrier[%s]", kn);
        if (k)
            launch_args(R, k, check);
        else
            skip(check, "no kernel sx_cts_args");
        check_launches(R, p, kn);
    } else {
        /* Without USM the output goes through a program variable. */
        snprintf(check, sizeof check, "launch.args[%s]", kn);
        launch_args_global(R, p, check);
    }

    check_globals(R, p, gk, kn);

    /* get_binary round trip */
    snprintf(check, sizeof check, "program.get_binary[%s]", kn);
    if (R->t.program.get_binary) {
        size_t size = 0;
        sx_image_kind bk = SX_IMAGE_KIND_UNKNOWN;
        err_reset();
        r = R->t.program.get_binary(p, &bk, 0, NULL, &size);
        if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
            skip(check, "%s", err_msg);
        } else if (r != SX_SUCCESS || size == 0) {
            fail(check, "size query: %s, %zu bytes: %s", rn(r), size, err_msg);
        } else {
            void *bytes = malloc(size);
            err_reset();
            r = bytes ? R->t.program.get_binary(p, &bk, size, bytes, NULL) : SX_ERROR_OUT_OF_HOST_MEMORY;
            if (ok(check, r, true)) {
                cts_image again = {bk, bytes, size, im->desc, "get_binary"};
                sxa_program p2 = program_from(R, &again, check);
                if (p2) {
                    pass(check, "%zu bytes of kind %s build again", size, kind_name(bk));
                    R->t.program.release(p2);
                }
                /* A kind the device takes that no file gave: test it with these bytes. */
                if (p2 && !image_of_kind(bk) && num_images < MAX_IMAGES) {
                    images[num_images++] = (cts_image){bk, bytes, size, im->desc, "get_binary"};
                    bytes = NULL;
                }
            }
            free(bytes);
        }
    } else {
        skip(check, "program.get_binary not provided");
    }

    /* link, if claimed */
    snprintf(check, sizeof check, "program.link[%s]", kn);
    if (R->t.program.compile && R->t.program.link) {
        sxa_program c = NULL, l = NULL;
        err_reset();
        r = R->t.program.create(R->ctx, R->dev, im->kind, im->data, im->size, im->desc, &c);
        if (ok(check, r, true)) {
            err_reset();
            r = R->t.program.compile(c, "");
            if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
                skip(check, "compile: %s", err_msg);
            } else if (ok(check, r, true)) {
                err_reset();
                r = R->t.program.link(R->ctx, R->dev, 1, &c, "", &l);
                if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
                    skip(check, "link: %s", err_msg);
                } else if (ok(check, r, true) && dispatch_ok("dispatch.program-linked", l)) {
                    sxa_kernel lk = NULL;
                    err_reset();
                    if (ok(check, R->t.kernel.create(l, R->out ? "sx_cts_local" : "sx_cts_args", &lk), true)) {
                        if (R->out)
                            launch_local(R, lk, check);
                        else
                            pass(check, "compiled, linked, kernel found");
                        R->t.kernel.release(lk);
                    }
                    R->t.program.release(l);
                }
            }
            R->t.program.release(c);
        }
    } else {
        skip(check, "program.compile/link not provided");
    }

    /* damaged bytes: refused with an error, never a crash */
    snprintf(check, sizeof check, "program.bad-image[%s]", kn);
    unsigned char junk[256];
    memset(junk, 0xab, sizeof junk);
    sxa_program jp = NULL;
    err_reset();
    r = R->t.program.create(R->ctx, R->dev, kind, junk, sizeof junk, NULL, &jp);
    if (r == SX_SUCCESS) {
        err_reset();
        r = R->t.program.build(jp, "");
        R->t.program.release(jp);
    }
    if (r == SX_SUCCESS)
        fail(check, "256 bytes of 0xab built as a %s program", kn);
    else if (!err_calls)
        fail(check, "refused with %s but services->error() was not called", rn(r));
    else
        pass(check, "%s: \"%.160s\"", rn(r), err_msg);

    if (gk)
        R->t.kernel.release(gk);
    if (k)
        R->t.kernel.release(k);
    snprintf(check, sizeof check, "program.release[%s]", kn);
    err_reset();
    ok(check, R->t.program.release(p), false);
}

static void check_usm(run *R)
{
    static const sx_usm_type types[] = {SX_USM_TYPE_DEVICE, SX_USM_TYPE_SHARED, SX_USM_TYPE_HOST};
    static const char *const names[] = {"device", "shared", "host"};
    for (size_t i = 0; i < 3; i++) {
        char check[64];
        snprintf(check, sizeof check, "usm.round-trip[%s]", names[i]);
        void *a = NULL, *b = NULL;
        sxa_device d = types[i] == SX_USM_TYPE_HOST ? NULL : R->dev;
        err_reset();
        sx_result r = R->t.usm.alloc(R->ctx, d, types[i], 4096, 0, &a);
        if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
            skip(check, "%s", err_msg);
            continue;
        }
        if (!ok(check, r, true))
            continue;
        err_reset();
        r = R->t.usm.alloc(R->ctx, d, types[i], 4096, 64, &b);
        if (!ok(check, r, true)) {
            R->t.usm.free(R->ctx, a);
            continue;
        }
        if ((uintptr_t)b % 64)
            fail(check, "64-byte alignment asked, got %p", b);
        unsigned char src[4096], dst[4096];
        for (size_t k = 0; k < sizeof src; k++)
            src[k] = (unsigned char)(k * 7 + 1);
        memset(dst, 0, sizeof dst);
        sxa_event ev = NULL;
        err_reset();
        bool good = ok(check, R->t.enqueue.usm_memcpy(R->q, 1, a, src, sizeof src, 0, NULL, NULL), true) &&
                    ok(check, R->t.enqueue.usm_memcpy(R->q, 0, b, a, sizeof src, 0, NULL, &ev), true) &&
                    dispatch_ok("dispatch.event", ev) && ok(check, R->t.event.wait(1, &ev), true) &&
                    ok(check, R->t.enqueue.usm_memcpy(R->q, 1, dst, b, sizeof dst, 0, NULL, NULL), true);
        if (ev)
            R->t.event.release(ev);
        if (good) {
            if (memcmp(src, dst, sizeof src) != 0)
                fail(check, "4096 bytes host -> usm -> usm -> host came back different");
            else
                pass(check, "4096 bytes host -> usm -> usm (event) -> host");
        }
        snprintf(check, sizeof check, "usm.fill[%s]", names[i]);
        if (R->t.enqueue.usm_fill) {
            uint32_t pat = 0x12345678;
            err_reset();
            r = R->t.enqueue.usm_fill(R->q, a, sizeof pat, &pat, 256, 0, NULL, NULL);
            if (r == SX_ERROR_UNSUPPORTED_FEATURE)
                skip(check, "%s", err_msg);
            else if (ok(check, r, true) && ok(check, R->t.queue.finish(R->q), true) &&
                     ok(check, R->t.enqueue.usm_memcpy(R->q, 1, dst, a, 256, 0, NULL, NULL), true)) {
                uint32_t w[64];
                memcpy(w, dst, sizeof w);
                bool same = true;
                for (size_t k = 0; k < 64; k++)
                    same &= w[k] == pat;
                if (same)
                    pass(check, "256 bytes of a 4-byte pattern");
                else
                    fail(check, "pattern not found after the fill");
            }
        } else {
            skip(check, "enqueue.usm_fill not provided");
        }
        if (!R->out && types[i] != SX_USM_TYPE_HOST) {
            R->out = a; /* kept for the kernels' output */
            R->out_type = types[i];
            a = NULL;
        } else if (!R->out) {
            R->out = a;
            R->out_type = types[i];
            a = NULL;
        }
        err_reset();
        if (a)
            ok(check, R->t.usm.free(R->ctx, a), true);
        R->t.usm.free(R->ctx, b);
    }
}

/* ABI 1.1: device-global instances for devices without USM. */
static void check_global_instances(run *R)
{
    const char *check = "global-table.instance";
    if (!R->t.global.instance_create || !R->t.global.instance_release || !R->t.global.instance_copy) {
        skip(check, "the global table (ABI 1.1) is not provided");
        return;
    }
    void *inst = NULL;
    err_reset();
    sx_result r = R->t.global.instance_create(R->ctx, R->dev, 16, &inst);
    if (r == SX_ERROR_UNSUPPORTED_FEATURE) {
        skip(check, "%s", err_msg);
        return;
    }
    if (!ok(check, r, true))
        return;
    int zero[4] = {-1, -1, -1, -1}, w[2] = {5, 6}, rd[4] = {0};
    err_reset();
    if (ok(check, R->t.global.instance_copy(R->q, inst, 0, 0, sizeof zero, zero, 1, 0, NULL, NULL), true) &&
        ok(check, R->t.global.instance_copy(R->q, inst, 1, 8, sizeof w, w, 1, 0, NULL, NULL), true) &&
        ok(check, R->t.global.instance_copy(R->q, inst, 0, 0, sizeof rd, rd, 1, 0, NULL, NULL), true)) {
        if (zero[0] || zero[1] || zero[2] || zero[3])
            fail(check, "a new instance is not zero-filled: {%d, %d, %d, %d}", zero[0], zero[1], zero[2], zero[3]);
        else if (rd[0] || rd[1] || rd[2] != 5 || rd[3] != 6)
            fail(check, "read {%d, %d, %d, %d} after writing {5, 6} at offset 8", rd[0], rd[1], rd[2], rd[3]);
        else
            pass(check, "16 zero-filled bytes; 8 written at offset 8 and read back");
    }
    err_reset();
    ok("global-table.release", R->t.global.instance_release(R->ctx, inst), false);
}

static void check_device(run *R, sxa_platform plat, sxa_device dev, uint32_t index)
{
    char check[128], buf[512];
    printf("---- device %u\n", index);
    snprintf(check, sizeof check, "device.info.name");
    check_string_info(check, device_info, dev, SX_DEVICE_INFO_NAME, buf, sizeof buf);
    sx_device_type type = 0;
    err_reset();
    sx_result r = R->t.device.get_info(dev, SX_DEVICE_INFO_TYPE, sizeof type, &type, NULL);
    if (r != SX_SUCCESS || !type || (type & (type - 1)))
        fail("device.info.type", "%s, type 0x%x (one bit expected)", rn(r), type);
    else
        pass("device.info.type", "0x%x", type);
    sxa_platform back = NULL;
    err_reset();
    r = R->t.device.get_info(dev, SX_DEVICE_INFO_PLATFORM, sizeof back, &back, NULL);
    if (r == SX_SUCCESS && back != plat)
        fail("device.info.platform", "answers %p, the device came from %p", (void *)back, (void *)plat);
    else if (r == SX_SUCCESS)
        pass("device.info.platform", "its platform");
    else
        skip("device.info.platform", "%s", rn(r));
    size_t wg = 0;
    err_reset();
    r = R->t.device.get_info(dev, SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    if (r == SX_SUCCESS && wg > 0)
        pass("device.info.max-work-group-size", "%zu", wg);
    else
        skip("device.info.max-work-group-size", "%s", rn(r));
    sx_aspect_set aspects = 0;
    err_reset();
    r = R->t.device.get_info(dev, SX_DEVICE_INFO_ASPECTS, sizeof aspects, &aspects, NULL);
    if (r == SX_SUCCESS)
        pass("device.info.aspects", "0x%llx", (unsigned long long)aspects);
    else
        skip("device.info.aspects", "%s", rn(r));
    err_reset();
    r = R->t.device.get_info(dev, 0x7fff0000u, sizeof buf, buf, NULL);
    expect_error("device.info.unknown", r, SX_ERROR_INVALID_ENUMERATION, SX_ERROR_UNSUPPORTED_FEATURE);

    sx_image_kind kinds[SX_IMAGE_KIND_COUNT_ * 2];
    size_t ksize = 0;
    err_reset();
    r = R->t.device.get_info(dev, SX_DEVICE_INFO_IMAGE_KINDS, 0, NULL, &ksize);
    if (r == SX_SUCCESS && ksize <= sizeof kinds)
        r = R->t.device.get_info(dev, SX_DEVICE_INFO_IMAGE_KINDS, ksize, kinds, NULL);
    uint32_t nk = (uint32_t)(ksize / sizeof(sx_image_kind));
    if (r != SX_SUCCESS || nk == 0 || ksize > sizeof kinds) {
        fail("device.info.image-kinds", "%s, %zu bytes: a device must list the image kinds it takes", rn(r), ksize);
        nk = 0;
    } else {
        char list[128] = "";
        for (uint32_t i = 0; i < nk; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", kind_name(kinds[i]));
        pass("device.info.image-kinds", "%s", list);
    }

    R->dev = dev;
    err_reset();
    r = R->t.context.create(1, &dev, &R->ctx);
    if (!ok("context.create", r, false) || !dispatch_ok("dispatch.context", R->ctx))
        return;
    err_reset();
    r = R->t.queue.create(R->ctx, dev, SXA_QUEUE_IN_ORDER, &R->q);
    if (ok("queue.create", r, false) && dispatch_ok("dispatch.queue", R->q)) {
        if (R->t.queue.flush) {
            err_reset();
            r = R->t.queue.flush(R->q);
            if (r == SX_ERROR_UNSUPPORTED_FEATURE)
                skip("queue.flush", "%s", err_msg);
            else
                ok("queue.flush", r, false);
        }
        if (R->t.enqueue.barrier) {
            sxa_event ev = NULL;
            err_reset();
            r = R->t.enqueue.barrier(R->q, 0, NULL, &ev);
            if (r == SX_ERROR_UNSUPPORTED_FEATURE)
                skip("enqueue.barrier", "%s", err_msg);
            else if (ok("enqueue.barrier", r, false) && dispatch_ok("dispatch.event", ev))
                ok("event.wait", R->t.event.wait(1, &ev), false);
            if (ev)
                R->t.event.release(ev);
        }
        check_usm(R);
        check_global_instances(R);
        for (uint32_t i = 0; i < nk; i++) {
            bool seen = false;
            for (uint32_t j = 0; j < i; j++)
                seen |= kinds[j] == kinds[i];
            if (!seen)
                check_program_kind(R, kinds[i]);
        }
        if (R->out) {
            err_reset();
            ok("usm.free", R->t.usm.free(R->ctx, R->out), false);
            R->out = NULL;
        }
        err_reset();
        ok("queue.finish", R->t.queue.finish(R->q), false);
        err_reset();
        ok("queue.release", R->t.queue.release(R->q), false);
        R->q = NULL;
    }
    err_reset();
    ok("context.release", R->t.context.release(R->ctx), false);
    R->ctx = NULL;
}

/* Returns the number of platforms (for the loader comparison), or -1. */
static int check_direct(const char *path, bool all_devices, sx_backend *backend)
{
    printf("==== %s: direct ABI checks\n", path);
    check_exports(path);
    dlerror();
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *e = dlerror();
        fail("module.load", "dlopen(RTLD_NOW | RTLD_LOCAL): %s", e ? e : "?");
        return -1;
    }
    pass("module.load", "RTLD_NOW | RTLD_LOCAL");
    void *sym = dlsym(dl, SXA_ENTRY_SYMBOL);
    if (!sym) {
        fail("module.entry", "no %s", SXA_ENTRY_SYMBOL);
        dlclose(dl);
        return -1;
    }
    sxa_get_proc_table_fn get;
    memcpy(&get, &sym, sizeof get);
    run R;
    memset(&R, 0, sizeof R);
    cur = &R.t;
    check_handshake(get, &R.t);
    if (!R.t.adapter.init || !R.t.adapter.fini || !R.t.adapter.get_info || !R.t.platform.get ||
        !R.t.platform.get_info || !R.t.device.get || !R.t.device.get_info) {
        fail("adapter.init", "not attempted: mandatory entries missing");
        dlclose(dl);
        return -1;
    }
    err_reset();
    sx_result r = R.t.adapter.init(&services, &R.adapter);
    if (!ok("adapter.init", r, false)) {
        dlclose(dl);
        return -1;
    }
    dispatch_ok("dispatch.adapter", R.adapter);
    char buf[512];
    check_string_info("adapter.info.name", adapter_info, R.adapter, SXA_ADAPTER_INFO_NAME, buf, sizeof buf);
    check_string_info("adapter.info.status", adapter_info, R.adapter, SXA_ADAPTER_INFO_STATUS, buf, sizeof buf);
    char status[512];
    snprintf(status, sizeof status, "%s", buf);
    *backend = SX_BACKEND_UNKNOWN;
    err_reset();
    r = R.t.adapter.get_info(R.adapter, SXA_ADAPTER_INFO_BACKEND, sizeof *backend, backend, NULL);
    if (r == SX_SUCCESS && *backend != SX_BACKEND_UNKNOWN)
        pass("adapter.info.backend", "%u", *backend);
    else
        fail("adapter.info.backend", "%s, backend %u", rn(r), *backend);
    uint32_t version = 0;
    err_reset();
    r = R.t.adapter.get_info(R.adapter, SXA_ADAPTER_INFO_VERSION, sizeof version, &version, NULL);
    if (r == SX_SUCCESS)
        pass("adapter.info.version", "%u.%u", SXA_MAJOR_VERSION(version), SXA_MINOR_VERSION(version));
    else
        fail("adapter.info.version", "%s", rn(r));
    err_reset();
    r = R.t.adapter.get_info(R.adapter, 0x7fff0000u, sizeof buf, buf, NULL);
    expect_error("adapter.info.unknown", r, SX_ERROR_INVALID_ENUMERATION, SX_ERROR_UNSUPPORTED_FEATURE);

    uint32_t np = 0;
    err_reset();
    r = R.t.platform.get(R.adapter, 0, NULL, &np);
    int result = -1;
    if (ok("platform.get", r, true)) {
        result = (int)np;
        if (np == 0) {
            skip("platform.get", "0 platforms (\"%s\"): device checks not run", status);
        } else {
            sxa_platform *plats = calloc(np, sizeof *plats);
            uint32_t np2 = 0;
            err_reset();
            r = plats ? R.t.platform.get(R.adapter, np, plats, &np2) : SX_ERROR_OUT_OF_HOST_MEMORY;
            if (ok("platform.get", r, true) && np2 == np) {
                pass("platform.get", "%u platform(s), two-call", np);
                uint32_t dev_index = 0;
                for (uint32_t i = 0; i < np && (all_devices || dev_index == 0); i++) {
                    if (!dispatch_ok("dispatch.platform", plats[i]))
                        continue;
                    check_string_info("platform.info.name", platform_info, plats[i], SX_PLATFORM_INFO_NAME, buf,
                                      sizeof buf);
                    sx_backend pb = 0;
                    err_reset();
                    r = R.t.platform.get_info(plats[i], SX_PLATFORM_INFO_BACKEND, sizeof pb, &pb, NULL);
                    if (r != SX_SUCCESS || pb != *backend)
                        fail("platform.info.backend", "%s, %u (adapter says %u)", rn(r), pb, *backend);
                    else
                        pass("platform.info.backend", "%u", pb);
                    uint32_t nd = 0;
                    err_reset();
                    r = R.t.device.get(plats[i], SX_DEVICE_TYPE_ALL, 0, NULL, &nd);
                    if (r == SX_ERROR_DEVICE_NOT_FOUND || (r == SX_SUCCESS && nd == 0)) {
                        skip("device.get", "platform %u has no device", i);
                        continue;
                    }
                    if (!ok("device.get", r, true))
                        continue;
                    sxa_device *devs = calloc(nd, sizeof *devs);
                    err_reset();
                    r = devs ? R.t.device.get(plats[i], SX_DEVICE_TYPE_ALL, nd, devs, &nd) : SX_ERROR_OUT_OF_HOST_MEMORY;
                    if (ok("device.get", r, true)) {
                        pass("device.get", "%u device(s) on platform %u", nd, i);
                        for (uint32_t k = 0; k < nd && (all_devices || dev_index == 0); k++)
                            if (dispatch_ok("dispatch.device", devs[k]))
                                check_device(&R, plats[i], devs[k], dev_index++);
                    }
                    free(devs);
                }
            } else if (r == SX_SUCCESS) {
                fail("platform.get", "first call said %u, second %u", np, np2);
            }
            free(plats);
        }
    }
    err_reset();
    ok("adapter.fini", R.t.adapter.fini(R.adapter), false);
    dlclose(dl);
    return result;
}

/* ----------------------------------------------------- the loader path */

static void check_loader(const char *path, int direct_platforms, sx_backend backend)
{
    printf("==== %s: through the core's loader (SX_ADAPTERS)\n", path);
    setenv("SX_ADAPTERS", path, 1);
    sx_result r = sx_init(0);
    if (r != SX_SUCCESS) {
        fail("loader.init", "sx_init: %s: %s", rn(r), sx_last_error());
        return;
    }
    sx_adapter a = NULL;
    uint32_t n = 0;
    r = sx_adapter_get(1, &a, &n);
    if (r != SX_SUCCESS || n != 1) {
        fail("loader.adapter", "%s, %u adapters (expected exactly the one named)", rn(r), n);
    } else {
        sx_result st = SX_ERROR_UNKNOWN;
        char text[512] = "";
        sx_adapter_get_info(a, SX_ADAPTER_INFO_STATUS, sizeof st, &st, NULL);
        sx_adapter_get_info(a, SX_ADAPTER_INFO_STATUS_TEXT, sizeof text, text, NULL);
        if (st != SX_SUCCESS) {
            fail("loader.adapter", "the core did not take it: %s: %s", rn(st), text);
        } else {
            pass("loader.adapter", "loaded: %s", text);
            uint32_t np = 0;
            sx_backend b = 0;
            sx_adapter_get_info(a, SX_ADAPTER_INFO_NUM_PLATFORMS, sizeof np, &np, NULL);
            sx_adapter_get_info(a, SX_ADAPTER_INFO_BACKEND, sizeof b, &b, NULL);
            if (direct_platforms >= 0 && (int)np != direct_platforms)
                fail("loader.platforms", "%u through the core, %d directly", np, direct_platforms);
            else
                pass("loader.platforms", "%u, as directly", np);
            if (b != backend)
                fail("loader.backend", "%u through the core, %u directly", b, backend);
            else
                pass("loader.backend", "%u", b);
        }
    }
    r = sx_fini();
    if (r != SX_SUCCESS)
        fail("loader.fini", "%s: %s", rn(r), sx_last_error());
    else
        pass("loader.fini", NULL);
    unsetenv("SX_ADAPTERS");
}

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: sx-adapter-cts [OPTION]... PATH/TO/sx-adapter-NAME.so\n"
            "Check that an adapter module keeps the libsycl-ext adapter ABI (adapter.h):\n"
            "load it directly and through the core's loader, print one line per check\n"
            "(PASS, FAIL or SKIP) and a summary.\n\n"
            "  -i, --images FILE.sximg  test images for the kinds the device takes beyond the\n"
            "                           built-in host image: proptool -o FILE.sximg of\n"
            "                           sx-adapter-cts.cl (installed in the package's data\n"
            "                           directory), with --spir-bc for SPIR consumers\n"
            "  -a, --all-devices        check every device (default: the first)\n"
            "  -l, --launch-only        the device does not really run kernels (a simulator\n"
            "                           or test driver): check that launches complete, not\n"
            "                           what they computed\n"
            "  -v, --verbose            show the adapter's log lines\n"
            "  -h, --help               this help\n\n"
            "Exit status: 0 if no check failed, 1 if one did, 2 on bad usage.\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"images", required_argument, NULL, 'i'}, {"all-devices", no_argument, NULL, 'a'},
        {"verbose", no_argument, NULL, 'v'}, {"launch-only", no_argument, NULL, 'l'},      {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *image_files[8];
    int nfiles = 0;
    bool all = false;
    int c;
    while ((c = getopt_long(argc, argv, "i:avlh", opts, NULL)) != -1) {
        switch (c) {
        case 'i':
            if (nfiles < 8)
                image_files[nfiles++] = optarg;
            break;
        case 'a':
            all = true;
            break;
        case 'v':
            verbose = true;
            break;
        case 'l':
            launch_only = true;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    const char *path = argv[optind];
    sx_image_file files[8];
    for (int i = 0; i < nfiles; i++)
        if (!load_image_file(image_files[i], &files[i]))
            return 2;
    sx_backend backend = SX_BACKEND_UNKNOWN;
    int np = check_direct(path, all, &backend);
    check_loader(path, np, backend);
    for (int i = 0; i < nfiles; i++)
        sx_image_file_release(files[i]);
    for (uint32_t i = 0; i < num_images; i++)
        free(file_sigs[i]);
    for (uint32_t i = 0; i < num_images; i++)
        if (strcmp(images[i].from, "get_binary") == 0)
            free((void *)images[i].data);
    printf("%d passed, %d failed, %d skipped\n", npass, nfail, nskip);
    return nfail ? 1 : 0;
}
