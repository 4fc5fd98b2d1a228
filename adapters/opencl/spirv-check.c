/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* spirv-check.c: SPIR-V that Intel's CPU OpenCL compiler crashes on
 * (a segfault in the calling process), refused before a driver sees it: a
 * module-scope variable of the Function storage class whose initializer
 * holds function pointers. That is a C++ vtable as clang-14 and
 * llvm-spirv 14 write it, and not valid SPIR-V for OpenCL anywhere;
 * proptool moves such vtables to CrossWorkgroup (proptool/vtables.c).
 * doc/intel-cpu-opencl.md has the reduced case. */
#include "opencl.h"

#include <stdlib.h>
#include <string.h>

enum {
    OP_NAME = 5,
    OP_FUNCTION = 54,
    OP_CONSTANT_COMPOSITE = 44,
    OP_SPEC_CONSTANT_COMPOSITE = 51,
    OP_SPEC_CONSTANT_OP = 52,
    OP_VARIABLE = 59,
    OP_CONSTANT_FUNCTION_POINTER_INTEL = 5600,
    STORAGE_FUNCTION = 7,
    /* Larger bounds are not checked (no module here comes near). */
    MAX_BOUND = 1u << 24,
};

static uint32_t word(const unsigned char *b, size_t i, int swapped)
{
    const unsigned char *p = b + 4 * i;
    return swapped ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* The OpName of `id` before word `end`, copied into buf ("" if none). */
static void name_of(const unsigned char *b, size_t end, int swapped, uint32_t id, char *buf,
                    size_t size)
{
    buf[0] = '\0';
    for (size_t i = 5; i < end;) {
        uint32_t w0 = word(b, i, swapped), wc = w0 >> 16;
        if (wc == 0 || i + wc > end)
            return;
        if ((w0 & 0xffff) == OP_NAME && wc >= 3 && word(b, i + 1, swapped) == id) {
            size_t n = 0;
            for (size_t k = i + 2; k < i + wc && n + 1 < size; k++)
                for (int c = 0; c < 4 && n + 1 < size; c++) {
                    char ch = (char)(word(b, k, swapped) >> (8 * c));
                    if (!ch) {
                        buf[n] = '\0';
                        return;
                    }
                    buf[n++] = ch;
                }
            buf[n] = '\0';
            return;
        }
        i += wc;
    }
}

sx_result sxo_spirv_check(const void *data, size_t size)
{
    const unsigned char *b = data;
    int swapped = b[0] == 0x07;
    size_t nwords = size / 4;
    uint32_t bound = word(b, 3, swapped);
    if (bound == 0 || bound > MAX_BOUND)
        return SX_SUCCESS;
    /* per id: holds a function pointer (directly or in a constant) */
    unsigned char *fp = calloc(bound, 1);
    if (!fp)
        return sxo_error(SX_ERROR_OUT_OF_HOST_MEMORY, "opencl: SPIR-V check of %zu bytes", size);
    sx_result rc = SX_SUCCESS;
    /* Module-scope definitions come before the first OpFunction, each
     * after what it uses: one pass. */
    for (size_t i = 5; i < nwords;) {
        uint32_t w0 = word(b, i, swapped), op = w0 & 0xffff, wc = w0 >> 16;
        if (wc == 0 || i + wc > nwords || op == OP_FUNCTION)
            break;
        uint32_t id = wc >= 3 ? word(b, i + 2, swapped) : 0;
        if (id < bound) {
            if (op == OP_CONSTANT_FUNCTION_POINTER_INTEL) {
                fp[id] = 1;
            } else if (op == OP_CONSTANT_COMPOSITE || op == OP_SPEC_CONSTANT_COMPOSITE ||
                       op == OP_SPEC_CONSTANT_OP) {
                for (uint32_t k = op == OP_SPEC_CONSTANT_OP ? 4 : 3; k < wc; k++) {
                    uint32_t x = word(b, i + k, swapped);
                    if (x < bound && fp[x])
                        fp[id] = 1;
                }
            } else if (op == OP_VARIABLE && wc >= 5 && word(b, i + 3, swapped) == STORAGE_FUNCTION) {
                uint32_t init = word(b, i + 4, swapped);
                if (init < bound && fp[init]) {
                    char name[128];
                    name_of(b, i, swapped, id, name, sizeof name);
                    rc = sxo_error(SX_ERROR_INVALID_BINARY,
                                   "opencl: SPIR-V module of %zu bytes: module-scope variable '%s' "
                                   "(%%%u, word %zu) holds function pointers in the Function "
                                   "storage class (a C++ vtable as clang-14 and llvm-spirv 14 "
                                   "write it): not valid SPIR-V for OpenCL, and Intel's CPU "
                                   "compiler crashes on it; refused (proptool moves vtables to "
                                   "CrossWorkgroup)",
                                   size, name[0] ? name : "?", id, i);
                    break;
                }
            }
        }
        i += wc;
    }
    free(fp);
    return rc;
}
