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

#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull
static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static inline uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline uint64_t xx_round(uint64_t acc, uint64_t in) { return rotl64(acc + in * P2, 31) * P1; }
static inline uint64_t xx_merge(uint64_t acc, uint64_t v) { return (acc ^ xx_round(0, v)) * P1 + P4; }
/* lib/pcache.c's XXH64 before issue 26. */
static uint64_t xxh64(const uint8_t *p, size_t n, uint64_t seed)
{
    const uint8_t *end = p + n;
    uint64_t h;
    if (n >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        for (; end - p >= 32; p += 32) {
            v1 = xx_round(v1, rd64(p));
            v2 = xx_round(v2, rd64(p + 8));
            v3 = xx_round(v3, rd64(p + 16));
            v4 = xx_round(v4, rd64(p + 24));
        }
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xx_merge(xx_merge(xx_merge(xx_merge(h, v1), v2), v3), v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)n;
    for (; end - p >= 8; p += 8)
        h = rotl64(h ^ xx_round(0, rd64(p)), 27) * P1 + P4;
    for (; p < end; p++)
        h = rotl64(h ^ (*p * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}
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
