/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-undef.c: the demangler on clang's OpenCL names, and a native build
 * that fails names every undefined symbol at once, as the user wrote it,
 * saying which are missing builtins and which the program's own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sycl-ext/sx.h>

#include "../../adapters/native/demangle.h"
#include "../util/sxt.h"
#include "two-devices.h"

static int failures;
#define EXPECT(cond, ...)                                                        \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                 \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
            failures++;                                                          \
        }                                                                        \
    } while (0)

static void demangles(const char *m, const char *want)
{
    char out[256];
    size_t n = sxn_demangle(m, out, sizeof(out));
    if (!want)
        EXPECT(n == 0, "%s should not demangle, gave %s", m, out);
    else
        EXPECT(n && strcmp(out, want) == 0, "%s -> '%s', want '%s'", m, n ? out : "(nothing)", want);
}

static void demangler(void)
{
    demangles("_Z3clzDv4_i", "clz(int4)");
    demangles("_Z13get_global_idj", "get_global_id(uint)");
    demangles("_Z12get_work_dimv", "get_work_dim()");
    demangles("_Z5fractDv4_fPU8CLglobalS_", "fract(float4, __global float4 *)");
    demangles("_Z5fractDv4_fPU3AS1S_", "fract(float4, __global float4 *)");
    demangles("_Z6vload4mPU3AS2Kf", "vload4(ulong, __constant const float *)");
    demangles("_Z10atomic_addPU7CLlocalVii", "atomic_add(__local volatile int *, int)");
    demangles("_Z6selectDv4_fS_Dv4_i", "select(float4, float4, int4)");
    demangles("_Z29async_work_group_strided_copyPU7CLlocalDv4_fPU8CLglobalKS_mm9ocl_event",
              "async_work_group_strided_copy(__local float4 *, __global const float4 *, ulong, ulong, event_t)");
    demangles("_Z39atomic_compare_exchange_strong_explicitPU9CLgenericVU7_AtomiciPU9CLgenericii12memory_orderS4_",
              "atomic_compare_exchange_strong_explicit(volatile atomic_int *, int *, int, memory_order, memory_order)");
    demangles("_Z7shuffleDv16_dDv16_m", "shuffle(double16, ulong16)");
    demangles("_Z6helperDv4_fPU3AS1i", "helper(float4, __global int *)");
    demangles("_Z3sinDh", "sin(half)");
    demangles("main", NULL);
    demangles("_Z", NULL);
    demangles("_Z3clz", "clz()");
    demangles("_Z3clzDv4_", NULL);
    demangles("_Z99clz", NULL);
    demangles("_Z3fooS_", NULL);
    demangles("_Z3fooPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPi", NULL);
    demangles("_Z3fooU30CLglobalCLglobalCLglobalCLglobi", "foo(int)"); /* unknown qualifier: left out */
    /* every overload of the library's table demangles */
    const char *top = getenv("SX_TEST_SRCDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/adapters/native/builtins.tsv", top ? top : ".");
    FILE *f = fopen(path, "r");
    EXPECT(f != NULL, "cannot open %s", path);
    char line[2048], out[512];
    int rows = 0, bad = 0;
    while (f && fgets(line, sizeof(line), f)) {
        if (line[0] == '#')
            continue;
        char *field[5] = {line};
        for (int i = 1; i < 5 && field[i - 1]; i++) {
            field[i] = strchr(field[i - 1], '\t');
            if (field[i])
                *field[i]++ = 0;
        }
        if (!field[4])
            continue;
        rows++;
        /* it demangles to the table's function name and parameter count */
        size_t nl = strlen(field[3]);
        int commas = 0, params = field[4][0] && field[4][0] != '\n';
        for (const char *c = field[4]; *c; c++)
            params += *c == '|';
        if (!sxn_demangle(field[1], out, sizeof(out)) || strncmp(out, field[3], nl) != 0 || out[nl] != '(')
            bad++;
        else {
            for (const char *c = out; *c; c++)
                commas += *c == ',';
            if ((params ? commas + 1 : 0) != params && !(params == 0 && commas == 0))
                bad++;
        }
    }
    if (f)
        fclose(f);
    EXPECT(rows > 10000 && bad == 0, "%d of %d table names did not demangle", bad, rows);
    printf("demangler: %d table names\n", rows);
}

static void build_error(void)
{
    static const char *names[] = {"needs_four"}, *params[] = {"pp"};
    sx_device_binaries *bins = td_native_image("undef-kernel.hso", 1, names, params);
    if (!bins) {
        printf("SKIP (build error part): undef-kernel.hso not built (no clang-14?)\n");
        return;
    }
    EXPECT(td_native_open(), "native device: %s", sx_last_error());
    EXPECT(sx_register_images(bins) == SX_SUCCESS, "register: %s", sx_last_error());
    static int out[8];
    static float v[4];
    td_arg a[] = {{TD_BUFFER, sizeof(out), out}, {TD_BUFFER, sizeof(v), v}};
    size_t g = 1;
    EXPECT(td_native_run("needs_four", 2, a, 1, &g, NULL) != 0, "the kernel ran although four symbols are missing");
    const char *msg = sx_last_error();
    printf("build error: %s\n", msg);
    EXPECT(strstr(msg, "has 4 undefined symbols that nothing defines"), "count missing");
    EXPECT(strstr(msg, "sin(half) [_Z3sinDh]: an OpenCL C builtin the native device does not provide"), "sin(half)");
    EXPECT(strstr(msg, "cos(half) [_Z3cosDh]: an OpenCL C builtin"), "cos(half)");
    EXPECT(strstr(msg, "exp(half) [_Z3expDh]: an OpenCL C builtin"), "exp(half)");
    /* the group functions are provided (fiber versions, issue 28) */
    EXPECT(!strstr(msg, "sub_group_reduce_add") && !strstr(msg, "work_group_reduce_max"),
           "a group function the builtins module provides is listed as missing");
    /* a plain OpenCL C function has C linkage: its name as is */
    EXPECT(strstr(msg, "\n  helper: not an OpenCL C builtin: a symbol of the program"), "helper");
    EXPECT(!strstr(msg, "clz"), "clz is provided and must not be listed");
    sx_unregister_images(bins);
    td_native_close();
    sxt_binaries_free(bins);
}

int main(void)
{
    demangler();
    build_error();
    printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
