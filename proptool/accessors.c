/* accessors.c: device-global accessor kernels (issue 5), for backends with
 * no way to reach a program variable by name. */
#include "config.h"

#include "proptool.h"

bool sxp_add_global_accessors(sxp_module *m, sxp_analysis *a)
{
    (void)a;
    sxp_error(m->path, SXP_NONE, "device-global accessor kernels are not implemented yet");
    return false;
}
