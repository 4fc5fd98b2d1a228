/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* nt-abi.h: the native adapter's tests through the adapter ABI alone (its
 * built-in entry point, no core): a minimal core's services, the tables,
 * one context and queue per test, and helpers for programs and arguments.
 * Included once per test program. */
#ifndef NT_ABI_H
#define NT_ABI_H

#include <stdarg.h>
#include <stdint.h>

#include "../../adapters/native/native.h"
#include "nt.h"
/* ---- a minimal core: services and the tables */
static char fake_dispatch[64];
static __thread char last_error[1024];

static void svc_log(sx_log_level level, const char *fmt, ...)
{
    if (!getenv("NT_VERBOSE"))
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

static sx_result svc_error(sx_result code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    return code;
}

static const char *svc_getenv(const char *name)
{
    return getenv(name);
}

static const sxa_services services = {
    .size = sizeof(sxa_services),
    .abi_version = SXA_ABI_VERSION,
    .dispatch = (const struct sxa_dispatch *)fake_dispatch,
    .log = svc_log,
    .error = svc_error,
    .getenv = svc_getenv,
};

static sxa_adapter_table A = {.size = sizeof(A)};
static sxa_platform_table P = {.size = sizeof(P)};
static sxa_device_table D = {.size = sizeof(D)};
static sxa_context_table C = {.size = sizeof(C)};
static sxa_queue_table Q = {.size = sizeof(Q)};
static sxa_usm_table U = {.size = sizeof(U)};
static sxa_program_table PR = {.size = sizeof(PR)};
static sxa_kernel_table K = {.size = sizeof(K)};
static sxa_enqueue_table E = {.size = sizeof(E)};
static sxa_event_table EV = {.size = sizeof(EV)};

static sxa_adapter adapter;
static sxa_platform platform;
static sxa_device device;
static sxa_context context;
static sxa_queue queue;

#define OK(call)                                                                   \
    do {                                                                           \
        sx_result r_ = (call);                                                     \
        ck_assert_msg(r_ == SX_SUCCESS, "%s -> %d: %s", #call, r_, last_error);    \
    } while (0)
#define FAILS(code, call)                                                          \
    do {                                                                           \
        sx_result r_ = (call);                                                     \
        ck_assert_msg(r_ == (code), "%s -> %d, expected %d (%s): %s", #call, r_, (code), #code, last_error); \
    } while (0)

static void get_tables(sxa_get_proc_table_fn fn)
{
    void *tables[] = {NULL, &A, &P, &D, &C, &Q, &U, &PR, &K, &E, &EV};
    /* Tables 1..10; the native device has USM, so it offers no global table (11). */
    for (sxa_table_id id = SXA_TABLE_ADAPTER; id <= SXA_TABLE_EVENT; id++)
        ck_assert_int_eq(fn(SXA_ABI_VERSION, id, tables[id]), SX_SUCCESS);
    sxa_global_table g = {sizeof(g)};
    ck_assert_int_eq(fn(SXA_ABI_VERSION, SXA_TABLE_GLOBAL, &g), SX_ERROR_INVALID_ENUMERATION);
}

static void setup(void)
{
    get_tables(sxn_get_proc_table);
    OK(A.init(&services, &adapter));
    uint32_t n = 0;
    OK(P.get(adapter, 1, &platform, &n));
    ck_assert_uint_eq(n, 1);
    OK(D.get(platform, SX_DEVICE_TYPE_ALL, 1, &device, &n));
    ck_assert_uint_eq(n, 1);
    OK(C.create(1, &device, &context));
    OK(Q.create(context, device, SXA_QUEUE_PROFILING, &queue));
}

static void teardown(void)
{
    OK(Q.release(queue));
    OK(C.release(context));
    OK(A.fini(adapter));
}

/* ---- program helpers */

typedef struct {
    const char *name;
    uint32_t n;
    sxa_kernel_param p[16];
} ksig;

/* A program of a test kernel image with these signatures, created only. */
static sxa_program created(const char *file, const ksig *sigs, uint32_t nsigs)
{
    size_t size;
    void *bytes = nt_kernel_bytes(file, &size);
    ck_assert_msg(bytes != NULL, "cannot read %s", file);
    ck_assert_uint_le(nsigs, 16);
    sxa_kernel_signature ks[16];
    for (uint32_t i = 0; i < nsigs; i++) {
        ks[i].name = sigs[i].name;
        ks[i].num_params = sigs[i].n;
        ks[i].params = sigs[i].p;
    }
    sxa_program_desc desc = {.size = sizeof(desc), .num_kernels = nsigs, .kernels = ks};
    sxa_program prog;
    OK(PR.create(context, device, SX_IMAGE_KIND_HOST_ELF, bytes, size, &desc, &prog));
    free(bytes);
    return prog;
}

/* ... and built */
static sxa_program program_of(const char *file, const ksig *sigs, uint32_t nsigs)
{
    sxa_program prog = created(file, sigs, nsigs);
    OK(PR.build(prog, NULL));
    return prog;
}

#define V(sc, sz) SXT_PARAM_VALUE(sc, sz)
#define PTR SXT_PARAM_POINTER()
#define LOC SXT_PARAM_LOCAL()

static void *usm(size_t n)
{
    void *p;
    OK(U.alloc(context, device, SX_USM_TYPE_SHARED, n, 0, &p));
    memset(p, 0, n);
    return p;
}

static sx_arg aptr(uint32_t i, void *p)
{
    return (sx_arg){SX_ARG_POINTER, i, sizeof(void *), p};
}
static sx_arg aval(uint32_t i, const void *v, size_t n)
{
    return (sx_arg){SX_ARG_VALUE, i, n, v};
}
static sx_arg aloc(uint32_t i, size_t n)
{
    return (sx_arg){SX_ARG_LOCAL, i, n, NULL};
}

/* ... and compiled, for linking */
static sxa_program compiled(const char *file, const ksig *sigs, uint32_t nsigs)
{
    sxa_program prog = created(file, sigs, nsigs);
    OK(PR.compile(prog, NULL));
    return prog;
}

#endif
