/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* undef.h: the undefined symbols of a native image, named for users (undef.c). */
#ifndef SXN_UNDEF_H
#define SXN_UNDEF_H

#include <stdbool.h>
#include <stddef.h>

/* Scan the image's dynamic symbols for undefined, non-weak ones that no
 * object of the process's global scope defines (builtins module, libc).
 * Returns how many, with *report a malloc'd list, one "\n  clz(int4)
 * [_Z3clzDv4_i]: <which kind>" line each (NULL when none); -1 when the
 * tables cannot be read (the ELF checks already passed, so: no memory).
 * *has_needed says whether the image names libraries of its own
 * (DT_NEEDED), which may define what is missing here. */
int sxn_undefined_report(const unsigned char *bytes, size_t size, bool *has_needed, char **report);

/* Is this symbol (mangled or not) an OpenCL C builtin function's? */
bool sxn_is_builtin_name(const char *symbol);

#endif
