/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* nt.h: helpers shared by the native adapter's test suites. */
#ifndef NT_H
#define NT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "../util/sxt.h"

/* The bytes of a test kernel image, or skip the whole binary (exit 77). */
static inline void *nt_kernel_bytes(const char *file, size_t *size)
{
    char *path = sxt_kernel_path(file);
    void *bytes = path ? sxt_read_file(path, size) : NULL;
    free(path);
    return bytes;
}

static inline void nt_require_kernels(void)
{
    static const char *files[] = {"native-basic.hso", "native-barrier.hso", "native-atomics.hso",
                                  "native-link-a.hso", "native-link-b.hso", "native-link-c.hso",
                                  "native-plain.hso"};
    for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *p = sxt_kernel_path(files[i]);
        if (!p) {
            printf("SKIP: test kernel %s was not built (no clang-14?)\n", files[i]);
            exit(77);
        }
        free(p);
    }
}

/* Is `name` in the comma-separated list NT_SKIP? */
static inline int nt_skipped(const char *name)
{
    const char *list = getenv("NT_SKIP");
    size_t n = strlen(name);
    while (list && *list) {
        size_t len = strcspn(list, ",");
        if (len == n && strncmp(list, name, n) == 0)
            return 1;
        list += len;
        if (*list == ',')
            list++;
    }
    return 0;
}

static inline int nt_run(Suite *s)
{
    SRunner *sr = srunner_create(s);
    if (!getenv("CK_FORK"))  /* CK_FORK=no in the environment, for debuggers */
        srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
