/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* annot.c: UserSemantic annotation strings: "key", "key=value", several joined by ';'. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
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

bool sxp_annot_lax;

/* Edit distance, bounded (keys are short): for "did you mean". */
static unsigned distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 40 || lb > 40)
        return 99;
    unsigned row[41];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned diag = row[0];
        row[0] = (unsigned)i;
        for (size_t j = 1; j <= lb; j++) {
            unsigned up = row[j];
            unsigned best = diag + (a[i - 1] != b[j - 1]);
            if (row[j] + 1 < best)
                best = row[j] + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The known key nearest `key` (at most 3 edits away), or NULL. */
static const char *nearest(const char *key)
{
    const char *best = NULL;
    unsigned bd = 4;
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        unsigned d = distance(key, keys[i].key);
        if (d < bd) {
            bd = d;
            best = keys[i].key;
        }
    }
    return best;
}

/* One diagnostic per (file, word, text): a module read twice (the native
 * variant reads the split modules again) says it once. */
static bool first_time(const char *file, uint32_t word, const char *text)
{
    static char **seen;
    static size_t nseen;
    char *k = NULL;
    if (asprintf(&k, "%s:%u:%s", file ? file : "", word, text) < 0)
        return true;
    for (size_t i = 0; i < nseen; i++)
        if (!strcmp(seen[i], k)) {
            free(k);
            return false;
        }
    seen = sxp_xrealloc(seen, (nseen + 1) * sizeof *seen);
    seen[nseen++] = k;
    return true;
}

bool sxp_annot_problem(const char *file, uint32_t word, const char *fmt, ...)
{
    char *msg = NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    const char *text = msg ? msg : fmt;
    if (first_time(file, word, text)) {
        if (sxp_annot_lax)
            sxp_warn(file, word, "%s (ignored: --lax-annotations)", text);
        else
            sxp_error(file, word, "%s (--lax-annotations makes this a warning, for producers with keys of their own)",
                      text);
    }
    free(msg);
    return sxp_annot_lax;
}

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
            if (!sxp_annot_key_where(key)) {
                const char *near = nearest(key);
                char hint[96] = "";
                if (near)
                    snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
                if (!sxp_annot_problem(m->path, word, "unknown annotation key '%s' in \"%s\"%s", key, text, hint))
                    ok = false;
            }
            *list = sxp_xrealloc(*list, (*n + 1) * sizeof **list);
            (*list)[(*n)++] = (sxp_annot){key, value, word};
        }
        p = semi ? semi + 1 : end;
    }
    return ok;
}
