/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* manifest.c: images described by a small text manifest (variants with no
 * SPIR-V companion); the syntax is in doc/image-format.md and proptool(1). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proptool.h"

#define MAX_TOKENS 4096

typedef struct mstate {
    const char *path;
    char *dir;
    uint32_t line;
    sxp_image *img;
    sxp_kernel *kernel;   /* the kernel `param` lines add to */
    sxp_kernel *kernels;
    size_t nkernels;
    uint32_t *aspects;
    size_t naspects;
} mstate;

/* Split a line into words; "..." quotes (with \" and \\) keep spaces. */
static int tokenize(mstate *st, char *line, char **tok)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p || *p == '#')
            return n;
        if (n == MAX_TOKENS) {
            sxp_error(st->path, SXP_NONE, "line %u: too many words", st->line);
            return -1;
        }
        if (*p == '"') {
            char *w = ++p, *o = p;
            while (*p && *p != '"') {
                if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                    p++;
                *o++ = *p++;
            }
            if (*p != '"') {
                sxp_error(st->path, SXP_NONE, "line %u: unterminated quote", st->line);
                return -1;
            }
            p++;
            *o = 0;
            tok[n++] = w;
        } else {
            tok[n++] = p;
            while (*p && *p != ' ' && *p != '\t')
                p++;
            if (*p)
                *p++ = 0;
        }
    }
}

static bool num(mstate *st, const char *s, uint32_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (!*s || *end || errno || x > UINT32_MAX || *s == '-') {
        sxp_error(st->path, SXP_NONE, "line %u: '%s' is not a number", st->line, s);
        return false;
    }
    *v = (uint32_t)x;
    return true;
}

static bool finish_image(mstate *st, sxp_image ***imgs, size_t *n)
{
    if (!st->img)
        return true;
    sxp_image *img = st->img;
    for (size_t i = 0; i < st->nkernels; i++) {
        sxp_kernel *k = &st->kernels[i];
        k->num_source_params = k->nparams;
        sxp_image_add_entry(img, k->name);
        sxp_buf b = {0};
        sxp_kernel_encode(k, &b);
        sxp_set_bytes(sxp_image_set(img, SX_PROP_SET_KERNEL_SIGNATURES), k->name, b.data, b.len);
        sxp_buf_free(&b);
        sxp_set_bits(sxp_image_set(img, SX_PROP_SET_KERNEL_PARAM_OPT), k->name, NULL, 0);
        sxp_kernel_free(k);
    }
    free(st->kernels);
    st->kernels = NULL;
    st->nkernels = 0;
    st->kernel = NULL;
    if (st->naspects) {
        uint8_t *v = sxp_xmalloc(st->naspects * 4);
        for (size_t i = 0; i < st->naspects; i++)
            for (int j = 0; j < 4; j++)
                v[i * 4 + (size_t)j] = (uint8_t)(st->aspects[i] >> (8 * j));
        sxp_set_bytes(sxp_image_set(img, SX_PROP_SET_DEVICE_REQUIREMENTS), "aspects", v, st->naspects * 4);
        free(v);
    }
    free(st->aspects);
    st->aspects = NULL;
    st->naspects = 0;
    sxp_vf_add_uses(img);
    sxp_image_sort(img);
    *imgs = sxp_xrealloc(*imgs, (*n + 1) * sizeof **imgs);
    (*imgs)[(*n)++] = img;
    st->img = NULL;
    return true;
}

static const struct {
    const char *kind, *target;
    uint8_t format;
} kinds[] = {
    {"spirv", SX_TARGET_SPIRV64, SX_BINARY_FORMAT_SPIRV},
    {"spir-bc", SX_TARGET_SPIRV64, SX_BINARY_FORMAT_LLVMIR_BITCODE},
    {"host", SX_TARGET_HOST, SX_BINARY_FORMAT_NATIVE},
    {"ptx", SX_TARGET_NVPTX64, SX_BINARY_FORMAT_NONE},
    {"cubin", SX_TARGET_NVPTX64, SX_BINARY_FORMAT_NATIVE},
};

static bool line_image(mstate *st, char **t, int n)
{
    if (n != 3) {
        sxp_error(st->path, SXP_NONE, "line %u: image KIND FILE", st->line);
        return false;
    }
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!strcmp(kinds[i].kind, t[1])) {
            char *file = t[2][0] == '/' ? sxp_xstrdup(t[2]) : sxp_xasprintf("%s%s", st->dir, t[2]);
            size_t size;
            uint8_t *d = sxp_read_file(file, &size);
            if (!d) {
                free(file);
                return false;
            }
            if (!size) {
                sxp_error(file, SXP_NONE, "empty image (from %s line %u)", st->path, st->line);
                free(file);
                free(d);
                return false;
            }
            st->img = sxp_image_new(file, kinds[i].target, kinds[i].format);
            st->img->data = d;
            st->img->size = size;
            free(file);
            return true;
        }
    sxp_error(st->path, SXP_NONE, "line %u: unknown image kind '%s' (spirv, spir-bc, host, ptx, cubin)", st->line, t[1]);
    return false;
}

static bool line_param(mstate *st, char **t, int n)
{
    if (!st->kernel) {
        sxp_error(st->path, SXP_NONE, "line %u: param before any kernel", st->line);
        return false;
    }
    sxp_kernel *k = st->kernel;
    k->params = sxp_xrealloc(k->params, (k->nparams + 1) * sizeof *k->params);
    sxp_param *p = &k->params[k->nparams];
    memset(p, 0, sizeof *p);
    p->source_index = k->nparams;
    k->nparams++;
    if (n >= 2 && !strcmp(t[1], "value") && (n == 3 || n == 5)) {
        uint32_t sc = sxp_scalar_from_name(t[2]);
        if (sc == SXP_NONE || sc == SX_SCALAR_NONE) {
            sxp_error(st->path, SXP_NONE, "line %u: unknown scalar '%s'", st->line, t[2]);
            return false;
        }
        p->kind = SX_PARAM_VALUE;
        p->scalar = sc;
        p->size = p->align = sxp_scalar_size(sc);
        if (n == 5 && (!num(st, t[3], &p->size) || !num(st, t[4], &p->align)))
            return false;
        return true;
    }
    if (n == 3 && !strcmp(t[1], "pointer")) {
        static const char *const as[] = {"private", "global", "constant", "local", "generic"};
        for (uint32_t i = 0; i < 5; i++)
            if (!strcmp(as[i], t[2])) {
                p->kind = i == SX_ADDRESS_SPACE_LOCAL ? SX_PARAM_LOCAL : SX_PARAM_POINTER;
                p->address_space = i;
                p->size = p->align = 8;
                return true;
            }
        sxp_error(st->path, SXP_NONE, "line %u: unknown address space '%s'", st->line, t[2]);
        return false;
    }
    if (n == 2 && !strcmp(t[1], "local")) {
        p->kind = SX_PARAM_LOCAL;
        p->address_space = SX_ADDRESS_SPACE_LOCAL;
        p->size = p->align = 8;
        return true;
    }
    if (n >= 4 && !strcmp(t[1], "struct")) {
        p->kind = SX_PARAM_STRUCT;
        if (!num(st, t[2], &p->size) || !num(st, t[3], &p->align))
            return false;
        p->members = sxp_xcalloc((size_t)n, sizeof *p->members);
        for (int i = 4; i < n; i++) {
            char *at = strchr(t[i], '@');
            if (!at) {
                sxp_error(st->path, SXP_NONE, "line %u: struct member '%s' is not SCALAR@OFFSET", st->line, t[i]);
                return false;
            }
            *at = 0;
            uint32_t sc = sxp_scalar_from_name(t[i]), off;
            if (sc == SXP_NONE || sc == SX_SCALAR_NONE) {
                sxp_error(st->path, SXP_NONE, "line %u: unknown scalar '%s'", st->line, t[i]);
                return false;
            }
            if (!num(st, at + 1, &off))
                return false;
            if (off + sxp_scalar_size(sc) > p->size || off + sxp_scalar_size(sc) < off) {
                sxp_error(st->path, SXP_NONE, "line %u: member at %u overruns the struct's %u bytes", st->line, off,
                          p->size);
                return false;
            }
            p->members[p->nmembers++] = (sxp_member){sc, off};
        }
        return true;
    }
    sxp_error(st->path, SXP_NONE,
              "line %u: param value SCALAR [SIZE ALIGN] | pointer ADDRSPACE | local | struct SIZE ALIGN SCALAR@OFF...",
              st->line);
    return false;
}

static bool line_global(mstate *st, char **t, int n)
{
    if (n < 2) {
        sxp_error(st->path, SXP_NONE, "line %u: global UID size N [image-scope] [host-access A] [symbol S]", st->line);
        return false;
    }
    uint32_t size = 0, ha = 2;
    bool scope = false, have_size = false;
    const char *sym = NULL;
    for (int i = 2; i < n; i++) {
        if (!strcmp(t[i], "size") && i + 1 < n) {
            if (!num(st, t[++i], &size))
                return false;
            have_size = true;
        } else if (!strcmp(t[i], "image-scope")) {
            scope = true;
        } else if (!strcmp(t[i], "host-access") && i + 1 < n) {
            if (!sxp_host_access_parse(t[++i], &ha)) {
                sxp_error(st->path, SXP_NONE, "line %u: host-access read|write|read_write|none", st->line);
                return false;
            }
        } else if (!strcmp(t[i], "symbol") && i + 1 < n) {
            sym = t[++i];
        } else {
            sxp_error(st->path, SXP_NONE, "line %u: unexpected '%s' in a global line", st->line, t[i]);
            return false;
        }
    }
    if (!have_size || !size) {
        sxp_error(st->path, SXP_NONE, "line %u: global '%s' needs size N (N > 0)", st->line, t[1]);
        return false;
    }
    uint8_t v[8];
    for (int j = 0; j < 4; j++) {
        v[j] = (uint8_t)(size >> (8 * j));
        v[4 + j] = (uint8_t)((scope ? 1u : 0u) >> (8 * j));
    }
    sxp_set_bytes(sxp_image_set(st->img, SX_PROP_SET_DEVICE_GLOBALS), t[1], v, 8);
    sxp_set_u32(sxp_image_set(st->img, SX_PROP_SET_HOST_ACCESS), t[1], ha);
    if (sym) {
        char *name = sxp_xasprintf("%s@global_id_mapping", t[1]);
        sxp_set_bytes_str(sxp_image_set(st->img, SX_PROP_SET_PROGRAM_METADATA), name, sym, false);
        free(name);
    }
    return true;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool line_property(mstate *st, char **t, int n)
{
    if (n < 5) {
        sxp_error(st->path, SXP_NONE, "line %u: property SET NAME uint32 N | string TEXT | bytes HEX...", st->line);
        return false;
    }
    sxp_propset *s = sxp_image_set(st->img, t[1]);
    if (!strcmp(t[3], "uint32") && n == 5) {
        uint32_t v;
        if (!num(st, t[4], &v))
            return false;
        sxp_set_u32(s, t[2], v);
        return true;
    }
    if (!strcmp(t[3], "string") && n == 5) {
        sxp_set_string(s, t[2], t[4]);
        return true;
    }
    if (!strcmp(t[3], "bytes")) {
        sxp_buf b = {0};
        for (int i = 4; i < n; i++) {
            size_t len = strlen(t[i]);
            if (len % 2) {
                sxp_error(st->path, SXP_NONE, "line %u: odd number of hex digits in '%s'", st->line, t[i]);
                sxp_buf_free(&b);
                return false;
            }
            for (size_t j = 0; j < len; j += 2) {
                int hi = hexval(t[i][j]), lo = hexval(t[i][j + 1]);
                if (hi < 0 || lo < 0) {
                    sxp_error(st->path, SXP_NONE, "line %u: '%s' is not hex", st->line, t[i]);
                    sxp_buf_free(&b);
                    return false;
                }
                sxp_buf_u8(&b, (uint8_t)(hi << 4 | lo));
            }
        }
        sxp_set_bytes(s, t[2], b.data, b.len);
        sxp_buf_free(&b);
        return true;
    }
    sxp_error(st->path, SXP_NONE, "line %u: property type must be uint32, string or bytes", st->line);
    return false;
}

static bool line(mstate *st, char **t, int n, sxp_image ***imgs, size_t *nimgs)
{
    if (!strcmp(t[0], "image")) {
        finish_image(st, imgs, nimgs);
        return line_image(st, t, n);
    }
    if (!st->img) {
        sxp_error(st->path, SXP_NONE, "line %u: '%s' before any image line", st->line, t[0]);
        return false;
    }
    if (!strcmp(t[0], "target") && n == 2) {
        free(st->img->target);
        st->img->target = sxp_xstrdup(t[1]);
    } else if (!strcmp(t[0], "compile-options") && n == 2) {
        free(st->img->compile_options);
        st->img->compile_options = sxp_xstrdup(t[1]);
    } else if (!strcmp(t[0], "link-options") && n == 2) {
        free(st->img->link_options);
        st->img->link_options = sxp_xstrdup(t[1]);
    } else if (!strcmp(t[0], "kernel") && n >= 2) {
        if (!t[1][0]) {
            sxp_error(st->path, SXP_NONE, "line %u: a kernel needs a name", st->line);
            return false;
        }
        for (size_t i = 0; i < st->nkernels; i++)
            if (!strcmp(st->kernels[i].name, t[1])) {
                sxp_error(st->path, SXP_NONE, "line %u: duplicate kernel '%s'", st->line, t[1]);
                return false;
            }
        st->kernels = sxp_xrealloc(st->kernels, (st->nkernels + 1) * sizeof *st->kernels);
        sxp_kernel *k = &st->kernels[st->nkernels++];
        memset(k, 0, sizeof *k);
        k->name = sxp_xstrdup(t[1]);
        st->kernel = k;
        if (n == 2 || (n == 3 && !strcmp(t[2], "plain"))) {
            k->kind = SX_KERNEL_KIND_PLAIN;
        } else if (n == 3 && !strcmp(t[2], "single-task")) {
            k->kind = SX_KERNEL_KIND_SINGLE_TASK;
        } else if (n == 4 && !strcmp(t[2], "nd-range")) {
            k->kind = SX_KERNEL_KIND_ND_RANGE;
            if (!num(st, t[3], &k->dims) || k->dims < 1 || k->dims > 3) {
                sxp_error(st->path, SXP_NONE, "line %u: nd-range dimensions are 1, 2 or 3", st->line);
                return false;
            }
        } else {
            sxp_error(st->path, SXP_NONE, "line %u: kernel NAME [plain | single-task | nd-range DIMS]", st->line);
            return false;
        }
    } else if (!strcmp(t[0], "param")) {
        return line_param(st, t, n);
    } else if (!strcmp(t[0], "global")) {
        return line_global(st, t, n);
    } else if (!strcmp(t[0], "aspects")) {
        for (int i = 1; i < n; i++) {
            uint32_t a;
            if (!sxp_aspect_parse(t[i], &a)) {
                sxp_error(st->path, SXP_NONE, "line %u: unknown aspect '%s'", st->line, t[i]);
                return false;
            }
            st->aspects = sxp_xrealloc(st->aspects, (st->naspects + 1) * sizeof *st->aspects);
            st->aspects[st->naspects++] = a;
        }
    } else if ((!strcmp(t[0], "export") || !strcmp(t[0], "import")) && n == 2) {
        sxp_set_u32(sxp_image_set(st->img, t[0][0] == 'e' ? SX_PROP_SET_EXPORTED_SYMBOLS : SX_PROP_SET_IMPORTED_SYMBOLS),
                    t[1], 1);
    } else if ((!strcmp(t[0], "vf-set") || !strcmp(t[0], "vf-calls") || !strcmp(t[0], "vf-creates")) && n == 2) {
        /* Virtual-function sets (issue 6), encoded as DPC++ writes them:
         * BYTE_ARRAY strings without a trailing NUL. */
        bool one = !strcmp(t[0], "vf-set");
        for (const char *c = t[1]; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f || (one && *c == ',')) {
                sxp_error(st->path, SXP_NONE, "line %u: %s: '%s' is not %s", st->line, t[0], t[1],
                          one ? "one set name" : "a ,-separated list of set names");
                return false;
            }
        if (!t[1][0] || strstr(t[1], ",,") || t[1][0] == ',' || t[1][strlen(t[1]) - 1] == ',') {
            sxp_error(st->path, SXP_NONE, "line %u: %s: empty set name in '%s'", st->line, t[0], t[1]);
            return false;
        }
        const char *prop = one ? "virtual-functions-set"
                         : !strcmp(t[0], "vf-calls") ? "calls-virtual-functions-set" : "creates-virtual-functions-set";
        sxp_set_bytes_str(sxp_image_set(st->img, SX_PROP_SET_VIRTUAL_FUNCTIONS), prop, t[1], false);
        if (one) {
            free(st->img->vf_set);
            st->img->vf_set = sxp_xstrdup(t[1]);
        }
    } else if (!strcmp(t[0], "vf-dummy") && n == 1) {
        sxp_set_u32(sxp_image_set(st->img, SX_PROP_SET_VIRTUAL_FUNCTIONS), "dummy-image", 1);
        st->img->vf_dummy = true;
    } else if (!strcmp(t[0], "property")) {
        return line_property(st, t, n);
    } else {
        sxp_error(st->path, SXP_NONE, "line %u: unknown or malformed line '%s'", st->line, t[0]);
        return false;
    }
    return true;
}

bool sxp_manifest_load(const char *path, const sxp_image *companion, sxp_image ***imgs, size_t *n)
{
    (void)companion;
    size_t size;
    uint8_t *text = sxp_read_file(path, &size);
    if (!text)
        return false;
    mstate st = {.path = path};
    const char *slash = strrchr(path, '/');
    st.dir = slash ? sxp_xstrndup(path, (size_t)(slash - path + 1)) : sxp_xstrdup("");
    char **tok = sxp_xcalloc(MAX_TOKENS, sizeof *tok);
    bool ok = true, header = false;
    char *p = (char *)text, *end = p + size;
    if (memchr(text, 0, size)) {
        sxp_error(path, SXP_NONE, "a manifest is text: it contains a NUL byte");
        ok = false;
    }
    while (ok && p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *le = nl ? nl : end;
        st.line++;
        char save = *le;
        if (le < end)
            *le = 0;
        else {
            /* The last line has no newline: copy it so it is terminated. */
            char *copy = sxp_xstrndup(p, (size_t)(le - p));
            int nt = tokenize(&st, copy, tok);
            if (nt < 0)
                ok = false;
            else if (nt > 0) {
                if (!header) {
                    ok = nt == 2 && !strcmp(tok[0], "sximg-manifest") && !strcmp(tok[1], "1");
                    header = true;
                    if (!ok)
                        sxp_error(path, SXP_NONE, "line %u: the first line must be 'sximg-manifest 1'", st.line);
                } else
                    ok = line(&st, tok, nt, imgs, n);
            }
            free(copy);
            break;
        }
        if (le > p && le[-1] == '\r')
            le[-1] = 0;
        int nt = tokenize(&st, p, tok);
        if (nt < 0)
            ok = false;
        else if (nt > 0) {
            if (!header) {
                ok = nt == 2 && !strcmp(tok[0], "sximg-manifest") && !strcmp(tok[1], "1");
                header = true;
                if (!ok)
                    sxp_error(path, SXP_NONE, "line %u: the first line must be 'sximg-manifest 1'", st.line);
            } else
                ok = line(&st, tok, nt, imgs, n);
        }
        (void)save;
        p = le + 1;
    }
    if (ok && !header) {
        sxp_error(path, SXP_NONE, "empty manifest (the first line must be 'sximg-manifest 1')");
        ok = false;
    }
    if (ok)
        finish_image(&st, imgs, n);
    if (!ok) {
        sxp_image_free(st.img);
        for (size_t i = 0; i < st.nkernels; i++)
            sxp_kernel_free(&st.kernels[i]);
        free(st.kernels);
        free(st.aspects);
    }
    free(tok);
    free(st.dir);
    free(text);
    return ok;
}
