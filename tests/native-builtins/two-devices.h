/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* two-devices.h: run one OpenCL C kernel on PoCL (through the ICD loader,
 * dlopen'ed, from source) and on the native device (through the public
 * API, from a host-built image), for tests that compare the two: the
 * builtin suite (bt-run) and the kernel shapes (ks-run). */
#ifndef TWO_DEVICES_H
#define TWO_DEVICES_H

#include <stddef.h>

#include <sycl-ext/sx.h>

enum { TD_BUFFER, TD_LOCAL, TD_VALUE };
typedef struct {
    int kind;
    size_t size;  /* bytes: buffer, local memory or value */
    void *host;   /* buffer: its bytes, copied in and back; value: the value */
} td_arg;

/* PoCL: 1 ready, 0 absent (skip); a build failure prints PoCL's log and exits. */
int td_pocl_open(const char *source_path, const char *options);
int td_pocl_run(const char *kernel, unsigned nargs, const td_arg *args, unsigned dims, const size_t *global,
                const size_t *local);
void td_pocl_close(void);

/* Native: the image of tests/kernels/<file> with the named kernels, whose
 * parameters are given as a string per kernel, one letter each: p pointer,
 * l local memory, i 4-byte int value. NULL when the image was not built. */
sx_device_binaries *td_native_image(const char *file, unsigned nkernels, const char *const *names,
                                    const char *const *params);
int td_native_open(void);  /* the native device, a context and a queue */
/* Runs with buffers in shared USM, copied in and back like td_pocl_run. */
int td_native_run(const char *kernel, unsigned nargs, const td_arg *args, unsigned dims,
                  const size_t *global, const size_t *local);
void td_native_close(void);

#endif
