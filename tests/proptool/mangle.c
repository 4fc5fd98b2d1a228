/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* mangle.c: damage a file on purpose for proptool's bad-input tests.
 * mangle IN OUT CMD [ARGS]... with CMD one of:
 *   truncate BYTES        keep the first BYTES bytes
 *   set WORD VALUE        set 32-bit word WORD (little-endian)
 *   set32 BYTE VALUE      set the u32 at byte offset BYTE
 *   set64 BYTE VALUE      set the u64 at byte offset BYTE
 *   swap                  byte-swap every 32-bit word (a big-endian module)
 *   insert WORD VALUE...  insert words before word WORD
 *   append BYTE...        append bytes */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long num(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (*end) {
        fprintf(stderr, "mangle: '%s' is not a number\n", s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: mangle IN OUT CMD [ARGS]...\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    size_t cap = 1 << 20, n = 0;
    unsigned char *d = malloc(cap);
    size_t r;
    while (d && (r = fread(d + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap)
            d = realloc(d, cap *= 2);
    }
    fclose(f);
    if (!d)
        return 2;
    const char *cmd = argv[3];
    if (!strcmp(cmd, "truncate") && argc == 5) {
        size_t t = (size_t)num(argv[4]);
        if (t < n)
            n = t;
    } else if ((!strcmp(cmd, "set") || !strcmp(cmd, "set32")) && argc == 6) {
        size_t at = (size_t)num(argv[4]) * (cmd[3] ? 1 : 4);
        uint32_t v = (uint32_t)num(argv[5]);
        if (at + 4 > n)
            return 2;
        for (int i = 0; i < 4; i++)
            d[at + (size_t)i] = (unsigned char)(v >> (8 * i));
    } else if (!strcmp(cmd, "set64") && argc == 6) {
        size_t at = (size_t)num(argv[4]);
        uint64_t v = num(argv[5]);
        if (at + 8 > n)
            return 2;
        for (int i = 0; i < 8; i++)
            d[at + (size_t)i] = (unsigned char)(v >> (8 * i));
    } else if (!strcmp(cmd, "swap") && argc == 4) {
        for (size_t i = 0; i + 4 <= n; i += 4) {
            unsigned char t0 = d[i], t1 = d[i + 1];
            d[i] = d[i + 3];
            d[i + 1] = d[i + 2];
            d[i + 2] = t1;
            d[i + 3] = t0;
        }
    } else if (!strcmp(cmd, "insert") && argc >= 6) {
        size_t at = (size_t)num(argv[4]) * 4, k = (size_t)(argc - 5);
        if (at > n)
            return 2;
        d = realloc(d, n + 4 * k);
        memmove(d + at + 4 * k, d + at, n - at);
        for (size_t j = 0; j < k; j++) {
            uint32_t v = (uint32_t)num(argv[5 + j]);
            for (int i = 0; i < 4; i++)
                d[at + 4 * j + (size_t)i] = (unsigned char)(v >> (8 * i));
        }
        n += 4 * k;
    } else if (!strcmp(cmd, "append") && argc >= 5) {
        d = realloc(d, n + (size_t)argc);
        for (int j = 4; j < argc; j++)
            d[n++] = (unsigned char)num(argv[j]);
    } else {
        fprintf(stderr, "mangle: bad command '%s'\n", cmd);
        return 2;
    }
    f = fopen(argv[2], "wb");
    if (!f || fwrite(d, 1, n, f) != n || fclose(f)) {
        perror(argv[2]);
        return 2;
    }
    free(d);
    return 0;
}
