/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* fake-libsycl.c: stands in for DPC++'s libsycl.so in tests/wheels/bridge:
 * its __sycl_register_lib/__sycl_unregister_lib count the calls the bridge
 * passes on, and remember the order of descriptors. */
#include <stdint.h>

__attribute__((visibility("default"))) int fake_sycl_registered, fake_sycl_unregistered;
__attribute__((visibility("default"))) const void *fake_sycl_last;

__attribute__((visibility("default"))) void __sycl_register_lib(void *desc)
{
    fake_sycl_registered++;
    fake_sycl_last = desc;
}

__attribute__((visibility("default"))) void __sycl_unregister_lib(void *desc)
{
    fake_sycl_unregistered++;
    fake_sycl_last = desc;
}
