/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* demangle.c: turn the Itanium names clang gives OpenCL C functions back
 * into what a user wrote, for build errors: _Z3clzDv4_i -> clz(int4),
 * _Z5fractDv4_fPU8CLglobalS_ -> fract(float4, __global float4 *).
 * Only the subset OpenCL C uses: one plain function name, builtin types,
 * Dv<n>_ vectors, pointers with address-space (U8CLglobal, U3AS1) and cv
 * qualifiers, _Atomic, named types (9ocl_event) and substitutions S_, S<n>_. */
#include "demangle.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define MAX_SUBS 32
#define TYPE_LEN 128

typedef struct {
    const char *p;             /* next character to read */
    char subs[MAX_SUBS][TYPE_LEN];
    int nsubs;
    int depth;                 /* of nested types: bounded, the input is untrusted */
    bool bad;
} dm;

static void append(char *buf, const char *s)
{
    size_t l = strlen(buf);
    if (l + strlen(s) + 1 <= TYPE_LEN)
        memcpy(buf + l, s, strlen(s) + 1);
}

static void add_sub(dm *d, const char *t)
{
    if (d->nsubs < MAX_SUBS)
        snprintf(d->subs[d->nsubs++], TYPE_LEN, "%s", t);
}

static unsigned number(dm *d)
{
    unsigned n = 0;
    if (*d->p < '0' || *d->p > '9')
        d->bad = true;
    while (*d->p >= '0' && *d->p <= '9' && n < 100000)
        n = n * 10 + (unsigned)(*d->p++ - '0');
    return n;
}

static const char *builtin(char c)
{
    switch (c) {
    case 'v': return "void";
    case 'b': return "bool";
    case 'c': return "char";
    case 'a': return "char";
    case 'h': return "uchar";
    case 's': return "short";
    case 't': return "ushort";
    case 'i': return "int";
    case 'j': return "uint";
    case 'l': return "long";
    case 'm': return "ulong";
    case 'x': return "long";
    case 'y': return "ulong";
    case 'f': return "float";
    case 'd': return "double";
    default: return NULL;
    }
}

/* An address space qualifier's spelling in OpenCL C ("" for generic). */
static const char *space(const char *q, size_t n)
{
    static const struct { const char *m, *s; } t[] = {
        {"CLglobal", "__global"}, {"CLlocal", "__local"}, {"CLconstant", "__constant"},
        {"CLprivate", "__private"}, {"CLgeneric", ""}, {"AS1", "__global"}, {"AS3", "__local"},
        {"AS2", "__constant"}, {"AS4", ""}, {"AS0", "__private"}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
        if (strlen(t[i].m) == n && memcmp(t[i].m, q, n) == 0)
            return t[i].s;
    return NULL;
}

static void type(dm *d, char *out);

/* qualifiers then a type: "volatile __global int" */
static void qualified(dm *d, char *out)
{
    char quals[TYPE_LEN] = "";
    for (;;) {
        if (*d->p == 'U' && !(d->p[1] == '7' && strncmp(d->p + 2, "_Atomic", 7) == 0)) {
            d->p++;
            unsigned n = number(d);
            if (d->bad || strnlen(d->p, n) < n) {
                d->bad = true;
                return;
            }
            const char *s = space(d->p, n);
            d->p += n;
            if (s && *s) {
                append(quals, s);
                append(quals, " ");
            }
        } else if (*d->p == 'V') {
            d->p++;
            append(quals, "volatile ");
        } else if (*d->p == 'K') {
            d->p++;
            append(quals, "const ");
        } else if (*d->p == 'r') {
            d->p++;
            append(quals, "restrict ");
        } else {
            break;
        }
    }
    char inner[TYPE_LEN];
    type(d, inner);
    snprintf(out, TYPE_LEN, "%.64s%.63s", quals, inner);
    add_sub(d, out);
}

static void type_at(dm *d, char *out);
static void type(dm *d, char *out)
{
    out[0] = 0;
    if (++d->depth > 16)
        d->bad = true;
    else
        type_at(d, out);
    d->depth--;
}

static void type_at(dm *d, char *out)
{
    const char *b;
    if (d->bad)
        return;
    char c = *d->p;
    if (c == 0) {
        d->bad = true;
        return;
    }
    if ((b = builtin(c))) {
        d->p++;
        snprintf(out, TYPE_LEN, "%s", b);
        return;
    }
    if (c == 'D' && d->p[1] == 'h') {
        d->p += 2;
        snprintf(out, TYPE_LEN, "half");
        return;
    }
    if (c == 'D' && d->p[1] == 'v') {
        d->p += 2;
        unsigned n = number(d);
        if (*d->p++ != '_') {
            d->bad = true;
            return;
        }
        char e[TYPE_LEN];
        type(d, e);
        snprintf(out, TYPE_LEN, "%.100s%u", e, n);
        add_sub(d, out);
        return;
    }
    if (c == 'P') {
        d->p++;
        char t[TYPE_LEN];
        if (*d->p == 'U' || *d->p == 'V' || *d->p == 'K' || *d->p == 'r')
            qualified(d, t);
        else
            type(d, t);
        snprintf(out, TYPE_LEN, "%.120s *", t);
        add_sub(d, out);
        return;
    }
    if (c == 'U' && strncmp(d->p, "U7_Atomic", 9) == 0) {
        d->p += 9;
        char t[TYPE_LEN];
        type(d, t);
        snprintf(out, TYPE_LEN, "atomic_%.100s", t);
        add_sub(d, out);
        return;
    }
    if (c == 'U' || c == 'V' || c == 'K' || c == 'r') {
        qualified(d, out);
        return;
    }
    if (c == 'S') {
        d->p++;
        unsigned i = 0;
        if (*d->p != '_')
            i = number(d) + 1;
        if (*d->p++ != '_' || (int)i >= d->nsubs) {
            d->bad = true;
            return;
        }
        snprintf(out, TYPE_LEN, "%s", d->subs[i]);
        return;
    }
    if (c >= '1' && c <= '9') { /* a named type: 9ocl_event, 12memory_order */
        unsigned n = number(d);
        if (d->bad || strnlen(d->p, n) < n) {
            d->bad = true;
            return;
        }
        if (n == 9 && strncmp(d->p, "ocl_event", 9) == 0)
            snprintf(out, TYPE_LEN, "event_t");
        else if (n > 4 && strncmp(d->p, "ocl_", 4) == 0)
            snprintf(out, TYPE_LEN, "%.*s_t", (int)(n - 4 > 100 ? 100 : n - 4), d->p + 4);
        else
            snprintf(out, TYPE_LEN, "%.*s", (int)(n > 120 ? 120 : n), d->p);
        d->p += n;
        add_sub(d, out);
        return;
    }
    d->bad = true;
}

size_t sxn_demangle(const char *mangled, char *out, size_t size)
{
    if (!mangled || !out || size == 0 || strncmp(mangled, "_Z", 2) != 0)
        return 0;
    dm *d = &(dm){.p = mangled + 2};
    unsigned n = number(d);
    if (d->bad || n == 0 || strnlen(d->p, n) < n)
        return 0;
    const char *name = d->p;
    d->p += n;
    size_t len = (size_t)snprintf(out, size, "%.*s(", (int)n, name);
    bool first = true;
    while (*d->p && !d->bad) {
        char t[TYPE_LEN];
        type(d, t);
        if (d->bad)
            break;
        if (first && strcmp(t, "void") == 0 && *d->p == 0)
            break; /* f(void) is f() */
        if (len < size)
            len += (size_t)snprintf(out + len, size - len, "%s%s", first ? "" : ", ", t);
        first = false;
    }
    if (d->bad)
        return 0;
    if (len < size)
        len += (size_t)snprintf(out + len, size - len, ")");
    return len < size ? len : 0;
}
