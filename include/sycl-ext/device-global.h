/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/** @file sycl-ext/device-global.h
 * @brief define a device_global's host object and
 * register it from a constructor (unregister from a destructor), as DPC++'s
 * integration footer does. At file scope:
 *
 *   SX_DEVICE_GLOBAL(int, counter, "counter_uid", SX_HOST_ACCESS_READ_WRITE);
 *   SX_DEVICE_GLOBAL_INIT(float, scale, "scale_uid", SX_HOST_ACCESS_READ, 2.5f);
 *   SX_DEVICE_GLOBAL_IMAGE_SCOPE(int, tile, "tile_uid", SX_HOST_ACCESS_READ_WRITE);
 *
 * then pass &counter (etc.) to sx_queue_device_global_*. A constructor
 * cannot report: a failed registration makes the first copy fail with
 * SX_ERROR_INVALID_GLOBAL_NAME, and SX_LOG=warn says why. */
#ifndef SYCL_EXT_DEVICE_GLOBAL_H
#define SYCL_EXT_DEVICE_GLOBAL_H

#include <sycl-ext/sx.h>

/** Internal: pastes two tokens (SX_DG_CONCAT expands its arguments first). */
#define SX_DG_CONCAT_(a, b) a##b
/** Internal: pastes two tokens after expanding them. */
#define SX_DG_CONCAT(a, b) SX_DG_CONCAT_(a, b)

/** Internal: the constructor that registers `name` (sx_device_global_add)
 * and the destructor that removes it; the other macros end with it. */
#define SX_DEVICE_GLOBAL_REGISTER_(name, uid, size, flags, access)                              \
    __attribute__((constructor)) static void SX_DG_CONCAT(sx_dg_add_, name)(void)                \
    {                                                                                           \
        (void)sx_device_global_add(&name, uid, size, flags, access);                            \
    }                                                                                           \
    __attribute__((destructor)) static void SX_DG_CONCAT(sx_dg_remove_, name)(void)              \
    {                                                                                           \
        (void)sx_device_global_remove(&name);                                                   \
    }                                                                                           \
    typedef int SX_DG_CONCAT(sx_dg_semicolon_, name)

/** An ordinary device_global<T>: { void *usm; T initial value }. */
#define SX_DEVICE_GLOBAL_INIT(T, name, uid, access, ...)                                        \
    static struct { void *usm; __typeof__(T) value; } name = {0, __VA_ARGS__};                              \
    SX_DEVICE_GLOBAL_REGISTER_(name, uid, sizeof(T), 0, access)
/** An ordinary device_global<T>, zero-initialised: { void *usm; T value }. */
#define SX_DEVICE_GLOBAL(T, name, uid, access)                                                  \
    static struct { void *usm; __typeof__(T) value; } name;                                                 \
    SX_DEVICE_GLOBAL_REGISTER_(name, uid, sizeof(T), 0, access)
/** device_global<T, device_image_scope>: { T value }. */
#define SX_DEVICE_GLOBAL_IMAGE_SCOPE(T, name, uid, access)                                      \
    static struct { __typeof__(T) value; } name;                                                            \
    SX_DEVICE_GLOBAL_REGISTER_(name, uid, sizeof(T), SX_DEVICE_GLOBAL_IMAGE_SCOPE, access)

#endif
