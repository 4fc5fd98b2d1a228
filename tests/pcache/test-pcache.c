/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* test-pcache.c: the persistent program cache's directory: the size bound
 * and least-recently-used eviction, several processes filling it at once,
 * the file size limit (ulimit -f), temporary files of dead writers, the
 * directory made by the first write, and the writer thread. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sx-internal.h"
#include "../check-util.h"

#define ENTRY_BYTES (1000 + 88) /* payload + header */

static char dir[256];

static void setup(void)
{
    snprintf(dir, sizeof(dir), "/tmp/sx-pcache-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    strcat(dir, "/cache");
    setenv("SX_CACHE_DIR", dir, 1);
    unsetenv("SX_CACHE");
    unsetenv("SX_CACHE_MAX_SIZE");
}

static void teardown(void)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%.*s'", (int)(strrchr(dir, '/') - dir), dir);
    ck_assert_int_eq(system(cmd), 0);
}

static sxi_pcache_key key_of(unsigned who, unsigned i)
{
    sxi_pcache_key k;
    memset(&k, 0, sizeof(k));
    memcpy(k.digest, &who, sizeof(who));
    memcpy(k.digest + 8, &i, sizeof(i));
    k.digest[31] = 0x5a;
    return k;
}

static void store(unsigned who, unsigned i)
{
    unsigned char payload[1000];
    memset(payload, (int)(who * 31 + i), sizeof(payload));
    sxi_pcache_key k = key_of(who, i);
    sxi_pcache_dir d;
    ck_assert(sxi_pcache_dir_get(&d));
    sxi_pcache_store(&d, &k, SX_IMAGE_KIND_CUBIN, payload, sizeof(payload));
}

/* The same entry handed to the writer thread (the payload taken over). */
static void store_later(unsigned who, unsigned i)
{
    unsigned char *payload = malloc(1000);
    ck_assert_ptr_nonnull(payload);
    memset(payload, (int)(who * 31 + i), 1000);
    sxi_pcache_key k = key_of(who, i);
    sxi_pcache_dir d;
    ck_assert(sxi_pcache_dir_get(&d));
    sxi_pcache_store_later(&d, &k, SX_IMAGE_KIND_CUBIN, payload, 1000);
}

/* The file of entry (who, i). */
static void entry_file(unsigned who, unsigned i, char *p, size_t size)
{
    sxi_pcache_key k = key_of(who, i);
    int w = snprintf(p, size, "%s/", dir);
    for (int b = 0; b < 32; b++)
        w += snprintf(p + w, size - (size_t)w, "%02x", k.digest[b]);
    snprintf(p + w, size - (size_t)w, ".bin");
}

/* Is entry (who, i)'s file in the directory? */
static bool on_disk(unsigned who, unsigned i)
{
    char p[600];
    entry_file(who, i, p, sizeof(p));
    return access(p, F_OK) == 0;
}

/* Is entry (who, i) there and whole? */
static bool loads(unsigned who, unsigned i)
{
    sxi_pcache_key k = key_of(who, i);
    sx_image_kind kind;
    void *data;
    size_t size;
    sxi_pcache_dir d;
    if (!sxi_pcache_dir_get(&d) || sxi_pcache_load(&d, &k, &kind, &data, &size) != SX_SUCCESS)
        return false;
    unsigned char want[1000];
    memset(want, (int)(who * 31 + i), sizeof(want));
    bool same = kind == SX_IMAGE_KIND_CUBIN && size == sizeof(want) && memcmp(data, want, size) == 0;
    free(data);
    ck_assert_msg(same, "entry (%u, %u) read back different", who, i);
    return true;
}

/* Entries, their bytes, and temporary files in the directory. */
static unsigned scan(uint64_t *bytes, unsigned *tmps)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    unsigned n = 0;
    *bytes = 0;
    *tmps = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        struct stat st;
        char p[600];
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        if (strstr(e->d_name, ".tmp."))
            (*tmps)++;
        else if (strlen(e->d_name) == 68 && stat(p, &st) == 0) {
            n++;
            *bytes += (uint64_t)st.st_size;
        }
    }
    closedir(d);
    return n;
}

/* Make an entry look used `age` seconds ago. */
static void age_entry(unsigned who, unsigned i, int age)
{
    char p[600];
    entry_file(who, i, p, sizeof(p));
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= age;
    t[1] = t[0];
    ck_assert_int_eq(utimensat(AT_FDCWD, p, t, 0), 0);
}

START_TEST(max_size_parsed)
{
    ck_assert_uint_eq(sxi_pcache_max_size(), SXI_PCACHE_DEFAULT_MAX_SIZE);
    setenv("SX_CACHE_MAX_SIZE", "64K", 1);
    ck_assert_uint_eq(sxi_pcache_max_size(), 65536);
    setenv("SX_CACHE_MAX_SIZE", "3m", 1);
    ck_assert_uint_eq(sxi_pcache_max_size(), 3u << 20);
    setenv("SX_CACHE_MAX_SIZE", "2G", 1);
    ck_assert_uint_eq(sxi_pcache_max_size(), (uint64_t)2 << 30);
    setenv("SX_CACHE_MAX_SIZE", "12345", 1);
    ck_assert_uint_eq(sxi_pcache_max_size(), 12345);
    setenv("SX_CACHE_MAX_SIZE", "0", 1);
    ck_assert_uint_eq(sxi_pcache_max_size(), 0);
    const char *bad[] = {"lots", "12Q", "-5", "5KK", "99999999999999999999G"};
    for (size_t i = 0; i < SXI_ARRAY_SIZE(bad); i++) {
        setenv("SX_CACHE_MAX_SIZE", bad[i], 1);
        ck_assert_msg(sxi_pcache_max_size() == SXI_PCACHE_DEFAULT_MAX_SIZE, "'%s' accepted", bad[i]);
    }
}
END_TEST

START_TEST(least_recently_used_evicted)
{
    char limit[32];
    snprintf(limit, sizeof(limit), "%u", 3 * ENTRY_BYTES);
    setenv("SX_CACHE_MAX_SIZE", limit, 1);
    for (unsigned i = 0; i < 3; i++) {
        store(0, i);
        age_entry(0, i, 3 * 3600 - (int)i * 3600); /* 0 oldest, 2 youngest (hits refresh hourly) */
    }
    /* A hit makes entry 0 the youngest. */
    ck_assert(loads(0, 0));
    sxi_program_stats before, after;
    sxi_program_stats_get(&before);
    store(0, 3);
    sxi_program_stats_get(&after);
    ck_assert_uint_eq(after.disk_evictions - before.disk_evictions, 1);
    ck_assert(!loads(0, 1)); /* the least recently used went */
    ck_assert(loads(0, 0));
    ck_assert(loads(0, 2));
    ck_assert(loads(0, 3));
    uint64_t bytes;
    unsigned tmps;
    ck_assert_uint_eq(scan(&bytes, &tmps), 3);
    ck_assert_uint_le(bytes, 3 * ENTRY_BYTES);
    /* A smaller bound takes more at the next store; one larger than the
     * bound is not written at all. */
    snprintf(limit, sizeof(limit), "%u", ENTRY_BYTES);
    setenv("SX_CACHE_MAX_SIZE", limit, 1);
    store(0, 4);
    ck_assert_uint_eq(scan(&bytes, &tmps), 1);
    ck_assert(loads(0, 4));
    setenv("SX_CACHE_MAX_SIZE", "500", 1);
    store(0, 5);
    ck_assert(!loads(0, 5));
    ck_assert(loads(0, 4));
    /* 0: no bound. */
    setenv("SX_CACHE_MAX_SIZE", "0", 1);
    for (unsigned i = 10; i < 20; i++)
        store(0, i);
    ck_assert_uint_eq(scan(&bytes, &tmps), 11);
}
END_TEST

START_TEST(two_processes_fill_at_once)
{
    char limit[32];
    snprintf(limit, sizeof(limit), "%u", 40 * ENTRY_BYTES);
    setenv("SX_CACHE_MAX_SIZE", limit, 1);
    pid_t kids[2];
    for (unsigned w = 0; w < 2; w++) {
        kids[w] = fork();
        ck_assert_int_ge(kids[w], 0);
        if (kids[w] == 0) {
            for (unsigned i = 0; i < 150; i++) {
                store(w + 1, i);
                /* Readers meanwhile: what they find is whole or absent. */
                if (i > 3)
                    loads(w + 1, i - 3);
            }
            _exit(0);
        }
    }
    for (unsigned w = 0; w < 2; w++) {
        int st;
        ck_assert_int_eq(waitpid(kids[w], &st, 0), kids[w]);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "writer %u failed (status 0x%x)", w, st);
    }
    uint64_t bytes;
    unsigned tmps, n = scan(&bytes, &tmps);
    ck_assert_uint_eq(tmps, 0);
    ck_assert_uint_le(bytes, 40 * ENTRY_BYTES);
    ck_assert_uint_ge(n, 20);
    /* Every entry left is whole, and the last entry written survived (the
     * writer that finished first may see its newest evicted by the other's
     * later stores: LRU across processes, as it should be). */
    unsigned whole = 0;
    for (unsigned w = 1; w <= 2; w++)
        for (unsigned i = 0; i < 150; i++)
            whole += loads(w, i);
    ck_assert_uint_eq(whole, n);
    ck_assert(loads(1, 149) || loads(2, 149));
}
END_TEST

START_TEST(file_size_limit_is_not_fatal)
{
    /* The default action of SIGXFSZ kills: a cache write past `ulimit -f`
     * must fail quietly instead, and leave no temporary file. */
    signal(SIGXFSZ, SIG_DFL);
    struct rlimit rl, was;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &was), 0);
    rl = was;
    rl.rlim_cur = 512;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
    store(0, 1);
    ck_assert(!loads(0, 1));
    uint64_t bytes;
    unsigned tmps;
    ck_assert_uint_eq(scan(&bytes, &tmps), 0);
    ck_assert_uint_eq(tmps, 0);
    /* Under the limit it is written. */
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &was), 0);
    store(0, 2);
    ck_assert(loads(0, 2));
}
END_TEST

START_TEST(dead_writers_files_removed)
{
    store(0, 0); /* makes the directory */
    char old[600], young[600], locked[600];
    snprintf(old, sizeof(old), "%s/%064d.bin.tmp.AbCdEf", dir, 0);
    snprintf(young, sizeof(young), "%s/%064d.bin.tmp.GhIjKl", dir, 1);
    snprintf(locked, sizeof(locked), "%s/%064d.bin.tmp.MnOpQr", dir, 2);
    int fds[3];
    const char *paths[3] = {old, young, locked};
    for (int i = 0; i < 3; i++) {
        fds[i] = open(paths[i], O_WRONLY | O_CREAT | O_EXCL, 0600);
        ck_assert_int_ge(fds[i], 0);
        ck_assert_int_eq(write(fds[i], "half", 4), 4);
    }
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= 3600;
    t[1] = t[0];
    ck_assert_int_eq(utimensat(AT_FDCWD, old, t, 0), 0);
    ck_assert_int_eq(utimensat(AT_FDCWD, locked, t, 0), 0);
    /* A writer still alive holds its lock (another process: flock is per
     * open file, so the child's lock is what the cleaner sees). */
    int go[2], done[2];
    ck_assert_int_eq(pipe(go), 0);
    ck_assert_int_eq(pipe(done), 0);
    pid_t kid = fork();
    if (kid == 0) {
        int fd = open(locked, O_RDONLY);
        char c;
        if (fd < 0 || flock(fd, LOCK_EX) != 0 || write(go[1], "x", 1) != 1 || read(done[0], &c, 1) != 1)
            _exit(1);
        _exit(0);
    }
    char c;
    ck_assert_int_eq(read(go[0], &c, 1), 1);
    close(fds[0]);
    close(fds[1]);
    close(fds[2]);
    sxi_program_stats before, after;
    sxi_program_stats_get(&before);
    store(0, 1);
    sxi_program_stats_get(&after);
    ck_assert_uint_eq(after.disk_stale_removed - before.disk_stale_removed, 1);
    ck_assert_int_ne(access(old, F_OK), 0);   /* old, nobody's: removed */
    ck_assert_int_eq(access(young, F_OK), 0); /* may be being written now */
    ck_assert_int_eq(access(locked, F_OK), 0); /* its writer lives */
    ck_assert_int_eq(write(done[1], "x", 1), 1);
    int st;
    ck_assert_int_eq(waitpid(kid, &st, 0), kid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    store(0, 2);
    ck_assert_int_ne(access(locked, F_OK), 0);
    ck_assert(loads(0, 0) && loads(0, 1) && loads(0, 2));
}
END_TEST

/* A missing directory is not made by a lookup (which misses at once), only
 * by the first write into it. */
START_TEST(missing_directory_made_by_first_write)
{
    sxi_pcache_dir d;
    ck_assert(sxi_pcache_dir_get(&d));
    ck_assert(d.missing);
    ck_assert(!loads(3, 0));
    ck_assert_int_ne(access(dir, F_OK), 0);
    store(3, 0);
    struct stat st;
    ck_assert_int_eq(stat(dir, &st), 0);
    ck_assert(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
    ck_assert(sxi_pcache_dir_get(&d) && !d.missing);
    ck_assert(loads(3, 0));
}
END_TEST

/* Handing an entry to the writer never waits for the disk: while another
 * open file holds the eviction lock (the writer waits on it after its
 * first entry), three entries are handed over (a build that wrote them
 * itself would wait here until SIGALRM), read back at once from the
 * queue, and all written once the lock goes. */
START_TEST(entries_written_off_the_builders_thread)
{
    store(0, 0); /* makes the directory */
    char lockpath[600];
    snprintf(lockpath, sizeof(lockpath), "%s/.lock", dir);
    int lk = open(lockpath, O_RDWR | O_CREAT, 0600);
    ck_assert_int_ge(lk, 0);
    ck_assert_int_eq(flock(lk, LOCK_EX), 0);
    alarm(30);
    for (unsigned i = 1; i <= 3; i++)
        store_later(1, i);
    alarm(0);
    for (unsigned i = 1; i <= 3; i++)
        ck_assert(loads(1, i));
    ck_assert(!on_disk(1, 3)); /* the writer waits for the lock after entry 1 */
    ck_assert_int_eq(flock(lk, LOCK_UN), 0);
    close(lk);
    sxi_pcache_flush();
    for (unsigned i = 1; i <= 3; i++)
        ck_assert(on_disk(1, i) && loads(1, i));
    sxi_program_stats s;
    sxi_program_stats_get(&s);
    ck_assert_uint_eq(s.disk_writes, 4);
}
END_TEST

/* The writer takes everything from the hand-over, not from the
 * environment, which the application may change meanwhile (and reading it
 * while another thread sets it is a race): an entry handed over for a
 * missing directory is written there, and made, after SX_CACHE_DIR names
 * another and SX_CACHE=0. */
START_TEST(writer_reads_no_environment)
{
    store(0, 0);
    char lockpath[600], other[sizeof(dir) + 1], later[sizeof(dir) - 1];
    snprintf(lockpath, sizeof(lockpath), "%s/.lock", dir);
    int lk = open(lockpath, O_RDWR | O_CREAT, 0600);
    ck_assert_int_ge(lk, 0);
    ck_assert_int_eq(flock(lk, LOCK_EX), 0);
    store_later(4, 0); /* the writer waits for the lock after it */
    char first[sizeof(dir)];
    memcpy(first, dir, sizeof(dir));
    ck_assert_uint_lt(strlen(first) + 2, sizeof(later));
    snprintf(later, sizeof(later), "%.*s2", (int)sizeof(later) - 2, first);
    snprintf(dir, sizeof(dir), "%s", later);
    setenv("SX_CACHE_DIR", dir, 1);
    store_later(4, 1); /* for a directory not there yet */
    ck_assert_int_ne(access(later, F_OK), 0);
    snprintf(other, sizeof(other), "%.*s3", (int)sizeof(later) - 2, first);
    setenv("SX_CACHE_DIR", other, 1);
    setenv("SX_CACHE", "0", 1);
    ck_assert_int_eq(flock(lk, LOCK_UN), 0);
    close(lk);
    sxi_pcache_flush();
    ck_assert(on_disk(4, 1)); /* dir is `later` */
    ck_assert_int_ne(access(other, F_OK), 0);
    snprintf(dir, sizeof(dir), "%s", first);
    ck_assert(on_disk(4, 0));
    unsetenv("SX_CACHE");
}
END_TEST

/* A child of fork has no writer thread (the parent's is running): its own
 * entries are still written (a new writer), and flushing does not hang. */
START_TEST(writer_after_fork)
{
    store_later(2, 0);
    sxi_pcache_flush();
    pid_t kid = fork();
    ck_assert_int_ge(kid, 0);
    if (kid == 0) {
        alarm(30);
        store_later(2, 1);
        sxi_pcache_flush();
        _exit(on_disk(2, 1) ? 0 : 3);
    }
    int st;
    ck_assert_int_eq(waitpid(kid, &st, 0), kid);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child: status %d", st);
    ck_assert(on_disk(2, 0) && loads(2, 1));
}
END_TEST

static Suite *pcache_suite(void)
{
    Suite *s = suite_create("persistent cache");
    TCase *t = tcase_create("directory");
    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, max_size_parsed);
    tcase_add_test(t, least_recently_used_evicted);
    tcase_add_test(t, two_processes_fill_at_once);
    tcase_add_test(t, file_size_limit_is_not_fatal);
    tcase_add_test(t, dead_writers_files_removed);
    tcase_add_test(t, missing_directory_made_by_first_write);
    tcase_add_test(t, entries_written_off_the_builders_thread);
    tcase_add_test(t, writer_after_fork);
    tcase_add_test(t, writer_reads_no_environment);
    suite_add_tcase(s, t);
    return s;
}

SXT_MAIN(pcache_suite)
