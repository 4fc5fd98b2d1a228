/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sycl-ext/device.h: the annotation strings of doc/spirv-conventions.md
 * written by macros, for device sources in OpenCL C and C++ for OpenCL, and
 * one declaration shared by the host code (C or C++) and the device source.
 * doc/device-header.md is the guide; in short:
 *
 *   // shared.h, included by main.c and by k.cl
 *   #include <sycl-ext/device.h>
 *   SX_SHARED_DEVICE_GLOBAL(int, counter, read_write);
 *   SX_SHARED_DEVICE_GLOBAL_IMAGE_SCOPE(int, tile, read);
 *   SX_SHARED_KERNEL(scale2d);
 *   SX_SHARED_VF_SET(shapes);
 *
 *   // k.cl (device)
 *   #include "shared.h"
 *   SX_ND_RANGE_KERNEL(2, scale2d, SX_P_CALLS_INDIRECTLY(shapes))
 *   (global float *p, struct params prm, local float *tmp) { *counter += 1; ... }
 *   SX_ND_RANGE_KERNEL(1, sum, SX_P_WORK_GROUP_SCRATCH)
 *   (global int *out, local int *scratch) { ... }   // scratch: the launch's size
 *
 *   // main.c (host)
 *   #include "shared.h"
 *   sx_kernel_get_free_function(SX_KERNEL_NAME(scale2d), &k);
 *   sx_queue_device_global_write(q, &counter, ...);
 *
 * Every name is written once: the unique id of a device global is its
 * name, a kernel's name is the one its definition gives, and on the host
 * SX_KERNEL_NAME(x) / SX_VF_SET_NAME(x) are constants the shared header
 * declares (a misspelt name does not compile).
 *
 * llvm-spirv 14 keeps only the first annotate attribute of a function or
 * variable, so a kernel's or function's keys are all written into one
 * string: the macros that take "..." take SX_P_* fragments, written one
 * after the other without commas. */
#ifndef SYCL_EXT_DEVICE_H
#define SYCL_EXT_DEVICE_H

#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_CPP_VERSION__) || defined(__OPENCL_VERSION__)
#define SX_DEVICE_CODE 1
#endif

#define SX_STR_(x) #x
#define SX_STR(x) SX_STR_(x)
#define SX_CAT_(a, b) a##b
#define SX_CAT(a, b) SX_CAT_(a, b)

/* ------------------------------------------------------------ fragments */
/* Each is a string ending in ';' (empty items are skipped by proptool).
 * Give several to one SX_ANNOTATE or to a kernel/function macro. */
#define SX_P_ND_RANGE(dims) "sycl-nd-range-kernel=" #dims ";"
#define SX_P_SINGLE_TASK "sycl-single-task-kernel;"
/* Required work-group size in SYCL order (slowest dimension first): 1 to 3. */
#define SX_P_WORK_GROUP_SIZE(...) "sycl-work-group-size=" #__VA_ARGS__ ";"
/* Aspects beyond what the capabilities say: names (fp64, fp16, atomic64, ...). */
#define SX_P_USES_ASPECTS(...) "sycl-used-aspects=" #__VA_ARGS__ ";"
/* Work-group scratch memory (sycl_ext_oneapi_work_group_scratch_memory):
 * the kernel's last parameter, a `local T *`, is what
 * get_work_group_scratch_memory() returns. The host sets no argument for
 * it: its size is the launch's sx_launch_properties.work_group_scratch_size
 * (proptool writes "SYCL/implicit local arg"). _ARG(index) names another
 * parameter (0 first). */
#define SX_P_WORK_GROUP_SCRATCH "sycl-work-group-scratch;"
#define SX_P_WORK_GROUP_SCRATCH_ARG(index) "sycl-work-group-scratch=" #index ";"
/* Virtual-function sets a kernel calls / creates objects of. */
#define SX_P_CALLS_INDIRECTLY(...) "calls-indirectly=" #__VA_ARGS__ ";"
#define SX_P_CREATES_INDIRECTLY(...) "creates-indirectly=" #__VA_ARGS__ ";"
/* The default set (DPC++'s void set, _ZTSv). */
#define SX_P_CALLS_INDIRECTLY_DEFAULT "calls-indirectly;"
#define SX_P_CREATES_INDIRECTLY_DEFAULT "creates-indirectly;"
/* A function that is a virtual function of `set`. */
#define SX_P_INDIRECTLY_CALLABLE(set) "indirectly-callable=" #set ";"
#define SX_P_INDIRECTLY_CALLABLE_DEFAULT "indirectly-callable;"
/* if_device (sycl_ext_oneapi_if_device). */
#define SX_P_CALL_IF_ON_HOST "sycl-call-if-on-host;"
#define SX_P_CALL_IF_ON_DEVICE "sycl-call-if-on-device;"
/* Device globals: access is read, write, read_write or none. */
#define SX_P_UNIQUE_ID(id) "sycl-unique-id=" #id ";"
#define SX_P_HOST_ACCESS(access) "host_access=" #access ";"
#define SX_P_DEVICE_IMAGE_SCOPE "device_image_scope;"
/* The size is the type's (proptool reads it from the SPIR-V type). */
#define SX_P_DEVICE_GLOBAL "sycl-device-global-size;"

/* One annotate attribute from fragments. */
#define SX_ANNOTATE(...) __attribute__((annotate("" __VA_ARGS__)))

#ifdef SX_DEVICE_CODE
/* ------------------------------------------------------------ device code */

/* Free-function kernels: SYCL's nd_range kernel of `dims` dimensions and
 * single_task kernel, named `name` on the host (sx_kernel_get_free_function).
 * The parameter list follows the macro. */
#define SX_ND_RANGE_KERNEL(dims, name, ...)                                                        \
    SX_ANNOTATE(SX_P_ND_RANGE(dims) __VA_ARGS__) kernel void SX_CAT(__sycl_kernel_, name)
#define SX_SINGLE_TASK_KERNEL(name, ...)                                                           \
    SX_ANNOTATE(SX_P_SINGLE_TASK __VA_ARGS__) kernel void SX_CAT(__sycl_kernel_, name)
/* An ordinary OpenCL kernel with keys (calls-indirectly, work-group size). */
#define SX_KERNEL(...) SX_ANNOTATE(__VA_ARGS__) kernel

/* A virtual function of `set` (a C++ member function or, in OpenCL C, a
 * function called through a pointer). */
#define SX_INDIRECTLY_CALLABLE(set, ...) SX_ANNOTATE(SX_P_INDIRECTLY_CALLABLE(set) __VA_ARGS__)
#define SX_INDIRECTLY_CALLABLE_DEFAULT SX_ANNOTATE(SX_P_INDIRECTLY_CALLABLE_DEFAULT)

/* if_device: a function whose body runs only on the host (emptied in
 * device images: it returns at once) or only on the device. Not inlined
 * before proptool sees it. */
#define SX_CALL_IF_ON_HOST SX_ANNOTATE(SX_P_CALL_IF_ON_HOST) __attribute__((noinline))
#define SX_CALL_IF_ON_DEVICE SX_ANNOTATE(SX_P_CALL_IF_ON_DEVICE) __attribute__((noinline))

/* Device globals. device_global<T>: the variable holds the address of the
 * (context, device) instance, so device code reads and writes `*name`.
 * device_global<T, device_image_scope>: the variable is the storage,
 * device code uses `name`. `id` is the unique id the host registers. */
#define SX_DEVICE_GLOBAL_DEFINE(T, name, id, access)                                               \
    SX_ANNOTATE(SX_P_UNIQUE_ID(id) SX_P_DEVICE_GLOBAL SX_P_HOST_ACCESS(access))                   \
    global T *global name
#define SX_DEVICE_GLOBAL_IMAGE_SCOPE_DEFINE(T, name, id, access, ...)                              \
    SX_ANNOTATE(SX_P_UNIQUE_ID(id) SX_P_DEVICE_GLOBAL SX_P_HOST_ACCESS(access) SX_P_DEVICE_IMAGE_SCOPE) \
    global T name __VA_ARGS__

/* Shared declarations, device side. Every module including the shared
 * header defines its device globals, unless:
 * - SX_DEVICE_GLOBALS_EXTERN (defined before including it): they are
 *   declarations, for a module linked (llvm-link) with the one defining them;
 * - SX_DEVICE_GLOBALS_AS_USED: for a module built apart (a library of
 *   virtual-function sets) that uses some of another module's device
 *   globals: it defines the ordinary ones it uses (static: unused ones
 *   vanish), each image holding its own variable and the runtime giving
 *   all of them the one instance of the unique id; image-scope ones, which
 *   exactly one image may hold, are declarations. Where the sources are
 *   linked into one module after all (the CMake helper's ONE_IMAGE defines
 *   SX_DEVICE_ONE_IMAGE), it means SX_DEVICE_GLOBALS_EXTERN. */
#if defined(SX_DEVICE_GLOBALS_AS_USED) && !defined(SX_DEVICE_GLOBALS_EXTERN) && !defined(SX_DEVICE_ONE_IMAGE)
#define SX_SHARED_DEVICE_GLOBAL(T, name, access) static SX_DEVICE_GLOBAL_DEFINE(T, name, name, access)
#define SX_SHARED_DEVICE_GLOBAL_INIT(T, name, access, ...) static SX_DEVICE_GLOBAL_DEFINE(T, name, name, access)
#define SX_SHARED_DEVICE_GLOBAL_IMAGE_SCOPE(T, name, access) extern global T name
#elif defined(SX_DEVICE_GLOBALS_EXTERN) || defined(SX_DEVICE_GLOBALS_AS_USED)
#define SX_SHARED_DEVICE_GLOBAL(T, name, access) extern global T *global name
#define SX_SHARED_DEVICE_GLOBAL_INIT(T, name, access, ...) extern global T *global name
#define SX_SHARED_DEVICE_GLOBAL_IMAGE_SCOPE(T, name, access) extern global T name
#else
#define SX_SHARED_DEVICE_GLOBAL(T, name, access) SX_DEVICE_GLOBAL_DEFINE(T, name, name, access)
/* The initial value is the host object's: it is what each instance starts with. */
#define SX_SHARED_DEVICE_GLOBAL_INIT(T, name, access, ...) SX_DEVICE_GLOBAL_DEFINE(T, name, name, access)
#define SX_SHARED_DEVICE_GLOBAL_IMAGE_SCOPE(T, name, access)                                       \
    SX_DEVICE_GLOBAL_IMAGE_SCOPE_DEFINE(T, name, name, access)
#endif
/* Kernel and set names: nothing to define on the device (the kernel's
 * definition and the SX_P_* fragments write them). */
#define SX_SHARED_KERNEL(name) struct SX_CAT(sx_kernel_decl_, name)
#define SX_SHARED_VF_SET(set) struct SX_CAT(sx_vf_set_decl_, set)

#else
/* ------------------------------------------------------------ host code */
#include <sycl-ext/device-global.h>

#define SX_HOST_ACCESS_OF_read SX_HOST_ACCESS_READ
#define SX_HOST_ACCESS_OF_write SX_HOST_ACCESS_WRITE
#define SX_HOST_ACCESS_OF_read_write SX_HOST_ACCESS_READ_WRITE
#define SX_HOST_ACCESS_OF_none SX_HOST_ACCESS_NONE
/* read, write, read_write or none -> SX_HOST_ACCESS_*. */
#define SX_HOST_ACCESS_OF(access) SX_CAT(SX_HOST_ACCESS_OF_, access)

/* One host object however many files include the shared header: a weak
 * definition (the linker keeps one) registered once by a weak constructor
 * whose guard is shared too. */
#define SX_SHARED_DG_REGISTER_(name, size, flags, access)                                          \
    void SX_CAT(sx_shared_dg_add_, name)(void);    /* declared: no -Wmissing-prototypes warning */ \
    void SX_CAT(sx_shared_dg_remove_, name)(void);                                                 \
    __attribute__((constructor, weak, visibility("hidden"))) void SX_CAT(sx_shared_dg_add_, name)(void) \
    {                                                                                              \
        static int done;                                                                           \
        if (!done++)                                                                               \
            (void)sx_device_global_add(&name, #name, size, flags, SX_HOST_ACCESS_OF(access));       \
    }                                                                                              \
    __attribute__((destructor, weak, visibility("hidden"))) void SX_CAT(sx_shared_dg_remove_, name)(void) \
    {                                                                                              \
        static int done;                                                                           \
        if (!done++)                                                                               \
            (void)sx_device_global_remove(&name);                                                  \
    }                                                                                              \
    typedef int SX_CAT(sx_shared_dg_semicolon_, name)

#define SX_SHARED_DEVICE_GLOBAL_INIT(T, name, access, ...)                                         \
    __attribute__((weak, visibility("hidden"))) struct SX_CAT(sx_dg_type_, name) {                  \
        void *usm;                                                                                 \
        __typeof__(T) value;                                                                       \
    } name = {0, __VA_ARGS__};                                                                     \
    SX_SHARED_DG_REGISTER_(name, sizeof(T), 0, access)
#define SX_SHARED_DEVICE_GLOBAL(T, name, access)                                                   \
    __attribute__((weak, visibility("hidden"))) struct SX_CAT(sx_dg_type_, name) {                  \
        void *usm;                                                                                 \
        __typeof__(T) value;                                                                       \
    } name;                                                                                        \
    SX_SHARED_DG_REGISTER_(name, sizeof(T), 0, access)
#define SX_SHARED_DEVICE_GLOBAL_IMAGE_SCOPE(T, name, access)                                       \
    __attribute__((weak, visibility("hidden"))) struct SX_CAT(sx_dg_type_, name) {                  \
        __typeof__(T) value;                                                                       \
    } name;                                                                                        \
    SX_SHARED_DG_REGISTER_(name, sizeof(T), SX_DEVICE_GLOBAL_IMAGE_SCOPE, access)

/* Kernel and set names as constants: SX_KERNEL_NAME(scale2d) is "scale2d". */
#define SX_SHARED_KERNEL(name) static const char SX_CAT(sx_kernel_name_, name)[] __attribute__((unused)) = #name
#define SX_SHARED_VF_SET(set) static const char SX_CAT(sx_vf_set_name_, set)[] __attribute__((unused)) = #set
#define SX_KERNEL_NAME(name) SX_CAT(sx_kernel_name_, name)
#define SX_VF_SET_NAME(set) SX_CAT(sx_vf_set_name_, set)

#endif /* SX_DEVICE_CODE */
#endif
