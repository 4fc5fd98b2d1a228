/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* env.c: the one place the core reads the environment (secure_getenv, so
 * setuid programs ignore it; or nothing when the application asks). */
#include <stdlib.h>

#include "sx-internal.h"

static _Atomic bool env_ignored;

void sxi_env_ignore(bool ignore)
{
    atomic_store(&env_ignored, ignore);
}

const char *sxi_getenv(const char *name)
{
    if (atomic_load(&env_ignored))
        return NULL;
#ifdef HAVE_SECURE_GETENV
    return secure_getenv(name);
#else
    return getenv(name);
#endif
}
