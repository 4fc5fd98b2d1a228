/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* check-util.h: assertion helpers for Check suites: every failure prints
 * the result name and the library's last-error text. */
#ifndef SX_CHECK_UTIL_H
#define SX_CHECK_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include <sycl-ext/sx.h>

#define CK_OK(call)                                                                          \
    do {                                                                                     \
        sx_result r_ = (call);                                                               \
        ck_assert_msg(r_ == SX_SUCCESS, "%s -> %s: %s", #call, sx_result_name(r_), sx_last_error()); \
    } while (0)

#define CK_ERR(call, want)                                                                   \
    do {                                                                                     \
        sx_result r_ = (call);                                                               \
        ck_assert_msg(r_ == (want), "%s -> %s (want %s): %s", #call, sx_result_name(r_),     \
                      sx_result_name(want), sx_last_error());                                \
    } while (0)

/* The last error mentions `text`. */
#define CK_MSG_HAS(text)                                                                     \
    ck_assert_msg(strstr(sx_last_error(), (text)) != NULL, "last error '%s' does not mention '%s'", \
                  sx_last_error(), (text))

/* Path of a file in the build tree (SX_TEST_BUILDDIR, set by make check). */
static inline const char *sxt_build_path(const char *rel)
{
    static char buf[4][4096];
    static int i;
    const char *b = getenv("SX_TEST_BUILDDIR");
    char *out = buf[i++ % 4];
    snprintf(out, sizeof(buf[0]), "%s/%s", b ? b : ".", rel);
    return out;
}

/* A suite runner: one binary per suite, forked tests. */
#define SXT_MAIN(suite_fn)                                                                   \
    int main(void)                                                                           \
    {                                                                                        \
        SRunner *sr = srunner_create(suite_fn());                                            \
        srunner_set_fork_status(sr, CK_FORK);                                                \
        srunner_run_all(sr, CK_NORMAL);                                                      \
        int failed = srunner_ntests_failed(sr);                                              \
        srunner_free(sr);                                                                    \
        return failed ? EXIT_FAILURE : EXIT_SUCCESS;                                         \
    }

#endif
