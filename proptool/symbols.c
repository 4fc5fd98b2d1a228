/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* symbols.c: DPC++'s rules on names: which kernel entries are free-function
 * kernels, and which functions are internals that never go into the
 * imported/exported symbol lists (sycl-post-link's canBeImportedFunction). */
#include "config.h"

#include <string.h>

#include "proptool.h"

#define FREE_FUNCTION_PREFIX "__sycl_kernel_"

/* The first source name of an Itanium-mangled name (`_Z3foo...`,
 * `_ZN3ns3foo...`, `_ZL3foo`, cv-qualified nested names), or NULL when
 * `name` is not mangled that way. *len gets its length. */
static const char *first_source_name(const char *name, size_t *len)
{
    if (strncmp(name, "_Z", 2) != 0)
        return NULL;
    const char *p = name + 2;
    if (*p == 'L')
        p++;
    if (*p == 'N') {
        p++;
        while (*p == 'r' || *p == 'V' || *p == 'K' || *p == 'R' || *p == 'O')
            p++;
    }
    if (*p < '1' || *p > '9')
        return NULL;
    size_t n = 0;
    while (*p >= '0' && *p <= '9') {
        n = n * 10 + (size_t)(*p++ - '0');
        if (n > 4096)
            return NULL;
    }
    if (strnlen(p, n) < n)
        return NULL;
    *len = n;
    return p;
}

bool sxp_free_function_name(const char *name)
{
    size_t plen = strlen(FREE_FUNCTION_PREFIX), n;
    if (!strncmp(name, FREE_FUNCTION_PREFIX, plen))
        return true;  /* extern "C", or a name given as is */
    /* C++: the prefix goes into the function's name or, in a namespace,
     * the outermost namespace's (_Z18__sycl_kernel_ff_3IiEv...,
     * _ZN28__sycl_kernel_free_functions4ff_9EiPi). */
    const char *s = first_source_name(name, &n);
    return s && n >= plen && !strncmp(s, FREE_FUNCTION_PREFIX, plen);
}

bool sxp_internal_symbol(const char *name)
{
    size_t n;
    if (!strncmp(name, "__", 2))
        return true;  /* __itt_offload_wi_start_wrapper, __spirv_*, ... */
    const char *s = first_source_name(name, &n);
    return s && n >= 2 && s[0] == '_' && s[1] == '_';  /* _Z8__insidev */
}
