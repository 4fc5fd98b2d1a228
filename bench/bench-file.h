/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* bench-file.h: what the OpenCL benchmarks share: a fatal error and a file read whole. */
#ifndef SX_BENCH_FILE_H
#define SX_BENCH_FILE_H

#include <stdio.h>
#include <stdlib.h>

#define DIE(...)                                                                                   \
    do {                                                                                           \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

/* The whole file at `path` (malloc'd), or exit saying why. */
static inline unsigned char *bench_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        DIE("cannot open %s (make check builds the benchmarks' kernels)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    unsigned char *d = malloc(n > 0 ? (size_t)n : 1);
    if (!d || n < 0 || fread(d, 1, (size_t)n, f) != (size_t)n)
        DIE("cannot read %s", path);
    fclose(f);
    *size = (size_t)n;
    return d;
}

#endif
