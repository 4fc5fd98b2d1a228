/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* driver.c: runs a fuzz target once over each file named on the command
 * line (or each file of a directory): the `make check` smoke run and the
 * way to replay a crash without libFuzzer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, n = 0, r;
    uint8_t *d = malloc(cap);
    while (d && (r = fread(d + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap)
            d = realloc(d, cap *= 2);
    }
    fclose(f);
    if (!d)
        return 1;
    /* An exact-size copy, so a read past the end is caught by valgrind/ASan. */
    uint8_t *exact = malloc(n ? n : 1);
    memcpy(exact, d, n);
    free(d);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int runs = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            DIR *dir = opendir(argv[i]);
            struct dirent *e;
            while (dir && (e = readdir(dir))) {
                if (e->d_name[0] == '.')
                    continue;
                char p[4096];
                snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
                rc |= run_file(p);
                runs++;
            }
            if (dir)
                closedir(dir);
        } else {
            rc |= run_file(argv[i]);
            runs++;
        }
    }
    printf("%d inputs run\n", runs);
    return rc;
}
