/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-info-names.h: names of backends, device types, aspects and image kinds. */
#ifndef SX_INFO_NAMES_H
#define SX_INFO_NAMES_H

#include <sycl-ext/sx.h>

const char *backend_name(sx_backend b);
const char *type_name(sx_device_type t);
const char *aspect_name(unsigned a); /* NULL for an aspect without a name */
const char *kind_name(sx_image_kind k);

#endif
