/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* main.c: proptool's command line: SPIR-V (and variants) in, image file and registration C out. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <spirv/unified1/spirv.h>
#include <sycl-ext/sx.h>

#include "native.h"
#include "ptx.h"
#include "proptool.h"
#include "sx-internal.h"
#include "dump-json.h"
#include "dpcpp-elf.h"

typedef struct variant {
    const char *path;
    const char *target;
    uint8_t format;
    const char *what;
    char *vf_set;            /* --host-vf/--host-vf-dummy: the set image it goes with */
    bool vf_dummy;
} variant;

typedef struct input {
    const char *path;        /* SPIR-V */
    variant *variants;
    size_t nvariants;
    const char *compile_options, *link_options;
    sxp_module mod;
    sxp_analysis an;
    sxp_image **imgs;        /* its SPIR-V images: kernels, then sets (one unless split) */
    size_t nimgs, imgs_cap;
    bool split;              /* the virtual-functions split made its images */
    bool parsed;
    sxp_image *prop;         /* issue 14: its DPC++ .prop (--prop, --table), or NULL */
    char *owned_path, *sym;  /* from a --table row */
} input;

static const char usage_text[] =
    "Usage: proptool [OPTION]... -o OUT.sximg INPUT.spv [VARIANT]...\n"
    "       proptool --dump [--json] [--extract DIR] FILE.sximg|DPCPP-BUILT.so\n"
    "Turn pre-lowered SPIR-V into device images with the property sets libsycl-ext\n"
    "reads, written as an image file and, optionally, as C source that registers them.\n"
    "\n"
    "Output:\n"
    "  -o, --output FILE         write the image file FILE\n"
    "      --emit-c FILE.c       also write C source embedding the images; a constructor\n"
    "                            registers them (sx_register_images), a destructor\n"
    "                            unregisters them\n"
    "      --c-prefix NAME       prefix of the generated C symbols (default: from FILE.c)\n"
    "      --dump [FILE]         print a listing of an image file, or of the device\n"
    "                            images a DPC++-built executable or library carries\n"
    "                            (read from the file; nothing of it runs), and exit;\n"
    "                            FILE may come anywhere on the command line\n"
    "      --emit-prop PREFIX    also write each image as sycl-post-link would:\n"
    "                            PREFIX_<N>.prop, PREFIX_<N>.<ext> and PREFIX.table\n"
    "      --extract DIR         with --dump: also write each image's bytes to\n"
    "                            DIR/image<N>.{spv,bc,so,ptx,cubin,bin}\n"
    "      --json                with --dump: the listing as JSON (doc/json.md)\n"
    "\n"
    "Inputs (a variant belongs to the SPIR-V input before it and takes its properties):\n"
    "  INPUT.spv                 a SPIR-V module: one image, target spir64, format SPIR-V\n"
    "      --host FILE.so        a host shared object of the same source (native adapter):\n"
    "                            target host_x86_64, format native\n"
    "      --host-vf SET=FILE.so a host shared object defining the virtual functions of\n"
    "                            SET, for a SPIR-V input that is split: the host\n"
    "                            variant of that set's image\n"
    "      --host-vf-dummy SET=FILE.so\n"
    "                            the same for the dummy image of SET\n"
    "      --ptx FILE.ptx        PTX of the same source: target nvptx64, format none\n"
    "      --cubin FILE.cubin    a cubin of the same source: target nvptx64, format native\n"
    "      --spir-bc             add a SPIR (LLVM bitcode) variant of every SPIR-V input,\n"
    "                            made with `llvm-spirv -r` (for OpenCL without IL):\n"
    "                            target spir64, format llvmir_bitcode\n"
    "      --llvm-spirv PATH     the translator for --spir-bc (default: $LLVM_SPIRV,\n"
    "                            then llvm-spirv-14, then llvm-spirv)\n"
    "      --native              make the native variant of every SPIR-V image from the\n"
    "                            processed SPIR-V (compiled work-group functions, needs\n"
    "                            sx-wgc, clang-14, llvm-spirv-14); an error when missing.\n"
    "                            Default: made when the tools are there and the input\n"
    "                            has no --host variant\n"
    "      --no-native           do not make native variants from SPIR-V\n"
    "      --wgc PATH            the work-group compiler (default: $SX_WGC, then sx-wgc\n"
    "                            beside proptool)\n"
    "      --ptx-variant         make the PTX variant of every SPIR-V image from the\n"
    "                            processed SPIR-V (CUDA adapter; needs sx-ptx and\n"
    "                            llvm-spirv-14); an error when missing. Default: made\n"
    "                            when the tools are there and the input has no --ptx\n"
    "                            or --cubin variant\n"
    "      --no-ptx-variant      do not make PTX variants from SPIR-V\n"
    "      --sx-ptx PATH         the SPIR-V -> PTX compiler (default: $SX_PTX, then\n"
    "                            sx-ptx beside proptool)\n"
    "      --libdevice FILE      CUDA's libdevice for the math builtins (default:\n"
    "                            $SX_LIBDEVICE, then CUDA's nvvm/libdevice)\n"
    "      --ptx-arch sm_NN      the PTX variant's target (default sm_80; newer GPUs\n"
    "                            JIT-compile it)\n"
    "      --manifest FILE       images described by a text manifest (see proptool(1))\n"
    "      --prop FILE.prop      sycl-post-link's property file of the SPIR-V input\n"
    "                            before it: its SYCL/ property sets are the image's\n"
    "      --table FILE.table    sycl-post-link's file table: one image per row, from\n"
    "                            its Code (SPIR-V), Properties (.prop) and Symbols\n"
    "                            (entry names) columns\n"
    "      --compile-options STR options for the backend compiler of the next inputs\n"
    "      --link-options STR    options for the backend linker of the next inputs\n"
    "\n"
    "Passes:\n"
    "      --no-if-device        keep sycl-call-if-on-host bodies (skip the if_device pass)\n"
    "      --no-vf-split         keep indirectly-callable functions with the kernels\n"
    "                            (by default each set is outlined into its own image)\n"
    "      --aot-aspects LIST    AOT flow for a target with these aspects (names or\n"
    "                            numbers, ','-separated; 'none' for no optional one):\n"
    "                            keep the virtual-function sets it supports, empty the\n"
    "                            bodies of the others, no outlining, no virtual-function\n"
    "                            properties\n"
    "      --device-global-accessors\n"
    "                            add an accessor kernel per device global,\n"
    "                            __sx_dg_access_<symbol>(buf, offset, count, op),\n"
    "                            for OpenCL without program-variable access;\n"
    "                            recorded in \"SX/device global accessors\"\n"
    "\n"
    "Diagnostics:\n"
    "  -q, --quiet               no warnings\n"
    "      --werror              warnings are errors\n"
    "      --lax-annotations     an unknown or misplaced annotation key is a warning,\n"
    "                            not an error (for producers with keys of their own)\n"
    "  -h, --help                this help\n"
    "  -V, --version             the version\n"
    "\n"
    "Options and inputs may come in any order, except that variants, --prop and\n"
    "--host-vf belong to the SPIR-V input before them and --compile-options and\n"
    "--link-options to the inputs after them. '--' ends the options.\n"
    "\n"
    "Exit status: 0 on success, 1 on bad input or a failed check, 2 on bad usage.\n"
    "No output file is left behind when proptool fails.\n";

enum {
    OPT_EMIT_C = 256,
    OPT_C_PREFIX,
    OPT_DUMP,
    OPT_EXTRACT,
    OPT_JSON,
    OPT_HOST,
    OPT_PTX,
    OPT_CUBIN,
    OPT_SPIR_BC,
    OPT_LLVM_SPIRV,
    OPT_MANIFEST,
    OPT_COMPILE_OPTIONS,
    OPT_LINK_OPTIONS,
    OPT_NO_IF_DEVICE,
    OPT_DG_ACCESSORS,
    OPT_WERROR,
    OPT_HOST_VF,
    OPT_HOST_VF_DUMMY,
    OPT_NO_VF_SPLIT,
    OPT_AOT_ASPECTS,
    OPT_PROP,
    OPT_TABLE,
    OPT_EMIT_PROP,
    OPT_NATIVE,
    OPT_NO_NATIVE,
    OPT_WGC,
    OPT_LAX_ANNOTATIONS,
    OPT_PTX_VARIANT,
    OPT_NO_PTX_VARIANT,
    OPT_SX_PTX,
    OPT_LIBDEVICE,
    OPT_PTX_ARCH,
};

static const struct option long_opts[] = {
    {"output", required_argument, NULL, 'o'},
    {"emit-c", required_argument, NULL, OPT_EMIT_C},
    {"c-prefix", required_argument, NULL, OPT_C_PREFIX},
    /* optional: `--dump --json FILE` and `--dump FILE --json` both work */
    {"dump", optional_argument, NULL, OPT_DUMP},
    {"extract", required_argument, NULL, OPT_EXTRACT},
    {"json", no_argument, NULL, OPT_JSON},
    {"host", required_argument, NULL, OPT_HOST},
    {"host-vf", required_argument, NULL, OPT_HOST_VF},
    {"host-vf-dummy", required_argument, NULL, OPT_HOST_VF_DUMMY},
    {"no-vf-split", no_argument, NULL, OPT_NO_VF_SPLIT},
    {"aot-aspects", required_argument, NULL, OPT_AOT_ASPECTS},
    {"native", no_argument, NULL, OPT_NATIVE},
    {"no-native", no_argument, NULL, OPT_NO_NATIVE},
    {"wgc", required_argument, NULL, OPT_WGC},
    {"ptx-variant", no_argument, NULL, OPT_PTX_VARIANT},
    {"no-ptx-variant", no_argument, NULL, OPT_NO_PTX_VARIANT},
    {"sx-ptx", required_argument, NULL, OPT_SX_PTX},
    {"libdevice", required_argument, NULL, OPT_LIBDEVICE},
    {"ptx-arch", required_argument, NULL, OPT_PTX_ARCH},
    {"ptx", required_argument, NULL, OPT_PTX},
    {"cubin", required_argument, NULL, OPT_CUBIN},
    {"spir-bc", no_argument, NULL, OPT_SPIR_BC},
    {"llvm-spirv", required_argument, NULL, OPT_LLVM_SPIRV},
    {"manifest", required_argument, NULL, OPT_MANIFEST},
    {"prop", required_argument, NULL, OPT_PROP},
    {"table", required_argument, NULL, OPT_TABLE},
    {"emit-prop", required_argument, NULL, OPT_EMIT_PROP},
    {"compile-options", required_argument, NULL, OPT_COMPILE_OPTIONS},
    {"link-options", required_argument, NULL, OPT_LINK_OPTIONS},
    {"no-if-device", no_argument, NULL, OPT_NO_IF_DEVICE},
    {"device-global-accessors", no_argument, NULL, OPT_DG_ACCESSORS},
    {"quiet", no_argument, NULL, 'q'},
    {"werror", no_argument, NULL, OPT_WERROR},
    {"lax-annotations", no_argument, NULL, OPT_LAX_ANNOTATIONS},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static int usage_error(const char *fmt, ...) SXP_PRINTF(1, 2);
static int usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "proptool: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'proptool --help'.\n");
    return 2;
}

static const char *ext_of(const sx_device_binary *d)
{
    switch (d->format) {
    case SX_BINARY_FORMAT_SPIRV: return "spv";
    case SX_BINARY_FORMAT_LLVMIR_BITCODE: return "bc";
    case SX_BINARY_FORMAT_NATIVE:
        return !strcmp(d->device_target_spec, SX_TARGET_HOST) ? "so"
             : !strcmp(d->device_target_spec, SX_TARGET_NVPTX64) ? "cubin" : "bin";
    default: return !strcmp(d->device_target_spec, SX_TARGET_NVPTX64) ? "ptx" : "bin";
    }
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static const char *contents_ext(const char *contents)
{
    static const struct { const char *kind, *ext; } map[] = {
        {"SPIR-V", "spv"}, {"SPIR bitcode", "bc"}, {"PTX", "ptx"}, {"cubin", "cubin"}, {"host ELF", "so"},
    };
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(contents, map[i].kind))
            return map[i].ext;
    return "bin";
}

/* The device images a DPC++-built executable or shared library carries,
 * read from the file (dpcpp-elf.c): nothing of it runs. */
static int do_dump_elf(const char *path, const uint8_t *data, size_t size, const char *extract, bool json)
{
    sxp_elf e;
    if (!sxp_elf_read(path, data, size, &e))
        return 1;
    size_t images = 0;
    for (size_t k = 0; k < e.num_descs; k++)
        images += e.descs[k].desc.num_device_binaries;
    int rc = 0;
    if (extract && mkdir(extract, 0777) != 0 && errno != EEXIST) {
        sxp_error(extract, SXP_NONE, "cannot create: %s", strerror(errno));
        rc = 1;
    }
    if (json) {
        printf("{\"schema\": \"sycl-ext/proptool-elf-dump\", \"schema_version\": 1, \"file\": ");
        json_str(stdout, path);
        printf(", \"num_descriptors\": %zu, \"num_images\": %zu, \"descriptors\": [\n", e.num_descs, images);
    } else {
        printf("%s: %zu DPC++ descriptor%s, %zu image%s\n", path, e.num_descs, e.num_descs == 1 ? "" : "s", images,
               images == 1 ? "" : "s");
    }
    for (size_t k = 0; k < e.num_descs; k++) {
        const sxp_elf_desc *d = &e.descs[k];
        uint16_t n = d->desc.num_device_binaries;
        sxp_dump_extra *x = sxp_xcalloc(n, sizeof(*x));
        char (*why)[256] = sxp_xcalloc(n, sizeof(*why));
        for (uint16_t i = 0; i < n; i++)
            sxp_dump_extra_fill(&d->desc.device_binaries[i], d->images[i].version, d->images[i].entry_size,
                                d->images[i].record_address, &x[i], why[i], sizeof(why[i]));
        if (json) {
            if (k)
                printf(",\n");
            fflush(stdout);
            if (!sxp_dump_json_ex(path, &d->desc, x, stdout))
                rc = 1;
        } else {
            printf("\ndescriptor %zu at 0x%llx: ", k, (unsigned long long)d->address);
            sxp_buf b = {0};
            sxp_dump_ex(&d->desc, x, &b);
            fwrite(b.data, 1, b.len, stdout);
            sxp_buf_free(&b);
        }
        for (uint16_t i = 0; !rc && extract && i < n; i++) {
            const sx_device_binary *img = &d->desc.device_binaries[i];
            const uint8_t *bytes = img->binary_start;
            size_t len = (size_t)(img->binary_end - img->binary_start);
            uint8_t *plain = NULL;
            if (x[i].compressed) {
                if (sxi_zstd_expand(bytes, len, &plain, &len) != SX_SUCCESS) {
                    sxp_error(path, SXP_NONE, "descriptor %zu image %u: %s", k, i, sx_last_error());
                    rc = 1;
                    break;
                }
                bytes = plain;
                sx_device_binary dec = *img;
                dec.format = SX_BINARY_FORMAT_NONE;
                dec.binary_start = plain;
                dec.binary_end = plain + len;
                sxp_dump_extra_fill(&dec, x[i].record_version, x[i].entry_size, x[i].record_address, &x[i], why[i],
                                    sizeof(why[i]));
            }
            char *p = e.num_descs == 1 ? sxp_xasprintf("%s/image%u.%s", extract, i, contents_ext(x[i].contents))
                                       : sxp_xasprintf("%s/d%zu-image%u.%s", extract, k, i, contents_ext(x[i].contents));
            if (!sxp_write_file_atomic(p, bytes, len))
                rc = 1;
            free(p);
            free(plain);
        }
        free(why);
        free(x);
    }
    if (json)
        printf("]}\n");
    if (fflush(stdout) != 0)
        rc = 1;
    sxp_elf_free(&e);
    return rc;
}

static int do_dump(const char *path, const char *extract, bool json)
{
    size_t size;
    uint8_t *data = sxp_read_file(path, &size);
    if (!data)
        return 1;
    if (sxp_is_elf(data, size)) {
        int rc = do_dump_elf(path, data, size, extract, json);
        free(data);
        return rc;
    }
    sx_device_binaries *desc = NULL;
    sx_result r = sxi_image_file_parse(data, size, &desc);
    if (r) {
        sxp_error(path, SXP_NONE, "%s (%s)", sx_last_error(), sx_result_name(r));
        free(data);
        return 1;
    }
    int rc = 0;
    if (json) {
        rc = sxp_dump_json(path, desc, stdout) ? 0 : 1;
    } else {
        sxp_buf b = {0};
        sxp_dump(desc, &b);
        fwrite(b.data, 1, b.len, stdout);
        sxp_buf_free(&b);
    }
    if (extract) {
        if (mkdir(extract, 0777) != 0 && errno != EEXIST) {
            sxp_error(extract, SXP_NONE, "cannot create: %s", strerror(errno));
            rc = 1;
        }
        for (uint16_t i = 0; !rc && i < desc->num_device_binaries; i++) {
            const sx_device_binary *d = &desc->device_binaries[i];
            char *p = sxp_xasprintf("%s/image%u.%s", extract, i, ext_of(d));
            if (!sxp_write_file_atomic(p, d->binary_start, (size_t)(d->binary_end - d->binary_start)))
                rc = 1;
            free(p);
        }
    }
    if (fflush(stdout) != 0)
        rc = 1;
    sxi_image_file_free(desc);
    free(data);
    return rc;
}

/* The SPIR bitcode variant: llvm-spirv -r on the processed SPIR-V. */
static bool make_spir_bc(const char *tool, const char *origin, const uint8_t *spv, size_t n, uint8_t **out,
                         size_t *out_size)
{
    const char *tmpdir = getenv("TMPDIR");
    char *dir = sxp_xasprintf("%s/proptool-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    bool ok = false;
    if (!mkdtemp(dir)) {
        sxp_error(origin, SXP_NONE, "--spir-bc: cannot make a temporary directory: %s", strerror(errno));
        free(dir);
        return false;
    }
    char *in = sxp_xasprintf("%s/in.spv", dir), *outp = sxp_xasprintf("%s/out.bc", dir);
    if (sxp_write_file_atomic(in, spv, n)) {
        pid_t pid = fork();
        if (pid == 0) {
            execlp(tool, tool, "-r", in, "-o", outp, (char *)NULL);
            fprintf(stderr, "proptool: error: cannot run %s: %s\n", tool, strerror(errno));
            _exit(127);
        }
        int st = 0;
        if (pid < 0)
            sxp_error(origin, SXP_NONE, "--spir-bc: fork failed: %s", strerror(errno));
        else if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
            sxp_error(origin, SXP_NONE, "--spir-bc: `%s -r` failed (status %d)", tool,
                      WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        else if ((*out = sxp_read_file(outp, out_size)))
            ok = true;
    }
    unlink(in);
    unlink(outp);
    rmdir(dir);
    free(in);
    free(outp);
    free(dir);
    return ok;
}

/* Does a SPIR-V image take the address of a function (a vtable's
 * OpConstantFunctionPointerINTEL) and go to a driver as it is, without
 * the link step of virtual-function sets (no "SYCL/virtual functions")?
 * Its SPIR bitcode variant would reach OpenCL drivers without SPIR-V, of
 * which PoCL 3.1 aborts the whole process at the first launch of such a
 * program (the functions behind the pointers are missing from its kernel
 * binary: dlopen fails, PoCL calls abort); issue 25. */
static bool spv_self_contained_fnptrs(const sxp_image *img)
{
    if (img->format != SX_BINARY_FORMAT_SPIRV || img->size < 20 || img->size % 4 ||
        sxp_image_find_set(img, SX_PROP_SET_VIRTUAL_FUNCTIONS))
        return false;
    const uint8_t *b = img->data;
    uint32_t magic;
    memcpy(&magic, b, 4);
    bool swapped = magic == 0x03022307u;
    for (size_t i = 5; i < img->size / 4;) {
        uint32_t w;
        memcpy(&w, b + 4 * i, 4);
        if (swapped)
            w = __builtin_bswap32(w);
        if ((w & 0xffff) == SpvOpConstantFunctionPointerINTEL)
            return true;
        if (!(w >> 16))
            return false;
        i += w >> 16;
    }
    return false;
}

/* The SPIR bitcode variant of one SPIR-V image, without its UserSemantic
 * decorations: llvm-spirv -r turns them back into llvm.global.annotations,
 * whose function pointers Oclgrind cannot initialise ("Unsupported
 * constant pointer value"). */
static sxp_image *spir_bc_variant(const char *tool, const sxp_image *spv)
{
    sxp_module m;
    sxp_any_bound = true;
    bool parsed = sxp_module_parse(&m, spv->origin, spv->data, spv->size);
    sxp_any_bound = false;
    if (!parsed) {
        sxp_module_free(&m);
        return NULL;
    }
    for (uint32_t d = 0; d < m.ndecors; d++)
        if (m.decors[d].decoration == SpvDecorationUserSemantic)
            m.drop[m.decors[d].inst] = 1;
    sxp_buf plain = {0};
    sxp_module_write(&m, &plain);
    sxp_module_free(&m);
    uint8_t *bc;
    size_t bcn;
    bool made = make_spir_bc(tool, spv->origin, plain.data, plain.len, &bc, &bcn);
    sxp_buf_free(&plain);
    if (!made)
        return NULL;
    return sxp_variant_image(spv, SX_TARGET_SPIRV64, SX_BINARY_FORMAT_LLVMIR_BITCODE, bc, bcn);
}

/* Without what proptool generated (accessor kernels): a variant compiled
 * from the source does not have it. */
static void drop_generated(sxp_image *v, const sxp_analysis *an)
{
    for (uint32_t k = 0; k < an->nkernels; k++) {
        if (!an->kernels[k].generated)
            continue;
        const char *name = an->kernels[k].name;
        for (size_t e = 0; e < v->nentries; e++)
            if (!strcmp(v->entries[e], name)) {
                free(v->entries[e]);
                memmove(&v->entries[e], &v->entries[e + 1], (v->nentries - e - 1) * sizeof *v->entries);
                v->nentries--;
                break;
            }
        for (size_t s = 0; s < v->nsets; s++) {
            sxp_propset *ps = &v->sets[s];
            for (size_t p = 0; p < ps->nprops; p++)
                if (!strcmp(ps->props[p].name, name)) {
                    free(ps->props[p].name);
                    free(ps->props[p].bytes);
                    memmove(&ps->props[p], &ps->props[p + 1], (ps->nprops - p - 1) * sizeof *ps->props);
                    ps->nprops--;
                    break;
                }
        }
    }
    for (size_t s = 0; s < v->nsets; s++)
        if (!strcmp(v->sets[s].name, SX_PROP_SET_GLOBAL_ACCESSORS) || !v->sets[s].nprops) {
            for (size_t p = 0; p < v->sets[s].nprops; p++) {
                free(v->sets[s].props[p].name);
                free(v->sets[s].props[p].bytes);
            }
            free(v->sets[s].props);
            free(v->sets[s].name);
            memmove(&v->sets[s], &v->sets[s + 1], (v->nsets - s - 1) * sizeof *v->sets);
            v->nsets--;
            s--;
        }
}

/* Does the host object at `path` define every kernel of `spv`? */
static bool host_defines_all(const char *path, const sxp_image *spv)
{
    size_t n;
    uint8_t *d = sxp_read_file(path, &n);
    bool all = d != NULL;
    for (size_t e = 0; all && e < spv->nentries; e++) {
        bool found = false;
        all = sxp_elf_has_symbol(d, n, spv->entries[e], &found) && found;
    }
    free(d);
    return all;
}

/* A host, PTX or cubin variant of the SPIR-V image `spv` of input `in`;
 * `whole`: spv is the input's only image (its analysis describes it). */
static sxp_image *make_variant(const input *in, const variant *va, const sxp_image *spv, bool whole)
{
    size_t n;
    uint8_t *d = sxp_read_file(va->path, &n);
    if (!d)
        return NULL;
    if (!n) {
        sxp_error(va->path, SXP_NONE, "empty %s variant", va->what);
        free(d);
        return NULL;
    }
    bool elf = n >= 4 && !memcmp(d, "\x7f" "ELF", 4);
    if ((!strcmp(va->what, "host") || !strcmp(va->what, "cubin")) && !elf)
        sxp_warn(va->path, SXP_NONE, "a %s variant should be an ELF file", va->what);
    if (!strcmp(va->what, "ptx") && !memmem(d, n, ".version", 8))
        sxp_warn(va->path, SXP_NONE, "does not look like PTX (no .version directive)");
    sxp_image *v = sxp_image_new(va->path, va->target, va->format);
    v->data = d;
    v->size = n;
    if (spv->compile_options)
        v->compile_options = sxp_xstrdup(spv->compile_options);
    if (spv->link_options)
        v->link_options = sxp_xstrdup(spv->link_options);
    if (whole) {
        sxp_analysis_to_image(&in->an, v, false);
    } else {
        sxp_image_copy_props(v, spv);
        drop_generated(v, &in->an);
        v->vf_set = spv->vf_set ? sxp_xstrdup(spv->vf_set) : NULL;
        v->vf_dummy = spv->vf_dummy;
    }
    bool ok = true;
    /* A host object must define every kernel its companion lists (the
     * native adapter finds them by name) and, for a set, its functions. */
    for (size_t e = 0; elf && !strcmp(va->what, "host") && e < v->nentries; e++) {
        bool found;
        if (!sxp_elf_has_symbol(d, n, v->entries[e], &found)) {
            sxp_warn(va->path, SXP_NONE, "cannot read its dynamic symbols (not an x86-64 shared object?)");
            break;
        }
        if (!found) {
            sxp_error(va->path, SXP_NONE, "host variant lacks kernel '%s' of %s (not a defined dynamic symbol)",
                      v->entries[e], in->path);
            ok = false;
        }
    }
    for (uint32_t f = 0; elf && va->vf_set && f < in->an.nvfuncs; f++) {
        const char *lname = NULL;
        bool found;
        if (!in->an.vfuncs[f].defined || strcmp(in->an.vfuncs[f].set, va->vf_set) ||
            !sxp_module_linkage(&in->mod, in->an.vfuncs[f].fn, &lname, NULL))
            continue;
        /* C++ host code mangles names for its own target (CLgeneric
         * where SPIR-V has AS4): a mangled name the host object lacks is
         * not the user's to change, so only C names are checked. */
        if (!strncmp(lname, "_Z", 2))
            continue;
        if (sxp_elf_has_symbol(d, n, lname, &found) && !found)
            sxp_warn(va->path, SXP_NONE, "host variant of set '%s' lacks '%s' (not a defined dynamic symbol)",
                     va->vf_set, lname);
    }
    if (!strcmp(va->what, "ptx"))
        for (size_t e = 0; e < v->nentries; e++) {
            char *pat = sxp_xasprintf(".entry %s", v->entries[e]);
            if (!memmem(d, n, pat, strlen(pat)))
                sxp_warn(va->path, SXP_NONE, "no '.entry %s' in the PTX", v->entries[e]);
            free(pat);
        }
    if (!ok) {
        sxp_image_free(v);
        return NULL;
    }
    return v;
}

static const char *find_llvm_spirv(const char *given)
{
    if (given)
        return given;
    const char *env = getenv("LLVM_SPIRV");
    if (env && *env)
        return env;
    static const char *const names[] = {"llvm-spirv-14", "llvm-spirv"};
    const char *path = getenv("PATH");
    for (size_t i = 0; i < 2; i++) {
        const char *p = path ? path : "/usr/bin:/bin";
        while (*p) {
            const char *c = strchr(p, ':');
            size_t len = c ? (size_t)(c - p) : strlen(p);
            char *cand = sxp_xasprintf("%.*s/%s", (int)len, p, names[i]);
            bool found = access(cand, X_OK) == 0;
            free(cand);
            if (found)
                return names[i];
            p = c ? c + 1 : p + len;
        }
    }
    return NULL;
}

static char *default_prefix(const char *cfile)
{
    const char *base = strrchr(cfile, '/');
    base = base ? base + 1 : cfile;
    char *s = sxp_xasprintf("sx_images_%s", base);
    char *dot = strrchr(s, '.');
    if (dot && !strcmp(dot, ".c"))
        *dot = 0;
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
            *p = '_';
    return s;
}

/* Checks across inputs: kernel names and image-scope device globals. */
static bool cross_check(input *ins, size_t n)
{
    bool ok = true;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            for (uint32_t a = 0; a < ins[i].an.nkernels; a++)
                for (uint32_t b = 0; b < ins[j].an.nkernels; b++)
                    if (!ins[i].an.kernels[a].generated && !strcmp(ins[i].an.kernels[a].name, ins[j].an.kernels[b].name)) {
                        sxp_error(ins[j].path, SXP_NONE, "duplicate kernel name '%s': also defined in %s",
                                  ins[j].an.kernels[b].name, ins[i].path);
                        ok = false;
                    }
            for (uint32_t a = 0; a < ins[i].an.nglobals; a++)
                for (uint32_t b = 0; b < ins[j].an.nglobals; b++) {
                    const sxp_global *ga = &ins[i].an.globals[a], *gb = &ins[j].an.globals[b];
                    if (strcmp(ga->uid, gb->uid))
                        continue;
                    if (ga->image_scope || gb->image_scope) {
                        sxp_error(ins[j].path, gb->word,
                                  "device_global variable '%s' with property \"device_image_scope\" is used in more "
                                  "than one device image (also in %s)", ga->uid, ins[i].path);
                        ok = false;
                    } else if (ga->size != gb->size) {
                        sxp_error(ins[j].path, gb->word, "device global '%s' has size %u here but %u in %s", ga->uid,
                                  gb->size, ga->size, ins[i].path);
                        ok = false;
                    }
                }
        }
    return ok;
}

static void add_input(input **ins, size_t *cap, size_t *n, const char *path, const char *copts, const char *lopts)
{
    sxp_grow(ins, cap, *n, sizeof **ins);
    input *in = memset(&(*ins)[*n], 0, sizeof **ins);
    in->path = path;
    in->compile_options = copts;
    in->link_options = lopts;
    ++*n;
}

static void free_inputs(input *ins, size_t nins)
{
    for (size_t i = 0; i < nins; i++) {
        if (ins[i].parsed) {
            sxp_analysis_free(&ins[i].an);
            sxp_module_free(&ins[i].mod);
        }
        for (size_t k = 0; k < ins[i].nimgs; k++)
            sxp_image_free(ins[i].imgs[k]);
        free(ins[i].imgs);
        for (size_t k = 0; k < ins[i].nvariants; k++)
            free(ins[i].variants[k].vf_set);
        free(ins[i].variants);
        sxp_image_free(ins[i].prop);
        free(ins[i].owned_path);
        free(ins[i].sym);
    }
    free(ins);
}

/* Issue 14: the image of a sycl-post-link table row or --prop pair: its
 * DPC++ property sets are the .prop's; entries are the .sym's when given
 * (the offload wrapper's), else the module's kernels. */
static bool take_prop(input *in)
{
    sxp_image *img = in->imgs[0];
    sxp_image_take_prop(img, in->prop);
    if (!in->sym)
        return true;
    size_t n;
    uint8_t *d = sxp_read_file(in->sym, &n);
    if (!d)
        return false;
    for (size_t e = 0; e < img->nentries; e++)
        free(img->entries[e]);
    img->nentries = 0;
    char *text = sxp_xstrndup((const char *)d, n), *save = NULL;
    for (char *l = strtok_r(text, "\r\n", &save); l; l = strtok_r(NULL, "\r\n", &save))
        if (*l)
            sxp_image_add_entry(img, l);
    free(text);
    free(d);
    return true;
}

/* --emit-prop PREFIX: PREFIX_<i>.prop and the image bytes beside it, and
 * PREFIX.table listing them, as sycl-post-link lays its output out. */
static bool write_prop_files(const char *prefix, const sx_device_binaries *desc)
{
    sxp_buf table = {0};
    bool ok = true;
    const char *head = "[Code|Properties|Symbols]\n";
    sxp_buf_put(&table, head, strlen(head));
    for (uint16_t i = 0; ok && i < desc->num_device_binaries; i++) {
        const sx_device_binary *d = &desc->device_binaries[i];
        char *code = sxp_xasprintf("%s_%u.%s", prefix, i, ext_of(d));
        char *prop = sxp_xasprintf("%s_%u.prop", prefix, i);
        char *sym = sxp_xasprintf("%s_%u.sym", prefix, i);
        sxp_buf p = {0}, s = {0};
        sxp_prop_write(d, &p);
        for (const sx_offload_entry *e = d->entries_begin; e != d->entries_end; e++) {
            sxp_buf_put(&s, e->name, strlen(e->name));
            sxp_buf_u8(&s, '\n');
        }
        ok = sxp_write_file_atomic(code, d->binary_start, (size_t)(d->binary_end - d->binary_start)) &&
             sxp_write_file_atomic(prop, p.data, p.len) && sxp_write_file_atomic(sym, s.data, s.len);
        char *row = sxp_xasprintf("%s|%s|%s\n", code, prop, sym);
        sxp_buf_put(&table, row, strlen(row));
        free(row);
        sxp_buf_free(&p);
        sxp_buf_free(&s);
        free(code);
        free(prop);
        free(sym);
    }
    char *tpath = sxp_xasprintf("%s.table", prefix);
    ok = ok && sxp_write_file_atomic(tpath, table.data, table.len);
    free(tpath);
    sxp_buf_free(&table);
    return ok;
}

int main(int argc, char **argv)
{
    const char *output = NULL, *emit_c = NULL, *prefix = NULL, *dump = NULL, *extract = NULL;
    bool dumping = false;
    const char *llvm_spirv = NULL, *copts = NULL, *lopts = NULL, *emit_prop = NULL;
    bool spir_bc = false, werror = false, bad_files = false;
    sxp_options opt = {.if_device = true};
    input *ins = NULL;
    size_t nins = 0, ins_cap = 0;
    const char **manifests = NULL;
    size_t nman = 0;
    sxp_native_mode native = SXP_NATIVE_AUTO;
    sxp_native_tools ntools = {0};
    sxp_ptx_mode ptxmode = SXP_PTX_AUTO;
    sxp_ptx_tools ptools = {0};
    int c;
    bool json = false; /* --dump as JSON */

    const char *nenv = getenv("SX_PROPTOOL_NATIVE");
    if (nenv && (!strcmp(nenv, "off") || !strcmp(nenv, "0") || !strcmp(nenv, "no")))
        native = SXP_NATIVE_OFF;
    else if (nenv && (!strcmp(nenv, "on") || !strcmp(nenv, "1") || !strcmp(nenv, "yes")))
        native = SXP_NATIVE_ON;
    const char *penv = getenv("SX_PROPTOOL_PTX");
    if (penv && (!strcmp(penv, "off") || !strcmp(penv, "0") || !strcmp(penv, "no")))
        ptxmode = SXP_PTX_OFF;
    else if (penv && (!strcmp(penv, "on") || !strcmp(penv, "1") || !strcmp(penv, "yes")))
        ptxmode = SXP_PTX_ON;
    /* A leading '-' keeps inputs in command-line order, so variants attach
     * to the SPIR-V input before them. */
    while ((c = getopt_long(argc, argv, "-o:qhV", long_opts, NULL)) != -1) {
        switch (c) {
        case 1: add_input(&ins, &ins_cap, &nins, optarg, copts, lopts); break;
        case 'o': output = optarg; break;
        case OPT_EMIT_C: emit_c = optarg; break;
        case OPT_C_PREFIX: prefix = optarg; break;
        case OPT_DUMP:
            if (dumping)
                return usage_error("%s", "--dump given twice");
            dumping = true;
            dump = optarg;
            break;
        case OPT_EXTRACT: extract = optarg; break;
        case OPT_JSON: json = true; break;
        case OPT_HOST:
        case OPT_PTX:
        case OPT_CUBIN: {
            if (!nins)
                return usage_error("%s needs a SPIR-V input before it (its properties come from there)",
                                   c == OPT_HOST ? "--host" : c == OPT_PTX ? "--ptx" : "--cubin");
            input *in = &ins[nins - 1];
            in->variants = sxp_xrealloc(in->variants, (in->nvariants + 1) * sizeof *in->variants);
            variant *v = &in->variants[in->nvariants++];
            memset(v, 0, sizeof *v);
            v->path = optarg;
            v->target = c == OPT_HOST ? SX_TARGET_HOST : SX_TARGET_NVPTX64;
            v->format = c == OPT_PTX ? SX_BINARY_FORMAT_NONE : SX_BINARY_FORMAT_NATIVE;
            v->what = c == OPT_HOST ? "host" : c == OPT_PTX ? "ptx" : "cubin";
            break;
        }
        case OPT_HOST_VF:
        case OPT_HOST_VF_DUMMY: {
            const char *what = c == OPT_HOST_VF ? "--host-vf" : "--host-vf-dummy";
            const char *eq = strchr(optarg, '=');
            if (!nins)
                return usage_error("%s needs a SPIR-V input before it", what);
            if (!eq || eq == optarg || !eq[1])
                return usage_error("%s takes SET=FILE.so, not '%s'", what, optarg);
            input *in = &ins[nins - 1];
            in->variants = sxp_xrealloc(in->variants, (in->nvariants + 1) * sizeof *in->variants);
            variant *v = &in->variants[in->nvariants++];
            memset(v, 0, sizeof *v);
            v->path = eq + 1;
            v->target = SX_TARGET_HOST;
            v->format = SX_BINARY_FORMAT_NATIVE;
            v->what = "host";
            v->vf_set = sxp_xstrndup(optarg, (size_t)(eq - optarg));
            v->vf_dummy = c == OPT_HOST_VF_DUMMY;
            break;
        }
        case OPT_NO_VF_SPLIT: opt.no_vf_split = true; break;
        case OPT_NATIVE: native = SXP_NATIVE_ON; break;
        case OPT_NO_NATIVE: native = SXP_NATIVE_OFF; break;
        case OPT_WGC: ntools.wgc = optarg; break;
        case OPT_PTX_VARIANT: ptxmode = SXP_PTX_ON; break;
        case OPT_NO_PTX_VARIANT: ptxmode = SXP_PTX_OFF; break;
        case OPT_SX_PTX: ptools.sx_ptx = optarg; break;
        case OPT_LIBDEVICE: ptools.libdevice = optarg; break;
        case OPT_PTX_ARCH:
            if (strncmp(optarg, "sm_", 3) || !optarg[3] || strspn(optarg + 3, "0123456789") != strlen(optarg + 3))
                return usage_error("--ptx-arch takes sm_NN (e.g. sm_80), not '%s'", optarg);
            ptools.arch = optarg;
            break;
        case OPT_AOT_ASPECTS: {
            opt.aot = true;
            free(opt.aot_aspects);
            opt.aot_aspects = NULL;
            opt.naot_aspects = 0;
            if (!strcmp(optarg, "none") || !*optarg)
                break;
            char *list = sxp_xstrdup(optarg), *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                uint32_t a;
                if (!sxp_aspect_parse(t, &a)) {
                    int r = usage_error("--aot-aspects: unknown aspect '%s'", t);
                    free(list);
                    return r;
                }
                opt.aot_aspects = sxp_xrealloc(opt.aot_aspects, (opt.naot_aspects + 1) * sizeof *opt.aot_aspects);
                opt.aot_aspects[opt.naot_aspects++] = a;
            }
            free(list);
            break;
        }
        case OPT_SPIR_BC: spir_bc = true; break;
        case OPT_LLVM_SPIRV: llvm_spirv = optarg; break;
        case OPT_MANIFEST:
            manifests = sxp_xrealloc(manifests, (nman + 1) * sizeof *manifests);
            manifests[nman++] = optarg;
            break;
        case OPT_PROP:
            if (!nins || ins[nins - 1].prop)
                return usage_error("%s", "--prop needs a SPIR-V input before it (one .prop each)");
            ins[nins - 1].prop = sxp_image_new(optarg, SX_TARGET_SPIRV64, SX_BINARY_FORMAT_SPIRV);
            bad_files |= !sxp_prop_load(optarg, ins[nins - 1].prop);
            break;
        case OPT_TABLE: {
            sxp_table_row *rows;
            size_t nrows;
            if (!sxp_table_load(optarg, &rows, &nrows)) {
                bad_files = true;
                break;
            }
            for (size_t r = 0; r < nrows; r++) {
                sxp_grow(&ins, &ins_cap, nins, sizeof *ins);
                input *in = memset(&ins[nins++], 0, sizeof *ins);
                in->path = in->owned_path = rows[r].code;
                in->sym = rows[r].sym;
                in->compile_options = copts;
                in->link_options = lopts;
                if (rows[r].prop) {
                    in->prop = sxp_image_new(rows[r].prop, SX_TARGET_SPIRV64, SX_BINARY_FORMAT_SPIRV);
                    bad_files |= !sxp_prop_load(rows[r].prop, in->prop);
                    free(rows[r].prop);
                }
            }
            free(rows);
            break;
        }
        case OPT_EMIT_PROP: emit_prop = optarg; break;
        case OPT_COMPILE_OPTIONS: copts = optarg; break;
        case OPT_LINK_OPTIONS: lopts = optarg; break;
        case OPT_NO_IF_DEVICE: opt.if_device = false; break;
        case OPT_DG_ACCESSORS: opt.dg_accessors = true; break;
        case 'q': sxp_quiet_warnings = true; break;
        case OPT_WERROR: werror = true; break;
        case OPT_LAX_ANNOTATIONS: sxp_annot_lax = true; break;
        case 'h': fputs(usage_text, stdout); return 0;
        case 'V': printf("proptool (libsycl-ext) %s\n", PACKAGE_VERSION); return 0;
        default: fprintf(stderr, "Try 'proptool --help'.\n"); return 2;
        }
    }
    /* '--' ended the options: the rest are inputs, even one that starts
     * with '-' (getopt's '-' mode returns -1 there and leaves them at optind) */
    for (; optind < argc; optind++)
        add_input(&ins, &ins_cap, &nins, argv[optind], copts, lopts);
    if (bad_files) {  /* a .prop or .table that did not read (diagnosed) */
        free_inputs(ins, nins);
        free(manifests);
        free(opt.aot_aspects);
        return 1;
    }
    if (dumping) {
        size_t others = nins;
        if (!dump && nins == 1 && !ins[0].nvariants && !ins[0].prop && !ins[0].owned_path) {
            dump = ins[0].path;
            others = 0;
        }
        int r = !dump || others || output || emit_c || emit_prop || nman
                    ? usage_error("%s", "--dump takes one image file and no other inputs or outputs")
                    : do_dump(dump, extract, json);
        free_inputs(ins, nins);
        free(manifests);
        free(opt.aot_aspects);
        return r;
    }
    if (json)
        return usage_error("%s", "--json goes with --dump");
    if (extract)
        return usage_error("%s", "--extract goes with --dump");
    if (!output && !emit_c && !emit_prop)
        return usage_error("%s", "no output: give -o OUT.sximg, --emit-c FILE.c and/or --emit-prop PREFIX");
    if (!nins && !nman)
        return usage_error("%s", "no inputs");

    int rc = 1;
    sxp_image **imgs = NULL;
    size_t nimgs = 0, imgs_cap = 0;
    bool ok = true;
    for (size_t i = 0; i < nins && ok; i++) {
        input *in = &ins[i];
        size_t size;
        uint8_t *bytes = sxp_read_file(in->path, &size);
        if (!bytes) {
            ok = false;
            break;
        }
        in->parsed = true;
        ok = sxp_module_parse(&in->mod, in->path, bytes, size);
        free(bytes);
        /* With a .prop the module is one of sycl-post-link's images already:
         * no split, and what SPIR-V cannot say comes from the .prop. */
        sxp_options o = opt;
        if (in->prop) {
            o.prop = in->prop;
            o.no_vf_split = true;
        }
        if (ok)
            ok = sxp_analyse(&in->mod, &o, &in->an);
        uint8_t *relinked = NULL;
        size_t relinked_size = 0;
        if (ok && sxp_dg_export_internal(&in->mod, &in->an, &relinked, &relinked_size)) {
            /* `static` device globals exported (dglink.c): read it again. */
            sxp_analysis_free(&in->an);
            sxp_module_free(&in->mod);
            memset(&in->an, 0, sizeof in->an);
            bool silent = sxp_silent;  /* its diagnostics were given the first time */
            sxp_silent = true;
            ok = sxp_module_parse(&in->mod, in->path, relinked, relinked_size) &&
                 sxp_analyse(&in->mod, &o, &in->an);
            sxp_silent = silent;
            free(relinked);
        }
        /* An image provides one virtual-function set (virtual-functions-set
         * names one): kept together, a kernel calling another set than the
         * one recorded finds no provider at launch (issue 25). */
        if (ok && o.no_vf_split && !in->prop && in->an.nvf_defined > 1) {
            sxp_error(in->path, SXP_NONE,
                      "--no-vf-split would keep the virtual-function sets '%s' and '%s'%s in one image, but an image "
                      "provides one set (its virtual-functions-set property names one), so a kernel calling another "
                      "would find no provider at launch. Leave out --no-vf-split (each set gets its own image), or "
                      "give --aot-aspects for an AOT target.",
                      in->an.vf_defined_sets[0], in->an.vf_defined_sets[1],
                      in->an.nvf_defined > 2 ? " and others" : "");
            ok = false;
        }
        if (ok)
            sxp_cleanup(&in->mod);
        if (ok)
            ok = sxp_vtables_pass(&in->mod);
        if (ok)
            sxp_analyse_data_symbols(&in->mod, &in->an);
        if (ok && opt.if_device)
            ok = sxp_if_device_pass(&in->mod, &in->an);
        sxp_vf_plan *plan = NULL;
        if (ok)
            ok = sxp_vf_plan_make(&in->mod, &in->an, &o, &plan);
        /* Set images before the accessor kernels exist: those belong to
         * the kernels' image. */
        sxp_image **sets = NULL;
        size_t nsets = 0, sets_cap = 0;
        if (ok && plan)
            sxp_vf_write_sets(plan, &in->mod, &in->an, &sets, &nsets, &sets_cap);
        if (ok && opt.dg_accessors)
            ok = sxp_add_global_accessors(&in->mod, &in->an);
        if (ok && plan) {
            sxp_vf_write_kernels(plan, &in->mod, &in->an, &in->imgs, &in->nimgs, &in->imgs_cap);
        } else if (ok) {
            sxp_image *img = sxp_image_new(in->path, SX_TARGET_SPIRV64, SX_BINARY_FORMAT_SPIRV);
            sxp_buf w = {0};
            sxp_module_write(&in->mod, &w);
            img->data = w.data;
            img->size = w.len;
            sxp_analysis_to_image(&in->an, img, true);
            sxp_grow(&in->imgs, &in->imgs_cap, in->nimgs, sizeof *in->imgs);
            in->imgs[in->nimgs++] = img;
        }
        for (size_t k = 0; k < nsets; k++) {
            sxp_grow(&in->imgs, &in->imgs_cap, in->nimgs, sizeof *in->imgs);
            in->imgs[in->nimgs++] = sets[k];
        }
        free(sets);
        if (ok && in->prop)
            ok = take_prop(in);
        in->split = plan != NULL;
        sxp_vf_plan_free(plan);
        for (size_t k = 0; k < in->nimgs; k++) {
            if (in->compile_options)
                in->imgs[k]->compile_options = sxp_xstrdup(in->compile_options);
            if (in->link_options)
                in->imgs[k]->link_options = sxp_xstrdup(in->link_options);
        }
    }
    if (ok)
        ok = cross_check(ins, nins);
    const char *tool = NULL;
    if (ok && spir_bc && nins && !(tool = find_llvm_spirv(llvm_spirv))) {
        sxp_error(NULL, SXP_NONE, "--spir-bc needs llvm-spirv: none found (give --llvm-spirv PATH)");
        ok = false;
    }
    if (ok && native != SXP_NATIVE_OFF && nins) {
        char *why = NULL;
        if (!sxp_native_find(&ntools, &why)) {
            if (native == SXP_NATIVE_ON) {
                sxp_error(NULL, SXP_NONE, "--native: %s", why);
                ok = false;
            } else if (!sxp_quiet_warnings) {
                fprintf(stderr, "proptool: note: no native variants made from SPIR-V: %s; the --host flow "
                                "still works\n", why);
            }
            native = SXP_NATIVE_OFF;
            free(why);
        }
    }
    if (ok && ptxmode != SXP_PTX_OFF && nins) {
        char *why = NULL;
        if (!sxp_ptx_find(&ptools, &why)) {
            if (ptxmode == SXP_PTX_ON) {
                sxp_error(NULL, SXP_NONE, "--ptx-variant: %s", why);
                ok = false;
            } else if (!sxp_quiet_warnings) {
                fprintf(stderr, "proptool: note: no PTX variants made from SPIR-V: %s; --ptx FILE still works\n",
                        why);
            }
            ptxmode = SXP_PTX_OFF;
            free(why);
        }
    }
    for (size_t i = 0; i < nins && ok; i++) {
        input *in = &ins[i];
        size_t first = nimgs;
        for (size_t k = 0; k < in->nimgs; k++) {
            sxp_grow(&imgs, &imgs_cap, nimgs, sizeof *imgs);
            imgs[nimgs++] = in->imgs[k];
            in->imgs[k] = NULL;
        }
        size_t last = nimgs;
        for (size_t k = first; spir_bc && k < last && ok; k++) {
            if (spv_self_contained_fnptrs(imgs[k])) {
                sxp_error(in->path, SXP_NONE,
                          "--spir-bc: image %zu (kernel '%s'%s) calls functions through pointers (C++ virtual "
                          "functions%s) in one program, and no OpenCL driver that takes SPIR bitcode is known to "
                          "run that: PoCL 3.1 aborts the whole process at its first launch. Leave out --spir-bc%s.",
                          k - first, imgs[k]->nentries ? imgs[k]->entries[0] : "?",
                          imgs[k]->nentries > 1 ? " and others" : "",
                          opt.aot ? " kept with the kernels by --aot-aspects" : "",
                          opt.aot ? ", or --aot-aspects (the JIT flow's set images are refused at launch where a "
                                    "driver cannot link them)" : "");
                ok = false;
                break;
            }
            sxp_image *v = spir_bc_variant(tool, imgs[k]);
            if (!v) {
                ok = false;
                break;
            }
            sxp_grow(&imgs, &imgs_cap, nimgs, sizeof *imgs);
            imgs[nimgs++] = v;
        }
        for (size_t k = 0; k < in->nvariants && ok; k++) {
            const variant *va = &in->variants[k];
            if (!strcmp(va->what, "host") && !va->vf_set)
                sxp_native_check_host_locals(&in->mod, va->path);
            /* The SPIR-V images this variant goes with: the set's for
             * --host-vf, else every kernel image (one unless split). */
            bool found = false;
            size_t nkimg = 0;
            for (size_t j = first; j < last; j++)
                nkimg += imgs[j]->vf_set == NULL && imgs[j]->format == SX_BINARY_FORMAT_SPIRV;
            for (size_t j = first; j < last && ok; j++) {
                const sxp_image *spv = imgs[j];
                if (va->vf_set ? !spv->vf_set || strcmp(spv->vf_set, va->vf_set) || spv->vf_dummy != va->vf_dummy
                               : spv->vf_set != NULL)
                    continue;
                /* A split input with several kernel images: a host object
                 * goes with those whose kernels it all defines (a producer
                 * may build one per image, or one for all). */
                if (!va->vf_set && nkimg > 1 && !strcmp(va->what, "host") && !host_defines_all(va->path, spv))
                    continue;
                found = true;
                sxp_image *v = make_variant(in, va, spv, !in->split);
                if (!v) {
                    ok = false;
                    break;
                }
                sxp_grow(&imgs, &imgs_cap, nimgs, sizeof *imgs);
                imgs[nimgs++] = v;
            }
            if (ok && !found) {
                if (va->vf_set)
                    sxp_error(va->path, SXP_NONE, "%s: %s has no %simage of virtual-function set '%s'",
                              va->vf_dummy ? "--host-vf-dummy" : "--host-vf", in->path, va->vf_dummy ? "dummy " : "",
                              va->vf_set);
                else
                    sxp_error(va->path, SXP_NONE, "defines the kernels of none of the kernel images of %s", in->path);
                ok = false;
            }
        }
        /* The native variants from the processed SPIR-V, unless the user
         * gave host objects for this input (the old flow). */
        bool has_host = false;
        for (size_t k = 0; k < in->nvariants; k++)
            has_host |= !strcmp(in->variants[k].what, "host");
        for (size_t k = first; native != SXP_NATIVE_OFF && !has_host && k < last && ok; k++) {
            if (imgs[k]->format != SX_BINARY_FORMAT_SPIRV)
                continue;
            sxp_image *v = sxp_native_variant(&ntools, imgs[k], native == SXP_NATIVE_ON);
            if (!v && native == SXP_NATIVE_ON) {
                ok = false;
                break;
            }
            if (!v)
                continue;
            sxp_grow(&imgs, &imgs_cap, nimgs, sizeof *imgs);
            imgs[nimgs++] = v;
        }
        /* The PTX variants likewise, unless PTX or a cubin was given. */
        bool has_gpu = false;
        for (size_t k = 0; k < in->nvariants; k++)
            has_gpu |= !strcmp(in->variants[k].what, "ptx") || !strcmp(in->variants[k].what, "cubin");
        for (size_t k = first; ptxmode != SXP_PTX_OFF && !has_gpu && k < last && ok; k++) {
            if (imgs[k]->format != SX_BINARY_FORMAT_SPIRV)
                continue;
            sxp_image *v = sxp_ptx_variant(&ptools, imgs[k], ptxmode == SXP_PTX_ON);
            if (!v && ptxmode == SXP_PTX_ON) {
                ok = false;
                break;
            }
            if (!v)
                continue;
            sxp_grow(&imgs, &imgs_cap, nimgs, sizeof *imgs);
            imgs[nimgs++] = v;
        }
    }
    for (size_t i = 0; i < nman && ok; i++) {
        sxp_image **mi = NULL;
        size_t mn = 0;
        ok = sxp_manifest_load(manifests[i], NULL, &mi, &mn);
        for (size_t k = 0; k < mn; k++) {
            sxp_grow(&imgs, &imgs_cap, nimgs, sizeof *imgs);
            imgs[nimgs++] = mi[k];
        }
        free(mi);
    }
    if (ok && werror && sxp_num_warnings) {
        sxp_error(NULL, SXP_NONE, "%u warning%s treated as errors (--werror)", sxp_num_warnings,
                  sxp_num_warnings == 1 ? "" : "s");
        ok = false;
    }
    if (ok && nimgs > UINT16_MAX) {
        sxp_error(NULL, SXP_NONE, "%zu images: at most %u fit one descriptor", nimgs, UINT16_MAX);
        ok = false;
    }

    sxp_buf file = {0}, csrc = {0};
    sx_device_binaries *desc = NULL;
    if (ok) {
        sxp_image_file_write(imgs, nimgs, &file);
        /* Read back with the runtime's own parser: what we write must load. */
        sx_result r = sxi_image_file_parse(file.data, file.len, &desc);
        if (r) {
            sxp_error(output, SXP_NONE, "internal error: the image file does not parse back: %s", sx_last_error());
            ok = false;
        }
    }
    char *pfx = NULL;
    if (ok && emit_c) {
        pfx = prefix ? sxp_xstrdup(prefix) : default_prefix(emit_c);
        ok = sxp_emit_c(desc, pfx, &csrc);
    }
    if (ok && emit_prop)
        ok = write_prop_files(emit_prop, desc);
    if (ok && output)
        ok = sxp_write_file_atomic(output, file.data, file.len);
    if (ok && emit_c) {
        ok = sxp_write_file_atomic(emit_c, csrc.data, csrc.len);
        if (!ok && output)
            unlink(output);  /* all or nothing */
    }
    if (ok)
        rc = 0;

    free(pfx);
    if (desc)
        sxi_image_file_free(desc);
    sxp_buf_free(&file);
    sxp_buf_free(&csrc);
    for (size_t i = 0; i < nimgs; i++)
        sxp_image_free(imgs[i]);
    free(imgs);
    free_inputs(ins, nins);
    free(manifests);
    free(opt.aot_aspects);
    return rc;
}
