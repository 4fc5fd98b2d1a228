/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* cl-hold-interposer.c: a TEST interposer, not a driver: loaded by the
 * OpenCL adapter in place of the ICD loader (SX_OPENCL_LOADER), it is
 * linked with the real loader, so every entry point it does not define
 * resolves there (dlsym searches a library's dependencies). It defines
 * two entry points. clSetKernelArg: a call that sets a 4-byte argument to
 * the armed value waits inside the driver call until the test releases it,
 * so a test can hold one launch half-way and see what another thread can
 * do then. clEnqueueSVMMemcpy and clFinish: counted, so a test sees which
 * way a copy went and whether the queue was finished before it.
 * clSetKernelExecInfo: the indirect-access declarations counted per USM
 * kind (0 host, 1 device, 2 shared), for the kernel last launched. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT void sxt_hold_arm(int v);
EXPORT int sxt_hold_wait_held(int seconds);
EXPORT void sxt_hold_release(void);
EXPORT int sxt_svm_memcpy_calls(void);
EXPORT int sxt_finish_calls(void);
EXPORT int sxt_indirect_calls(int kind);
EXPORT void sxt_indirect_reset(void);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int armed, value, held, released;

static struct timespec in_seconds(int s)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += s;
    return t;
}

/* Hold the next clSetKernelArg of a 4-byte `v`. */
EXPORT void sxt_hold_arm(int v)
{
    pthread_mutex_lock(&lock);
    armed = 1;
    value = v;
    held = released = 0;
    pthread_mutex_unlock(&lock);
}

/* 1 once a call is held, 0 after `seconds` without one. */
EXPORT int sxt_hold_wait_held(int seconds)
{
    struct timespec until = in_seconds(seconds);
    pthread_mutex_lock(&lock);
    int rc = 0;
    while (!held && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&changed, &lock, &until);
    int h = held;
    pthread_mutex_unlock(&lock);
    return h;
}

/* Let the held call go on (and any later one: disarmed). */
EXPORT void sxt_hold_release(void)
{
    pthread_mutex_lock(&lock);
    armed = 0;
    released = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

EXPORT cl_int CL_API_CALL clSetKernelArg(cl_kernel k, cl_uint index, size_t size, const void *v)
{
    static __typeof__(&clSetKernelArg) real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "clSetKernelArg");
    if (!real)
        return CL_INVALID_OPERATION;
    pthread_mutex_lock(&lock);
    if (armed && !held && size == sizeof(int) && v && memcmp(v, &value, sizeof value) == 0) {
        held = 1;
        pthread_cond_broadcast(&changed);
        /* Never forever: a test that fails to release still ends. */
        struct timespec until = in_seconds(120);
        int rc = 0;
        while (!released && rc != ETIMEDOUT)
            rc = pthread_cond_timedwait(&changed, &lock, &until);
    }
    pthread_mutex_unlock(&lock);
    return real(k, index, size, v);
}

static atomic_int svm_memcpys;

EXPORT int sxt_svm_memcpy_calls(void) { return atomic_load(&svm_memcpys); }

EXPORT cl_int CL_API_CALL clEnqueueSVMMemcpy(cl_command_queue q, cl_bool blocking, void *dst,
                                             const void *src, size_t size, cl_uint n,
                                             const cl_event *list, cl_event *ev)
{
    static __typeof__(&clEnqueueSVMMemcpy) real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "clEnqueueSVMMemcpy");
    if (!real)
        return CL_INVALID_OPERATION;
    atomic_fetch_add(&svm_memcpys, 1);
    return real(q, blocking, dst, src, size, n, list, ev);
}

static atomic_int finishes;

EXPORT int sxt_finish_calls(void) { return atomic_load(&finishes); }

EXPORT cl_int CL_API_CALL clFinish(cl_command_queue q)
{
    static __typeof__(&clFinish) real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "clFinish");
    if (!real)
        return CL_INVALID_OPERATION;
    atomic_fetch_add(&finishes, 1);
    return real(q);
}

static atomic_int indirect[3];

EXPORT int sxt_indirect_calls(int kind) { return kind >= 0 && kind < 3 ? atomic_load(&indirect[kind]) : -1; }

EXPORT void sxt_indirect_reset(void)
{
    for (int i = 0; i < 3; i++)
        atomic_store(&indirect[i], 0);
}

EXPORT cl_int CL_API_CALL clSetKernelExecInfo(cl_kernel k, cl_kernel_exec_info name, size_t size, const void *v)
{
    static __typeof__(&clSetKernelExecInfo) real;
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "clSetKernelExecInfo");
    if (!real)
        return CL_INVALID_OPERATION;
    /* CL_KERNEL_EXEC_INFO_INDIRECT_{HOST,DEVICE,SHARED}_ACCESS_INTEL */
    if (name >= 0x4200 && name <= 0x4202 && size == sizeof(cl_bool) && v && *(const cl_bool *)v)
        atomic_fetch_add(&indirect[name - 0x4200], 1);
    return real(k, name, size, v);
}
