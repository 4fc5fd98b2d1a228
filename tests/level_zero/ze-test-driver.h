/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* ze-test-driver.h: internals shared by the files of the Level Zero TEST DRIVER. */
#ifndef ZE_TEST_DRIVER_H
#define ZE_TEST_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/* What the TEST DRIVER knows about one kernel parameter. */
typedef struct ztd_param {
    uint32_t size;   /* bytes zeKernelSetArgumentValue must pass (8 for pointers) */
    int local;       /* a Workgroup pointer: set with (size, NULL) */
} ztd_param;

typedef struct ztd_kernel_info {
    char *name;
    uint32_t num_params;
    ztd_param *params;
} ztd_kernel_info;

/* A program-scope variable: exported (has storage here) or imported. */
typedef struct ztd_global_info {
    char *name;            /* LinkageAttributes name */
    char *host_name;       /* HostAccessINTEL name, or NULL */
    size_t size;
    unsigned char *init;   /* size bytes of initial value (exports only) */
} ztd_global_info;

/* Everything the TEST DRIVER reads out of a module's bytes. */
typedef struct ztd_module_info {
    uint32_t num_kernels;
    ztd_kernel_info *kernels;
    uint32_t num_globals;            /* exported variables */
    ztd_global_info *globals;
    uint32_t num_func_exports;
    char **func_exports;
    uint32_t num_imports;            /* imported functions and variables (no built-ins) */
    char **imports;
    uint32_t num_import_vars;        /* the imported variables among them (init NULL) */
    ztd_global_info *import_vars;
} ztd_module_info;

/* Parse a SPIR-V module: OpEntryPoint names and parameters, exported
 * OpVariables with their sizes and initialisers, Import/Export linkage.
 * Returns 0, or -1 with a sentence in err. */
int ztd_spirv_parse(const void *data, size_t size, ztd_module_info *out, char *err,
                    size_t err_size);
void ztd_module_info_free(ztd_module_info *info);

#endif /* ZE_TEST_DRIVER_H */
