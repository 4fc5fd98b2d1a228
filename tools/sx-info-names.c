/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-info-names.c: the names sx-info prints (and writes in its JSON) for
 * backends, device types, aspects and image kinds. */
#include <sycl-ext/sx.h>

#include "sx-info-names.h"

const char *backend_name(sx_backend b)
{
    const char *n[] = {"unknown", "native", "opencl", "cuda", "level_zero", "other"};
    return b < sizeof(n) / sizeof(n[0]) ? n[b] : "?";
}

const char *type_name(sx_device_type t)
{
    return t == SX_DEVICE_TYPE_CPU ? "cpu" : t == SX_DEVICE_TYPE_GPU ? "gpu" : t == SX_DEVICE_TYPE_ACCELERATOR ? "acc" : "custom";
}

const char *aspect_name(unsigned a)
{
    switch (a) {
    case SX_ASPECT_CPU: return "cpu";
    case SX_ASPECT_GPU: return "gpu";
    case SX_ASPECT_ACCELERATOR: return "accelerator";
    case SX_ASPECT_CUSTOM: return "custom";
    case SX_ASPECT_FP16: return "fp16";
    case SX_ASPECT_FP64: return "fp64";
    case SX_ASPECT_INT64_BASE_ATOMICS: return "int64_base_atomics";
    case SX_ASPECT_INT64_EXTENDED_ATOMICS: return "int64_extended_atomics";
    case SX_ASPECT_IMAGE: return "image";
    case SX_ASPECT_ONLINE_COMPILER: return "online_compiler";
    case SX_ASPECT_ONLINE_LINKER: return "online_linker";
    case SX_ASPECT_QUEUE_PROFILING: return "queue_profiling";
    case SX_ASPECT_USM_DEVICE_ALLOCATIONS: return "usm_device_allocations";
    case SX_ASPECT_USM_HOST_ALLOCATIONS: return "usm_host_allocations";
    case SX_ASPECT_USM_SHARED_ALLOCATIONS: return "usm_shared_allocations";
    case SX_ASPECT_USM_SYSTEM_ALLOCATIONS: return "usm_system_allocations";
    case SX_ASPECT_USM_ATOMIC_HOST_ALLOCATIONS: return "usm_atomic_host_allocations";
    case SX_ASPECT_USM_ATOMIC_SHARED_ALLOCATIONS: return "usm_atomic_shared_allocations";
    case SX_ASPECT_ATOMIC64: return "atomic64";
    default: return NULL;
    }
}

const char *kind_name(sx_image_kind k)
{
    const char *n[] = {"unknown", "spirv", "spir", "ptx", "cubin", "host-elf", "native"};
    return k < sizeof(n) / sizeof(n[0]) ? n[k] : "?";
}
