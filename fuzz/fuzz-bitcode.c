/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fuzz-bitcode.c: fuzz target for the OpenCL adapter's LLVM bitcode reader
 * (adapters/opencl/bitcode.c: the undefined program-scope variable check
 * run on every SPIR module before Oclgrind sees it). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

int sxo_bitcode_undefined_variable(const void *data, size_t size, char *name, size_t name_size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char name[600];
    int r = sxo_bitcode_undefined_variable(data, size, name, sizeof(name));
    if (r == 1 && strlen(name) >= sizeof(name))
        __builtin_trap(); /* the name is always NUL-terminated in its buffer */
    return 0;
}
