/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* set42.h: the first-launch benchmarks' kernel and what each side does
 * before its clock starts (first-launch.c, first-launch-parts.c). */
#ifndef SX_BENCH_SET42_H
#define SX_BENCH_SET42_H

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <cuda.h>

#include <sycl-ext/binaries.h>
#include <sycl-ext/sx.h>

#define SET42_NAME "__sycl_kernel_set42"

/* What nvcc -ptx makes of `extern "C" __global__ void __sycl_kernel_set42(int *p) { *p = 42; }`. */
static const char set42_ptx[] = ".version 7.0\n"
                                ".target sm_52\n"
                                ".address_size 64\n"
                                ".visible .entry __sycl_kernel_set42(.param .u64 p)\n"
                                "{\n"
                                "  .reg .b32 %r<2>;\n"
                                "  .reg .b64 %rd<3>;\n"
                                "  ld.param.u64 %rd1, [p];\n"
                                "  cvta.to.global.u64 %rd2, %rd1;\n"
                                "  mov.u32 %r1, 42;\n"
                                "  st.global.u32 [%rd2], %r1;\n"
                                "  ret;\n"
                                "}\n";

/* The build tree's CUDA adapter ($SX_TEST_BUILDDIR, else here), unless
 * SX_ADAPTERS names one already. */
static inline void set42_adapter_env(void)
{
    const char *b = getenv("SX_TEST_BUILDDIR");
    if (!getenv("SX_ADAPTERS")) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/adapters/cuda/.libs/sx-adapter-cuda.so", b ? b : ".");
        setenv("SX_ADAPTERS", path, 1);
    }
}

/* A driver call that must succeed, in a function returning a number (-1 on failure). */
#define SET42_CU(call)                                                                  \
    do {                                                                                \
        CUresult r_ = (call);                                                           \
        if (r_ != CUDA_SUCCESS) {                                                       \
            fprintf(stderr, "set42: %s: CUresult %d\n", #call, (int)r_);                \
            return -1;                                                                  \
        }                                                                               \
    } while (0)

/* Resolve a driver entry by its real name from the dlopen'ed `cu`. */
#define SET42_SYM(cu, name, real) __typeof__(real) *name = (__typeof__(real) *)dlsym(cu, #real)

/* Raw side, before the clock: device 0's primary context, current, and a
 * device int. A CUresult, printed on failure. */
__attribute__((unused)) static CUresult set42_raw_setup(void *cu, CUdeviceptr *d)
{
    SET42_SYM(cu, init, cuInit);
    SET42_SYM(cu, dget, cuDeviceGet);
    SET42_SYM(cu, retain, cuDevicePrimaryCtxRetain);
    SET42_SYM(cu, setcur, cuCtxSetCurrent);
    SET42_SYM(cu, alloc, cuMemAlloc_v2);
    CUdevice dev;
    CUcontext ctx;
    CUresult r = init(0);
    if (r == CUDA_SUCCESS)
        r = dget(&dev, 0);
    if (r == CUDA_SUCCESS)
        r = retain(&ctx, dev);
    if (r == CUDA_SUCCESS)
        r = setcur(ctx);
    if (r == CUDA_SUCCESS)
        r = alloc(d, sizeof(int));
    if (r != CUDA_SUCCESS)
        fprintf(stderr, "set42: driver setup: CUresult %d\n", (int)r);
    return r;
}

/* Our side, before the clock: sx_init, the PTX registered as a one-image
 * program, the default device's context and queue, a device int.
 * SX_ERROR_DEVICE_NOT_FOUND without a device. */
__attribute__((unused)) static sx_result set42_sx_setup(sx_queue *q, int **d)
{
    static sx_offload_entry entry = {.name = (char *)SET42_NAME};
    static sx_device_binary bin;
    static sx_device_binaries desc;
    bin = (sx_device_binary){
        .version = SX_DEVICE_BINARY_VERSION,
        .kind = SX_OFFLOAD_KIND_SYCL,
        .format = SX_BINARY_FORMAT_NONE,
        .device_target_spec = SX_TARGET_NVPTX64,
        .binary_start = (const unsigned char *)set42_ptx,
        .binary_end = (const unsigned char *)set42_ptx + sizeof(set42_ptx) - 1,
        .entries_begin = &entry,
        .entries_end = &entry + 1,
    };
    desc = (sx_device_binaries){SX_DEVICE_BINARIES_VERSION, 1, &bin, NULL, NULL};
    sx_device dev;
    sx_context ctx;
    sx_result r = sx_init(0);
    if (r == SX_SUCCESS && (r = sx_device_get_default(&dev)) != SX_SUCCESS)
        return SX_ERROR_DEVICE_NOT_FOUND;
    if (r == SX_SUCCESS)
        r = sx_register_images(&desc);
    if (r == SX_SUCCESS)
        r = sx_context_create(1, &dev, &ctx);
    if (r == SX_SUCCESS)
        r = sx_queue_create(ctx, dev, SX_QUEUE_IN_ORDER, q);
    if (r == SX_SUCCESS)
        r = sx_usm_alloc(ctx, dev, SX_USM_TYPE_DEVICE, sizeof(int), 0, (void **)d);
    if (r != SX_SUCCESS)
        fprintf(stderr, "set42: setup: %s: %s\n", sx_result_name(r), sx_last_error());
    return r;
}

/* Ours, the part a first launch times: get the kernel, launch it on one
 * work-item, wait. */
__attribute__((unused)) static sx_result set42_sx_first_launch(sx_queue q, int *d)
{
    sx_kernel k;
    sx_arg arg = {SX_ARG_POINTER, 0, sizeof(void *), d};
    size_t one = 1;
    sx_result r = sx_kernel_get(SET42_NAME, &k);
    if (r == SX_SUCCESS)
        r = sx_queue_launch(q, k, 1, NULL, &one, &one, 1, &arg, 0, NULL, NULL);
    if (r == SX_SUCCESS)
        r = sx_queue_wait(q);
    return r;
}

#endif /* SX_BENCH_SET42_H */
