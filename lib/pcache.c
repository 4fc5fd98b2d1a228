/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* pcache.c: the persistent cache of program binaries: one file per
 * (input images, options, adapter, device), named by a SHA-256 of those,
 * written atomically, authenticated (HMAC-SHA256 under a secret of the
 * directory) before use, bounded in bytes (least recently used entries
 * evicted) and shared safely by processes using one directory at once.
 *
 * What it trusts (an entry is code that runs: a native binary is loaded
 * into the process): the directory is opened once, every component from
 * the root checked on its descriptor as OpenSSH's StrictModes checks a
 * path (owned by root or this user, writable by nobody else unless it is
 * sticky), the directory itself owned by this user and closed to others;
 * from then on everything is relative to that descriptor (openat,
 * renameat, unlinkat, fstatat), lookups, the writer thread and eviction
 * alike, and each entry is checked on the descriptor it is read from
 * (a regular file of this user, writable by nobody else) before its bytes
 * are used. Keys are SHA-256 (Nettle: the CPU's SHA instructions where it
 * has them) of everything that decides the binary, so two inputs never
 * share an entry; an entry's MAC, keyed by the directory's secret (.key,
 * 0600), means a file nobody but this user could have written is the only
 * one ever loaded. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sx-internal.h"

#define MAGIC "SXPCACH1"
#define FORMAT_VERSION 3u            /* 3: SHA-256 keys, HMAC-SHA256 of header and payload (2: XXH64) */
#define HEADER_SIZE 88u              /* magic 8, version 4, kind 4, size 8, key 32, MAC 32 */
#define MAC_OFFSET 56u
#define MAX_PAYLOAD ((uint64_t)1 << 32)
#define LRU_GRANULE_SECONDS 3600
#define SECRET_NAME ".key"
#define SECRET_SIZE 32u

/* ---------------------------------------------------------- the directory */

/* Test hook (tests/pcache): called between the directory's check and its
 * first use, where a swap of the path would land. */
void (*sxi_pcache_test_after_check)(const char *path);

/* May a directory on the way to the cache (not the cache itself) be
 * trusted? OpenSSH's StrictModes rule: owned by root or this user, and
 * writable by no one else unless sticky (then others cannot rename or
 * remove what is not theirs: /tmp). */
static const char *ancestor_distrust(const struct stat *st, uid_t me)
{
    if (!S_ISDIR(st->st_mode))
        return "not a directory";
    if (st->st_uid != 0 && st->st_uid != me)
        return "owned by another user";
    if ((st->st_mode & 022) && !(st->st_mode & S_ISVTX))
        return "writable by other users and not sticky";
    return NULL;
}

static const char *cache_distrust(const struct stat *st, uid_t me)
{
    if (!S_ISDIR(st->st_mode))
        return "not a directory";
    if (st->st_uid != me)
        return "not owned by this user";
    if (st->st_mode & 022)
        return "writable by other users";
    return NULL;
}

/* Open the absolute, symlink-free path `abs` component by component from
 * "/", each checked on its descriptor; the last by the cache's rule when
 * `last_is_cache`. -1 with errno (ENOENT: a component is missing) or, when
 * a component is not trusted, EPERM and the reason logged. */
static int walk_open(const char *abs, bool last_is_cache)
{
    uid_t me = geteuid();
    int fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const char *p = abs, *done = abs;
    for (;;) {
        if (fd < 0)
            return -1;
        while (*p == '/')
            p++;
        bool last = *p == '\0';
        struct stat st;
        const char *why = fstat(fd, &st) != 0 ? "unreadable"
                          : last && last_is_cache ? cache_distrust(&st, me)
                                                  : ancestor_distrust(&st, me);
        if (why) {
            SXI_LOG(SX_LOG_WARN, "program cache: '%s': '%.*s' is %s; cache off", abs,
                    (int)(done - abs) ? (int)(done - abs) : 1, abs, why);
            close(fd);
            errno = EPERM;
            return -1;
        }
        if (last)
            return fd;
        size_t n = strcspn(p, "/");
        char comp[256];
        if (n >= sizeof(comp) || (n == 2 && p[0] == '.' && p[1] == '.') || (n == 1 && p[0] == '.')) {
            close(fd);
            errno = EINVAL;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        /* O_NOFOLLOW: a symlink put in after realpath is refused, not followed. */
        int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(fd);
        fd = next;
        errno = e;
        p += n;
        done = p;
    }
}

/* Open the cache directory `path` (any path the user gave: relative, with
 * symlinks): resolved once, then walked and checked. */
static int dir_open(const char *path)
{
    char *abs = realpath(path, NULL);
    if (!abs)
        return -1;
    int fd = walk_open(abs, true);
    int e = errno;
    free(abs);
    errno = e;
    return fd;
}

/* Create the missing cache directory `path` 0700 (with `parent`, the
 * XDG or ~/.cache directory above it too): each made with mkdirat in a
 * checked directory. Reads no environment (the writer thread calls it). */
static int dir_create(const char *path, bool parent)
{
    char up[4096];
    snprintf(up, sizeof(up), "%s", path);
    /* The names to make, last first; the rest must exist. */
    const char *names[2];
    int k = 0;
    for (int levels = parent ? 2 : 1; levels > 0; levels--) {
        char *slash = strrchr(up, '/');
        while (slash && slash > up && slash[1] == '\0') { /* trailing slashes */
            *slash = '\0';
            slash = strrchr(up, '/');
        }
        if (!slash) {
            names[k++] = strdup(up);
            snprintf(up, sizeof(up), ".");
            break;
        }
        names[k++] = strdup(slash + 1);
        if (slash == up)
            slash[1] = '\0';
        else
            *slash = '\0';
        if (levels > 1) {
            struct stat st;
            if (stat(up, &st) == 0) /* the parent is there: only the last is made */
                break;
        }
    }
    int fd = dir_open(up);
    for (int i = k - 1; i >= 0; i--) {
        if (fd >= 0 && names[i] && *names[i]) {
            if (mkdirat(fd, names[i], 0700) != 0 && errno != EEXIST) {
                SXI_LOG(SX_LOG_WARN, "program cache: cannot create '%s': %s; cache off", path, strerror(errno));
                close(fd);
                fd = -1;
            } else {
                int next = openat(fd, names[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                struct stat st;
                const char *why = next < 0 ? strerror(errno)
                                  : fstat(next, &st) != 0 ? "unreadable"
                                  : i == 0 ? cache_distrust(&st, geteuid())
                                           : ancestor_distrust(&st, geteuid());
                close(fd);
                fd = next;
                if (why) {
                    SXI_LOG(SX_LOG_WARN, "program cache: '%s': %s; cache off", path, why);
                    if (fd >= 0)
                        close(fd);
                    fd = -1;
                }
            }
        }
        free((void *)names[i]);
    }
    return fd;
}

/* Directories opened and checked, by path: kept open for the process's
 * life (one per SX_CACHE_DIR value used), so a build costs one fstat, the
 * writer thread writes where the build looked, and a later swap of the
 * path changes nothing for this process. */
typedef struct open_dir {
    struct open_dir *next;
    int fd;
    char path[];
} open_dir;
static open_dir *opened;
static pthread_mutex_t opened_lock = PTHREAD_MUTEX_INITIALIZER;

/* The checked descriptor of `path`, or -1 (errno ENOENT when missing). */
static int dir_fd(const char *path, bool create, bool parent)
{
    pthread_mutex_lock(&opened_lock);
    for (open_dir *o = opened; o; o = o->next) {
        if (strcmp(o->path, path) != 0 || o->fd < 0)
            continue;
        struct stat st;
        /* Still this user's and closed, and not removed since. */
        if (fstat(o->fd, &st) == 0 && st.st_nlink > 0 && !cache_distrust(&st, geteuid())) {
            int fd = o->fd;
            pthread_mutex_unlock(&opened_lock);
            return fd;
        }
        o->fd = -1; /* left open: a queued write may still use it (pcache-writer.c dups) */
    }
    int fd = dir_open(path);
    if (fd < 0 && errno == ENOENT && create)
        fd = dir_create(path, parent);
    int e = errno;
    if (fd >= 0) {
        if (sxi_pcache_test_after_check)
            sxi_pcache_test_after_check(path);
        open_dir *o = malloc(sizeof(*o) + strlen(path) + 1);
        if (o) {
            o->fd = fd;
            strcpy(o->path, path);
            o->next = opened;
            opened = o;
        } else {
            close(fd);
            fd = -1;
        }
    }
    pthread_mutex_unlock(&opened_lock);
    errno = e;
    return fd;
}

/* The cache directory from the environment, checked when it is there;
 * when it is not, `missing` says so and the first write makes it. False
 * when the cache is off or unusable (logged). */
bool sxi_pcache_dir_get(sxi_pcache_dir *dir)
{
    dir->missing = dir->make_parent = false;
    dir->fd = -1;
    const char *off = sxi_getenv("SX_CACHE");
    if (off && strcmp(off, "0") == 0)
        return false;
    const char *d = sxi_getenv("SX_CACHE_DIR"), *xdg = sxi_getenv("XDG_CACHE_HOME"), *home = sxi_getenv("HOME");
    int n;
    if (d && *d) {
        n = snprintf(dir->path, sizeof(dir->path), "%s", d);
    } else if (xdg && *xdg == '/') {
        n = snprintf(dir->path, sizeof(dir->path), "%s/sycl-ext", xdg);
        dir->make_parent = true;
    } else if (home && *home == '/') {
        n = snprintf(dir->path, sizeof(dir->path), "%s/.cache/sycl-ext", home);
        dir->make_parent = true;
    } else {
        return false;
    }
    if (n < 0 || (size_t)n >= sizeof(dir->path) - 80)
        return false;
    dir->fd = dir_fd(dir->path, false, false);
    if (dir->fd >= 0)
        return true;
    /* Nothing to read: made when an entry is written (off the build's thread). */
    dir->missing = errno == ENOENT;
    return dir->missing;
}

/* Before writing: the directory's descriptor, made first when it was missing. */
static int dir_for_write(const sxi_pcache_dir *dir)
{
    return dir->fd >= 0 ? dir->fd : dir->missing ? dir_fd(dir->path, true, dir->make_parent) : -1;
}

static void entry_name(const sxi_pcache_key *key, char name[72])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        name[2 * i] = hex[key->digest[i] >> 4];
        name[2 * i + 1] = hex[key->digest[i] & 15];
    }
    memcpy(name + 64, ".bin", 5);
}

/* Is the file open on `fd` one this user alone could have written? */
static const char *entry_distrust(int fd, struct stat *st)
{
    if (fstat(fd, st) != 0)
        return "cannot be examined";
    if (!S_ISREG(st->st_mode))
        return "not a regular file";
    if (st->st_uid != geteuid())
        return "not owned by this user";
    if (st->st_mode & 022)
        return "writable by other users";
    return NULL;
}

/* The directory's secret (HMAC key): read, or with `create` made once
 * (random bytes, linked in whole so no reader sees a part). */
static bool secret_get(int dfd, uint8_t out[SECRET_SIZE], bool create)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        int fd = openat(dfd, SECRET_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0) {
            struct stat st;
            bool ok = !entry_distrust(fd, &st) && !(st.st_mode & 077) && st.st_size == SECRET_SIZE &&
                      read(fd, out, SECRET_SIZE) == (ssize_t)SECRET_SIZE;
            close(fd);
            if (!ok)
                SXI_LOG(SX_LOG_WARN, "program cache: its secret (%s) is not a private %u-byte file of this user; "
                        "nothing is read from or written to the cache", SECRET_NAME, SECRET_SIZE);
            return ok;
        }
        if (errno != ENOENT || !create)
            return false;
        char tmp[64];
        uint8_t rnd[8];
        if (getrandom(out, SECRET_SIZE, 0) != (ssize_t)SECRET_SIZE || getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
            return false;
        snprintf(tmp, sizeof(tmp), ".key.tmp.%02x%02x%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1], rnd[2], rnd[3], rnd[4],
                 rnd[5], rnd[6], rnd[7]);
        fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
            return false;
        bool ok = write(fd, out, SECRET_SIZE) == (ssize_t)SECRET_SIZE;
        ok = close(fd) == 0 && ok;
        /* linkat fails when another process made it first: then theirs is read. */
        if (ok && linkat(dfd, tmp, dfd, SECRET_NAME, 0) == 0) {
            unlinkat(dfd, tmp, 0);
            return true;
        }
        unlinkat(dfd, tmp, 0);
    }
    return false;
}

static void mac_of(const uint8_t secret[SECRET_SIZE], const uint8_t *h, const void *data, size_t size,
                   uint8_t out[32])
{
    struct hmac_sha256_ctx c;
    hmac_sha256_set_key(&c, SECRET_SIZE, secret);
    hmac_sha256_update(&c, MAC_OFFSET, h);
    hmac_sha256_update(&c, size, data);
    hmac_sha256_digest(&c, SHA256_DIGEST_SIZE, out);
}

/* ---------------------------------------------------------------- keys */

static int cmp_digest(const void *a, const void *b) { return memcmp(a, b, 32); }

static void sha_str(struct sha256_ctx *s, const char *str)
{
    sha256_update(s, strlen(str ? str : "") + 1, (const uint8_t *)(str ? str : ""));
}

static void sha_u64(struct sha256_ctx *s, uint64_t v)
{
    sha256_update(s, sizeof(v), (const uint8_t *)&v);
}

void sxi_image_digest(sx_image_kind kind, const void *data, size_t size, uint8_t out[32])
{
    struct sha256_ctx s;
    sha256_init(&s);
    sha_u64(&s, (uint64_t)kind);
    sha_u64(&s, (uint64_t)size);
    sha256_update(&s, size, data);
    sha256_digest(&s, SHA256_DIGEST_SIZE, out);
}

void sxi_pcache_key_make(const struct sx_device_s *dev, const sxi_image *const *imgs, uint32_t n,
                         const char *compile_options, const char *link_options, sxi_pcache_key *key)
{
    struct sx_adapter_s *a = dev->adapter;
    char driver[256] = "";
    size_t got = 0;
    if (SXA_CALL(a, device, get_info, dev->handle, SX_DEVICE_INFO_DRIVER_VERSION, sizeof(driver) - 1, driver, &got) !=
        SX_SUCCESS)
        driver[0] = '\0';
    driver[sizeof(driver) - 1] = '\0';
    /* Each image by its own SHA-256 (computed once per image: the registry
     * lock, held by the caller, guards the cached one); the dependencies
     * sorted, so the order libraries were registered in does not change
     * the key. */
    uint8_t (*d)[32] = malloc((size_t)n * 32);
    struct sha256_ctx s;
    for (uint32_t i = 0; d && i < n; i++) {
        sxi_image *im = (sxi_image *)imgs[i]; /* only its digest cache is written */
        if (!im->has_digest) {
            sxi_image_digest(im->kind, im->data, im->size, im->digest);
            im->has_digest = true;
        }
        memcpy(d[i], im->digest, 32);
    }
    if (d && n > 2)
        qsort(d + 1, n - 1, 32, cmp_digest);
    sha256_init(&s);
    sha_str(&s, "libsycl-ext program cache 3 " SX_VERSION_STRING);
    sha_str(&s, a->name);
    sha_u64(&s, a->version);
    sha_u64(&s, dev->backend);
    sha_str(&s, dev->name);
    sha_str(&s, driver);
    sha_str(&s, compile_options);
    sha_str(&s, link_options);
    sha_u64(&s, n);
    for (uint32_t i = 0; i < n; i++) {
        if (d) {
            sha256_update(&s, 32, d[i]);
        } else { /* out of memory: slower, same inputs */
            uint8_t one[32];
            sxi_image_digest(imgs[i]->kind, imgs[i]->data, imgs[i]->size, one);
            sha256_update(&s, 32, one);
        }
    }
    sha256_digest(&s, SHA256_DIGEST_SIZE, key->digest);
    free(d);
}

/* -------------------------------------------------------------- entries */

static void rejected(int dfd, const char *name, const char *why)
{
    SXI_LOG(SX_LOG_WARN, "program cache: entry '%s' is damaged (%s); ignoring and replacing it", name, why);
    SXI_STAT(disk_rejects);
    unlinkat(dfd, name, 0);
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

sx_result sxi_pcache_load(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind *kind, void **data,
                          size_t *size)
{
    if (sxi_pcache_pending(dir, key, kind, data, size))
        return SX_SUCCESS;
    if (dir->missing || dir->fd < 0)
        return SX_ERROR_INVALID_VALUE;
    char name[72];
    entry_name(key, name);
    int fd = openat(dir->fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return SX_ERROR_INVALID_VALUE;
    struct stat st;
    const char *why = entry_distrust(fd, &st);
    if (why) {
        close(fd);
        rejected(dir->fd, name, why);
        return SX_ERROR_INVALID_VALUE;
    }
    if ((uint64_t)st.st_size < HEADER_SIZE || (uint64_t)st.st_size - HEADER_SIZE > MAX_PAYLOAD) {
        close(fd);
        rejected(dir->fd, name, "wrong size");
        return SX_ERROR_INVALID_VALUE;
    }
    uint8_t secret[SECRET_SIZE];
    if (!secret_get(dir->fd, secret, false)) {
        close(fd); /* no secret: nothing here can be authentic */
        return SX_ERROR_INVALID_VALUE;
    }
    size_t total = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(total);
    if (!buf) {
        close(fd);
        return SX_ERROR_INVALID_VALUE;
    }
    while (got < total) {
        ssize_t r = read(fd, buf + got, total - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    uint8_t h[HEADER_SIZE];
    uint64_t len = 0;
    uint8_t sum[32];
    if (got != total) {
        why = "short read";
    } else {
        memcpy(h, buf, HEADER_SIZE);
        memcpy(&len, h + 16, 8);
        if (memcmp(h, MAGIC, 8) != 0)
            why = "bad magic";
        else if (rd32(h + 8) != FORMAT_VERSION)
            why = "unknown format version";
        else if (rd32(h + 12) == SX_IMAGE_KIND_UNKNOWN || rd32(h + 12) >= SX_IMAGE_KIND_COUNT_)
            why = "unknown image kind";
        else if (len != total - HEADER_SIZE)
            why = "payload length does not match the file";
        else if (memcmp(h + 24, key->digest, 32) != 0)
            why = "key does not match its name";
    }
    if (!why) {
        mac_of(secret, h, buf + HEADER_SIZE, (size_t)len, sum);
        if (memcmp(sum, h + MAC_OFFSET, 32) != 0)
            why = "its MAC does not verify: damaged, or not written by this user";
    }
    memset(secret, 0, sizeof(secret));
    if (why) {
        close(fd);
        free(buf);
        rejected(dir->fd, name, why);
        return SX_ERROR_INVALID_VALUE;
    }
    /* Least recently used first out: a hit makes the entry young again
     * (at most once an hour: a hit need not write the inode each time). */
    if (time(NULL) - st.st_mtime >= LRU_GRANULE_SECONDS)
        futimens(fd, NULL);
    close(fd);
    memmove(buf, buf + HEADER_SIZE, (size_t)len);
    *kind = (sx_image_kind)rd32(h + 12);
    *data = buf;
    *size = (size_t)len;
    SXI_LOG(SX_LOG_DEBUG, "program cache: read '%s/%s' (%zu bytes)", dir->path, name, *size);
    return SX_SUCCESS;
}

/* ------------------------------------------------------ the size bound */

/* SX_CACHE_MAX_SIZE: bytes, with an optional K, M or G (powers of 1024);
 * 0 for no bound. */
uint64_t sxi_pcache_max_size(void)
{
    const char *v = sxi_getenv("SX_CACHE_MAX_SIZE");
    if (!v || !*v)
        return SXI_PCACHE_DEFAULT_MAX_SIZE;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (errno || end == v || *end || *v == '-' || (shift && n > (UINT64_MAX >> shift))) {
        SXI_LOG(SX_LOG_WARN, "program cache: SX_CACHE_MAX_SIZE='%s' is not a size (bytes, or with K, M, G); using %llu",
                v, (unsigned long long)SXI_PCACHE_DEFAULT_MAX_SIZE);
        return SXI_PCACHE_DEFAULT_MAX_SIZE;
    }
    return (uint64_t)n << shift;
}

/* A temporary file older than this whose writer holds no lock on it was
 * left by a process that died writing (SIGKILL, a power cut). */
#define STALE_TMP_SECONDS 10

static bool is_entry_name(const char *n)
{
    size_t l = strlen(n);
    if (l != 64 + 4 || strcmp(n + 64, ".bin") != 0)
        return false;
    for (size_t i = 0; i < 64; i++)
        if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
            return false;
    return true;
}

static void remove_if_stale(int dfd, const char *name, time_t now)
{
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return;
    struct stat st;
    /* A live writer holds an exclusive lock on its file until it renames it. */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime >= STALE_TMP_SECONDS &&
        flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dfd, name, 0) == 0) {
        SXI_STAT(disk_stale_removed);
        SXI_LOG(SX_LOG_INFO, "program cache: removed '%s', left by a process that died writing it", name);
    }
    close(fd);
}

typedef struct {
    char name[72];
    uint64_t size;
    struct timespec used;
} entry_info;

static int cmp_used(const void *a, const void *b)
{
    const struct timespec *x = &((const entry_info *)a)->used, *y = &((const entry_info *)b)->used;
    if (x->tv_sec != y->tv_sec)
        return x->tv_sec < y->tv_sec ? -1 : 1;
    return x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec;
}

/* Remove stale temporary files, then the least recently used entries until
 * the directory (`dfd`) holds at most `limit` bytes (0: no bound). One
 * process at a time (a lock file), so two do not both evict for the same
 * excess; readers never lock: an entry unlinked while open still reads whole. */
static void evict(int dfd, uint64_t limit)
{
    int lk = openat(dfd, ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
    if (lk < 0 || flock(lk, LOCK_EX) != 0) {
        if (lk >= 0)
            close(lk);
        return;
    }
    /* Its own descriptor of the same directory, for readdir's offset. */
    int dfd2 = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd2 >= 0 ? fdopendir(dfd2) : NULL;
    entry_info *es = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    time_t now = time(NULL);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strstr(e->d_name, ".bin.tmp.") || strncmp(e->d_name, ".key.tmp.", 9) == 0) {
            remove_if_stale(dfd, e->d_name, now);
            continue;
        }
        struct stat st;
        if (!is_entry_name(e->d_name) || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            entry_info *ne = realloc(es, nc * sizeof(*ne));
            if (!ne)
                break;
            es = ne;
            cap = nc;
        }
        memcpy(es[n].name, e->d_name, strlen(e->d_name) + 1);
        es[n].size = (uint64_t)st.st_size;
        es[n].used = st.st_mtim;
        total += es[n].size;
        n++;
    }
    if (d)
        closedir(d);
    else if (dfd2 >= 0)
        close(dfd2);
    if (limit && total > limit) {
        qsort(es, n, sizeof(*es), cmp_used);
        for (size_t i = 0; i < n && total > limit; i++) {
            /* ENOENT: another process removed it (a damaged entry): already gone. */
            if (unlinkat(dfd, es[i].name, 0) == 0 || errno == ENOENT) {
                total -= es[i].size;
                SXI_STAT(disk_evictions);
                SXI_LOG(SX_LOG_INFO, "program cache: evicted '%s' (%llu bytes; the cache holds at most %llu)",
                        es[i].name, (unsigned long long)es[i].size, (unsigned long long)limit);
            }
        }
    }
    free(es);
    close(lk); /* releases the lock */
}

/* ------------------------------------------------------------- writing */

static bool write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t r = write(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = ENOSPC;
            return false;
        }
        b += r;
        n -= (size_t)r;
    }
    return true;
}

/* Write with SIGXFSZ blocked in this thread: past the file size limit
 * (ulimit -f) the write fails with EFBIG instead of the default action
 * killing the application; a signal this raised is taken back. */
static bool write_entry(int fd, const uint8_t *h, const void *data, size_t size)
{
    sigset_t xfsz, old, pending;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    bool masked = pthread_sigmask(SIG_BLOCK, &xfsz, &old) == 0;
    bool was_pending = masked && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
    bool ok = write_all(fd, h, HEADER_SIZE) && write_all(fd, data, size);
    int e = errno;
    if (masked) {
        if (!was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ)) {
            static const struct timespec zero = {0, 0};
            while (sigtimedwait(&xfsz, NULL, &zero) < 0 && errno == EINTR)
                ;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    errno = e;
    return ok;
}

void sxi_pcache_store(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind kind, const void *data,
                      size_t size)
{
    sxi_pcache_store_bounded(dir, key, kind, data, size, sxi_pcache_max_size());
}

void sxi_pcache_store_bounded(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind kind,
                              const void *data, size_t size, uint64_t limit)
{
    char name[72], tmp[96];
    if ((uint64_t)size > MAX_PAYLOAD)
        return;
    int dfd = dir_for_write(dir);
    if (dfd < 0)
        return;
    entry_name(key, name);
    uint64_t total = (uint64_t)size + HEADER_SIZE;
    if (limit && total > limit) {
        SXI_LOG(SX_LOG_INFO, "program cache: a binary of %zu bytes is larger than the cache's bound (%llu bytes); not cached",
                size, (unsigned long long)limit);
        return;
    }
    uint8_t secret[SECRET_SIZE];
    if (!secret_get(dfd, secret, true)) {
        SXI_LOG(SX_LOG_WARN, "program cache: no secret in '%s' (%s); not cached", dir->path, strerror(errno));
        return;
    }
    uint8_t h[HEADER_SIZE];
    uint32_t v = FORMAT_VERSION, k = kind;
    uint64_t len = size;
    memcpy(h, MAGIC, 8);
    memcpy(h + 8, &v, 4);
    memcpy(h + 12, &k, 4);
    memcpy(h + 16, &len, 8);
    memcpy(h + 24, key->digest, 32);
    mac_of(secret, h, data, size, h + MAC_OFFSET);
    memset(secret, 0, sizeof(secret));
    int fd = -1;
    for (int attempt = 0; attempt < 8 && fd < 0; attempt++) {
        uint8_t rnd[6];
        if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
            break;
        snprintf(tmp, sizeof(tmp), "%s.tmp.%02x%02x%02x%02x%02x%02x", name, rnd[0], rnd[1], rnd[2], rnd[3], rnd[4],
                 rnd[5]);
        fd = openat(dfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        SXI_LOG(SX_LOG_WARN, "program cache: cannot create a file beside '%s' in '%s': %s", name, dir->path,
                strerror(errno));
        return;
    }
    /* Held until the rename: cleaners leave a file alone while its writer lives. */
    flock(fd, LOCK_EX | LOCK_NB);
    /* Readers see the old entry or the whole new one, never a part. */
    bool ok = write_entry(fd, h, data, size);
    int e = errno;
    if (ok && renameat(dfd, tmp, dfd, name) != 0) {
        ok = false;
        e = errno;
    }
    if (close(fd) != 0 && ok)
        SXI_LOG(SX_LOG_WARN, "program cache: closing '%s': %s", name, strerror(errno));
    if (!ok) {
        SXI_LOG(SX_LOG_WARN, "program cache: writing '%s' in '%s' failed: %s; not cached", name, dir->path,
                strerror(e));
        unlinkat(dfd, tmp, 0);
    } else {
        SXI_STAT(disk_writes);
        SXI_LOG(SX_LOG_INFO, "program cache: wrote '%s/%s' (%zu bytes)", dir->path, name, size);
    }
    /* Whatever happened, keep the directory bounded and clean. */
    evict(dfd, limit);
}

/* Markers in the cache directory that spare later processes hashing and
 * lookups for nothing (for inputs over 256 KiB; smaller ones are looked up
 * first, and the marker only decides whether to store: program.c):
 *   ".nobinary-<adapter>-<version>": no binary of a linked program;
 *   ".nobinary-<adapter>-<version>-k<kind>": a one-image program of that
 *   image kind has no binary, or its binary is the image itself. */
static void marker_name(const struct sx_adapter_s *a, sx_image_kind kind, char *name, size_t size)
{
    size_t w = (size_t)snprintf(name, size, ".nobinary-");
    for (const char *c = a->name; *c && w < size - 32; c++)
        name[w++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ? *c : '_';
    w += (size_t)snprintf(name + w, size - w, "-%x", a->version);
    if (kind != SX_IMAGE_KIND_UNKNOWN)
        snprintf(name + w, size - w, "-k%u", (unsigned)kind);
}

bool sxi_pcache_adapter_refuses(const sxi_pcache_dir *dir, const struct sx_adapter_s *a, sx_image_kind kind)
{
    char name[160];
    struct stat st;
    if (dir->missing || dir->fd < 0)
        return false;
    marker_name(a, kind, name, sizeof(name));
    return fstatat(dir->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

void sxi_pcache_adapter_refused(const sxi_pcache_dir *dir, const struct sx_adapter_s *a, sx_image_kind kind)
{
    char name[160];
    int dfd = dir_for_write(dir);
    if (dfd < 0)
        return;
    marker_name(a, kind, name, sizeof(name));
    int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0)
        close(fd);
}

void sxi_pcache_remove(const sxi_pcache_dir *dir, const sxi_pcache_key *key)
{
    char name[72];
    if (dir->missing || dir->fd < 0)
        return;
    sxi_pcache_flush(); /* an entry waiting to be written is written first, then goes */
    entry_name(key, name);
    unlinkat(dir->fd, name, 0);
}
