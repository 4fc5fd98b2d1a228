/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* annot.c: UserSemantic annotation strings: "key", "key=value", several joined by ';'. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "proptool.h"

/* Every key proptool knows and where it may appear; doc/spirv-conventions.md
 * is the contract and lists the same keys. */
static const struct {
    const char *key;
    int where;
} keys[] = {
    {"sycl-unique-id", SXP_ON_VARIABLE},
    {"sycl-device-global-size", SXP_ON_VARIABLE},
    {"device_image_scope", SXP_ON_VARIABLE},
    {"sycl-device-image-scope", SXP_ON_VARIABLE},
    {"host_access", SXP_ON_VARIABLE},
    {"sycl-host-access", SXP_ON_VARIABLE},
    {"sycl-init-mode", SXP_ON_VARIABLE},
    {"sycl-implement-in-csr", SXP_ON_VARIABLE},
    {"indirectly-callable", SXP_ON_FUNCTION},
    {"calls-indirectly", SXP_ON_KERNEL},
    {"creates-indirectly", SXP_ON_KERNEL},
    {"sycl-call-if-on-device", SXP_ON_FUNCTION},
    {"sycl-call-if-on-host", SXP_ON_FUNCTION},
    {"sycl-nd-range-kernel", SXP_ON_KERNEL},
    {"sycl-single-task-kernel", SXP_ON_KERNEL},
    {"sycl-used-aspects", SXP_ON_KERNEL | SXP_ON_FUNCTION},
    {"sycl-kernel-omit-args", SXP_ON_KERNEL},
    {"sycl-module-id", SXP_ON_FUNCTION | SXP_ON_KERNEL},
    {"sycl-work-group-size", SXP_ON_KERNEL},
    {"sycl-work-group-scratch", SXP_ON_KERNEL},
};

int sxp_annot_key_where(const char *key)
{
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!strcmp(keys[i].key, key))
            return keys[i].where;
    return 0;
}

static void trim(const char **b, const char **e)
{
    while (*b < *e && (**b == ' ' || **b == '\t'))
        (*b)++;
    while (*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
        (*e)--;
}

bool sxp_annot_parse(const sxp_module *m, uint32_t word, const char *text, sxp_annot **list, uint32_t *n)
{
    const char *p = text;
    bool ok = true;
    while (*p) {
        const char *semi = strchr(p, ';');
        const char *end = semi ? semi : p + strlen(p);
        const char *eq = memchr(p, '=', (size_t)(end - p));
        const char *kb = p, *ke = eq ? eq : end;
        trim(&kb, &ke);
        if (kb == ke) {
            if (eq) {
                sxp_error(m->path, word, "annotation \"%s\": a value without a key", text);
                ok = false;
            }
        } else {
            char *key = sxp_xstrndup(kb, (size_t)(ke - kb));
            char *value = NULL;
            if (eq) {
                const char *vb = eq + 1, *ve = end;
                trim(&vb, &ve);
                value = sxp_xstrndup(vb, (size_t)(ve - vb));
            }
            if (!sxp_annot_key_where(key))
                sxp_warn(m->path, word, "unknown annotation key '%s' ignored", key);
            *list = sxp_xrealloc(*list, (*n + 1) * sizeof **list);
            (*list)[(*n)++] = (sxp_annot){key, value, word};
        }
        p = semi ? semi + 1 : end;
    }
    return ok;
}
