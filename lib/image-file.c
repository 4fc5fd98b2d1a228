/* image-file.c: placeholder until the proptool issue lands the format. */
#include "sx-internal.h"

sx_result sxi_image_file_parse(const void *data, size_t size, sx_device_binaries **out)
{
    return sxi_error(SX_ERROR_UNSUPPORTED_FEATURE, "image files are not readable yet (%zu bytes)", size);
}

void sxi_image_file_free(sx_device_binaries *desc)
{
}
