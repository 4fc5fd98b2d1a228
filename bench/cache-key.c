/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* cache-key.c: the program cache's image digest, SHA-256 from Nettle (what
 * the keys use since issue 26), against the 4-seed XXH64 it replaced (kept
 * here as the baseline), on multi-megabyte images: both in one process,
 * alternating rounds, each result checked against the first, the median of
 * the per-round ratios printed with its range. Usage: cache-key [ROUNDS] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "sx-internal.h"

#include "../tests/pcache/xxh64-old.h"

static void wide_hash(const void *data, size_t n, uint64_t tag, uint8_t out[32])
{
    for (uint64_t i = 0; i < 4; i++) {
        uint64_t h = xxh64(data, n, tag * 4 + i + 1);
        memcpy(out + 8 * i, &h, 8);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 21;
    if (rounds < 1)
        rounds = 21;
    static const size_t sizes[] = {1u << 20, 4u << 20, 16u << 20};
    printf("image digest: SHA-256 (Nettle) vs 4 x XXH64 (before), %d alternating rounds, thread CPU time\n", rounds);
    printf("%10s %14s %14s %22s\n", "bytes", "xxh64x4 MB/s", "sha256 MB/s", "ratio new/old [range]");
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
        size_t n = sizes[si];
        uint8_t *img = malloc(n);
        if (!img)
            return 1;
        for (size_t i = 0; i < n; i++)
            img[i] = (uint8_t)(i * 2654435761u >> 13);
        double *ratio = malloc((size_t)rounds * sizeof(double)), told = 0, tnew = 0;
        uint8_t ref_old[32], ref_new[32], d[32];
        wide_hash(img, n, (uint64_t)SX_IMAGE_KIND_HOST_ELF << 32, ref_old);
        sxi_image_digest(SX_IMAGE_KIND_HOST_ELF, img, n, ref_new);
        for (int r = 0; r < rounds; r++) {
            double t0 = bench_cpu_now();
            wide_hash(img, n, (uint64_t)SX_IMAGE_KIND_HOST_ELF << 32, d);
            double t1 = bench_cpu_now();
            if (memcmp(d, ref_old, 32) != 0)
                return fprintf(stderr, "xxh64 result changed\n"), 1;
            sxi_image_digest(SX_IMAGE_KIND_HOST_ELF, img, n, d);
            double t2 = bench_cpu_now();
            if (memcmp(d, ref_new, 32) != 0)
                return fprintf(stderr, "sha256 result changed\n"), 1;
            ratio[r] = (t2 - t1) / (t1 - t0);
            told += t1 - t0;
            tnew += t2 - t1;
        }
        qsort(ratio, (size_t)rounds, sizeof(double), cmp_double);
        printf("%10zu %14.0f %14.0f %8.2f [%.2f, %.2f]\n", n, (double)n * rounds / told / 1e6,
               (double)n * rounds / tnew / 1e6, ratio[rounds / 2], ratio[0], ratio[rounds - 1]);
        free(ratio);
        free(img);
    }
    return 0;
}
