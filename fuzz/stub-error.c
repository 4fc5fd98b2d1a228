/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* stub-error.c: the few core error functions the fuzz targets need, so
 * they build without the whole core (fuzz builds only). */
#include "sx-internal.h"

#include <stdio.h>

static _Thread_local char msg[1024];

sx_result sxi_error(sx_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return code;
}

const char *sx_last_error(void)
{
    return msg;
}

const char *sx_result_name(sx_result r)
{
    static _Thread_local char b[32];
    snprintf(b, sizeof b, "result %d", (int)r);
    return b;
}
