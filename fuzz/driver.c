/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* driver.c: runs a fuzz target once over each file named on the command
 * line (or each file of a directory): the `make check` smoke run and the
 * way to replay a crash without libFuzzer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned timeout;
static const char *current;

static int run_file(const char *path)
{
    current = path;
    if (timeout)
        alarm(timeout);
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
    if (timeout)
        alarm(0);
    free(exact);
    return 0;
}

/* SX_FUZZ_TIMEOUT=S: an input running longer than S seconds is a failure
 * named on stderr (fuzz/smoke.sh: hangs in the corpus fail make check). */
static void timed_out(int sig)
{
    (void)sig;
    static const char msg[] = "fuzz driver: timeout on input ";
    if (write(2, msg, sizeof(msg) - 1) < 0 || write(2, current, strlen(current)) < 0 || write(2, "\n", 1) < 0)
        _exit(70);
    _exit(70);
}

int main(int argc, char **argv)
{
    int runs = 0, rc = 0;
    const char *t = getenv("SX_FUZZ_TIMEOUT");
    timeout = t ? (unsigned)atoi(t) : 0;
    if (timeout)
        signal(SIGALRM, timed_out);
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
