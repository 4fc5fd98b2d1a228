/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* demangle.h: OpenCL C names back from clang's Itanium mangling (demangle.c). */
#ifndef SXN_DEMANGLE_H
#define SXN_DEMANGLE_H

#include <stddef.h>

/* Write "clz(int4)" for "_Z3clzDv4_i" into out (size bytes). Returns the
 * length written, or 0 when the name is not one this subset understands
 * (then show the raw symbol). */
size_t sxn_demangle(const char *mangled, char *out, size_t size);

#endif
