/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* glue.c: the host side of a shared object that carries images: its
 * device global's host object (device-global.h registers it from a
 * constructor) and exported getters for the tests. Built with -DK=abi_b
 * into libabi-b.so (linked) and -DK=abi_c into the abi-c.so plugin
 * (dlopen'd); the generated registration C is linked beside it. */
#include <sycl-ext/device-global.h>

#ifndef K
#define K abi_b
#endif
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define STR_(x) #x
#define STR(x) STR_(x)
#define DG_HOST CAT(K, _dg_host)
#define EXPORT __attribute__((visibility("default")))

SX_DEVICE_GLOBAL_IMAGE_SCOPE(int, DG_HOST, STR(CAT(K, _dg)), SX_HOST_ACCESS_READ_WRITE);

sx_result CAT(K, _registration_result)(void);

EXPORT const void *CAT(K, _dg_object)(void);
EXPORT const void *CAT(K, _dg_object)(void)
{
    return &DG_HOST;
}

EXPORT sx_result CAT(K, _result)(void);
EXPORT sx_result CAT(K, _result)(void)
{
    return CAT(K, _registration_result)();
}
